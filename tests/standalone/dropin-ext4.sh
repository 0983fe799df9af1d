#!/bin/sh
# The FLAVOUR=ext4 drop-in: our patched ext4 under the stock name, loaded
# instead of Debian's ext4.ko, mounts -t ext4 (DAX too) and runs on
# percpu_stats and mbcache2.
# Run by: tests/host/test-dropin.sh, with the drop-in modules
# timeout: 180
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh

mnt=/mnt/d
mkdir -p "$mnt"
ktap_check "modprobe ext4 loads the drop-in with mbcache2 and percpu_stats" sh -c \
	'modprobe ext4 && grep -q "^ext4 " /proc/modules &&
	 grep -q "^mbcache2 " /proc/modules && grep -q "^percpu_stats " /proc/modules'
ktap_check "the loaded ext4 is ours (extra/), not Debian's" sh -c \
	'modinfo -F filename ext4 | grep -q "/extra/" &&
	 case ",$(modinfo -F depends ext4)," in *,mbcache2,*) ;; *) exit 1 ;; esac'
ktap_check "mkfs.ext4 -I 128 on pmem0" mke2fs -q -F -t ext4 -I 128 /dev/pmem0
ktap_check "mount -t ext4 -o dax" mount -t ext4 -o dax /dev/pmem0 "$mnt"
ktap_check "dax=always and STATX_ATTR_DAX" sh -c \
	"grep -q '^/dev/pmem0 $mnt ext4 [^ ]*dax=always' /proc/mounts &&
	 echo x >$mnt/f && statx-dax $mnt/f"
use_it() {
	seq 1 50000 >"$mnt/data" &&
		setfattr -n user.a -v shared "$mnt/data" &&
		: >"$mnt/g" && setfattr -n user.a -v shared "$mnt/g" &&
		getfattr -d "$mnt/data" >/dev/null &&
		[ "$(md5sum <"$mnt/data")" = "$(seq 1 50000 | md5sum)" ]
}
ktap_check "write, xattrs, read back" use_it
ktap_check "its xattr cache is an mbcache2 cache" \
	test -r /sys/kernel/debug/mbcache2/pmem0-xattr/stats
ktap_check "es_shrinker_info under /proc/fs/ext4" \
	grep -q "cache hits/misses" /proc/fs/ext4/pmem0/es_shrinker_info
ktap_check "umount and unload" sh -c \
	"umount $mnt && rmmod ext4 && ! grep -q '^ext4 ' /proc/modules"
ktap_check "e2fsck -fn clean" /sbin/e2fsck -fn /dev/pmem0
