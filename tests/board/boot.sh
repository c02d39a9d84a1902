#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Boots the emulated flight board (qemu raspi2b) from the cached image.
#
#   boot.sh [--image DIR] [--job DIR] [--hil CHARDEV] [--timeout S] [--first-boot]
#
# --image DIR   the image directory (default: what image.sh prints; it builds
#               the image when it is not cached).
# --job DIR     files for the board: DIR/job is a sh script the board runs in
#               /var/lib/board-job (its copy of DIR) once systemd has reached
#               multi-user.target, with stdout and stderr on the console; the
#               board then resets. Without a job the board just boots (and
#               stays up until the timeout).
# --hil CHARDEV qemu chardev options for the PL011 (ttyAMA0), e.g.
#               socket,id=hil,host=127.0.0.1,port=5760,server=on,wait=off,nodelay=on
#               (default: not connected).
# --timeout S   wall-clock limit (default 900; 0: none).
# --first-boot  the image's first boot (image.sh): no -snapshot, so the
#               second stage lands in the image.
#
# The console (the mini-UART, ttyS1) goes to stdout. Every other boot runs
# with -snapshot: the cached image is never written.
#
# Exit: the job's exit status (from the board's "BOARD-RESULT rc=N" line),
# 0 for a boot without a job that reached the timeout, 124 when a job never
# reported, 77 for skips (image.sh), 99 for harness errors.
set -eEuo pipefail
on_err() { echo "board-boot: error: line $1: $2 failed" >&2; exit 99; }
trap 'on_err $LINENO "$BASH_COMMAND"' ERR

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
image= job= hil= timeout_s=900 first=0
while [ $# -gt 0 ]; do
	case $1 in
	--image) image=$2; shift 2 ;;
	--job) job=$(readlink -f "$2"); shift 2 ;;
	--hil) hil=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--first-boot) first=1; shift ;;
	*) echo "board-boot: unknown argument $1" >&2; exit 99 ;;
	esac
done
if [ -z "$image" ]; then
	rc=0
	image=$("$here/image.sh") || rc=$?
	[ $rc = 0 ] || exit $rc
fi
[ -f "$image/vmlinuz" ] || { echo "board-boot: no image in $image" >&2; exit 99; }
if [ -n "$job" ] && [ ! -f "$job/job" ]; then
	echo "board-boot: no $job/job" >&2
	exit 99
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/fulmar-board.XXXXXX")
trap 'rm -rf "$work"' EXIT
ird=$work/initramfs
mkdir -p "$ird"/{bin,dev,proc,sys,new,mod}
cp "$image/busybox" "$ird/bin/busybox"
cp "$image"/mods/*.ko "$ird/mod/"
cp "$here/guest/init" "$ird/init"
[ -z "$job" ] || cp -a "$job" "$ird/job"
# Given at every boot rather than baked into the image: the job runner, and
# e2scrub_reap masked (95 s of the first boot otherwise).
install -D -m 0755 "$here/guest/board-job" "$ird/overlay/usr/local/sbin/board-job"
mkdir -p "$ird/overlay/etc/systemd/system"
ln -s /dev/null "$ird/overlay/etc/systemd/system/e2scrub_reap.service"
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.gz"

# A test boot writes to a throw-away overlay (-snapshot) that qemu keeps in
# TMPDIR: in memory (/dev/shm) and without flushes to the host (cache=unsafe),
# so a host busy with I/O (stress-ng --io calls sync() all the time) cannot
# stall the emulated SD card past its driver's timeout. Seen: "sdhost-bcm2835:
# timeout waiting for hardware interrupt", then ext4 checksum errors and
# "Exec format error" for every program, with the overlay on the host's disk
# while tools/test ran beside it. The image's first boot writes the image
# itself, with flushes.
drive="if=sd,format=raw,file=$image/rootfs.img"
qemu_tmp=${TMPDIR:-/tmp}
if [ $first = 0 ]; then
	drive+=",cache=unsafe"
	[ -d /dev/shm ] && [ -w /dev/shm ] && qemu_tmp=/dev/shm
fi
args=(-M raspi2b -smp 4 -m 1G -nodefaults -no-user-config -display none -nic none -no-reboot
	-kernel "$image/vmlinuz" -dtb "$image/rpi2.dtb" -initrd "$work/initramfs.gz"
	-drive "$drive")
[ $first = 1 ] || args+=(-snapshot)
if [ -n "$hil" ]; then
	hil_id=$(sed -n 's/.*id=\([^,]*\).*/\1/p' <<<"$hil")
	args+=(-chardev "$hil" -serial "chardev:$hil_id")
else
	args+=(-serial null)
fi
# The console: the mini-UART, the second -serial.
args+=(-serial stdio)
# rodata=off: with it on (strict module RWX), every module's init sections
# are freed with VM_FLUSH_RESET_PERMS, and that free flushes the TLB over the
# whole span from the modules' area (0xbf000000) to the vmalloc area
# (0xf0000000), one broadcast TLBIMVAAIS per 4 kB page (200 000 of them:
# ARM32 has no flush-all threshold). Under TCG each broadcast is a
# synchronous stop of all four vCPUs, so each module udev or /init loads
# held a CPU for 20-80 s, the others spinning in stop_machine: "soft lockup -
# CPU#0 stuck for 52s! [migration/0]", 300 s to BOARD-UP idle (2026-12-05),
# and on a CI host that board never reached it in 55 min. Without it: 30 s
# to BOARD-UP, no stall. This is the emulator's command line, not the
# field's: a real board keeps its kernel's read-only protection.
args+=(-append "console=ttyS1,115200 panic=-1 rootwait quiet loglevel=4 systemd.show_status=0 printk.devkmsg=on rodata=off")
echo "board-boot: qemu-system-arm ${args[*]}" >&2

rc=0
# timeout passes a TERM on to qemu: so does this script (a test runner's
# kill must not leave a board running). The board stands for hardware of its
# own, which the host's load does not slow, and its models time out in the
# guest when starved: so qemu runs at nice -10 where it may (root, or
# CAP_SYS_NICE), ahead of the host's ordinary work, else at the priority it
# was given. At nice 10 beside tools/test and stress-ng (2026-12-05) qemu got
# 11 % of a CPU, the guest's SD host driver gave up after its 10 s ("timeout
# waiting for hardware interrupt"), and systemd read its programs back
# corrupt ("Exec format error"); at nice 0 beside them (load 9) the same
# timeout came 9 minutes into the boot and the driver's completion then
# oopsed (a NULL pointer in bcm2835_finish_data): the disk was gone.
prio=() level=$(nice)
if [ "$(nice -n -10 nice 2>/dev/null)" = "$(( level - 10 ))" ]; then
	prio=(nice -n -10)
	level=$(( level - 10 ))
fi
echo "board-boot: qemu at nice $level" >&2
# qemu writes the console to the file the verdict is read from, and tail
# shows it as it comes: a tee in between could still be lines behind when
# qemu exits, on a loaded host, and the verdict's line lost with them.
: >"$work/console"
TMPDIR=$qemu_tmp timeout "$timeout_s" "${prio[@]}" qemu-system-arm "${args[@]}" </dev/null \
	>"$work/console" &
qpid=$!
tail -n +1 -f --pid="$qpid" "$work/console" &
tpid=$!
trap 'kill "$qpid" 2>/dev/null; wait "$qpid"; exit 143' TERM INT
wait "$qpid" || rc=$?
trap - TERM INT
wait "$tpid" || true
result=$(sed -n 's/.*BOARD-RESULT rc=\([0-9]*\).*/\1/p' "$work/console" | tail -n1)
if [ -n "$result" ]; then
	exit "$result"
fi
if [ -n "$job" ] || [ $first = 1 ]; then
	echo "board-boot: the board never reported (qemu exit $rc)" >&2
	exit 124
fi
exit 0
