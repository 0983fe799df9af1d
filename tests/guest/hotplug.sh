#!/bin/sh
# CPU hotplug: CPU1 goes offline and online over and over while fio (crc32c
# verify) and the xattr load (tools/ext4x-compare/xattr-load) run on ext4x -o dax.
# With the load stopped, the statistics must be exact where the API says
# so: mbcache2's inserts - deletes - evictions == entries == stripe_entries,
# and a sum read before offlining CPU1 equals the sum read after it is back
# (mbcache2 stats, es_shrinker_info, mb_stats), i.e. no count that lived on
# CPU1 is lost or counted twice, and 1000 listxattr calls made with CPU1
# offline add exactly 1000 lookups and 1000 hits to the xattr cache's
# sums. 20 s of load (ext4x_long=1: 300 s).
# timeout: 600
# timeout-long: 900
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh

mnt=/mnt/hp
cpu=/sys/devices/system/cpu/cpu1/online
secs=20
[ "$(boot_param ext4x_long)" = 1 ] && secs=300
mkdir -p "$mnt"
if [ ! -w "$cpu" ]; then
	ktap_test_skip "cpu hotplug" "no $cpu"
	exit 0
fi
modprobe ext4x || {
	ktap_test_fail "modprobe ext4x" "$(ktap_dmesg | tail -n 10)"
	exit 1
}
# No lazy init thread writing behind the test's back.
dmesg -c >/dev/null
mke2fs -q -F -t ext4 -b 4096 -I 128 -E lazy_itable_init=0,lazy_journal_init=0 /dev/pmem0 512M
ktap_check "mount -t ext4x -o dax" \
	mount -t ext4x -o dax,noinit_itable /dev/pmem0 "$mnt"
ktap_check "mb_stats on" sh -c 'echo 1 >/sys/fs/ext4x/pmem0/mb_stats'
stats=/sys/kernel/debug/mbcache2/pmem0-xattr/stats
proc=/proc/fs/ext4x/pmem0
mkdir -p "$mnt/x" "$mnt/f"
ktap_check "xattr-load setup: 400 files" xattr-load -d "$mnt/x" -f 400 -s

field() { awk -v k="$1" '$1 == k { print $2 }' "$stats"; }
# snapshot FILE: every counter the test compares.
snapshot() {
	{
		grep -v '^stripe_entries\|^entry_bytes\|^stock' "$stats"
		sed -n '1,4p' "$proc/es_shrinker_info"
		cat "$proc/mb_stats"
	} >"$1"
}

# ---- load and hotplug together ------------------------------------------
xattr-load -d "$mnt/x" -f 400 -j 2 -t "$secs" -w 5 >"$KTAP_TMP/xl" 2>&1 &
xpid=$!
fio --directory="$mnt/f" --ioengine=psync --bs=4k --rw=randwrite \
	--verify=crc32c --do_verify=1 --verify_fatal=1 --size=16M --numjobs=2 \
	--loops=1000 --runtime="$secs" --name=h --group_reporting \
	>"$KTAP_TMP/fio" 2>&1 &
fpid=$!
flips=0 flipfail=0
end=$(($(date +%s) + secs))
while [ "$(date +%s)" -lt "$end" ]; do
	if echo 0 >"$cpu" && sleep 0.3 && echo 1 >"$cpu"; then
		flips=$((flips + 1))
	else
		flipfail=$((flipfail + 1))
		echo 1 >"$cpu" 2>/dev/null
	fi
	sleep 0.2
done
echo 1 >"$cpu" 2>/dev/null
wait $xpid
xrc=$?
i=0
while kill -0 $fpid 2>/dev/null && [ $i -lt 120 ]; do
	sleep 1
	i=$((i + 1))
done
kill $fpid 2>/dev/null
wait $fpid
frc=$?
ktap_print_msg "cpu1 offline/online cycles: $flips (failed: $flipfail)" "$(cat "$KTAP_TMP/xl")"
if [ "$flips" -ge 2 ] && [ "$flipfail" -eq 0 ]; then
	ktap_test_pass "cpu1 went offline and online $flips times during the load"
else
	ktap_test_fail "cpu1 went offline and online during the load" "$flips ok, $flipfail failed"
fi
ktap_check "xattr-load ran without a failed call" test "$xrc" -eq 0
if [ "$frc" -eq 0 ] && ! grep -qi "verify.*fail\|bad magic\|crc32c: " "$KTAP_TMP/fio"; then
	ktap_test_pass "fio crc32c verify during hotplug"
else
	ktap_test_fail "fio crc32c verify during hotplug" "exit $frc" "$(tail -n 20 "$KTAP_TMP/fio")"
fi
sync
ktap_print_msg "$(cat "$stats")"
mbcache2_counts_add_up "after the load with hotplug" "$stats"

# ---- quiet: sums do not move when CPU1 goes away and comes back ---------
sync
sleep 1
snapshot "$KTAP_TMP/s1"
ktap_check "cpu1 offline" sh -c "echo 0 >$cpu"
snapshot "$KTAP_TMP/s2"
ktap_check "cpu1 online" sh -c "echo 1 >$cpu"
snapshot "$KTAP_TMP/s3"
if cmp -s "$KTAP_TMP/s1" "$KTAP_TMP/s2" && cmp -s "$KTAP_TMP/s1" "$KTAP_TMP/s3"; then
	ktap_test_pass "mbcache2, es_shrinker_info and mb_stats sums unchanged by offline and online"
else
	ktap_test_fail "mbcache2, es_shrinker_info and mb_stats sums unchanged by offline and online" \
		"before / offline:" "$(diff "$KTAP_TMP/s1" "$KTAP_TMP/s2")" \
		"before / online again:" "$(diff "$KTAP_TMP/s1" "$KTAP_TMP/s3")"
fi
# A known amount of work with CPU1 offline lands in the sums exactly: on
# ext4, a listxattr of a file whose xattrs live in a block looks the block up
# in the cache once, and finds it.
# Read while CPU1 is still offline (its counts must be in the sum) and
# again once it is back.
lookups0=$(field lookups) hits0=$(field hits) dl1=x dh1=x
if echo 0 >"$cpu"; then
	xattr-load -d "$mnt/x" -f 400 -j 1 -n 1000 -w 0 -l >"$KTAP_TMP/xl1" 2>&1
	xrc=$?
	dl1=$(($(field lookups) - lookups0)) dh1=$(($(field hits) - hits0))
	echo 1 >"$cpu" || xrc="$xrc, cpu1 not back online"
else
	xrc="cpu1 did not go offline"
fi
dl=$(($(field lookups) - lookups0)) dh=$(($(field hits) - hits0))
if [ "$xrc" = 0 ] && [ "$dl1 $dh1 $dl $dh" = "1000 1000 1000 1000" ]; then
	ktap_test_pass "1000 listxattr with cpu1 offline: exactly 1000 lookups and hits"
else
	ktap_test_fail "1000 listxattr with cpu1 offline: exactly 1000 lookups and hits" \
		"xattr-load: $xrc $(cat "$KTAP_TMP/xl1")" \
		"lookups +$dl1, hits +$dh1 with cpu1 offline; +$dl, +$dh with it back"
fi
mbcache2_counts_add_up "after a load with cpu1 offline" "$stats"
umount "$mnt"
ktap_check "live mbcache2 entries 0 after umount" \
	sh -c '[ "$(cat /sys/kernel/debug/mbcache2/live_objects)" = 0 ]'
ktap_check "e2fsck -fn clean" /sbin/e2fsck -fn /dev/pmem0
ktap_check "no WARN, BUG or oops" ktap_kernel_clean "EXT4-fs error"
