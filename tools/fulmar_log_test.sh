#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# fulmar-log on a reference ArduPilot log: info counts and dump output.
# Usage: fulmar_log_test.sh FULMAR_LOG REFERENCE_DIR. Exit 77 (skip) without the logs.
set -eu
tool=$1
log=$2/ArduPlane-3.8.2-dev_pymavlink-test.BIN
if [ ! -r "$log" ]; then
	echo "reference log $log absent: skipped"
	exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }

info=$("$tool" info "$log")
echo "$info" | head -4
echo "$info" | grep -q ": 47 types, 1731 records$" || fail "info counts"
echo "$info" | grep -q "truncated bytes at end: 24;" || fail "info truncated bytes"
echo "$info" | grep -Eq "^[0-9]+ +PARM +809 " || fail "info PARM count"

# Text dump, one type: one line per record.
n=$("$tool" dump --type PARM "$log" | wc -l)
[ "$n" -eq 809 ] || fail "dump PARM gave $n lines"
"$tool" dump --type PARM "$log" | head -1 | grep -q "^PARM {TimeUS: [0-9]*, Name: [A-Z_0-9]*, Value: " \
	|| fail "dump text shape"

# CSV: a header and one row per record, as many columns as labels.
csv=$("$tool" dump --csv --type GPS "$log")
echo "$csv" | head -1 | grep -qx "TimeUS,Status,GMS,GWk,NSats,HDop,Lat,Lng,Alt,Spd,GCrs,VZ,U" \
	|| fail "csv header"
rows=$(echo "$csv" | tail -n +2 | wc -l)
gps=$(echo "$info" | awk '$2 == "GPS" { print $3 }')
[ "$rows" -eq "$gps" ] || fail "csv rows $rows, info says $gps"
echo "$csv" | tail -n +2 | awk -F, 'NF != 13 { exit 1 }' || fail "csv column count"

# All records, unfiltered: as many lines as records.
all=$("$tool" dump "$log" | wc -l)
[ "$all" -eq 1731 ] || fail "dump all gave $all lines"

# Usage errors.
if "$tool" dump --csv "$log" >/dev/null 2>&1; then fail "csv without --type accepted"; fi
if "$tool" info /nonexistent/x.bin >/dev/null 2>&1; then fail "missing file accepted"; fi
echo ok
