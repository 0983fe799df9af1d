#!/bin/bash
# The Debian 12 kernel releases the suite targets, chosen as apt would give
# them to a Debian 12 user.
# Usage: kver.sh                the release linux-headers-amd64 depends on
#                               (e.g. 6.1.0-57-amd64): installed if it is,
#                               else from the archive
#        kver.sh --supported    the default release of each patch series
#                               (ext4-backport/patches/X.Y/series), oldest
#                               series first: what make check boots
#        kver.sh --series X.Y   the default release of series X.Y
#        kver.sh --newer        the usable releases newer than each series'
#                               default (make check-long boots them too)
#        kver.sh --long         --supported, then --newer
#
# The default release of series X.Y is the one its image metapackage
# depends on: linux-image-amd64 for the series that one points at, else
# linux-image-X.Y-amd64 (bookworm-security's 6.12). A release R is usable
# only when one Debian version V has all three of
#   linux-headers-R           in the archive, or installed,
#   linux-image-R             in the archive (the guest boots it; the
#                             -unsigned image when the signed one is not
#                             there yet),
#   linux-source-X.Y          in the archive, or installed,
# because the modules are built from exactly the source of the headers and
# booted on exactly that image. When the default is not usable, the newest
# usable release not newer than it is chosen instead, and one line on
# stderr names the release skipped and what it lacks. A series with no
# usable release gets one line on stderr and exit status 1 (the other
# series are still printed).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

note() { printf 'kver.sh: %s\n' "$*" >&2; }

# What apt and dpkg know of the packages asked about so far, one line per
# version: "a PKG V" in the archive, "i PKG V" installed. Each apt-cache
# call reads every package list (~1 s here), so query() asks once for many
# packages; it must run in this shell, not in a $(...), to keep its answers.
table=
declare -A asked=()
query() {
	local p new=()
	for p; do
		[ -n "${asked[$p]:-}" ] || { asked[$p]=1; new+=("$p"); }
	done
	[ ${#new[@]} -gt 0 ] || return 0
	table+=$(apt-cache madison "${new[@]}" 2>/dev/null |
		awk -F'|' '{ gsub(/ /, ""); if (NF >= 2) print "a", $1, $2 }')$'\n'
	table+=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev} ${Version}\n' "${new[@]}" 2>/dev/null |
		awk '$2 == "ii" { print "i", $1, $3 }')$'\n'
}

# has PKG V [installed]: PKG (asked with query) is in the archive at
# version V, or, with "installed", installed at V.
has() {
	grep -qxF -- "a $1 $2" <<<"$table" && return 0
	[ "${3:-}" = installed ] && grep -qxF -- "i $1 $2" <<<"$table"
}

# series_of R: X.Y of release R (6.1.0-57-amd64 -> 6.1).
series_of() {
	printf '%s\n' "$1" | sed -n 's/^\([0-9][0-9]*\.[0-9][0-9]*\)[.-].*/\1/p'
}

# query_releases R...: query() at once the packages releases R... need.
query_releases() {
	local r p=()
	for r; do
		p+=("linux-headers-$r" "linux-image-$r" "linux-image-$r-unsigned"
			"linux-source-$(series_of "$r")")
	done
	query "${p[@]}"
}

# lacking R V: sets $lacks to why release R at Debian version V is not
# usable, empty when it is (its packages asked with query first).
lacking() {
	local r=$1 v=$2 xy l=()
	xy=$(series_of "$r")
	has "linux-headers-$r" "$v" installed || l+=("linux-headers-$r")
	has "linux-image-$r" "$v" || has "linux-image-$r-unsigned" "$v" ||
		l+=("linux-image-$r (signed or -unsigned)")
	has "linux-source-$xy" "$v" installed || l+=("linux-source-$xy")
	lacks=
	[ ${#l[@]} -eq 0 ] || lacks="no $(printf '%s, ' "${l[@]}" | sed 's/, $//') at $v"
}

# The "Depends:" of the candidate of each metapackage, "PKG DEPENDS" a
# line; else of the installed one. One apt-cache call for all series.
metas=
meta_depends() {
	if [ -z "$metas" ]; then
		metas=$(apt-cache show --no-all-versions "$@" 2>/dev/null |
			awk '/^Package: / { p = $2 } /^Depends: / { sub(/^Depends: /, ""); print p, $0 }')
		metas+=$'\n'$(dpkg-query -W -f='${Package} ${Depends}\n' "$@" 2>/dev/null || true)
	fi
}

# default_of X.Y: "R V META" of the series' image metapackage META (its
# "linux-image-R (= V)"), empty if there is none.
default_of() {
	local m d
	for m in linux-image-amd64 "linux-image-$1-amd64"; do
		d=$(awk -v m="$m" '$1 == m { sub(/^[^ ]* /, ""); print; exit }' <<<"$metas" |
			tr ',' '\n' |
			sed -n 's/^ *linux-image-\([0-9][^ ]*\) *(= *\([^ )]*\)).*/\1 \2/p' | head -n 1)
		[ "$(series_of "${d%% *}")" != "$1" ] || { printf '%s %s\n' "$d" "$m"; return; }
	done
}

# releases_of X.Y: sets $rels to every generic amd64 release of the
# series (not -rt, not -cloud) that has headers, "R V" a line for each
# Debian version of them, newest version first.
releases_of() {
	local re names p
	re="^linux-headers-$(printf '%s' "$1" | sed 's/\./\\./g')[.-][0-9][0-9a-z.+~-]*-amd64\$"
	names=$({
		apt-cache pkgnames "linux-headers-$1" 2>/dev/null || true
		dpkg-query -W -f='${Package}\n' "linux-headers-$1*" 2>/dev/null || true
	} | grep -E "$re" | grep -vE -- '-(rt|cloud)-amd64$' | sort -u)
	# shellcheck disable=SC2086 # package names, one word each
	query_releases ${names//linux-headers-/}
	rels=$(for p in $names; do
		awk -v p="$p" '($1 == "a" || $1 == "i") && $2 == p { print $3, substr(p, 15) }' <<<"$table"
	done | sort -u | sort -rV | awk '{ print $2, $1 }')
}

# choose X.Y [newer]: print the release of the series (see the header);
# with "newer", every usable release newer than the default instead.
choose() {
	local xy=$1 def dr='' dv='' dm='' r v
	def=$(default_of "$xy")
	[ -z "$def" ] || read -r dr dv dm <<<"$def"
	if [ -n "$def" ] && [ "${2:-}" != newer ]; then
		query_releases "$dr"
		lacking "$dr" "$dv"
		[ -n "$lacks" ] || { printf '%s\n' "$dr"; return 0; }
		note "$xy: skipped $dr, the release $dm depends on: $lacks"
	fi
	releases_of "$xy"
	while read -r r v; do
		[ -n "$r" ] || continue
		if [ -n "$def" ]; then
			if [ "${2:-}" = newer ]; then
				dpkg --compare-versions "$v" gt "$dv" || continue
			else
				dpkg --compare-versions "$v" lt "$dv" || continue
			fi
		fi
		lacking "$r" "$v"
		[ -z "$lacks" ] || continue
		printf '%s\n' "$r"
		[ "${2:-}" = newer ] || return 0
	done <<<"$rels"
	[ "${2:-}" != newer ] || return 0
	if [ -z "$def" ]; then
		note "$xy: no image metapackage depends on a $xy release, and no $xy release has headers, image and linux-source of one version in the archive"
	else
		note "$xy: no older $xy release has headers, image and linux-source of one version in the archive either"
	fi
	return 1
}

# The patch series there are, oldest first, of those with a kernel in this
# host's archive (headers of X.Y that apt offers or dpkg has): a Debian 12
# host has no 7.2 or 7.3, whose series make check-newer boots in trixie-backports
# chroots. A series with headers but nothing else usable is still chosen,
# and refused by choose() with the reason.
all_series() {
	local s xy
	for s in "$top"/ext4-backport/patches/*/series; do
		[ -f "$s" ] || continue
		s=${s%/series}
		xy=${s##*/}
		{
			apt-cache pkgnames "linux-headers-$xy" 2>/dev/null || true
			dpkg-query -W -f='${Package}\n' "linux-headers-$xy*" 2>/dev/null || true
		} | grep -qE "^linux-headers-${xy//./\\.}[.-][0-9]" || continue
		printf '%s\n' "$xy"
	done | sort -V
}

# each_series [newer]: choose for every series; status 1 if any had none.
each_series() {
	local xy d rc=0 m=(linux-image-amd64) r=()
	for xy in $(all_series); do
		m+=("linux-image-$xy-amd64")
	done
	meta_depends "${m[@]}"
	# the default releases' packages in one query
	for xy in $(all_series); do
		d=$(default_of "$xy")
		[ -z "$d" ] || r+=("${d%% *}")
	done
	[ ${#r[@]} -eq 0 ] || query_releases "${r[@]}"
	while read -r xy; do
		choose "$xy" "$@" || rc=1
	done < <(all_series)
	return $rc
}

case ${1:-} in
'')
	d=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null) ||
		d=$(apt-cache show --no-all-versions linux-headers-amd64 2>/dev/null |
			sed -n 's/^Depends: //p' | head -n 1)
	printf '%s\n' "$d" | tr ',' '\n' |
		sed -n 's/^ *linux-headers-\([0-9][^ ]*\).*/\1/p' | head -n 1 ;;
--series)
	[ $# -eq 2 ] || { echo "usage: kver.sh --series X.Y" >&2; exit 2; }
	meta_depends linux-image-amd64 "linux-image-$2-amd64"
	choose "$2" ;;
--supported) each_series ;;
--newer) each_series newer ;;
--long)
	rc=0
	each_series || rc=1
	each_series newer
	exit $rc ;;
*) echo "usage: kver.sh [--supported | --series X.Y | --newer | --long]" >&2; exit 2 ;;
esac
