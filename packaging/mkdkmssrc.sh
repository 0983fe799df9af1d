#!/bin/bash
# Stage the DKMS source tree of ext4x: exactly the files a module build needs,
# with a generated dkms.conf. Used by `make dkms-src` (into /usr/src/ext4x-VERSION)
# and by `make deb` (the tree the .deb ships under /usr/src).
# Usage: packaging/mkdkmssrc.sh DEST
#
# Contents: Kbuild, VERSION, dkms.conf, dkms-pre-build.sh, dkms-check.sh, percpu_stats/ and
# mbcache2/ (Kbuild, *.c, *.h), ext4-backport/ (Kbuild, prepare.sh, ext4x_version.c, rename.sh,
# rename-globals.txt, patches/). Never tests, benchmarks, docs or build output:
# the kernel's ext4 source is extracted at build time by prepare.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:?usage: mkdkmssrc.sh DEST}
version=$(tr -d ' \n' <"$top/VERSION")
[[ $version =~ ^[0-9][0-9A-Za-z.+~]*$ ]] || { echo "mkdkmssrc: bad VERSION '$version'" >&2; exit 1; }

cd "$top"
files=(Kbuild VERSION ext4-backport/Kbuild ext4-backport/prepare.sh ext4-backport/ext4x_version.c
	ext4-backport/rename.sh ext4-backport/rename-globals.txt)
for d in percpu_stats mbcache2; do
	files+=("$d/Kbuild")
	for f in "$d"/*.c "$d"/*.h; do
		case $f in *.mod.c | *'*'*) continue ;; esac
		files+=("$f")
	done
done
# every series dir: X.Y/series and the patch files it may name
while IFS= read -r f; do files+=("$f"); done < <(find ext4-backport/patches -type f \
	! -name '*.orig' ! -name '*.rej' ! -name '*~' | sort)

# supported kernel series X.Y: the dirs with a series file
# shellcheck disable=SC2012 # X.Y dir names
series=$(cd ext4-backport/patches && ls -d -- */series | sed 's,/series$,,' | sort -V)
[ -n "$series" ] || { echo "mkdkmssrc: no ext4-backport/patches/X.Y/series" >&2; exit 1; }
kernel_re="^($(echo "$series" | sed 's/\./\\./g' | paste -sd'|'))\\."
have=$(echo "$series" | paste -sd, | sed 's/,/, /g')

rm -rf "$dest"
mkdir -p "$dest"
cp --parents -p -t "$dest" "${files[@]}"
install -m 755 packaging/dkms/pre-build.sh "$dest/dkms-pre-build.sh"
install -m 755 packaging/dkms/check.sh "$dest/dkms-check.sh"
sed -e "s/@VERSION@/$version/g" -e "s/@KERNEL_RE@/${kernel_re//\\/\\\\}/g" \
	-e "s/@SERIES@/$have/g" packaging/dkms/dkms.conf.in >"$dest/dkms.conf"
chmod -R u=rwX,go=rX "$dest"
echo "mkdkmssrc: ext4x $version (kernels $have) staged in $dest"
