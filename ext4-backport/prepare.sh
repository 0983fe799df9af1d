#!/bin/bash
# prepare.sh - extract the target kernel's own fs/ext4, patch it and rename it to ext4x,
# ready for `make -C /lib/modules/$KVER/build M=$PWD/ext4-backport`.
#
# Settings, as KEY=VALUE arguments or environment variables:
#   KVER     target kernel release (default: UTS_RELEASE of EXT4X_KBUILD if that is set,
#            else `uname -r`)
#   KSRC     optional: root of a kernel source tree to take fs/ext4 from instead of
#            /usr/src/linux-source-X.Y.tar.xz; its Makefile version must equal the
#            headers' version
#   FLAVOUR  ext4x (default): renamed module that loads beside stock ext4;
#            ext4: drop-in module with the stock name (no rename)
#   OUT      output tree (default: ext4-backport/build/$FLAVOUR, which is where
#            ext4-backport/Kbuild looks; gitignored)
# Option:
#   --check  only tell whether the tree can be prepared: every refusal, then extract,
#            patch, rename and generate the Kbuild in a temporary dir, which is
#            deleted; OUT is neither read nor written. Same exit codes and messages.
#            (packaging/dkms/check.sh asks this before DKMS builds for a new kernel.)
# Overrides, for tests and unusual setups:
#   EXT4X_KBUILD         kernel build (headers) dir (default /lib/modules/$KVER/build)
#   EXT4X_SRCDIR         where linux-source-X.Y.tar.xz lives (default /usr/src)
#   EXT4X_PATCHDIR       patch series root (default ext4-backport/patches)
#   EXT4X_HEADERS_DEBVER Debian version of the headers (default: from dpkg; "" = none)
#   EXT4X_SOURCE_DEBVER  Debian version of the source tarball (default: from dpkg)
#
# Patches: patches/X.Y/series, whose entries may name variants for older point
# releases (series.sh; README.md, "Variants for older point releases").
#
# Exit status: 0 done or already up to date; 2 refused (missing or mismatched source,
# unsupported kernel, bad settings); 1 a step failed (patch, rename, check).
# Every error is one line on stderr starting with "ext4x: ".
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prog_version=1

refuse() { echo "ext4x: $*" >&2; exit 2; }
die() { echo "ext4x: $*" >&2; exit 1; }

check_only=0
for arg in "$@"; do
	case $arg in
	KVER=*|KSRC=*|OUT=*|FLAVOUR=*|EXT4X_*=*) export "${arg?}" ;;
	--check) check_only=1 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) refuse "unknown argument '$arg' (expected KVER=, KSRC=, OUT=, FLAVOUR=, --check)" ;;
	esac
done

FLAVOUR=${FLAVOUR:-ext4x}
case $FLAVOUR in
ext4x|ext4) ;;
*) refuse "FLAVOUR=$FLAVOUR: must be ext4x or ext4" ;;
esac

# ---- target kernel: release, headers, version ------------------------------------
# set but empty is a caller's bug (a Kbuild variable the kernel no longer
# provides, say), never a reason to build for the running kernel instead
[ "${EXT4X_KBUILD-unset}" != "" ] || refuse "EXT4X_KBUILD is set but empty"
if [ -z "${KVER:-}" ]; then
	if [ -n "${EXT4X_KBUILD:-}" ] && [ -f "$EXT4X_KBUILD/include/generated/utsrelease.h" ]; then
		KVER=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$EXT4X_KBUILD/include/generated/utsrelease.h")
	else
		KVER=$(uname -r)
	fi
fi
kbuild=${EXT4X_KBUILD:-/lib/modules/$KVER/build}
[ -f "$kbuild/Makefile" ] ||
	refuse "no kernel headers for $KVER at $kbuild: apt-get install linux-headers-$KVER"
kbuild=$(cd "$kbuild" && pwd -P)
# KVER and headers of two different kernels (a KVER left in the environment
# of a build for another kernel) would prepare one kernel's ext4 for another
urel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$kbuild/include/generated/utsrelease.h" 2>/dev/null || true)
[ -z "$urel" ] || [ "$urel" = "$KVER" ] ||
	refuse "KVER=$KVER but the headers in $kbuild are for $urel"

# VERSION.PATCHLEVEL.SUBLEVEL[EXTRAVERSION] of a top-level kernel Makefile
makefile_version() {
	awk -F'[ \t]*=[ \t]*' '
		$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 } $1 == "EXTRAVERSION" { e = $2 }
		END { if (v != "" && p != "") print v "." p "." s e }'
}

# (outside any calling make's flags: no jobserver, no "Entering directory" lines)
hver=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
	make -s --no-print-directory -C "$kbuild" kernelversion 2>/dev/null | tail -n1 || true)
case $hver in
[0-9]*.[0-9]*.[0-9]*) ;;
*) refuse "cannot tell the kernel version of the headers in $kbuild (make kernelversion said '$hver')" ;;
esac
xy=$(echo "$hver" | cut -d. -f1-2)

if [ "${EXT4X_HEADERS_DEBVER+set}" ]; then
	hdeb=$EXT4X_HEADERS_DEBVER
else
	hdeb=$(dpkg-query -W -f='${Version}' "linux-headers-$KVER" 2>/dev/null || true)
fi
target_desc="$hver${hdeb:+, Debian $hdeb}"    # 6.1.192, Debian 6.1.192-3
target_paren="$hver${hdeb:+ (Debian $hdeb)}"  # 6.1.192 (Debian 6.1.192-3)

# ---- patch series for X.Y ----------------------------------------------------------
patchroot=${EXT4X_PATCHDIR:-$here/patches}
xydir=$patchroot/$xy
series=$xydir/series
if [ ! -f "$series" ]; then
	# No series at all is an answer too ("have: none"), not a pipefail exit.
	have=$(cd "$patchroot" 2>/dev/null && for s in */series; do
		[ -f "$s" ] && echo "${s%/series}"
	done | sort -V | paste -sd, | sed 's/,/, /g') || have=''
	refuse "no patch series for kernel $xy (have: ${have:-none})"
fi
# The patches of the series for this release (series.sh: variants of older
# point releases chosen by version)
# shellcheck source=ext4-backport/series.sh
. "$here/series.sh"
series_pick "$xydir" "$hver" || exit 2
patches=(${series_patches[@]+"${series_patches[@]}"})

# ---- kernel source: KSRC tree or the linux-source-X.Y tarball -----------------------
if [ -n "${KSRC:-}" ]; then
	[ -f "$KSRC/Makefile" ] && [ -d "$KSRC/fs/ext4" ] ||
		refuse "KSRC=$KSRC is not a kernel source tree (no Makefile or fs/ext4)"
	KSRC=$(cd "$KSRC" && pwd -P)
	sver=$(makefile_version <"$KSRC/Makefile")
	[ "$sver" = "$hver" ] ||
		refuse "KSRC=$KSRC is ${sver:-of unknown version} but the target kernel $KVER is $target_paren: point KSRC at a $hver tree"
	[ -f "$KSRC/include/trace/events/ext4.h" ] ||
		refuse "KSRC=$KSRC has no include/trace/events/ext4.h"
	source_desc="KSRC=$KSRC ($sver)"
	# identity: the version and the content of what we take from it
	source_id="ksrc:$KSRC:$sver:$( (cd "$KSRC" && find fs/ext4 include/trace/events/ext4.h -type f -print0 |
		sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-64)"
else
	srcdir=${EXT4X_SRCDIR:-/usr/src}
	tarball=$srcdir/linux-source-$xy.tar.xz
	[ -f "$tarball" ] ||
		refuse "kernel source for $KVER ($target_desc) not found: apt-get install linux-source-$xy${hdeb:+=$hdeb}, or set KSRC=/path/to/linux-$hver"
	sver=$(tar -xOf "$tarball" --occurrence=1 "linux-source-$xy/Makefile" 2>/dev/null | makefile_version || true)
	[ -n "$sver" ] || refuse "$tarball: cannot read linux-source-$xy/Makefile from it"
	if [ "${EXT4X_SOURCE_DEBVER+set}" ]; then
		sdeb=$EXT4X_SOURCE_DEBVER
	else
		spkg=$(dpkg-query -S "$tarball" 2>/dev/null | head -n1 | cut -d: -f1 || true)
		sdeb=$( [ -n "$spkg" ] && dpkg-query -W -f='${Version}' "$spkg" 2>/dev/null || true)
	fi
	fix="install linux-source-$xy${hdeb:+=$hdeb} or set KSRC=/path/to/linux-$hver"
	if [ "$sver" != "$hver" ] || { [ -n "$hdeb" ] && [ -n "$sdeb" ] && [ "$sdeb" != "$hdeb" ]; }; then
		refuse "$tarball is $sver${sdeb:+ (Debian $sdeb)} but the target kernel $KVER is $target_paren: $fix"
	fi
	# Debian headers but a tarball no package owns: its Debian patches are unknown
	[ -z "$hdeb" ] || [ -n "$sdeb" ] ||
		refuse "$tarball is $sver but belongs to no Debian package, so it cannot be checked against $KVER (Debian $hdeb): $fix"
	source_desc="$tarball ($sver${sdeb:+, Debian $sdeb})"
	source_id="tar:$tarball:$sver:$sdeb:$(stat -c '%s:%Y' "$tarball")"
fi

# ---- target config: CONFIG_EXT4_* of the kernel --------------------------------------
autoconf=$kbuild/include/config/auto.conf
[ -f "$autoconf" ] || refuse "$autoconf not found: the headers for $KVER are incomplete"
ext4_config=$(grep -E '^CONFIG_EXT4_[A-Z0-9_]+=' "$autoconf" | sort || true)

# ---- output location and cache stamp ------------------------------------------------
kept_list=()
[ ! -f "$xydir/kept-dio-waits" ] || kept_list=(kept-dio-waits)
series_id=$( (cd "$xydir" && sha256sum "${series#"$xydir/"}" ${patches[@]+"${patches[@]}"} \
	${kept_list[@]+"${kept_list[@]}"}) | sha256sum | cut -c1-64)
tools_id=$( (cd "$here" && sha256sum prepare.sh series.sh rename.sh rename-globals.txt ext4x_version.c \
	check-drains.sh) | sha256sum | cut -c1-64)
stamp_text="ext4x-prepare $prog_version
flavour $FLAVOUR
kver $KVER
kbuild $kbuild
headers $hver ${hdeb:--}
source $source_id
series $xy $series_id
tools $tools_id
config $(echo "$ext4_config" | sha256sum | cut -c1-64)"

old=""
if [ "$check_only" = 1 ]; then
	# a private scratch dir; OUT is not looked at
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ext4x-check.XXXXXX")
else
	OUT=${OUT:-$here/build/$FLAVOUR}
	case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
	outparent=$(dirname "$OUT")
	mkdir -p "$outparent"
	outparent=$(cd "$outparent" && pwd -P)
	OUT=$outparent/$(basename "$OUT")

	# one prepare at a time per output parent (parallel make, DKMS)
	exec 9>"$outparent/.prepare.lock"
	flock 9

	if [ -f "$OUT/.ext4x-stamp" ] && [ "$(cat "$OUT/.ext4x-stamp")" = "$stamp_text" ]; then
		echo "ext4x: $OUT is up to date ($FLAVOUR for $KVER from $source_desc)"
		exit 0
	fi
	tmp=$(mktemp -d "$outparent/.$(basename "$OUT").new.XXXXXX")
fi
cleanup() { rm -rf "$tmp" ${old:+"$old"}; }
trap cleanup EXIT

if [ "$check_only" = 1 ]; then doing=checking; else doing=preparing; fi
echo "ext4x: $doing $FLAVOUR for $KVER ($target_desc) from $source_desc"
[ ${#series_variant_files[@]} -eq 0 ] || echo "ext4x: ${#series_variant_files[@]} variant(s) for $hver: ${series_variant_files[*]}"

# ---- extract: fs/ext4 and the ext4 trace header only --------------------------------
if [ -n "${KSRC:-}" ]; then
	mkdir -p "$tmp/fs" "$tmp/include/trace/events"
	cp -a "$KSRC/fs/ext4" "$tmp/fs/ext4"
	cp -a "$KSRC/include/trace/events/ext4.h" "$tmp/include/trace/events/ext4.h"
else
	tar -xf "$tarball" -C "$tmp" --strip-components=1 \
		"linux-source-$xy/fs/ext4" "linux-source-$xy/include/trace/events/ext4.h" ||
		die "cannot extract fs/ext4 from $tarball"
fi
# build leftovers of a KSRC tree that was built in
find "$tmp" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod*' -o -name '*.order' \) -delete

# ---- patch series -------------------------------------------------------------------
n=0
for p in ${patches[@]+"${patches[@]}"}; do
	n=$((n + 1))
	if ! log=$(patch -d "$tmp" -p1 --fuzz=0 --batch --forward --no-backup-if-mismatch \
			--reject-file=- -i "$xydir/$p" 2>&1); then
		echo "$log" | sed 's/^/  | /'  # context on stdout; the error is one line
		die "patch $xy/$p (#$n in $series) does not apply to $source_desc"
	fi
done
[ "$n" -eq 0 ] || echo "ext4x: applied $n patch(es) from $series"

# ---- drains the lockless DAX read relies on -------------------------------------------
# A plain inode_dio_wait() where the series expects ext4_inode_dio_wait() (a point release
# that backports a new one) would free blocks under a DAX read: refuse, do not build.
if ! unknown=$("$here/check-drains.sh" "$tmp" "$xydir/kept-dio-waits" 2>&1); then
	echo "$unknown" | sed 's/^/  | inode_dio_wait() in /'
	die "$source_desc drains direct I/O where the $xy series does not know it (above): DAX I/O without i_rwsem would not be waited for; make the call ext4_inode_dio_wait() or list it in $xydir/kept-dio-waits"
fi

# ---- rename and generate the Kbuild ---------------------------------------------------
kbuild_header() {
	echo "# Generated by ext4-backport/prepare.sh for $KVER ($target_desc), FLAVOUR=$FLAVOUR,"
	echo "# from fs/ext4/Makefile of $source_desc after the $xy series. Do not edit."
}

if [ "$FLAVOUR" = ext4x ]; then
	"$here/rename.sh" "$tmp" || die "rename to ext4x failed or left clashing names (see above)"
	{
		kbuild_header
		echo "# The target kernel's CONFIG_EXT4_* options, renamed CONFIG_EXT4X_* like the"
		echo "# sources. Never set: EXT4X_USE_FOR_EXT2 (ext4x does not register ext2),"
		echo "# EXT4X_KUNIT_TESTS; EXT4X_FS is always m."
		echo "CONFIG_EXT4X_FS := m"
		echo "$ext4_config" | grep -vE '^CONFIG_EXT4_(FS|USE_FOR_EXT2|KUNIT_TESTS)=' |
			sed -n 's/^CONFIG_EXT4_\([A-Z0-9_]*\)=\(y\)$/CONFIG_EXT4X_\1 := y\nccflags-y += -DCONFIG_EXT4X_\1=1/p'
		echo "# the renamed trace header <trace/events/ext4x.h>"
		echo "ccflags-y += -I\$(src)/../../include"
	} >"$tmp/fs/ext4/Kbuild"
	makefile_note=" (renamed)"
else
	{
		kbuild_header
		echo "# Drop-in build under the stock name: CONFIG_EXT4_* of the target kernel apply"
		echo "# as they are (include/config/auto.conf, autoconf.h); KUnit tests off."
		echo "CONFIG_EXT4_FS := m"
		echo "CONFIG_EXT4_KUNIT_TESTS :="
		echo "# the prepared (patched) <trace/events/ext4.h>, ahead of the headers' own copy"
		echo "NOSTDINC_FLAGS += -I\$(src)/../../include"
	} >"$tmp/fs/ext4/Kbuild"
	makefile_note=""
fi
cp "$here/ext4x_version.c" "$tmp/fs/ext4/ext4x_version.c"
# what `modinfo -F series` shows: the series and its patches, each by its
# file name without the number and the "ext4-" prefix (so, like
# ext4x_version.c, it names nothing of the stock module)
{
	printf '/* generated by prepare.sh: the patch series applied */\n#define EXT4X_SERIES "%s:' "$xy"
	for p in ${patches[@]+"${patches[@]}"}; do
		p=${p##*/}
		p=${p%.patch}
		p=${p#[0-9][0-9][0-9][0-9]*-}
		printf ' %s' "${p#ext4-}"
	done
	printf '"\n'
} >"$tmp/fs/ext4/ext4x_series.h"
{
	echo "# <percpu_stats/percpu_stats.h>, <mbcache2/mbcache2.h>: the top-level Kbuild"
	echo
	echo "# ---- fs/ext4/Makefile$makefile_note ----"
	grep -v '^#' "$tmp/fs/ext4/Makefile"
	echo
	echo "# ---- MODULE_VERSION from the project's VERSION file (ext4-backport/ext4x_version.c)"
	echo "# after the Makefile, whose $FLAVOUR-y is an assignment (:=)"
	echo "$FLAVOUR-y += ext4x_version.o"
} >>"$tmp/fs/ext4/Kbuild"
rm -f "$tmp/fs/ext4/Makefile"
grep -qE "^obj-\\\$\\(CONFIG_$( [ "$FLAVOUR" = ext4x ] && echo EXT4X || echo EXT4)_FS\\)[[:space:]]*\\+=[[:space:]]*$FLAVOUR\\.o" "$tmp/fs/ext4/Kbuild" ||
	die "generated Kbuild does not build $FLAVOUR.o: fs/ext4/Makefile changed shape"

if [ "$check_only" = 1 ]; then
	echo "ext4x: $FLAVOUR can be prepared for $KVER from $source_desc (checked, nothing kept)"
	exit 0
fi

# ---- publish ----------------------------------------------------------------------
printf '%s\n' "$stamp_text" >"$tmp/.ext4x-stamp"
chmod 755 "$tmp"
if [ -e "$OUT" ]; then
	old=$(mktemp -d "$outparent/.$(basename "$OUT").old.XXXXXX")
	mv "$OUT" "$old/"
fi
mv "$tmp" "$OUT"
echo "ext4x: prepared $OUT"
