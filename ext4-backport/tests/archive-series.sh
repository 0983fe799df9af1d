#!/bin/bash
# Does each patch series apply to every Debian kernel source of its X.Y that the
# archive still carries, and which releases have no series at all? Every
# linux-source-X.Y of the host's own suites and of the newer ones (by default
# bookworm-backports, trixie, trixie-security, trixie-backports, forky, sid:
# read from the archive the host's apt uses, into a private apt state under
# CACHE_DIR/apt, the host's apt untouched) is listed with the suites that
# carry it. A release whose X.Y has a series: download it (apt-get download), keep only its
# fs/ext4 and include/trace/events/ext4.h, and apply patches/X.Y/series in order,
# each with `patch --dry-run -p1 --fuzz=0` first and then for real in a scratch copy
# (a later patch may build on an earlier one), as prepare.sh does. The variants
# of older point releases are chosen by prepare.sh's own function (series.sh),
# and the patched tree must pass check-drains.sh (no plain
# inode_dio_wait() the series does not list), as prepare.sh requires. Prints KTAP,
# one test per version (the failing patch named), then a summary table. Slow: each
# package is about 150 MB, so it is run by `make check-long` (tests/check.sh
# --long), not by make check (which runs the test-*.sh files of this directory).
#
# Usage: archive-series.sh [CACHE_DIR]
#   CACHE_DIR  where the extracts are kept, one directory per version (default:
#              $EXT4X_CACHE/archive-series if EXT4X_CACHE is set, else
#              build/archive-series of this repository); a version already
#              extracted there is not downloaded again, and no .deb is kept.
# Environment:
#   EXT4X_ARCHIVE_SUITES    the suites read besides the host's (default above;
#                           empty: the host's package lists only, no network
#                           but for downloads)
#   EXT4X_ARCHIVE_PACKAGES  packages to check (default: every linux-source-X.Y
#                           in the lists)
#   EXT4X_PATCHDIR          patch series root (default ext4-backport/patches)
#
# A version that cannot be downloaded or extracted is "not ok" (nothing could be
# checked); a release whose X.Y has no series is skipped, and the summary
# says that no series applies to it.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
top=$(cd "$here/.." && pwd)
patchroot=${EXT4X_PATCHDIR:-$here/patches}
if [ -n "${1:-}" ]; then
	cache=$1
elif [ -n "${EXT4X_CACHE:-}" ]; then
	cache=$EXT4X_CACHE/archive-series
else
	cache=$top/build/archive-series
fi
suites=${EXT4X_ARCHIVE_SUITES-bookworm-backports trixie trixie-security trixie-backports forky sid}

# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
# t_archives: the archive and security URIs of the host's apt
# shellcheck source=tests/trixie/lib.sh
. "$top/tests/trixie/lib.sh"

mkdir -p "$cache" || { echo "ext4x: cannot create $cache" >&2; exit 2; }
cache=$(cd "$cache" && pwd)
work=$(mktemp -d "$cache/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT

# apt with the host's sources plus the suites, its state under $cache/apt
apt_opts=()
if [ -n "$suites" ]; then
	read -r archive security < <(t_archives) || exit 2
	a=$cache/apt
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial"
	{
		# shellcheck disable=SC2016 # apt's own $(FIELD) syntax
		apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' 2>/dev/null |
			sort -u | while read -r uri rel; do
				echo "deb [arch=amd64] $uri ${rel%/} main"
			done
		for st in $suites; do
			case $st in
			*-security) echo "deb [arch=amd64] $security $st main" ;;
			*) echo "deb [arch=amd64] $archive $st main" ;;
			esac
		done
	} | sort -u >"$a/sources.list"
	apt_opts=(-o "Dir::Etc::SourceList=$a/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a/cache"
		-o Dir::State::status=/dev/null -o Acquire::Languages=none)
	echo "# apt sources: $(awk '{ print $4 }' "$a/sources.list" | paste -sd' ')"
	apt-get "${apt_opts[@]}" update -qq >"$work/update.log" 2>&1 || {
		echo "ext4x: apt-get update of the suites failed:" >&2
		tail -n 10 "$work/update.log" >&2
		exit 2
	}
fi
if [ -n "${EXT4X_ARCHIVE_PACKAGES:-}" ]; then
	read -r -a pkgs <<<"$EXT4X_ARCHIVE_PACKAGES"
else
	mapfile -t pkgs < <(apt-cache "${apt_opts[@]}" pkgnames linux-source- 2>/dev/null |
		grep -E '^linux-source-[0-9]+\.[0-9]+$' | sort -V)
fi

# "PACKAGE VERSION" per line, from the archive's package lists (not dpkg's
# status); suites_of[PACKAGE VERSION]: the suites that carry it
list=()
declare -A suites_of=()
for pkg in "${pkgs[@]}"; do
	while read -r ver st; do
		k="$pkg $ver"
		[ -n "${suites_of[$k]:-}" ] || list+=("$k")
		[[ " ${suites_of[$k]:-} " == *" $st "* ]] || suites_of[$k]="${suites_of[$k]:+${suites_of[$k]} }$st"
	done < <(apt-cache "${apt_opts[@]}" madison "$pkg" 2>/dev/null |
		awk -F'|' '{ gsub(/ /, "", $2); split($3, f, " "); sub(/\/.*/, "", f[2]); if ($2 != "") print $2, f[2] }' |
		sort -V -k1,1)
done

ktap_print_header
if [ "${#list[@]}" -eq 0 ]; then
	ktap_skip_all "apt knows no version of ${pkgs[*]} (apt-get update?)"
fi
ktap_set_plan "${#list[@]}"
echo "# cache: $cache"

# extract PACKAGE VERSION DIR: fs/ext4 and the trace header of that version into DIR
extract() {
	local pkg=$1 ver=$2 dir=$3 xy=${1#linux-source-} deb tmp
	tmp=$work/dl
	rm -rf "$tmp" "$dir.new"
	mkdir -p "$tmp" "$dir.new"
	# (as root into a dir the _apt user cannot reach, apt downloads unsandboxed
	# and says so in the log; harmless)
	(cd "$tmp" && apt-get "${apt_opts[@]}" download -q "$pkg=$ver") >"$work/log" 2>&1 || return 1
	deb=$(find "$tmp" -maxdepth 1 -name '*.deb' | head -n1)
	[ -n "$deb" ] || return 1
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xOf - "./usr/src/linux-source-$xy.tar.xz" |
		tar -xJf - -C "$dir.new" --strip-components=1 \
			"linux-source-$xy/fs/ext4" "linux-source-$xy/include/trace/events/ext4.h" \
			"linux-source-$xy/Makefile" >>"$work/log" 2>&1 || return 1
	rm -rf "$tmp"
	[ -f "$dir.new/fs/ext4/super.c" ] && [ -f "$dir.new/include/trace/events/ext4.h" ] || return 1
	rm -rf "$dir"
	mv "$dir.new" "$dir"
	touch "$dir/.complete"
}

# the choice prepare.sh makes (series_pick)
# shellcheck source=ext4-backport/series.sh
. "$here/series.sh"

results=()
for entry in "${list[@]}"; do
	pkg=${entry%% *} ver=${entry#* }
	xy=${pkg#linux-source-}
	upver=${ver%%-*}
	name="$pkg $ver"
	where=${suites_of[$entry]:-}
	if [ ! -f "$patchroot/$xy/series" ]; then
		ktap_test_skip "$name ($where)" "no patches/$xy/series"
		results+=("$name|$where|none: no $xy series")
		continue
	fi
	dir=$cache/$pkg-$ver
	if [ ! -f "$dir/.complete" ]; then
		t0=$(date +%s)
		if ! extract "$pkg" "$ver" "$dir"; then
			ktap_test_fail "$name: series could not be checked, download or extraction failed" \
				"$(tail -n 5 "$work/log")"
			results+=("$name|$where|not checked: download failed")
			rm -rf "$work/dl" "$dir.new"
			continue
		fi
		echo "# $name: downloaded and extracted in $(($(date +%s) - t0)) s"
	fi
	if ! series_pick "$patchroot/$xy" "$upver" 2>"$work/log"; then
		ktap_test_fail "$name: the $xy series cannot be read" "$(cat "$work/log")"
		results+=("$name|$where|FAILS: series unreadable")
		continue
	fi
	rm -rf "$work/tree"
	cp -a "$dir" "$work/tree"
	n=0 bad="" log=""
	for p in ${series_patches[@]+"${series_patches[@]}"}; do
		n=$((n + 1))
		if [ ! -f "$patchroot/$xy/$p" ]; then
			bad="$p (#$n) is missing" log=""
			break
		fi
		if ! log=$(patch -d "$work/tree" -p1 --fuzz=0 --batch --forward --dry-run \
				-i "$patchroot/$xy/$p" 2>&1); then
			bad="$p (#$n) does not apply"
			break
		fi
		patch -d "$work/tree" -p1 --fuzz=0 --batch --forward --no-backup-if-mismatch \
			--reject-file=- -i "$patchroot/$xy/$p" >/dev/null 2>&1 || {
			bad="$p (#$n) does not apply"
			break
		}
	done
	src="$xy/series"
	[ ${#series_variant_files[@]} -eq 0 ] ||
		src+=", variants $(printf '%s\n' "${series_variant_files[@]}" | sed 's,/.*,,' | sort -u | paste -sd,)"
	# and, as prepare.sh refuses it, no drain the lockless DAX read would miss
	if [ -z "$bad" ] && ! log=$("$here/check-drains.sh" "$work/tree" "$patchroot/$xy/kept-dio-waits" 2>&1); then
		bad="inode_dio_wait() left in: $(echo "$log" | paste -sd, -)" log=""
	fi
	if [ -z "$bad" ]; then
		ktap_test_pass "$name: all $n patch(es) of $src apply, no unlisted drain"
		results+=("$name|$where|applies ($n/$n, $src)")
	else
		ktap_test_fail "$name: $bad ($src)" "$(echo "$log" | grep -E 'FAILED|malformed|not found|No file' | head -n 10)"
		results+=("$name|$where|FAILS: $bad")
	fi
done
rm -rf "$work/tree"

echo "# summary (series: $patchroot):"
printf '#   %-40s %-34s %s\n' release suites series
for r in "${results[@]}"; do
	IFS='|' read -r n w v <<<"$r"
	printf '#   %-40s %-34s %s\n' "$n" "$w" "$v"
done
ktap_finished
