#!/usr/bin/env bash
# boards/prog.sh BOARD BITSTREAM [flash|sram] [FIRMWARE]: `make prog
# BOARD=...` (boards/boards.mk, docs/boards.md). Loads BITSTREAM onto the
# board with openFPGALoader: into its configuration flash (the default; the
# board boots it from then on) or into the FPGA's SRAM only (gone at
# power-off). FIRMWARE (the iCEBreaker's: its soft core's RAM is SPRAM,
# with no initial contents) is written into the flash first, either way, at
# the layout's FW_FLASH_OFFSET (rtl/gen/qpnic_layout.vh), where
# qpnic_spi_boot reads it as the bitstream starts.
#
# openFPGALoader is Debian's package `openfpgaloader`, pinned in
# tools/debian-packages.txt; this script installs it the first time it is
# needed, so that nothing else (make test, make demo) depends on it.
# Exit codes: 0 loaded; 1 no board found, or loading failed; 2 bad use
# (no such board, no bitstream yet).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
board=${1:?usage: prog.sh BOARD BITSTREAM [flash|sram]}
bit=${2:?usage: prog.sh BOARD BITSTREAM [flash|sram] [FIRMWARE]}
mem=${3:-flash}
fw=${4:-}

# openFPGALoader's name for each board (openFPGALoader --list-boards).
case "$board" in
    ulx3s) ofl_board=ulx3s; port="US1, the FT231X's USB port" ;;
    colorlight-i5) ofl_board=colorlight-i5; port="the extension board's USB port (its DAPLink)" ;;
    icebreaker) ofl_board=ice40_generic; port="its USB port (the FT2232H, channel A programs the flash)" ;;
    *) echo "prog: no board $board; boards: ulx3s colorlight-i5 icebreaker" >&2; exit 2 ;;
esac
# -f writes the flash (and --verify reads it back); -m the FPGA's SRAM. Both
# said: an SPI board (ice40_generic) writes its flash when given neither.
case "$mem" in
    flash) where=(-f --verify) ;;
    sram) where=(-m) ;;
    *) echo "prog: PROG_MEM=$mem: say flash or sram" >&2; exit 2 ;;
esac
if [ ! -f "$bit" ]; then
    echo "prog: no bitstream $bit; build it first: make bitstream BOARD=$board" >&2
    exit 2
fi
if [ -n "$fw" ]; then
    [ -f "$fw" ] || { echo "prog: no firmware image $fw" >&2; exit 2; }
    fw_offset=$(sed -n 's/^`define QPNIC_FW_FLASH_OFFSET \([0-9]*\).*/\1/p' "$here/../rtl/gen/qpnic_layout.vh")
    [ -n "$fw_offset" ] || { echo "prog: no QPNIC_FW_FLASH_OFFSET in rtl/gen/qpnic_layout.vh" >&2; exit 2; }
fi

if ! command -v openFPGALoader >/dev/null 2>&1; then
    pin=$(awk '$1 ~ /^openfpgaloader=/ {print $1}' "$here/../tools/debian-packages.txt")
    echo "prog: installing $pin (first use)"
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get update -qq
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "$pin"
fi

# With nothing plugged in, openFPGALoader exits 1 after "unable to open
# ftdi device: -3 (device not found)" (ULX3S: its FT231X) or "JTAG init
# failed with: No device found" (the i5's DAPLink, CMSIS-DAP); say which
# case it is, plainly.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# load FILE ARGS...: openFPGALoader -b BOARD ARGS... FILE, or say why not
load() {
    local file=$1
    shift
    echo "prog: openFPGALoader -b $ofl_board $* $file"
    local status=0
    openFPGALoader -b "$ofl_board" "$@" "$file" 2>&1 | tee "$log" || status=$?
    # (on an SPI board openFPGALoader may print a failed erase, write or
    # verify and still exit 0: its messages are read too)
    if [ "$status" -eq 0 ] && grep -qiE "fail|error|overflow" "$log"; then
        status=1
    fi
    if [ "$status" -ne 0 ]; then
        if grep -qiE "device not found|no device found" "$log"; then
            echo "prog: FAIL: no $board found. Plug it in by $port," >&2
            echo "prog: and check that this user may open it (udev rules; docs/boards.md)." >&2
        else
            echo "prog: FAIL: openFPGALoader could not load $file (its messages above)." >&2
        fi
        exit 1
    fi
}
# the firmware first: the bitstream, once loaded, reads it at once
if [ -n "$fw" ]; then
    load "$fw" -f --verify -o "$fw_offset"
    echo "prog: $fw written into the $board's flash at $(printf 0x%x "$fw_offset")"
fi
load "$bit" "${where[@]}"
echo "prog: $bit loaded into the $board's $mem"
