#!/usr/bin/env python3
"""tests/wire/test_check_roce_pcap.py: the RoCEv2 capture checker
(tools/check_roce_pcap.py) on frames built here with scapy (make
test-wire-tools, part of make test).

    build/venv/bin/python tests/wire/test_check_roce_pcap.py build/tests/sim/test_pcap

For: that the checker accepts good frames of every opcode the NIC sends, and
rejects, naming the frame, each kind of bad one: a flipped payload bit, a
wrong ICRC, a wrong IPv4 length or checksum, a UDP checksum, a pad count the
RETH contradicts, an unexpected sequence. The captures are written by the
simulator's own writer (sim/pcap.cpp, through test_pcap --from-hex, the
argument), so tshark and scapy read that writer's files, nanosecond magic
and all; one case also reads scapy's wrpcap (microseconds).
Not for: the NIC's frames (the simulator's capture is checked where it is
made).

Prints "PASS <case>" or "FAIL <case>" with what differed, then
"N passed, M failed"; exits 1 when a case failed.
"""
import json
import logging
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CHECKER = os.path.join(ROOT, "tools", "check_roce_pcap.py")

sys.path.insert(0, os.path.join(ROOT, "tests"))
from py_cases import run_cases  # noqa: E402

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.contrib.roce import BTH  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.utils import wrpcap  # noqa: E402

PCAP_WRITER = None  # build/tests/sim/test_pcap, from argv
TMP = tempfile.mkdtemp(prefix="qpnic-test-wire-")


def frame(opcode, dqp, psn, payload=b"", ext=b"", ip_len=None, ip_chksum=None, udp_chksum=0, pad=None):
    """One frame as the wire has it; scapy computes IP checksum and ICRC over
    whatever the fields say (ip_len, pad: deliberately wrong ones too)."""
    if pad is None:
        pad = -len(payload) % 4
    ip = IP(src="10.0.0.1", dst="10.0.0.2", flags="DF", ttl=64, id=0)
    if ip_len is not None:
        ip.len = ip_len
    if ip_chksum is not None:
        ip.chksum = ip_chksum
    pkt = (Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / ip /
           UDP(sport=49152, dport=4791, chksum=udp_chksum) /
           BTH(opcode=opcode, dqpn=dqp, psn=psn, padcount=pad % 4, ackreq=1) /
           Raw(ext + payload + b"\0" * (-len(payload) % 4)))
    return bytes(pkt)


def reth(va, rkey, length):
    return struct.pack("!QII", va, rkey, length)


def aeth(syndrome, msn):
    return struct.pack("!I", syndrome << 24 | msn)


def ieth(rkey):
    return struct.pack("!I", rkey)


# One exchange of every opcode the NIC sends, as (frame, (opcode, dqp, psn)).
def good_exchange():
    return [
        frame(0x04, 0x11, 5, b"hello world!"),                              # SEND_ONLY
        frame(0x11, 0x21, 5, ext=aeth(0x1F, 1)),                            # its ACK
        frame(0x0A, 0x11, 6, b"x" * 13, ext=reth(0x1000, 0x55, 13)),        # WRITE_ONLY, 3 pad bytes
        frame(0x11, 0x21, 6, ext=aeth(0x1F, 2)),
        frame(0x0C, 0x11, 7, ext=reth(0x2000, 0x56, 64)),                   # READ_REQUEST
        frame(0x10, 0x21, 7, bytes(range(64)), ext=aeth(0x1F, 3)),          # READ_RESPONSE_ONLY
        frame(0x17, 0x11, 8, b"abcde", ext=ieth(0x1234)),                   # SEND_ONLY_WITH_INVALIDATE
        frame(0x11, 0x21, 8, ext=aeth(0x1F, 4)),
    ]


GOOD_SEQUENCE = [(0x04, 0x11, 5), (0x11, 0x21, 5), (0x0A, 0x11, 6), (0x11, 0x21, 6),
                 (0x0C, 0x11, 7), (0x10, 0x21, 7), (0x17, 0x11, 8), (0x11, 0x21, 8)]


def write_pcap(name, frames):
    """The frames in a capture written by sim/pcap.cpp; its path."""
    hexfile = os.path.join(TMP, name + ".hex")
    path = os.path.join(TMP, name + ".pcap")
    with open(hexfile, "w") as f:
        for fr in frames:
            f.write(fr.hex() + "\n")
    subprocess.run([PCAP_WRITER, "--from-hex", hexfile, path], check=True)
    return path


def run_checker(path, *args):
    """(exit code, stdout + stderr) of the checker on path."""
    run = subprocess.run([sys.executable, CHECKER, path, *args], capture_output=True, text=True)
    return run.returncode, run.stdout + run.stderr


def expect_rejected(path, frame_no, *words):
    """The checker must fail the capture with a line naming frame_no and
    holding every one of words."""
    code, out = run_checker(path)
    assert code == 1, f"exit {code}, want 1:\n{out}"
    lines = [line for line in out.splitlines() if f": frame {frame_no}: " in line]
    assert lines, f"no line names frame {frame_no}:\n{out}"
    for w in words:
        assert any(w in line for line in lines), f"no line of frame {frame_no} says {w!r}:\n{out}"
    others = [line for line in out.splitlines() if ": frame " in line and f": frame {frame_no}: " not in line]
    assert not others, f"frames other than {frame_no} were blamed:\n{out}"
    return out


def with_bad(bad, at=3):
    """The good exchange with frame number `at` (1-based) replaced by bad."""
    frames = good_exchange()
    frames[at - 1] = bad
    return frames


def test_good_exchange_accepted():
    path = write_pcap("good", good_exchange())
    code, out = run_checker(path)
    assert code == 0, f"exit {code}:\n{out}"
    assert out.strip().endswith("check_roce_pcap: 8 frames, all dissect as RoCEv2 and every ICRC matches"), out


def test_scapy_wrpcap_microseconds_accepted():
    path = os.path.join(TMP, "wrpcap.pcap")
    wrpcap(path, [Ether(f) for f in good_exchange()])
    code, out = run_checker(path)
    assert code == 0, f"exit {code}:\n{out}"


def test_payloads_that_look_like_upper_protocols_accepted():
    # tshark's InfiniBand dissector hands a payload to its heuristics (RPC
    # over RDMA, SMB Direct, NVMe, ...), which call some of these malformed;
    # the checker turns them off. Random payloads of every length to 80.
    rng = random.Random(4791)
    frames = [frame(0x04, 0x11, psn, bytes(rng.randrange(256) for _ in range(psn))) for psn in range(81)]
    frames += [frame(0x04, 0x11, 100 + k, struct.pack("!IIII", 1, 1, 0, 0) + bytes(k)) for k in range(8)]
    code, out = run_checker(write_pcap("payloads", frames))
    assert code == 0, f"exit {code}:\n{out}"


def test_flipped_payload_bit_rejected():
    bad = bytearray(frame(0x0A, 0x11, 6, b"x" * 13, ext=reth(0x1000, 0x55, 13)))
    bad[54 + 16 + 5] ^= 0x04
    expect_rejected(write_pcap("flipped", with_bad(bytes(bad))), 3, "scapy: ICRC in the frame")


def test_wrong_icrc_rejected():
    bad = bytearray(frame(0x11, 0x21, 6, ext=aeth(0x1F, 2)))
    bad[-1] ^= 0x80
    out = expect_rejected(write_pcap("icrc", with_bad(bytes(bad), at=4)), 4, "ICRC")
    assert "0 bad" not in out and "1 bad" in out, out


def test_icrc_of_the_other_byte_order_rejected():
    # the ICRC goes least significant byte first: big-endian is a NIC bug
    good = frame(0x04, 0x11, 5, b"hello world!")
    bad = good[:-4] + good[-4:][::-1]
    expect_rejected(write_pcap("icrc_order", with_bad(bad, at=1)), 1, "ICRC")


def test_bad_ip_length_rejected():
    # the length is wrong, but the IPv4 checksum and the ICRC were computed
    # over it: only the length can tell
    good = frame(0x0A, 0x11, 6, b"x" * 13, ext=reth(0x1000, 0x55, 13))
    bad = frame(0x0A, 0x11, 6, b"x" * 13, ext=reth(0x1000, 0x55, 13), ip_len=len(good) - 14 + 4)
    expect_rejected(write_pcap("iplen", with_bad(bad)), 3,
                    "scapy: IPv4 total length 80", "tshark: expert error: IPv4 total length exceeds")


def test_short_ip_length_rejected():
    good = frame(0x0A, 0x11, 6, b"x" * 13, ext=reth(0x1000, 0x55, 13))
    bad = frame(0x0A, 0x11, 6, b"x" * 13, ext=reth(0x1000, 0x55, 13), ip_len=len(good) - 14 - 4)
    expect_rejected(write_pcap("iplen_short", with_bad(bad)), 3, "scapy: IPv4 total length 72", "tshark:")


def test_bad_ip_checksum_rejected():
    good = frame(0x0C, 0x11, 7, ext=reth(0x2000, 0x56, 64))
    ck, = struct.unpack("!H", good[24:26])
    bad = frame(0x0C, 0x11, 7, ext=reth(0x2000, 0x56, 64), ip_chksum=ck ^ 0x0100)
    expect_rejected(write_pcap("ipck", with_bad(bad, at=5)), 5,
                    "scapy: IPv4 header checksum", "tshark: expert error: Bad checksum")


def test_udp_checksum_rejected():
    bad = frame(0x04, 0x11, 5, b"hello world!", udp_chksum=0x1234)
    expect_rejected(write_pcap("udpck", with_bad(bad, at=1)), 1, "scapy: UDP checksum 0x1234")


def test_pad_count_the_reth_contradicts_rejected():
    bad = frame(0x0A, 0x11, 6, b"x" * 13, ext=reth(0x1000, 0x55, 13), pad=1)
    expect_rejected(write_pcap("pad", with_bad(bad)), 3, "RETH DMA length 13, the payload is 15 bytes")


def test_ack_with_payload_rejected():
    bad = frame(0x11, 0x21, 6, b"oops", ext=aeth(0x1F, 2))
    expect_rejected(write_pcap("ackpay", with_bad(bad, at=4)), 4, "ACKNOWLEDGE carries no payload")


def test_expect_accepts_the_sequence():
    path = write_pcap("expect_good", good_exchange())
    text = ",".join(f"{o:#x}:{q:#x}:{p}" for o, q, p in GOOD_SEQUENCE)
    code, out = run_checker(path, "--expect", text.replace("0x4:", "SEND_ONLY:"))
    assert code == 0, f"exit {code}:\n{out}"
    assert "match the expected sequence" in out, out


def test_expect_names_the_frame_that_differs():
    path = write_pcap("expect_bad", good_exchange())
    seq = list(GOOD_SEQUENCE)
    seq[5] = (0x10, 0x21, 8)
    text = ",".join(f"{o}:{q}:{p}" for o, q, p in seq)
    code, out = run_checker(path, "--expect", text)
    assert code == 1, f"exit {code}:\n{out}"
    assert ": frame 6: expect: RDMA_READ_RESPONSE_ONLY dest QP 0x000021 PSN 7, expected " \
           "RDMA_READ_RESPONSE_ONLY dest QP 0x000021 PSN 8" in out, out


def test_expect_json_and_count():
    path = write_pcap("expect_json", good_exchange())
    spec = os.path.join(TMP, "expect.json")
    with open(spec, "w") as f:
        json.dump([{"opcode": "SEND_ONLY", "dest_qp": 0x11, "psn": 5}] +
                  [list(t) for t in GOOD_SEQUENCE[1:]], f)
    code, out = run_checker(path, "--expect-json", spec)
    assert code == 0, f"exit {code}:\n{out}"
    with open(spec, "w") as f:
        json.dump([list(t) for t in GOOD_SEQUENCE[:-1]], f)
    code, out = run_checker(path, "--expect-json", spec)
    assert code == 1 and "8 frames, expected 7" in out, f"exit {code}:\n{out}"


def test_summary_lines():
    code, out = run_checker(write_pcap("summary", good_exchange()), "--summary")
    assert code == 0, f"exit {code}:\n{out}"
    lines = out.splitlines()
    assert lines[2].split() == ["3", "RDMA_WRITE_ONLY", "dqp", "0x000011", "psn", "6", "payload", "13",
                                "icrc", "ok"], lines[2]
    assert lines[5].split()[1] == "RDMA_READ_RESPONSE_ONLY" and lines[5].split()[7] == "64", lines[5]


def test_unusable_files_exit_2():
    code, out = run_checker(os.path.join(TMP, "does-not-exist.pcap"))
    assert code == 2 and "cannot read" in out, f"exit {code}:\n{out}"
    notpcap = os.path.join(TMP, "not.pcap")
    with open(notpcap, "wb") as f:
        f.write(b"this is no capture file at all")
    code, out = run_checker(notpcap)
    assert code == 2 and "not a classic pcap file" in out, f"exit {code}:\n{out}"
    path = write_pcap("cut", good_exchange())
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) - 10)
    code, out = run_checker(path)
    assert code == 2 and "frame 8: the record says" in out, f"exit {code}:\n{out}"


def test_icrc_definition_is_scapys():
    # The checker's own ICRC (from the definition) and scapy's compute_icrc
    # agree on frames of every length and header: two computations, one CRC.
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import check_roce_pcap
    for fr in good_exchange():
        assert check_roce_pcap.icrc_by_definition(fr) == fr[-4:], fr.hex()
    # and by hand on one frame: zlib over the masked fields, LSB first
    fr = good_exchange()[0]
    masked = (b"\xff" * 8 + fr[14:15] + b"\xff" + fr[16:22] + b"\xff" + fr[23:24] + b"\xff\xff" + fr[26:40] +
              b"\xff\xff" + fr[42:46] + b"\xff" + fr[47:-4])
    assert struct.pack("<I", zlib.crc32(masked)) == fr[-4:], fr.hex()


def test_layout_opcodes_known_to_the_checker():
    # The NIC's own opcode list (spec/layout.toml enum ib_opcode) against the
    # checker's table of the standard's: a new opcode in the layout that the
    # checker would refuse fails here first.
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import check_roce_pcap
    text = open(os.path.join(ROOT, "host", "src", "gen", "qpnic_hw.h")).read()
    codes = [int(v, 16) for v in re.findall(r"#define QPNIC_IB_OPCODE_\w+ 0x([0-9A-Fa-f]+)u", text)]
    assert len(codes) >= 6, codes
    for c in codes:
        assert c in check_roce_pcap.OPCODES, f"layout opcode 0x{c:02x} is not in the checker's table"


def main():
    global PCAP_WRITER
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} PATH/TO/test_pcap", file=sys.stderr)
        return 2
    PCAP_WRITER = sys.argv[1]
    code = run_cases(globals())
    if code == 0:
        shutil.rmtree(TMP)  # a failure's files stay, for a look
    return code


if __name__ == "__main__":
    sys.exit(main())
