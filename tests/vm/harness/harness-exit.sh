#!/bin/sh
# Harness self-check: a file that exits non-zero without a failing case.
# shellcheck source=tests/guest/lib.sh
. /tests/guest/lib.sh
ktap_ok "before the exit"
exit 3
