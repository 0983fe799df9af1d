#!/bin/bash
# Host-side tests (no kernel code runs here): each tests/host/test-*.sh and
# each component's own host tests print KTAP; this relays them as one
# numbered KTAP stream. Usage: tests/host/run.sh KVER
# EXT4X_HOST_REPEAT=0 skips the tests marked "# kernel-independent".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
export KVER=${1:?usage: run.sh KVER}

n=0
failed=0
echo "KTAP version 1"
for t in "$top"/tests/host/test-*.sh "$top"/ext4-backport/tests/test-*.sh; do
	[ -x "$t" ] || continue
	# A test whose header says "# kernel-independent" runs with the first
	# kernel of a multi-kernel make check only (tests/check.sh sets
	# EXT4X_HOST_REPEAT=0 for the others): it would repeat the same cases.
	if [ "${EXT4X_HOST_REPEAT:-1}" = 0 ] && grep -q '^# kernel-independent' "$t"; then
		echo "# ${t#"$top"/}: kernel-independent, run with the first kernel"
		continue
	fi
	echo "# ${t#"$top"/}"
	t0=$SECONDS
	out=$("$t" 2>&1)
	rc=$?
	while IFS= read -r l; do
		case $l in
		"ok "[0-9]* | "not ok "[0-9]*)
			st=ok
			case $l in "not "*) st="not ok"; failed=$((failed + 1)) ;; esac
			rest=${l#"$st" }
			rest=${rest#"${rest%%[!0-9]*}"}
			n=$((n + 1))
			echo "$st $n$rest"
			;;
		"KTAP version"* | 1..*) ;;
		*) echo "# $l" ;;
		esac
	done <<<"$out"
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok' <<<"$out"; then
		n=$((n + 1)); failed=$((failed + 1))
		echo "not ok $n - ${t#"$top"/} exited $rc"
	fi
	echo "# ${t#"$top"/}: $((SECONDS - t0)) s"
done
echo "1..$n"
[ "$failed" -eq 0 ]
