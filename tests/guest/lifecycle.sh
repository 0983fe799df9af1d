#!/bin/sh
# Module lifecycle: 50 cycles of load (modprobe ext4x pulls in
# percpu_stats and mbcache2), mount -o dax, some file and xattr work,
# umount, unload of all three; after each cycle no module, slab cache,
# /proc, /sys, debugfs or tracefs entry of ours may be left, and while
# mounted the module references must be what the mounts account for: one
# for the one mount on ext4x, one per holder module on mbcache2 and
# percpu_stats (a cache or a counter takes none of its own).
# (ext4x_long=1 on the kernel command line: 300 cycles.)
# timeout: 600
# timeout-long: 1200
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh

cycles=50
[ "$(boot_param ext4x_long)" = 1 ] && cycles=300
mnt=/mnt/lc
mkdir -p "$mnt"
t=/sys/kernel/tracing
[ -d $t/events ] || mount -t tracefs nodev $t 2>/dev/null
dmesg -c >/dev/null
mke2fs -q -F -t ext4 -b 4096 -I 128 /dev/pmem0 128M

# leftovers: print what of ours is still there (nothing when clean).
leftovers() {
	grep -E "^(ext4x|mbcache2|percpu_stats) " /proc/modules
	grep -E "^(ext4x_|mbcache2)" /proc/slabinfo | cut -d' ' -f1
	for p in /proc/fs/ext4x /sys/fs/ext4x /sys/kernel/debug/mbcache2 \
		/sys/kernel/debug/percpu_stats /sys/kernel/slab/mbcache2_entry \
		/sys/kernel/slab/ext4x_inode_cache $t/events/ext4x \
		/sys/module/ext4x /sys/module/mbcache2 /sys/module/percpu_stats; do
		[ ! -e "$p" ] || echo "$p"
	done
	grep -qw ext4x /proc/filesystems && echo "ext4x in /proc/filesystems"
}

bad=
i=0
start=$(date +%s)
while [ $i -lt "$cycles" ]; do
	i=$((i + 1))
	modprobe ext4x || { bad="cycle $i: modprobe ext4x failed"; break; }
	# no mount: ext4x holds mbcache2 and percpu_stats, nothing else does
	r=$(cat /sys/module/ext4x/refcnt)
	[ "$r" = 0 ] || { bad="cycle $i: ext4x refcnt $r before mounting"; break; }
	mount -t ext4x -o dax /dev/pmem0 "$mnt" || { bad="cycle $i: mount failed"; break; }
	r=$(cat /sys/module/ext4x/refcnt)
	[ "$r" = 1 ] || { bad="cycle $i: ext4x refcnt $r with one mount"; break; }
	for m in mbcache2 percpu_stats; do
		r=$(cat /sys/module/$m/refcnt)
		h=$(ls /sys/module/$m/holders | wc -l)
		[ "$r" = "$h" ] || { bad="cycle $i: $m refcnt $r, $h holders"; break 2; }
	done
	mkdir -p "$mnt/d"
	echo "$i" >"$mnt/d/f$i"
	setfattr -n user.c -v "$((i % 4))" "$mnt/d/f$i"
	getfattr -d "$mnt/d/f$((i - 1))" >/dev/null 2>&1
	[ $((i % 10)) -ne 0 ] || rm -f "$mnt"/d/*
	[ -e /sys/kernel/debug/mbcache2/pmem0-xattr/stats ] ||
		{ bad="cycle $i: no mbcache2 stats while mounted"; break; }
	umount "$mnt" || { bad="cycle $i: umount failed"; break; }
	live=$(cat /sys/kernel/debug/mbcache2/live_objects)
	[ "$live" = 0 ] || { bad="cycle $i: $live mbcache2 entries alive after umount"; break; }
	r=$(cat /sys/module/ext4x/refcnt)
	[ "$r" = 0 ] || { bad="cycle $i: ext4x refcnt $r after umount"; break; }
	rmmod ext4x && rmmod mbcache2 && rmmod percpu_stats ||
		{ bad="cycle $i: unload failed"; break; }
	left=$(leftovers)
	[ -z "$left" ] || { bad="cycle $i: left behind: $left"; break; }
done
ktap_print_msg "$i cycles in $(($(date +%s) - start)) s"
if [ -z "$bad" ]; then
	ktap_test_pass "$cycles load, mount, umount, unload cycles leave nothing behind"
else
	ktap_test_fail "$cycles load, mount, umount, unload cycles leave nothing behind" "$bad"
fi
ktap_check "e2fsck -fn clean after the cycles" /sbin/e2fsck -fn /dev/pmem0
ktap_check "no WARN, BUG or oops" ktap_kernel_clean
