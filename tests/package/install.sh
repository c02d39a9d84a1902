#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/package/install.sh DEB: a fulmar package (tools/package sim: this
# machine's architecture) installed, upgraded and purged with dpkg in a Debian
# 12 chroot, as an administrator would, without systemd or udev running there
# (the maintainer scripts must cope, as deb-systemd-invoke does). Checks:
#   install: the fulmar system user and group, the files, the conffile, the
#            unit enabled (deb-systemd-helper's links);
#   upgrade: the same payload at a higher version over it keeps a changed
#            conffile and what fulmard keeps in /var/lib/fulmar and
#            /var/log/fulmar (parameters, mission, signing key, logs);
#   remove:  the binaries gone, the conffile and the state kept;
#   purge:   /var/lib/fulmar, /var/log/fulmar, /etc/fulmar and the enablement gone;
#   then reinstalled (the same uid), and another board's package (virtual
#   fulmar) refused by dpkg -i and put in its place by apt.
# The chroot is a Debian 12 minbase with the package's libraries, made once
# with debootstrap and cached as a tar (FULMAR_PKG_ROOTFS: another such tar);
# each run unpacks a fresh copy under /tmp and removes it. Needs root; nothing
# is mounted and nothing of this machine's system is touched.
set -euo pipefail
deb=${1:?usage: tests/package/install.sh DEB}
deb=$(realpath "$deb")
# shellcheck source=tools/deps.sh
. "$(dirname "$0")/../../tools/deps.sh"
[ "$(id -u)" = 0 ] || { echo "FAIL: the chroot needs root" >&2; exit 1; }

pkg=$(dpkg-deb -f "$deb" Package)
ver=$(dpkg-deb -f "$deb" Version)
arch=$(dpkg-deb -f "$deb" Architecture)
[ "$arch" = "$(dpkg --print-architecture)" ] ||
	{ echo "FAIL: $deb is $arch; the chroot runs this machine's $(dpkg --print-architecture)" >&2; exit 1; }

# The libraries the package depends on (not adduser, libc6: minbase has them).
libs=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/(.*//; s/|.*//; s/ //g' |
	grep -v -e '^adduser$' -e '^libc6$' -e '^$' | sort -u | paste -sd, -)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/fulmar/pkg-rootfs
rootfs_tar=${FULMAR_PKG_ROOTFS:-$cache/bookworm-$arch-minbase+${libs//,/+}.tar}
if [ ! -f "$rootfs_tar" ]; then
	command -v debootstrap >/dev/null || { echo "FAIL: debootstrap is not installed" >&2; exit 1; }
	echo "making the chroot (once): debootstrap bookworm minbase + adduser,$libs -> $rootfs_tar"
	mkdir -p "$cache"
	tmp=$(mktemp -d /tmp/fulmar-debootstrap.XXXXXX)
	if ! debootstrap --variant=minbase --include="adduser,$libs" bookworm "$tmp" \
		"$(deps_mirror)" >"$cache/debootstrap.log" 2>&1; then
		tail -n 20 "$cache/debootstrap.log"; rm -rf "$tmp"
		echo "FAIL: debootstrap (its log: $cache/debootstrap.log)" >&2; exit 1
	fi
	rm -rf "$tmp/var/cache/apt/archives/"*.deb
	tar -C "$tmp" -cf "$rootfs_tar.part" . && mv "$rootfs_tar.part" "$rootfs_tar"
	rm -rf "$tmp"
fi

root=$(mktemp -d /tmp/fulmar-pkgroot.XXXXXX)
trap 'rm -rf "$root"' EXIT
tar -C "$root" -xf "$rootfs_tar"
# No systemd or udev runs in the chroot: neither /run/systemd/system nor /run/udev.
if [ -e "$root/run/systemd/system" ] || [ -e "$root/run/udev" ]; then
	echo "FAIL: $rootfs_tar has /run/systemd/system or /run/udev" >&2
	exit 1
fi
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 "$@"; }

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
check "fulmard runs in the chroot (--version)" in_root /usr/sbin/fulmard --version
# shellcheck disable=SC2016 # dpkg-query's ${field}, not the shell's
conffile_ok() { in_root dpkg-query -W -f='${Conffiles}\n' "$pkg" | grep -q '^ /etc/fulmar/fulmard.conf '; }
check "/etc/fulmar/fulmard.conf is a conffile" conffile_ok
check "the unit enabled (multi-user.target.wants)" \
	test -L "$root/etc/systemd/system/multi-user.target.wants/fulmard.service"
check "the unit runs as fulmar" grep -qx 'User=fulmar' "$root/lib/systemd/system/fulmard.service"

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

# On a systemd system postinst makes the user from the sysusers.d file (this
# chroot has no systemd-sysusers: adduser made it above). This machine's
# systemd-sysusers, confined to a fresh copy with --root, checks that file.
if command -v systemd-sysusers >/dev/null; then
	echo "== the sysusers.d file, by systemd-sysusers --root"
	rm -rf "$root" && mkdir -p "$root/x" && tar -C "$root" -xf "$rootfs_tar" && dpkg-deb -x "$deb" "$root/x"
	install -D -m 0644 "$root/x/usr/lib/sysusers.d/fulmar.conf" "$root/usr/lib/sysusers.d/fulmar.conf"
	sysusers_ok() {
		systemd-sysusers --root="$root" fulmar.conf && user_ok
	}
	check "systemd-sysusers fulmar.conf makes the same user" sysusers_ok
fi

if [ $fails -gt 0 ]; then
	echo "FAIL: $fails checks failed"
	exit 1
fi
echo "ok: $pkg installed, upgraded ($ver -> $ver2), removed, purged, reinstalled and replaced in a Debian chroot"
