#!/bin/sh
# Harness self-check: a file that outlives its timeout, with a stray child.
# timeout: 3
# shellcheck source=tests/guest/lib.sh
. /tests/guest/lib.sh
ktap_ok "before the hang"
sleep 1000 &
sleep 1000
