#!/usr/bin/env python3
"""Co-simulation speed of several simulator builds, measured in one run.

    bench/sim_speed.py --perf build/bin/qpnic-perf LABEL=SIM[@PERF] ...

Runs qpnic-perf's co-simulation speed configuration (`speed_notify` of
bench/run_bench.py: 4 KiB WRITEs, SQ full, the host asleep in ndk_wait_cq,
so the simulator has a core to itself) against each simulator binary in
turn (QPNIC_SIM; a build of another tree names its own qpnic-perf after
@), REPEATS rounds interleaved so that load on the machine
falls on all of them alike, and prints each build's median simulated
cycles per second. The cycles are counted by the simulator; only the
seconds are wall clock, so the figures compare builds measured together,
not runs on different days.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

SPEED_ARGS = ["--op", "write", "--size", "4096", "--chain", "16", "--mode", "bw",
              "--wait", "notify", "--iters", "2048", "--json"]


def one_run(perf, sim):
    env = dict(os.environ, QPNIC_SIM=sim)
    out = subprocess.run([perf] + SPEED_ARGS, env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["results"][0]["sim_cycles_per_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--perf", required=True, help="the qpnic-perf binary")
    ap.add_argument("--repeats", type=int, default=3, help="rounds over all builds")
    ap.add_argument("builds", nargs="+", help="LABEL=SIM[@PERF]: a qpnic-sim binary")
    a = ap.parse_args()
    builds = []
    for b in a.builds:
        label, rest = b.split("=", 1)
        sim, _, perf = rest.partition("@")
        builds.append((label, sim, perf or a.perf))
    speeds = {label: [] for label, _, _ in builds}
    for r in range(a.repeats):
        for label, sim, perf in builds:
            speeds[label].append(one_run(perf, sim))
            print(f"round {r + 1}: {label}: {speeds[label][-1] / 1e6:.2f} M cycles/s",
                  file=sys.stderr)
    print("| build | runs (M cycles/s) | median M cycles/s |")
    print("|---|---|---|")
    for label, _, _ in builds:
        runs = ", ".join(f"{s / 1e6:.2f}" for s in speeds[label])
        print(f"| {label} | {runs} | {statistics.median(speeds[label]) / 1e6:.2f} |")


if __name__ == "__main__":
    main()
