#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The board-in-the-loop test in one command: builds navio's Debian package
# (tools/package navio, a cross build for armhf) into build-board/pkg and
# fulmar-sim for this machine under build-board/native, then
# tests/board/fly.sh. Run from anywhere.
#
#   tests/board/run.sh [OUTDIR]     (default: board-out/ in the checkout)
#
# Exit: fly.sh's (0 pass, 1 fail, 77 skip, 99 harness error); 99 when a
# build fails.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top" || exit 99
. tools/deps.sh
deps_need "${DEPS_BUILD[@]}" "${DEPS_CROSS[@]}" "${DEPS_BOARD[@]}"

build() {
	local dir=$1
	shift
	if [ ! -f "$dir/build.ninja" ]; then
		nice -n 10 meson setup "$dir" -Dbuildtype=debugoptimized -Dtests=false "$@" \
			>"$dir.setup.log" 2>&1 || { cat "$dir.setup.log" >&2; return 1; }
	fi
	nice -n 10 ninja -C "$dir" >"$dir.log" 2>&1 || { tail -n 30 "$dir.log" >&2; return 1; }
}
mkdir -p build-board
rm -rf build-board/pkg
nice -n 10 tools/package --out build-board/pkg navio >build-board/package.log 2>&1 ||
	{ tail -n 30 build-board/package.log >&2; exit 99; }
build build-board/native || exit 99
exec "$here/fly.sh" build-board/pkg/fulmar-navio_*_armhf.deb \
	build-board/native/tools/sim/program/fulmar-sim "${1:-$top/board-out}"
