#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Boots the emulated board and measures round trips over its UART (the
# PL011, ttyAMA0, qemu's first -serial as a TCP server on 127.0.0.1): the
# board echoes what it reads; the host sends 100-byte messages and times each
# whole answer. Prints the boot figures (systemd-analyze) and the round-trip
# percentiles.
#
#   latency.sh [COUNT] [on|off]   (exchanges, default 500; qemu's nodelay)
#
# Exit: 0 when the board booted to multi-user.target and every exchange came
# back, 1 otherwise, 77 skip (image.sh), 99 harness error.
set -eEuo pipefail
on_err() { echo "board-latency: error: line $1: $2 failed" >&2; exit 99; }
trap 'on_err $LINENO "$BASH_COMMAND"' ERR

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
count=${1:-500}
nodelay=${2:-on}
rc=0
image=$("$here/image.sh") || rc=$?
[ $rc = 0 ] || exit $rc

work=$(mktemp -d "${TMPDIR:-/tmp}/fulmar-board-lat.XXXXXX")
bootpid=
cleanup() { [ -z "$bootpid" ] || kill "$bootpid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/job"
# The board echoes the exchanges' bytes (head -c writes each read as it
# comes) and then ends the job.
echo $((100 * (count + 20))) >"$work/job/bytes"
cat >"$work/job/job" <<'EOF'
stty -F /dev/ttyAMA0 raw -echo -ixon -ixoff 921600
echo "BOARD-ECHO ready"
timeout 600 head -c "$(cat bytes)" </dev/ttyAMA0 >/dev/ttyAMA0
echo "BOARD-ECHO done rc=$?"
EOF
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
t0=$(date +%s.%N)
"$here/boot.sh" --image "$image" --job "$work/job" --timeout 900 \
	--hil "socket,id=hil,host=127.0.0.1,port=$port,server=on,wait=off,nodelay=$nodelay" \
	>"$work/console" 2>"$work/boot.log" &
bootpid=$!
while ! grep -q 'BOARD-ECHO ready' "$work/console"; do
	kill -0 "$bootpid" 2>/dev/null || { cat "$work/boot.log" "$work/console" >&2; exit 1; }
	sleep 0.2
done
awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "board: the job ran %.1f s after qemu started\n", b - a }'
grep -E 'BOARD-UP|BOARD-BOOT|switch_root' "$work/console"
python3 - "$port" "$count" <<'EOF'
import socket, sys, time
port, count = int(sys.argv[1]), int(sys.argv[2])
s = socket.create_connection(('127.0.0.1', port))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
s.settimeout(5)
msg = b'x' * 99 + b'\n'
def exchange():
    t = time.monotonic()
    s.sendall(msg)
    got = b''
    while len(got) < len(msg):
        got += s.recv(4096)
    return time.monotonic() - t
for _ in range(20):   # the echo's first lines, a cold tty
    exchange()
rtt = sorted(exchange() for _ in range(count))
pct = lambda p: rtt[min(len(rtt) - 1, int(p / 100 * len(rtt)))] * 1e3
print(f"board: {count} round trips of 100 bytes over ttyAMA0: p50 {pct(50):.2f} ms, "
      f"p90 {pct(90):.2f} ms, p99 {pct(99):.2f} ms, max {rtt[-1] * 1e3:.2f} ms, "
      f"{count / sum(rtt):.0f} exchanges/s")
EOF
wait "$bootpid" || rc=$?
exit $rc
