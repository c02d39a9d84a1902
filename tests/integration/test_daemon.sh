#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# fulmard as a real process: six named SCHED_FIFO threads, the timing report on
# SIGUSR1 and at shutdown, a clean stop on SIGTERM and SIGINT, one clear line
# and a distinct exit code for every kind of bad start, and the fallback to
# normal scheduling without permission.
#   test_daemon.sh FULMARD SANITIZED(true|false)
# The SCHED_FIFO checks (the threads' class and priorities, and the fallback when
# an unprivileged user runs it) need root. Without it the rest still runs, and
# then the test skips (77, "SKIP: ..."), so tools/test lists what was not checked.
set -u
fulmard=$1
sanitized=${2:-false}
tmp=$(mktemp -d)
trap 'kill -9 $pid 2>/dev/null; rm -rf "$tmp"' EXIT
pid=
fails=0
pass=0
skipped=

ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fails=$((fails + 1)); echo "FAIL - $*"; }
check() { if eval "$1"; then ok "$2"; else bad "$2"; fi; }

# ASan reserves terabytes of shadow memory: mlockall cannot lock that.
conf=$tmp/fulmard.conf
if [ "$sanitized" = true ]; then printf '[sched]\nlock_memory = false\n' >"$conf"; else : >"$conf"; fi
printf '[thread.timer]\ncpu = 0\n[daemon]\nstate_dir = %s/state\nlog_dir = %s/logs\n[mavlink]\nlink0 = udp-server:127.0.0.1:0\n' "$tmp" "$tmp" >>"$conf"

wait_for() {  # wait_for FILE PATTERN: up to 60 s (a hang check: generous for a busy host)
	for _ in $(seq 600); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}

# --- a normal run -----------------------------------------------------------
"$fulmard" --config "$conf" >"$tmp/out" 2>&1 &
pid=$!
if wait_for "$tmp/out" "running: six threads"; then ok "fulmard starts"; else bad "fulmard starts"; cat "$tmp/out"; exit 1; fi
ps -L -o comm=,cls=,rtprio= -p "$pid" >"$tmp/ps"
for t in timer main rcin uart tone io; do
	if [ "$(id -u)" = 0 ]; then
		check "grep -Eq '^$t +FF +[0-9]+' '$tmp/ps'" "thread $t is SCHED_FIFO"
	else
		check "grep -Eq '^$t ' '$tmp/ps'" "thread $t exists"
	fi
done
timer_tid=$(ps -L -o tid=,comm= -p "$pid" | awk '$2 == "timer" { print $1 }')
check "grep -Eq '^Cpus_allowed_list:[[:space:]]+0$' /proc/$pid/task/$timer_tid/status" "timer thread pinned to CPU 0 as configured"
prio() { awk -v t="$1" '$1 == t { print $3 }' "$tmp/ps"; }
if [ "$(id -u)" = 0 ]; then
	check "[ $(prio timer) -gt $(prio main) ] && [ $(prio main) -gt $(prio rcin) ] && [ $(prio rcin) -gt $(prio io) ]" \
		"priorities are rate-monotonic"
fi
kill -USR1 "$pid"
check "wait_for '$tmp/out' 'timing report'" "SIGUSR1 prints the timing report"
check "wait_for '$tmp/out' '  timer  *1000 '" "the report has a line for the timer thread"
kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
check "[ $rc = 0 ]" "SIGTERM stops with status 0 (got $rc)"
check "grep -q 'stopped cleanly' '$tmp/out'" "it says it stopped cleanly"
check "[ \$(grep -c 'timing report' '$tmp/out') = 2 ]" "and prints the report again at shutdown"

"$fulmard" --config "$conf" >"$tmp/out2" 2>&1 &
pid=$!
wait_for "$tmp/out2" "running: six threads"
kill -INT "$pid"
wait "$pid"
rc=$?
pid=
check "[ $rc = 0 ]" "SIGINT stops with status 0 (got $rc)"

# --- bad starts: one line, a distinct status ---------------------------------
expect() {  # expect STATUS PATTERN DESCRIPTION -- ARGS...
	local want=$1 pattern=$2 what=$3
	shift 4
	"$fulmard" "$@" >"$tmp/bad" 2>&1
	local got=$?
	if [ "$got" = "$want" ] && grep -q -- "$pattern" "$tmp/bad"; then ok "$what"
	else bad "$what: status $got (want $want), output:"; cat "$tmp/bad"; fi
}
printf '[sched]\nrealtime = true\nbogus = 3\n' >"$tmp/unknown.conf"
expect 78 "unknown.conf:3: unknown key 'bogus' in \[sched\]" "unknown key gives file:line and 78" -- --config "$tmp/unknown.conf"
printf '[thread.main]\nrate_hz = fast\n' >"$tmp/badval.conf"
expect 78 "badval.conf:2: rate_hz: 'fast'" "bad value gives file:line and 78" -- --config "$tmp/badval.conf"
expect 66 "nonexistent.conf: No such file or directory" "missing file gives 66" -- --config "$tmp/nonexistent.conf"
printf '[devices]\ntelem = %s/no-such-tty\n' "$tmp" >"$tmp/dev.conf"
expect 74 "telem (telemetry radio (USB serial)): $tmp/no-such-tty: No such file or directory" \
	"unreadable device names the device and gives 74" -- --config "$tmp/dev.conf"
{ cat "$conf"; printf '[thread.io]\ncpu = 1023\n'; } >"$tmp/cpu.conf"
expect 71 "cannot start thread io on CPU 1023" "a CPU the machine lacks gives 71" -- --config "$tmp/cpu.conf"
mkdir -p "$tmp/badkey/state" && printf 'short' >"$tmp/badkey/state/mavlink-signing.key"
sed "s|^state_dir = .*|state_dir = $tmp/badkey/state|" "$conf" >"$tmp/badkey.conf"
expect 78 "mavlink-signing.key: not a 32-byte signing key (remove it to turn MAVLink signing off)" \
	"a damaged signing key refuses to start rather than fly unsigned" -- --config "$tmp/badkey.conf"
# Parameter and mission files from the command line: all or nothing, file:line.
mkdir -p "$tmp/files/state"
sed "s|^state_dir = .*|state_dir = $tmp/files/state|" "$conf" >"$tmp/files.conf"
printf '# from a ground station\nSYSID_THISMAV,42\nSR0_EXTRA1 4\n' >"$tmp/good.param"
printf 'SYSID_THISMAV,43\nSR0_EXTRA1,400\n' >"$tmp/bad.param"
printf 'QGC WPL 110\n0\t1\t0\t16\t0\t0\t0\t0\t52.5200000\t13.4050000\t34\t1\n1\t0\t3\t16\t0\t0\t0\t0\t52.5210000\t13.4060000\t60\t1\n' >"$tmp/good.waypoints"
printf 'QGC WPL 110\n0\t1\t0\t16\t0\t0\t0\t0\t52.52\t13.405\t34\n' >"$tmp/bad.waypoints"
expect 78 "bad.param:2: SR0_EXTRA1 = 400 is outside 0..50" "a bad parameter file gives file:line and 78" \
	-- --config "$tmp/files.conf" --load-params "$tmp/bad.param" --save-params "$tmp/out.param"
expect 78 "bad.waypoints:2: expected 12 numbers, found 11" "a bad mission file gives file:line and 78" \
	-- --config "$tmp/files.conf" --load-mission "$tmp/bad.waypoints" --save-mission "$tmp/out.waypoints"
expect 0 "" "--load-params and --load-mission, then --save-params and --save-mission" \
	-- --config "$tmp/files.conf" --load-params "$tmp/good.param" --load-mission "$tmp/good.waypoints" \
	--save-params "$tmp/out.param" --save-mission "$tmp/out.waypoints"
check "grep -qx 'SYSID_THISMAV,42' '$tmp/out.param' && grep -qx 'SR0_EXTRA1,4' '$tmp/out.param'" \
	"the saved parameters are the loaded ones"
check "cmp -s '$tmp/good.waypoints' '$tmp/out.waypoints'" "the saved mission is the loaded one, byte for byte"
check "[ ! -e '$tmp/files/state/fulmar.param' ] || ! grep -q 'SYSID_THISMAV,43' '$tmp/files/state/fulmar.param'" \
	"nothing of the bad file was applied"
# A board switched from plane to copter, the same state directory: the copter
# keeps its own parameters (the tables share names whose values differ).
sed 's|^\[daemon\]$|[daemon]\nvehicle = copter|' "$tmp/files.conf" >"$tmp/copter.conf"
expect 0 "" "a copter started where a plane saved its parameters" \
	-- --config "$tmp/copter.conf" --save-params "$tmp/copter.param"
check "grep -qx 'SERVO1_FUNCTION,33' '$tmp/copter.param' && ! grep -q 'SYSID_THISMAV,42' '$tmp/copter.param'" \
	"the copter has its own parameters, not the plane's saved ones"
check "grep -qx 'SYSID_THISMAV,42' '$tmp/files/state/fulmar.param'" "and the plane's are kept"
# Several files, as an airframe's and an option's: in order, the last one's value wins.
printf 'SYSID_THISMAV,44\nRNGFND1_TYPE,10\n' >"$tmp/more.param"
expect 0 "" "two --load-params files" \
	-- --config "$tmp/files.conf" --load-params "$tmp/good.param" --load-params "$tmp/more.param" \
	--save-params "$tmp/out2.param"
check "grep -qx 'SYSID_THISMAV,44' '$tmp/out2.param' && grep -qx 'SR0_EXTRA1,4' '$tmp/out2.param' && grep -qx 'RNGFND1_TYPE,10' '$tmp/out2.param'" \
	"both files applied, the later one's value where they share a name"
printf 'SYSID_THISMAV,45\n' >"$tmp/other.param"
expect 78 "bad.param:2: SR0_EXTRA1 = 400 is outside 0..50" "a bad second file gives file:line and 78" \
	-- --config "$tmp/files.conf" --load-params "$tmp/other.param" --load-params "$tmp/bad.param" \
	--save-params "$tmp/out3.param"
check "grep -qx 'SYSID_THISMAV,44' '$tmp/files/state/fulmar.param'" \
	"with a bad file among them, none is saved (the good one before it neither)"
expect 64 "Usage:" "unknown option gives 64" -- --no-such-option
expect 64 "unexpected argument" "stray argument gives 64" -- stray
expect 64 "--spin-us '-5': wanted 0-100000 microseconds" "a bad --spin-us gives 64" -- --spin-us -5
expect 64 "--spin-us '200000': wanted 0-100000" "a --spin-us over 100 ms gives 64" -- --spin-us 200000
expect 0 "board: sim" "--board-info describes the board" -- --board-info
expect 0 "^fulmard [0-9]" "--version" -- --version
expect 0 "Exit status" "--help" -- --help

# --- without permission for SCHED_FIFO ---------------------------------------
# As the nobody user, from a copy of fulmard in the test's own directory, which
# nobody can read wherever the build tree is (/root's is not readable by others).
# Under the sanitizers too: the configuration above already leaves memory unlocked.
if [ "$(id -u)" != 0 ]; then
	skipped="not root: the SCHED_FIFO threads, their priorities and the fallback without permission were not checked"
elif ! command -v setpriv >/dev/null; then
	skipped="no setpriv (util-linux): the fallback without permission for SCHED_FIFO was not checked"
else
	chmod 755 "$tmp"
	cp "$fulmard" "$tmp/fulmard" && chmod 755 "$tmp/fulmard"
	# Its own state directory: the one root made is not the nobody user's to read.
	mkdir -p "$tmp/nobody" && chown 65534:65534 "$tmp/nobody"
	sed "s|^state_dir = .*|state_dir = $tmp/nobody/state|" "$conf" >"$tmp/nobody.conf"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$tmp/fulmard" --config "$tmp/nobody.conf" >"$tmp/out3" 2>&1 &
	pid=$!
	wait_for "$tmp/out3" "running: six threads"
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	pid=
	check "[ $rc = 0 ]" "unprivileged run stops cleanly"
	check "[ \$(grep -c 'no permission for SCHED_FIFO' '$tmp/out3') = 1 ]" \
		"without permission it says so exactly once"
	check "grep -q 'running: six threads, normal scheduling' '$tmp/out3'" "and runs with normal scheduling"
	[ "$fails" = 0 ] || cat "$tmp/out3"
fi

echo "$pass passed, $fails failed"
[ "$fails" = 0 ] || exit 1
if [ -n "$skipped" ]; then
	echo "SKIP: $skipped"
	exit 77
fi
exit 0
