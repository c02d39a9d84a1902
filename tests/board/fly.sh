#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Board in the loop (issue 18): the armhf fulmard runs as a systemd service on
# an emulated Raspberry Pi 2 (qemu raspi2b, tests/board/image.sh's image) and
# flies the demo against fulmar-sim on the host over the board's UART.
#
#   fly.sh FULMARD_ARMHF FULMAR_SIM [OUTDIR]
#
# Wiring: the board's PL011 (ttyAMA0) is qemu's first -serial, a TCP server
# on 127.0.0.1 with nodelay; socat turns it into a pty for fulmar-sim
# --serial. The console (mini-UART) carries the board's report.
#
# On the board (the job below, run by board-job.service after
# multi-user.target): a `fulmar` system user, fulmard and its config under
# /usr/local/sbin and /etc/fulmar, a unit like systemd/fulmard.service.in
# (Type=notify, WatchdogSec) running fulmard as fulmar with --hil
# serial:/dev/ttyAMA0:BAUD --lockstep. It waits for the flight to end
# (fulmard's "simulator silent" once fulmar-sim has exited), checks the unit's
# state and user, stops fulmard with SIGSTOP and waits for systemd's watchdog
# to restart it, then prints fulmard's journal.
#
# On the host: the flight is scored from the simulator's truth with the
# demo's bounds (tools/flight_report.py --check demo).
#
# Environment: BOARD_IMU_HZ (physics rate, default 1000, the rate the demo's
# bounds were set at), BOARD_SENSOR_HZ (HIL_SENSOR rate, a divisor of it and a
# multiple of the frame rate, default BOARD_IMU_HZ: see README.md for why 1000
# is slow over the board's UART), BOARD_FRAME_HZ (lock-step frames a second, default 50), BOARD_DURATION
# (simulated seconds; set, the flight is cut short and not scored: a check
# of the link, the service and the watchdog), BOARD_TIMEOUT (wall-clock
# seconds for the whole run, default 14400).
#
# Exit: 0 pass, 1 fail, 77 skip (image.sh), 99 harness error.
set -eEuo pipefail
on_err() { echo "board-fly: error: line $1: $2 failed" >&2; exit 99; }
trap 'on_err $LINENO "$BASH_COMMAND"' ERR

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
[ $# -ge 2 ] || { echo "usage: fly.sh FULMARD_ARMHF FULMAR_SIM [OUTDIR]" >&2; exit 99; }
fulmard=$(readlink -f "$1")
sim=$(readlink -f "$2")
out=$(readlink -f "${3:-$top/board-out}")
imu_hz=${BOARD_IMU_HZ:-1000}
sensor_hz=${BOARD_SENSOR_HZ:-$imu_hz}
frame_hz=${BOARD_FRAME_HZ:-50}
duration=${BOARD_DURATION:-}
total_s=${BOARD_TIMEOUT:-14400}
baud=921600
file "$fulmard" | grep -q 'ARM' || { echo "board-fly: $fulmard is not an ARM program" >&2; exit 99; }
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
mission=missions/cmac-circuit.waypoints

# What the board gets.
j=$out/job
cp "$fulmard" "$j/fulmard"
cp "$top/$mission" "$j/mission.waypoints"
cp "$top/missions/cmac-circuit.param" "$j/params.param"
cat >"$j/fulmard.conf" <<EOF
# Written by tests/board/fly.sh.
[daemon]
state_dir = /var/lib/fulmar
log_dir = /var/log/fulmar
EOF
cat >"$j/fulmard.service" <<EOF
# tests/board's unit: as systemd/fulmard.service.in, plus the HIL link on the
# board's UART in lock-step, the demo's mission and parameters.
[Unit]
Description=fulmar autopilot (board navio, HIL over ttyAMA0)

[Service]
Type=notify
NotifyAccess=main
ExecStart=/usr/local/sbin/fulmard --config /etc/fulmar/fulmard.conf --hil serial:/dev/ttyAMA0:$baud --lockstep --load-mission /etc/fulmar/mission.waypoints --load-params /etc/fulmar/params.param
WatchdogSec=2s
Restart=on-failure
RestartSec=1s
RestartPreventExitStatus=64 66 69 78
TimeoutStopSec=5s
User=fulmar
SupplementaryGroups=dialout
LimitRTPRIO=99
LimitMEMLOCK=infinity
StateDirectory=fulmar
LogsDirectory=fulmar
CapabilityBoundingSet=CAP_SYS_NICE CAP_IPC_LOCK
AmbientCapabilities=CAP_SYS_NICE CAP_IPC_LOCK
NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
ProtectKernelModules=yes
ProtectControlGroups=yes
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK
LockPersonality=yes
MemoryDenyWriteExecute=yes
EOF
cat >"$j/job" <<'EOF'
# Runs on the board as root (board-job.service), in /var/lib/board-job.
set -u
fail=0
check() { if eval "$2"; then echo "BOARD-CHECK ok $1"; else echo "BOARD-CHECK FAIL $1"; fail=1; fi; }
install -m 0755 fulmard /usr/local/sbin/fulmard
mkdir -p /etc/fulmar
cp fulmard.conf mission.waypoints params.param /etc/fulmar/
id fulmar >/dev/null 2>&1 || useradd --system --home-dir /var/lib/fulmar --no-create-home \
	--shell /usr/sbin/nologin fulmar
cp fulmard.service /etc/systemd/system/fulmard.service
systemctl daemon-reload
t0=$(cut -d' ' -f1 /proc/uptime)
systemctl start fulmard.service
t1=$(cut -d' ' -f1 /proc/uptime)
echo "BOARD-READY start=$t0 ready=$t1"
check active '[ "$(systemctl is-active fulmard)" = active ]'
pid=$(systemctl show -p MainPID --value fulmard)
check user-fulmar '[ "$(ps -o user= -p "$pid")" = fulmar ]'
# CAP_IPC_LOCK (14) and CAP_SYS_NICE (23), nothing else: 0x804000.
grep -E '^Cap(Prm|Eff|Amb|Bnd)' /proc/$pid/status | sed 's/^/BOARD-CAPS /'
check caps-effective 'grep -q "^CapEff:[[:space:]]*0000000000804000$" /proc/$pid/status'
check caps-ambient 'grep -q "^CapAmb:[[:space:]]*0000000000804000$" /proc/$pid/status'
getpcaps "$pid" 2>&1 | sed 's/^/BOARD-CAPS /'
ps -L -o tid,cls,rtprio,comm -p "$pid" | sed 's/^/BOARD-THREADS /'
systemctl status --no-pager fulmard 2>&1 | head -n 12 | sed 's/^/BOARD-STATUS /'
# The flight: until the simulator has gone silent (it exits at the end).
n=0   # every 3 s, for four hours at most
while ! journalctl -u fulmard -o cat --no-pager | grep -q 'simulator silent'; do
	if [ "$(systemctl show -p NRestarts --value fulmard)" != 0 ]; then
		echo "BOARD-CHECK FAIL flight (fulmard stopped)"
		journalctl -u fulmard -o cat --no-pager | tail -n 40 | sed 's/^/FULMARD| /'
		exit 1
	fi
	n=$((n + 1))
	[ $n -lt 4800 ] || { echo "BOARD-CHECK FAIL flight-end (never silent)"; fail=1; break; }
	sleep 3
done
check still-active '[ "$(systemctl is-active fulmard)" = active ]'
check same-pid '[ "$(systemctl show -p MainPID --value fulmard)" = "$pid" ]'
# The watchdog: a stalled fulmard must be restarted by systemd.
restarts=$(systemctl show -p NRestarts --value fulmard)
kill -STOP "$pid"
n=0
while [ "$(systemctl show -p NRestarts --value fulmard)" = "$restarts" ] && [ $n -lt 60 ]; do
	n=$((n + 1))
	sleep 0.5
done
check watchdog-restart '[ "$(systemctl show -p NRestarts --value fulmard)" != "$restarts" ]'
journalctl -u fulmard -o cat --no-pager | grep -i 'watchdog' | sed 's/^/BOARD-WD /'
sleep 3
check restarted-active '[ "$(systemctl is-active fulmard)" = active ]'
systemctl stop fulmard
# The flight's fulmard log (first invocation), for the host's report.
journalctl -o cat --no-pager _SYSTEMD_UNIT=fulmard.service _PID="$pid" | sed 's/^/FULMARD| /'
exit $fail
EOF

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
t0=$(date +%s.%N)
"$here/boot.sh" --image "$image" --job "$j" --timeout "$total_s" \
	--hil "socket,id=hil,host=127.0.0.1,port=$port,server=on,wait=off,nodelay=on" \
	>"$out/console.log" 2>"$out/boot.log" &
bootpid=$!
pids+=("$bootpid")
socat "pty,link=$out/hil.pty,raw,echo=0" "tcp:127.0.0.1:$port,nodelay,retry=600,interval=0.2" \
	2>"$out/socat.log" &
pids+=($!)
n=0
while [ ! -e "$out/hil.pty" ]; do
	n=$((n + 1))
	[ $n -lt 600 ] || { echo "board-fly: socat made no pty" >&2; cat "$out/socat.log" >&2; exit 99; }
	sleep 0.2
done

simargs=(--serial "$out/hil.pty:$baud" --imu-hz "$imu_hz" --sensor-hz "$sensor_hz" --frame-hz "$frame_hz"
	--seed "$dseed" --wind "$dwind" --turbulence "$dturb" --rc-mode-pwm 1550
	--faults "$top/missions/cmac-circuit.timeline" --truth "$out/truth.csv" --status-hz 1
	--duration "${duration:-1200}" --timeout 60 --end-landed 2)
"$sim" "${simargs[@]}" >"$out/sim-status.txt" 2>"$out/sim.log" &
simpid=$!
pids+=("$simpid")
simrc=0
wait "$simpid" || simrc=$?
t1=$(date +%s.%N)
bootrc=0
wait "$bootpid" || bootrc=$?
t2=$(date +%s.%N)
sed -n 's/.*FULMARD| //p' "$out/console.log" >"$out/fulmard.log"
grep -E 'BOARD-|board-init' "$out/console.log" || true
grep -h "crashed\|gone\|simulated\|lock-step" "$out/sim.log" || true

status=0
[ "$simrc" = 0 ] || { echo "board-fly: fulmar-sim exited $simrc"; status=1; }
[ "$bootrc" = 0 ] || { echo "board-fly: the board's job failed ($bootrc)"; status=1; }
if [ -z "$duration" ]; then
	(cd "$top" && python3 tools/flight_report.py report --truth "$out/truth.csv" --mission "$mission" \
		--log "$out/fulmard.log" --svg "$out/flight.svg" --json "$out/flight.json" --check demo) ||
		status=1
else
	echo "board-fly: a ${duration} s flight (BOARD_DURATION): not scored"
fi
awk -v a="$t0" -v b="$t1" -v c="$t2" \
	'BEGIN { printf "board-fly: wall clock: sim done after %.0f s, board done after %.0f s\n", b - a, c - a }'
exit $status
