#!/bin/bash
# Download Debian's linux-image-KVER and extract it (never install it) into
#   ${EXT4X_CACHE:-/var/cache/ext4x-test}/kernel/KVER/root
# Prints that root directory (holding boot/vmlinuz-KVER and lib/modules/KVER).
# Usage: fetch-kernel.sh [KVER]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/common.sh
. "$here/common.sh"

kver=${1:-$(default_kver)}
dir=$(cache_root)/kernel/$kver
root=$dir/root
stamp=$dir/extracted.stamp
pkg=linux-image-$kver

want=$(installed_version "linux-headers-$kver")
[ -n "$want" ] || die "linux-headers-$kver is not installed (run tests/vm/deps.sh $kver)"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
	[ -f "$root/boot/vmlinuz-$kver" ]; then
	printf '%s\n' "$root"
	exit 0
fi

mkdir -p "$dir"
rm -rf "$root" "$stamp" "$dir"/dl
mkdir -p "$dir/dl"
info "downloading $pkg"
# apt-get download writes into the current directory and, as root, drops
# privileges to _apt, which must be able to write there.
(cd "$dir/dl" && chmod 777 . && apt-get download -q "$pkg" >&2) ||
	die "apt-get download $pkg failed (is $pkg in the archive? try apt-get update)"
deb=$(find "$dir/dl" -maxdepth 1 -name "${pkg}_*.deb" | head -n1)
[ -n "$deb" ] || die "no .deb for $pkg after download"

got=$(dpkg-deb -f "$deb" Version)
[ "$got" = "$want" ] ||
	die "$pkg version $got differs from installed linux-headers-$kver $want; modules built against these headers would not match"

info "extracting $deb"
tmp=$dir/root.tmp
rm -rf "$tmp"
dpkg-deb -x "$deb" "$tmp"
[ -f "$tmp/boot/vmlinuz-$kver" ] || die "$deb holds no boot/vmlinuz-$kver"
[ -d "$tmp/lib/modules/$kver" ] || die "$deb holds no lib/modules/$kver"
# The package ships no modules.dep (its postinst runs depmod); make one so
# module dependencies can be resolved from the extracted tree.
/sbin/depmod -b "$tmp" "$kver" || die "depmod on the extracted $pkg failed"
mv "$tmp" "$root"
rm -f "$deb"
rmdir "$dir/dl" 2>/dev/null || true
printf '%s\n' "$want" >"$stamp"
printf '%s\n' "$root"
