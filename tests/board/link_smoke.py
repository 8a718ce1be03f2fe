#!/usr/bin/env python3
"""Board-level co-simulation smoke test: the link alone, from a host written
here in a few lines of Python (not libqpnic), against qpnic-sim-<board>.

    tests/board/link_smoke.py SIM [--fw IMAGE]

Starts SIM with its serial line on a pseudo-terminal, opens the link with
RESET, and reads the ID and VERSION registers through it: this checks the
pty bridge, the UART's bit timing, the link's framing, CRC and sequencing,
and the core behind it, independently of the host library's own link code.
Then it writes a QP register and opens again: a RESET with a new nonce
resets the core in the middle of a session. Checks, each open: RESET_DONE
repeats the nonce and carries LINK_VERSION; ID reads ID_VALUE, VERSION
reads VERSION_VALUE, the QP register reads 0 (the second time: the reset
cleared what the first session wrote); the replies carry the reads' tags
and addresses. Prints PASS lines; exits 1 with a message on
any failure.
"""
import argparse
import os
import select
import struct
import subprocess
import sys
import tempfile
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the layout's numbers, read from the generated C header by the frame decoder
sys.path.insert(0, os.path.join(ROOT, "tools"))
from link_log import L, FLAG, ESC, XOR  # noqa: E402


def fail(msg):
    print(f"FAIL link_smoke: {msg}", file=sys.stderr)
    sys.exit(1)


def frame(body):
    body += struct.pack("<I", zlib.crc32(body))
    out = bytearray([FLAG])
    for c in body:
        if c in (FLAG, ESC):
            out += bytes([ESC, c ^ XOR])
        else:
            out.append(c)
    out.append(FLAG)
    return bytes(out)


def hdr(typ, seq=0, ack=0, tag=0):
    return struct.pack("<I", typ | seq << 8 | ack << 16 | tag << 24)


class Line:
    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        self.buf = bytearray()
        self.esc = False
        self.cur = None
        self.expected = 0      # the NIC's next seq

    def send(self, data):
        try:
            os.write(self.fd, data)
        except OSError as e:
            fail(f"the line is gone ({e}): did the simulator stop?")

    def frames(self, timeout):
        """Sound frames (bodies without the CRC) until timeout."""
        end = time.time() + timeout
        while time.time() < end:
            r, _, _ = select.select([self.fd], [], [], 0.05)
            if not r:
                continue
            for c in os.read(self.fd, 4096):
                if c == FLAG:
                    if self.cur and len(self.cur) >= 8 and not self.esc and \
                            zlib.crc32(bytes(self.cur[:-4])) == struct.unpack("<I", self.cur[-4:])[0]:
                        yield bytes(self.cur[:-4])
                    self.cur = bytearray()
                    self.esc = False
                elif self.cur is None:
                    continue
                elif c == ESC:
                    self.esc = True
                else:
                    self.cur.append(c ^ XOR if self.esc else c)
                    self.esc = False


def reset(line, nonce):
    """RESET until RESET_DONE with nonce comes back; its caps word."""
    for attempt in range(10):
        line.send(frame(hdr(L["QPNIC_LINK_TYPE_RESET"]) + struct.pack("<I", nonce)))
        for body in line.frames(3.0):
            if body[0] == L["QPNIC_LINK_TYPE_RESET_DONE"] and struct.unpack("<I", body[4:8])[0] == nonce:
                line.expected = 0
                return struct.unpack("<I", body[8:12])[0]
    fail(f"no RESET_DONE for nonce 0x{nonce:08x} after 10 RESETs")


def reads(line, regs, first_seq=0):
    """Read each (addr, _) of regs, seq first_seq on, tags 1.. ; the answers
    as (addr, data) in order, acking each reply."""
    for k, (addr, _) in enumerate(regs):
        line.send(frame(hdr(L["QPNIC_LINK_TYPE_MMIO_RD"], first_seq + k, line.expected, 1 + k) +
                        struct.pack("<I", addr)))
    got = {}
    deadline = time.time() + 60
    while len(got) < len(regs) and time.time() < deadline:
        for body in line.frames(1.0):
            typ, seq, tag = body[0], body[1], body[3]
            if typ == L["QPNIC_LINK_TYPE_MMIO_RD_REPLY"] and seq == line.expected:
                line.expected += 1
                addr, data = struct.unpack("<II", body[4:12])
                got[tag] = (addr & 0xFFFF, data)
                line.send(frame(hdr(L["QPNIC_LINK_TYPE_ACK"], 0, line.expected)))
            if len(got) == len(regs):
                break
    return [got.get(1 + k) for k in range(len(regs))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sim", help="the board-level simulator (qpnic-sim-ulx3s)")
    ap.add_argument("--fw", help="firmware image")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="qpnic-board-")
    link = os.path.join(tmp, "tty")
    cmd = [a.sim, "--pty-link", link] + (["--fw", a.fw] if a.fw else [])
    sim = subprocess.Popen(cmd)
    try:
        for _ in range(200):
            if os.path.islink(link):
                break
            time.sleep(0.05)
        else:
            fail(f"{a.sim} made no {link}")
        line = Line(link)
        # first open: RESET, two reads; a register write (an old argument
        # left in the core's pipelines); second open: a RESET with a new
        # nonce resets the core mid-session, and the register reads 0 again
        qp_reg = L["QPNIC_QP_BASE"] + 3 * L["QPNIC_QP_STRIDE"] + L["QPNIC_QPREG_SQ_BASE_LO"]
        for opening in (1, 2):
            nonce = (0x5EED0000 | (os.getpid() & 0xFFFF)) + opening
            caps = reset(line, nonce)
            version = (caps >> L["QPNIC_LINK_RESET_VERSION_SHIFT"]) & L["QPNIC_LINK_RESET_VERSION_MASK"]
            if version != L["QPNIC_LINK_VERSION"]:
                fail(f"open {opening}: RESET_DONE version {version}, expected {L['QPNIC_LINK_VERSION']}")
            print(f"PASS link_smoke_reset_{opening}")
            want = [(L["QPNIC_REG_ID"], L["QPNIC_ID_VALUE"]), (L["QPNIC_REG_VERSION"], L["QPNIC_VERSION_VALUE"]),
                    (qp_reg, 0)]
            got = reads(line, want)
            for (addr, value), g in zip(want, got):
                if g != (addr, value):
                    fail(f"open {opening}: register 0x{addr:04x} read {g}, expected (0x{addr:x}, 0x{value:08x})")
            print(f"PASS link_smoke_registers_{opening}")
            if opening == 1:
                # seq 3 (after the three reads): a write the next open must undo
                line.send(frame(hdr(L["QPNIC_LINK_TYPE_MMIO_WR"], 3, line.expected) +
                                struct.pack("<II", qp_reg, 0x12345600)))
                if reads(line, [(qp_reg, 0x12345600)], first_seq=4) != [(qp_reg, 0x12345600)]:
                    fail("the register write did not reach the core")
    finally:
        sim.terminate()
        try:
            sim.wait(10)
        except subprocess.TimeoutExpired:
            sim.kill()
        if os.path.lexists(link):
            os.unlink(link)
        os.rmdir(tmp)


if __name__ == "__main__":
    main()
