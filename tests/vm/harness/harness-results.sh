#!/bin/sh
# Harness self-check: one passing, one failing and one skipped case.
# shellcheck source=tests/guest/lib.sh
. /tests/guest/lib.sh
ktap_ok "passes"
ktap_fail "fails on purpose" "expected failure"
ktap_skip "skipped on purpose" "harness check"
# A failure of the file itself must not hide the failing case above.
exit 0
