#!/bin/bash
# Download Debian's linux-image-KVER (the -unsigned image when the signed one
# is not in the archive yet), of exactly the installed headers' Debian
# version, and extract it (never install it) into
#   ${EXT4X_CACHE:-/var/cache/ext4x-test}/kernel/KVER/root
# Prints that root directory (holding boot/vmlinuz-KVER and lib/modules/KVER).
# Usage: fetch-kernel.sh [--dpkg-root DIR] [KVER]
# EXT4X_KERNEL_ROOT=DIR: a kernel built here instead (tests/debug/build-kernel.sh):
#                  DIR holds boot/vmlinuz-KVER and lib/modules/KVER; it is
#                  checked and printed, nothing is downloaded.
#   --dpkg-root DIR  the kernel of another Debian root (a chroot, e.g. the
#                    Debian 13 one of tests/trixie): the expected version is
#                    that of linux-headers-KVER in DIR's dpkg database, and
#                    apt-get download runs in DIR (chroot), with DIR's
#                    sources. Default: $EXT4X_DPKG_ROOT; unset: this host.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/common.sh
. "$here/common.sh"

droot=${EXT4X_DPKG_ROOT:-}
if [ "${1:-}" = --dpkg-root ]; then
	[ $# -ge 2 ] || die "missing value for --dpkg-root"
	droot=$2
	shift 2
fi
if [ -n "$droot" ]; then
	[ -f "$droot/var/lib/dpkg/status" ] ||
		die "--dpkg-root $droot: not a Debian root (no var/lib/dpkg/status)"
	droot=$(cd "$droot" && pwd)
	[ $# -ge 1 ] || die "--dpkg-root needs the kernel release KVER"
fi
kver=${1:-$(default_kver)}
if [ -n "${EXT4X_KERNEL_ROOT:-}" ]; then
	[ -f "$EXT4X_KERNEL_ROOT/boot/vmlinuz-$kver" ] && [ -f "$EXT4X_KERNEL_ROOT/lib/modules/$kver/modules.dep" ] ||
		die "EXT4X_KERNEL_ROOT=$EXT4X_KERNEL_ROOT holds no boot/vmlinuz-$kver with lib/modules/$kver/modules.dep"
	printf '%s\n' "$EXT4X_KERNEL_ROOT"
	exit 0
fi
dir=$(cache_root)/kernel/$kver
root=$dir/root
stamp=$dir/extracted.stamp

if [ -n "$droot" ]; then
	want=$({ dpkg-query --admindir="$droot/var/lib/dpkg" -W \
		-f='${db:Status-Abbrev} ${Version}' "linux-headers-$kver" 2>/dev/null ||
		true; } | sed -n 's/^ii  *//p')
	[ -n "$want" ] || die "linux-headers-$kver is not installed in $droot"
else
	want=$(installed_version "linux-headers-$kver")
	[ -n "$want" ] || die "linux-headers-$kver is not installed (run scripts/install-deps.sh $kver)"
fi

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
	[ -f "$root/boot/vmlinuz-$kver" ]; then
	printf '%s\n' "$root"
	exit 0
fi

mkdir -p "$dir"
rm -rf "$root" "$stamp" "$dir"/dl
mkdir -p "$dir/dl"
# download PKG: apt-get download PKG=$want into $dir/dl, in $droot if set
download() {
	local cdl
	# apt-get download writes into the current directory and, as root,
	# drops privileges to _apt, which must be able to write there.
	if [ -n "$droot" ]; then
		# In the other root, with its apt sources and lists, into a
		# directory of its own that is removed again whatever happens.
		cdl=$(mktemp -d "$droot/tmp/ext4x-dl.XXXXXX")
		chmod 777 "$cdl"
		chroot "$droot" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			sh -c 'cd "$1" && apt-get download -q "$2"' sh "/tmp/${cdl##*/}" "$1=$want" >&2 &&
			find "$cdl" -maxdepth 1 -name "${1}_*.deb" -exec mv -t "$dir/dl" {} +
		local rc=$?
		rm -rf "$cdl"
		return $rc
	fi
	(cd "$dir/dl" && chmod 777 . && apt-get download -q "$1=$want" >&2)
}
pkg=linux-image-$kver
info "downloading $pkg $want${droot:+ in $droot}"
if ! download "$pkg"; then
	info "no $pkg $want to download: trying $pkg-unsigned"
	pkg=$pkg-unsigned
	download "$pkg" ||
		die "neither linux-image-$kver nor $pkg of version $want can be downloaded${droot:+ in $droot} (try apt-get update)"
fi
deb=$(find "$dir/dl" -maxdepth 1 -name "${pkg}_*.deb" | head -n1)
[ -n "$deb" ] || die "no .deb for $pkg after download"

got=$(dpkg-deb -f "$deb" Version)
[ "$got" = "$want" ] ||
	die "$pkg version $got differs from installed linux-headers-$kver $want${droot:+ (in $droot)}; modules built against these headers would not match"

info "extracting $deb"
tmp=$dir/root.tmp
rm -rf "$tmp"
dpkg-deb -x "$deb" "$tmp"
# Debian's 7.x linux-image-KVER holds neither: it depends on
# linux-binary-KVER (the kernel) and linux-modules-KVER, of its version.
if [ ! -f "$tmp/boot/vmlinuz-$kver" ]; then
	for part in binary modules; do
		dpkg-deb -f "$deb" Depends | tr ',' '\n' |
			grep -q "^ *linux-$part-$kver (= $want)" || continue
		pkg=linux-$part-$kver
		info "$deb depends on $pkg: downloading it"
		download "$pkg" || die "no $pkg $want to download${droot:+ in $droot}"
		part_deb=$(find "$dir/dl" -maxdepth 1 -name "${pkg}_*.deb" | head -n1)
		[ -n "$part_deb" ] && [ "$(dpkg-deb -f "$part_deb" Version)" = "$want" ] ||
			die "no $pkg .deb of version $want after download"
		dpkg-deb -x "$part_deb" "$tmp"
	done
	# and keeps the kernel as /usr/lib/modules/KVER/vmlinuz
	if [ -f "$tmp/usr/lib/modules/$kver/vmlinuz" ]; then
		mkdir -p "$tmp/boot"
		cp "$tmp/usr/lib/modules/$kver/vmlinuz" "$tmp/boot/vmlinuz-$kver"
	fi
fi
[ -f "$tmp/boot/vmlinuz-$kver" ] || die "$deb holds no boot/vmlinuz-$kver"
# Debian 13's packages ship usr/lib/modules (merged /usr): give the tree
# the lib -> usr/lib link such a system has, so lib/modules/KVER is found.
if [ ! -e "$tmp/lib" ] && [ -d "$tmp/usr/lib/modules/$kver" ]; then
	ln -s usr/lib "$tmp/lib"
fi
[ -d "$tmp/lib/modules/$kver" ] || die "$deb holds no lib/modules/$kver"
# The package ships no modules.dep (its postinst runs depmod); make one so
# module dependencies can be resolved from the extracted tree.
/sbin/depmod -b "$tmp" "$kver" || die "depmod on the extracted $pkg failed"
mv "$tmp" "$root"
rm -f "$deb"
rmdir "$dir/dl" 2>/dev/null || true
printf '%s\n' "$want" >"$stamp"
printf '%s\n' "$root"
