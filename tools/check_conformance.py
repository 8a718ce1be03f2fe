#!/usr/bin/env python3
"""Check docs/conformance.md against the tests: every rule has a test, and
every test the page names exists.

    python3 tools/check_conformance.py        # make test-conformance

The rule IDs are those of ../shared/spec/RULES.md (D1-D8, C1-C5, N1-N8,
V1-V10), listed here so that a clone without ../shared checks the same.
For each rule row of the page (| ID | end to end | other layers |) it takes
the backticked names of the end-to-end column: "test_file case" names a
case of tests/e2e/test_file.c, a bare "case" one of the file named last in
the row (or the file its section's heading names), and a name with
<placeholders> stands for every case it matches. A rule fails when its row
is missing or names no case that exists; a name fails when no case of its
file has it. A rule the page lists under "Not yet covered" is reported, not
failed: the page says why it has no test yet.

Prints "PASS <rule>" / "FAIL <rule>: why" / "UNCOVERED <rule>: why" lines
and exits 1 if anything failed.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "conformance.md"
E2E = ROOT / "tests" / "e2e"

RULES = ([f"D{i}" for i in range(1, 9)] + [f"C{i}" for i in range(1, 6)] +
         [f"N{i}" for i in range(1, 9)] + [f"V{i}" for i in range(1, 11)])


def cases_of(test_file):
    """The case names a tests/e2e program runs: its e2e_case table."""
    path = E2E / f"{test_file}.c"
    if not path.exists():
        return None
    text = path.read_text()
    names = set(re.findall(r'\{\s*"([A-Za-z0-9_]+)"\s*,', text))
    names |= set(re.findall(r'\bC\(([A-Za-z0-9_]+)\)', text))
    return names


def main():
    text = PAGE.read_text()
    rows = {}
    uncovered = {}
    section_file = None
    in_uncovered = False
    for line in text.splitlines():
        if line.startswith("## "):
            in_uncovered = line.startswith("## Not yet covered")
            m = re.search(r"tests/e2e/(test_[a-z_]+)", line)
            section_file = m.group(1) if m else None
            continue
        if not line.startswith("| "):
            continue
        if line.startswith("| end to end") or line.startswith("| rule"):
            m = re.search(r"tests/e2e/(test_[a-z_]+)", line)
            if m:
                section_file = m.group(1)
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        ids = [i.strip() for i in re.split(r"[ ,]+", re.sub(r"\(.*?\)", "", cells[0])) if i.strip()]
        if in_uncovered:
            for i in ids:
                if i in RULES:
                    uncovered[i] = cells[1] if len(cells) > 1 else ""
            continue
        if len(ids) == 1 and ids[0] in RULES and len(cells) > 1:
            rows[ids[0]] = (cells[1], section_file)

    failed = 0
    for rule in RULES:
        if rule not in rows:
            if rule in uncovered:
                print(f"UNCOVERED {rule}: {uncovered[rule]}")
            else:
                print(f"FAIL {rule}: docs/conformance.md has no row for it")
                failed += 1
            continue
        cell, current = rows[rule]
        found, missing = [], []
        for name in re.findall(r"`([^`]+)`", cell):
            parts = name.split()
            if len(parts) == 2 and parts[0].startswith("test_"):
                current, name = parts
            elif (len(parts) != 1 or not re.fullmatch(r"[A-Za-z0-9_<>]+", name) or
                  name.startswith("ndk_")):
                continue  # not a case name (an API call, a register)
            if current is None:
                missing.append(f"{name} (no test file named before it)")
                continue
            cases = cases_of(current)
            if cases is None:
                missing.append(f"{current} (no such program)")
                continue
            pattern = re.compile("^" + re.sub(r"<[^>]+>", "[A-Za-z0-9]+", name) + "$")
            hits = [c for c in cases if pattern.match(c)]
            if hits:
                found += [f"{current} {h}" for h in hits]
            else:
                missing.append(f"{current} {name}")
        if missing:
            print(f"FAIL {rule}: the page names cases that do not exist: {', '.join(missing)}")
            failed += 1
        elif not found:
            print(f"FAIL {rule}: its row names no end-to-end case")
            failed += 1
        else:
            print(f"PASS {rule}: {len(found)} case(s)")
    print(f"conformance: {len(RULES) - failed - sum(1 for r in RULES if r not in rows and r in uncovered)} "
          f"rules with tests, {sum(1 for r in RULES if r not in rows and r in uncovered)} not yet covered, "
          f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
