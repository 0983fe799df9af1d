#!/bin/bash
# The coherence model's unit tests (tests/coherence/test-model.c): built
# with the host's gcc and run on synthetic access streams; its KTAP is
# relayed. No QEMU, no guest.
# kernel-independent: nothing is booted
# Usage: tests/host/test-coherence-model.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ktap_print_header
if gcc -O2 -Wall -Wextra -Werror -pthread -o "$tmp/test-model" \
	"$top/tests/coherence/test-model.c" "$top/tests/coherence/model.c" >"$tmp/cc.log" 2>&1; then
	ktap_test_pass "test-model.c and model.c build warning-free"
	"$tmp/test-model" >"$tmp/out" 2>&1
	rc=$?
	ktap_relay "model: " <"$tmp/out"
	[ "$rc" -eq 0 ] || grep -q '^not ok' "$tmp/out" || ktap_test_fail "model: test-model exited $rc"
	[ "${KTAP_RELAY_PLAN:-}" = "$KTAP_RELAY_RESULTS" ] ||
		ktap_test_fail "model: planned ${KTAP_RELAY_PLAN:-none}, ran $KTAP_RELAY_RESULTS"
else
	ktap_test_fail "test-model.c and model.c build warning-free" "$(cat "$tmp/cc.log")"
fi
ktap_finished
