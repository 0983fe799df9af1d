#!/bin/sh
# ext4x as a file system: module dependencies, DAX and non-DAX mounts, fio
# with verification, the xattr block cache on mbcache2 (hits, no insert
# churn on getxattr), on-disk compatibility with stock ext4 both ways, and
# nothing left behind after unmount and unload.
# timeout: 420
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh

mnt=/mnt/x
mkdir -p "$mnt" /mnt/s

# ---- loading ----------------------------------------------------------------
modprobe -r ext4x percpu_stats_test mbcache2_test 2>/dev/null
ktap_check "modprobe ext4x pulls in percpu_stats and mbcache2" sh -c \
	'modprobe ext4x && grep -q "^ext4x " /proc/modules &&
	 grep -q "^mbcache2 " /proc/modules && grep -q "^percpu_stats " /proc/modules'
ktap_check "ext4x depends on mbcache2 and percpu_stats, not mbcache" sh -c \
	'd=,$(modinfo -F depends ext4x),; case $d in *,mbcache,*) exit 1 ;; esac
	 case $d in *,mbcache2,*) ;; *) exit 1 ;; esac
	 case $d in *,percpu_stats,*) ;; *) exit 1 ;; esac'

# ---- DAX and non-DAX mounts ---------------------------------------------------
ktap_check "mkfs.ext4 on pmem0" mke2fs -q -F -t ext4 /dev/pmem0
if mount -t ext4x -o dax /dev/pmem0 "$mnt" 2>"$KTAP_TMP/err"; then
	echo dax >"$mnt/probe"
	ktap_check "mount -t ext4x -o dax: dax=always in /proc/mounts" \
		grep -q "^/dev/pmem0 $mnt ext4x [^ ]*dax=always" /proc/mounts
	ktap_check "mount -t ext4x -o dax: STATX_ATTR_DAX on a file" \
		statx-dax "$mnt/probe"
else
	ktap_test_fail "mount -t ext4x -o dax" "$(cat "$KTAP_TMP/err")" \
		"$(ktap_dmesg | tail -n 10)"
	ktap_test_skip "STATX_ATTR_DAX on a file" "mount failed"
fi

# Two groups of two jobs, each group on its own shared file, every job on
# its own slice of it; then every block is read back and checked.
fio_verify() {
	fio --directory="$mnt" --ioengine=psync --bs=4k --rw=randwrite \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --size=16M \
		--offset_increment=16M --numjobs=2 --group_reporting \
		--name=a --filename=shared1 --name=b --filename=shared2 \
		>"$KTAP_TMP/fio" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && ! grep -qi "verify.*fail\|bad magic\|crc32c: " "$KTAP_TMP/fio"; then
		return 0
	fi
	tail -n 30 "$KTAP_TMP/fio"
	return 1
}
ktap_check "fio crc32c verify, 4 jobs on 2 shared files, DAX" fio_verify
umount "$mnt" 2>/dev/null

if mount -t ext4x /dev/pmem0 "$mnt" 2>"$KTAP_TMP/err"; then
	echo plain >"$mnt/probe2"
	ktap_check "mount -t ext4x without dax: not DAX" sh -c \
		"! grep -q '^/dev/pmem0 $mnt ext4x [^ ]*dax' /proc/mounts &&
		 ! statx-dax $mnt/probe2"
	ktap_check "fio crc32c verify, 4 jobs on 2 shared files, no DAX" fio_verify
	umount "$mnt"
else
	ktap_test_fail "mount -t ext4x without dax" "$(cat "$KTAP_TMP/err")"
	ktap_test_skip "fio verify without dax" "mount failed"
fi

# ---- the xattr block cache ---------------------------------------------------
# 128-byte inodes leave no room in the inode, so every xattr lives in an
# external block; files with identical xattrs share one block.
nfiles=300
ktap_check "mkfs.ext4 -I 128" mke2fs -q -F -t ext4 -I 128 /dev/pmem0
mount -t ext4x -o dax,acl,user_xattr /dev/pmem0 "$mnt"
stats=/sys/kernel/debug/mbcache2/pmem0-xattr/stats
stat_of() { awk -v k="$1" '$1 == k { print $2 }' "$stats"; }
ktap_check "per-device cache in debugfs: mbcache2/pmem0-xattr/stats" test -r "$stats"

populate() {
	i=0
	while [ $i -lt $nfiles ]; do
		f=$mnt/f$i
		: >"$f" &&
			setfattr -n user.owner -v "team-storage" "$f" &&
			setfattr -n user.policy -v "retain=30d,class=gold" "$f" &&
			setfacl -m u:1000:rw,g:100:r "$f" || return 1
		i=$((i + 1))
	done
}
ktap_check "$nfiles files with identical ACLs and user xattrs" populate
used=$(df -k "$mnt" | awk 'NR == 2 { print $3 }')
ktap_print_msg "blocks in use after populating: ${used} KiB"

# Reset the counters, then only read: every file's xattrs, twice.
echo reset >"${stats%/stats}/reset"
read_all() {
	i=0
	while [ $i -lt $nfiles ]; do
		getfattr -d "$mnt/f$i" >/dev/null 2>&1 || return 1
		getfacl -c "$mnt/f$i" >/dev/null 2>&1 || return 1
		i=$((i + 1))
	done
}
read_twice() { read_all && read_all; }
ktap_check "getfattr and getfacl on every file, twice" read_twice
hits=$(stat_of hits)
inserts=$(stat_of inserts)
dups=$(stat_of duplicates)
ktap_print_msg "after reads: hits $hits, inserts $inserts, duplicates $dups"
if [ "${hits:-0}" -ge "$nfiles" ]; then
	ktap_test_pass "getxattr of shared blocks hits the cache ($hits hits)"
else
	ktap_test_fail "getxattr of shared blocks hits the cache" "$(cat "$stats")"
fi
if [ "${inserts:-1}" -eq 0 ] && [ "${dups:-1}" -eq 0 ]; then
	ktap_test_pass "getxattr and listxattr cause no insert churn"
else
	ktap_test_fail "getxattr and listxattr cause no insert churn" "$(cat "$stats")"
fi
# Setting a new value gives the file a new block: that is a real insert.
setfattr -n user.policy -v "retain=90d" "$mnt/f0"
ktap_check "a new xattr block is inserted" sh -c "[ \"\$(awk '\$1 == \"inserts\" { print \$2 }' $stats)\" -ge 1 ]"
umount "$mnt"
ktap_check "debugfs cache dir goes with the unmount" test ! -e "${stats%/stats}"
ktap_check "e2fsck -fn clean after the xattr load" /sbin/e2fsck -fn /dev/pmem0

# ---- on-disk compatibility, both ways ----------------------------------------
# write_set FSTYPE: files of random data and xattrs, then a manifest.
write_set() {
	mount -t "$1" /dev/pmem0 "$mnt" || return 1
	mkdir -p "$mnt/d/e"
	for n in 1 2 3 4 5 6 7 8; do
		dd if=/dev/urandom of="$mnt/d/r$n" bs=4k count=$((n * 37)) 2>/dev/null
		setfattr -n user.n -v "value-$n" "$mnt/d/r$n"
	done
	dd if=/dev/urandom of="$mnt/d/e/big" bs=1M count=24 2>/dev/null
	ln -s r1 "$mnt/d/link"
	manifest >/tmp/manifest.$1
	umount "$mnt"
}
manifest() {
	(cd "$mnt" && find d -type f | sort | xargs md5sum &&
		getfattr -R -d d 2>/dev/null && readlink d/link)
}
check_with() {
	mount -t "$1" -o ro /dev/pmem0 "$mnt" || return 1
	manifest >/tmp/manifest.read
	umount "$mnt"
	cmp /tmp/manifest.read "/tmp/manifest.$2"
}
mke2fs -q -F -t ext4 /dev/pmem0
ktap_check "ext4x writes a tree of files and xattrs" write_set ext4x
ktap_check "e2fsck -fn clean after ext4x" /sbin/e2fsck -fn /dev/pmem0
ktap_check "stock ext4 reads ext4x's files byte for byte" check_with ext4 ext4x
mke2fs -q -F -t ext4 /dev/pmem0
ktap_check "stock ext4 writes a tree of files and xattrs" write_set ext4
ktap_check "e2fsck -fn clean after stock ext4" /sbin/e2fsck -fn /dev/pmem0
ktap_check "ext4x reads stock ext4's files byte for byte" check_with ext4x ext4

# ---- leaving nothing behind --------------------------------------------------
unload_suite() {
	rmmod ext4x && rmmod mbcache2 && rmmod percpu_stats || {
		grep -E "^(ext4x|mbcache2|percpu_stats) " /proc/modules
		return 1
	}
	! grep -qE "^(ext4x|mbcache2|percpu_stats) " /proc/modules
}
ktap_check "ext4x, mbcache2 and percpu_stats unload" unload_suite
ktap_check "no ext4x slab cache, proc, sysfs or debugfs entry left" sh -c \
	'! grep -qE "^(ext4x_|mbcache2)" /proc/slabinfo && ! test -e /proc/fs/ext4x &&
	 ! test -e /sys/fs/ext4x && ! test -e /sys/kernel/debug/mbcache2 &&
	 ! test -e /sys/kernel/debug/percpu_stats && ! test -e /sys/kernel/tracing/events/ext4x'
