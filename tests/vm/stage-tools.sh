#!/bin/bash
# Populate an initramfs staging directory with busybox, the programs named in
# guest-tools.list and their shared libraries, laid out as a merged-/usr
# system (/bin, /sbin, /lib, /lib64 are links into /usr).
# Usage: stage-tools.sh STAGE_DIR [--small]
#   --small  leave out the programs marked "big" in guest-tools.list
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/common.sh
. "$here/common.sh"

[ $# -eq 1 ] || { [ $# -eq 2 ] && [ "$2" = --small ]; } ||
	die "usage: stage-tools.sh STAGE_DIR [--small]"
stage=$1
small=${2:+1}

mkdir -p "$stage"/usr/bin "$stage"/usr/sbin "$stage"/usr/lib "$stage"/usr/lib64
for d in bin sbin lib lib64; do
	[ -L "$stage/$d" ] || ln -s "usr/$d" "$stage/$d"
done
mkdir -p "$stage"/dev "$stage"/proc "$stage"/sys "$stage"/tmp "$stage"/mnt \
	"$stage"/run "$stage"/root "$stage"/etc "$stage"/var/tmp
[ -e "$stage/dev/console" ] || mknod -m 600 "$stage/dev/console" c 5 1
[ -e "$stage/dev/null" ] || mknod -m 666 "$stage/dev/null" c 1 3

# Copy one file to the same absolute path under the stage (following links).
copy_file() {
	local src=$1 dst=$stage$1
	[ -e "$dst" ] && return 0
	mkdir -p "$(dirname "$dst")"
	cp -L "$src" "$dst"
}

# Copy a dynamically linked program's libraries and its loader.
copy_libs() {
	local lib
	# ldd prints "name => /path (addr)" or "/path (addr)" for the loader.
	while read -r lib; do
		copy_file "$lib"
	done < <(ldd "$1" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p')
}

# Busybox first: every applet becomes a link, later replaced by real programs.
bb=$(command -v busybox) || die "busybox not found (install busybox-static)"
cp -L "$bb" "$stage/usr/bin/busybox"
copy_libs "$bb"
for applet in $("$bb" --list); do
	[ "$applet" = busybox ] && continue
	ln -sf busybox "$stage/usr/bin/$applet"
done

while read -r name size; do
	case $name in '' | '#'*) continue ;; esac
	[ "$size" = big ] && [ -n "$small" ] && continue
	optional=0
	case $name in '?'*) optional=1 name=${name#?} ;; esac
	path=$(command -v "$name" || true)
	if [ -z "$path" ]; then
		[ "$optional" = 1 ] && continue
		die "$name not found on the host (run scripts/install-deps.sh)"
	fi
	case $path in /usr/sbin/* | /sbin/*) dir=usr/sbin ;; *) dir=usr/bin ;; esac
	# A busybox applet of the same name must not shadow the real program.
	rm -f "$stage/usr/bin/$name" "$stage/usr/sbin/$name"
	cp -L "$path" "$stage/$dir/$name"
	copy_libs "$path"
done < "$here/guest-tools.list"

# kmod provides the module tools; busybox has applets of the same names.
for t in modprobe depmod insmod rmmod lsmod modinfo; do
	rm -f "$stage/usr/bin/$t" "$stage/usr/sbin/$t"
	ln -s ../bin/kmod "$stage/usr/sbin/$t"
done
# mke2fs is also a busybox applet; the e2fsprogs one is in /usr/sbin.
rm -f "$stage/usr/bin/mke2fs"

printf 'root:x:0:0:root:/root:/bin/sh\n' >"$stage/etc/passwd"
printf 'root:x:0:\n' >"$stage/etc/group"
: >"$stage/etc/fstab"
[ ! -f /etc/mke2fs.conf ] || cp /etc/mke2fs.conf "$stage/etc/mke2fs.conf"
ln -sf /proc/self/mounts "$stage/etc/mtab"
