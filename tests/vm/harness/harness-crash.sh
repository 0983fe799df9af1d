#!/bin/sh
# Harness self-check: a kernel crash ends the run early.
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh
ktap_test_pass "before the crash"
# Let the runner copy the line above to the console first.
sleep 1
echo c >/proc/sysrq-trigger
ktap_test_pass "not reached"
