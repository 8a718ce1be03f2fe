#!/usr/bin/env bash
# test_install.sh PREFIX: build tests/install/outside.c outside the tree
# against the libqpnic installed at PREFIX, with pkg-config only, and run it
# with nothing else set up (no QPNIC_SIM): the library must find the
# installed simulator and firmware by itself. Then the same with the shared
# library.
set -euo pipefail
prefix=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/outside.c" "$work/"
cd "$work"
unset QPNIC_SIM QPNIC_FW QPNIC_SIM_ARGS
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
for f in "$prefix/include/qpnic/ndk.h" "$prefix/lib/libqpnic.a" "$prefix/lib/libqpnic.so" \
         "$prefix/lib/pkgconfig/qpnic.pc" "$prefix/bin/qpnic-sim" "$prefix/share/qpnic/qpnic-fw.hex" \
         "$prefix/bin/qpnic-sim-fw" "$prefix/share/qpnic/qpnic-fw-tp.hex" \
         "$prefix/share/qpnic/qpnic-fw-tp.flash.bin"; do
    [ -e "$f" ] || { echo "test_install: FAIL: $f was not installed"; exit 1; }
done
# The archive itself, then what it needs (Libs.private: -pthread, libftdi1).
static_deps=$(pkg-config --libs --static qpnic | sed 's/-lqpnic\b//')
cc -std=c11 -Wall -Wextra -Werror -o outside-static outside.c $(pkg-config --cflags qpnic) \
   "$prefix/lib/libqpnic.a" $static_deps -pthread
./outside-static
echo "PASS install_static_library_via_pkg_config"
cc -std=c11 -Wall -Wextra -Werror -o outside-shared outside.c $(pkg-config --cflags --libs qpnic)
LD_LIBRARY_PATH="$prefix/lib" ./outside-shared
echo "PASS install_shared_library_via_pkg_config"
# The iCEBreaker's board-level simulator, installed, finds its flash image
# beside its bin/ and boots it (qpnic_spi_boot checks the header and CRC):
# 300,000 cycles cover the 262,000 of the load.
if ! "$prefix/bin/qpnic-sim-icebreaker" --pty-link "$work/tty" --max-cycles 300000 2> boot.log ||
   ! grep -q "firmware loaded from the flash" boot.log; then
    echo "test_install: FAIL: the installed qpnic-sim-icebreaker did not boot its flash image"; cat boot.log; exit 1
fi
echo "PASS install_icebreaker_simulator_boots_its_flash_image"
