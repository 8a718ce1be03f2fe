#!/usr/bin/env python3
"""tests/fuzz/api_seeds.py DIR: write the API fuzzer's seed programs into DIR
(make fuzz-api-corpus: into tests/fuzz/corpus/api, the committed corpus).

For: starting tests/fuzz/fuzz_api.c from programs that already build a
working world (a PD, CQs, a connected pair, registered memory) and then post,
complete, arm, fast-register, bind and tear down, so that libFuzzer's first
mutations land on deep calls instead of spending their time learning to
create a PD. These programs are the committed seed corpus; the fuzzer's own
findings grow the working corpus under build/fuzz/api.
Not for: checking anything (the fuzzer checks).

The encoding follows fuzz_api.c: one opcode byte (its index in OPS, plus
0x80 for the second adapter), then the argument bytes that operation reads
in order. Keep OPS below in the order of fuzz_api.c's OPS[].
"""
import os
import sys

OPS = ["create_pd", "create_cq", "create_qp", "connect", "destroy", "create_mr_mw",
       "register_mr", "post", "fast_register", "bind", "prepare", "post_prepared",
       "results", "arm_wait", "nic", "query", "memory", "kill", "close"]

# argument bytes, named after fuzz_api.c's readers
AD = 0x03            # pick_ad: this adapter, live


def live(slot):      # pick(): a live handle of this adapter in that slot
    return 0x20 | slot


def other(slot):     # pick(): the other adapter's handle in that slot
    return 0x08 | slot


def dead(slot):      # pick(): a NULL handle
    return 0x00 | slot


def addr(buf, off):  # pick_addr(): inside one of this adapter's buffers
    return [0x04 | (buf << 3), off & 0xFF, off >> 8]


LEN8 = 0x28          # length(): 8
LEN65 = 0x41         # length(): 65
LEN16K = 0x63        # length(): 16384
LEN0 = 0x00


def tok_local(slot):  # pick_token(): this adapter's MR in slot, local token
    return 0x41 | (slot << 2)


def tok_remote(slot):
    return 0x51 | (slot << 2)


def flat(args):
    for a in args:
        if isinstance(a, list):
            yield from flat(a)
        else:
            yield a


def op(name, *args, second=False):
    return [OPS.index(name) | (0x80 if second else 0)] + list(flat(args))


def world():
    """PD, two CQs, two QPs connected to each other, a registered region."""
    p = []
    p += op("create_pd", AD)
    p += op("create_cq", AD, LEN8, 1)
    p += op("create_cq", AD, LEN8, 0)
    attr = [LEN8, LEN8, 2, 0x3F, 0x00]        # sq, rq, max_sge, max_inline, attr not NULL
    p += op("create_qp", live(0), live(0), live(1), attr)
    p += op("create_qp", live(0), live(1), live(0), attr)
    p += op("connect", live(0), 1, live(1), 0)
    p += op("connect", live(1), 1, live(0), 0)
    p += op("create_mr_mw", live(0), 0)                       # MR 0
    p += op("register_mr", live(0), addr(1, 0), LEN16K, 0x00, 0x07)
    return p


def sge(buf, off, length, token):
    return [addr(buf, off), length, token]


# op_post's "which": 0 send, 1 send_and_invalidate, 2 write, 3 read,
# 4 invalidate, 5 receive
SEND, SEND_INV, WRITE, READ, INVAL, RECV = range(6)
DEFER, FENCE = 0x80, 0x02     # pick_flags() bits


def post(q, which, sges, raddr=None, rtok=0, flags=0):
    """op_post: QP, which, SGE list, remote address and token (each after a
    byte choosing this adapter), flags."""
    return op("post", live(q), which, len(sges), sges, 0, raddr or addr(1, 0), 0, rtok, flags)


def programs():
    base = world()
    yield "world", base
    # a receive, a send into it, the NIC's completions, results, arms
    p = list(base)
    p += post(1, RECV, [sge(1, 0, LEN65, tok_local(0))])
    p += post(0, SEND, [sge(1, 256, LEN65, tok_local(0))])
    p += op("nic", 0x09, 0, 0x41, 0)          # QP 1's receive: SUCCESS, 65 bytes
    p += op("nic", 0x00, 0, 0x41, 0)          # QP 0's send
    p += op("arm_wait", live(0), 1)
    p += op("results", live(0), 8, 1, 0)
    p += op("results", live(1), 8, 0, 0)
    p += op("nic", 0x80, 0x01, 0x00, 0x00, 0x00)  # a notification word
    yield "send_recv", p
    # WRITE and READ with deferral, one failing completion
    p = list(base)
    for k in range(3):
        p += post(0, WRITE, [sge(1, 64 * k, LEN65, tok_local(0))], addr(1, 4096), tok_remote(0), DEFER)
    p += post(0, READ, [sge(1, 512, LEN65, tok_local(0))], addr(1, 8192), tok_remote(0), FENCE)
    p += op("nic", 0x00, 4, 0x10, 0)          # a failing status
    p += op("results", live(1), 8, 1, 0)
    yield "write_read", p
    # fast registration, a window bound over the region, an invalidation,
    # destroys
    p = list(base)
    p += op("create_mr_mw", live(0), 0)                        # MR 1
    p += op("create_mr_mw", live(0), 1)                        # MW 0
    p += op("fast_register", live(0), live(1), 2, 0x01, 0x05, 0x00, 0x10, 0x00, LEN8,
            0, 0, 0, 0, 0x18, 0x00)                            # remote read, local write
    p += op("bind", live(0), live(0), live(0), addr(1, 0), LEN8, 0x09)
    p += post(0, INVAL, [], rtok=tok_remote(0))
    p += op("destroy", 4, live(0))                             # the MW
    p += op("destroy", 3, live(1))                             # MR 1
    p += op("destroy", 2, live(0))                             # a QP
    yield "freg_bind", p
    # prepared posts, bad handles of every kind, the other adapter's objects
    p = list(base)
    p += op("prepare", live(0), 0, 1, sge(1, 0, LEN8, tok_local(0)), addr(1, 0), 0, 0)
    p += op("post_prepared", live(0))
    p += op("post_prepared", dead(0))
    p += op("create_pd", AD, second=True)
    p += op("create_cq", AD, LEN8, 0, second=True)
    p += op("create_qp", other(0), live(0), live(1), LEN8, LEN8, 1, 0, 0)
    p += op("destroy", 1, dead(0))
    p += op("destroy", 5, live(0))
    p += op("query", 2, live(0))
    p += op("memory", AD, 0x02, 0x00)                          # a ring pointer
    p += op("memory", AD, 0x04, 0x04, 0, 0)                    # free a buffer
    yield "handles", p
    # the device dies in the middle
    p = list(base)
    p += post(0, SEND, [sge(1, 0, LEN8, tok_local(0))], flags=DEFER)
    p += op("kill", 0xA5)
    p += post(0, SEND, [sge(1, 0, LEN8, tok_local(0))])
    p += op("arm_wait", live(0), 0x81)
    p += op("destroy", 2, live(1))
    yield "device_dies", p


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: api_seeds.py DIR")
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, prog in programs():
        with open(os.path.join(sys.argv[1], name), "wb") as f:
            f.write(bytes(b & 0xFF for b in prog))


if __name__ == "__main__":
    main()
