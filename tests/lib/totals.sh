# shellcheck shell=bash disable=SC2154 # top, kver, modules, results: set by the caller
# Running totals for the test drivers (tests/check.sh, tests/check-long.sh):
# each run's cases are added to passed/failed/skipped, and totals_report
# prints the one closing line "N passed, N failed[, N skipped]".
# The caller sets top, kver, modules and results before using guest_stage.

passed=0
failed=0
skipped=0

# stage NAME CMD...: run a KTAP-printing command, log it to $results/NAME.log
# and add up its "ok"/"not ok" lines. A non-zero exit with no failing case
# counts as one failure.
stage() {
	local name=$1 log="$results/$1.log" rc p f s
	shift
	echo "=== $name"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if [ ! -r "$log" ]; then
		echo "# $name: its log $log is gone: counted as one failure"
		failed=$((failed + 1))
		return
	fi
	p=$(grep -cE '^ok [0-9]+' "$log")
	s=$(grep -cE '^ok [0-9]+.*# SKIP' "$log")
	f=$(grep -cE '^not ok [0-9]+' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "# $name exited $rc without a failing case: counted as one failure"
		f=1
	fi
	passed=$((passed + p - s))
	skipped=$((skipped + s))
	failed=$((failed + f))
}

# guest_stage NAME ARGS...: one tests/vm/run-guest.sh run (ARGS added to
# it), with its serial log and files under $results/NAME; adds up the last
# total line the guest printed. No total, or a non-zero exit with no failing
# case, counts as one failure.
guest_stage() {
	local name=$1 log="$results/$1.log" rc total p f s
	shift
	echo "=== $name"
	"$top/tests/vm/run-guest.sh" --kver "$kver" --modules "$modules" \
		--results "$results/$name" "$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	total=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$total" ]; then
		echo "# $name printed no total (exit $rc): counted as one failure"
		failed=$((failed + 1))
		return
	fi
	p=$(echo "$total" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
	f=$(echo "$total" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
	s=$(echo "$total" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + ${s:-0}))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "# $name run exited $rc: counted as one failure"
		failed=$((failed + 1))
	fi
}

# totals_report: the closing line; returns non-zero if anything failed.
totals_report() {
	echo
	echo "results: $results"
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ]
}
