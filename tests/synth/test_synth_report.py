#!/usr/bin/env python3
"""tests/synth/test_synth_report.py: the report parsers of synth/run_synth.py
on canned snippets of real Yosys and nextpnr output (make test-synth-report,
part of make test). Runs no tool: `make synth` itself is too slow for make
test (docs/synthesis.md).

Prints "PASS <case>" or "FAIL <case>" with what differed, then
"N passed, M failed"; exits 1 when a case failed.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "synth"))
import run_synth  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from py_cases import run_cases  # noqa: E402

# Yosys 0.23, `proc; check -assert` on a module whose loop variable `i` is
# assigned by two clocked blocks (shortened to two bits).
CHECK_LOG_023 = """\
2.3. Executing PROC_DFF pass (convert process syncs to FFs).
Creating register for signal `$paramod$8c15\\qpnic_csr.\\i' using process `$paramod$8c15\\qpnic_csr.$proc$/repo/rtl/qpnic_csr.v:572$601'.
  created $dff cell `$procdff$15332' with positive edge clock.
Creating register for signal `$paramod$8c15\\qpnic_csr.\\i' using process `$paramod$8c15\\qpnic_csr.$proc$/repo/rtl/qpnic_csr.v:375$449'.
  created $dff cell `$procdff$15387' with positive edge clock.

25. Executing CHECK pass (checking for obvious problems).
Checking module $paramod$8c15\\qpnic_csr...
Warning: multiple conflicting drivers for $paramod$8c15\\qpnic_csr.\\i [1]:
    port Q[1] of cell $procdff$15387 ($dff)
    port Q[1] of cell $procdff$15332 ($dff)
Warning: multiple conflicting drivers for $paramod$8c15\\qpnic_csr.\\i [0]:
    port Q[0] of cell $procdff$15387 ($dff)
    port Q[0] of cell $procdff$15332 ($dff)
ERROR: Found 2 problems in 'check -assert'.
"""

# Yosys 0.70: a clocked block's register also driven by a constant (the same
# `i` left at its last value by a combinational loop).
CHECK_LOG_070 = """\
Creating register for signal `$paramod\\qpnic_fw_if\\NUM_CQ=s32'1000.\\i' using process `$paramod\\qpnic_fw_if\\NUM_CQ=s32'1000.$proc$/repo/rtl/qpnic_fw_if.v:205$154'.
  created $dff cell `$procdff$15554' with positive edge clock.
28. Executing CHECK pass (checking for obvious problems).
Checking module $paramod\\qpnic_fw_if\\NUM_CQ=s32'1000...
Warning: Drivers conflicting with a constant 1'0 driver:
    port Q[0] of cell $procdff$15554 ($dff)
    port Q[1] of cell $procdff$15554 ($dff)
Warning: Drivers conflicting with a constant 1'1 driver:
    port Q[3] of cell $procdff$15554 ($dff)
Found and reported 2 problems.
"""

# nextpnr-ice40 0.4 on a design four times the UP5K (shortened).
NEXTPNR_ICE40_TOO_BIG = """\
Info: Device utilisation:
Info: \t         ICESTORM_LC: 24553/ 5280   465%
Info: \t        ICESTORM_RAM:    63/   30   210%
Info: \t               SB_IO:     3/   96     3%
Info: \t      ICESTORM_SPRAM:     0/    4     0%

Info: Placed 3 cells based on constraints.
ERROR: Unable to place cell 'core.soc.cpu.cpuregs.1.0_RAM', no BELs remaining to implement cell type 'ICESTORM_RAM'
0 warnings, 1 error
"""

# nextpnr-ecp5: the estimate after placement, then the routed figure.
NEXTPNR_ECP5_FMAX = """\
Info: Max frequency for clock '$glbnet$clk$TRELLIS_IO_IN': 21.03 MHz (FAIL at 50.00 MHz)
Info: Routing complete.
Info: Max frequency for clock '$glbnet$clk$TRELLIS_IO_IN': 17.80 MHz (FAIL at 50.00 MHz)
"""

# `stat -json` of a design that was not flattened (Yosys 0.23 names).
STAT_HIER = {"modules": {
    "\\top": {"num_cells_by_type": {"SB_LUT4": 4, "leaf": 2,
                                    "$paramod$ab\\ram": 1}},
    "\\leaf": {"num_cells_by_type": {"SB_LUT4": 10, "SB_DFFESR": 3, "SB_DFF": 1}},
    "$paramod$ab\\ram": {"num_cells_by_type": {"SB_RAM40_4K": 2, "SB_LUT4": 1}},
}}

# The end of Yosys 0.23's `stat -json` when no module is the top.
STAT_023_TAIL = """{
   "modules": {
      "\\\\leaf": {
         "num_cells": 1,
         "num_cells_by_type": {
            "SB_LUT4": 1
         }
      }
   },

}
"""

TARGET_25F = {"device": "25k", "luts": 24288, "max_lut_pct": 65, "clock_mhz": 50}


def fig(**kw):
    base = {"placed": True, "pnr_error": None, "over_capacity": [],
            "luts": 10000, "fmax_mhz": 60.0}
    base.update(kw)
    return base


def test_check_names_signal_and_processes_023():
    problems, findings = run_synth.check_findings(CHECK_LOG_023)
    assert problems == 2, problems
    assert len(findings) == 1, findings
    f = findings[0]
    assert (f["module"], f["signal"], f["bits"]) == ("qpnic_csr", "i", 2), f
    assert f["drivers"] == ["/repo/rtl/qpnic_csr.v:375", "/repo/rtl/qpnic_csr.v:572"], f["drivers"]
    line = run_synth.describe_finding(f, "/repo")
    assert "rtl/qpnic_csr.v:375, rtl/qpnic_csr.v:572" in line, line


def test_check_constant_driver_names_the_register_070():
    problems, findings = run_synth.check_findings(CHECK_LOG_070)
    assert problems == 2, problems
    assert len(findings) == 1, findings
    f = findings[0]
    assert (f["module"], f["signal"], f["bits"]) == ("qpnic_fw_if", "i", 3), f
    assert f["drivers"] == ["/repo/rtl/qpnic_fw_if.v:205"], f


def test_check_clean_log_has_no_findings():
    problems, findings = run_synth.check_findings(
        "3. Executing CHECK pass (checking for obvious problems).\nFound and reported 0 problems.\n")
    assert (problems, findings) == (0, []), (problems, findings)


def test_nextpnr_too_big_gives_utilisation_and_error():
    r = run_synth.nextpnr_log_figures(NEXTPNR_ICE40_TOO_BIG)
    assert r["utilization"]["ICESTORM_LC"] == {"used": 24553, "available": 5280}, r
    assert r["utilization"]["ICESTORM_SPRAM"] == {"used": 0, "available": 4}, r
    assert r["error"] == ("Unable to place cell 'core.soc.cpu.cpuregs.1.0_RAM', no BELs "
                          "remaining to implement cell type 'ICESTORM_RAM'"), r["error"]
    long_name = "Unable to place cell '" + "x" * 300 + "', no BELs remaining"
    assert run_synth.shorten_names(long_name) == \
        "Unable to place cell '" + "x" * 40 + "...', no BELs remaining"
    assert r["fmax"] == {}, r
    counts = run_synth.pnr_counts("ice40", r["utilization"])
    assert counts["luts"] == (24553, 5280), counts


def test_nextpnr_fmax_is_the_last_figure():
    r = run_synth.nextpnr_log_figures(NEXTPNR_ECP5_FMAX)
    assert r["fmax"] == {"$glbnet$clk$TRELLIS_IO_IN": 17.80}, r["fmax"]
    assert r["error"] is None


def test_nextpnr_report_json():
    report = {"utilization": {"TRELLIS_COMB": {"used": 31000, "available": 83640},
                              "DP16KD": {"used": 10, "available": 208}},
              "fmax": {"$glbnet$clk": {"achieved": 17.8, "constraint": 50.0}}}
    report["critical_paths"] = [
        {"from": "<async>", "to": "posedge $glbnet$clk", "path": [
            {"type": "routing", "delay": 1.4, "from": {"cell": "din"}, "to": {"cell": "ff"}}]},
        {"from": "posedge $glbnet$clk", "to": "posedge $glbnet$clk", "path": [
            {"type": "clk-to-q", "delay": 0.5, "from": {"cell": "a"}, "to": {"cell": "a"}},
            {"type": "routing", "delay": 4.0, "from": {"cell": "a"}, "to": {"cell": "lut"}},
            {"type": "logic", "delay": 0.25, "from": {"cell": "lut"}, "to": {"cell": "lut"}},
            {"type": "setup", "delay": 0.0, "from": {"cell": "b"}, "to": {"cell": "b"}}]}]
    r = run_synth.nextpnr_report_figures(report)
    assert r["fmax"] == {"$glbnet$clk": 17.8}, r
    assert r["critical_path"] == {"from": "a", "to": "b", "ns": 4.75, "logic_ns": 0.75,
                                  "routing_ns": 4.0}, r["critical_path"]
    assert run_synth.pnr_counts("ecp5", r["utilization"])["luts"] == (31000, 83640)


def test_ecp5_counts_a_carry_as_two_luts():
    c = run_synth.yosys_counts("ecp5", {"LUT4": 100, "CCU2C": 10, "TRELLIS_FF": 7,
                                        "DP16KD": 3, "TRELLIS_DPR16X4": 2, "PFUMX": 9})
    assert (c["luts"], c["ffs"], c["ram_blocks"], c["lutram"]) == (120, 7, 3, 2), c


def test_stat_json_of_yosys_023_parses():
    stat = run_synth.stat_json(STAT_023_TAIL)
    assert stat["modules"]["\\leaf"]["num_cells_by_type"] == {"SB_LUT4": 1}, stat


def test_breakdown_walks_the_hierarchy_with_totals():
    rows = run_synth.breakdown("ice40", STAT_HIER, top="top")
    got = [(r["module"], r["depth"], r["instances"], r["luts"], r["ffs"], r["ram_blocks"])
           for r in rows]
    assert got == [("top", 0, 1, 4 + 2 * 10 + 1, 8, 2),
                   ("leaf", 1, 2, 10, 4, 0),
                   ("ram", 1, 1, 1, 0, 2)], got


def test_judge_names_the_lut_share_that_missed():
    misses = run_synth.judge("ecp5-25f", TARGET_25F, fig(luts=31200))
    assert misses == ["ecp5-25f: 31200 LUTs = 128% of 24288, limit 65%"], misses


def test_judge_names_the_fmax_that_missed():
    misses = run_synth.judge("ecp5-25f", TARGET_25F, fig(fmax_mhz=17.8))
    assert misses == ["ecp5-25f: Fmax 17.8 MHz < 50 MHz"], misses


def test_judge_says_what_does_not_fit():
    misses = run_synth.judge("ecp5-25f", TARGET_25F, fig(
        placed=False, fmax_mhz=None, luts=30000, pnr_error="Unable to place cell",
        over_capacity=["TRELLIS_COMB 30000/24288"]))
    assert misses[0] == "ecp5-25f: does not fit the 25k: TRELLIS_COMB 30000/24288", misses
    assert misses[1].startswith("ecp5-25f: 30000 LUTs = 124% of 24288"), misses


def test_judge_passes_within_limits():
    assert run_synth.judge("ecp5-25f", TARGET_25F, fig()) == []


if __name__ == "__main__":
    sys.exit(run_cases(globals()))
