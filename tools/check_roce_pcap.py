#!/usr/bin/env python3
"""Check that every frame of a capture of the NIC's RoCEv2 wire is a good
RoCEv2 packet, two independent ways (scapy and tshark).

    build/venv/bin/python tools/check_roce_pcap.py FILE.pcap
        [--summary] [--expect "OPC:DQP:PSN,..." | --expect-json FILE]

For: captures the simulator writes (sim/pcap.h: classic pcap, Ethernet),
before anyone trusts what the RTL put on the wire. Not for: judging whether
the NIC's protocol was right (that a READ got its response, PSNs in order):
only --expect says anything about the sequence, and only what it is given.

What the wire must be (the frame format of the RoCEv2 wire): Ethernet II /
IPv4 (20 bytes, no options, DF, TTL 64, protocol 17, header checksum right,
total length = frame - 14) / UDP (destination port 4791, length = frame -
34, checksum 0) / BTH / the opcode's extended header (RETH, AETH, IETH,
...) / payload / pad (BTH padcnt, so that payload + pad is a multiple of 4)
/ ICRC, least significant byte first.

(a) scapy dissects each frame (scapy.contrib.roce's BTH), and the ICRC is
    computed twice: by scapy's BTH.compute_icrc, and here from the
    definition (zlib crc32 over 8 bytes 0xff, the IPv4 header with TOS, TTL
    and checksum all ones, the UDP header with checksum 0xffff, the BTH with
    its byte 4 0xff, the rest up to the ICRC). Both must equal the frame's
    last 4 bytes; the IPv4 checksum, the fixed fields and the lengths are
    checked against the frame.
(b) tshark dissects the whole file once: each frame must come out as
    eth:ethertype:ip:udp:infiniband (then data, for a payload), with no
    malformed packet and no expert info of severity warning or error, and
    its opcode, destination QP, PSN, pad count and ICRC must be those scapy
    read. tshark 4.0 does not check the ICRC itself (it only shows it), so
    (a) is where a wrong ICRC is caught; tshark catches what scapy takes
    on trust, e.g. a length or checksum read the way the IP layer means it.

Prints one line per problem, "FILE: frame N: scapy|tshark|expect: what",
then a closing line; exits 0 when every frame passed, 1 when one did not,
2 when the file could not be checked at all (unreadable, not a pcap of
Ethernet, tshark or scapy missing).
"""
import argparse
import json
import logging
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

PROG = "check_roce_pcap"

# The RC opcodes of the InfiniBand Architecture (vol. 1, 9.2 and 9.3): each
# with the bytes of extended headers that follow its BTH, and whether a
# payload may follow those. The checker knows them all, not only those the
# NIC sends today, so that a capture of a later NIC (FIRST/MIDDLE/LAST,
# immediates, atomics) is checked, not refused.
RETH, AETH, IETH, IMMDT, ATOMICETH, ATOMICACKETH = 16, 4, 4, 4, 28, 8
OPCODES = {
    0x00: ("SEND_FIRST", 0, True),
    0x01: ("SEND_MIDDLE", 0, True),
    0x02: ("SEND_LAST", 0, True),
    0x03: ("SEND_LAST_WITH_IMMEDIATE", IMMDT, True),
    0x04: ("SEND_ONLY", 0, True),
    0x05: ("SEND_ONLY_WITH_IMMEDIATE", IMMDT, True),
    0x06: ("RDMA_WRITE_FIRST", RETH, True),
    0x07: ("RDMA_WRITE_MIDDLE", 0, True),
    0x08: ("RDMA_WRITE_LAST", 0, True),
    0x09: ("RDMA_WRITE_LAST_WITH_IMMEDIATE", IMMDT, True),
    0x0A: ("RDMA_WRITE_ONLY", RETH, True),
    0x0B: ("RDMA_WRITE_ONLY_WITH_IMMEDIATE", RETH + IMMDT, True),
    0x0C: ("RDMA_READ_REQUEST", RETH, False),
    0x0D: ("RDMA_READ_RESPONSE_FIRST", AETH, True),
    0x0E: ("RDMA_READ_RESPONSE_MIDDLE", 0, True),
    0x0F: ("RDMA_READ_RESPONSE_LAST", AETH, True),
    0x10: ("RDMA_READ_RESPONSE_ONLY", AETH, True),
    0x11: ("ACKNOWLEDGE", AETH, False),
    0x12: ("ATOMIC_ACKNOWLEDGE", AETH + ATOMICACKETH, False),
    0x13: ("CMP_SWAP", ATOMICETH, False),
    0x14: ("FETCH_ADD", ATOMICETH, False),
    0x16: ("SEND_LAST_WITH_INVALIDATE", IETH, True),
    0x17: ("SEND_ONLY_WITH_INVALIDATE", IETH, True),
}
OPCODE_BY_NAME = {name: code for code, (name, _, _) in OPCODES.items()}

ETH, IP, UDP, BTH, ICRC = 14, 20, 8, 12, 4
HEADERS = ETH + IP + UDP + BTH  # 54: where the extended headers start
ROCEV2_PORT = 4791

# tshark's expert severities (epan/proto.h PI_WARN, PI_ERROR): notes and
# chats are information, a warning or an error is a finding.
PI_WARN = 0x00600000

# What tshark must make of a frame: InfiniBand over UDP, then nothing (a
# request or ACK with no payload) or "data" (the payload, seen as opaque).
TSHARK_PROTOCOLS = ("eth:ethertype:ip:udp:infiniband", "eth:ethertype:ip:udp:infiniband:data")

# The heuristic sub-dissectors tshark 4.0 tries on an InfiniBand payload.
# The NIC's payloads are the application's bytes; a SEND of "hello world!"
# is taken for RPC-over-RDMA and then reported as a malformed packet. So the
# payload is left to the "data" dissector. tshark refuses a name it does not
# know (the list is checked whenever it runs); TSHARK_PROTOCOLS above
# catches one that a later tshark adds.
TSHARK_PAYLOAD_HEURISTICS = (
    "rpcrdma_infiniband", "smcr_infiniband", "smb_direct_infiniband", "nvme_rdma", "lnet_ib",
    "iser_infiniband", "eth_over_ib", "mellanox_eoib", "sdp_infiniband", "fc_infiniband",
)

TSHARK_FIELDS = (
    "frame.number", "frame.protocols", "infiniband.bth.opcode", "infiniband.bth.destqp",
    "infiniband.bth.psn", "infiniband.bth.padcnt", "infiniband.invariant.crc", "data.len",
    "_ws.malformed", "_ws.expert.severity", "_ws.expert.message",
)


class Unusable(Exception):
    """The file cannot be checked at all (exit 2)."""


def import_scapy():
    # scapy warns on import about routes and interfaces this checker never
    # uses; only its errors matter here.
    logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
    try:
        from scapy.layers.l2 import Ether
        from scapy.contrib.roce import BTH as ScapyBTH
    except ImportError as e:
        raise Unusable(f"needs scapy (tools/requirements.txt): run it with build/venv/bin/python ({e})")
    return Ether, ScapyBTH


def read_pcap(path):
    """The frames of a classic pcap file of LINKTYPE_ETHERNET, as bytes."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Unusable(f"cannot read {path}: {e.strerror}")
    if len(data) < 24:
        raise Unusable(f"{path}: {len(data)} bytes, shorter than a pcap file header")
    for order in "<>":
        magic, = struct.unpack(order + "I", data[:4])
        if magic in (0xA1B2C3D4, 0xA1B23C4D):
            break
    else:
        raise Unusable(f"{path}: not a classic pcap file (magic {data[:4].hex()})")
    linktype, = struct.unpack(order + "I", data[20:24])
    if linktype & 0xFFFF != 1:
        raise Unusable(f"{path}: link type {linktype}, not Ethernet (1)")
    frames, at = [], 24
    while at < len(data):
        if at + 16 > len(data):
            raise Unusable(f"{path}: frame {len(frames) + 1}: the file ends inside its record header")
        _, _, incl, orig = struct.unpack(order + "IIII", data[at:at + 16])
        if at + 16 + incl > len(data):
            raise Unusable(f"{path}: frame {len(frames) + 1}: the record says {incl} bytes, "
                           f"the file ends after {len(data) - at - 16}")
        if incl != orig:
            raise Unusable(f"{path}: frame {len(frames) + 1}: cut to {incl} of its {orig} bytes")
        frames.append(data[at + 16:at + 16 + incl])
        at += 16 + incl
    return frames


def ipv4_checksum(header):
    s = sum(struct.unpack("!10H", header))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def icrc_by_definition(frame):
    """The RoCEv2 ICRC of an IPv4 frame, from the definition, as its 4 bytes
    on the wire (least significant first)."""
    ip = bytearray(frame[ETH:ETH + IP])
    ip[1] = 0xFF                  # TOS (DSCP, ECN)
    ip[8] = 0xFF                  # TTL
    ip[10:12] = b"\xff\xff"       # header checksum
    udp = bytearray(frame[ETH + IP:ETH + IP + UDP])
    udp[6:8] = b"\xff\xff"        # UDP checksum
    bth = bytearray(frame[ETH + IP + UDP:HEADERS])
    bth[4] = 0xFF                 # FECN, BECN, reserved 6
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth) + frame[HEADERS:-ICRC])
    return struct.pack("<I", crc)


def check_scapy(frame, Ether, ScapyBTH):
    """(facts, problems) of one frame as scapy dissects it. facts: opcode,
    dest_qp, psn, padcnt, payload (bytes of payload, pad excluded), icrc_ok;
    None where the frame is not far enough a RoCEv2 frame to say."""
    problems = []
    facts = {"opcode": None, "dest_qp": None, "psn": None, "padcnt": None, "payload": None, "icrc_ok": False}
    n = len(frame)
    if n < HEADERS + ICRC:
        return facts, [f"{n} bytes, shorter than Ethernet + IPv4 + UDP + BTH + ICRC ({HEADERS + ICRC})"]
    pkt = Ether(frame)
    if pkt.type != 0x0800:
        return facts, [f"EtherType 0x{pkt.type:04x}, not IPv4 (0x0800)"]
    ip = pkt.payload
    if ip.version != 4 or ip.ihl != 5:
        return facts, [f"IP version {ip.version}, header length {ip.ihl * 4}: want IPv4 with no options (20 bytes)"]
    if ip.len != n - ETH:
        problems.append(f"IPv4 total length {ip.len}, the frame has {n - ETH} bytes after Ethernet")
    want_ck = ipv4_checksum(frame[ETH:ETH + 10] + b"\0\0" + frame[ETH + 12:ETH + IP])
    if ip.chksum != want_ck:
        problems.append(f"IPv4 header checksum 0x{ip.chksum:04x}, should be 0x{want_ck:04x}")
    if int(ip.flags) != 0x2 or ip.frag != 0:
        problems.append(f"IPv4 flags {ip.flags} fragment offset {ip.frag}: want DF alone, offset 0")
    if ip.ttl != 64:
        problems.append(f"IPv4 TTL {ip.ttl}, want 64")
    if ip.proto != 17:
        return facts, problems + [f"IP protocol {ip.proto}, not UDP (17)"]
    udp = ip.payload
    if udp.dport != ROCEV2_PORT:
        return facts, problems + [f"UDP destination port {udp.dport}, not RoCEv2's {ROCEV2_PORT}"]
    if udp.len != n - ETH - IP:
        problems.append(f"UDP length {udp.len}, the frame has {n - ETH - IP} bytes after IPv4")
    if udp.chksum != 0:
        problems.append(f"UDP checksum 0x{udp.chksum:04x}, want 0 (none, as RoCEv2 sends it)")
    bth = pkt.getlayer(ScapyBTH)
    if bth is None:
        return facts, problems + ["scapy found no BTH after UDP port 4791"]
    facts.update(opcode=bth.opcode, dest_qp=bth.dqpn, psn=bth.psn, padcnt=bth.padcount)
    if bth.version != 0:
        problems.append(f"BTH transport header version {bth.version}, want 0")

    # The ICRC first: it says whether anything else in the frame can be
    # believed. scapy's compute_icrc works on the packet it dissected.
    in_frame = frame[-ICRC:]
    by_scapy = bth.compute_icrc(None)
    by_definition = icrc_by_definition(frame)
    facts["icrc_ok"] = in_frame == by_scapy == by_definition
    if not facts["icrc_ok"]:
        why = f"ICRC in the frame {in_frame.hex()}, scapy's BTH.compute_icrc gives {by_scapy.hex()}"
        if by_scapy != by_definition:
            why += f", the definition gives {by_definition.hex()} (scapy and the definition disagree)"
        problems.append(why)

    if bth.opcode not in OPCODES:
        return facts, problems + [f"opcode 0x{bth.opcode:02x} is no RC opcode"]
    name, ext, has_payload = OPCODES[bth.opcode]
    rest = n - HEADERS - ext - ICRC  # payload + pad
    if rest < 0:
        return facts, problems + [f"{name} needs {ext} bytes of extended headers, the frame has {rest + ext}"]
    if not has_payload and rest != 0:
        problems.append(f"{name} carries no payload, but {rest} bytes follow its headers")
    elif rest % 4 != 0:
        problems.append(f"payload + pad is {rest} bytes, not a multiple of 4")
    elif bth.padcount > rest:
        problems.append(f"BTH pad count {bth.padcount} with only {rest} bytes of payload + pad")
    else:
        facts["payload"] = rest - bth.padcount
        # A whole WRITE in one packet says its length in the RETH: the one
        # place a wrong pad count shows (any pad count fits a multiple of 4).
        if name.startswith("RDMA_WRITE_ONLY"):
            dma_len, = struct.unpack("!I", frame[HEADERS + 12:HEADERS + 16])
            if dma_len != facts["payload"]:
                problems.append(f"RETH DMA length {dma_len}, the payload is {facts['payload']} bytes "
                                f"(pad count {bth.padcount})")
    return facts, problems


def tshark_command(path, tshark):
    cmd = [tshark, "-n", "-r", path,
           # tshark 4.0 dissects UDP port 4791 as InfiniBand (RRoCE) by
           # default through the preference infiniband.rroce.port; it is set
           # here all the same, since a personal preferences file can move
           # it, and then nothing would be InfiniBand.
           "-o", f"infiniband.rroce.port:{ROCEV2_PORT}",
           # Off by default: with them on, a wrong IPv4 header checksum is an
           # expert error, found independently of scapy.
           "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
           "-T", "json"]
    for h in TSHARK_PAYLOAD_HEURISTICS:
        cmd += ["--disable-heuristic", h]
    for f in TSHARK_FIELDS:
        cmd += ["-e", f]
    return cmd


def run_tshark(path, tshark):
    """tshark's fields of each frame, as a list of dicts field -> [values]."""
    exe = shutil.which(tshark)
    if exe is None:
        raise Unusable(f"tshark not found ({tshark}): tools/setup.sh installs it (tools/debian-packages.txt)")
    # An empty configuration directory: no personal preferences, disabled
    # protocols, decode-as or heuristics of whoever runs this can change
    # what tshark makes of the capture.
    with tempfile.TemporaryDirectory(prefix="qpnic-tshark-") as conf:
        env = dict(os.environ, WIRESHARK_CONFIG_DIR=conf)
        run = subprocess.run(tshark_command(path, exe), env=env, capture_output=True, text=True)
    if run.returncode != 0:
        err = "\n".join(line for line in run.stderr.splitlines() if "Running as user" not in line)
        raise Unusable(f"tshark failed (exit {run.returncode}) on {path}: {err.strip()}")
    try:
        return [p["_source"]["layers"] for p in json.loads(run.stdout or "[]")]
    except (ValueError, KeyError, TypeError) as e:
        raise Unusable(f"tshark's JSON output could not be read: {e}")


def one(layers, field):
    values = layers.get(field)
    return values[0] if values else None


def check_tshark(layers, frame, facts):
    problems = []
    protocols = one(layers, "frame.protocols") or ""
    if protocols not in TSHARK_PROTOCOLS:
        problems.append(f"dissected as {protocols}, not {TSHARK_PROTOCOLS[0]}[:data]")
    if "_ws.malformed" in layers:
        problems.append("malformed packet")
    for sev, msg in zip(layers.get("_ws.expert.severity", []), layers.get("_ws.expert.message", [])):
        if int(sev) >= PI_WARN:
            problems.append(f"expert {'error' if int(sev) > PI_WARN else 'warning'}: {msg}")
    if "infiniband" not in protocols.split(":") or "_ws.malformed" in layers:
        return problems  # nothing tshark read further is worth comparing
    # The same frame as scapy read it: the same fields at the same places.
    for field, key in (("infiniband.bth.opcode", "opcode"), ("infiniband.bth.destqp", "dest_qp"),
                       ("infiniband.bth.psn", "psn"), ("infiniband.bth.padcnt", "padcnt")):
        got = one(layers, field)
        if facts[key] is not None and (got is None or int(got, 0) != facts[key]):
            problems.append(f"{field} is {got}, scapy read {facts[key]}")
    crc = one(layers, "infiniband.invariant.crc")
    if crc is None or int(crc, 0) != int.from_bytes(frame[-ICRC:], "big"):
        problems.append(f"infiniband.invariant.crc is {crc}, the frame ends in {frame[-ICRC:].hex()}")
    # tshark's payload is what follows the extended headers up to the ICRC:
    # it counts the pad bytes too (tshark 4.0 does not strip them).
    if facts["payload"] is not None:
        want = facts["payload"] + facts["padcnt"]
        got = int(one(layers, "data.len") or 0)
        if got != want:
            problems.append(f"payload of {got} bytes (data.len), scapy has {facts['payload']} + pad {facts['padcnt']}")
    return problems


def opcode_number(text):
    text = text.strip()
    name = text.upper()
    if name.startswith("RC_"):
        name = name[3:]
    if name in OPCODE_BY_NAME:
        return OPCODE_BY_NAME[name]
    try:
        return int(text, 0)
    except ValueError:
        raise Unusable(f"expected opcode {text!r}: neither a number nor one of {', '.join(OPCODE_BY_NAME)}")


def parse_expect(text):
    """"OPC:DQP:PSN,..." -> [(opcode, dest_qp, psn)]; OPC a number or a name."""
    out = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        parts = item.split(":")
        if len(parts) != 3:
            raise Unusable(f"--expect item {item!r} is not OPC:DQP:PSN")
        try:
            out.append((opcode_number(parts[0]), int(parts[1], 0), int(parts[2], 0)))
        except ValueError:
            raise Unusable(f"--expect item {item!r}: DQP and PSN must be numbers")
    return out


def parse_expect_json(path):
    """A JSON list, one element per frame: {"opcode": ..., "dest_qp": ...,
    "psn": ...} or [opcode, dest_qp, psn]; an opcode is a number or a name."""
    try:
        with open(path) as f:
            items = json.load(f)
    except (OSError, ValueError) as e:
        raise Unusable(f"--expect-json {path}: {e}")
    if not isinstance(items, list):
        raise Unusable(f"--expect-json {path}: not a list")
    out = []
    for i, item in enumerate(items, 1):
        try:
            if isinstance(item, dict):
                item = (item["opcode"], item["dest_qp"], item["psn"])
            opc, dqp, psn = item
            opc = opcode_number(opc) if isinstance(opc, str) else int(opc)
            out.append((opc, int(dqp, 0) if isinstance(dqp, str) else int(dqp),
                        int(psn, 0) if isinstance(psn, str) else int(psn)))
        except (KeyError, TypeError, ValueError) as e:
            raise Unusable(f"--expect-json {path}: element {i} is not an opcode, dest_qp and psn ({e})")
    return out


def opcode_name(code):
    return OPCODES[code][0] if code in OPCODES else f"0x{code:02x}"


def check_expected(facts, want):
    opc, dqp, psn = want
    got = (facts["opcode"], facts["dest_qp"], facts["psn"])
    if got == want:
        return []
    def say(o, q, p):
        return (f"{opcode_name(o) if o is not None else '?'} dest QP "
                f"{f'0x{q:06x}' if q is not None else '?'} PSN {p if p is not None else '?'}")
    return [f"{say(*got)}, expected {say(opc, dqp, psn)}"]


def summary_line(i, facts):
    opc = facts["opcode"]
    name = opcode_name(opc) if opc is not None else "-"
    dqp = f"0x{facts['dest_qp']:06x}" if facts["dest_qp"] is not None else "-"
    psn = facts["psn"] if facts["psn"] is not None else "-"
    payload = facts["payload"] if facts["payload"] is not None else "-"
    icrc = "ok" if facts["icrc_ok"] else "BAD"
    return f"{i:5d}  {name:<32} dqp {dqp:<8}  psn {psn!s:<8}  payload {payload!s:<5}  icrc {icrc}"


def check(path, expected=None, summary=False, tshark="tshark", out=sys.stdout):
    """Check the capture; returns the exit code. Problems go to out."""
    Ether, ScapyBTH = import_scapy()
    frames = read_pcap(path)
    dissected = run_tshark(path, tshark)
    if len(dissected) != len(frames):
        raise Unusable(f"{path}: tshark read {len(dissected)} frames, the file has {len(frames)}")
    problems = []
    for i, (frame, layers) in enumerate(zip(frames, dissected), 1):
        facts, bad = check_scapy(frame, Ether, ScapyBTH)
        problems += [(i, "scapy", b) for b in bad]
        problems += [(i, "tshark", b) for b in check_tshark(layers, frame, facts)]
        if expected is not None and i <= len(expected):
            problems += [(i, "expect", b) for b in check_expected(facts, expected[i - 1])]
        if summary:
            print(summary_line(i, facts), file=out)
    for i, how, what in problems:
        print(f"{path}: frame {i}: {how}: {what}", file=out)
    whole = []
    if expected is not None and len(expected) != len(frames):
        whole.append(f"{len(frames)} frames, expected {len(expected)}")
    if not frames and expected is None:
        whole.append("the capture holds no frames")
    for what in whole:
        print(f"{path}: {what}", file=out)
    if problems or whole:
        bad = len({i for i, _, _ in problems})
        print(f"{PROG}: {len(frames)} frames, {bad} bad", file=out)
        return 1
    also = " and match the expected sequence" if expected is not None else ""
    print(f"{PROG}: {len(frames)} frames, all dissect as RoCEv2 and every ICRC matches{also}", file=out)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("pcap")
    ap.add_argument("--summary", action="store_true",
                    help="one line per frame: number, opcode, dest QP, PSN, payload bytes, ICRC")
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--expect", metavar="OPC:DQP:PSN,...",
                       help="the frames' expected opcodes (number or name), dest QPs and PSNs, in order")
    group.add_argument("--expect-json", metavar="FILE",
                       help='the same as a JSON list of {"opcode", "dest_qp", "psn"} (or 3-element lists)')
    ap.add_argument("--tshark", default="tshark", help="the tshark to run (default: tshark on PATH)")
    args = ap.parse_args(argv)
    try:
        expected = None
        if args.expect is not None:
            expected = parse_expect(args.expect)
        elif args.expect_json is not None:
            expected = parse_expect_json(args.expect_json)
        return check(args.pcap, expected, args.summary, args.tshark)
    except Unusable as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
