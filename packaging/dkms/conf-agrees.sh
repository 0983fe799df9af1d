#!/bin/bash
# Does the top-level dkms.conf agree with the tree it describes? VERSION is the
# one source of the version (debian/changelog's newest entry must say it too),
# and the patch series dirs
# (ext4-backport/patches/X.Y/series) of the supported kernels; dkms.conf must
# name the same: PACKAGE_VERSION, BUILD_EXCLUSIVE_KERNEL and the series list
# of its "no patch series" message. Prints one line per disagreement, with
# what to write, and exits 1 if there is any.
# Usage: packaging/dkms/conf-agrees.sh [TOP]   (default: this checkout)
set -euo pipefail
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
conf=$top/dkms.conf
bad=0
disagree() { echo "dkms.conf: $*" >&2; bad=1; }

version=$(tr -d ' \n' <"$top/VERSION")
# the source package's version: the first line of debian/changelog
cl=$(sed -n '1s/^ext4x (\([^)]*\)).*/\1/p' "$top/debian/changelog" 2>/dev/null)
[ "$cl" = "$version" ] ||
	disagree "debian/changelog's version is '$cl', VERSION says $version: add an entry (dch -v $version)"
have=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$conf")
[ "$have" = "$version" ] ||
	disagree "PACKAGE_VERSION=\"$have\", VERSION says $version: write PACKAGE_VERSION=\"$version\""

# shellcheck disable=SC2012 # X.Y dir names
series=$(cd "$top/ext4-backport/patches" && ls -d -- */series | sed 's,/series$,,' | sort -V)
[ -n "$series" ] || disagree "no ext4-backport/patches/X.Y/series in $top"
want_re="^($(echo "$series" | sed 's/\./\\./g' | paste -sd'|'))\\."
have_re=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$conf")
[ "$have_re" = "$want_re" ] ||
	disagree "BUILD_EXCLUSIVE_KERNEL=\"$have_re\", the series dirs say: BUILD_EXCLUSIVE_KERNEL=\"$want_re\""
want_list=$(echo "$series" | paste -sd, | sed 's/,/, /g')
have_list=$(sed -n 's/.*(have: \([^)]*\)).*/\1/p' "$conf")
[ "$have_list" = "$want_list" ] ||
	disagree "its message says \"(have: $have_list)\", the series dirs say \"(have: $want_list)\""
exit "$bad"
