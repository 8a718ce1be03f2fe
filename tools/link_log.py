#!/usr/bin/env python3
"""Decode a board link's bytes into frames: the log of `qpnic-sim-<board>
--line-log FILE` (docs/link.md, "Seeing the frames").

    tools/link_log.py FILE [--from CYCLE] [--to CYCLE]

Prints one line per frame, in the order the frames ended on the line:
the cycles its first and last byte crossed, the direction (H: host to
board, N: board to host), the type and the header's seq, ack and tag, then
what the type carries (a register's address and value, a DMA address and
length, a notification word, a nonce). A frame whose CRC does not check (a
byte the simulator's --fault-ppm impaired on its way, which the log shows as
sent) is marked BAD.

For: students reading one request on the wire, and debugging the link.
Every number comes from host/src/gen/qpnic_hw.h (spec/layout.toml): the
flag and escape bytes, the type codes and the header fields.
"""
import argparse
import re
import struct
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def layout():
    vals = {}
    text = (ROOT / "host" / "src" / "gen" / "qpnic_hw.h").read_text()
    for name, val in re.findall(r"#define (QPNIC_\w+) (0x[0-9A-Fa-f]+|\d+)u", text):
        vals[name] = int(val, 0)
    return vals


L = layout()
FLAG, ESC, XOR = L["QPNIC_LINK_FLAG"], L["QPNIC_LINK_ESC"], L["QPNIC_LINK_ESC_XOR"]
TYPES = {v: k[len("QPNIC_LINK_TYPE_"):] for k, v in L.items() if k.startswith("QPNIC_LINK_TYPE_")}


def field(word, name):
    return (word >> L[f"QPNIC_LINK_HDR_{name}_SHIFT"]) & L[f"QPNIC_LINK_HDR_{name}_MASK"]


def describe(body):
    """What a body (CRC stripped) carries, in words."""
    typ = field(struct.unpack("<I", body[:4])[0], "TYPE")
    name = TYPES.get(typ, f"type {typ}")
    words = [struct.unpack("<I", body[i:i + 4])[0] for i in range(4, min(len(body), 16) - 3, 4)]
    if name in ("MMIO_WR", "MMIO_RD_REPLY") and len(words) >= 2:
        return f"register 0x{words[0]:04x} = 0x{words[1]:08x}"
    if name == "MMIO_RD" and words:
        return f"register 0x{words[0]:04x}"
    if name == "DMA_RD_REQ" and len(words) >= 3:
        return f"read {words[2] & 0xFFFF} bytes at 0x{words[1] << 32 | words[0]:x}"
    if name == "DMA_WR" and len(words) >= 2:
        return f"write {len(body) - 12} bytes at 0x{words[1] << 32 | words[0]:x}"
    if name == "DMA_RD_DATA":
        return f"{len(body) - 4} bytes of read data"
    if name == "NTF" and words:
        return f"notification 0x{words[0]:08x}"
    if name in ("RESET", "RESET_DONE") and words:
        return f"nonce 0x{words[0]:08x}" + (f", limits 0x{words[1]:08x}" if len(words) > 1 else "")
    return ""


def frames(path):
    """(first cycle, last cycle, direction, body or None when BAD) per frame."""
    cur = {"H": None, "N": None}
    esc = {"H": False, "N": False}
    start = {"H": 0, "N": 0}
    for line in open(path):
        parts = line.split()
        if len(parts) != 3:
            continue   # the last line of a log still being written
        cyc, d, byte = parts
        cyc, b = int(cyc), int(byte, 16)
        if b == FLAG:
            body = cur[d]
            if body:
                ok = (len(body) >= 8 and not esc[d] and
                      zlib.crc32(bytes(body[:-4])) == struct.unpack("<I", bytes(body[-4:]))[0])
                yield start[d], cyc, d, bytes(body[:-4]) if ok else None
            cur[d], esc[d], start[d] = bytearray(), False, cyc
        elif cur[d] is None:
            continue
        elif b == ESC:
            esc[d] = True
        else:
            cur[d].append(b ^ XOR if esc[d] else b)
            esc[d] = False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log")
    ap.add_argument("--from", dest="lo", type=int, default=0, help="first cycle shown")
    ap.add_argument("--to", dest="hi", type=int, default=None, help="last cycle shown")
    a = ap.parse_args()
    for first, last, d, body in frames(a.log):
        if last < a.lo or (a.hi is not None and first > a.hi):
            continue
        if body is None:
            print(f"{first:>10} {last:>10} {d} BAD (CRC or framing)")
            continue
        w = struct.unpack("<I", body[:4])[0]
        name = TYPES.get(field(w, "TYPE"), "?")
        print(f"{first:>10} {last:>10} {d} {name:<13} seq {field(w, 'SEQ'):3} ack {field(w, 'ACK'):3} "
              f"tag {field(w, 'TAG'):3}  {describe(body)}")


if __name__ == "__main__":
    sys.exit(main())
