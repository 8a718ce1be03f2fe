#!/usr/bin/env python3
"""Count the cases a `make test` log passed and failed.

Every test program of every layer prints "PASS <case>" for a case that
passed and "FAIL <case>" for one that failed (a failure's details go on lines
of their own). A "SKIP <case>" line counts as a failure: in `make test`
everything a test needs is built first, so nothing may be skipped. This
prints the total as the closing line "qpnic: N passed, M failed" and exits 1
if any case failed or none ran. Before it, the layers' "TIME <layer> <s>"
lines, longest first, so the test budget (20 minutes) is watched.
"""
import re
import sys

passed = failed = 0
times = []
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"TIME (\S+) (\d+)$", line)
    if m:
        times.append((int(m.group(2)), m.group(1)))
    elif re.match(r"PASS \S", line):
        passed += 1
    elif re.match(r"FAIL [A-Za-z0-9_./-]+\s*$", line) or re.match(r"SKIP \S", line):
        failed += 1
if times:
    total = sum(t for t, _ in times)
    print(f"qpnic: layer times, {total // 60}m{total % 60:02d}s in all:")
    for t, layer in sorted(times, reverse=True):
        print(f"  {layer:<20} {t // 60:3d}m{t % 60:02d}s")
print(f"qpnic: {passed} passed, {failed} failed")
sys.exit(1 if failed or not passed else 0)
