#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/package/sysusers.sh DEB: the package's sysusers.d file, as a systemd
# system reads it. On such a system postinst makes the fulmar user with
# systemd-sysusers (install.sh's chroot has none: adduser makes it there, and
# install.sh checks that user). Here this machine's systemd-sysusers, confined
# with --root to a tree holding only the file and the users and groups every
# Debian system starts from (base-passwd's masters), must make the same user:
# a system uid with a group of its own, home /var/lib/fulmar, no login.
# Exit 0: ok; 1: failed; 77 with "SKIP: reason" where systemd-sysusers is not
# installed (systemd, in DEPS_PACKAGE of tools/deps.sh).
set -euo pipefail
deb=${1:?usage: tests/package/sysusers.sh DEB}
command -v systemd-sysusers >/dev/null ||
	{ echo "SKIP: systemd-sysusers is not installed (systemd; DEPS_PACKAGE in tools/deps.sh)"; exit 77; }

tmp=$(mktemp -d /tmp/fulmar-sysusers.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp/x"
conf=$(cd "$tmp/x" && find . -path '*/sysusers.d/fulmar.conf' | head -n 1)
[ -n "$conf" ] || { echo "FAIL: $deb has no sysusers.d/fulmar.conf"; exit 1; }
root=$tmp/root
install -D -m 0644 "$tmp/x/$conf" "$root/usr/lib/sysusers.d/fulmar.conf"
mkdir -p "$root/etc"
if [ -f /usr/share/base-passwd/passwd.master ]; then
	install -m 0644 /usr/share/base-passwd/passwd.master "$root/etc/passwd"
	install -m 0644 /usr/share/base-passwd/group.master "$root/etc/group"
fi
echo "systemd-sysusers $(systemd-sysusers --version | sed -n '1s/^systemd //p') --root=$root fulmar.conf"
systemd-sysusers --root="$root" fulmar.conf 2>&1 || { echo "FAIL: systemd-sysusers"; exit 1; }

IFS=: read -r name pw uid gid gecos home shell < <(grep '^fulmar:' "$root/etc/passwd") ||
	{ echo "FAIL: systemd-sysusers made no user fulmar"; exit 1; }
echo "   $name:$pw:$uid:$gid:$gecos:$home:$shell"
group_gid=$(awk -F: '$1 == "fulmar" { print $3 }' "$root/etc/group")
fails=0
ok() {  # ok WHAT CONDITION...
	local what=$1
	shift
	if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}
ok "a system uid ($uid)" test "$uid" -lt 1000
ok "its own group fulmar ($gid)" test "$group_gid" = "$gid"
ok "home /var/lib/fulmar" test "$home" = /var/lib/fulmar
ok "no login (/usr/sbin/nologin)" test "$shell" = /usr/sbin/nologin
[ $fails = 0 ] || { echo "FAIL: $fails checks failed"; exit 1; }
echo "ok: $(dpkg-deb -f "$deb" Package)'s sysusers.d file makes the fulmar user adduser makes"
