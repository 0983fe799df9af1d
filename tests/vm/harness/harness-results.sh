#!/bin/sh
# Harness self-check: one passing, one failing and one skipped case.
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh
ktap_test_pass "passes"
ktap_test_fail "fails on purpose" "expected failure"
ktap_test_skip "skipped on purpose" "harness check"
# A failure of the file itself must not hide the failing case above.
exit 0
