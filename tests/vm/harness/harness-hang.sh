#!/bin/sh
# Harness self-check: a file that outlives its timeout, with a stray child.
# timeout: 3
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh
ktap_test_pass "before the hang"
sleep 1000 &
sleep 1000
