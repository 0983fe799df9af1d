#!/bin/bash
# tests/vm/guest/session.sh's run_in_session under the busybox sh the guest
# runs (busybox-static), many times over: a command that exits at once must
# return at once with its status. Its watchdog may not have left for a
# session of its own yet; killed by session alone it would live on and hold
# the caller until the limit, reported timed out (about one call in 200
# here, before the watchdog was also killed by pid). The behaviour in a
# booted guest: tests/guest/run-in-session.sh. KTAP on stdout.
# kernel-independent: no kernel is built or booted
# Usage: tests/host/test-run-in-session.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"

ktap_print_header
command -v busybox >/dev/null || ktap_skip_all "no busybox (scripts/install-deps.sh installs it)"
ktap_set_plan 1
calls=500
# shellcheck disable=SC2016 # expanded by busybox sh
out=$(TMPDIR=$(mktemp -d) busybox sh -c '
	. "$1"
	i=0 bad=0
	while [ $i -lt "$2" ]; do
		i=$((i + 1))
		run_in_session 5 sh -c "exit $((i % 100))"
		rc=$?
		if [ $rc != $((i % 100)) ] || [ "$session_timed_out" != 0 ]; then
			bad=$((bad + 1))
			echo "call $i: status $rc, timed out $session_timed_out"
		fi
	done
	rmdir "$TMPDIR"
	echo "$bad of $2 wrong"' sh "$top/tests/vm/guest/session.sh" "$calls" 2>&1)
if [ "$(tail -n 1 <<<"$out")" = "0 of $calls wrong" ]; then
	ktap_test_pass "$calls commands that exit at once: each returns at once, with its status"
else
	ktap_test_fail "$calls commands that exit at once: each returns at once, with its status" "$out"
fi
ktap_finished
