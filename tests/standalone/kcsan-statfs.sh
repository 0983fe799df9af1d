#!/bin/sh
# Is KCSAN's data race in __percpu_counter_sum (tests/debug/kcsan-core-races)
# one of ours? On a KCSAN kernel (tests/debug), the same load on stock ext4
# and on ext4x, A B A B: statfs(2) in a loop (tests/vm/statfs-loop.c; ext4's
# statfs sums the free and dirty cluster counters) on one CPU while
# stress-ng allocates and frees blocks on the other, without DAX. Prints,
# per file system and round, the statfs calls made and the KCSAN reports of
# a race in __percpu_counter_sum. Reports numbers; asserts only that each
# run took place. KCSAN samples about one access in 4000 and reports one
# race at most once in 3 s, so a count is an event rate, not a property;
# the comparison is the point.
# Boot parameters: ext4x_kcsan_rounds (default 2), ext4x_kcsan_secs (per run,
# default 30).
# Run by hand: docs/RELIABILITY.md, "Debug kernels"
# timeout: 900
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh

[ -r /sys/kernel/debug/kcsan ] ||
	ktap_skip_all "no /sys/kernel/debug/kcsan: a kernel without CONFIG_KCSAN"
command -v stress-ng >/dev/null || ktap_skip_all "stress-ng is not in the guest image"
rounds=2
boot_param_int rounds ext4x_kcsan_rounds 1 100
secs=30
boot_param_int secs ext4x_kcsan_secs 1 3600
mnt=/mnt/ks
mkdir -p "$mnt"
modprobe ext4 && modprobe ext4x || {
	ktap_test_fail "modprobe ext4 and ext4x" "$(ktap_dmesg | tail -n 10)"
	exit 1
}

# run FS ROUND: one timed run; prints "FS ROUND CALLS REPORTS"
run() {
	mke2fs -q -F -t ext4 /dev/pmem0 >/dev/null 2>&1 &&
		mount -t "$1" /dev/pmem0 "$mnt" || return 1
	dmesg -c >/dev/null
	stress-ng --temp-path "$mnt" --fallocate 1 --fallocate-bytes 32M \
		--timeout "${secs}s" >/dev/null 2>&1 &
	_w=$!
	_n=$(statfs-loop "$mnt" "$secs") || _n=
	wait "$_w"
	umount "$mnt" && [ -n "$_n" ] || return 1
	_r=$(ktap_dmesg | grep -c '^BUG: KCSAN: .* in __percpu_counter_sum')
	echo "$1 $2 $_n $_r"
}

: >"$KTAP_TMP/runs"
k=1
while [ $k -le "$rounds" ]; do
	for fs in ext4 ext4x; do
		if run $fs $k >>"$KTAP_TMP/runs"; then
			ktap_test_pass "$fs round $k: ${secs}s of statfs beside allocation"
		else
			ktap_test_fail "$fs round $k: ${secs}s of statfs beside allocation" \
				"$(ktap_dmesg | tail -n 10)"
		fi
	done
	k=$((k + 1))
done
ktap_print_msg "file system, round, statfs calls, KCSAN reports in __percpu_counter_sum:"
while read -r l; do ktap_print_msg "$l"; done <"$KTAP_TMP/runs"
awk '{ c[$1] += $3; r[$1] += $4 }
	END { for (f in c) printf "%s: %d statfs calls, %d reports\n", f, c[f], r[f] }' \
	"$KTAP_TMP/runs" | sort | while read -r l; do ktap_print_msg "total $l"; done
