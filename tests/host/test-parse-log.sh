#!/bin/bash
# tests/vm/parse-log.awk on made-up serial logs of a debug kernel: the
# reports the debug-kernel lane (tests/debug) relies on fail a run (KASAN,
# lockdep, a sleep in atomic context, a KCSAN race in our module), and a
# KCSAN race in other kernel code, or a known core race listed in
# tests/debug/kcsan-core-races reached from our module, is counted but does
# not. KTAP on stdout.
# kernel-independent: no kernel is built or booted
# Usage: tests/host/test-parse-log.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# log KERNEL_LINES...: a guest log with one passing test file, the kernel
# lines in the middle of it
log() {
	printf '%s\n' "KTAP version 1" "1..1" "# t: running (timeout 300s)" "    ok 1 - a"
	printf '[   12.345678] %s\n' "$@"
	printf '%s\n' "ok 1 - t" "ext4x-guest: done"
}
# verdict DESC WANT_RC GREP LOG [KNOWN]: parse-log.awk, given the known-race
# list KNOWN (default: the lane's), exits WANT_RC and prints GREP
verdict() {
	local out rc
	out=$(awk -v timed_out=0 -v known_races="${5-$top/tests/debug/kcsan-core-races}" \
		-f "$top/tests/vm/kernel-problems.awk" -f "$top/tests/vm/parse-log.awk" "$4") && rc=0 || rc=$?
	if [ "$rc" -eq "$2" ] && grep -q -- "$3" <<<"$out"; then
		ktap_test_pass "$1"
	else
		ktap_test_fail "$1" "exit $rc, want $2; output:" "$out"
	fi
}

ktap_print_header
ktap_set_plan 11
log "==================================================================" \
	"BUG: KASAN: slab-use-after-free in mbcache2_entry_put+0x1c/0x90 [mbcache2]" \
	"Read of size 4 at addr ffff888012345678 by task t/1" >"$tmp/kasan"
verdict "a KASAN report fails the run" 1 "FAIL kernel: 1 problem" "$tmp/kasan"
log "======================================================" \
	"WARNING: possible circular locking dependency detected" >"$tmp/lockdep"
verdict "a lockdep report fails the run" 1 "FAIL kernel: 1 problem" "$tmp/lockdep"
log "BUG: sleeping function called from invalid context at mm/slab.h:712" >"$tmp/sleep"
verdict "a sleep in atomic context fails the run" 1 "FAIL kernel: 1 problem" "$tmp/sleep"
log "==================================================================" \
	"BUG: KCSAN: data-race in mbc2_fold / mbcache2_entry_create" "" \
	"write to 0xffff888012345678 of 8 bytes by task 1 on cpu 0:" \
	" mbc2_fold+0x2e/0x80 [mbcache2]" \
	"==================================================================" >"$tmp/kcsan-ours"
verdict "a KCSAN race in our module fails the run" 1 "FAIL kernel: 1 problem" "$tmp/kcsan-ours"
log "==================================================================" \
	"BUG: KCSAN: data-race in tick_nohz_next_event / tick_sched_do_timer" "" \
	"write to 0xffffffff82a1b2c0 of 4 bytes by interrupt on cpu 1:" \
	" tick_sched_do_timer+0x3a/0x110" \
	"==================================================================" >"$tmp/kcsan-core"
verdict "a KCSAN race in other kernel code is counted, not failed" 0 \
	"1 KCSAN report(s) naming none of our modules" "$tmp/kcsan-core"
# the lane's report from stress.sh on the KCSAN kernel (6.1), as it was
log "==================================================================" \
	"BUG: KCSAN: data-race in __percpu_counter_sum+0x74/0xd0" "" \
	"race at unknown origin, with read to 0xffb9a215bfc05608 of 4 bytes by task 12758 on cpu 1:" \
	" __percpu_counter_sum+0x74/0xd0" \
	" ext4x_statfs+0x310/0x640 [ext4x]" \
	" statfs_by_dentry+0xbb/0x110" "" \
	"value changed: 0xffffffe3 -> 0xffffffe2" "" \
	"==================================================================" >"$tmp/kcsan-known"
verdict "a listed core race reached from our module is counted with its reason, not failed" 0 \
	"1 x __percpu_counter_sum: lib/percpu_counter.c" "$tmp/kcsan-known"
verdict "the same report fails the run without the list" 1 "FAIL kernel: 1 problem" \
	"$tmp/kcsan-known" ""
log "==================================================================" \
	"BUG: KCSAN: data-race in __percpu_counter_sum / percpu_stats_add [percpu_stats]" "" \
	"read to 0xffb9a215bfc05608 of 4 bytes by task 1 on cpu 1:" \
	" __percpu_counter_sum+0x74/0xd0" \
	"==================================================================" >"$tmp/kcsan-half"
verdict "a listed core function racing with our function fails the run" 1 \
	"FAIL kernel: 1 problem" "$tmp/kcsan-half"
verdict "an unreadable known-race list fails the run" 1 "FAIL cannot read" \
	"$tmp/kcsan-core" "$tmp/no-such-list"
# a file that skipped itself as a whole (tests/vm/guest/run-tests.sh's
# "ok K - NAME # SKIP REASON"): skipped, neither passed nor failed
printf '%s\n' "KTAP version 1" "1..2" "# k: running (timeout 900s)" \
	"    KTAP version 1" "    1..0 # SKIP no kmemleak here" "ok 1 - k # SKIP no kmemleak here" \
	"# t: running (timeout 300s)" "    ok 1 - a" "ok 2 - t" "ext4x-guest: done" >"$tmp/skipfile"
verdict "a file skipped as a whole counts one skip" 0 "^1 passed, 0 failed, 1 skipped$" "$tmp/skipfile"
verdict "a file skipped as a whole is named with its reason" 0 "^SKIP k: no kmemleak here$" "$tmp/skipfile"
ktap_finished
