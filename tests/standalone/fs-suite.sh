#!/bin/sh
# stress-ng's filesystem class, an outside test suite (Debian's stress-ng),
# on Debian's own ext4.ko and then on our drop-in ext4 (FLAVOUR=ext4), both
# mounted -t ext4 -o dax on a fresh mkfs of /dev/pmem0: every stressor of
# the class, one instance, with --verify, each for ext4x_suite_secs seconds
# (default 3). A stressor's outcome is stress-ng's exit status (0 passed,
# 2 failed, 3 not run here: a missing feature or privilege, ...). One
# result a stressor: the drop-in's outcome equals stock's. Then for each
# side: e2fsck -fn clean, and no WARN, BUG, oops or ext4 error logged.
# Needs the drop-in modules (tests/host/test-dropin.sh --suite boots them,
# make check-fs-suite, make check-long).
# timeout: 1800
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh

mnt=/mnt/suite
mkdir -p "$mnt"
secs=3
boot_param_int secs ext4x_suite_secs 1 600
stressors=$(stress-ng --class filesystem? 2>&1 | sed -n "s/^class 'filesystem' stressors: //p")
if [ -z "$stressors" ]; then
	ktap_test_fail "stress-ng lists its filesystem class" \
		"$(stress-ng --class filesystem? 2>&1 | tail -n 3)"
	exit 1
fi
stock=$(find "/lib/modules/$(uname -r)/kernel/fs/ext4" -name 'ext4.ko*' | head -n 1)
if [ -z "$stock" ] || ! modinfo -F filename ext4 | grep -q /extra/; then
	ktap_test_fail "Debian's ext4.ko and the drop-in are both installed" \
		"stock: ${stock:-none}; modprobe ext4 would load $(modinfo -F filename ext4)"
	exit 1
fi
# shellcheck disable=SC2086 # one word a stressor
set -- $stressors
ktap_set_plan $(($# + 4))

# run_side SIDE: mkfs, mount, every stressor; outcomes to $KTAP_TMP/SIDE
run_side() {
	: >"$KTAP_TMP/$1"
	mke2fs -q -F -t ext4 /dev/pmem0 || return 1
	mount -t ext4 -o dax /dev/pmem0 "$mnt" || return 1
	dmesg -c >/dev/null
	for s in $stressors; do
		mkdir -p "$mnt/$s"
		stress-ng "--$s" 1 --timeout "${secs}s" --verify --temp-path "$mnt/$s" \
			>"$KTAP_TMP/$1.$s.out" 2>&1
		echo "$s $?" >>"$KTAP_TMP/$1"
		rm -rf "${mnt:?}/$s"
	done
}

# side_clean SIDE: e2fsck and the kernel log of that side, then unload ext4
side_clean() {
	ktap_fs_clean "$1" "$mnt"
	rmmod ext4
}

# Debian's ext4.ko, by its path: modprobe would pick the drop-in in extra/
if modprobe -a jbd2 mbcache crc16 && insmod "$stock" && run_side stock; then
	side_clean "stock ext4"
else
	ktap_test_fail "stock ext4: load, mkfs, mount" "$(ktap_dmesg | tail -n 10)"
	exit 1
fi
if modprobe ext4 && modinfo -F filename ext4 | grep -q /extra/ && run_side dropin; then
	side_clean "drop-in ext4"
else
	ktap_test_fail "drop-in ext4: load, mkfs, mount" "$(ktap_dmesg | tail -n 10)"
	exit 1
fi

# the outcomes counted by exit status, stock then drop-in
for side in stock dropin; do
	ktap_print_msg "$side: $(awk '{ n[$2]++ }
		END { for (e in n) printf "%sexit %s: %d", (d++ ? ", " : ""), e, n[e] }' \
		"$KTAP_TMP/$side") (stressors by stress-ng's exit status)"
done
for s in $stressors; do
	a=$(sed -n "s/^$s //p" "$KTAP_TMP/stock")
	b=$(sed -n "s/^$s //p" "$KTAP_TMP/dropin")
	# what a stressor that did not pass said, on the stock side
	[ "$a" = 0 ] || ktap_print_msg "stock, --$s: $(grep -v '^ *$' "$KTAP_TMP/stock.$s.out" | tail -n 2)"
	if [ -n "$a" ] && [ "$a" = "$b" ]; then
		ktap_test_pass "stress-ng --$s: drop-in exit $b, as stock"
	else
		ktap_test_fail "stress-ng --$s: drop-in exit ${b:-none}, stock ${a:-none}" \
			"$(tail -n 5 "$KTAP_TMP/dropin.$s.out")"
	fi
done
