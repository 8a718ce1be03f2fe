#!/usr/bin/env bash
# tests/bench/test_perf_smoke.sh PERF_BIN: a quick check of qpnic-perf
# (issue 3) on tiny configurations, for make test.
#
# For: the tool's contract: bad options are usage errors (exit 2), --csv and
# --json parse, the counters it reports are the NIC's (one doorbell per chain
# of N: doorbells/op == 1/N, D8), and notification mode reports a latency.
# Not for: the figures themselves (make bench measures those).
#
# Prints "PASS <case>" / "FAIL <case>" lines (tools/tally.py counts them);
# exits 1 if any case failed.
set -uo pipefail
perf=${1:-build/bin/qpnic-perf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1"; shift; echo "  $*"; failed=1; }

# -- bad options: a usage message on stderr, exit 2, nothing on stdout
usage_case() {
    local name=$1; shift
    "$perf" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ $rc -ne 2 ]; then
        fail "$name" "qpnic-perf $* exited $rc, expected 2 (usage error)"
    elif ! grep -q "^usage: qpnic-perf" "$tmp/err"; then
        fail "$name" "qpnic-perf $* printed no usage text on stderr"
    elif [ -s "$tmp/out" ]; then
        fail "$name" "qpnic-perf $* printed on stdout: $(head -c 200 "$tmp/out")"
    else
        pass "$name"
    fi
}
usage_case perf_usage_chain_0 --chain 0
usage_case perf_usage_chain_65 --chain 65
usage_case perf_usage_size_too_big --size 65537
usage_case perf_usage_bad_op --op atomic
usage_case perf_usage_bad_mode --mode fast
usage_case perf_usage_unknown_option --frobnicate
usage_case perf_usage_missing_value --iters
usage_case perf_usage_bad_post --post cached
usage_case perf_usage_frsend_has_no_prepared_form --op frsend --post prepared

# -- CSV: every op, two chain lengths; doorbells/op must be exactly 1/N (D8)
if "$perf" --op write,read,send --size 64 --chain 1,4 --iters 16 --csv >"$tmp/csv" 2>"$tmp/err"; then
    pass perf_csv_runs
else
    fail perf_csv_runs "qpnic-perf --csv failed: $(cat "$tmp/err")"
fi
python3 - "$tmp/csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def check(name, ok, why):
    print(("PASS " if ok else "FAIL ") + name)
    if not ok:
        print("  " + why)
check("perf_csv_parses", len(rows) == 6 and all(r["cycles_per_op"] for r in rows),
      f"expected 6 rows with cycles_per_op, got {len(rows)}: {rows[:1]}")
bad = [r for r in rows if abs(float(r["doorbells_per_op"]) - 1 / int(r["chain"])) > 1e-9]
check("perf_doorbells_per_op_is_1_over_chain_D8", rows and not bad,
      "doorbells/op != 1/chain: " + "; ".join(
          f'{r["op"]} chain {r["chain"]}: {r["doorbells_per_op"]}' for r in bad))
bad = [r for r in rows if not (float(r["fetch_reads_per_op"]) > 0 and float(r["cycles_per_op"]) > 0
                               and int(r["ops"]) % int(r["chain"]) == 0)]
check("perf_csv_counts_fetches_and_cycles", rows and not bad,
      "rows without fetch reads or cycles, or ops not whole chains: " + str(bad[:2]))
PY
[ $? -eq 0 ] || failed=1

# -- JSON, latency mode waiting on notifications: a latency is reported
if "$perf" --op write --size 128 --chain 1,8 --mode lat --wait notify --iters 8 --json \
        >"$tmp/json" 2>"$tmp/err"; then
    pass perf_json_runs
else
    fail perf_json_runs "qpnic-perf --json failed: $(cat "$tmp/err")"
fi
python3 - "$tmp/json" <<'PY'
import json, sys
def check(name, ok, why):
    print(("PASS " if ok else "FAIL ") + name)
    if not ok:
        print("  " + why)
try:
    doc = json.load(open(sys.argv[1]))
    res = doc["results"]
except Exception as e:
    check("perf_json_parses", False, f"not JSON with results: {e}")
    sys.exit(1)
check("perf_json_parses", len(res) == 2 and doc["nic_clock_hz"] == 25e6,
      f"expected 2 results and nic_clock_hz 25e6, got {len(res)}, {doc.get('nic_clock_hz')}")
bad = [r for r in res if not (r["notifications"] > 0 and r["ntf_latency_mean"] is not None
                              and r["ntf_latency_max"] >= r["ntf_latency_mean"] > 0)]
check("perf_notify_reports_latency", res and not bad,
      "notification runs without a sane latency: " + str(bad[:1]))
bad = [r for r in res if abs(r["doorbells_per_op"] - 1 / r["chain"]) > 1e-6]
check("perf_json_doorbells_per_op_D8", res and not bad, "doorbells/op != 1/chain: " + str(bad[:1]))
PY
[ $? -eq 0 ] || failed=1

# -- FastRegister + Send chains: N FastRegisters and the Send ring once
# (D8), and every request completes (the tool insists on SUCCESS)
if "$perf" --op frsend --size 64 --chain 1,3 --mode lat --iters 8 --csv >"$tmp/fr" 2>"$tmp/err"; then
    pass perf_frsend_runs
else
    fail perf_frsend_runs "qpnic-perf --op frsend failed: $(cat "$tmp/err")"
fi
# -- prepared posts (V1): both forms in one run, each with its host cost
if "$perf" --op write,send --size 64 --chain 4 --iters 16 --post plain,prepared --csv >"$tmp/pp" \
        2>"$tmp/err"; then
    pass perf_prepared_runs
else
    fail perf_prepared_runs "qpnic-perf --post plain,prepared failed: $(cat "$tmp/err")"
fi
python3 - "$tmp/fr" "$tmp/pp" <<'PY'
import csv, sys
def check(name, ok, why):
    print(("PASS " if ok else "FAIL ") + name)
    if not ok:
        print("  " + why)
fr = list(csv.DictReader(open(sys.argv[1])))
bad = [r for r in fr if abs(float(r["doorbells_per_op"]) - 1 / (int(r["chain"]) + 1)) > 1e-9
       or int(r["ops"]) % (int(r["chain"]) + 1) != 0]
check("perf_frsend_one_doorbell_per_chain_D8", len(fr) == 2 and not bad,
      f"expected 2 rows with doorbells/op 1/(N+1) and whole chains of N+1: {bad or fr}")
bad = [r for r in fr if abs(float(r["cycles_per_chain"]) -
                            float(r["cycles_per_op"]) * (int(r["chain"]) + 1)) > 0.01]
check("perf_frsend_cycles_per_chain", fr and not bad, f"cycles/chain != cycles/op x (N+1): {bad[:1]}")
pp = list(csv.DictReader(open(sys.argv[2])))
got = sorted((r["op"], r["post"]) for r in pp)
want = [("send", "plain"), ("send", "prepared"), ("write", "plain"), ("write", "prepared")]
check("perf_prepared_rows", got == want, f"expected rows {want}, got {got}")
bad = [r for r in pp if not float(r["host_ns_per_post"]) > 0
       or abs(float(r["doorbells_per_op"]) - 0.25) > 1e-9]
check("perf_prepared_host_cost_and_D8", pp and not bad,
      f"rows without a host cost per post, or doorbells/op != 1/4: {bad[:1]}")
PY
[ $? -eq 0 ] || failed=1

# -- the doorbell cost model is accepted by name and charged
if "$perf" --op write --chain 2 --iters 4 --doorbell-delay pcie --csv >"$tmp/pcie" 2>"$tmp/err" &&
   grep -q "^write,64,2,bw,poll,13," "$tmp/pcie"; then
    pass perf_doorbell_delay_pcie
else
    fail perf_doorbell_delay_pcie "--doorbell-delay pcie did not run as 13 cycles: $(cat "$tmp/pcie" "$tmp/err")"
fi

exit $failed
