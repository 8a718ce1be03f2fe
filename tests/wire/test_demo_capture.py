#!/usr/bin/env python3
"""tests/wire/test_demo_capture.py: the demo's traffic on the RoCEv2 wire,
read by tools nobody here wrote.

    test_demo_capture.py DEMO_BIN PCAP

Runs the demo (qpnic-demo: 16 deferred RDMA WRITEs and a SEND between two
QPs of one NIC) with its packet port on the wire (qpnic-sim --pcap), then
requires of the capture:
  - every frame passes tools/check_roce_pcap.py: tshark dissects it as
    InfiniBand over UDP 4791 with no malformed packet or expert warning,
    and its ICRC equals scapy's and the definition's;
  - the requests are the demo's chain, in order: 16 RDMA_WRITE_ONLY then a
    SEND_ONLY, all to one destination QP, with consecutive PSNs;
  - the acknowledgements are one ACKNOWLEDGE per request, to the other QP,
    carrying the requests' PSNs in the same order;
  - no destination QP is 0 or 1 (InfiniBand's management QPs).
"""
import io
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import check_roce_pcap  # noqa: E402
from py_cases import run_cases  # noqa: E402

DEMO, PCAP = sys.argv[1], sys.argv[2]
WRITE_ONLY, SEND_ONLY, ACK = 0x0A, 0x04, 0x11
CHAIN = 16


def frames_of_demo():
    """Run the demo onto the wire once; the capture's frames as facts."""
    if not hasattr(frames_of_demo, "facts"):
        if os.path.exists(PCAP):
            os.unlink(PCAP)
        env = dict(os.environ, QPNIC_SIM_ARGS=f"--pcap {PCAP}")
        run = subprocess.run([DEMO], env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, f"the demo failed on the wire:\n{run.stdout}\n{run.stderr}"
        Ether, BTH = check_roce_pcap.import_scapy()
        facts = []
        for i, frame in enumerate(check_roce_pcap.read_pcap(PCAP), 1):
            f, bad = check_roce_pcap.check_scapy(frame, Ether, BTH)
            assert not bad, f"frame {i}: {bad}"
            facts.append(f)
        frames_of_demo.facts = facts
    return frames_of_demo.facts


def test_every_frame_dissects_and_its_icrc_matches():
    frames_of_demo()
    out = io.StringIO()
    code = check_roce_pcap.check(PCAP, out=out)
    assert code == 0, f"check_roce_pcap failed:\n{out.getvalue()}"


def test_requests_are_the_chain_with_consecutive_psns():
    reqs = [f for f in frames_of_demo() if f["opcode"] != ACK]
    ops = [f["opcode"] for f in reqs]
    assert ops == [WRITE_ONLY] * CHAIN + [SEND_ONLY], f"request opcodes {ops}"
    qps = {f["dest_qp"] for f in reqs}
    assert len(qps) == 1, f"requests go to several QPs: {sorted(qps)}"
    psns = [f["psn"] for f in reqs]
    assert psns == [(psns[0] + i) % (1 << 24) for i in range(len(psns))], f"request PSNs {psns}"


def test_each_request_is_acknowledged_once_in_order():
    facts = frames_of_demo()
    reqs = [f for f in facts if f["opcode"] != ACK]
    acks = [f for f in facts if f["opcode"] == ACK]
    assert [a["psn"] for a in acks] == [r["psn"] for r in reqs], \
        f"ACK PSNs {[a['psn'] for a in acks]}, request PSNs {[r['psn'] for r in reqs]}"
    qps = {a["dest_qp"] for a in acks}
    assert len(qps) == 1 and qps != {reqs[0]["dest_qp"]}, \
        f"ACKs go to {sorted(qps)}, the requests to 0x{reqs[0]['dest_qp']:x}"
    # every ACK after its request
    for n, r in enumerate(reqs):
        assert facts.index(acks[n]) > facts.index(r), f"the ACK of PSN {r['psn']} came before it"


def test_no_packet_names_a_management_qp():
    low = [f["dest_qp"] for f in frames_of_demo() if f["dest_qp"] in (0, 1)]
    assert not low, f"{len(low)} frames to QP 0 or 1"


if __name__ == "__main__":
    sys.exit(run_cases(globals()))
