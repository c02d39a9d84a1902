#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a test script under node with node-mavlink (an independent MAVLink
# implementation) from the npm registry, installed once into a cache. Exit 77
# (skipped, with the reason) without node and npm or when the package cannot
# be had.
#   node_test.sh SCRIPT.cjs ARGS...
set -u
here=$(cd "$(dirname "$0")" && pwd)
version=2.3.0
cache=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/fulmar/npm-node-mavlink-$version
command -v node >/dev/null || { echo "SKIP: no node (Debian package nodejs)"; exit 77; }
if [ ! -f "$cache/node_modules/node-mavlink/package.json" ]; then
	command -v npm >/dev/null || { echo "SKIP: no npm (Debian package npm)"; exit 77; }
	mkdir -p "$cache"
	(cd "$cache" && exec 9>.lock && flock 9 &&
		npm install --no-audit --no-fund --no-save --prefix "$cache" "node-mavlink@$version" \
			>"$cache/install.log" 2>&1) ||
		{ echo "SKIP: npm install node-mavlink@$version failed (npm registry unreachable?): $(tail -n 1 "$cache/install.log")"; exit 77; }
fi
script=$1
shift
NODE_PATH=$cache/node_modules exec node "$here/$script" "$@"
