#!/bin/sh
# Stress: stress-ng's file, directory and xattr stressors together with fio
# (crc32c verify) on ext4x, once with -o dax and once through the page
# cache, for a bounded time on the guest's 2 CPUs; then e2fsck -fn must be
# clean and the kernel must have logged no WARN, BUG, oops or ext4 error.
# Each phase runs 12 s (ext4x_long=1 on the kernel command line, as make
# check-long passes it: 300 s; ext4x_stress_secs=N: N s). For comparison
# the same load runs on stock ext4 with ext4x_stress_fs=ext4 (how the
# debug lane's known core races were told from ours, docs/RELIABILITY.md).
# timeout: 900
# timeout-long: 1200
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh

mnt=/mnt/st
mkdir -p "$mnt"
secs=12
[ "$(boot_param ext4x_long)" = 1 ] && secs=300
boot_param_int secs ext4x_stress_secs 1 86400
fs=ext4x
boot_param_fs fs ext4x_stress_fs

if ! command -v stress-ng >/dev/null; then
	ktap_test_skip "stress-ng" "not in the guest image"
	exit 0
fi
modprobe "$fs" || {
	ktap_test_fail "modprobe $fs" "$(ktap_dmesg | tail -n 10)"
	exit 1
}

# phase MODE OPTS: one stress-ng + fio run on a fresh file system.
phase() {
	_m=$1
	[ "$fs" = ext4x ] || _m="$fs $1"
	if ! mke2fs -q -F -t ext4 /dev/pmem0 >"$KTAP_TMP/err" 2>&1; then
		ktap_test_fail "$_m: mke2fs" "$(cat "$KTAP_TMP/err")"
		return 1
	fi
	if ! mount -t "$fs" ${2:+-o "$2"} /dev/pmem0 "$mnt" 2>"$KTAP_TMP/err"; then
		ktap_test_fail "$_m: mount -t $fs ${2:+-o $2}" "$(cat "$KTAP_TMP/err")"
		return 1
	fi
	mkdir -p "$mnt/sng" "$mnt/fio"
	dmesg -c >/dev/null
	# fio: 2 jobs, random writes with crc32c checksums, read back and
	# checked, over and over until the stressors stop.
	fio --directory="$mnt/fio" --ioengine=psync --bs=4k --rw=randwrite \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --size=24M \
		--numjobs=2 --loops=1000 --runtime="$secs" --time_based=0 \
		--name=v --group_reporting >"$KTAP_TMP/fio" 2>&1 &
	fpid=$!
	sleep 3
	# 1 instance of each: 2 vCPUs under TCG already have 8 stressors
	# and 2 fio jobs to schedule.
	stress-ng --temp-path "$mnt/sng" --timeout "${secs}s" \
		--xattr 1 --dir 1 --filename 1 --rename 1 --link 1 --open 1 \
		--fallocate 1 --fallocate-bytes 64M --dentry 1 --metrics-brief --verify \
		>"$KTAP_TMP/sng" 2>&1
	src=$?
	# fio stops at its runtime; allow for the slow read-back.
	i=0
	while kill -0 "$fpid" 2>/dev/null && [ $i -lt 120 ]; do
		sleep 1
		i=$((i + 1))
	done
	kill "$fpid" 2>/dev/null
	wait "$fpid"
	frc=$?
	grep -E '^stress-ng: (info|metrc).*\] *(xattr|dir|filename|rename|link|open|fallocate|dentry) ' \
		"$KTAP_TMP/sng" | sed 's/^/# /' | head -n 12
	if [ "$src" -eq 0 ]; then
		ktap_test_pass "$_m: stress-ng xattr, dir, filename, rename, link, open, fallocate, dentry ${secs}s"
	else
		ktap_test_fail "$_m: stress-ng xattr, dir, filename, rename, link, open, fallocate, dentry ${secs}s" \
			"exit status $src" "$(grep -iE 'fail|error|fault' "$KTAP_TMP/sng" | head -n 20)"
	fi
	if [ "$frc" -eq 0 ] && ! grep -qi "verify.*fail\|bad magic\|crc32c: " "$KTAP_TMP/fio"; then
		ktap_test_pass "$_m: fio crc32c verify alongside"
		grep -E 'WRITE:|READ:' "$KTAP_TMP/fio" | sed 's/^ */# fio /'
	else
		ktap_test_fail "$_m: fio crc32c verify alongside" "exit status $frc" \
			"$(grep -iE 'err|fail|verify' "$KTAP_TMP/fio" | head -n 10)" \
			"$(df -k "$mnt")"
	fi
	ktap_fs_clean "$_m" "$mnt"
}

# Four results a phase (stress-ng, fio, e2fsck, kernel log): a phase that
# stops early leaves the plan unmet, which fails the file.
ktap_set_plan 8
rc=0
phase dax dax || rc=1
phase nodax "" || rc=1
exit $rc
