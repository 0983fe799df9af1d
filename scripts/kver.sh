#!/bin/sh
# The Debian 12 kernel releases the suite targets.
# Usage: kver.sh                the release linux-headers-amd64 depends on
#                               (e.g. 6.1.0-57-amd64): installed if it is,
#                               else from the archive
#        kver.sh --supported    one release per patch series
#                               (ext4-backport/patches/X.Y/series), oldest
#                               series first
#        kver.sh --series X.Y   the release for series X.Y
# The release for a series is the default one when it is of that series,
# else the newest linux-headers-X.Y.*-amd64 of Debian 12 in the archive
# (apt-cache; e.g. 6.12.117+deb12-amd64 from bookworm-security), else the
# newest one installed. Prints nothing for a series with none of these.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

default_kver() {
	deps=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null) ||
		deps=$(apt-cache show --no-all-versions linux-headers-amd64 2>/dev/null |
		       sed -n 's/^Depends: //p' | head -n 1)
	printf '%s\n' "$deps" | tr ',' '\n' |
		sed -n 's/^ *linux-headers-\([0-9][^ ]*\).*/\1/p' | head -n 1
}

# newest_of X.Y: the newest generic amd64 release of series X.Y (not -rt,
# not -cloud), from the archive's package names, else the installed ones.
newest_of() {
	re="^linux-headers-$(printf '%s' "$1" | sed 's/\./\\./g')[.-][0-9][0-9a-z.+~-]*-amd64\$"
	{
		apt-cache pkgnames "linux-headers-$1" 2>/dev/null
		dpkg-query -W -f='${Package}\n' "linux-headers-$1*" 2>/dev/null || true
	} | grep -E "$re" | grep -vE -- '-(rt|cloud)-amd64$' |
		sed 's/^linux-headers-//' | sort -uV | tail -n 1
}

for_series() {
	d=$(default_kver)
	case $d in
	"$1".*|"$1"-*) printf '%s\n' "$d" ;;
	*) newest_of "$1" ;;
	esac
}

case ${1:-} in
'') default_kver ;;
--series)
	[ $# -eq 2 ] || { echo "usage: kver.sh --series X.Y" >&2; exit 2; }
	for_series "$2" ;;
--supported)
	for s in "$top"/ext4-backport/patches/*/series; do
		[ -f "$s" ] || continue
		s=${s%/series}
		printf '%s\n' "${s##*/}"
	done | sort -V | while read -r xy; do
		for_series "$xy"
	done ;;
*) echo "usage: kver.sh [--supported | --series X.Y]" >&2; exit 2 ;;
esac
