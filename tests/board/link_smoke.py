#!/usr/bin/env python3
"""Board-level co-simulation smoke test: the link alone, from a host written
here in a few lines of Python (not libqpnic), against qpnic-sim-<board>.

    tests/board/link_smoke.py SIM [--fw HEX]

Starts SIM with its serial line on a pseudo-terminal, opens the link with
RESET, and reads the ID and VERSION registers through it: this checks the
pty bridge, the UART's bit timing, the link's framing, CRC and sequencing,
and the core behind it, independently of the host library's own link code.
Checks: RESET_DONE repeats the nonce and carries LINK_VERSION; the ID
register reads ID_VALUE and VERSION reads VERSION_VALUE; the replies carry
the reads' tags and addresses. Prints PASS lines; exits 1 with a message on
any failure.
"""
import argparse
import os
import re
import select
import struct
import subprocess
import sys
import tempfile
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def layout():
    """The numbers this test needs, from the generated C header (one source)."""
    text = open(os.path.join(ROOT, "host/src/gen/qpnic_hw.h")).read()
    vals = {}
    for name, val in re.findall(r"#define (QPNIC_\w+) (0x[0-9A-Fa-f]+|\d+)u", text):
        vals[name] = int(val, 0)
    return vals


L = layout()
FLAG, ESC, XOR = L["QPNIC_LINK_FLAG"], L["QPNIC_LINK_ESC"], L["QPNIC_LINK_ESC_XOR"]


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

    def send(self, data):
        os.write(self.fd, data)

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
        nonce = 0x5EED0000 | (os.getpid() & 0xFFFF)
        caps = None
        for attempt in range(10):
            line.send(frame(hdr(L["QPNIC_LINK_TYPE_RESET"]) + struct.pack("<I", nonce)))
            for body in line.frames(3.0):
                typ = body[0]
                if typ == L["QPNIC_LINK_TYPE_RESET_DONE"] and struct.unpack("<I", body[4:8])[0] == nonce:
                    caps = struct.unpack("<I", body[8:12])[0]
                    break
            if caps is not None:
                break
        if caps is None:
            fail("no RESET_DONE after 10 RESETs")
        version = (caps >> L["QPNIC_LINK_RESET_VERSION_SHIFT"]) & L["QPNIC_LINK_RESET_VERSION_MASK"]
        if version != L["QPNIC_LINK_VERSION"]:
            fail(f"RESET_DONE version {version}, expected {L['QPNIC_LINK_VERSION']}")
        print("PASS link_smoke_reset")

        # two register reads, seq 0 and 1, tags 7 and 8; ack each reply
        want = {7: (L["QPNIC_REG_ID"], L["QPNIC_ID_VALUE"]), 8: (L["QPNIC_REG_VERSION"], L["QPNIC_VERSION_VALUE"])}
        got = {}
        expected_seq = 0
        for seq, tag in ((0, 7), (1, 8)):
            line.send(frame(hdr(L["QPNIC_LINK_TYPE_MMIO_RD"], seq, 0, tag) + struct.pack("<I", want[tag][0])))
        deadline = time.time() + 60
        while len(got) < 2 and time.time() < deadline:
            for body in line.frames(1.0):
                typ, seq, _, tag = body[0], body[1], body[2], body[3]
                if typ == L["QPNIC_LINK_TYPE_MMIO_RD_REPLY"] and seq == expected_seq:
                    expected_seq += 1
                    addr, data = struct.unpack("<II", body[4:12])
                    got[tag] = (addr & 0xFFFF, data)
                    line.send(frame(hdr(L["QPNIC_LINK_TYPE_ACK"], 0, expected_seq)))
                if len(got) == 2:
                    break
        for tag, (addr, value) in want.items():
            if got.get(tag) != (addr, value):
                fail(f"read tag {tag} of register 0x{addr:04x}: got {got.get(tag)}, expected (0x{addr:x}, 0x{value:08x})")
        print("PASS link_smoke_registers")
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
