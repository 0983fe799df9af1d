# shellcheck shell=sh
# KTAP output for every shell test of the suite, in plain POSIX sh so that
# both bash (the host tests, tests/static, tests/trixie) and the guest's
# busybox ash (tests/vm/guest/lib.sh sources it) use the same functions.
# The names are those of the kernel's kselftest shell helpers.
#
#   . tests/lib/ktap.sh
#   ktap_print_header                 # "KTAP version 1"
#   ktap_set_plan 3                   # optional; ktap_finished prints it if not
#   ktap_check "mkfs works" mkfs.ext4 -q -F /dev/pmem0
#   ktap_test_pass "a result"; ktap_test_fail "a result" "why"
#   ktap_test_skip "a result" "why not"
#   ktap_finished                     # the plan if none; status 1 on a failure
#
# Results are numbered in order. A description must not contain '#', which
# starts a KTAP directive. Sourcing it defines functions and three counters,
# nothing else.

KTAP_N=0
KTAP_FAILED=0
KTAP_PLANNED=

# ktap_print_header: the first line of a KTAP document
ktap_print_header() {
	printf 'KTAP version 1\n'
}

# ktap_set_plan N: announce N results up front
ktap_set_plan() {
	KTAP_PLANNED=$1
	printf '1..%s\n' "$1"
}

# ktap_print_msg TEXT...: each line of each argument as a "# " diagnostic
ktap_print_msg() {
	for _ktap_m in "$@"; do
		printf '%s\n' "$_ktap_m" | sed 's/^/# /'
	done
}

# ktap_test_pass DESC
ktap_test_pass() {
	KTAP_N=$((KTAP_N + 1))
	printf 'ok %d - %s\n' "$KTAP_N" "$1"
}

# ktap_test_fail DESC [MSG...]: the diagnostics first, then "not ok"
ktap_test_fail() {
	_ktap_d=$1
	shift
	[ $# -eq 0 ] || ktap_print_msg "$@"
	KTAP_N=$((KTAP_N + 1))
	KTAP_FAILED=$((KTAP_FAILED + 1))
	printf 'not ok %d - %s\n' "$KTAP_N" "$_ktap_d"
}

# ktap_test_skip DESC REASON
ktap_test_skip() {
	KTAP_N=$((KTAP_N + 1))
	printf 'ok %d - %s # SKIP %s\n' "$KTAP_N" "$1" "${2:-skipped}"
}

# ktap_check DESC CMD [ARGS...]: passes when CMD exits 0, else fails with
# the command, its exit status and the tail of its output. CMD runs in this
# shell (a function may set variables); safe under set -e.
ktap_check() {
	_ktap_d=$1
	shift
	_ktap_f=${TMPDIR:-/tmp}/ktap-check.$$
	if "$@" >"$_ktap_f" 2>&1; then
		ktap_test_pass "$_ktap_d"
	else
		_ktap_rc=$?
		ktap_test_fail "$_ktap_d" "command: $*" "exit status: $_ktap_rc" \
			"$(tail -n 20 "$_ktap_f")"
	fi
	rm -f "$_ktap_f"
}

# ktap_relay PREFIX [NAME [required]]: the results of another KTAP stream on
# stdin become results of this one: renumbered, PREFIX before each
# description, a SKIP kept. A stream skipped as a whole ("1..0 # SKIP
# REASON") becomes one skipped result named NAME (default: PREFIX without
# its trailing ": "), or, with "required" while CI=true, one failure: what
# CI must cover cannot vanish into a skip. Other lines become messages; the
# stream's version and plan lines go, its plan is kept in KTAP_RELAY_PLAN
# (empty if none) and the number of its results in KTAP_RELAY_RESULTS.
# Every test runner of the suite relays with it (tests/host/run.sh, the
# guest's run_kmod_test). Redirect a file to it, do not pipe: a pipe's
# subshell would keep the counts to itself.
# shellcheck disable=SC2034 # KTAP_RELAY_PLAN: read by the caller
ktap_relay() {
	_ktap_name=${2:-${1%: }}
	KTAP_RELAY_PLAN=
	KTAP_RELAY_RESULTS=0
	while IFS= read -r _ktap_l || [ -n "$_ktap_l" ]; do
		case $_ktap_l in
		"ok "[0-9]* | "not ok "[0-9]*)
			_ktap_r=${_ktap_l#not }
			_ktap_r=${_ktap_r#ok }
			_ktap_r=${_ktap_r#"${_ktap_r%%[!0-9]*}"}
			_ktap_r=${_ktap_r# - }
			KTAP_RELAY_RESULTS=$((KTAP_RELAY_RESULTS + 1))
			case $_ktap_l in
			"not ok "*) ktap_test_fail "$1$_ktap_r" ;;
			*" # SKIP"*) ktap_test_skip "$1${_ktap_r%% # SKIP*}" "${_ktap_r#* # SKIP }" ;;
			*) ktap_test_pass "$1$_ktap_r" ;;
			esac
			;;
		"1..0 # SKIP"*)
			KTAP_RELAY_PLAN=0
			if [ "${3:-}" = required ] && [ "${CI:-}" = true ]; then
				ktap_test_fail "$_ktap_name: skipped as a whole, which CI=true does not allow" \
					"${_ktap_l#1..0 # SKIP }"
			else
				ktap_test_skip "$_ktap_name" "${_ktap_l#1..0 # SKIP }"
			fi
			;;
		1..[0-9]*) KTAP_RELAY_PLAN=${_ktap_l#1..} ;;
		"KTAP version"* | "TAP version"*) ;;
		*) ktap_print_msg "${_ktap_l#\# }" ;;
		esac
	done
}

# ktap_skip_all REASON: the whole file is skipped ("1..0 # SKIP REASON"); exits 0
ktap_skip_all() {
	printf '1..0 # SKIP %s\n' "$1"
	KTAP_PLANNED=0 # the plan is printed: a guest file's exit trap adds none
	exit 0
}

# ktap_finished: print the plan if none was printed (a planned count that
# was not met is a failure); returns 1 if anything failed, else 0. The
# caller exits with it (a host script's last command; the guest's EXIT trap).
ktap_finished() {
	if [ -z "$KTAP_PLANNED" ]; then
		printf '1..%d\n' "$KTAP_N"
	elif [ "$KTAP_PLANNED" -ne "$KTAP_N" ]; then
		ktap_print_msg "planned $KTAP_PLANNED results, printed $KTAP_N"
		return 1
	fi
	[ "$KTAP_FAILED" -eq 0 ]
}
