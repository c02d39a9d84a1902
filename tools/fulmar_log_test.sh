#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# fulmar-log on the reference ArduPilot logs: info counts, dump (text, CSV, JSON,
# time windows), export, plot and summary.
# Usage: fulmar_log_test.sh FULMAR_LOG REFERENCE_ROOT. The logs are in
# $FULMAR_REFERENCE/dataflash (REFERENCE_ROOT when unset); exit 77 (skip) without them.
set -eu
tool=$1
ref=${FULMAR_REFERENCE:-$2}/dataflash
if [ ! -d "$ref" ]; then
	echo "SKIP: reference data absent: $ref (set FULMAR_REFERENCE to the folder holding dataflash/ and mavlink/)"
	exit 77
fi
log=$ref/ArduPlane-3.8.2-dev_pymavlink-test.BIN
[ -r "$log" ] || { echo "FAIL: $ref is there but $log is not"; exit 1; }
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

# JSON lines: one object per record, each parses, same count as the CSV rows.
json=$("$tool" dump --json --type GPS "$log")
[ "$(echo "$json" | wc -l)" -eq "$gps" ] || fail "json rows"
echo "$json" | python3 -c 'import json, sys
for line in sys.stdin:
    o = json.loads(line)
    assert o["type"] == "GPS" and isinstance(o["Lat"], float), o' || fail "json parse"

# Time window: exactly the records whose TimeUS lies inside it (checked against CSV).
from=82.0; to=82.5
want=$(echo "$csv" | tail -n +2 | awk -F, -v a=82000000 -v b=82500000 '$1 >= a && $1 <= b' | wc -l)
got=$("$tool" dump --csv --type GPS --from $from --to $to "$log" | tail -n +2 | wc -l)
[ "$got" -eq "$want" ] && [ "$want" -gt 0 ] || fail "time window gave $got, want $want"
[ "$("$tool" dump --from 1000 "$log" | wc -l)" -eq 0 ] || fail "window past the end"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Export heights all above sea level. Plane 3.8's CMD has no Frame column: item 0 is
# home (above sea level, as ORGN Type 1 says: 584.64 m), the others above home (WP 1
# at 15 m, the land point WP 11 at 0 m).
"$tool" export --gpx "$log" >"$tmp/plane.gpx" 2>"$tmp/plane.err" || fail "export gpx plane"
grep -q "CMD has no Frame column" "$tmp/plane.err" || fail "export: no word on the missing Frame"
python3 -c 'import sys, xml.etree.ElementTree as E
n = "{http://www.topografix.com/GPX/1/1}"
r = E.parse(sys.argv[1]).getroot()
w = {p.find(n + "name").text: float(p.find(n + "ele").text) for p in r.iter(n + "wpt")}
t = [float(p.find(n + "ele").text) for p in r.iter(n + "trkpt")]
home = 584.64
for name, want in (("WP 0", home), ("WP 1", home + 15), ("WP 11", home)):
    assert abs(w[name] - want) < 0.02, (name, w[name], want)
assert all(abs(e - home) < 10 for e in t), t' "$tmp/plane.gpx" || fail "export heights not above sea level"

# The longer reference flight: export, plot and summary.
flight=$ref/ArduCopter-3.5-era_spark404-log.bin
if [ -r "$flight" ]; then
	"$tool" export --gpx "$flight" >"$tmp/t.gpx" || fail "export gpx"
	"$tool" export --kml "$flight" >"$tmp/t.kml" || fail "export kml"
	"$tool" export --gpx --source POS "$flight" >"$tmp/p.gpx" || fail "export gpx from POS"
	"$tool" plot -o "$tmp/t.svg" "$flight" || fail "plot"
	python3 -c 'import sys, xml.dom.minidom as m
[m.parse(f) for f in sys.argv[1:]]' "$tmp/t.gpx" "$tmp/t.kml" "$tmp/p.gpx" "$tmp/t.svg" \
		|| fail "export/plot output is not well-formed XML"
	# The track has one point per 3D fix.
	fixes=$("$tool" dump --csv --type GPS "$flight" | awk -F, 'NR > 1 && $2 >= 3' | wc -l)
	[ "$(grep -c '<trkpt' "$tmp/t.gpx")" -eq "$fixes" ] || fail "gpx points vs GPS fixes"
	pos=$("$tool" info "$flight" | awk '$2 == "POS" { print $3 }')
	[ "$(grep -c '<trkpt' "$tmp/p.gpx")" -eq "$pos" ] || fail "gpx points vs POS"
	grep -q '<time>2017-09-' "$tmp/t.gpx" || fail "gpx times from GPS week"
	for panel in "Ground track" "Altitude" "Airspeed" "Roll: demand" "Pitch: demand" "Loop timing"; do
		grep -q "$panel" "$tmp/t.svg" || fail "plot lacks $panel"
	done
	sum=$("$tool" summary "$flight") || fail "summary"
	echo "$sum" | grep -q "EV 11 DISARMED" || fail "summary events"
	echo "$sum" | grep -q "over $fixes GPS positions" || fail "summary distance source"
	echo "$sum" | grep -q "^loop timing (5 PM records" || fail "summary PM"
fi

# Usage errors.
if "$tool" dump --csv "$log" >/dev/null 2>&1; then fail "csv without --type accepted"; fi
if "$tool" info /nonexistent/x.bin >/dev/null 2>&1; then fail "missing file accepted"; fi
if "$tool" export "$log" >/dev/null 2>&1; then fail "export without a format accepted"; fi
if "$tool" dump --from x "$log" >/dev/null 2>&1; then fail "bad --from accepted"; fi
echo ok
