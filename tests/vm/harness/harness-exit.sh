#!/bin/sh
# Harness self-check: a file that exits non-zero without a failing case.
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh
ktap_test_pass "before the exit"
exit 3
