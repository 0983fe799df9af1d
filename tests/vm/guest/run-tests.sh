#!/bin/sh
# Run guest test files and print one KTAP document on stdout.
#
# Usage: run-tests.sh [NAME[,NAME...]|all ...]
# NAME selects NAME.sh from /tests/guest (the suite), /tests/standalone (files
# that need a guest of their own: benchmarks, power cut, low memory, DKMS,
# drop-in) or /tests/extra (run-guest.sh --extra-tests), looked up in that
# order. "all" (the default) selects every file of /tests/guest, testbed
# first, where it appears in the list. Each file's output (stdout and stderr) is printed indented
# by four spaces as a subtest, then "ok K - NAME", "ok K - NAME # SKIP REASON"
# when the file printed no result but a plan "1..0 # SKIP REASON" (tests/lib/
# ktap.sh's ktap_skip_all), or "not ok K - NAME": not ok when the file exits
# non-zero, prints a top-level "not ok" or nothing at all, or runs past its
# timeout (300 s, or N from a "# timeout: N" line in the file; with
# ext4x_long=1 on the kernel command line, a "# timeout-long: N" line wins,
# for the long variants of make check-long; ext4x_timeout_scale=N multiplies
# it). The file runs
# in its own session, and the whole session is killed when it times out or
# exits, so stray children cannot keep the runner waiting.

dirs=${EXT4X_TEST_DIRS:-/tests/guest /tests/standalone /tests/extra}
suite=${dirs%% *}
# make check-long's runs (the file headers' "# timeout-long:" applies)
long_run=''
case " $(cat /proc/cmdline) " in *" ext4x_long=1 "*) long_run=1 ;; esac
# ext4x_timeout_scale=N multiplies every file's limit (a debug kernel, tests/debug)
scale=$(sed -n 's/.*ext4x_timeout_scale=\([0-9][0-9]*\).*/\1/p' /proc/cmdline)
scale=${scale:-1}
tmp=${TMPDIR:-/tmp}/run-tests.$$
mkdir -p "$tmp"
# shellcheck source=tests/vm/guest/session.sh
. /tests/vm/guest/session.sh

# Every file of the suite, in run order: the test bed's own check first.
all_tests() {
	[ ! -f "$suite/testbed.sh" ] || echo testbed
	for f in "$suite"/*.sh; do
		[ -f "$f" ] || continue
		n=${f##*/}
		n=${n%.sh}
		[ "$n" = testbed ] || echo "$n"
	done
}

# test_file NAME: the path of NAME.sh in the first directory that has it
test_file() {
	for d in $dirs; do
		[ ! -f "$d/$1.sh" ] || { echo "$d/$1.sh"; return 0; }
	done
	return 1
}

# Value of a "# KEY: VALUE" header line of a test file.
header() {
	sed -n "s/^# $2: *\([^ ]*\).*/\1/p" "$1" | head -n1
}

# Print stdin indented, keeping a copy in file $1.
indent() {
	while IFS= read -r line || [ -n "$line" ]; do
		printf '    %s\n' "$line"
		printf '%s\n' "$line" >>"$1"
	done
}

# Unload the project's modules (those in /lib/modules/KVER/extra) that a
# test file left loaded, so that the next file starts from a clean kernel.
unload_project_modules() {
	extra=/lib/modules/$(uname -r)/extra
	[ -d "$extra" ] || return 0
	left=
	for ko in "$extra"/*.ko; do
		[ -e "$ko" ] || continue
		m=${ko##*/}
		m=${m%.ko}
		m=$(echo "$m" | tr - _)
		grep -q "^$m " /proc/modules && left="$left $m"
	done
	[ -n "$left" ] || return 0
	echo "# $1: left loaded:$left; unloading"
	# shellcheck disable=SC2086 # one module per word
	/sbin/modprobe -r -a $left 2>&1 | sed 's/^/# /'
}

# run_one NAME: run a test file; status 0 if it passed, 2 if it skipped
# itself as a whole (its "1..0 # SKIP" line is in $tmp/NAME.out), 1 if it
# failed.
run_one() {
	out=$tmp/$1.out
	: >"$out"
	if ! file=$(test_file "$1"); then
		echo "# $1: no test file $1.sh in $dirs"
		return 1
	fi
	limit=$(header "$file" timeout)
	if [ -n "$long_run" ]; then
		long=$(header "$file" timeout-long)
		[ -z "$long" ] || limit=$long
	fi
	case $limit in '' | *[!0-9]*) limit=300 ;; esac
	limit=$((limit * scale))
	echo "# $1: running (timeout ${limit}s)"

	rm -f "$tmp/fifo"
	mkfifo "$tmp/fifo"
	indent "$out" <"$tmp/fifo" &
	reader=$!
	start=$(date +%s)
	run_in_session "$limit" sh "$file" >"$tmp/fifo" 2>&1 </dev/null
	rc=$?
	wait $reader
	unload_project_modules "$1"
	# The console level /init set, whatever the file did with it (a file
	# that lowers it and exits early would hide the next files' test
	# module lines, expect-warn markers among them, from the console).
	dmesg -n 7
	end=$(date +%s)
	echo "# $1: exit status $rc after $((end - start))s"
	if [ "$session_timed_out" = 1 ]; then
		echo "# $1: timed out after ${limit}s"
		return 1
	fi
	[ "$rc" -eq 0 ] || return 1
	if grep -q '^not ok' "$out"; then
		return 1
	fi
	grep -q '^ok' "$out" && return 0
	grep -q '^1\.\.0 # SKIP' "$out" && return 2
	echo "# $1: printed no results"
	return 1
}

# "all" stands for the suite where it appears (e.g. all,kmemleak: the suite,
# then a file that inspects what it left); no name at all means "all".
[ $# -gt 0 ] || set -- all
names=
for arg in "$@"; do
	for n in $(echo "$arg" | tr ',' ' '); do
		if [ "$n" = all ]; then
			names="$names $(all_tests | tr '\n' ' ')"
		else
			names="$names $n"
		fi
	done
done
# shellcheck disable=SC2086 # split the list into words
set -- $names

echo "KTAP version 1"
echo "1..$#"
k=0
failed=0
for name in "$@"; do
	k=$((k + 1))
	run_one "$name"
	case $? in
	0) echo "ok $k - $name" ;;
	2) echo "ok $k - $name # SKIP $(sed -n 's/^1\.\.0 # SKIP *//p' "$tmp/$name.out" | head -n 1)" ;;
	*)
		echo "not ok $k - $name"
		failed=$((failed + 1))
		;;
	esac
done
rm -rf "$tmp"
[ "$failed" -eq 0 ]
