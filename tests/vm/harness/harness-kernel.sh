#!/bin/sh
# Harness self-check: a stack dump (sysrq l) inside expect-warn brackets is
# ignored; the same outside them is a kernel problem.
# shellcheck source=tests/guest/lib.sh
. /tests/guest/lib.sh
echo "ktap: # expect-warn begin" >/dev/kmsg
echo l >/proc/sysrq-trigger
sleep 1
echo "ktap: # expect-warn end" >/dev/kmsg
ktap_ok "bracketed stack dump"
echo l >/proc/sysrq-trigger
sleep 1
ktap_ok "unbracketed stack dump"
