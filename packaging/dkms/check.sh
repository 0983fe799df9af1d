#!/bin/bash
# DKMS pre-check of ext4x (dkms.conf runs it, by its path in the source tree,
# while dkms reads dkms.conf).
# Usage: packaging/dkms/check.sh [--cache DIR] [--once ID] KERNELVER [KERNEL_BUILD_DIR]
#        packaging/dkms/check.sh [--cache DIR] [--once ID] --say LINE KERNELVER
#
# Can ext4x be built for KERNELVER? Exit 0: yes, or not ours to say (no headers:
# dkms reports that itself; the check could not run: the build will show why).
# Exit 1: no, and one line on stderr names the kernel, the reason in
# ext4-backport/prepare.sh's words (linux-source missing or of another version,
# a patch of the series that does not apply) and what to do. dkms.conf turns
# that answer into a skip, so a kernel update never fails in apt because of us.
#
# The answer is ext4-backport/prepare.sh --check (extract fs/ext4 from the
# 150 MB linux-source tarball, patch, rename, in a scratch dir: ~10 s), so it
# is cached in DIR/KERNELVER (prepare's output in DIR/KERNELVER.log), keyed by
# what it depends on and can be read cheaply: the kernel release, its headers
# (path, size/mtime/inode of Makefile, auto.conf, utsrelease.h), the source
# tarball (size/mtime/inode, or its absence), prepare.sh's environment
# overrides, and a hash of the X.Y patch dir and of prepare.sh, series.sh, rename.sh,
# rename-globals.txt, ext4x_version.c, check-drains.sh and this file. A package
# upgrade replaces those files, so the key changes. With KSRC set nothing is cached (a tree can
# change in place).
# --once ID: print the line only once per ID (dkms reads dkms.conf several times
# in one command; dkms.conf passes dkms's process id).
# --say LINE: no check, the answer is no and LINE says why (dkms.conf's line for
# a kernel outside BUILD_EXCLUSIVE_KERNEL), printed as above.
set -uo pipefail

# misuse is not an answer: say so and exit 0 (the build goes on and shows the rest)
usage() { echo "ext4x: packaging/dkms/check.sh: $*" >&2; exit 0; }
cache='' once='' say=''
while [ $# -gt 0 ]; do
	case $1 in
	--cache | --once | --say)
		[ -n "${2:-}" ] || usage "$1 needs a value"
		case $1 in --cache) cache=$2 ;; --once) once=$2 ;; --say) say=$2 ;; esac
		shift 2 ;;
	--) shift; break ;;
	-*) usage "unknown option '$1'" ;;
	*) break ;;
	esac
done
kver=${1:-}
case $kver in
'' | */* | .*) usage "bad kernel release '$kver'" ;;
esac
kbuild=${2:-/lib/modules/$kver/build}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
version=$(tr -d ' \n' <"$top/VERSION" 2>/dev/null)
name=ext4x

# say_once LINE: LINE on stderr, unless it was said for this kernel with this --once ID
say_once() {
	if [ -n "$once" ] && [ -n "$cache" ] && mkdir -p "$cache" 2>/dev/null; then
		[ "$(cat "$cache/$kver.said" 2>/dev/null)" != "$once" ] || return 0
		echo "$once" >"$cache/$kver.said" 2>/dev/null
	fi
	echo "$1" >&2
}
if [ -n "$say" ]; then
	say_once "$say"
	exit 1
fi

# no headers: dkms says so itself (and the kernel hooks skip such a kernel)
[ -f "$kbuild/Makefile" ] || exit 0

# X.Y of the release (6.1.0-57-amd64, 6.12.117+deb12-amd64): where the tarball is
xy=$(echo "$kver" | sed -n 's/^\([0-9]\{1,\}\.[0-9]\{1,\}\).*/\1/p')
tarball=${EXT4X_SRCDIR:-/usr/src}/linux-source-$xy.tar.xz
patchdir=${EXT4X_PATCHDIR:-$top/ext4-backport/patches}/$xy

# ---- the cache key --------------------------------------------------------------------
key() {
	echo "ext4x-check 1"
	echo "kver $kver"
	echo "kbuild $(readlink -f "$kbuild")"
	stat -L -c 'headers %n %s %Y %i' "$kbuild/Makefile" "$kbuild/include/config/auto.conf" \
		"$kbuild/include/generated/utsrelease.h" 2>&1
	stat -L -c 'source %n %s %Y %i' "$tarball" 2>/dev/null || echo "source $tarball absent"
	local v
	for v in EXT4X_SRCDIR EXT4X_PATCHDIR EXT4X_HEADERS_DEBVER EXT4X_SOURCE_DEBVER; do
		if [ "${!v+set}" ]; then echo "env $v=${!v}"; else echo "env $v unset"; fi
	done
	{
		[ ! -d "$patchdir" ] || find "$patchdir" -type f -print0 | sort -z | xargs -0 -r sha256sum
		sha256sum "$top"/ext4-backport/prepare.sh "$top"/ext4-backport/series.sh \
			"$top"/ext4-backport/rename.sh \
			"$top"/ext4-backport/rename-globals.txt "$top"/ext4-backport/ext4x_version.c \
			"$top"/ext4-backport/check-drains.sh "${BASH_SOURCE[0]}"
	} 2>&1 | sha256sum
}

usecache=0
if [ -n "$cache" ] && [ -z "${KSRC:-}" ] && { mkdir -p "$cache" && [ -w "$cache" ]; } 2>/dev/null; then
	usecache=1
fi
k=$(key | sha256sum | cut -c1-64)

rc='' reason=''
if [ "$usecache" = 1 ] && [ -f "$cache/$kver" ] && [ "$(sed -n 1p "$cache/$kver")" = "key $k" ]; then
	rc=$(sed -n 's/^rc //p' "$cache/$kver")
	reason=$(sed -n 's/^reason //p' "$cache/$kver")
fi
case $rc in
0 | 1 | 2) ;;
*)
	# ask prepare.sh (for exactly the ext4x build DKMS does)
	if [ "$usecache" = 1 ]; then log=$cache/$kver.log; else log=$(mktemp); fi
	err=$(mktemp)
	env -u OUT FLAVOUR=ext4x "$top/ext4-backport/prepare.sh" --check \
		KVER="$kver" EXT4X_KBUILD="$kbuild" >"$log" 2>"$err"
	rc=$?
	cat "$err" >>"$log"
	last=$(tail -n 1 "$err")
	rm -f "$err"
	[ "$usecache" = 1 ] || rm -f "$log"
	case $rc:$last in
	0:* | [12]:"ext4x: "*) reason=${last#ext4x: } ;;
	*)
		# not a verdict (killed, out of space, a bug): let the build show it
		echo "ext4x: could not check $kver (prepare.sh --check exit $rc: $last); building anyway" >&2
		exit 0 ;;
	esac
	[ "$rc" -ne 0 ] || reason=''
	if [ "$usecache" = 1 ]; then
		if tmp=$(mktemp "$cache/.$kver.XXXXXX"); then
			printf 'key %s\nrc %s\nreason %s\n' "$k" "$rc" "$reason" >"$tmp" && chmod 644 "$tmp" &&
				mv -f "$tmp" "$cache/$kver" || rm -f "$tmp"
		fi
	fi
	;;
esac
[ "$rc" -ne 0 ] || exit 0

# ---- no: say it once, with what to do -----------------------------------------------------
keep="until then $kver boots without ext4x: boot a kernel it is installed for (dkms status -m $name)"
if [ "$rc" -eq 2 ]; then
	say_once "ext4x: $name $version is not built for $kver: $reason; then: dkms install -m $name -v $version -k $kver; $keep"
else
	logref=''
	[ "$usecache" = 0 ] || logref=" (log: $cache/$kver.log)"
	say_once "ext4x: $name $version is not built for $kver: $reason; wait for an ext4x release that supports it; $keep$logref"
fi
exit 1
