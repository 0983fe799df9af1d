#!/bin/bash
# Build the ext4x source package and, from it, the ext4x-dkms and ext4x-tools
# .debs: dpkg-source -b on this tree (debian/source/options keeps build
# output and test results out), dpkg-source -x of the result into OUTDIR,
# and dpkg-buildpackage -us -uc there. Building from the extracted source
# package proves it is complete; the checkout is only read.
# Usage: packaging/mkdeb.sh OUTDIR
#   -> OUTDIR/ext4x_VERSION.dsc, ext4x_VERSION.tar.xz, ext4x_VERSION_ARCH.changes,
#      ext4x-dkms_VERSION_all.deb, ext4x-tools_VERSION_ARCH.deb
#      (the two .deb paths are printed; OUTDIR/build.log has the build's output)
# Needs dpkg-dev, debhelper and dh-dkms (scripts/install-deps.sh installs them).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: mkdeb.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(tr -d ' \n' <"$top/VERSION")
have=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
[ "$have" = "$version" ] || {
	echo "mkdeb: debian/changelog's version is $have, VERSION says $version: add a changelog entry (dch -v $version)" >&2
	exit 1
}
arch=$(dpkg --print-architecture)
src=$out/src
rm -rf "$src" "$out/ext4x-$version"
rm -f "$out"/ext4x_"$version"* "$out/ext4x-dkms_${version}_all.deb" "$out/ext4x-tools_${version}_$arch.deb"
mkdir -p "$src"
log=$out/build.log
{
	(cd "$src" && dpkg-source -b "$top") &&
		dpkg-source -x "$src/ext4x_$version.dsc" "$out/ext4x-$version" &&
		(cd "$out/ext4x-$version" && dpkg-buildpackage -us -uc)
} >"$log" 2>&1 || {
	tail -n 20 "$log" >&2
	echo "mkdeb: building the package failed (log: $log)" >&2
	exit 1
}
rm -rf "$src" "$out/ext4x-$version"
echo "$out/ext4x-dkms_${version}_all.deb"
echo "$out/ext4x-tools_${version}_$arch.deb"
