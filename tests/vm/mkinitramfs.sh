#!/bin/bash
# Build the guest initramfs in two layers:
#  - BASE (cached): busybox, kmod, ndctl, fio, e2fsprogs, attr/acl tools,
#    their libraries, statx-dax, xattr-share, statfs-loop, xattr-load
#    (tools/ext4x-compare), coherence-mark (tests/coherence),
#    and the distro kernel modules the tests need.
#    Cached under $(cache_root)/initramfs/ keyed on the scripts, KVER and the
#    versions of the packages it is made from.
#  - OVERLAY (per run): /init, the test files (tests/guest, tests/standalone,
#    --extra-tests as /tests/extra), the guest harness (tests/vm/guest) and
#    the KTAP library (tests/lib/ktap.sh) at the same paths, the
#    comparison tool tools/ext4x-compare/* as /tools/ext4x-compare, and
#    tools/fs-helpers as /tools/fs-helpers (and,
#    with EXT4X_TOOLS_ROOT, the ext4x-tools package's files as installed),
#    and the project's built modules as /lib/modules/KVER/extra/*.ko.
# The kernel unpacks concatenated compressed cpio archives in order, so
# OUT = BASE followed by OVERLAY.
#
# Usage: mkinitramfs.sh --kver KVER [--modules DIR] [--extra-tests DIR]
#                       [--small] [--out FILE]
#   --extra-tests DIR  also install DIR/*.sh as guest test files
#   --small            a base without the "big" programs of guest-tools.list
#                      (fio, stress-ng), for guests with little memory
#   --dpkg-root DIR    the kernel of another Debian root (fetch-kernel.sh
#                      --dpkg-root; default $EXT4X_DPKG_ROOT)
#   Without --out only the base is built; its path is printed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=tests/vm/common.sh
. "$here/common.sh"

kver='' moddir='' extra='' out='' small=''
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--modules) moddir=$2; shift 2 ;;
	--extra-tests) extra=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--small) small=small-; shift ;;
	--dpkg-root)
		[ $# -ge 2 ] && [ -d "$2" ] || die "--dpkg-root needs a directory"
		EXT4X_DPKG_ROOT=$(cd "$2" && pwd)
		export EXT4X_DPKG_ROOT
		shift 2 ;;
	*) die "unknown argument: $1" ;;
	esac
done
[ -n "$kver" ] || kver=$(default_kver)

# Pack a staging directory into a gzip-compressed newc cpio archive. Paths
# are sorted and owned by root so identical input gives identical output.
pack() {
	local dir=$1 dst=$2
	(cd "$dir" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --reproducible --quiet) | gzip -n -6 >"$dst.tmp"
	mv "$dst.tmp" "$dst"
}

base_key() {
	local p
	{
		cat "$here/mkinitramfs.sh" "$here/stage-tools.sh" \
			"$here/stage-modules.sh" "$here/common.sh" \
			"$here/guest-tools.list" "$here/guest-modules.list" \
			"$here/xattr-share.c" "$here/statfs-loop.c" "$here/dax-race.c" \
			"$repo/tools/ext4x-compare/statx-dax.c" \
			"$repo/tools/ext4x-compare/xattr-load.c" \
			"$repo/tests/coherence/mark.c" "$repo/tests/coherence/mark.h"
		printf 'kver=%s profile=%s\n' "$kver" "$small"
		if [ -n "${EXT4X_KERNEL_ROOT:-}" ]; then
			# a kernel built here (fetch-kernel.sh): its directory and build time
			printf 'root=%s\n' "$EXT4X_KERNEL_ROOT"
			stat -c %Y "$EXT4X_KERNEL_ROOT/boot/vmlinuz-$kver"
		else
			cat "$(cache_root)/kernel/$kver/extracted.stamp"
		fi
		for p in busybox-static kmod ndctl daxctl fio e2fsprogs attr acl stress-ng \
			libc6 gcc; do
			printf '%s=%s\n' "$p" "$(installed_version "$p")"
		done
	} | sha256sum | cut -c1-16
}

# Runs in a command substitution: the subshell needs its own trap.
build_base() {
	local kroot key dir base
	trap cleanup EXIT
	kroot=$("$here/fetch-kernel.sh" "$kver")
	key=$(base_key)
	dir=$(cache_root)/initramfs
	base=$dir/base-$small$kver-$key.cpio.gz
	mkdir -p "$dir"
	exec 9>"$dir/.lock"
	flock 9
	if [ ! -f "$base" ]; then
		info "building base initramfs $base"
		stage=$(mktemp -d "$dir/stage.XXXXXX")
		# Each step checked: build_base runs in a command substitution,
		# where set -e does not reach.
		"$here/stage-tools.sh" "$stage" ${small:+--small} || die "stage-tools.sh failed"
		gcc -static -O2 -Wall -o "$stage/usr/bin/statx-dax" "$repo/tools/ext4x-compare/statx-dax.c" &&
			gcc -static -O2 -Wall -o "$stage/usr/bin/xattr-share" "$here/xattr-share.c" &&
			gcc -static -O2 -Wall -o "$stage/usr/bin/statfs-loop" "$here/statfs-loop.c" &&
			gcc -static -O2 -Wall -pthread -o "$stage/usr/bin/dax-race" "$here/dax-race.c" &&
			gcc -static -O2 -Wall -pthread -o "$stage/usr/bin/xattr-load" \
				"$repo/tools/ext4x-compare/xattr-load.c" &&
			gcc -static -O2 -Wall -pthread -o "$stage/usr/bin/coherence-mark" \
				"$repo/tests/coherence/mark.c" || die "building the guest's helpers failed"
		"$here/stage-modules.sh" "$stage" "$kroot" "$kver" || die "stage-modules.sh failed"
		pack "$stage" "$base"
		rm -rf "$stage"
		stage=''
		# Older bases of this release are stale.
		find "$dir" -maxdepth 1 -name "base-$small$kver-*.cpio.gz" ! -path "$base" -delete
	fi
	exec 9>&-
	printf '%s\n' "$base"
}

build_overlay() {
	local dst=$1 kroot=$2 ko name n=0
	stage=$(mktemp -d)
	# Paths must avoid /lib, /bin, /sbin: they are links in the base, and a
	# directory entry of the same name would replace the link.
	mkdir -p "$stage/tests" "$stage/usr/lib/modules/$kver/extra"
	mkdir -p "$stage/tests/vm" "$stage/tests/lib"
	cp -r "$repo/tests/guest" "$repo/tests/standalone" "$stage/tests/"
	cp -r "$repo/tests/vm/guest" "$stage/tests/vm/guest"
	cp "$repo/tests/lib/ktap.sh" "$stage/tests/lib/"
	cp "$repo/tests/vm/guest/init" "$stage/init"
	mkdir -p "$stage/tools"
	cp -r "$repo/tools/ext4x-compare" "$stage/tools/ext4x-compare"
	cp -r "$repo/tools/fs-helpers" "$stage/tools/fs-helpers"
	# EXT4X_TOOLS_ROOT: the ext4x-tools package unpacked (dpkg -x): its
	# /usr/sbin/ext4x-compare and /usr/libexec/ext4x, as installed
	if [ -n "${EXT4X_TOOLS_ROOT:-}" ]; then
		[ -x "$EXT4X_TOOLS_ROOT/usr/sbin/ext4x-compare" ] ||
			die "EXT4X_TOOLS_ROOT=$EXT4X_TOOLS_ROOT holds no usr/sbin/ext4x-compare"
		mkdir -p "$stage/usr/sbin" "$stage/usr/libexec"
		cp "$EXT4X_TOOLS_ROOT/usr/sbin/ext4x-compare" "$EXT4X_TOOLS_ROOT/usr/sbin/mkfs.ext4x" \
			"$EXT4X_TOOLS_ROOT/usr/sbin/fsck.ext4x" "$stage/usr/sbin/"
		cp -r "$EXT4X_TOOLS_ROOT/usr/libexec/ext4x" "$stage/usr/libexec/ext4x"
	fi
	if [ -n "$extra" ]; then
		[ -d "$extra" ] || die "test directory $extra does not exist"
		mkdir -p "$stage/tests/extra"
		cp "$extra"/*.sh "$stage/tests/extra/"
	fi
	chmod 755 "$stage/init"
	if [ -n "$moddir" ]; then
		[ -d "$moddir" ] || die "module directory $moddir does not exist"
		while IFS= read -r -d '' ko; do
			name=${ko##*/}
			[ ! -e "$stage/usr/lib/modules/$kver/extra/$name" ] ||
				die "two modules named $name under $moddir"
			# depmod would pick one of two same-named modules.
			grep -qE "/${name%.ko}\.ko(\.(xz|zst|gz))?:" "$kroot/lib/modules/$kver/modules.dep" &&
				info "warning: $name in $moddir has the name of a distro module"
			cp "$ko" "$stage/usr/lib/modules/$kver/extra/"
			n=$((n + 1))
		done < <(find "$moddir" -name '*.ko' -print0)
	fi
	info "overlay: $n project module(s)"
	pack "$stage" "$dst"
	rm -rf "$stage"
	stage=''
}

stage=''
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	[ -z "$stage" ] || rm -rf "$stage"
}
trap cleanup EXIT

base=$(build_base)
if [ -z "$out" ]; then
	printf '%s\n' "$base"
	exit 0
fi
build_overlay "$out.overlay" "$("$here/fetch-kernel.sh" "$kver")"
cat "$base" "$out.overlay" >"$out.tmp"
rm -f "$out.overlay"
mv "$out.tmp" "$out"
