#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/package/install.sh DEB: a board's fulmar package (tools/package)
# installed, upgraded and purged with dpkg in a Debian 12 chroot, as an
# administrator would, without systemd or udev running there (the maintainer
# scripts must cope, as deb-systemd-invoke does). Checks:
#   install: the fulmar system user and group, the files, the conffile, the
#            unit enabled (deb-systemd-helper's links);
#   board:   the packaged fulmard is the package's board's, its unit grants
#            the capabilities that fulmard says it needs, and its udev rules
#            give group fulmar (read and write) every device node that
#            fulmard --board-info lists and the PM QoS device it holds;
#   upgrade: the same payload at a higher version over it keeps a changed
#            conffile and what fulmard keeps in /var/lib/fulmar and
#            /var/log/fulmar (parameters, mission, signing key, logs);
#   remove:  the binaries gone, the conffile and the state kept;
#   purge:   /var/lib/fulmar, /var/log/fulmar, /etc/fulmar and the enablement gone;
#   then reinstalled (the same uid), and another board's package (virtual
#   fulmar) refused by dpkg -i and put in its place by apt.
# The chroot is this machine's architecture. A flight board's armhf package
# goes into it as a foreign architecture (dpkg --add-architecture armhf, the
# package's libraries as armhf ones, multiarch): dpkg checks its Depends
# against armhf packages and runs the same maintainer scripts (shell and
# deb-systemd-helper, architecture-independent) as on the board, and its
# fulmard runs under qemu-user against the chroot's armhf libraries. No
# binfmt_misc registration is needed (none is mounted on this machine); the
# board-in-the-loop test (tests/board) installs navio's on an armhf system
# under systemd. (tests/package/sysusers.sh checks the sysusers.d file that
# postinst uses where systemd is installed.)
# The chroot is a Debian 12 minbase with adduser, made once with debootstrap,
# plus the package's libraries (from the mirror with the chroot's apt), each
# cached as a tar (FULMAR_PKG_ROOTFS: another such tar); each run unpacks a
# fresh copy under /tmp and removes it. Needs root; nothing is mounted and
# nothing of this machine's system is touched.
set -euo pipefail
deb=${1:?usage: tests/package/install.sh DEB}
deb=$(realpath "$deb")
# shellcheck source=tools/deps.sh
. "$(dirname "$0")/../../tools/deps.sh"
[ "$(id -u)" = 0 ] || { echo "FAIL: the chroot needs root" >&2; exit 1; }

pkg=$(dpkg-deb -f "$deb" Package)
ver=$(dpkg-deb -f "$deb" Version)
arch=$(dpkg-deb -f "$deb" Architecture)
host=$(dpkg --print-architecture)
board=${pkg#fulmar-}
# A foreign package's programs: qemu-user for its CPU (qemu-arm for armhf).
qemu=
if [ "$arch" != "$host" ]; then
	qemu=qemu-$(dpkg-architecture -a"$arch" -qDEB_HOST_GNU_CPU 2>/dev/null) ||
		{ echo "FAIL: dpkg-architecture knows no $arch" >&2; exit 1; }
	command -v "$qemu" >/dev/null ||
		{ echo "FAIL: $deb is $arch and $qemu is not installed (qemu-user; DEPS_PACKAGE)" >&2; exit 1; }
fi

# The libraries the package depends on (not adduser; nor libc6 of this
# machine's architecture: minbase has it). A foreign package's are its
# architecture's, its C library with them.
libs=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/(.*//; s/|.*//; s/ //g' |
	grep -v -e '^adduser$' -e '^$' | sort -u)
if [ -n "$qemu" ]; then
	libs=$(printf 'libc6\n%s\n' "$libs" | grep -v '^$' | sort -u | sed "s/\$/:$arch/" | paste -sd, -)
else
	libs=$(grep -v '^libc6$' <<<"$libs" | paste -sd, -)
fi
key=${libs//,/+}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/fulmar/pkg-rootfs
base_tar=$cache/bookworm-$host-minbase.tar
rootfs_tar=${FULMAR_PKG_ROOTFS:-$cache/bookworm-$host-minbase${key:++${key//:/_}}.tar}
in_dir() {  # in_dir DIR COMMAND...: COMMAND in the chroot DIR, with a clean environment
	local dir=$1
	shift
	chroot "$dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
if [ ! -f "$rootfs_tar" ]; then
	mkdir -p "$cache"
	tmp=$(mktemp -d /tmp/fulmar-pkgroot.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
	if [ ! -f "$base_tar" ]; then
		command -v debootstrap >/dev/null || { echo "FAIL: debootstrap is not installed" >&2; exit 1; }
		echo "making the chroot (once): debootstrap bookworm minbase + adduser -> $base_tar"
		if ! debootstrap --variant=minbase --include=adduser bookworm "$tmp" \
			"$(deps_mirror)" >"$cache/debootstrap.log" 2>&1; then
			tail -n 20 "$cache/debootstrap.log"
			echo "FAIL: debootstrap (its log: $cache/debootstrap.log)" >&2; exit 1
		fi
		rm -rf "$tmp/var/cache/apt/archives/"*.deb
		tar --force-local -C "$tmp" -cf "$base_tar.part" . && mv "$base_tar.part" "$base_tar"
	else
		tar --force-local -C "$tmp" -xf "$base_tar"
	fi
	if [ -n "$libs" ]; then
		echo "adding the package's libraries (once): ${libs//,/ } -> $rootfs_tar"
		# The mirror debootstrap put in the chroot's sources.list; its
		# resolv.conf is this machine's.
		log=$cache/apt-${key//:/_}.log
		IFS=, read -ra lib_list <<<"$libs"
		if ! { if [ -n "$qemu" ]; then in_dir "$tmp" dpkg --add-architecture "$arch"; fi &&
			in_dir "$tmp" apt-get update -q &&
			in_dir "$tmp" apt-get install -y -q --no-install-recommends "${lib_list[@]}" &&
			in_dir "$tmp" apt-get clean; } >"$log" 2>&1; then
			tail -n 20 "$log"
			echo "FAIL: installing ${libs//,/ } in the chroot (its log: $log)" >&2; exit 1
		fi
		# Its package lists go (tens of MB in every unpacked copy): dpkg and
		# the test's apt-get install ./DEB need only what is installed.
		find "$tmp/var/lib/apt/lists" -maxdepth 1 -type f -name '*_*' -delete
		tar --force-local -C "$tmp" -cf "$rootfs_tar.part" . && mv "$rootfs_tar.part" "$rootfs_tar"
	fi
	rm -rf "$tmp"
	trap - EXIT
fi

root=$(mktemp -d /tmp/fulmar-pkgroot.XXXXXX)
trap 'rm -rf "$root"' EXIT
tar --force-local -C "$root" -xf "$rootfs_tar"
# No systemd or udev runs in the chroot: neither /run/systemd/system nor /run/udev.
if [ -e "$root/run/systemd/system" ] || [ -e "$root/run/udev" ]; then
	echo "FAIL: $rootfs_tar has /run/systemd/system or /run/udev" >&2
	exit 1
fi
in_root() { in_dir "$root" "$@"; }
# run_fulmard ARGS...: the installed fulmard, in the chroot; a foreign one
# under qemu-user, which finds its loader and libraries in the chroot (-L).
run_fulmard() {
	if [ -n "$qemu" ]; then
		env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 "$qemu" -L "$root" "$root/usr/sbin/fulmard" "$@"
	else
		in_root /usr/sbin/fulmard "$@"
	fi
}

fails=0
check() {  # check WHAT COMMAND...: COMMAND's status is the check's
	local what=$1
	shift
	if "$@"; then
		echo "ok: $what"
	else
		echo "FAIL: $what"
		fails=$((fails + 1))
	fi
}
dpkg_in() {  # dpkg_in ARGS...: dpkg in the chroot, its output shown on failure
	local out
	if ! out=$(in_root dpkg "$@" 2>&1); then
		echo "$out"
		echo "FAIL: dpkg $*"
		exit 1
	fi
}
# shellcheck disable=SC2016 # dpkg-query's ${field}, not the shell's
status() { in_root dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null | tr -d ' '; }

# The same payload at a higher version, for the upgrade.
ver2=$ver.1
work=$root/tmp/fulmar-pkg
mkdir -p "$work/v2"
cp "$deb" "$work/$pkg-1.deb"
dpkg-deb -R "$deb" "$work/v2"
sed -i "s/^Version: .*/Version: $ver2/" "$work/v2/DEBIAN/control"
dpkg-deb --root-owner-group -Zxz -b "$work/v2" "$work/$pkg-2.deb" >/dev/null
# And as another board's package: the same files under another name, with
# the same Provides, Conflicts and Replaces of the virtual fulmar.
sed -i "s/^Package: .*/Package: fulmar-other/; s/^Version: .*/Version: $ver/" "$work/v2/DEBIAN/control"
dpkg-deb --root-owner-group -Zxz -b "$work/v2" "$work/fulmar-other.deb" >/dev/null

echo "== install $pkg $ver"
dpkg_in -i "/tmp/fulmar-pkg/$pkg-1.deb"
check "installed" test "$(status)" = ii
user_ok() {  # a system uid, its own group, home the state directory, no login
	local name pw uid gid gecos home shell
	IFS=: read -r name pw uid gid gecos home shell < <(in_root getent passwd fulmar) || return 1
	echo "   $name:$pw:$uid:$gid:$gecos:$home:$shell"
	[ "$uid" -lt 1000 ] && [ "$home" = /var/lib/fulmar ] && [ "$shell" = /usr/sbin/nologin ] &&
		[ "$(in_root getent group fulmar | cut -d: -f3)" = "$gid" ]
}
check "user fulmar: a system user with its group, home /var/lib/fulmar, no login" user_ok
for f in /usr/sbin/fulmard /usr/bin/fulmar-log /etc/fulmar/fulmard.conf /lib/systemd/system/fulmard.service \
	/usr/lib/sysusers.d/fulmar.conf /usr/lib/udev/rules.d/60-fulmar.rules \
	"/usr/share/doc/$pkg/copyright" "/usr/share/doc/$pkg/changelog.gz"; do
	check "file $f" test -f "$root$f"
done
if [ -n "$qemu" ]; then
	check "fulmard runs ($qemu, the chroot's $arch libraries; --version)" run_fulmard --version
else
	check "fulmard runs in the chroot (--version)" run_fulmard --version
fi
# shellcheck disable=SC2016 # dpkg-query's ${field}, not the shell's
conffile_ok() { in_root dpkg-query -W -f='${Conffiles}\n' "$pkg" | grep -q '^ /etc/fulmar/fulmard.conf '; }
check "/etc/fulmar/fulmard.conf is a conffile" conffile_ok
check "the unit enabled (multi-user.target.wants)" \
	test -L "$root/etc/systemd/system/multi-user.target.wants/fulmard.service"
check "the unit runs as fulmar" grep -qx 'User=fulmar' "$root/lib/systemd/system/fulmard.service"

echo "== board $board: fulmard --board-info against the unit and 60-fulmar.rules"
info=$(run_fulmard --board-info 2>&1) || true
sed -n '1,2p' <<<"$info"
info_has() { grep -qxF "$1" <<<"$info"; }
check "fulmard is built for board $board" info_has "board: $board"
caps=$(sed -n 's/^capabilities: //p' <<<"$info")
unit=$root/lib/systemd/system/fulmard.service
check "fulmard --board-info names its capabilities ($caps)" test -n "$caps"
check "the unit grants them, no more (AmbientCapabilities=)" grep -qxF "AmbientCapabilities=$caps" "$unit"
check "and bounds itself to them (CapabilityBoundingSet=)" grep -qxF "CapabilityBoundingSet=$caps" "$unit"
rules=$root/usr/lib/udev/rules.d/60-fulmar.rules
# grants SUBSYSTEM NODE: a rule gives NODE of SUBSYSTEM (with NODE empty, any
# node of it) to group fulmar with read and write for the group. KERNEL
# matches as udev's does, a glob or globs joined by |.
grants() {
	local subsys=$1 node=$2 line s k g m a alts
	while IFS= read -r line; do
		case $line in '' | '#'*) continue ;; esac
		s=$(sed -n 's/.*SUBSYSTEM=="\([^"]*\)".*/\1/p' <<<"$line")
		k=$(sed -n 's/.*KERNEL=="\([^"]*\)".*/\1/p' <<<"$line")
		g=$(sed -n 's/.*GROUP:\{0,1\}="\([^"]*\)".*/\1/p' <<<"$line")
		m=$(sed -n 's/.*MODE:\{0,1\}="\([0-7]*\)".*/\1/p' <<<"$line")
		if [ "$s" != "$subsys" ] || [ "$g" != fulmar ] || [ -z "$m" ] || [ $((8#$m >> 3 & 6)) != 6 ]; then
			continue
		fi
		[ -z "$k" ] && return 0
		[ -n "$node" ] || continue
		IFS='|' read -ra alts <<<"$k"
		for a in "${alts[@]}"; do
			# shellcheck disable=SC2053 # a glob, as udev's KERNEL is
			[[ $node == $a ]] && return 0
		done
	done <"$rules"
	return 1
}
# The device nodes the board's table opens ("  NAME KIND WHERE... WHAT"), each
# with the subsystem udev puts it in; several devices may share one.
nodes=()
declare -A users=() required=()
devs=$(sed -n '/^devices:$/,/^[^ ]/{/^  /p}' <<<"$info")
check "fulmard --board-info lists the board's devices" test -n "$devs"
while IFS= read -r line; do
	read -r name kind where _ <<<"$line"
	case $kind in
	spi) n="spidev ${where##*/}" ;;
	i2c) n="i2c-dev ${where##*/}" ;;
	gpio) n="gpio ${where##*/}" ;;
	uart) [ "$where" = "(none)" ] && continue; n="tty ${where##*/}" ;;
	mmio) if [ "$where" = UIO ]; then n="uio "; else where=${where%%@*}; n="mem ${where##*/}"; fi ;;
	analog)
		if [ "$where" = IIO ]; then
			read -r _ _ _ where _ <<<"$line"
			echo "ok: $name: IIO $where: channel attributes in sysfs, readable by every user"
		else
			echo "ok: $name: $where: a kernel module's file in sysfs, readable by every user"
		fi
		continue ;;
	sysfs)
		# A kernel module's attribute files: no node for GROUP and MODE; the
		# files fulmard writes are given to the group by a RUN rule on the
		# directory's device (boards/navio2.rules), the others are read only.
		if grep -q "KERNEL==\"${where##*/}\".*RUN+=.*chgrp fulmar" "$rules"; then
			echo "ok: $name: $where: its attribute files to group fulmar by a RUN rule"
		else
			echo "ok: $name: $where: attribute files only read, readable by every user"
		fi
		continue ;;
	*) check "$name: a kind of device this test knows ($kind)" false; continue ;;
	esac
	[ -n "${users[$n]:-}" ] || nodes+=("$n")
	users[$n]="${users[$n]:+${users[$n]}, }$name"
	[[ $line == *'[optional]'* ]] || required[$n]=1
done <<<"$devs"
# fulmard holds PM QoS while it runs ([sched] cpu_dma_latency_us, 0 by default).
qos=$(sed -n 's|^PM QoS: .* held on /dev/\([^ ]*\) .*|\1|p' <<<"$info")
check "fulmard --board-info names its PM QoS device" test -n "$qos"
nodes+=("misc $qos") users["misc $qos"]="PM QoS" required["misc $qos"]=1
for n in "${nodes[@]}"; do
	read -r s node <<<"$n"
	what="/dev/${node:-$s*} ($s; ${users[$n]}) to group fulmar, read and write"
	if [ -z "${required[$n]:-}" ] && ! grants "$s" "$node"; then
		# Off until the configuration names it, and where it is varies.
		echo "note: not in 60-fulmar.rules: $what [optional: a rule of the administrator's]"
	else
		check "$what" grants "$s" "$node"
	fi
done

echo "== upgrade to $ver2, with state, logs and a changed conffile"
# What fulmard keeps ([daemon] state_dir, log_dir), here made as it would.
mkdir -p "$root/var/lib/fulmar" "$root/var/log/fulmar"
echo "params" >"$root/var/lib/fulmar/params.parm"
head -c 32 /dev/urandom >"$root/var/lib/fulmar/mavlink-signing.key"
echo "log" >"$root/var/log/fulmar/1.BIN"
in_root chown -R fulmar:fulmar /var/lib/fulmar /var/log/fulmar
echo "# the administrator's line" >>"$root/etc/fulmar/fulmard.conf"
uid1=$(in_root id -u fulmar)
dpkg_in --force-confold -i "/tmp/fulmar-pkg/$pkg-2.deb"
# shellcheck disable=SC2016 # dpkg-query's ${field}, not the shell's
check "upgraded to $ver2" test "$(in_root dpkg-query -W -f='${Version}' "$pkg")" = "$ver2"
check "parameters kept" grep -qx params "$root/var/lib/fulmar/params.parm"
check "signing key kept" test -s "$root/var/lib/fulmar/mavlink-signing.key"
check "log kept" grep -qx log "$root/var/log/fulmar/1.BIN"
check "the administrator's conffile change kept" grep -q "administrator's line" "$root/etc/fulmar/fulmard.conf"
check "user fulmar kept, same uid" test "$(in_root id -u fulmar)" = "$uid1"

echo "== remove"
dpkg_in -r "$pkg"
check "removed, config left (rc)" test "$(status)" = rc
check "fulmard gone" test ! -e "$root/usr/sbin/fulmard"
check "conffile and state kept" test -f "$root/etc/fulmar/fulmard.conf" -a -f "$root/var/lib/fulmar/params.parm"
check "the unit masked while only its conffile is left" \
	test "$(readlink "$root/etc/systemd/system/fulmard.service")" = /dev/null

echo "== purge"
dpkg_in -P "$pkg"
check "purged" test -z "$(status)"
for d in /var/lib/fulmar /var/log/fulmar /etc/fulmar /etc/systemd/system/multi-user.target.wants/fulmard.service \
	/etc/systemd/system/fulmard.service \
	/var/lib/systemd/deb-systemd-helper-enabled/fulmard.service.dsh-also \
	/var/lib/systemd/deb-systemd-helper-masked/fulmard.service; do
	check "$d gone" test ! -e "$root$d" -a ! -L "$root$d"
done

echo "== reinstall after purge (user kept by purge, reused)"
dpkg_in -i "/tmp/fulmar-pkg/$pkg-1.deb"
check "reinstalled, same uid" test "$(in_root id -u fulmar)" = "$uid1"

echo "== another board's package in its place (virtual fulmar)"
# dpkg alone refuses it (it removes a conflicting package only when it is
# replaced by name); apt removes the installed board's package for it.
check "dpkg -i refuses a second board's package" \
	bash -c "! chroot '$root' dpkg -i /tmp/fulmar-pkg/fulmar-other.deb >/dev/null 2>&1"
if ! out=$(in_root sh -c "cd /tmp/fulmar-pkg && apt-get install -y ./fulmar-other.deb" 2>&1); then
	echo "$out"
fi
# shellcheck disable=SC2016 # dpkg-query's ${field}, not the shell's
check "apt installs it in place of $pkg" \
	test "$(in_root dpkg-query -W -f='${db:Status-Abbrev}' fulmar-other | tr -d ' ')/$(status)" = ii/rc

if [ $fails -gt 0 ]; then
	echo "FAIL: $fails checks failed"
	exit 1
fi
echo "ok: $pkg installed, upgraded ($ver -> $ver2), removed, purged, reinstalled and replaced in a Debian chroot"
