#!/usr/bin/env python3
"""Measure the demo's last SEND in its waveform: the table of docs/walkthrough.md.

    make wave                                          # writes build/demo.fst
    python3 tools/wave_table.py build/demo.fst         # the table's rows (Markdown)
    python3 tools/wave_table.py build/demo.fst --timeline   # every event found
    python3 tools/wave_table.py build/demo.fst --check docs/demo.gtkw
                                   # exit 1, naming each one, if a signal the
                                   # GTKWave save file shows is not in the FST

For: re-measuring the walkthrough's cycle table after an RTL or firmware
change, and checking that docs/demo.gtkw still loads whole.
Not for: checking behaviour (the tests do that). It knows the demo's shape
(16 DEFERred WRITEs, then one SEND, WQE index 16, into RQ index 0 of QP 1,
CQ 1 armed) and the instance and state names of the RTL; when those change,
the events below change with them.

It reads the FST through GTKWave's fst2vcd. The harness dumps twice a cycle:
cycle N is time 2N (clock low, that cycle's inputs applied), so a handshake
"at cycle N" means valid and ready are both high at time 2N. Register
offsets, the QP table's op codes (enum qp_op) and the fields of its context
word (struct qp_ctx) come from rtl/gen/qpnic_layout.vh, the CQ table's op
codes (enum cq_fw_op) too, and state codes from the RTL's
localparams, not from this file.
"""
import bisect
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
C = "TOP.qpnic_core."
D = C + "datapath."


def layout_macros():
    """`define NAME <width>'h/'d<value> from the generated Verilog header."""
    out = {}
    text = (ROOT / "rtl" / "gen" / "qpnic_layout.vh").read_text()
    for name, base, digits in re.findall(r"`define (QPNIC_\w+) \d+'([hd])([0-9A-Fa-f]+)\b", text):
        out[name] = int(digits, 16 if base == "h" else 10)
    return out


def states(module, prefix="S_"):
    """A module's named states, name -> code, from its localparams."""
    text = (ROOT / "rtl" / (module + ".v")).read_text()
    return {n: int(v) for n, v in re.findall(r"\b(%s\w+)\s*=\s*\d+'d(\d+)" % prefix, text)}


def ctx_fields():
    """qp_ctx field name -> (hi, lo), from the layout's `_FLAT` bit ranges."""
    text = (ROOT / "rtl" / "gen" / "qpnic_layout.vh").read_text()
    return {n: (int(h), int(l)) for n, h, l in
            re.findall(r"`define QPNIC_QP_CTX_(\w+)_FLAT (\d+):(\d+)", text)}


L = layout_macros()
QP_OP = {v: k[len("QPNIC_QP_OP_"):] for k, v in L.items()
         if k.startswith("QPNIC_QP_OP_") and k != "QPNIC_QP_OP_BITS"}
CTX = ctx_fields()
REQ = states("qpnic_requester")
REQ_B = states("qpnic_requester", "B_")
RESP = states("qpnic_responder")
FETCH = states("qpnic_wqe_fetch")
CQW = states("qpnic_cqe_writer")
# the CQ table's firmware op codes (layout enum cq_fw_op)
CQ_FW_OP = {k[len("QPNIC_CQ_FW_OP_"):]: v for k, v in L.items()
            if k.startswith("QPNIC_CQ_FW_OP_") and k != "QPNIC_CQ_FW_OP_BITS"}

def table_port(p, inst):
    """A QP table client's request port and answer, keys prefixed p."""
    return {p + "tqv": inst + ".tq_req_valid", p + "tqr": inst + ".tq_req_ready",
            p + "tqop": inst + ".tq_req_op", p + "tqq": inst + ".tq_req_qpn",
            p + "tqa": inst + ".tq_rsp_valid", p + "ctx": inst + ".tq_rsp_ctx"}


def check_port(p, inst):
    """A token table client's check request and answer, keys prefixed p."""
    return {p + "chk": inst + ".chk_valid", p + "chk_tok": inst + ".chk_token",
            p + "res": inst + ".res_valid", p + "res_ok": inst + ".res_ok",
            p + "res_dev": inst + ".res_dev"}


# The signals the events are built from: short name -> full name in the FST.
SIG = {
    "mmio_v": "TOP.mmio_valid", "mmio_r": "TOP.mmio_ready", "mmio_we": "TOP.mmio_we",
    "mmio_wdata": "TOP.mmio_wdata",
    "db_offer": C + "csr.db_offer", "qph_ready": C + "csr.qph_ready", "arm_v": C + "cq_table.arm_evt_valid",
    "arm_r": C + "cq_table.arm_evt_ready", "arm_d": C + "cq_table.arm_evt_data",
    "qp_n": C + "csr.qp_n", "qp_off": C + "csr.qp_off",
    "h_v": C + "cq_table.h_valid", "h_r": C + "cq_table.h_ready", "h_we": C + "cq_table.h_we",
    "h_idx": C + "cq_table.h_idx", "h_off": C + "cq_table.h_off",
    # the QP table: its doorbell queue, and what stage B works on
    "db_push": D + "u_qpt.u_db.in_valid", "db_in": D + "u_qpt.u_db.in_data",
    "qt_bop": D + "u_qpt.c_op",
    # the fetch engine: the queue's head, its FETCH and the answer, the read
    "f_state": D + "u_fetch.state",
    "f_dbv": D + "u_fetch.db_valid", "f_dbr": D + "u_fetch.db_ready", "f_dbq": D + "u_fetch.db_qpn",
    "f_tqv": D + "u_fetch.tq_req_valid", "f_tqr": D + "u_fetch.tq_req_ready", "f_cq": D + "u_fetch.cur_qpn",
    "f_tqa": D + "u_fetch.tq_rsp_valid", "f_tqn": D + "u_fetch.tq_rsp_n",
    "f_tqptr": D + "u_fetch.claim_ptr",
    "f_rv": D + "u_fetch.rd_req_valid", "f_rr": D + "u_fetch.rd_req_ready",
    "f_addr": D + "u_fetch.rd_req_addr", "f_len": D + "u_fetch.rd_req_len",
    "f_n": D + "u_fetch.req_n", "f_cur": D + "u_fetch.cur_index",
    "w_v": D + "u_fetch.wqe_valid", "w_r": D + "u_fetch.wqe_ready",
    "w_last": D + "u_fetch.wqe_last", "w_idx": D + "u_fetch.wqe_index",
    # the requester: its QP table requests, check port, entry, job, packet
    "r_state": D + "u_req.state", "r_bstate": D + "u_req.bstate",
    "r_index": D + "u_req.index", "r_hdr_i": D + "u_req.hdr_i",
    "r_job": D + "u_req.job_valid", "r_tqbusy": D + "u_req.tq_busy",
    "r_tqwait": D + "u_req.tq_wait",
    "r_ov": D + "u_req.out_valid", "r_or": D + "u_req.out_ready",
    "r_od": D + "u_req.out_data", "r_ol": D + "u_req.out_last",
    "r_rv": D + "u_req.rd_req_valid", "r_rr": D + "u_req.rd_req_ready",
    "r_ra": D + "u_req.rd_req_addr", "r_rl": D + "u_req.rd_req_len",
    "ost_v": D + "u_req.ost_valid", "ost_r": D + "u_req.ost_ready",
    "g_sv": D + "u_req.u_gather.start_valid", "g_sr": D + "u_req.u_gather.start_ready",
    # the responder
    "s_state": D + "u_resp.state", "s_hdr_i": D + "u_resp.hdr_i",
    "s_iv": D + "u_resp.in_valid", "s_ir": D + "u_resp.in_ready", "s_id": D + "u_resp.in_data",
    "s_chk_rem": D + "u_resp.chk_remote",
    "s_rv": D + "u_resp.rd_req_valid", "s_rr": D + "u_resp.rd_req_ready",
    "s_ra": D + "u_resp.rd_req_addr",
    "s_wv": D + "u_resp.wr_req_valid", "s_wr": D + "u_resp.wr_req_ready",
    "s_wa": D + "u_resp.wr_req_addr", "s_wl": D + "u_resp.wr_req_len",
    "s_cv": D + "u_resp.cqe_valid", "s_cr": D + "u_resp.cqe_ready",
    "s_ov": D + "u_resp.out_valid", "s_or": D + "u_resp.out_ready",
    "s_od": D + "u_resp.out_data", "s_busy": D + "u_resp.r_busy", "s_ri": D + "u_resp.r_i",
    # the completer
    "c_state": D + "u_comp.state",
    "c_ostv": D + "u_comp.ost_valid", "c_ostr": D + "u_comp.ost_ready",
    "c_eidx": D + "u_comp.e_index", "c_cv": D + "u_comp.cqe_valid",
    "c_cr": D + "u_comp.cqe_ready",
    # the CQE writer and the CQ table
    "q_state": C + "cqe_writer.state", "q_cqn": C + "cqe_writer.cqe_cqn",
    "q_rv": C + "cqe_writer.dmaw_req_valid", "q_rr": C + "cqe_writer.dmaw_req_ready",
    "q_ra": C + "cqe_writer.dmaw_req_addr",
    "q_dv": C + "cqe_writer.dmaw_dat_valid", "q_dr": C + "cqe_writer.dmaw_dat_ready",
    "q_dd": C + "cqe_writer.dmaw_dat_data", "q_dl": C + "cqe_writer.dmaw_dat_last",
    "q_tv": C + "cqe_writer.t_valid", "q_tr": C + "cqe_writer.t_ready",
    "q_trv": C + "cqe_writer.t_rvalid", "q_armed": C + "cqe_writer.t_armed",
    "q_tpi": C + "cqe_writer.t_pi",
    "q_ev": C + "cqe_writer.evt_valid", "q_er": C + "cqe_writer.evt_ready",
    "q_ed": C + "cqe_writer.evt_data",
    # the firmware's side
    "evt_pop": C + "fw_if.evt_pop", "evt_out": C + "fw_if.evt_out_data",
    "bus_wdata": C + "fw_if.bus_wdata", "ft_v": C + "fw_if.t_valid",
    "ft_r": C + "fw_if.t_ready", "ft_op": C + "fw_if.t_op", "ft_idx": C + "fw_if.t_idx",
    "ntf_push": C + "fw_if.ntf_push", "ntf_in_r": C + "fw_if.ntf_in_ready",
    "ntf_v": "TOP.ntf_valid", "ntf_r": "TOP.ntf_ready", "ntf_d": "TOP.ntf_data",
    "lat_v": C + "cq_table.lat_valid", "lat": C + "cq_table.lat_cycles",
}
# the QP table's clients with answers, and the token table's
for _p, _inst in (("r_", D + "u_req"), ("s_", D + "u_resp"), ("c_", D + "u_comp")):
    SIG.update(table_port(_p, _inst))
SIG.update(check_port("r_", D + "u_req"))
SIG.update(check_port("s_", D + "u_resp"))


def vcd_header_and_changes(fst, wanted):
    """Stream fst2vcd: ({full name: width}, {full name: [(time, int value)]})."""
    proc = subprocess.Popen(["fst2vcd", str(fst)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    scopes, code_of, widths = [], {}, {}
    for line in proc.stdout:
        t = line.split()
        if not t:
            continue
        if t[0] == "$scope":
            scopes.append(t[2])
        elif t[0] == "$upscope":
            scopes.pop()
        elif t[0] == "$var":
            full = ".".join(scopes + [t[4]])
            widths[full] = int(t[2])
            code_of.setdefault(full, t[3])
        elif t[0] == "$enddefinitions":
            break
    # Signals that are one net share a code (the requester's tq_rsp_ctx is
    # the QP table's rsp_ctx): each code feeds every wanted name it has.
    want_codes = {}
    for n in wanted:
        if n in code_of:
            want_codes.setdefault(code_of[n], []).append(n)
    changes = {n: [] for n in wanted}
    time = 0
    for line in proc.stdout:
        line = line.strip()
        if not line:
            continue
        if line[0] == "#":
            time = int(line[1:])
            continue
        if line[0] in "01xz":
            val, code = line[0], line[1:]
        elif line[0] == "b":
            val, code = line[1:].split()
        else:
            continue
        names = want_codes.get(code)
        if names is not None:
            try:
                value = int(val, 2)
            except ValueError:  # x or z: count as 0
                value = 0
            for name in names:
                changes[name].append((time, value))
    proc.wait()
    return widths, changes


class Wave:
    """Values of SIG's signals at cycle c (time 2c)."""

    def __init__(self, fst):
        self.widths, ch = vcd_header_and_changes(fst, SIG.values())
        missing = [n for n in SIG.values() if n not in self.widths]
        if missing:
            sys.exit("wave_table: not in %s: %s" % (fst, ", ".join(missing)))
        self.t = {k: [a for a, _ in ch[n]] for k, n in SIG.items()}
        self.v = {k: [b for _, b in ch[n]] for k, n in SIG.items()}
        self.end = max((l[-1] for l in self.t.values() if l), default=0) // 2

    def __call__(self, key, c):
        i = bisect.bisect_right(self.t[key], 2 * c) - 1
        return self.v[key][i] if i >= 0 else 0


def field(word, name):
    """Field `name` of a qp_ctx word (layout struct qp_ctx)."""
    hi, lo = CTX[name]
    return (word >> lo) & ((1 << (hi - lo + 1)) - 1)


def events(w):
    """Every event of interest, as (cycle, text), in cycle order."""
    ev = []
    asked = {}   # QP table client -> the op it was granted last
    for c in range(1, w.end + 1):
        def v(k):
            return w(k, c)

        def prev(k):
            return w(k, c - 1)

        def add(text):
            ev.append((c, text))

        def table_ops(who, p):
            # a client's request granted by the QP table, and the answer
            if v(p + "tqv") and v(p + "tqr"):
                op = QP_OP.get(v(p + "tqop"), str(v(p + "tqop")))
                asked[who] = op
                add("QP table takes %s's %s: QP %d" % (who, op, v(p + "tqq")))
                if who == "requester" and op == "READ":
                    # asked as the WQE's first pair arrives: the fetch
                    # engine's head entry is that WQE
                    add("requester READs the context for WQE %d" % v("w_idx"))
            if v(p + "tqa"):
                ctx = v(p + "ctx")
                op = asked.get(who, "?")
                if op == "PSN":
                    add("QP table answers %s's PSN: psn %d, dest_qp 0x%x"
                        % (who, field(ctx, "PSN"), field(ctx, "REMOTE_QPN")))
                else:
                    add("QP table answers %s's %s: state %d, rq_ci %d, rq_pi %d, send_cq %d, "
                        "recv_cq %d, comp_err %d"
                        % (who, op, field(ctx, "STATE"), field(ctx, "RQ_CI"),
                           field(ctx, "RQ_PI"), field(ctx, "SEND_CQ"), field(ctx, "RECV_CQ"),
                           field(ctx, "COMP_ERR")))

        def check_ops(who, p, what):
            # a request on a token table check port, and its answer
            if v(p + "chk"):
                add("%s check request: token 0x%08x (%s)" % (who, v(p + "chk_tok"), what))
            if v(p + "res"):
                add("%s check answer: ok %d, dev 0x%x" % (who, v(p + "res_ok"), v(p + "res_dev")))

        if v("db_offer") and v("qph_ready"):   # the doorbell write taken by the QP table
            kind = "SQ_PI" if v("qp_off") == L["QPNIC_QPREG_SQ_PI"] else "RQ_PI"
            add("%s doorbell: QP %d, %d" % (kind, v("qp_n"), v("mmio_wdata")))
        if v("db_push"):
            # the push leaves stage C through a register: the op that pushed
            # was in C the cycle before
            why = "FETCH left more" if prev("qt_bop") == L["QPNIC_QP_OP_FETCH"] else "doorbell"
            add("doorbell queue: QP %d queued (%s)" % (v("db_in"), why))
        if v("h_v") and v("h_r") and v("h_we") and v("h_off") == L["QPNIC_CQREG_ARM"]:
            add("ARM taken by the CQ table: CQ %d" % v("h_idx"))
        if v("arm_v") and v("arm_r"):
            add("ARM event queued: 0x%08x" % v("arm_d"))
        if v("h_v") and v("h_r") and v("h_we") and v("h_off") == L["QPNIC_CQREG_CI"]:
            add("CI write: CQ %d, %d" % (v("h_idx"), v("mmio_wdata")))
        if v("f_dbv") and v("f_dbr"):
            add("fetch engine pops QP %d" % v("f_dbq"))
        if v("f_tqv") and v("f_tqr"):
            add("QP table takes the fetch engine's FETCH: QP %d" % v("f_cq"))
        if v("f_tqa") and v("f_state") == FETCH["S_CLAIM"]:
            add("QP table answers the FETCH: n %d from index %d" % (v("f_tqn"), v("f_tqptr")))
        if v("f_rv") and v("f_rr"):
            add("fetch read: 0x%x, %d bytes, %d WQEs from index %d"
                % (v("f_addr"), v("f_len"), v("f_n"), v("f_cur")))
        if v("w_v") and v("w_r") and v("w_last"):
            add("requester takes the last pair of WQE %d" % v("w_idx"))
        table_ops("requester", "r_")
        check_ops("requester", "r_", "WQE %d" % v("r_index"))
        if v("ost_v") and v("ost_r"):
            add("outstanding entry pushed: WQE %d%s"
                % (v("r_index"), ", gather started" if v("g_sv") and v("g_sr") else ""))
        if v("r_rv") and v("r_rr"):
            add("gather read: 0x%x, %d bytes" % (v("r_ra"), v("r_rl")))
        if (v("r_state") == REQ["S_JOB"] and not v("r_tqbusy") and not v("r_tqwait")
                and not v("r_job")):
            add("job handed to the back end: WQE %d" % v("r_index"))
        if (v("r_ov") and v("r_or") and v("r_bstate") == REQ_B["B_HDR"]
                and v("r_hdr_i") == 0):
            add("requester LRH out: payload %d" % v("r_od"))
        if v("r_ov") and v("r_or") and v("r_ol"):
            add("requester last beat out")
        if (v("s_iv") and v("s_ir") and v("s_state") == RESP["S_HDR"]
                and v("s_hdr_i") == 0):
            add("responder takes LRH 0x%08x" % v("s_id"))
        table_ops("responder", "s_")
        if v("s_rv") and v("s_rr"):
            add("responder read: 0x%x (state %d)" % (v("s_ra"), v("s_state")))
        if v("s_state") == RESP["S_RQ_CHECK"] and prev("s_state") != RESP["S_RQ_CHECK"]:
            add("responder S_RQ_CHECK starts")
        check_ops("responder", "s_", "RETH" if v("s_chk_rem") else "RQ SGE")
        if v("s_wv") and v("s_wr"):
            add("scatter write: 0x%x, %d bytes" % (v("s_wa"), v("s_wl")))
        if v("s_cv") and v("s_cr"):
            add("responder RQ CQE request done")
        if v("s_ov") and v("s_or") and v("s_busy") and v("s_ri") == 0:
            add("responder response out: 0x%08x" % v("s_od"))
        if v("c_ostv") and v("c_ostr"):
            # e_index holds the popped entry's index from the next cycle on
            add("completer pops the entry of WQE %d" % w("c_eidx", c + 1))
        table_ops("completer", "c_")
        if v("c_cv") and v("c_cr"):
            add("completer SQ CQE request done: WQE %d" % v("c_eidx"))
        if v("q_rv") and v("q_rr"):
            add("CQE write: CQ %d at 0x%x" % (v("q_cqn"), v("q_ra")))
        if v("q_dv") and v("q_dr") and v("q_dl"):
            add("CQE word 3: 0x%08x, CQ %d" % (v("q_dd"), v("q_cqn")))
        if v("q_tv") and v("q_tr") and v("q_state") == CQW["S_WR"]:
            add("WRITTEN taken: CQ %d" % v("q_cqn"))
        if v("q_trv") and v("q_state") == CQW["S_WR_ANS"]:
            add("WRITTEN answered: armed %d, index %d, CQ %d" % (v("q_armed"), v("q_tpi"), v("q_cqn")))
        if v("q_ev") and v("q_er"):
            add("CQE event pushed: 0x%08x" % v("q_ed"))
        if v("evt_pop"):
            add("EVT_POP pops 0x%08x" % v("evt_out"))
        if v("ntf_push") and v("ntf_in_r"):
            add("NOTIFY write: 0x%08x" % v("bus_wdata"))
        if v("ft_v") and v("ft_r") and v("ft_op") == CQ_FW_OP["ARMED_CLR"]:
            add("ARMED_CLR write: %d" % v("ft_idx"))
        if v("ntf_v") and v("ntf_r"):
            add("ntf handshake: 0x%08x" % v("ntf_d"))
        if v("lat_v"):
            add("latency lookup: %d" % v("lat"))
    return ev


def find(ev, pattern, after):
    for c, text in ev:
        if c >= after and re.search(pattern, text):
            return c
    return None


# The table: (step, event, signals, pattern, bold). Patterns find the first
# matching event at or after the SEND's doorbell (some after another row).
ROWS = [
    ("4", "SQ_PI doorbell write (the one doorbell of the chain, D8): the QP table takes it (`HOST_WRITE`)",
     "`csr.db_offer` && `qph_ready`, `dp.u_qpt.req_valid[0]` && `req_ready[0]`", r"SQ_PI doorbell: QP 0, 17", True),
    ("4", "QP 0 joins the doorbell queue", "`dp.u_qpt.u_db.in_valid`, `in_data` 0",
     r"doorbell queue: QP 0 queued \(doorbell\)", False),
    ("5", "the fetch engine pops QP 0 (`S_PICK`)",
     "`dp.u_fetch.db_valid` && `db_ready`", r"fetch engine pops QP 0", False),
    ("5", "the table takes its `FETCH` (`S_ASK`)",
     "`dp.u_fetch.tq_req_valid` && `tq_req_ready`", r"takes the fetch engine's FETCH: QP 0", False),
    ("5", "`FETCH` answered: 8 WQEs from index 0", "`dp.u_fetch.tq_rsp_valid`, `tq_rsp_n` 8",
     r"answers the FETCH: n 8 from index 0$", False),
    ("5", "first fetch read: WQEs 0-7, 512 bytes",
     "`dp.u_fetch.rd_req_valid` && `rd_req_ready`", r"fetch read: .* from index 0$", False),
    ("5", "the third `FETCH` answered: 1 WQE from index 16", "`dp.u_fetch.tq_rsp_valid`, `tq_rsp_n` 1",
     r"answers the FETCH: n 1 from index 16$", False),
    ("5", "**fetch read of the SEND's WQE**: the third read, 1 WQE, 64 bytes at 0x1000001000",
     "same, `cur_index` 16", r"fetch read: .* from index 16$", True),
    ("6", "`READ` of QP 0's context, as WQE 16's first pair arrives (`S_LOAD`)",
     "`dp.u_req.tq_req_valid` && `tq_req_ready`, `tq_req_op` 0",
     r"requester READs the context for WQE 16$", False),
    ("6", "the requester takes the last pair (words 14, 15) of WQE 16",
     "`dp.u_fetch.wqe_last` && `wqe_ready`", r"last pair of WQE 16$", False),
    ("6", "the SGE's token check goes to check port 0", "`dp.u_req.chk_valid`",
     r"requester check request: token 0x[0-9a-f]+ \(WQE 16\)", False),
    ("6", "its answer: ok, device address 0x1000004400", "`dp.u_req.res_valid`, `res_ok`, `res_dev`",
     r"requester check answer: ok 1, dev 0x1000004400$", False),
    ("6", "outstanding entry pushed, gather started (front end, `S_OST`)",
     "`dp.u_req.ost_valid` && `ost_ready`, `dp.u_req.u_gather.start_valid`",
     r"outstanding entry pushed: WQE 16, gather", False),
    ("6", "payload gather DMA read (64 bytes at 0x1000004400)",
     "`dp.u_req.rd_req_valid` && `rd_req_ready`", r"gather read: 0x1000004400, 64 bytes", False),
    ("6", "`PSN` answered (`S_JOB`): PSN 16, dest_qp 0x101 (QP 1, generation 1)",
     "`dp.u_req.tq_rsp_valid`, `nxt_psn`",
     r"answers requester's PSN: psn 16, dest_qp 0x101$", False),
    ("6", "job handed to the back end (front end `S_JOB`)",
     "`dp.u_req.state` 5, `tq_busy` 0, `tq_wait` 0, `job_valid` 0",
     r"job handed to the back end: WQE 16", False),
    ("6", "**the packet leaves the requester** (LRH word)",
     "`dp.u_req.out_valid` && `out_ready`, `bstate` 1, `hdr_i` 0",
     r"requester LRH out: payload 64$", True),
    ("6", "the packet's last beat leaves the requester", "`dp.u_req.out_last`",
     r"requester last beat out", False),
    ("8", "the responder takes the LRH", "`dp.u_resp.in_valid` && `in_ready`",
     r"responder takes LRH 0x00000040", False),
    ("8", "`RSP_SEQ` of QP 1's context, as the PSN word arrives",
     "`dp.u_resp.tq_req_valid` && `tq_req_ready`", r"QP table takes responder's RSP_SEQ: QP 1$", False),
    ("8", "its answer: QP 1 is RTS, RQ_CI 0, RQ_PI 1", "`dp.u_resp.tq_rsp_valid`",
     r"answers responder's RSP_SEQ: state 1, rq_ci 0, rq_pi 1,", False),
    ("8", "RQ WQE DMA read (64 bytes at 0x1000003000)",
     "`dp.u_resp.rd_req_valid` && `rd_req_ready`", r"responder read: 0x1000003000", False),
    ("8", "the receive's SGE goes to check port 1 (`S_RQ_CHECK`)", "`dp.u_resp.chk_valid`, `chk_remote` 0",
     r"responder check request: .*\(RQ SGE\)", False),
    ("8", "its answer: ok, device address 0x1000006400", "`dp.u_resp.res_valid`, `res_ok`, `res_dev`",
     r"responder check answer: ok 1, dev 0x1000006400", False),
    ("8", "scatter DMA write (64 bytes at 0x1000006400)",
     "`dp.u_resp.wr_req_valid` && `wr_req_ready`", r"scatter write: 0x1000006400, 64", False),
    ("9", "**RQ CQE write**: DMA write request, CQ 1 slot 0 at 0x1000000800",
     "`cqe_writer.dmaw_req_valid` && `dmaw_req_ready`", r"CQE write: CQ 1 at 0x1000000800", True),
    ("9", "word 3 with the phase bit, `last`", "`cqe_writer.dmaw_dat_last` (data 80010000)",
     r"CQE word 3: 0x80010000, CQ 1", False),
    ("9", "`WRITTEN`: the CQ table moves CQ 1's PI 0 → 1, stamps the CQE",
     "`cqe_writer.t_valid` && `t_ready` (`S_WR`)", r"WRITTEN taken: CQ 1", False),
    ("9", "its answer: CQ 1 was armed, the CQE went to index 0",
     "`cqe_writer.t_rvalid`, `t_armed` 1, `t_pi` 0", r"WRITTEN answered: armed 1, index 0, CQ 1", False),
    # struct event of CQ 1, type CQE, index 0, in the layout since aa3c480
    ("9", "**CQE event** into the firmware's event FIFO (00000801)",
     "`cqe_writer.evt_valid` && `evt_ready`", r"CQE event pushed: 0x00000801", True),
    ("8", "`RQ_CI_INC`: QP 1's RQ_CI 0 → 1", "`dp.u_resp.tq_req_valid` && `tq_req_ready`, `tq_req_op` 7",
     r"QP table takes responder's RQ_CI_INC: QP 1$", False),
    ("8", "the ACK leaves the responder (its emitter, word 0)",
     "`dp.u_resp.out_valid` && `out_ready`, `r_busy`, `r_i` 0",
     r"responder response out", False),
    ("11", "the firmware pops the event", "`fw_if.evt_pop`", r"EVT_POP pops 0x00000801", False),
    ("10", "the completer pops the SEND's outstanding entry, then `READ`s QP 0",
     "`dp.u_comp.ost_valid` && `ost_ready`", r"completer pops the entry of WQE 16$", False),
    ("10", "the SEND's own SQ CQE: CQ 0 slot 16 at 0x1000000500",
     "`cqe_writer.dmaw_req_valid`, `cqe_cqn` 0", r"CQE write: CQ 0 at 0x1000000500", False),
    ("10", "`SQ_CI_INC`: QP 0's SQ_CI 16 → 17", "`dp.u_comp.tq_req_valid` && `tq_req_ready`, `tq_req_op` 8",
     r"QP table takes completer's SQ_CI_INC: QP 0$", False),
    ("12", "**`NOTIFY` write** (00000001: CQ 1, SUCCESS)",
     "`fw_if.ntf_push` && `ntf_in_ready`", r"NOTIFY write: 0x00000001", True),
    ("13", "**`ntf_valid`** && `ntf_ready`: the harness takes it",
     "`TOP.ntf_valid` && `TOP.ntf_ready`", r"ntf handshake: 0x00000001", True),
    ("12", "`ARMED_CLR` write (CQ 1), an op of the CQ table", "`fw_if.t_valid` && `t_ready`, `t_op` 1",
     r"ARMED_CLR write: 1$", False),
]

# Rows whose event must come after another row's (the first match after the
# doorbell would be an earlier packet's or an earlier WQE's).
AFTER = {
    "`READ` of QP 0's context, as WQE 16's first pair arrives (`S_LOAD`)":
        "**fetch read of the SEND's WQE**: the third read, 1 WQE, 64 bytes at 0x1000001000",
    "`PSN` answered (`S_JOB`): PSN 16, dest_qp 0x101 (QP 1, generation 1)": "outstanding entry pushed, gather started (front end, `S_OST`)",
    "the packet's last beat leaves the requester": "**the packet leaves the requester** (LRH word)",
    "`RSP_SEQ` of QP 1's context, as the PSN word arrives": "the responder takes the LRH",
    "its answer: QP 1 is RTS, RQ_CI 0, RQ_PI 1": "the responder takes the LRH",
    "the ACK leaves the responder (its emitter, word 0)": "the receive's SGE goes to check port 1 (`S_RQ_CHECK`)",
    "`SQ_CI_INC`: QP 0's SQ_CI 16 → 17": "the SEND's own SQ CQE: CQ 0 slot 16 at 0x1000000500",
}


def table(ev):
    door = find(ev, ROWS[0][3], 0)
    if door is None:
        sys.exit("wave_table: no SQ_PI doorbell of QP 0 with 17 in this run")
    found = {}
    for step, what, sigs, pattern, bold in ROWS:
        start = found.get(AFTER.get(what), door)
        found[what] = find(ev, pattern, start if start is not None else door)
    rows = sorted(ROWS, key=lambda r: (found[r[1]] is None, found[r[1]] or 0))
    print("| step | event | the signal(s) at that cycle | time | cycle | +cycles |")
    print("|---|---|---|---|---|---|")
    for step, what, sigs, pattern, bold in rows:
        c = found[what]
        if c is None:
            print("| %s | %s | %s | ? | ? | ? |" % (step, what, sigs))
            continue
        rel = "0" if c == door else "+%d" % (c - door)
        print("| %s | %s | %s | %d | %d | %s |"
              % (step, what, sigs, 2 * c, c, "**%s**" % rel if bold else rel))
    ntf = find(ev, r"ntf handshake: 0x00000001", door)
    lat = find(ev, r"latency lookup", ntf) if ntf is not None else None
    if lat is not None:
        text = [t for c, t in ev if c == lat and t.startswith("latency lookup")][0]
        print("\nthe NIC's own count for this notification (cq_table.lat_cycles): %s"
              % text.split(": ")[-1])


def gtkw_signals(path):
    """Signal names a GTKWave save file shows (whole vectors, bit selects)."""
    names = set()
    for line in Path(path).read_text().splitlines():
        if not line or line[0] in "[*@-":
            continue
        for tok in re.findall(r"(TOP(?:\.[A-Za-z_][\w$]*)+(?:\[\d+(?::\d+)?\])?)", line):
            names.add(tok)
    return names


def check(fst, gtkw):
    widths, _ = vcd_header_and_changes(fst, [])
    bad = []
    for ref in sorted(gtkw_signals(gtkw)):
        m = re.match(r"(.*?)(?:\[(\d+)(?::(\d+))?\])?$", ref)
        base, hi, lo = m.group(1), m.group(2), m.group(3)
        if base not in widths:
            bad.append(ref + " (no such signal)")
        elif lo is not None and (int(hi) != widths[base] - 1 or int(lo) != 0):
            bad.append("%s (the FST has [%d:0])" % (ref, widths[base] - 1))
        elif hi is not None and lo is None and int(hi) >= widths[base]:
            bad.append("%s (the FST has [%d:0])" % (ref, widths[base] - 1))
        elif hi is None and widths[base] != 1:
            bad.append("%s (the FST has [%d:0])" % (ref, widths[base] - 1))
    for b in bad:
        print("missing: " + b)
    print("%s: %d signal references, %d missing" % (gtkw, len(gtkw_signals(gtkw)), len(bad)))
    return 1 if bad else 0


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    fst = argv[1]
    if len(argv) == 4 and argv[2] == "--check":
        return check(fst, argv[3])
    ev = events(Wave(fst))
    if len(argv) == 3 and argv[2] == "--timeline":
        for c, text in ev:
            print("%6d  t=%6d  %s" % (c, 2 * c, text))
        return 0
    table(ev)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
