# shellcheck shell=bash disable=SC2154 # top, kver, modules, results: set by the caller
# Running totals for tests/check.sh (make check, make check-long): each
# stage's cases are added to passed/failed/skipped and to a table of
# stages, and totals_report prints the table, naming the kernel of every
# stage, then every skipped result with its reason, then every failed
# result (so that the last lines of a red run name what failed), then the
# one closing line "N passed, N failed[, N skipped]".
# The caller sets top, kver, modules and results before a stage; kver is
# "-" for a stage that does not depend on the kernel. Stages may run in
# two shells at once (tests/check.sh's lanes): kidx, the kernel's place in
# the run (0 when unset), and the stage's start sort the table, so each
# kernel's stages are listed together in the order they started.

passed=0
failed=0
skipped=0
stage_rows=()
skip_rows=()
fail_rows=()

# record NAME P F S T0: one row of the table; T0 is $SECONDS when the
# stage started, so the row also says how long it took.
record() {
	stage_rows+=("$(row_key "$5")$(printf '%-22s %-20s %6d %6d %7d %7d' "$kver" "$1" "$2" \
		"$3" "$4" $((SECONDS - $5)))")
	passed=$((passed + $2))
	failed=$((failed + $3))
	skipped=$((skipped + $4))
}

# row_key T0: the sort key of a row (kidx, then the start in seconds since
# the epoch) and a tab; totals_report strips it.
row_key() {
	printf '%03d %012d\t' "${kidx:-0}" $(($(date +%s) - (SECONDS - $1)))
}

# list_row T0 NAME TEXT: a row of the lists under the table (the skipped
# and the failed results): its sort key, the kernel, the stage NAME, TEXT.
list_row() {
	printf '%s%-22s %-20s %s' "$(row_key "$1")" "$kver" "$2" "$3"
}

# sorted_rows ROW...: the rows by their keys (stable), the keys stripped.
sorted_rows() {
	printf '%s\n' "$@" | sort -s -t "$(printf '\t')" -k 1,1 | cut -f 2-
}

# note_skips NAME LOG T0: every skipped result of LOG, at any depth ("ok N -
# DESC # SKIP REASON"), for the list under the table.
note_skips() {
	local l
	while IFS= read -r l; do
		skip_rows+=("$(list_row "$3" "$1" "$l")")
	done < <(sed -n 's/^ *ok [0-9][0-9]* - \(.* # SKIP .*\)/\1/p' "$2")
}

# note_fails NAME LOG T0: every failed result of LOG, at any depth ("not
# ok N - DESC"), for the list under the table.
note_fails() {
	local l
	while IFS= read -r l; do
		note_fail "$1" "$3" "$l"
	done < <(sed -n 's/^ *not ok [0-9][0-9]* - \(.*\)/\1/p' "$2")
}

# note_fail NAME T0 TEXT: one line of the list of failures; TEXT is what
# failed (a failure counted with no "not ok" line says why).
note_fail() {
	fail_rows+=("$(list_row "$2" "$1" "$3")")
}

# stage NAME CMD...: run a KTAP-printing command, log it to $results/NAME.log
# and add up its "ok"/"not ok" lines. A command that skips itself as a whole
# ("1..0 # SKIP REASON", no result) counts as one skipped result. A non-zero
# exit with no failing case counts as one failure.
stage() {
	local name=$1 log="$results/$1.log" rc p f s t0=$SECONDS
	shift
	echo "=== $name ($kver)"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if [ ! -r "$log" ]; then
		echo "# $name: its log $log is gone: counted as one failure"
		note_fail "$name" "$t0" "(its log is gone)"
		record "$name" 0 1 0 "$t0"
		return
	fi
	p=$(grep -cE '^ok [0-9]+' "$log")
	s=$(grep -cE '^ok [0-9]+.*# SKIP' "$log")
	f=$(grep -cE '^not ok [0-9]+' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "# $name exited $rc without a failing case: counted as one failure"
		note_fail "$name" "$t0" "(exit status $rc, no failing case)"
		f=1
	fi
	note_skips "$name" "$log" "$t0"
	note_fails "$name" "$log" "$t0"
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && grep -qE '^1\.\.0 # SKIP' "$log"; then
		s=1 p=1
		skip_rows+=("$(list_row "$t0" "$name" \
			"(the whole stage) # SKIP $(sed -n 's/^1\.\.0 # SKIP //p' "$log" | head -n 1)")")
	fi
	record "$name" $((p - s)) "$f" "$s" "$t0"
}

# guest_stage NAME ARGS...: one tests/vm/run-guest.sh run (ARGS added to
# it), with its serial log and files under $results/NAME; adds up the last
# total line the guest printed. No total, or a non-zero exit with no failing
# case, counts as one failure.
guest_stage() {
	local name=$1 log="$results/$1.log" rc total t0=$SECONDS
	shift
	echo "=== $name ($kver)"
	"$top/tests/vm/run-guest.sh" --kver "$kver" --modules "$modules" \
		--results "$results/$name" "$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	total=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	add_total "$name" "$total" "$rc" "$log" "$t0"
}

# total_stage NAME CMD...: a run that prints its own table and ends with
# the line "N passed, N failed[, N skipped]" (tests/trixie/run.sh,
# newer.sh), logged to $results/NAME.log: that line (its own, not an
# earlier stage's) and the run's exit status are its results.
total_stage() {
	local name=$1 log="$results/$1.log" rc t0=$SECONDS
	shift
	echo "=== $name ($kver)"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	add_total "$name" "$(tail -n 1 "$log" |
		grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$')" "$rc" "$log" "$t0"
}

# add_total NAME TOTAL RC LOG T0: record a run that ended with the line
# TOTAL ("N passed, N failed[, N skipped]"; empty: it printed none) and
# exit status RC, with the skipped results of its LOG. No total, or a
# non-zero exit with no failing case, counts as one failure.
add_total() {
	local name=$1 total=$2 rc=$3 log=$4 t0=$5 p f s
	if [ -z "$total" ]; then
		echo "# $name printed no total (exit $rc): counted as one failure"
		note_fail "$name" "$t0" "(no total, exit status $rc)"
		note_fails "$name" "$log" "$t0"
		record "$name" 0 1 0 "$t0"
		return
	fi
	p=$(echo "$total" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
	f=$(echo "$total" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
	s=$(echo "$total" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "# $name run exited $rc: counted as one failure"
		note_fail "$name" "$t0" "(exit status $rc, no failing case)"
		f=1
	fi
	note_skips "$name" "$log" "$t0"
	note_fails "$name" "$log" "$t0"
	record "$name" "$p" "$f" "${s:-0}" "$t0"
}

# powercut_settings DEFAULT_CYCLES: pc_cycles and pc_seed for
# reliability_stages, from EXT4X_POWERCUT_CYCLES (1 to 200; DEFAULT_CYCLES
# when unset) and EXT4X_POWERCUT_SEED (default 1); a bad value is named on
# stderr, status 2. Needs tests/lib/settings.sh.
# shellcheck disable=SC2034 # pc_seed, pc_cycles: the caller reads them
powercut_settings() {
	pc_seed=$(setting_int EXT4X_POWERCUT_SEED 1 0 1000000000) &&
		pc_cycles=$(setting_int EXT4X_POWERCUT_CYCLES "$1" 1 200)
}

# reliability_stages CYCLES SEED [ARGS...]: the power cut of
# tests/standalone/powercut.sh (docs/RELIABILITY.md: the guest resets
# itself CYCLES times, booting again in a new QEMU each time, writing
# records chosen by SEED), the host's cross-check of its serial log, then
# the low-memory guest of tests/standalone/lowmem.sh; ARGS go to both
# guest runs (--dpkg-root ROOT for another Debian's kernel).
reliability_stages() {
	local cycles=$1 seed=$2
	shift 2
	guest_stage powercut "$@" --tests powercut --reboot \
		--timeout $((120 + cycles * 45)) \
		--append "ext4x_powercut=$cycles ext4x_powercut_seed=$seed"
	stage powercut-crosscheck "$top/tests/vm/powercut-crosscheck.sh" \
		"$results/powercut/serial.log"
	guest_stage lowmem "$@" --tests lowmem --mem 384M --small
}

# totals_reset: no stages yet (a lane's subshell starts here, so that
# what it saves is its own).
totals_reset() {
	passed=0 failed=0 skipped=0
	stage_rows=() skip_rows=() fail_rows=()
}

# totals_save FILE: this shell's totals and rows, for totals_merge in the
# shell that started it.
totals_save() {
	{
		echo "counts $passed $failed $skipped"
		[ ${#stage_rows[@]} -eq 0 ] || printf 'row %s\n' "${stage_rows[@]}"
		[ ${#skip_rows[@]} -eq 0 ] || printf 'skip %s\n' "${skip_rows[@]}"
		[ ${#fail_rows[@]} -eq 0 ] || printf 'fail %s\n' "${fail_rows[@]}"
	} >"$1"
}

# totals_merge FILE NAME: add what totals_save wrote to FILE; a FILE with
# no counts (the lane NAME died before it saved) counts as one failure.
totals_merge() {
	local line p f s
	if ! read -r _ p f s < <(grep -m 1 '^counts ' "$1" 2>/dev/null) ||
		! [[ "$p $f $s" =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]]; then
		echo "# $2 saved no totals: counted as one failure"
		note_fail "$2" "$SECONDS" "(the lane saved no totals)"
		record "$2" 0 1 0 "$SECONDS"
		return
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	while IFS= read -r line; do
		case $line in
		"row "*) stage_rows+=("${line#row }") ;;
		"skip "*) skip_rows+=("${line#skip }") ;;
		"fail "*) fail_rows+=("${line#fail }") ;;
		esac
	done <"$1"
}

# the most failed results totals_report lists: a stage that failed as a
# whole can fail hundreds of cases
FAIL_LIST_MAX=40

# totals_report: the table (each kernel's stages together, in the order
# they started), the skipped and the failed results and the closing line;
# returns non-zero if anything failed.
totals_report() {
	echo
	printf '%-22s %-20s %6s %6s %7s %7s\n' kernel stage passed failed skipped seconds
	[ ${#stage_rows[@]} -eq 0 ] || sorted_rows "${stage_rows[@]}"
	if [ ${#skip_rows[@]} -gt 0 ]; then
		echo
		printf '%-22s %-20s %s\n' kernel stage "skipped result # SKIP reason"
		sorted_rows "${skip_rows[@]}"
	fi
	if [ ${#fail_rows[@]} -gt 0 ]; then
		echo
		printf '%-22s %-20s %s\n' kernel stage "failed result"
		sorted_rows "${fail_rows[@]}" | sed -n "1,${FAIL_LIST_MAX}p"
		[ ${#fail_rows[@]} -le "$FAIL_LIST_MAX" ] ||
			echo "(and $((${#fail_rows[@]} - FAIL_LIST_MAX)) more: the stages' logs have them)"
	fi
	echo
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ]
}
