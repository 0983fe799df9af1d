#!/bin/sh
# Harness self-check: a kernel crash ends the run early.
# shellcheck source=tests/guest/lib.sh
. /tests/guest/lib.sh
ktap_ok "before the crash"
# Let the runner copy the line above to the console first.
sleep 1
echo c >/proc/sysrq-trigger
ktap_ok "not reached"
