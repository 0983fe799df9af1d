#!/bin/bash
# Copy the distro kernel modules listed in guest-modules.list, plus everything
# they depend on (modules.dep and softdeps), from an extracted linux-image
# tree into an initramfs staging directory, then index them with depmod.
# The host's /etc/modprobe.d is never read or copied.
# Usage: stage-modules.sh STAGE_DIR KERNEL_ROOT KVER
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/common.sh
. "$here/common.sh"

[ $# -eq 3 ] || die "usage: stage-modules.sh STAGE_DIR KERNEL_ROOT KVER"
stage=$1 kroot=$2 kver=$3
src=$kroot/lib/modules/$kver
dst=$stage/lib/modules/$kver
[ -f "$src/modules.dep" ] || die "$src/modules.dep missing (run fetch-kernel.sh)"

# show_depends NAME: set $shown to modprobe's answer for NAME ("insmod FILE"
# lines, dependencies first; "builtin NAME" when built in; nothing when the
# kernel lacks it)
show_depends() {
	shown=$(/sbin/modprobe -C /dev/null -d "$kroot" -S "$kver" --show-depends "$1" \
		2>/dev/null) || true
}

mkdir -p "$dst"
found=0
while read -r name; do
	case $name in '' | '#'*) continue ;; esac
	optional=0
	case $name in '?'*) optional=1 name=${name#?} ;; esac
	show_depends "$name"
	paths=$(sed -n 's/^insmod \([^ ]*\).*/\1/p' <<<"$shown")
	if [ -z "$paths" ]; then
		# Built into the kernel: nothing to copy. (7.x packages ship
		# modules.builtin.bin only, which modprobe reads.)
		if grep -q "^builtin " <<<"$shown" ||
			grep -q "/${name//-/[-_]}\.ko\$" "$src/modules.builtin" 2>/dev/null; then
			continue
		fi
		[ "$optional" = 1 ] && continue
		die "kernel module $name not found in $src"
	fi
	for ko in $paths; do
		rel=${ko#"$src"/}
		[ -e "$dst/$rel" ] && continue
		mkdir -p "$(dirname "$dst/$rel")"
		cp "$ko" "$dst/$rel"
		found=$((found + 1))
	done
done < "$here/guest-modules.list"

for f in modules.order modules.builtin modules.builtin.bin modules.builtin.modinfo; do
	[ ! -f "$src/$f" ] || cp "$src/$f" "$dst/$f"
done
/sbin/depmod -b "$stage" "$kver" || die "depmod -b $stage $kver failed"
info "staged $found kernel modules for $kver"
