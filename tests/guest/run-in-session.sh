#!/bin/sh
# Self-check of run_in_session (tests/vm/guest/session.sh), which runs each
# test file for the harness and each of hostile.sh's steps: a command past
# its limit dies with its whole session, children included, and is reported
# as timed out; one that exits inside it keeps its status, and what it left
# running is killed; its output reaches the caller, whom the watchdog does
# not hold up.
# timeout: 120
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh

ktap_set_plan 4

# left PATTERN: the processes whose command line matches PATTERN
left() {
	ps | grep -e "$1" | grep -v grep
}

t0=$(date +%s)
run_in_session 3 sh -c 'sleep 97 | sleep 98'
rc=$? took=$(($(date +%s) - t0))
sleep 1
if [ "$rc" = 137 ] && [ "$session_timed_out" = 1 ] && [ "$took" -le 5 ] &&
	[ -z "$(left 'sleep 9[78]')" ]; then
	ktap_test_pass "past its limit, a pipeline dies whole and is reported timed out"
else
	ktap_test_fail "past its limit, a pipeline dies whole and is reported timed out" \
		"status $rc, timed out '$session_timed_out', ${took}s; left:" "$(left 'sleep 9[78]')"
fi

# Ten commands that exit at once: each may find its watchdog not yet in a
# session of its own, which must still die at once, not at the limit.
t0=$(date +%s) bad=''
for i in 1 2 3 4 5 6 7 8 9 10; do
	run_in_session 30 sh -c "exit $i"
	rc=$?
	[ "$rc" = "$i" ] && [ "$session_timed_out" = 0 ] ||
		bad="$bad run $i: status $rc, timed out '$session_timed_out';"
done
took=$(($(date +%s) - t0))
if [ -z "$bad" ] && [ "$took" -le 3 ]; then
	ktap_test_pass "inside its limit, a command keeps its exit status, and returns at once"
else
	ktap_test_fail "inside its limit, a command keeps its exit status, and returns at once" \
		"${bad:-every status right} ${took}s for ten"
fi

run_in_session 30 sh -c 'sleep 96 & exit 0'
rc=$?
sleep 1
if [ "$rc" = 0 ] && [ "$session_timed_out" = 0 ] && [ -z "$(left 'sleep 96')" ]; then
	ktap_test_pass "what a command leaves running is killed when it exits"
else
	ktap_test_fail "what a command leaves running is killed when it exits" \
		"status $rc, timed out '$session_timed_out'; left:" "$(left 'sleep 96')"
fi

t0=$(date +%s)
out=$(run_in_session 30 echo through)
took=$(($(date +%s) - t0))
if [ "$out" = through ] && [ "$took" -le 2 ]; then
	ktap_test_pass "the output reaches the caller, not held up by the watchdog"
else
	ktap_test_fail "the output reaches the caller, not held up by the watchdog" \
		"got '$out' after ${took}s"
fi
