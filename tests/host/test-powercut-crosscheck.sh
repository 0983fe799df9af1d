#!/bin/bash
# tests/vm/powercut-crosscheck.sh on made-up serial logs of a power-cut run:
# a fsynced file the next boot did not find fails it; a file whose unlink
# was printed, or whose unlink record the next boot found ("# gone") after
# the cut lost the "# unlinked" line, does not; torn lines are not counted,
# and a banner that follows one still starts a boot; a boot that verified
# nothing passes its names on to the next; a log without a verified cycle
# fails. KTAP on stdout.
# kernel-independent: no kernel is built or booted
# Usage: tests/host/test-powercut-crosscheck.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
a=0123456789abcdef0123456789abcdef
b=fedcba9876543210fedcba9876543210

# boot LINES...: one boot of the guest, LINES indented as the test prints
# them, with serial line ends
boot() {
	printf 'ext4x-guest: booted 6.1.0-57-amd64, 2 cpus, 2000000 kB\r\n'
	printf '    %s\r\n' "$@"
}
# verdict DESC WANT_RC GREP LOG: the cross-check exits WANT_RC, prints GREP
verdict() {
	local out rc
	out=$("$top/tests/vm/powercut-crosscheck.sh" "$4" 2>&1) && rc=0 || rc=$?
	if [ "$rc" -eq "$2" ] && grep -q -- "$3" <<<"$out"; then
		ktap_test_pass "$1"
	else
		ktap_test_fail "$1" "exit $rc, want $2; output:" "$out"
	fi
}

ktap_print_header
ktap_set_plan 9
{
	boot "# fsynced c1/f1 $a" "# fsynced c1/f2 $b"
	boot "# powercut-replay cycle=1 replayed=yes" "# intact c1/f1 $a" "# intact c1/f2 $b"
} >"$tmp/good"
verdict "every fsynced file found intact: pass" 0 "ok 2 - power cut" "$tmp/good"
{
	boot "# fsynced c1/f1 $a" "# fsynced c1/f2 $b"
	boot "# powercut-replay cycle=1 replayed=yes" "# intact c1/f1 $a"
} >"$tmp/miss"
verdict "a fsynced file the next boot did not find: fail" 1 \
	"boot 1 printed fsynced c1/f2; boot 2 did not find it" "$tmp/miss"
{
	boot "# fsynced c1/f1 $a" "# unlinked c1/f1" "# fsynced c1/f2 $b"
	boot "# powercut-replay cycle=1 replayed=no" "# intact c1/f2 $b"
} >"$tmp/unlinked"
verdict "a file printed as unlinked is not looked for" 0 \
	"1 fsynced names printed" "$tmp/unlinked"
{
	boot "# fsynced c1/f1 $a" "# fsynced c1/f2 $b"
	boot "# powercut-replay cycle=1 replayed=yes" "# intact c1/f1 $a" "# gone c1/f2"
} >"$tmp/lost-unlink"
verdict "the unlink line lost in the cut, the next boot found it gone: pass" 0 \
	"ok 2 - power cut" "$tmp/lost-unlink"
{
	boot "# fsynced c1/f1 $a" "# fsynced c1/f2 ${b:0:20}"
	boot "# powercut-replay cycle=1 replayed=yes" "# intact c1/f1 $a"
} >"$tmp/torn"
verdict "a line torn by the cut is not counted" 0 \
	"1 fsynced names printed" "$tmp/torn"
{
	boot "# fsynced c1/f1 $a" "# fsynced c1/f2 $b"
	boot
	printf '[    8.585477] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\r\n'
	boot "# powercut-replay cycle=1 replayed=yes" "# intact c1/f1 $a" "# intact c1/f2 $b"
} >"$tmp/blind"
verdict "a boot that verified nothing: the next one is checked instead" 0 \
	"boot 2 verified nothing" "$tmp/blind"
{
	boot "# fsynced c1/f1 $a" "# fsynced c1/f2 $b"
	boot
	boot "# powercut-replay cycle=1 replayed=yes" "# intact c1/f1 $a"
} >"$tmp/blind-miss"
verdict "after a boot that verified nothing, a file the next one did not find: fail" 1 \
	"boot 1 printed fsynced c1/f2; boot 3 did not find it" "$tmp/blind-miss"
{
	boot "# fsynced c1/f1 $a" "# fsynced c1/f2 $b" "# fsynced c1/f3 ${a:0:9}"
	boot "# powercut-replay cycle=1 replayed=yes" "# intact c1/f1 $a" "# intact c1/f2 $b" \
		"# fsynced c2/f1 $b"
	boot "# powercut-replay cycle=2 replayed=yes" "# intact c2/f1 $b"
} | sed -z 's/\r\n\(ext4x-guest: booted[^\r]*\r\n    # powercut-replay cycle=1\)/\1/' >"$tmp/glued"
verdict "a banner after a line the cut tore still starts a boot" 0 \
	"# figures: 3 boots" "$tmp/glued"
boot "# fsynced c1/f1 $a" >"$tmp/no-cycle"
verdict "a log without a verified cycle fails" 1 \
	"not ok 1 - power cut: the log shows verified cycles" "$tmp/no-cycle"
ktap_finished
