#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Board in the loop (issue 18): the navio package, installed with dpkg on an
# emulated Raspberry Pi 2 (qemu raspi2b, tests/board/image.sh's image), runs
# as a systemd service and flies the plane's demo, then the copter's, against
# fulmar-sim on the host over the board's UART, in one boot.
#
#   fly.sh FULMAR_NAVIO_DEB FULMAR_SIM [OUTDIR]
#
# Wiring: the board's PL011 (ttyAMA0) is qemu's first -serial, a TCP server
# on 127.0.0.1 with nodelay; socat turns it into a pty for fulmar-sim
# --serial. The console (mini-UART) carries the board's report.
#
# On the board (the job below, run by board-job.service after
# multi-user.target), as a user would set it up: a drop-in for the packaged
# unit (what `systemctl edit fulmard` writes) giving fulmard its HIL link, then
# `dpkg -i` of the package, whose postinst creates the fulmar user and enables
# and starts the unit. Then:
#   1. Real time (the six threads, as the board flies in the field), HIL on
#      ttyAMA0 with no simulator yet: READY, active as fulmar with the board's
#      capabilities and no others, six SCHED_FIFO threads at their
#      priorities, then SIGSTOP and systemd's watchdog restart.
#   2, 3. A flight for each vehicle (BOARD_VEHICLES, plane then copter), the
#      same code for each, in lock-step (time is the simulator's; fulmard runs
#      its tasks on one thread, docs/design.md). As a user switches the board:
#      [daemon] vehicle = V in /etc/fulmar/fulmard.conf, the drop-in switched
#      to V's mission and parameters, the unit restarted; then "BOARD-FLIGHT
#      go V" on the console, on which the host starts fulmar-sim with V's
#      world (tools/demo --vehicle V's: airframe, pilot's timeline). The board
#      waits for the flight's end on the simulator's clock (below), checks
#      that the same fulmard ran throughout (the watchdog petted: the unit's
#      2 s scaled to 30 s for the emulated board, the drop-in says why), stops
#      it (its timing report) and hands its journal to the host.
# On the host: each flight is scored from the simulator's truth, the plane's
# with the demo's bounds (BOARD_CHECK), the copter's with the copter demo's
# (BOARD_COPTER_CHECK; tools/flight_report.py --check).
#
# No part gives up on the wall clock while the run moves: the one limit is
# BOARD_STALL, wall-clock seconds in which neither the board's console nor a
# flight's simulator has moved on (a hang; running out is a failure, as the
# kernel tests' time-out is), and BOARD_TIMEOUT, a cap on the whole run, is
# off unless set. A host's load makes the run slower and changes nothing
# else (a fixed cap of 75 minutes failed boards under load that flew on
# steadily at 0.1-0.2x real time, 2026-12-07). fulmar-sim waits for
# the board (--wait, no --start-timeout; a frame without an answer is sent
# again each second), the board's waits have no limit of their own, and the
# flight's end is read from fulmard's virtual time, not from a silence's
# length: the simulator's last frame is at BOARD_DURATION (or its 1200 s
# cap), or the first frame 2 s (--end-landed) after the landing's disarm and
# one frame more (fulmar-sim notes the disarm at the step after the frame
# that carried it). qemu, socat and fulmar-sim run at nice -10 where they may
# (README.md, "The emulator's share of the CPU").
#
# Environment: BOARD_IMU_HZ (physics rate, default 1000, the demo's),
# BOARD_SENSOR_HZ (HIL_SENSOR rate, default 200: the emulated UART moves a few
# kB/s, README.md; no HIL_STATE_QUATERNION either, fulmard never uses it),
# BOARD_FRAME_HZ (lock-step frames a second, default 50), BOARD_DURATION
# (simulated seconds; set, each flight is cut short and not scored: a check of
# the link, the service and the watchdog), BOARD_STALL (wall-clock seconds
# with nothing moving, default 1800: a failure), BOARD_TIMEOUT (wall-clock
# seconds for the whole run, default 0: no cap; running out is a failure),
# BOARD_CHECK
# (tools/flight_report.py's bounds for the plane's flight, default demo),
# BOARD_COPTER_CHECK (the copter's, default copter_demo), BOARD_VEHICLES (what
# flies, in order, default "plane copter"; a flight that never began fails).
#
# Exit: 0 pass, 1 fail (BOARD_STALL or BOARD_TIMEOUT running out too), 77 skip (image.sh), 99
# harness error.
set -eEuo pipefail
on_err() { echo "board-fly: error: line $1: $2 failed" >&2; exit 99; }
trap 'on_err $LINENO "$BASH_COMMAND"' ERR

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
[ $# -ge 2 ] || { echo "usage: fly.sh FULMAR_NAVIO_DEB FULMAR_SIM [OUTDIR]" >&2; exit 99; }
deb=$(readlink -f "$1")
sim=$(readlink -f "$2")
out=$(readlink -f "${3:-$top/board-out}")
imu_hz=${BOARD_IMU_HZ:-1000}
sensor_hz=${BOARD_SENSOR_HZ:-200}
frame_hz=${BOARD_FRAME_HZ:-50}
duration=${BOARD_DURATION:-}
vehicles=${BOARD_VEHICLES:-plane copter}
total_s=${BOARD_TIMEOUT:-0}
stall_s=${BOARD_STALL:-1800}
baud=921600
case $(dpkg-deb -f "$deb" Package)_$(dpkg-deb -f "$deb" Architecture) in
fulmar-navio_armhf) ;;
*) echo "board-fly: $deb is not fulmar-navio for armhf" >&2; exit 99 ;;
esac
# vehicle V: what V flies and how it is scored (as tools/demo --vehicle V), into
# mission, params, timeline, vsim (fulmar-sim's options for its airframe), check
# and title.
vehicle() {
	case $1 in
	plane) mission=missions/cmac-circuit.waypoints params=missions/cmac-circuit.param
		timeline=missions/cmac-circuit.timeline vsim=(--rc-mode-pwm 1550)
		check=${BOARD_CHECK:-demo} title="fulmar on the board: the demonstration flight" ;;
	copter) mission=missions/copter-square.waypoints params=missions/copter-square.param
		timeline=missions/copter-square.timeline vsim=(--airframe quad)
		check=${BOARD_COPTER_CHECK:-copter_demo}
		title="fulmar on the board: the copter's demonstration flight" ;;
	*) echo "board-fly: BOARD_VEHICLES: plane or copter, not '$1'" >&2; exit 99 ;;
	esac
}
for v in $vehicles; do vehicle "$v"; done
[ -n "${vehicles// /}" ] || { echo "board-fly: BOARD_VEHICLES is empty" >&2; exit 99; }
command -v socat >/dev/null || { echo "SKIP: no socat (see DEPS_BOARD in tools/deps.sh)"; exit 77; }

rc=0
image=$("$here/image.sh") || rc=$?
[ $rc = 0 ] || exit $rc

rm -rf "$out"
mkdir -p "$out/job"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

read -r dseed dwind dturb < <(cd "$top" && python3 tools/flight_report.py demo-world)

# What the board gets.
j=$out/job
cp "$deb" "$j/"
dropin() {  # dropin EXTRA-OPTIONS: the ExecStart of the packaged unit, and more
	cat <<EOF
# Written by tests/board/fly.sh, as \`systemctl edit fulmard\` would: the
# packaged unit with the HIL link on the board's UART. The watchdog's 2 s is
# scaled for the emulated board, as the suite scales meson's timeouts for the
# sanitizers and qemu-arm: its CPUs run 15-20 times slower than a Pi 2's, and
# a host busy with other work stalls all of them, systemd with them, for
# seconds at a time (a lock-step fulmard was killed by the 2 s watchdog at
# load average 8, with nothing wrong but the host's load).
[Service]
ExecStart=
ExecStart=/usr/sbin/fulmard --config /etc/fulmar/fulmard.conf --hil serial:/dev/ttyAMA0:$baud $*
WatchdogSec=30s
EOF
}
dropin >"$j/realtime.conf"
for v in $vehicles; do
	vehicle "$v"
	cp "$top/$mission" "$j/$v.waypoints"
	cp "$top/$params" "$j/$v.param"
	dropin --lockstep --load-mission "/etc/fulmar/board-test/$v.waypoints" \
		--load-params "/etc/fulmar/board-test/$v.param" >"$j/lockstep-$v.conf"
done
{
	echo "VEHICLES='$vehicles'"
	echo "END_S=${duration:-1200}"
	awk -v f="$frame_hz" 'BEGIN { printf "FRAME_S=%.6f\n", 1 / f }'
} >"$j/flight.env"
cat >"$j/job" <<'EOF'
# Runs on the board as root (board-job.service), in /var/lib/board-job.
set -u
. ./flight.env
fail=0
check() { if eval "$2"; then echo "BOARD-CHECK ok $1"; else echo "BOARD-CHECK FAIL $1"; fail=1; fi; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
prop() { systemctl show -p "$1" --value fulmard; }
# check_service PID: the unit's user and capabilities. CAP_IPC_LOCK (14) and
# CAP_SYS_NICE (23), nothing else: 0x804000.
check_service() {
	spid=$1
	check "active" '[ "$(systemctl is-active fulmard)" = active ]'
	check "user-fulmar" '[ "$(ps -o user= -p "$spid")" = fulmar ]'
	grep -E '^Cap(Prm|Eff|Amb|Bnd)' "/proc/$spid/status" | sed 's/^/BOARD-CAPS /'
	for c in Eff Amb Bnd; do
		check "caps-$c" 'grep -q "^Cap$c:[[:space:]]*0000000000804000\$" /proc/$spid/status'
	done
}

mkdir -p /etc/systemd/system/fulmard.service.d /etc/fulmar/board-test
cp realtime.conf /etc/systemd/system/fulmard.service.d/board-test.conf
for v in $VEHICLES; do cp "$v.waypoints" "$v.param" /etc/fulmar/board-test/; done
t0=$(uptime_s)
dpkg -i ./fulmar-navio_*.deb 2>&1 | sed 's/^/BOARD-DPKG /'
t1=$(uptime_s)
echo "BOARD-INSTALLED start=$t0 end=$t1 (uptime, s)"
check "dpkg-installed" '[ "$(dpkg-query -W -f="\${Status}" fulmar-navio)" = "install ok installed" ]'
check "user" 'id fulmar'
check "enabled" '[ "$(systemctl is-enabled fulmard)" = enabled ]'
# postinst started it; with Type=notify, started means READY=1 was sent.
check "ready" '[ "$(prop ExecMainStartTimestampMonotonic)" != 0 ] && [ "$(systemctl is-active fulmard)" = active ]'
echo "BOARD-READY uptime=$(awk '{ printf "%.1f", $1 - 0 }' /proc/uptime) active-since-monotonic-us=$(prop ActiveEnterTimestampMonotonic)"

echo "BOARD-PART 1: real time, six threads, the watchdog"
pid=$(prop MainPID)
check_service "$pid"
ps -L -o tid=,cls=,rtprio=,comm= -p "$pid" | sed 's/^/BOARD-THREADS /'
for t in timer:40 main:39 rcin:38 uart:37 tone:36 io:35; do
	check "thread-${t%:*}-fifo-${t#*:}" \
		'ps -L -o cls=,rtprio=,comm= -p "$pid" | grep -Eq "^ *FF +${t#*:} +${t%:*}\$"'
done
check "six-fifo-threads" '[ "$(ps -L -o cls= -p "$pid" | grep -c FF)" = 6 ]'
journalctl -u fulmard -o cat --no-pager | grep -E 'running:|PM QoS|memory' | sed 's/^/BOARD-LOG /'
systemctl status --no-pager fulmard 2>&1 | head -n 12 | sed 's/^/BOARD-STATUS /'
# Not a check: the emulated CPU is 15-20 times slower than a Pi 2's (more on
# a busy host), so fulmard's threads in real time can starve the slowest one
# there (its watchdog then restarts it, as it should). The watchdog's petting
# is checked in part 2, over the whole flight.
restarts=$(prop NRestarts)
echo "BOARD-RESTARTS before the stall: $restarts"
pid=$(prop MainPID)
kill -STOP "$pid"
# No limit here (nor below): a busy host slows the board, and BOARD_TIMEOUT on
# the host is the one limit of the run.
n=0
while [ "$(prop NRestarts)" = "$restarts" ]; do
	n=$((n + 1))
	[ $((n % 120)) != 0 ] || echo "BOARD-WAIT the watchdog's restart, $((n / 2)) s"
	sleep 0.5
done
check "watchdog-restart" '[ "$(prop NRestarts)" != "$restarts" ] && [ "$(prop MainPID)" != "$pid" ]'
journalctl -u fulmard -o cat --no-pager | grep -i 'watchdog' | sed 's/^/BOARD-WD /'
n=0
while [ "$(systemctl is-active fulmard)" != active ]; do
	n=$((n + 1))
	[ $((n % 120)) != 0 ] || echo "BOARD-WAIT active again, $((n / 2)) s"
	sleep 0.5
done
check "restarted-active" '[ "$(systemctl is-active fulmard)" = active ]'

# fly V: one flight in lock-step over ttyAMA0, the same for each vehicle. As
# its user switches a board: [daemon] vehicle = V in the packaged
# /etc/fulmar/fulmard.conf (fulmard keeps each vehicle's parameters apart,
# fulmard.conf(5)), V's drop-in (its mission and parameters loaded), the unit
# restarted.
fly() {
	v=$1
	echo "BOARD-PART $part: the $v's flight, lock-step over ttyAMA0"
	part=$((part + 1))
	sed -i "s/^#\{0,1\} *vehicle = .*/vehicle = $v/" /etc/fulmar/fulmard.conf
	check "$v-configured" 'grep -qx "vehicle = $v" /etc/fulmar/fulmard.conf'
	cp "lockstep-$v.conf" /etc/systemd/system/fulmard.service.d/board-test.conf
	systemctl daemon-reload
	systemctl reset-failed fulmard   # the last part's restarts must not count against this start
	systemctl restart fulmard
	pid=$(prop MainPID)
	restarts=$(prop NRestarts)
	check_service "$pid"
	echo "BOARD-FLIGHT go $v"
	n=0
	while ! flight_over; do
		if [ "$(prop MainPID)" != "$pid" ]; then
			echo "BOARD-CHECK FAIL $v-flight (fulmard stopped)"
			journalctl -u fulmard -o cat --no-pager | tail -n 40 | sed "s/^/FULMARD-$v| /"
			exit 1
		fi
		n=$((n + 1))
		[ $((n % 100)) != 0 ] || journalctl -o cat --no-pager _PID="$pid" | grep 'simulator silent' |
			tail -n 1 | sed "s/^/BOARD-WAIT the $v's flight; its last stall: /"
		sleep 3
	done
	check "$v-flight-same-fulmard" '[ "$(prop MainPID)" = "$pid" ] && [ "$(prop NRestarts)" = "$restarts" ]'
	systemctl stop fulmard
	check "$v-stopped-cleanly" '[ "$(prop Result)" = success ]'
	# The flight's fulmard log, with its timing report, for the host.
	journalctl -o cat --no-pager _PID="$pid" | sed "s/^/FULMARD-$v| /"
}
# The flight's end, on the simulator's clock: fulmard, silent, says where its
# time stands still ("simulator silent for N s; time stands still at T s",
# after 1 s and every 10 s after). A frame or an answer lost on the UART stalls
# lock-step until fulmar-sim sends the frame again (1 s later), and a busy host
# stalls it longer, at any T before the end; the end is where the simulator
# stops: T at END_S (BOARD_DURATION, or fulmar-sim's 1200 s cap), or, after the
# landing's disarm at D ("D s: disarmed", having armed), T at D + 2 s
# (--end-landed) + one frame, with 10 s of silence too, so that only a stall
# of 10 s in the last frame could pass for the end. No limit on the wait:
# BOARD_TIMEOUT on the host is the run's.
flight_over() {
	journalctl -o cat --no-pager _PID="$pid" | awk -v end_s="$END_S" -v frame_s="$FRAME_S" '
		/^flight: [0-9.]+ s: armed$/ { armed = 1 }
		/^flight: [0-9.]+ s: disarmed$/ { if (armed) d = $2 + 0 }
		/simulator silent for [0-9]+ s; time stands still at [0-9.]+ s$/ {
			n = $6 + 0; t = $(NF - 1) + 0
			if (t >= end_s - 0.0005 || (d != "" && n >= 10 && t >= d + 2 + frame_s - 0.0005))
				over = 1
		}
		END { exit !over }'
}
part=2
for v in $VEHICLES; do fly "$v"; done
exit $fail
EOF

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# The board's loop, qemu (boot.sh), socat and fulmar-sim, at nice -10 where it
# may (root, or CAP_SYS_NICE), ahead of the host's ordinary work, as boot.sh
# puts qemu (README.md, "The emulator's share of the CPU").
prio=()
[ "$(nice -n -10 nice 2>/dev/null)" != "$(( $(nice) - 10 ))" ] || prio=(nice -n -10)
t0=$(date +%s.%N)
"$here/boot.sh" --image "$image" --job "$j" --timeout "$total_s" \
	--hil "socket,id=hil,host=127.0.0.1,port=$port,server=on,wait=off,nodelay=on" \
	>"$out/console.log" 2>"$out/boot.log" &
bootpid=$!
pids+=("$bootpid")
# The stall guard: the board's console and the flights' simulator status
# (a line each simulated second) are the run's pulse. The boot's quiet
# stretches are the longest seen without either: minutes, not half an hour.
(
	last= since=$(date +%s)
	while kill -0 "$bootpid" 2>/dev/null; do
		now=$(date +%s)
		pulse=$(stat -c '%n %s' "$out/console.log" "$out"/*/sim-status.txt 2>/dev/null || true)
		if [ "$pulse" != "$last" ]; then
			last=$pulse since=$now
		elif [ $((now - since)) -ge "$stall_s" ]; then
			echo "$stall_s" >"$out/stalled"
			kill "$bootpid" 2>/dev/null || true
			break
		fi
		sleep 10
	done
) &
pids+=($!)
"${prio[@]}" socat "pty,link=$out/hil.pty,raw,echo=0" "tcp:127.0.0.1:$port,nodelay,forever,interval=0.2" \
	2>"$out/socat.log" &
pids+=($!)
# Each flight's simulator starts when the board says so ("BOARD-FLIGHT go V"),
# not before: in part 1 fulmard runs in real time on the same UART and must
# hear nothing. One loop for every vehicle: wait for the board's word, fly V's
# world, then whichever ends first. The simulator: the flight is over (the
# board then reports and goes on to the next), or failed (the verdict is in:
# the board is stopped). The board: its job ended, or BOARD_TIMEOUT ran out,
# with the flight still going. socat's pty outlives each simulator.
declare -A simrc t_go t_end
flown=() bootrc=0 board_first=0 sim_failed=0 last_v=
for v in $vehicles; do
	until grep -q "BOARD-FLIGHT go $v" "$out/console.log"; do
		kill -0 "$bootpid" 2>/dev/null || break
		sleep 1
	done
	grep -q "BOARD-FLIGHT go $v" "$out/console.log" || break
	t_go[$v]=$(date +%s.%N)
	[ -e "$out/hil.pty" ] || { echo "board-fly: socat made no pty" >&2; cat "$out/socat.log" >&2; exit 99; }
	vehicle "$v"
	mkdir -p "$out/$v"
	# --wait and no --start-timeout: lock-step has no wall-clock deadline, and
	# the simulator gives none (a frame unanswered for 1 s is sent again).
	simargs=(--serial "$out/hil.pty:$baud" --imu-hz "$imu_hz" --sensor-hz "$sensor_hz"
		--frame-hz "$frame_hz" --state-hz 0 --seed "$dseed" --wind "$dwind" --turbulence "$dturb"
		"${vsim[@]}" --faults "$top/$timeline" --truth "$out/$v/truth.csv"
		--status-hz 1 --duration "${duration:-1200}" --wait --end-landed 2)
	"${prio[@]}" "$sim" "${simargs[@]}" >"$out/$v/sim-status.txt" 2>"$out/$v/sim.log" &
	simpid=$!
	pids+=("$simpid")
	flown+=("$v") last_v=$v
	done_pid='' rc=0
	wait -n -p done_pid "$simpid" "$bootpid" || rc=$?
	t_end[$v]=$(date +%s.%N)
	if [ "$done_pid" = "$simpid" ]; then
		simrc[$v]=$rc
		[ "$rc" = 0 ] || { sim_failed=1; kill "$bootpid" 2>/dev/null || true; break; }
	else
		bootrc=$rc board_first=1 simrc[$v]=0
		kill "$simpid" 2>/dev/null || true
		wait "$simpid" || simrc[$v]=$?
		break
	fi
done
[ "$board_first" = 1 ] || wait "$bootpid" || bootrc=$?
t3=$(date +%s.%N)
grep -E 'BOARD-|board-init' "$out/console.log" | sed 's/^.*\] //' || true
for v in "${flown[@]}"; do
	sed -n "s/.*FULMARD-$v| //p" "$out/console.log" >"$out/$v/fulmard.log"
	grep -h "crashed\|gone\|simulated\|lock-step" "$out/$v/sim.log" | sed "s/^/$v: /" || true
	sed -n '/timing report/,$p' "$out/$v/fulmard.log" | grep -E 'timing report|main|flight|load' |
		sed "s/^/board-fly: $v: /" || true
done

# BOARD_TIMEOUT running out is a failure like any other end before the
# verdict: say how far the flight got.
if [ "$board_first" = 1 ]; then
	last=$(sed -n 's/^t=\([0-9.]*\) .*/\1/p' "$out/$last_v/sim-status.txt" | tail -n1)
	if [ -e "$out/stalled" ]; then
		echo "board-fly: BOARD_STALL: nothing moved for ${stall_s} s, on the board's console" \
			"or the simulator's clock; the $last_v's flight was at ${last:-0} s of simulated time"
	elif [ "$bootrc" = 124 ] && grep -q 'qemu exit 124' "$out/boot.log"; then
		echo "board-fly: BOARD_TIMEOUT (${total_s} s) ran out with the $last_v's flight at" \
			"${last:-0} s of simulated time"
	else
		echo "board-fly: the board stopped (status $bootrc) with the $last_v's flight at" \
			"${last:-0} s of simulated time"
	fi
fi

status=0
if [ "${#flown[@]}" != "$(wc -w <<<"$vehicles")" ] && [ "$board_first" = 0 ] &&
	[ "$sim_failed" = 0 ]; then
	# the board never said "BOARD-FLIGHT go V": its console says where it stopped
	awk -v a="$t0" -v d="$t3" -v rc="$bootrc" -v n="${#flown[@]}" 'BEGIN {
		printf "board-fly: %s flight%s flown, the next never began: the board stopped (qemu %s) after %.0f s\n",
			n == 0 ? "no" : n, n == 1 ? "" : "s", rc, d - a }'
	echo "board-fly: where it stopped, the console's last lines (all of it in $out/console.log):"
	# (not a harness error when the console is empty or missing: || true)
	{ tr -d '\r' <"$out/console.log" | grep -av '^\[ *[0-9.]*\] *\(Exception stack\|[0-9a-f]\{4\}:\)' |
		tail -n 25 | sed 's/^/board-console| /'; } 2>/dev/null || true
	status=1
fi
[ "${#flown[@]}" != 0 ] || exit 1
[ "$board_first" = 0 ] || status=1
[ "$bootrc" = 0 ] || { echo "board-fly: the board's job failed ($bootrc)"; status=1; }
for v in "${flown[@]}"; do
	[ "${simrc[$v]}" = 0 ] || { echo "board-fly: $v: fulmar-sim: ${simrc[$v]}"; status=1; }
	if [ -n "$duration" ]; then
		echo "board-fly: $v: a ${duration} s flight (BOARD_DURATION): not scored"
		continue
	fi
	vehicle "$v"
	echo "board-fly: $v: scored with $check's bounds"
	(cd "$top" && python3 tools/flight_report.py report --truth "$out/$v/truth.csv" --mission "$mission" \
		--vehicle "$v" --title "$title" --log "$out/$v/fulmard.log" --svg "$out/$v/flight.svg" \
		--json "$out/$v/flight.json" --check "$check") | sed "s/^/$v: /" || status=1
done
for v in "${flown[@]}"; do
	awk -v a="$t0" -v b="${t_go[$v]}" -v c="${t_end[$v]}" -v v="$v" 'BEGIN {
		printf "board-fly: wall clock: the %s\047s flight began after %.0f s, flown in %.0f s\n",
			v, b - a, c - b }'
done
awk -v a="$t0" -v d="$t3" 'BEGIN { printf "board-fly: wall clock: board done after %.0f s\n", d - a }'
exit $status
