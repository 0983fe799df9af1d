#!/bin/sh
# xattr block sharing, stock ext4 against ext4x on the same workload: the
# xattr block cache must let ext4x share and reuse blocks exactly as well as
# stock mbcache does. Each side gets a fresh mkfs with 128-byte inodes (every
# xattr in a block of its own or a shared one), then:
#   1. 2048 files with one identical POSIX ACL: 2 full blocks (1024
#      references each, both with the same hash);
#   2. 15000 files with a value each: 15000 more blocks, so the cache holds
#      15002 entries, under its limit of 16384 (1024 buckets x 16), but by
#      plain hash imbalance well above the even share (128) of some of its
#      128 lock stripes (a per-stripe limit evicted ~1300 entries here);
#   3. the ACL removed from 100 files of the first full block, which makes
#      that block reusable again, and 100 new files given the ACL: they must
#      go into the freed slots, not into a new block.
# Asserted: ext4x allocates no more xattr blocks than stock ext4 in total,
# step 3 allocates none on either side; ext4x's cache evicted nothing and
# holds every block; e2fsck clean.
# timeout: 600
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh

shared=2048
unique=15000
again=100
mnt=/mnt/xs
mkdir -p "$mnt"
stats=/sys/kernel/debug/mbcache2/pmem0-xattr/stats
# ext4x's cache statistics, copied before the unmount takes the file away
saved=$KTAP_TMP/ext4x.stats
stat_of() { awk -v k="$1" '$1 == k { print $2 }' "$saved"; }
free_blocks() { sync && stat -f -c %f "$mnt"; }

modprobe ext4x

# Both sides get the same UUID and directory hash seed, and every file
# exists before the first xattr is set, so the blocks counted are the xattr
# blocks alone.
mkfs_same() {
	mke2fs -q -F -t ext4 -I 128 -N 20000 \
		-U 5f1c2c1e-0e1a-4c3b-9b7e-2b1d3c4e5f60 \
		-E hash_seed=0d3e5a7c-1b2d-4e6f-8a9b-c0d1e2f3a4b5 /dev/pmem0
}

# one_side FSTYPE: run the workload, leave "used readd" in $KTAP_TMP/FSTYPE
one_side() {
	_fs=$1
	mkfs_same && mount -t "$_fs" /dev/pmem0 "$mnt" || return 1
	xattr-share create "$mnt" 0 $((shared + unique + again)) || return 1
	_f0=$(free_blocks)
	xattr-share shared "$mnt" 0 $shared &&
		xattr-share unique "$mnt" $shared $unique &&
		_f1=$(free_blocks) &&
		xattr-share remove "$mnt" 0 $again &&
		_f2=$(free_blocks) &&
		xattr-share shared "$mnt" $((shared + unique)) $again || return 1
	_f3=$(free_blocks)
	[ "$_fs" = ext4x ] && cp "$stats" "$saved"
	umount "$mnt" || return 1
	echo "$((_f0 - _f3)) $((_f2 - _f3)) $((_f0 - _f1))" >"$KTAP_TMP/$_fs"
	/sbin/e2fsck -fn /dev/pmem0 >"$KTAP_TMP/$_fs.fsck" 2>&1 ||
		{ cat "$KTAP_TMP/$_fs.fsck"; return 1; }
}

ktap_check "stock ext4: the sharing workload runs, e2fsck clean" one_side ext4
ktap_check "ext4x: the sharing workload runs, e2fsck clean" one_side ext4x

read -r s_used s_readd s_load <"$KTAP_TMP/ext4" 2>/dev/null
read -r x_used x_readd x_load <"$KTAP_TMP/ext4x" 2>/dev/null
ktap_print_msg "xattr blocks: stock ext4 $s_used (load $s_load, re-adding $s_readd)," \
	"ext4x $x_used (load $x_load, re-adding $x_readd)"
if [ -n "$s_used" ] && [ -n "$x_used" ] && [ "$x_used" -le "$s_used" ]; then
	ktap_test_pass "ext4x uses no more xattr blocks than stock ext4 ($x_used <= $s_used)"
else
	ktap_test_fail "ext4x uses no more xattr blocks than stock ext4" \
		"ext4x ${x_used:-?}, stock ${s_used:-?}"
fi
# Step 3 on both sides: the 100 files go into the freed slots of the
# first block, so no new block at all (stock ext4 allocates none either).
if [ "$s_readd" = 0 ] && [ "$x_readd" = 0 ]; then
	ktap_test_pass "a full block made reusable is reused: no new block on either side"
else
	ktap_test_fail "a full block made reusable is reused: no new block on either side" \
		"re-adding allocated ${x_readd:-?} blocks on ext4x, ${s_readd:-?} on stock"
fi

if [ -r "$saved" ]; then
	ktap_print_msg "ext4x xattr cache:" "$(cat "$saved")"
	ev=$(stat_of evictions)
	entries=$(stat_of entries)
	max=$(stat_of max_entries)
	if [ "$ev" = 0 ]; then
		ktap_test_pass "no eviction under the cache-wide limit ($entries of $max entries)"
	else
		ktap_test_fail "no eviction under the cache-wide limit" \
			"$ev evicted with $entries of $max entries"
	fi
	if [ "$entries" = $((shared / 1024 + unique)) ]; then
		ktap_test_pass "the cache holds every xattr block ($entries)"
	else
		ktap_test_fail "the cache holds every xattr block" \
			"$entries entries, want $((shared / 1024 + unique))"
	fi
else
	ktap_test_fail "ext4x cache statistics read before unmount" "no copy"
	ktap_test_skip "the cache holds every xattr block" "no statistics"
fi
