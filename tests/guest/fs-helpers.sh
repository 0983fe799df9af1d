#!/bin/sh
# fs-helpers: mkfs.ext4x and fsck.ext4x (tools/fs-helpers; the ext4x-tools
# package's /usr/sbin copies when the guest has the package): mkfs.ext4x
# makes a file system that mount -t ext4x -o dax=always takes, fsck.ext4x
# finds it clean after ext4x wrote to it, and reports it once its
# superblock's magic is gone (exit status 4 or more, as e2fsck's).
# Run alone: make check-guest TESTS=fs-helpers KVER=...
# timeout: 120
. /tests/vm/guest/lib.sh

dir=/tools/fs-helpers
[ "$(boot_param ext4x_tools)" != 1 ] || dir=/usr/sbin
ktap_print_msg "mkfs.ext4x and fsck.ext4x from $dir"
mnt=/mnt/fsh
mkdir -p "$mnt"
ktap_set_plan 6
ktap_check "mkfs.ext4x /dev/pmem0" "$dir/mkfs.ext4x" -q -F /dev/pmem0
ktap_check "mount -t ext4x -o dax=always takes it" sh -c \
	"modprobe ext4x && mount -t ext4x -o dax=always /dev/pmem0 $mnt"
ktap_check "ext4x writes to it with DAX on" sh -c \
	"grep -q ' $mnt ext4x .*dax=always' /proc/mounts &&
	 dd if=/dev/urandom of=$mnt/f bs=1M count=4 2>/dev/null && sync && umount $mnt"
ktap_check "fsck.ext4x -fn finds it clean" "$dir/fsck.ext4x" -fn /dev/pmem0
# the primary superblock's magic (bytes 1080-1081) zeroed
printf '\000\000' | dd of=/dev/pmem0 bs=1 seek=1080 conv=notrunc 2>/dev/null
"$dir/fsck.ext4x" -fn /dev/pmem0 >"$KTAP_TMP/fsck.out" 2>&1
rc=$?
if [ "$rc" -ge 4 ]; then
	ktap_test_pass "fsck.ext4x -fn reports the broken superblock (exit $rc)"
else
	ktap_test_fail "fsck.ext4x -fn reports the broken superblock" "exit $rc" \
		"$(tail -n 5 "$KTAP_TMP/fsck.out")"
fi
ktap_check "ext4x unloads" modprobe -r ext4x
