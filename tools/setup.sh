#!/usr/bin/env bash
# tools/setup.sh BUILD_DIR: install what qpnic needs, once, and say where it is.
#
# Debian packages (pinned to what Debian 12 ships, see tools/debian-packages.txt)
# are installed only when a command they provide is missing; PyPI packages
# (tools/requirements.txt) go into BUILD_DIR/venv. Writes BUILD_DIR/setup.mk
# with the paths the Makefile needs. Safe to run again; it does nothing new.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$build"

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)

# Each line of debian-packages.txt: package=version command-it-provides
# [target]; a line with a target is that target's to install (make prog).
missing=()
while read -r pkg cmd target; do
    case "$pkg" in ''|\#*) continue ;; esac
    [ -z "$target" ] || continue
    name=${pkg%%=*}
    if [ "$cmd" = "-" ]; then
        dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q "ok installed" || missing+=("$name")
    else
        command -v "$cmd" >/dev/null 2>&1 || missing+=("$name")
    fi
done < "$here/debian-packages.txt"

if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    # Never stop to ask: sudo resets the environment, so the frontend is set
    # inside it (apt_env), not only exported. wireshark-common (tshark's) asks
    # whether non-root users may capture; qpnic only reads capture files, so
    # the answer is no, given beforehand rather than left to a prompt.
    export DEBIAN_FRONTEND=noninteractive
    apt_env=(env DEBIAN_FRONTEND=noninteractive)
    echo "wireshark-common wireshark-common/install-setuid boolean false" \
        | "${sudo_cmd[@]}" debconf-set-selections
    "${sudo_cmd[@]}" apt-get update -qq
    # versions come from tools/debian-packages.txt, so a newer archive cannot change the build
    pins=()
    for m in "${missing[@]}"; do pins+=("$(grep -E "^$m=" "$here/debian-packages.txt" | awk '{print $1}')"); done
    if ! "${sudo_cmd[@]}" "${apt_env[@]}" apt-get install -y -qq --no-install-recommends "${pins[@]}"; then
        # A Debian point release can replace a pinned version in the archive.
        # Say so loudly, then take the release's current one of the same package.
        echo "setup: WARNING: pinned versions not in the archive; installing Debian's current ones" >&2
        "${sudo_cmd[@]}" "${apt_env[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
fi

venv="$build/venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if ! cmp -s "$here/requirements.txt" "$venv/requirements.installed" 2>/dev/null; then
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt"
    cp "$here/requirements.txt" "$venv/requirements.installed"
fi

picorv32=$("$venv/bin/python" -c 'import pythondata_cpu_picorv32 as p; print(p.data_location)')/picorv32.v
[ -f "$picorv32" ] || { echo "setup: picorv32.v not found at $picorv32" >&2; exit 1; }
cat > "$build/setup.mk.tmp" <<MK
# written by tools/setup.sh
PICORV32_V := $picorv32
PYTHON := $(cd "$venv" && pwd)/bin/python
MK
mv "$build/setup.mk.tmp" "$build/setup.mk"
