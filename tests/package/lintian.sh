#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/package/lintian.sh DEB...: lintian on fulmar's packages. Every error
# and warning must be a tag of tests/package/lintian-accepted (which says why
# each is accepted), on any package (TAG) or on one (PACKAGE:TAG); any other
# fails, printing lintian's whole output.
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || { echo "usage: tests/package/lintian.sh DEB..." >&2; exit 64; }
command -v lintian >/dev/null || { echo "FAIL: lintian is not installed (DEPS_PACKAGE)" >&2; exit 1; }

accepted=$(sed -n 's/^\([a-z0-9][a-z0-9.+:-]*\)[[:space:]].*/\1/p' "$here/lintian-accepted")
# lintian warns that it runs as root; that line is not a tag.
log=$(lintian --no-cfg --fail-on none --display-level '>=warning' "$@" 2>&1)
rc=$?
log=$(grep -v 'running with root privileges' <<<"$log")
bad=0
while IFS= read -r line; do
	case $line in
	E:*|W:*) ;;
	*) continue ;;
	esac
	# "W: PACKAGE: TAG [details]"
	pkg=$(echo "$line" | awk '{print $2}')
	tag=$(echo "$line" | awk '{print $3}')
	if ! grep -qxF -e "$tag" -e "$pkg$tag" <<<"$accepted"; then
		echo "not accepted: $line"
		bad=$((bad + 1))
	fi
done <<<"$log"
# With --fail-on none, a non-zero exit is lintian itself failing.
if [ $bad -gt 0 ] || [ "$rc" != 0 ]; then
	echo "FAIL: lintian (exit $rc), $bad tags not in tests/package/lintian-accepted; its output:"
	echo "$log"
	exit 1
fi
echo "ok: $(lintian --version): $(grep -c '^[EW]:' <<<"$log") errors and warnings, all of accepted" \
	"tags: $(grep -o '^[EW]: [^ ]* [a-z0-9.+-]*' <<<"$log" | awk '{print $3}' | sort -u | paste -sd' ' -)"
