#!/bin/bash
# Build the ext4x-dkms and ext4x-tools .debs: stage the DKMS source tree
# (packaging/mkdkmssrc.sh), the sources of ext4x-compare
# (tools/ext4x-compare) and tools/fs-helpers, add packaging/debian with a changelog made
# from VERSION, dpkg-buildpackage -b.
# Usage: packaging/mkdeb.sh OUTDIR      -> OUTDIR/ext4x-dkms_VERSION_all.deb
#                                          OUTDIR/ext4x-tools_VERSION_ARCH.deb
# Needs debhelper and dh-dkms (scripts/install-deps.sh installs them).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: mkdeb.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(tr -d ' \n' <"$top/VERSION")
stage=$out/ext4x-$version

"$top/packaging/mkdkmssrc.sh" "$stage" >/dev/null
cp -r "$top/packaging/debian" "$stage/debian"
# the install guide, as /usr/share/doc/ext4x-dkms/README.Debian
cp "$top/docs/INSTALL.md" "$stage/debian/ext4x-dkms.README.Debian"
tools=$stage/tools/ext4x-compare
mkdir -p "$tools"
cp "$top/tools/ext4x-compare/ext4x-compare" "$top/tools/ext4x-compare/ext4x-compare.8" \
	"$top/tools/ext4x-compare/plot.sh" "$top/tools/ext4x-compare/xattr-load.c" \
	"$top/tools/ext4x-compare/statx-dax.c" "$tools/"
cp -r "$top/tools/fs-helpers" "$stage/tools/fs-helpers"
rev=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)
# the changelog's trailer names the same maintainer as debian/control
maint=$(sed -n 's/^Maintainer: //p' "$top/packaging/debian/control")
[ -n "$maint" ] || { echo "mkdeb: no Maintainer in packaging/debian/control" >&2; exit 1; }
cat >"$stage/debian/changelog" <<EOT
ext4x ($version) unstable; urgency=medium

  * ext4x $version, built from the ext4x tree at $rev.

 -- $maint  $(date -R)
EOT
arch=$(dpkg --print-architecture)
rm -f "$out/ext4x-dkms_${version}_all.deb" "$out/ext4x-tools_${version}_$arch.deb"
(cd "$stage" && dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1 || {
	tail -n 20 "$out/build.log" >&2
	echo "mkdeb: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
}
rm -rf "$stage"
echo "$out/ext4x-dkms_${version}_all.deb"
echo "$out/ext4x-tools_${version}_$arch.deb"
