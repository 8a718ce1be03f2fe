#!/usr/bin/env bash
# tests/board/run_board_tests.sh: the board layer through the board-level
# co-simulation (docs/link.md "Board-level co-simulation"), over tty:.
#
#   tests/board/run_board_tests.sh BUILD_DIR BOARD
#
# 0. a board that boots its firmware from the flash (the iCEBreaker), with
#    one bit of the flash image flipped: the loader refuses it, the red LED
#    lights, the NIC stays in reset, and a host's open fails naming the link
# 1. link_smoke.py: a host written in Python opens the link twice; the
#    line's log of the demo decodes into frames (tools/link_log.py)
# 2. qpnic-info, qpnic-demo and the end-to-end tests of deferral (D), the
#    operations (V) and notification (N) over tty:, unchanged: $QPNIC_URI
#    picks the backend
# 3. the demo and the deferral tests again on a line that corrupts, drops
#    and cuts bytes at a seeded rate (seed printed; QPNIC_BOARD_SEED
#    replays it): the tests' own checks account for every completion
# After 2 and 3, the LEDs as the simulator saw them: the link LED lit, the
# activity LED flashed, and the error LED flashed exactly when the NIC
# dropped frames.
# Each part starts its own simulator; every simulator is stopped at exit.
set -euo pipefail
BUILD=$1
BOARD=$2
SIM="$BUILD/bin/qpnic-sim-$BOARD"
# the board's firmware: the iCEBreaker's NIC is the firmware partition
# (docs/partitions.md), which runs its own image, from the flash (the flash
# image: header, RAM words, CRC)
case "$BOARD" in
    icebreaker) FW="$BUILD/share/qpnic/qpnic-fw-tp.flash.bin" ;;
    *) FW="$BUILD/share/qpnic/qpnic-fw.hex" ;;
esac
PY=${PYTHON:-python3}
TMP=$(mktemp -d /tmp/qpnic-board-test.XXXXXX)
SIM_PID=
stop_sim() {
    if [ -n "$SIM_PID" ]; then
        kill "$SIM_PID" 2>/dev/null || true
        wait "$SIM_PID" 2>/dev/null || true
        SIM_PID=
    fi
}
trap 'stop_sim; rm -rf "$TMP"' EXIT

# start_sim NAME [simulator options]: a simulator whose line is $TMP/NAME,
# running $FW unless given another --fw
start_sim() {
    local name=$1
    shift
    "$SIM" --pty-link "$TMP/$name" --fw "$FW" "$@" 2> "$TMP/$name.log" &
    SIM_PID=$!
    for _ in $(seq 100); do
        [ -L "$TMP/$name" ] && return 0
        sleep 0.05
    done
    echo "FAIL board_sim_start: $SIM made no $TMP/$name"; cat "$TMP/$name.log"; exit 1
}

# check_leds NAME: what the simulator's closing line says the LEDs did
check_leds() {
    local name=$1 log="$TMP/$1.log" line dropped act err
    line=$(grep -h "frames dropped by the NIC" "$log" || true)
    dropped=$(sed -n 's/.*frames dropped by the NIC \([0-9]*\);.*/\1/p' <<< "$line")
    act=$(sed -n 's/.*LED flashes: activity \([0-9]*\),.*/\1/p' <<< "$line")
    err=$(sed -n 's/.*LED flashes: activity [0-9]*, error \([0-9]*\);.*/\1/p' <<< "$line")
    if ! grep -q "link LED lit (link up)" "$log" || [ -z "$dropped" ] || [ "${act:-0}" -eq 0 ] || \
       { [ "$dropped" -eq 0 ] && [ "$err" -ne 0 ]; } || { [ "$dropped" -ne 0 ] && [ "$err" -eq 0 ]; }; then
        echo "FAIL board_${BOARD}_leds_$name: link LED, activity flashes ${act:-?}, error flashes ${err:-?} for ${dropped:-?} dropped frames"
        cat "$log"; exit 1
    fi
    echo "PASS board_${BOARD}_leds_$name (activity flashes $act, error flashes $err, frames dropped $dropped)"
}

run() {   # run NAME COMMAND...: PASS/FAIL line by the command's status
    local name=$1
    shift
    if "$@" > "$TMP/out.txt" 2>&1; then
        echo "PASS $name"
    else
        echo "FAIL $name: $* exited $?"; tail -n 20 "$TMP/out.txt"; tail -n 5 "$TMP"/*.log; exit 1
    fi
}

if [ "$BOARD" = icebreaker ]; then
    # bit 3 of the image's byte 4,096, in the RAM's words: only the CRC
    # can tell (tb_qpnic_spi_boot flips bits at seeded places)
    $PY -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[4096] ^= 8; open(sys.argv[2], "wb").write(d)' \
        "$FW" "$TMP/corrupt.flash.bin"
    start_sim corrupt --fw "$TMP/corrupt.flash.bin"
    if QPNIC_URI="tty:$TMP/corrupt" QPNIC_LINK_TIMEOUT_MS=2000 "$BUILD/bin/qpnic-info" > "$TMP/out.txt" 2>&1; then
        echo "FAIL board_${BOARD}_refuses_a_corrupt_flash_image: qpnic-info opened a NIC booted from it"
        cat "$TMP/out.txt" "$TMP/corrupt.log"; exit 1
    fi
    stop_sim
    if grep -q "NDK_STATUS_IO_ERROR" "$TMP/out.txt" && grep -q "no RESET_DONE came back" "$TMP/out.txt" &&
       grep -q "the loader refused the flash image" "$TMP/corrupt.log" &&
       grep -q "LED flashes: activity 0, error 1;" "$TMP/corrupt.log" && ! grep -q "link LED lit" "$TMP/corrupt.log"; then
        echo "PASS board_${BOARD}_refuses_a_corrupt_flash_image"
    else
        echo "FAIL board_${BOARD}_refuses_a_corrupt_flash_image: the host's open, the loader or the LEDs said otherwise"
        cat "$TMP/out.txt" "$TMP/corrupt.log"; exit 1
    fi
fi

$PY tests/board/link_smoke.py "$SIM" --fw "$FW"

start_sim clean --line-log "$TMP/line.log"
export QPNIC_URI="tty:$TMP/clean"
# the tests' waits for the NIC, scaled: a request takes milliseconds here
export QPNIC_E2E_TIMEOUT_SCALE=3
run "board_${BOARD}_qpnic_info" "$BUILD/bin/qpnic-info"
grep -q "register layout" "$TMP/out.txt" || { echo "FAIL board_${BOARD}_qpnic_info: no identity"; exit 1; }
run "board_${BOARD}_demo" "$BUILD/bin/qpnic-demo"
# the line's log decodes into frames: the demo's doorbell and DMA, none broken
$PY tools/link_log.py "$TMP/line.log" > "$TMP/frames.txt"
if grep -q "DMA_RD_REQ" "$TMP/frames.txt" && grep -q "DMA_WR" "$TMP/frames.txt" && \
   grep -q "MMIO_WR" "$TMP/frames.txt" && ! grep -q "BAD" "$TMP/frames.txt"; then
    echo "PASS board_${BOARD}_line_log_decodes"
else
    echo "FAIL board_${BOARD}_line_log_decodes"; head -20 "$TMP/frames.txt"; exit 1
fi
for t in test_defer test_ops test_notify; do
    "$BUILD/tests/e2e/$t" | sed "s/^PASS /PASS board_${BOARD}_/; s/^FAIL /FAIL board_${BOARD}_/"
done
stop_sim
check_leds clean

SEED=${QPNIC_BOARD_SEED:-$(( $(date +%s) % 100000 ))}
PPM=300
echo "board $BOARD: impaired line, $PPM bytes in a million each way, seed $SEED (QPNIC_BOARD_SEED=$SEED replays it)"
start_sim faulty --fault-ppm "$PPM" --fault-seed "$SEED"
export QPNIC_URI="tty:$TMP/faulty"
# a lost frame waits out a retransmission timeout (the NIC's 20 ms is about
# a second of the simulator's wall time)
export QPNIC_E2E_TIMEOUT_SCALE=10
run "board_${BOARD}_demo_impaired_line" "$BUILD/bin/qpnic-demo"
"$BUILD/tests/e2e/test_defer" | sed "s/^PASS /PASS board_${BOARD}_impaired_/; s/^FAIL /FAIL board_${BOARD}_impaired_/"
stop_sim
grep -h "impaired in" "$TMP/faulty.log" || true
check_leds faulty
