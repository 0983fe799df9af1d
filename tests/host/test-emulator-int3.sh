#!/bin/bash
# tests/vm/emulator-int3.awk on made-up serial logs of one boot: a boot that
# died of an int3 trap on an untainted kernel, before /init's banner or
# after it, on 6.1's or 6.12's oops header, is the emulator fault that
# run-guest.sh boots again; an int3 on a kernel our modules tainted, an
# int3 after another report, another oops, or no oops at all is not.
# KTAP on stdout.
# kernel-independent: no kernel is built or booted
# Usage: tests/host/test-emulator-int3.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

banner='ext4x-guest: booted 6.12.118+deb12-amd64, 2 cpus, 1950780 kB'
# kern LINES...: kernel console lines, with a timestamp and serial line ends
kern() {
	printf '[    8.585477] %s\r\n' "$@"
}
# oops HEADER TAINT: the first lines of an oops and the panic after it
oops() {
	kern "$1" "CPU: 0 UID: 0 PID: 160 Comm: init $2 6.12.118+deb12-amd64 #1" \
		"RIP: 0010:copy_string_kernel+0xe9/0x210" "Call Trace:" " <TASK>" \
		"Kernel panic - not syncing: Fatal exception in interrupt"
}
# verdict DESC WANT_RC LOG: emulator-int3.awk exits WANT_RC on LOG
verdict() {
	local rc
	awk -f "$top/tests/vm/kernel-problems.awk" -f "$top/tests/vm/emulator-int3.awk" "$3" &&
		rc=0 || rc=$?
	if [ "$rc" -eq "$2" ]; then
		ktap_test_pass "$1"
	else
		ktap_test_fail "$1" "exit $rc, want $2; log:" "$(cat "$3")"
	fi
}

ktap_print_header
ktap_set_plan 7
oops "Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" "Not tainted" >"$tmp/early"
verdict "an int3 before the banner, untainted: the emulator fault" 0 "$tmp/early"
{
	printf '%s\r\n' "$banner" "KTAP version 1"
	oops "Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" "Not tainted"
} >"$tmp/late"
verdict "an int3 after the banner, untainted: the emulator fault" 0 "$tmp/late"
{
	printf '%s\r\n' "$banner"
	oops "int3: 0000 [#1] PREEMPT SMP NOPTI" "Not tainted"
} >"$tmp/v61"
verdict "6.1's oops header, without \"Oops:\": the emulator fault" 0 "$tmp/v61"
{
	printf '%s\r\n' "$banner"
	kern "percpu_stats: loading out-of-tree module taints kernel."
	oops "Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" "Tainted: G           OE     "
} >"$tmp/ours"
verdict "an int3 once our modules were loaded: not the fault" 1 "$tmp/ours"
{
	printf '%s\r\n' "$banner"
	kern "BUG: KASAN: slab-use-after-free in ext4_es_lookup_extent+0x1c/0x2a0"
	oops "Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" "Not tainted"
} >"$tmp/after-report"
verdict "an int3 after another report: not the fault" 1 "$tmp/after-report"
{
	printf '%s\r\n' "$banner"
	oops "Oops: general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP NOPTI" "Not tainted"
} >"$tmp/gpf"
verdict "another oops, untainted: not the fault" 1 "$tmp/gpf"
{
	printf '%s\r\n' "$banner" "KTAP version 1" "1..1" "ok 1 - t" "ext4x-guest: done"
} >"$tmp/clean"
verdict "a boot without an oops: not the fault" 1 "$tmp/clean"
ktap_finished
