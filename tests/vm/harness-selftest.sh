#!/bin/bash
# Self-check of the guest test bench: boots the guest with the deliberately
# failing test files in tests/vm/harness/ and checks that run-guest.sh
# reports exactly the expected totals (a failing case, a skipped case, a
# file that skips itself as a whole, a stack dump
# inside and outside expect-warn brackets, a file past its timeout, a file
# exiting non-zero, a mistyped setting, a kernel crash, QEMU killed by
# --timeout).
# Prints KTAP; exits non-zero if the bench misreports anything.
# Usage: harness-selftest.sh [KVER]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/common.sh
. "$here/common.sh"

kver=${1:-$(default_kver)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/ktap.sh
. "$here/../lib/ktap.sh"

# scenario DESC EXPECTED_TOTAL RUN-GUEST-ARGS...: the run must exit non-zero
# and print EXPECTED_TOTAL as its last line.
scenario() {
	local desc=$1 want=$2 rc=0 got
	shift 2
	EXT4X_QUIET=1 "$here/run-guest.sh" --kver "$kver" \
		--extra-tests "$here/harness" "$@" >"$tmp/out" 2>&1 || rc=$?
	got=$(tail -n 1 "$tmp/out")
	if [ "$rc" -ne 0 ] && [ "$got" = "$want" ]; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc" "$(cat "$tmp/out")" \
			"expected '$want' and a non-zero status, got '$got' (status $rc)"
	fi
}

ktap_print_header
ktap_set_plan 3
scenario "case failures, skips, kernel dumps, timeouts, bad exits, bad settings" \
	"14 passed, 5 failed, 2 skipped" \
	--tests testbed,harness-results,harness-skipfile,harness-kernel,harness-hang,harness-exit,harness-settings \
	--append "ext4x_harness_n=42 ext4x_harness_bad=1O"
scenario "kernel crash ends the run" "1 passed, 2 failed" \
	--tests harness-crash,testbed
scenario "QEMU killed by --timeout" "0 passed, 1 failed" \
	--tests testbed --timeout 6
ktap_finished
