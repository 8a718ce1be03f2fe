"""tests/py_cases.py: the case runner the Python test programs share.

For: a test file of plain functions named test_*, each a case that passes
by returning and fails by raising (an assert with a message saying what
differed). Prints "PASS <case>" or "FAIL <case>" with the traceback, then
"N passed, M failed" (the lines tools/tally.py counts in make test).
Not for: fixtures, skipping or parallel runs: a case needing one of those
does it itself.
"""
import sys
import traceback


def run_cases(namespace):
    """Run every test_* function of namespace (a module's globals()), in name
    order; the exit code: 1 when a case failed, else 0."""
    cases = [(n, f) for n, f in sorted(namespace.items()) if n.startswith("test_") and callable(f)]
    passed = failed = 0
    for name, case in cases:
        try:
            case()
            print(f"PASS {name}")
            passed += 1
        except Exception:
            print(f"FAIL {name}")
            traceback.print_exc(file=sys.stdout)
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
