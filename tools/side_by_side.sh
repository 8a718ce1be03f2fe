#!/usr/bin/env bash
# tools/side_by_side.sh LOGDIR NAME=COMMAND ...: run the commands at once,
# each into LOGDIR/NAME.log, then print each log whole, in the order given,
# under "== NAME", and exit 1 if any command failed (naming it).
#
# For: make test's layers whose programs spend their time waiting rather
# than computing, or are timed to run a fixed wall time: the two boards'
# tests over their pseudo-terminals (most of it waiting on the serial line),
# and the two end-to-end programs that run QPNIC_LIFECYCLE_SECONDS and
# QPNIC_N5_SECONDS whatever the machine (tests/tests.mk). Each has its own
# simulator, so two at once use the machine's two cores. The logs are
# printed whole so that one program's PASS and FAIL lines stay together.
set -uo pipefail
logdir=${1:?usage: side_by_side.sh LOGDIR NAME=COMMAND ...}
shift
if [ $# -eq 0 ]; then
    echo "side_by_side: no commands: nothing would be tested" >&2
    exit 2
fi
mkdir -p "$logdir"
names=()
pids=()
for job in "$@"; do
    name=${job%%=*}
    cmd=${job#*=}
    bash -c "$cmd" > "$logdir/$name.log" 2>&1 &
    names+=("$name")
    pids+=($!)
done
failed=()
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || failed+=("${names[$i]}")
done
for name in "${names[@]}"; do
    echo "== $name"
    cat "$logdir/$name.log"
done
if [ ${#failed[@]} -ne 0 ]; then
    echo "side_by_side: failed: ${failed[*]} (logs in $logdir)"
    exit 1
fi
