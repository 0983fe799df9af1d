# shellcheck shell=bash
# KTAP output for the host-side test scripts (bash): tests/static/check.sh,
# tests/host/test-*.sh, ext4-backport/tests/test-*.sh. Source it first;
# results are numbered in order, ktap_done ends the file. (The guest files
# have their own, for busybox sh: tests/guest/lib.sh.)

T_N=0 T_FAILED=0 T_PLANNED=''

# ktap_plan N: announce N results up front (else ktap_done prints the plan)
ktap_plan() { T_PLANNED=$1; echo "1..$1"; }
# ktap_diag LINE...: each line of each argument as a "# " diagnostic
ktap_diag() {
	local l
	for l in "$@"; do printf '%s\n' "$l" | sed 's/^/# /'; done
}
ktap_ok() { T_N=$((T_N + 1)); echo "ok $T_N - $1"; }
# ktap_fail DESC [DIAG...]: the diagnostics first, then "not ok"
ktap_fail() {
	local d=$1
	shift
	ktap_diag "$@"
	T_N=$((T_N + 1)) T_FAILED=$((T_FAILED + 1))
	echo "not ok $T_N - $d"
}
ktap_skip() { T_N=$((T_N + 1)); echo "ok $T_N - $1 # SKIP $2"; }
# ktap_check DESC CMD...: ok when CMD exits 0; else its output as diagnostics
ktap_check() {
	local d=$1 out rc
	shift
	out=$("$@" 2>&1) && rc=0 || rc=$?
	if [ "$rc" -eq 0 ]; then
		ktap_ok "$d"
	else
		ktap_fail "$d" "command: $*" "exit $rc" "$(tail -n 15 <<<"$out")"
	fi
}
# skip_all WHY: skip the whole file, KTAP "1..0 # SKIP WHY"
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
# ktap_done: the plan if none was printed (a planned count that was not
# met is a failure); returns non-zero if anything failed.
ktap_done() {
	if [ -z "$T_PLANNED" ]; then
		echo "1..$T_N"
	elif [ "$T_PLANNED" -ne "$T_N" ]; then
		ktap_diag "planned $T_PLANNED results, printed $T_N"
		return 1
	fi
	[ "$T_FAILED" -eq 0 ]
}
