#!/bin/bash
# Build the ext4x-dkms .deb: stage the DKMS source tree (packaging/mkdkmssrc.sh),
# add packaging/debian with a changelog made from VERSION, dpkg-buildpackage -b.
# Usage: packaging/mkdeb.sh OUTDIR      -> OUTDIR/ext4x-dkms_VERSION_all.deb
# Needs debhelper and dh-dkms (tests/vm/deps.sh installs them).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: mkdeb.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(tr -d ' \n' <"$top/VERSION")
stage=$out/ext4x-$version

"$top/packaging/mkdkmssrc.sh" "$stage" >/dev/null
cp -r "$top/packaging/debian" "$stage/debian"
rev=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)
cat >"$stage/debian/changelog" <<EOT
ext4x ($version) unstable; urgency=medium

  * ext4x $version, built from the ext4x tree at $rev.

 -- ext4x project <ext4x@localhost>  $(date -R)
EOT
rm -f "$out/ext4x-dkms_${version}_all.deb"
(cd "$stage" && dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1 || {
	tail -n 20 "$out/build.log" >&2
	echo "mkdeb: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
}
rm -rf "$stage"
echo "$out/ext4x-dkms_${version}_all.deb"
