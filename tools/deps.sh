# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by tools/demo, tools/test, tools/bench-timing and tools/campaign: installs the Debian
# packages a step needs when they are missing, saying what it installs.
#   deps_need PACKAGE...      (PACKAGE may be name:armhf)
#   deps_mirror               the Debian mirror to download from

deps_missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
	done
}

deps_need() {
	local missing
	missing=$(deps_missing "$@" | tr '\n' ' ')
	[ -z "${missing// /}" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "fulmar: missing Debian packages: $missing" >&2
		echo "fulmar: run as root, or: sudo apt-get install $missing" >&2
		exit 1
	fi
	if [[ "$missing" == *:armhf* ]] && ! dpkg --print-foreign-architectures | grep -qx armhf; then
		echo "fulmar: adding the armhf architecture for the cross builds"
		dpkg --add-architecture armhf
		DEPS_UPDATED=
	fi
	echo "fulmar: installing $missing"
	if [ -z "${DEPS_UPDATED:-}" ]; then
		# One broken index (a mirror caught mid-sync, as this machine's
		# bookworm-security armhf list once was) fails the whole update,
		# though every other list was fetched. The install below may
		# still find all it needs, so go on; if it cannot, it says so.
		local log
		log=$(mktemp)
		if ! apt-get update -qq >"$log" 2>&1; then
			echo "fulmar: apt-get update failed; installing from the package lists apt has:" >&2
			# the first five errors and warnings (grep -m: no pipe for
			# pipefail to trip on), else the log's last lines
			grep -m 5 -E '^(E|W):' "$log" >&2 || tail -n 5 "$log" >&2
		fi
		rm -f "$log"
		DEPS_UPDATED=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
		{ echo "fulmar: apt-get install $missing failed" >&2; exit 1; }
}

# The Debian mirror this machine's apt already uses, so a proxy or a local
# mirror set up for apt serves the downloads of tests and tools too
# (FULMAR_DEBIAN_MIRROR overrides it; deb.debian.org when apt names none).
deps_mirror() {
	local m=${FULMAR_DEBIAN_MIRROR:-}
	if [ -z "$m" ] && compgen -G '/etc/apt/sources.list.d/*.sources' >/dev/null; then
		m=$(awk '$1 == "URIs:" { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }' \
			/etc/apt/sources.list.d/*.sources)
	fi
	if [ -z "$m" ] && [ -f /etc/apt/sources.list ]; then
		m=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:.*\/debian\/?$/) { print $i; exit } }' \
			/etc/apt/sources.list)
	fi
	echo "${m:-http://deb.debian.org/debian}"
}

# What building fulmard and its unit tests takes.
DEPS_BUILD=(meson ninja-build pkg-config gcc libc6-dev python3 libgpiod-dev libiio-dev libsystemd-dev
	libcmocka-dev procps util-linux)
# The armhf cross builds and running their tests under qemu-arm.
DEPS_CROSS=(crossbuild-essential-armhf libgpiod-dev:armhf libiio-dev:armhf libcmocka-dev:armhf
	qemu-user)
# The MAVLink interoperability test's independent implementation (node-mavlink).
DEPS_INTEROP=(nodejs npm)
# libFuzzer (clang's runtime is only "recommended" by clang, so named here).
DEPS_FUZZ=(clang libclang-rt-14-dev)
# The load the real-time flight of the suite (hil_realtime_overload) flies under.
DEPS_LOAD=(stress-ng)
# The latency benchmark's peer and load.
DEPS_BENCH=(rt-tests "${DEPS_LOAD[@]}")
# The kernel-in-the-loop tests (tests/kernel/ktest.sh). The kernel image,
# headers, kbuild, linux-source and busybox-static are not installed: the
# runner fetches them with apt-get download into its cache, once per kernel
# ABI, and uses that busybox's depmod and cpio. libelf1 and libssl3 are what
# the unpacked linux-kbuild tools link against (objtool needs libelf).
DEPS_KERNEL=(qemu-system-x86 xz-utils make gcc-12 libelf1 libssl3)
# The board-in-the-loop test (tests/board): qemu's raspi2b, debootstrap for the
# armhf root file system with qemu-user-static's qemu-arm for its second stage
# (registered in a user namespace's own binfmt_misc, never the host's), mke2fs
# -d to make the SD card without a loop mount, depmod and modprobe
# --show-depends for the armmp kernel's modules, fdtput for its device tree,
# cpio for the initramfs and socat for a pty on the board's UART. The
# kernel and busybox-static:armhf are fetched with apt-get download into the
# cache, never installed (busybox-static:armhf would replace the host's).
DEPS_BOARD=(qemu-system-arm qemu-user-static debootstrap e2fsprogs kmod device-tree-compiler cpio socat gzip)
# Flight campaigns (tools/campaign): GNU parallel runs the flights, here or on a
# build farm's machines (--sshloginfile), rsync carries the kit there and back.
DEPS_CAMPAIGN=(parallel rsync python3)
# The Debian packages (tools/package), their lintian check and the Debian 12
# chroot they are installed into (tests/package): qemu-user runs an armhf
# package's fulmard there, systemd's systemd-sysusers checks its sysusers.d file.
DEPS_PACKAGE=(dpkg-dev lintian debootstrap qemu-user systemd)
