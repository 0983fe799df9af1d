#!/bin/sh
# ext4x-load: ext4x.ko loads beside the stock ext4 module, both mount at once, each
# with its own fs type, /proc/fs, /sys/fs, slab caches and trace events; a file system
# written by ext4x mounts with stock ext4 (same on-disk format); ext4x unloads cleanly.
# Run alone: make check-guest TESTS=ext4x-load KVER=...
# timeout: 240
. /tests/vm/guest/lib.sh

mkdir -p /mnt/x /mnt/s
# Alone, ext4x registers ext4x and nothing else (stock ext4 takes ext2 and
# ext3 too; had ext4x tried, it would hold those names while ext4 is out).
# shellcheck disable=SC2317 # called through ktap_check
ext4x_alone() {
	/sbin/modprobe -r ext4x 2>/dev/null
	/sbin/modprobe -r ext4 2>/dev/null
	if grep -qE '[[:space:]]ext[234]x?$' /proc/filesystems; then
		echo "stock ext4 or ext4x still loaded: $(lsmod | grep ext4)"
		return 1
	fi
	awk '{ print $NF }' /proc/filesystems | sort >"$KTAP_TMP/fs.before"
	/sbin/modprobe ext4x || return 1
	awk '{ print $NF }' /proc/filesystems | sort >"$KTAP_TMP/fs.after"
	_new=$(grep -vxF -f "$KTAP_TMP/fs.before" "$KTAP_TMP/fs.after" | tr '\n' ' ')
	/sbin/modprobe -r ext4x
	[ "$_new" = "ext4x " ] || { echo "ext4x registered: $_new"; return 1; }
	! modinfo -F alias ext4x | grep -q 'ext[23]'
}
ktap_check "ext4x alone registers ext4x only, no ext2/ext3" ext4x_alone
ktap_check "stock ext4 loads" modprobe ext4
ktap_check "ext4x loads beside it" modprobe ext4x
# shellcheck disable=SC2317 # called through ktap_check
series_named() {
	_s=$(modinfo -F series ext4x)
	echo "series: $_s"
	_xy=$(uname -r | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
	case $_s in "$_xy: "*extent-status-statistics-on-percpu_stats*) return 0 ;; esac
	return 1
}
ktap_check "modinfo -F series ext4x: this kernel's series and its patches" series_named
ktap_check "both fs types registered" sh -c \
	'grep -qx "[[:space:]]*ext4" /proc/filesystems && grep -qx "[[:space:]]*ext4x" /proc/filesystems'
ktap_check "/sys/fs/ext4x and /proc/fs/ext4x exist" test -d /sys/fs/ext4x -a -d /proc/fs/ext4x -a -d /sys/fs/ext4
ktap_check "slab ext4x_inode_cache beside ext4_inode_cache" sh -c \
	'grep -q "^ext4x_inode_cache " /proc/slabinfo && grep -q "^ext4_inode_cache " /proc/slabinfo'
t=/sys/kernel/tracing
[ -d $t/events ] || mount -t tracefs nodev $t 2>/dev/null
ktap_check "trace events/ext4x/ext4x_* beside events/ext4" sh -c \
	"test -d $t/events/ext4x/ext4x_da_write_begin && test -d $t/events/ext4/ext4_da_write_begin"

# two file systems: pmem0 for ext4x (DAX), a loop file for stock ext4
dd if=/dev/zero of=/tmp/s.img bs=1M count=64 2>/dev/null
ktap_check "mkfs on pmem0 and a loop file" sh -c \
	'/sbin/mke2fs -q -F -t ext4 /dev/pmem0 && /sbin/mke2fs -q -F -t ext4 /tmp/s.img'
modprobe loop 2>/dev/null
loopdev=$(losetup -f)
ktap_check "loop device $loopdev for stock ext4" losetup "$loopdev" /tmp/s.img
ktap_check "mount -t ext4x (dax)" mount -t ext4x -o dax /dev/pmem0 /mnt/x
ktap_check "mount -t ext4 at the same time" mount -t ext4 "$loopdev" /mnt/s
ktap_check "/proc/mounts types" sh -c \
	'grep -q "^/dev/pmem0 /mnt/x ext4x .*dax" /proc/mounts && grep -q " /mnt/s ext4 " /proc/mounts'
ktap_check "per-fs dirs under /sys/fs/ext4x and /proc/fs/ext4x" \
	test -d /sys/fs/ext4x/pmem0 -a -d /proc/fs/ext4x/pmem0 -a ! -e /sys/fs/ext4/pmem0
ktap_check "write, mkdir, read back on ext4x" sh -c \
	'seq 1 20000 >/mnt/x/f && mkdir /mnt/x/d && touch /mnt/x/d/a && sync &&
	 [ "$(md5sum </mnt/x/f)" = "$(seq 1 20000 | md5sum)" ]'
ktap_check "write on stock ext4" sh -c 'seq 1 20000 >/mnt/s/f && sync'
ktap_check "umount both" sh -c 'umount /mnt/x && umount /mnt/s'
ktap_check "ext4x's file system mounts with stock ext4, data intact" sh -c \
	'mount -t ext4 /dev/pmem0 /mnt/s && [ "$(md5sum </mnt/s/f)" = "$(seq 1 20000 | md5sum)" ] && umount /mnt/s'
if command -v e2fsck >/dev/null 2>&1 || [ -x /sbin/e2fsck ]; then
	ktap_check "e2fsck clean after ext4x" /sbin/e2fsck -fn /dev/pmem0
else
	ktap_test_skip "e2fsck clean after ext4x" "no e2fsck"
fi
ktap_check "rmmod ext4x, stock ext4 stays" sh -c \
	'rmmod ext4x && ! grep -q "^ext4x " /proc/modules && grep -q "^ext4 " /proc/modules &&
	 ! test -e /sys/fs/ext4x && ! test -e /proc/fs/ext4x && ! grep -q "^ext4x_" /proc/slabinfo'
ktap_check "no kernel warning or BUG" \
	ktap_kernel_clean "kmem_cache_create.*duplicate|sysfs: cannot create duplicate"
losetup -d "$loopdev" 2>/dev/null
