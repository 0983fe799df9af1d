#!/bin/bash
# Self-check of the host side of the bench: the one KTAP relay
# (tests/lib/ktap.sh), the host runner (tests/host/run.sh) and the totals
# of make check (tests/lib/totals.sh), fed planted test files and logs. No
# result may vanish: a file that skips itself as a whole is one skipped
# result with its reason, in the totals and in the list under the table; a
# "# required-in-ci" file that skips as a whole fails under CI=true; a file
# that exits non-zero without a failing result fails. KTAP on stdout.
# kernel-independent: nothing is built or booted
# Usage: tests/host/test-harness.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# same DESC WANT-FILE GOT-FILE: the two files are equal
same() {
	if diff -u "$2" "$3" >"$tmp/diff"; then
		ktap_test_pass "$1"
	else
		ktap_test_fail "$1" "$(cat "$tmp/diff")"
	fi
}

ktap_print_header

# --- the relay, in a shell of its own so its counters are not ours
relay() { # ARGS...: relay stdin with a fresh numbering; then the counts
	(
		. "$top/tests/lib/ktap.sh"
		ktap_test_pass "before"
		ktap_relay "$@"
		echo "plan=$KTAP_RELAY_PLAN results=$KTAP_RELAY_RESULTS failed=$KTAP_FAILED"
	)
}
printf 'KTAP version 1\n1..3\nok 1 - one\n# a note\nnot ok 2 - two\nok 3 - three # SKIP why not' \
	>"$tmp/stream"
relay "p: " <"$tmp/stream" >"$tmp/got"
cat >"$tmp/want" <<'EOF'
ok 1 - before
ok 2 - p: one
# a note
not ok 3 - p: two
ok 4 - p: three # SKIP why not
plan=3 results=3 failed=1
EOF
same "relay: results renumbered and prefixed, a SKIP kept, a last line without newline read, plan and count kept" \
	"$tmp/want" "$tmp/got"

printf 'KTAP version 1\n1..0 # SKIP no such thing here\n' >"$tmp/skipped"
relay "p: " <"$tmp/skipped" >"$tmp/got"
printf '%s\n' "ok 1 - before" "ok 2 - p # SKIP no such thing here" \
	"plan=0 results=0 failed=0" >"$tmp/want"
same "relay: a stream skipped as a whole is one skipped result with its reason" \
	"$tmp/want" "$tmp/got"

CI=true relay "p: " "the file" required <"$tmp/skipped" >"$tmp/got"
printf '%s\n' "ok 1 - before" "# no such thing here" \
	"not ok 2 - the file: skipped as a whole, which CI=true does not allow" \
	"plan=0 results=0 failed=1" >"$tmp/want"
same "relay: a required stream skipped as a whole fails under CI=true" \
	"$tmp/want" "$tmp/got"

CI='' relay "p: " "the file" required <"$tmp/skipped" >"$tmp/got"
printf '%s\n' "ok 1 - before" "ok 2 - the file # SKIP no such thing here" \
	"plan=0 results=0 failed=0" >"$tmp/want"
same "relay: the same stream outside CI is one skipped result" "$tmp/want" "$tmp/got"

# --- the host runner over planted test files
mkdir -p "$tmp/t"
plant() { # NAME BODY: an executable test file tmp/t/NAME
	printf '#!/bin/bash\n%s\n' "$2" >"$tmp/t/$1"
	chmod +x "$tmp/t/$1"
}
plant test-a.sh '. '"$top"'/tests/lib/ktap.sh
ktap_print_header; ktap_test_pass "a1"; ktap_test_skip "a2" "not today"; ktap_finished'
plant test-skipped.sh '. '"$top"'/tests/lib/ktap.sh
ktap_print_header; ktap_skip_all "nothing to do here"'
plant test-dkms-like.sh '# required-in-ci
. '"$top"'/tests/lib/ktap.sh
ktap_print_header; ktap_skip_all "ext4x is already registered"'
plant test-exit.sh 'echo "ok 1 - fine"; exit 3'
files=("$tmp"/t/test-a.sh "$tmp"/t/test-skipped.sh "$tmp"/t/test-dkms-like.sh "$tmp"/t/test-exit.sh)

rc=0
CI='' "$top/tests/host/run.sh" K "${files[@]}" >"$tmp/run" 2>&1 || rc=$?
grep -E '^(not )?ok |^1\.\.' "$tmp/run" >"$tmp/got"
cat >"$tmp/want" <<EOF
ok 1 - a1
ok 2 - a2 # SKIP not today
ok 3 - $tmp/t/test-skipped.sh # SKIP nothing to do here
ok 4 - $tmp/t/test-dkms-like.sh # SKIP ext4x is already registered
ok 5 - fine
not ok 6 - $tmp/t/test-exit.sh exited 3
1..6
EOF
if [ "$rc" -ne 0 ]; then
	same "run.sh: whole-file skips are skipped results with their reasons, a bad exit fails" \
		"$tmp/want" "$tmp/got"
else
	ktap_test_fail "run.sh: a bad exit fails the run" "run.sh exited 0:" "$(cat "$tmp/run")"
fi

rc=0
CI=true "$top/tests/host/run.sh" K "$tmp/t/test-a.sh" "$tmp/t/test-dkms-like.sh" >"$tmp/run" 2>&1 || rc=$?
if [ "$rc" -ne 0 ] &&
	grep -qxF "not ok 3 - $tmp/t/test-dkms-like.sh: skipped as a whole, which CI=true does not allow" "$tmp/run" &&
	grep -qxF "# ext4x is already registered" "$tmp/run"; then
	ktap_test_pass "run.sh: under CI=true a required-in-ci file skipped as a whole fails, with its reason"
else
	ktap_test_fail "run.sh: under CI=true a required-in-ci file skipped as a whole fails" \
		"status $rc" "$(cat "$tmp/run")"
fi

# --- the totals of make check over those runs
(
	cd "$tmp" || exit 1
	results=$tmp/results kver=K
	mkdir -p "$results"
	# shellcheck source=tests/lib/totals.sh
	. "$top/tests/lib/totals.sh"
	CI='' stage host "$top/tests/host/run.sh" K "${files[@]}"
	stage whole printf 'KTAP version 1\n1..0 # SKIP no chroot\n'
	totals_report
	echo "status $?"
) >"$tmp/totals" 2>&1
if tail -n 2 "$tmp/totals" | paste -sd' ' | grep -qx '2 passed, 1 failed, 4 skipped status 1' &&
	grep -qE '^K +host +2 +1 +3 ' "$tmp/totals" && grep -qE '^K +whole +0 +0 +1 ' "$tmp/totals" &&
	grep -qE '^K +host +.*test-skipped\.sh # SKIP nothing to do here$' "$tmp/totals" &&
	grep -qE '^K +whole +\(the whole stage\) # SKIP no chroot$' "$tmp/totals" &&
	sed -n '/failed result$/,$p' "$tmp/totals" | grep -qE '^K +host +.*/test-exit\.sh exited 3$'; then
	ktap_test_pass "totals: every skip counted, whole-file and whole-stage ones too, each listed with its reason; the failure listed"
else
	ktap_test_fail "totals: every skip counted and listed with its reason" "$(cat "$tmp/totals")"
fi

# --- two lanes' totals: a subshell's saved and merged, rows sorted by
# kernel then start; a lane that saved nothing is a failure; the list of
# failures, nested ones too, is cut at FAIL_LIST_MAX with a count
(
	cd "$tmp" || exit 1
	results=$tmp/results
	# shellcheck source=tests/lib/totals.sh
	. "$top/tests/lib/totals.sh"
	FAIL_LIST_MAX=2
	kver=K2 kidx=2
	stage early printf 'ok 1 - e\n'
	(
		totals_reset
		kver=K1 kidx=1
		stage late printf 'ok 1 - l\nok 2 - s # SKIP not here\n    not ok 1 - deep\nnot ok 3 - f\n'
		totals_save "$tmp/lane.totals"
	)
	totals_merge "$tmp/lane.totals" "lane one"
	totals_merge "$tmp/nothing.totals" "lane two"
	totals_report
	echo "status $?"
) >"$tmp/lanes" 2>&1
if tail -n 2 "$tmp/lanes" | paste -sd' ' | grep -qx '2 passed, 2 failed, 1 skipped status 1' &&
	grep -E '^K[12] ' "$tmp/lanes" | awk '{print $1, $2, $3}' | paste -sd' ' |
	grep -qx 'K1 late 1 K2 early 1 K2 lane two K1 late s K1 late deep K1 late f' &&
	grep -qx '(and 1 more: the stages.* logs have them)' "$tmp/lanes" &&
	grep -qx '# lane two saved no totals: counted as one failure' "$tmp/lanes"; then
	ktap_test_pass "totals: a lane's saved totals merged, rows by kernel and start, a lane without totals fails, failures listed up to a cap"
else
	ktap_test_fail "totals: a lane's saved totals merged, a lane without totals fails" "$(cat "$tmp/lanes")"
fi

# --- an interrupted make check stops its host lane: tests/check.sh in a copy
# of the tree whose stages are stubs (a guest and a host test that sleep),
# in a session of its own, sent INT as a terminal's ^C reaches its group
lt=$tmp/lanes-tree
mkdir -p "$lt/tests/lib" "$lt/tests/static" "$lt/tests/host" "$lt/tests/vm" \
	"$lt/tests/coherence" "$lt/scripts" "$lt/packaging" "$lt/ext4-backport" "$lt/bin"
cp "$top/tests/check.sh" "$lt/tests/"
cp "$top/tests/lib/totals.sh" "$top/tests/lib/settings.sh" "$lt/tests/lib/"
cp "$top/VERSION" "$lt/"
stub() { # PATH BODY
	printf '#!/bin/bash\n%s\n' "$2" >"$lt/$1"
	chmod +x "$lt/$1"
}
stub bin/make 'for a; do case $a in KVER=*) k=${a#KVER=} ;; esac; done
mkdir -p "'"$lt"'/build/$k/modules" && touch "'"$lt"'/build/$k/modules/"{a,b,c}.ko'
stub bin/modinfo 'basename "$(dirname "$(dirname "$3")")"'
stub scripts/install-deps.sh 'exit 0'
stub packaging/mkdeb.sh 'exit 1'
stub tests/static/run.sh 'echo "ok 1 - static"'
stub tests/host/run.sh 'trap "echo host test cleaned up >>'"$lt"'/marks" EXIT
echo host test started >>'"$lt"'/marks; sleep 20
echo host test ran to its end >>'"$lt"'/marks; echo "ok 1 - host"'
stub tests/vm/harness-selftest.sh 'echo "ok 1 - harness"'
stub tests/coherence/check.sh 'echo "ok 1 - coherence"'
stub tests/vm/run-guest.sh 'sleep 20; echo "1 passed, 0 failed"'
# (env: a job started with & ignores INT, and so would the shell it runs)
PATH=$lt/bin:$PATH env --default-signal=INT setsid "$lt/tests/check.sh" K1 K2 >"$lt/out" 2>&1 &
check=$!
for _ in $(seq 100); do
	grep -q 'host test started' "$lt/marks" 2>/dev/null && break
	sleep 0.1
done
lane_nice=$(ps -o ni= -p "$(pgrep -f "^/bin/bash $lt/tests/host/run.sh" | head -n 1)" 2>/dev/null | tr -d ' ')
kill -INT -- -"$check" 2>/dev/null
rc=0
wait "$check" || rc=$?
sleep 0.5
left=$(pgrep -f "$lt/" | wc -l)
if [ "$rc" -eq 130 ] && [ "$lane_nice" = 10 ] && [ "$left" -eq 0 ] &&
	grep -qx 'host test cleaned up' "$lt/marks" && ! grep -q 'to its end' "$lt/marks"; then
	ktap_test_pass "check.sh: the host lane runs at nice 10, and an interrupt stops it, its tests cleaning up"
else
	ktap_test_fail "check.sh: an interrupt stops the host lane, its tests cleaning up" \
		"status $rc, lane nice '$lane_nice', $left processes left" "$(cat "$lt/marks" "$lt/out" 2>&1)"
	pkill -f "$lt/" || :
fi

ktap_finished
