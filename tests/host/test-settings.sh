#!/bin/bash
# The environment settings of make check, check-long and check-debug
# (tests/lib/settings.sh): a default when unset, a good value taken, and a
# mistyped or out-of-range one stopping the run at once with a message
# that names it, before any build or guest. KTAP on stdout.
# kernel-independent: nothing is built or booted (each bad-value run is
# bounded by `timeout`, in case the check ever lets one through)
# Usage: tests/host/test-settings.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
# shellcheck source=tests/lib/settings.sh
. "$top/tests/lib/settings.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# int WANT VALUE: setting_int of X=VALUE (unset when VALUE is "-"), default
# 10, range 1..200, prints WANT ("error" for a status 2 naming X)
int() {
	local want=$1 got rc=0
	if [ "$2" = - ]; then
		got=$(unset X; setting_int X 10 1 200 2>"$tmp/err") || rc=$?
	else
		got=$(X=$2 setting_int X 10 1 200 2>"$tmp/err") || rc=$?
	fi
	[ "$rc" -eq 2 ] && grep -q "^X=$2: want a whole number from 1 to 200" "$tmp/err" &&
		got=error
	if [ "$got" = "$want" ]; then
		ktap_test_pass "X=$2 gives $want"
	else
		ktap_test_fail "X=$2 gives $want" "got '$got', status $rc" "$(cat "$tmp/err")"
	fi
}

# stops DESC PATTERN CMD...: CMD exits 2 within seconds, its stderr
# matching PATTERN, having started nothing
stops() {
	local desc=$1 pat=$2 rc=0
	shift 2
	timeout 30 "$@" >"$tmp/out" 2>&1 </dev/null || rc=$?
	if [ "$rc" -eq 2 ] && grep -q -- "$pat" "$tmp/out" && [ "$(wc -l <"$tmp/out")" -eq 1 ]; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc" "status $rc (want 2)" "$(head -n 20 "$tmp/out")"
	fi
}

ktap_print_header
ktap_set_plan 16
int 10 -
int 42 42
int 7 007
int 200 200
int error 1O
int error 0
int error 201
int error -3
int error 99999999999
got=$(Y="kcsan kasan" setting_words Y "kasan kcsan" kasan kcsan 2>&1)
ktap_check "a list of known words is taken" [ "$got" = "kcsan kasan" ]
rc=0
got=$(Y="kasan kcasn" setting_words Y "kasan kcsan" kasan kcsan 2>&1) || rc=$?
ktap_check "an unknown word is named" [ "$rc:$got" = \
	'2:Y=kasan kcasn: "kcasn" is not one of: kasan kcsan' ]
rc=0
got=$(Y="kasan *" setting_words Y "kasan kcsan" kasan kcsan 2>&1) || rc=$?
ktap_check "a glob is a word, not the names of files" [ "$rc:$got" = \
	'2:Y=kasan *: "*" is not one of: kasan kcsan' ]
k=6.1.0-57-amd64
stops "make check stops on EXT4X_POWERCUT_CYCLES=1O" "EXT4X_POWERCUT_CYCLES=1O: want" \
	env EXT4X_POWERCUT_CYCLES=1O "$top/tests/check.sh" "$k"
stops "make check-long stops on EXT4X_DEBUG_SLOWDOWN=x" "EXT4X_DEBUG_SLOWDOWN=x: want" \
	env EXT4X_DEBUG_SLOWDOWN=x "$top/tests/check.sh" --long "$k"
stops "make check-debug stops on EXT4X_DEBUG_VARIANTS=kasn" '"kasn" is not one of' \
	env EXT4X_DEBUG_VARIANTS=kasn "$top/tests/debug/run.sh" "$k"
stops "make check-debug stops on EXT4X_DEBUG_LOWMEM_MEM=1GB" "EXT4X_DEBUG_LOWMEM_MEM=1GB: want a size" \
	env EXT4X_DEBUG_LOWMEM_MEM=1GB "$top/tests/debug/run.sh" "$k"
ktap_finished
