#!/bin/bash
# Stage the DKMS source tree of ext4x: exactly the files a module build needs,
# with the top-level dkms.conf (which must agree with VERSION and the patch
# series dirs: packaging/dkms/conf-agrees.sh). Used by `make dkms-src` (into /usr/src/ext4x-VERSION)
# and by `make deb` (the tree the .deb ships under /usr/src).
# Usage: packaging/mkdkmssrc.sh DEST
#
# Contents: Kbuild, VERSION, dkms.conf, packaging/dkms/{pre-build,check}.sh, percpu_stats/ and
# mbcache2/ (Kbuild, *.c, *.h), ext4-backport/ (Kbuild, prepare.sh, series.sh, ext4x_version.c, rename.sh,
# rename-globals.txt, check-drains.sh, patches/). Never tests, benchmarks, docs or build output:
# the kernel's ext4 source is extracted at build time by prepare.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:?usage: mkdkmssrc.sh DEST}
version=$(tr -d ' \n' <"$top/VERSION")
[[ $version =~ ^[0-9][0-9A-Za-z.+~]*$ ]] || { echo "mkdkmssrc: bad VERSION '$version'" >&2; exit 1; }

cd "$top"
files=(Kbuild VERSION ext4-backport/Kbuild ext4-backport/prepare.sh ext4-backport/series.sh
	ext4-backport/ext4x_version.c
	ext4-backport/rename.sh ext4-backport/rename-globals.txt ext4-backport/check-drains.sh)
for d in percpu_stats mbcache2; do
	files+=("$d/Kbuild")
	for f in "$d"/*.c "$d"/*.h; do
		case $f in *.mod.c | *'*'*) continue ;; esac
		files+=("$f")
	done
done
# every series dir: X.Y/series and the patch files it may name
while IFS= read -r f; do files+=("$f"); done < <(find ext4-backport/patches \( -type f -o -type l \) \
	! -name '*.orig' ! -name '*.rej' ! -name '*~' | sort)

"$top/packaging/dkms/conf-agrees.sh" "$top" || {
	echo "mkdkmssrc: dkms.conf disagrees with the tree (see above)" >&2
	exit 1
}
have=$(sed -n 's/.*(have: \([^)]*\)).*/\1/p' dkms.conf)
files+=(dkms.conf packaging/dkms/pre-build.sh packaging/dkms/check.sh)

rm -rf "$dest"
mkdir -p "$dest"
cp --parents -p -t "$dest" "${files[@]}"
chmod -R u=rwX,go=rX "$dest"
echo "mkdkmssrc: ext4x $version (kernels $have) staged in $dest"
