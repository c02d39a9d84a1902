#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Kernel-in-the-loop test runner: boots Debian's own amd64 kernel under qemu
# with a busybox initramfs that holds GUEST_SCRIPT and the test programs, and
# turns what the guest reports into meson's exit codes.
#
#   ktest.sh GUEST_SCRIPT [PROGRAM...]
#
# Exit: 0 pass, 1 fail (a test failed, or the guest hung or died while its
# tests ran), 77 skip (with a one-line reason: no qemu, no package lists,
# offline...), 99 harness error (including a guest that never reached its
# test script).
#
# Phase 1, once per kernel ABI, under an exclusive flock on the cache: resolve
# linux-image-amd64 to its ABI, `apt-get download` the image, its headers,
# kbuild, the matching linux-source and busybox-static into the cache (nothing
# is installed), unpack them, pre-decompress the kernel for a PVH boot, build
# the kernel test drivers Debian leaves out (gpio-sim, the IIO dummy: their
# source comes from linux-source, see modules/Kbuild.upstream) and keep only
# the modules the guests load. Our own modules (modules/*.c) are built per
# hash of their source. Phase 2, each run, under a shared flock: build an
# initramfs, boot it with a hard timeout.
#
# Guest time is virtual: under TCG, qemu runs with -icount, so the guest's
# clocks (TSC, HPET, PIT, timer interrupts) count the instructions it executes
# and jump ahead while it idles. A loaded host makes a run take longer but
# cannot stretch anything the guest times: the PPM test's pulse spacing, poll
# timeouts, the hang checks. With the host's clock instead, a loaded host put
# up to 120 ms between PPM edges the guest had paced 0.4 to 8 ms apart, which
# no decoder tolerance can turn back into frames (see README.md).
#
# Environment: KTEST=0 skips; KTEST_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/fulmar/kernel); KTEST_ACCEL=tcg|kvm (default
# tcg; kvm is faster but gives the guest the host's clock, so the timing checks
# follow host load again, and it needs kvm_intel/kvm_amd: a /dev/kvm from
# nested software virtualisation cannot run a stock kernel); KTEST_TIMEOUT
# (wall-clock seconds per boot, default 300); KTEST_KEEP=1 keeps the initramfs
# staging directory.
set -eEuo pipefail
# Anything that fails unexpectedly is the harness's fault, not the test's.
on_err() { echo "ktest: error: line $1: $2 failed" >&2; exit 99; }
trap 'on_err $LINENO "$BASH_COMMAND"' ERR

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "ktest: error: $*" >&2; exit 99; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

[ $# -ge 1 ] || die "usage: ktest.sh GUEST_SCRIPT [PROGRAM...]"
guest_script=$(readlink -f "$1")
shift
[ -f "$guest_script" ] || die "no guest script $guest_script"
programs=()
for p in "$@"; do
	[ -x "$p" ] || die "no test program $p"
	programs+=("$(readlink -f "$p")")
done

[ "${KTEST:-1}" != 0 ] || skip "KTEST=0"
[ "$(uname -m)" = x86_64 ] || skip "kernel tests boot an amd64 kernel; this host is $(uname -m)"
command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (apt-get install qemu-system-x86)"
for cmd in apt-get apt-cache dpkg-deb flock timeout xz make gcc-12 ldd; do
	command -v "$cmd" >/dev/null || skip "no $cmd (see DEPS_KERNEL in tools/deps.sh)"
done

cache_root=${KTEST_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/fulmar/kernel}
mkdir -p "$cache_root" || die "cannot create $cache_root"

# The ABI the archive's linux-image-amd64 points at now: superseded ABIs leave
# the mirror, so it is resolved every run (a local look-up) and cached by it.
abi=$(apt-cache depends linux-image-amd64 2>/dev/null |
	sed -n 's/^ *Depends: linux-image-\(.*\)-amd64$/\1/p' | head -n1)
[ -n "$abi" ] || skip "apt knows no linux-image-amd64 (run apt-get update)"
kver=$abi-amd64
series=${abi%%-*}
series=${series%.*}
# Bump when a change to prepare_abi must not reuse caches made before it.
cache_format=1
abi_dir=$cache_root/$abi-$( (echo "$cache_format"; cat "$here/modules/Kbuild.upstream") |
	sha256sum | cut -c1-8)
ours_hash=$(cat "$here"/modules/Kbuild "$here"/modules/*.c | sha256sum | cut -c1-16)
ours_dir=$abi_dir/ours-$ours_hash

exec {lock_fd}>"$cache_root/lock"

# unpack DEST DEB...: dpkg-deb -x each DEB into DEST.
unpack() {
	local dest=$1 deb
	shift
	mkdir -p "$dest"
	for deb in "$@"; do
		dpkg-deb -x "$deb" "$dest"
	done
}

prepare_abi() {
	local tmp=$abi_dir.tmp t0 img_ver pids=() pid
	t0=$(now)
	echo "ktest: preparing kernel $kver in $abi_dir (once per ABI)"
	rm -rf "$tmp"
	mkdir -p "$tmp/dl"
	img_ver=$(apt-cache show --no-all-versions "linux-image-$kver" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n1)
	[ -n "$img_ver" ] || skip "apt knows no linux-image-$kver (run apt-get update)"
	# linux-source of the image's own version: gpio-sim uses gpiolib internals
	# (struct gpio_device) that must match the running kernel exactly.
	if ! (cd "$tmp/dl" && apt-get -q -o APT::Sandbox::User=root download \
		"linux-image-$kver" "linux-headers-$kver" "linux-headers-$abi-common" \
		"linux-kbuild-$series" "linux-source-$series=$img_ver" busybox-static) \
		>"$tmp/download.log" 2>&1; then
		sed 's/^/  /' "$tmp/download.log" | tail -n 5 >&2
		skip "cannot download the kernel packages for $kver (offline, or run apt-get update)"
	fi

	# The three unpacks are independent; on 2 cores they overlap well.
	(
		set -e
		dpkg-deb --fsys-tarfile "$tmp"/dl/linux-image-"$kver"_*.deb |
			tar -x -C "$tmp" --wildcards './boot/*' './lib/modules/*'
	) &
	pids+=($!)
	(
		set -e
		unpack "$tmp/hdr" "$tmp"/dl/linux-headers-*.deb "$tmp"/dl/linux-kbuild-*.deb
		# Its top Makefile includes the -common tree by absolute /usr/src
		# path; make -C runs in the headers' directory, so make it relative.
		sed -i "s|^include /usr/src/|include ../|" \
			"$tmp/hdr/usr/src/linux-headers-$kver/Makefile"
		unpack "$tmp/bb" "$tmp"/dl/busybox-static_*.deb
	) &
	pids+=($!)
	(
		set -e
		local s=linux-source-$series
		dpkg-deb --fsys-tarfile "$tmp"/dl/linux-source-"$series"_*.deb |
			tar -xO "./usr/src/$s.tar.xz" | xz -dc |
			tar -x -C "$tmp" "$s/drivers/gpio/gpio-sim.c" "$s/drivers/gpio/gpiolib.h" \
				"$s/kernel/irq/irq_sim.c" "$s/drivers/iio/industrialio-configfs.c" \
				"$s/drivers/iio/industrialio-sw-device.c" \
				"$s/drivers/iio/dummy/iio_simple_dummy.c" \
				"$s/drivers/iio/dummy/iio_simple_dummy.h"
		mkdir -p "$tmp/upstream"
		cp "$tmp/$s/drivers/gpio/gpio-sim.c" "$tmp/upstream/gpio-sim-drv.c"
		cp "$tmp/$s/drivers/gpio/gpiolib.h" "$tmp/$s/kernel/irq/irq_sim.c" \
			"$tmp/$s/drivers/iio/industrialio-configfs.c" \
			"$tmp/$s/drivers/iio/industrialio-sw-device.c" \
			"$tmp/$s/drivers/iio/dummy/iio_simple_dummy.c" \
			"$tmp/$s/drivers/iio/dummy/iio_simple_dummy.h" "$tmp/upstream/"
		rm -rf "${tmp:?}/$s"
	) &
	pids+=($!)
	for pid in "${pids[@]}"; do
		wait "$pid" || die "unpacking the packages for $kver failed"
	done
	rm -rf "$tmp/dl"

	# linux-kbuild is unpacked, not installed, so its tools' libraries (libelf
	# for objtool) are not pulled in by apt: say which are missing.
	local missing
	missing=$( (find "$tmp/hdr/usr/lib/linux-kbuild-$series" -type f -perm -u+x \
		-exec ldd {} + 2>/dev/null || true) | awk '/not found/ { print $1 }' | sort -u | tr '\n' ' ')
	[ -z "$missing" ] || skip "linux-kbuild-$series needs ${missing% } (libelf1? see DEPS_KERNEL in tools/deps.sh)"

	# irq_to_desc() is not exported to modules in 6.1; generic_handle_irq_safe()
	# does the same from the irq_work that runs this loop.
	sed -i 's/handle_simple_irq(irq_to_desc(\([a-z_]*\)))/generic_handle_irq_safe(\1)/' \
		"$tmp/upstream/irq_sim.c"
	grep -q generic_handle_irq_safe "$tmp/upstream/irq_sim.c" ||
		die "irq_sim.c of $series no longer has the line ktest.sh patches"
	cp "$here/modules/Kbuild.upstream" "$tmp/upstream/Kbuild"
	make -C "$tmp/hdr/usr/src/linux-headers-$kver" M="$tmp/upstream" -j"$(nproc)" modules \
		>"$tmp/upstream/build.log" 2>&1 || {
		tail -n 30 "$tmp/upstream/build.log" >&2
		die "building gpio-sim and the IIO dummy against $kver failed"
	}

	# Keep the modules the guests load and what they depend on (modules.dep
	# from busybox's depmod lists dependencies transitively).
	local mods=$tmp/lib/modules/$kver bb=$tmp/bb/bin/busybox
	mkdir -p "$mods/extra"
	cp "$tmp"/upstream/*.ko "$mods/extra/"
	"$bb" depmod -b "$tmp" "$kver"
	local want='^(kernel/fs/configfs/configfs|kernel/drivers/i2c/i2c-dev|kernel/drivers/i2c/i2c-stub|kernel/drivers/iio/industrialio|extra/[^:]*)\.ko:'
	mkdir -p "$tmp/modules/lib/modules/$kver"
	grep -E "$want" "$mods/modules.dep" | tr -d ':' | tr ' ' '\n' | sort -u |
		while read -r ko; do
			[ -n "$ko" ] || continue
			mkdir -p "$tmp/modules/lib/modules/$kver/$(dirname "$ko")"
			cp "$mods/$ko" "$tmp/modules/lib/modules/$kver/$ko"
		done
	cp "$mods/modules.builtin" "$mods/modules.order" "$tmp/modules/lib/modules/$kver/"
	rm -rf "${tmp:?}/lib"

	# Booting the ELF vmlinux through PVH skips the xz decompression that the
	# bzImage does under emulation (about 3 s of every boot).
	local vmlinuz=$tmp/boot/vmlinuz-$kver off
	off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$vmlinuz" | head -n1 | cut -d: -f1 || true)
	# (xz stops after the stream: tail's SIGPIPE is expected, so no pipefail.)
	if grep -q '^CONFIG_PVH=y' "$tmp/boot/config-$kver" && [ -n "$off" ] &&
		(set +o pipefail; tail -c +$((off + 1)) "$vmlinuz" |
			xz -dc --single-stream >"$tmp/vmlinux" 2>/dev/null) &&
		[ "$(head -c 4 "$tmp/vmlinux" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
		echo vmlinux >"$tmp/boot-image"
	else
		rm -f "$tmp/vmlinux"
		mv "$vmlinuz" "$tmp/vmlinuz"
		echo vmlinuz >"$tmp/boot-image"
	fi
	cp "$tmp/boot/config-$kver" "$tmp/config"
	rm -rf "${tmp:?}/boot"
	echo "$img_ver" >"$tmp/version"

	# Older ABIs are gone from the mirror, and other keys are older revisions
	# of this file: nothing will use them again.
	find "$cache_root" -mindepth 1 -maxdepth 1 -type d ! -name "${tmp##*/}" -exec rm -rf {} +
	mv "$tmp" "$abi_dir"
	echo "ktest: kernel $kver ($img_ver) prepared in $(since "$t0") s"
}

prepare_ours() {
	local tmp=$ours_dir.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	cp "$here"/modules/Kbuild "$here"/modules/*.c "$tmp/"
	make -C "$abi_dir/hdr/usr/src/linux-headers-$kver" M="$tmp" -j"$(nproc)" modules \
		>"$tmp/build.log" 2>&1 || {
		cat "$tmp/build.log" >&2
		die "building tests/kernel/modules against $kver failed"
	}
	# Module builds from other revisions of modules/ go, except a day's worth
	# (other work trees may share the cache).
	find "$abi_dir" -mindepth 1 -maxdepth 1 -name 'ours-*' -mtime +0 -exec rm -rf {} +
	mv "$tmp" "$ours_dir"
}

ready() { [ -f "$abi_dir/version" ] && [ -d "$ours_dir" ]; }

flock -s "$lock_fd"
if ! ready; then
	flock -u "$lock_fd"
	flock -x "$lock_fd"
	[ -f "$abi_dir/version" ] || prepare_abi
	[ -d "$ours_dir" ] || prepare_ours
	# Runs share the cache; only a prepare changes it.
	flock -s "$lock_fd"
fi
ready || die "cache $abi_dir is not ready after preparing it"

# Phase 2: the initramfs.
t0=$(now)
stage=$(mktemp -d "${TMPDIR:-/tmp}/fulmar-ktest.XXXXXX")
cleanup() {
	if [ "${KTEST_KEEP:-0}" = 1 ]; then
		echo "ktest: kept $stage"
	else
		rm -rf "$stage"
	fi
}
trap cleanup EXIT

bb=$abi_dir/bb/bin/busybox
root=$stage/root
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,etc}
cp "$bb" "$root/bin/busybox"
"$bb" --list-full | while read -r applet; do
	[ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done
cp -a "$abi_dir/modules/lib" "$root/"
mkdir -p "$root/lib/modules/$kver/extra"
cp "$ours_dir"/*.ko "$root/lib/modules/$kver/extra/"
"$bb" depmod -b "$root" "$kver"
install -m 0755 "$here/guest/init" "$root/init"
install -m 0755 "$guest_script" "$root/test.sh"
for p in "${programs[@]}"; do
	install -m 0755 "$p" "$root/bin/"
	# What Debian only ships as shared libraries (libiio) comes along with
	# the loader; static programs have no closure.
	if ldd "$p" >/dev/null 2>&1; then
		ldd "$p" | awk '/=> \// { print $3 } /^\t\// { print $1 }' | while read -r lib; do
			mkdir -p "$root$(dirname "$lib")"
			[ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
		done
	fi
done
# Uncompressed: for the 48 MiB IIO initramfs, gzip -1 costs 0.6 s here and
# inflating it in the guest another 0.5 s; copying it in costs next to nothing.
(cd "$root" && find . | "$bb" cpio -o -H newc 2>/dev/null) >"$stage/initrd"
echo "ktest: initramfs $(($(stat -c %s "$stage/initrd") / 1024)) KiB built in $(since "$t0") s"

# Phase 3: the boot.
accel=${KTEST_ACCEL:-tcg}
# cryptomgr.notests: the crypto self-tests cost 0.3 s of CPU per boot under
# icount, and nothing here uses the kernel's crypto.
append="console=ttyS0 quiet panic=-1 i8042.noaux i8042.nokbd cryptomgr.notests"
accel_args=()
case $accel in
tcg)
	# shift=2: an instruction is 4 ns of guest time, near what TCG runs at
	# here, so guest time keeps roughly to wall time. Guest work that gets
	# between a timer and the edge it paces (a tick, its softirq: ~5000
	# instructions) then moves a PPM edge ~20 us; each step up doubles that,
	# and shift=1 costs about a quarter more CPU per boot.
	# sleep=off: an idle guest's clock jumps to its next timer, so sleeps
	# cost no wall time and a guest hung waiting is ended by its own
	# timeout at once.
	accel_args=(-icount shift=2,sleep=off)
	# Every x86 clock the guest has counts the same instructions, so the
	# clocksource watchdog has nothing to verify; without this, timers stay
	# at jiffy (4 ms) resolution until the TSC's refined calibration a
	# second after it registers, which a fast boot can outrun into the tests.
	append+=" tsc=reliable"
	;;
kvm) accel_args=(-cpu host) ;;
*) die "KTEST_ACCEL=$accel: tcg or kvm" ;;
esac
# Wall-clock, so generous: a test program hung waiting ends at its guest
# script's 60 s timeout at once (sleep=off), and one that spins reaches it
# after 15e9 instructions, a minute idle and a few loaded. This stops a qemu
# that wedges, or a guest that spins outside a test, on however slow a host.
boot_timeout=${KTEST_TIMEOUT:-300}
console=$stage/console.log
t0=$(now)
trap - ERR
set +e
# -M pc, not microvm: microvm's TSC calibration fails under CPU contention
# and the guest hangs. isa-debug-exit turns the guest's byte v into exit
# status (v << 1) | 1.
timeout -k 5 "$boot_timeout" qemu-system-x86_64 -accel "$accel" "${accel_args[@]}" \
	-M pc -smp 1 -m 512 -nodefaults -no-user-config -display none -serial stdio -no-reboot \
	-kernel "$abi_dir/$(cat "$abi_dir/boot-image")" -initrd "$stage/initrd" \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-append "$append" \
	</dev/null 2>&1 | tee "$console"
qemu_rc=${PIPESTATUS[0]}
set -e
trap 'on_err $LINENO "$BASH_COMMAND"' ERR
boot_s=$(since "$t0")
guest_rc=$(sed -n 's/^KTEST-RESULT rc=\([0-9]*\).*/\1/p' "$console" | tail -n1)

if ! grep -q '^KTEST-BEGIN' "$console"; then
	# qemu did not start, or the kernel did not boot: nothing of ours ran.
	die "the guest never reached its test script (qemu exit $qemu_rc, $accel, $boot_s s)"
fi
if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
	echo "ktest: FAIL: the guest did not finish within $boot_timeout s ($accel)"
	exit 1
fi
if [ -z "$guest_rc" ]; then
	echo "ktest: FAIL: the guest died during its tests (qemu exit $qemu_rc: a panic?)"
	exit 1
fi
if [ "$guest_rc" = 0 ] && [ "$qemu_rc" = 1 ]; then
	echo "ktest: PASS ($kver, $accel, boot and tests $boot_s s)"
	exit 0
fi
echo "ktest: FAIL: guest rc=$guest_rc, qemu exit $qemu_rc ($kver, $accel, $boot_s s)"
exit 1
