#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The emulated flight board's image, made once and cached: an armhf Debian 12
# minbase root file system with systemd on an ext4 SD-card image, Debian's
# armmp kernel and the Raspberry Pi 2 B device tree.
#
#   image.sh            prints the cache directory holding the image (and
#                       builds it first if it is not there)
#
# Nothing foreign is installed on the host. The kernel and busybox-static
# armhf packages are fetched with `apt-get download` and unpacked with
# dpkg-deb -x into the cache; debootstrap's first stage only downloads and
# unpacks. Its second stage (dpkg and the maintainer scripts, armhf programs
# exec'ing each other) runs on the host under qemu-user: binfmt_misc may not
# be mounted (it is not here) and registering qemu-arm in the host's own
# binfmt_misc would change the host, so the second stage runs in a user
# namespace of its own (root mapped to root for ids 0-65535, with its own
# mount, pid and network namespaces) that mounts a binfmt_misc instance of
# its own (Linux 6.7 and later give each user namespace one) and registers
# qemu-user-static's qemu-arm there with the F flag (the interpreter is
# opened at registration, so it need not be inside the chroot). A plain
# chroot then runs armhf programs; everything vanishes with the namespace.
# It used to run inside the emulated board itself (1520 s; now 300-480 s).
#
# Cache: ${BOARD_CACHE:-~/.cache/fulmar/board}/<key>, the key a hash of what
# the image depends on: this script (its comments aside), guest/board-setup
# and board-job.service (init and board-job come with every boot), the kernel
# package's version, busybox-static's, the package list and the method of the
# second stage. A new kernel upload, a change here or a new package list makes
# a new image; an unchanged key reuses it. The Debian
# mirror moves between builds, so two builds are the same package set, not
# the same bytes (debootstrap has no snapshot pinning; SOURCE_DATE_EPOCH is
# not honoured by it either).
#
# The cache holds: vmlinuz, rpi2.dtb (the mini-UART enabled for the console),
# mods/ (the SD-card and ext4 modules for the initramfs, in load order),
# busybox, rootfs.img (1 GiB, sparse: QEMU wants a power-of-two SD card),
# build.log and ready. debs/ beside the images keeps debootstrap's downloads.
#
# Environment: BOARD_CACHE, BOARD_MIRROR (default: the mirror apt uses, deps_mirror),
# BOARD_BUILD_TIMEOUT (wall-clock seconds for the second stage, default 3600).
#
# Exit: 0 and the directory on stdout; 77 with a reason when qemu, the
# packages or a user namespace with its own binfmt_misc cannot be had (see
# DEPS_BOARD in tools/deps.sh); 1 when the build failed (its log is kept next
# to it).
set -eEuo pipefail
on_err() { echo "board-image: error: line $1: $2 failed" >&2; exit 1; }
trap 'on_err $LINENO "$BASH_COMMAND"' ERR

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tools/deps.sh
. "$here/../../tools/deps.sh"
skip() { echo "SKIP: $*" >&2; exit 77; }
log() { echo "board-image: $*" >&2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }

# qemu-user-static's registration for armhf ELF files (magic, mask, flags).
binfmt_conf=/usr/lib/binfmt.d/qemu-arm.conf

for cmd in qemu-system-arm qemu-arm-static apt-get apt-cache dpkg-deb debootstrap mke2fs depmod \
	modprobe fdtput cpio gzip flock timeout unshare chroot mkfifo; do
	command -v "$cmd" >/dev/null || skip "no $cmd (see DEPS_BOARD in tools/deps.sh)"
done
[ -f "$binfmt_conf" ] || skip "no $binfmt_conf (qemu-user-static; see DEPS_BOARD in tools/deps.sh)"
[ "$(id -u)" = 0 ] || skip "debootstrap needs root (device nodes and ownership in the image)"

# What the daemon links (libgpiod, libiio, libsystemd), what the test looks
# at the service with (ps, getpcaps) and what fulmar-navio's .deb depends on
# (adduser: its postinst makes the fulmar user).
packages=systemd,systemd-sysv,udev,dbus,kmod,procps,libcap2-bin,libgpiod2,libiio0,adduser
mirror=${BOARD_MIRROR:-$(deps_mirror)}
suite=bookworm
size=1G
method="second stage: qemu-user-static, binfmt_misc in a user namespace"

kpkg=$(apt-cache depends linux-image-armmp:armhf 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-.*-armmp\)\(:armhf\)\?$/\1/p' | head -n1)
[ -n "$kpkg" ] || skip "apt knows no linux-image-armmp:armhf (dpkg --add-architecture armhf; apt-get update)"
kver=${kpkg#linux-image-}
kpkg_ver=$(apt-cache show --no-all-versions "$kpkg:armhf" | sed -n 's/^Version: //p' | head -n1)
bb_ver=$(apt-cache show --no-all-versions busybox-static:armhf | sed -n 's/^Version: //p' | head -n1)
[ -n "$kpkg_ver" ] && [ -n "$bb_ver" ] || skip "apt cannot show $kpkg or busybox-static for armhf"

key=$( (echo "$kpkg $kpkg_ver busybox-static $bb_ver $suite $packages $size $method"
	grep -v '^[[:space:]]*#' "$here/image.sh"; cat "$here"/guest/board-setup "$here"/guest/board-job.service) |
	sha256sum | cut -c1-16)
cache_root=${BOARD_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/fulmar/board}
dir=$cache_root/$key
mkdir -p "$cache_root"
exec {lock_fd}>"$cache_root/lock"
flock "$lock_fd"
if [ -f "$dir/ready" ]; then
	echo "$dir"
	exit 0
fi

# in_arm_ns DIR TIMEOUT CMD...: runs the host program CMD (chroot, sh) in a
# new user namespace, ids 0-65535 mapped to themselves (root stays root, and
# dpkg can chown to the image's system users), with mount, pid and network
# namespaces of its own and a binfmt_misc instance of its own mounted on DIR,
# where qemu-arm-static is registered for armhf ELF files. TIMEOUT seconds at
# most. The child waits on a fifo until the parent has written its id maps
# (unshare's own --map-users needs newuidmap and /etc/subuid).
in_arm_ns() {
	local bdir=$1 limit=$2 fifo=$1.go pid rc=0 i=0
	shift 2
	mkdir -p "$bdir"
	rm -f "$fifo"
	mkfifo "$fifo"
	# shellcheck disable=SC2016 # the inner shell's arguments
	unshare --user --mount --pid --net --fork --kill-child --propagation private \
		/bin/bash -c 'read -r _ <"$1" && mount -t binfmt_misc binfmt_misc "$2" &&
			cat "$3" >"$2/register" && shift 3 && exec timeout "$0" "$@"' \
		"$limit" "$fifo" "$bdir" "$binfmt_conf" "$@" &
	pid=$!
	while [ "$(readlink "/proc/$pid/ns/user" 2>/dev/null || true)" = "$(readlink /proc/self/ns/user)" ] &&
		[ $i -lt 200 ]; do
		i=$((i + 1))
		sleep 0.05
	done
	# shellcheck disable=SC2016 # sh -c's own argument
	if ! printf '0 0 65536\n' >"/proc/$pid/uid_map" || ! printf '0 0 65536\n' >"/proc/$pid/gid_map" ||
		! timeout 10 sh -c 'echo go >"$1"' sh "$fifo"; then
		ns_kill "$pid"
	fi
	# A kill of this script ends the namespace too.
	trap 'ns_kill "$pid"; exit 143' TERM INT
	wait "$pid" || rc=$?
	trap - TERM INT
	rm -f "$fifo"
	rmdir "$bdir" 2>/dev/null || true
	return $rc
}

# ns_kill PID: ends unshare PID and its namespace. unshare ignores TERM while
# it waits, and its --kill-child was seen not to end the namespace when
# unshare was killed (the second stage went on); SIGKILL to its child, the
# init of the new pid namespace, ends every process in it.
ns_kill() {
	# shellcheck disable=SC2046 # the list of children, one pid or none
	kill -KILL $(cat "/proc/$1/task/$1/children" 2>/dev/null) "$1" 2>/dev/null || true
}

# in_arm_host TIMEOUT CMD...: CMD as it is, where the host's own binfmt_misc
# already runs armhf programs through qemu-user (a Debian host with
# qemu-user-static and systemd-binfmt or binfmt-support registers it at
# install): nothing is registered here, the host's registration is used.
host_arm() {
	[ -r /proc/sys/fs/binfmt_misc/qemu-arm ] && [ "$(head -n1 /proc/sys/fs/binfmt_misc/qemu-arm)" = enabled ]
}
in_arm_host() {
	local limit=$1
	shift
	timeout "$limit" "$@"
}

t0=$(now)
tmp=$dir.tmp
rm -rf "$tmp"
mkdir -p "$tmp/dl"
# The host's registration if it has one; else a user namespace's own
# binfmt_misc (Linux 6.7 and later); else, nowhere to run armhf programs.
if host_arm; then
	arm=(in_arm_host)
	log "armhf programs through the host's binfmt_misc (qemu-arm registered)"
elif in_arm_ns "$tmp/binfmt" 30 true 2>"$tmp/ns.log"; then
	arm=(in_arm_ns "$tmp/binfmt")
else
	cat "$tmp/ns.log" >&2
	rm -rf "$tmp"
	skip "cannot make a user namespace with a binfmt_misc of its own (Linux 6.7 or later, user namespaces allowed, not in a chroot), nor is qemu-arm registered in the host's binfmt_misc"
fi
log "building the board image $key ($kpkg $kpkg_ver) in $dir"
if ! (cd "$tmp/dl" && apt-get -q -o APT::Sandbox::User=root download \
	"$kpkg:armhf" busybox-static:armhf) >"$tmp/download.log" 2>&1; then
	tail -n 5 "$tmp/download.log" >&2
	skip "cannot download $kpkg or busybox-static (offline?)"
fi
dpkg-deb -x "$tmp"/dl/linux-image-*.deb "$tmp/k"
dpkg-deb -x "$tmp"/dl/busybox-static_*.deb "$tmp/bb"
# The package has no modules.dep: its postinst would make it.
depmod -b "$tmp/k" "$kver"
cp "$tmp/k/boot/vmlinuz-$kver" "$tmp/vmlinuz"
cp "$tmp/bb/bin/busybox" "$tmp/busybox"
cp "$tmp/k/usr/lib/linux-image-$kver/bcm2836-rpi-2-b.dtb" "$tmp/rpi2.dtb"
# The first -serial is the PL011 (ttyAMA0), kept for the HIL link; the
# second, the mini-UART, is the console, and the Pi 2's tree disables it.
fdtput -t s "$tmp/rpi2.dtb" /soc/serial@7e215040 status okay
# The SD card: QEMU's raspi2b routes it to the sdhost controller once the
# kernel muxes GPIO 48-53 to it (the tree's mmc@7e202000, bcm2835.ko);
# sdhci-iproc is not needed. ext4 is a module too. bcm2835_wdt gives
# `reboot -f` the reset that ends qemu under -no-reboot.
mkdir -p "$tmp/mods"
i=0
for m in $(for n in bcm2835 ext4 bcm2835_wdt; do
	modprobe -d "$tmp/k" -S "$kver" --show-depends "$n"; done | awk '$1 == "insmod" { print $2 }'); do
	i=$((i + 1))
	cp "$m" "$tmp/mods/$(printf %02d "$i")-$(basename "$m")"
done
log "kernel and busybox: $(since "$t0") s"

log "debootstrap first stage ($suite armhf minbase: $packages)"
t1=$(now)
mkdir -p "$cache_root/debs"
if ! debootstrap --foreign --arch=armhf --variant=minbase --include="$packages" \
	--cache-dir="$cache_root/debs" "$suite" "$tmp/root" "$mirror" >"$tmp/debootstrap1.log" 2>&1; then
	tail -n 5 "$tmp/debootstrap1.log" >&2
	skip "debootstrap's first stage failed (offline?); see $tmp/debootstrap1.log"
fi
first=$(since "$t1")
log "first stage: $first s"
r=$tmp/root
cp -a "$tmp/k/lib/modules" "$r/lib/"
echo board >"$r/etc/hostname"
# The first stage copies the host's resolver configuration; the board has no
# network.
rm -f "$r/etc/resolv.conf"
printf '/dev/mmcblk0 / ext4 rw,noatime 0 1\n' >"$r/etc/fstab"
# No fsync for each file dpkg unpacks: a build cut short is redone anyway
# (board-setup removes this once it is done).
echo force-unsafe-io >"$r/etc/dpkg/dpkg.cfg.d/board-build-unsafe-io"
install -D -m 0644 "$here/guest/board-job.service" "$r/etc/systemd/system/board-job.service"
install -D -m 0755 "$here/guest/board-job" "$r/usr/local/sbin/board-job"
install -D -m 0755 "$here/guest/board-setup" "$r/usr/local/sbin/board-setup"

# container=lxc (for debootstrap only): its mount check mknods a test
# /dev/null in the target, which a user namespace may not; the image's /dev
# nodes were made by the first stage, on the host.
log "debootstrap second stage and board-setup under qemu-user"
t2=$(now)
# A registration without the F flag looks for the interpreter inside the
# chroot: it is there while the second stage runs.
install -m 0755 "$(command -v qemu-arm-static)" "$r/usr/bin/qemu-arm-static"
rc=0
# shellcheck disable=SC2016 # the inner shell's arguments
"${arm[@]}" "${BOARD_BUILD_TIMEOUT:-3600}" /bin/sh -c \
	'env container=lxc chroot "$1" /debootstrap/debootstrap --second-stage &&
	chroot "$1" /usr/local/sbin/board-setup' sh "$r" >"$tmp/second-stage.log" 2>&1 || rc=$?
# On the host's binfmt_misc debootstrap mounted the chroot's /proc and /sys
# on the host's own tree; a second stage cut short leaves them there.
for m in proc sys; do
	! mountpoint -q "$r/$m" || umount -l "$r/$m"
done
rm -f "$r/usr/bin/qemu-arm-static"
if [ $rc != 0 ]; then
	tail -n 20 "$tmp/second-stage.log" >&2
	[ ! -f "$r/debootstrap/debootstrap.log" ] || cp "$r/debootstrap/debootstrap.log" "$tmp/"
	log "the second stage failed; its log: $tmp/second-stage.log"
	exit 1
fi
second=$(since "$t2")
log "second stage: $second s"
truncate -s "$size" "$tmp/rootfs.img"
mke2fs -q -t ext4 -L board -E root_owner=0:0 -d "$r" "$tmp/rootfs.img"
rm -rf "$r" "$tmp/k" "$tmp/bb" "$tmp/dl"
log "image built in $(since "$t0") s"
echo "cold build $(since "$t0") s, debootstrap first stage $first s, second stage $second s" >"$tmp/build.log"
rm -rf "$dir"
mv "$tmp" "$dir"
touch "$dir/ready"
echo "$dir"
