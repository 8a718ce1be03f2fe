#!/usr/bin/env python3
"""Count the cases a `make test` log passed and failed.

Every test program of every layer prints "PASS <case>" for a case that
passed and "FAIL <case>" for one that failed (a failure's details go on lines
of their own). A "SKIP <case>" line counts as a failure: in `make test`
everything a test needs is built first, so nothing may be skipped. This
prints the total as the closing line "qpnic: N passed, M failed" and exits 1
if any case failed or none ran.
"""
import re
import sys

passed = failed = 0
for line in open(sys.argv[1], errors="replace"):
    if re.match(r"PASS \S", line):
        passed += 1
    elif re.match(r"FAIL [A-Za-z0-9_./-]+\s*$", line) or re.match(r"SKIP \S", line):
        failed += 1
print(f"qpnic: {passed} passed, {failed} failed")
sys.exit(1 if failed or not passed else 0)
