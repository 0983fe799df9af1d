#!/bin/bash
# Host-side tests (no kernel code runs here): each tests/host/test-*.sh and
# each component's own host tests print KTAP; this relays them as one
# numbered KTAP stream (tests/lib/ktap.sh's ktap_relay). A file that skips
# itself as a whole is one skipped result with its reason; if its header
# has a line "# required-in-ci" (the DKMS, .deb and kernel-update files),
# that skip is a failure under CI=true, where every such file must run.
# A file that exits non-zero without a failing result is one failure.
# Usage: tests/host/run.sh KVER [FILE...]   (default: every test file)
# EXT4X_HOST_REPEAT=0 skips the tests marked "# kernel-independent".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
export KVER=${1:?usage: run.sh KVER [FILE...]}
shift
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"

files=("$@")
[ ${#files[@]} -gt 0 ] ||
	files=("$top"/tests/host/test-*.sh "$top"/ext4-backport/tests/test-*.sh)
out=$(mktemp /tmp/ext4x-host-run.XXXXXX)
trap 'rm -f "$out"' EXIT

ktap_print_header
for t in "${files[@]}"; do
	[ -x "$t" ] || continue
	name=${t#"$top"/}
	# A test whose header says "# kernel-independent" runs with the first
	# kernel of a multi-kernel make check only (tests/check.sh sets
	# EXT4X_HOST_REPEAT=0 for the others): it would repeat the same cases.
	if [ "${EXT4X_HOST_REPEAT:-1}" = 0 ] && grep -q '^# kernel-independent' "$t"; then
		ktap_print_msg "$name: kernel-independent, run with the first kernel"
		continue
	fi
	required=
	! grep -q '^# required-in-ci' "$t" || required=required
	ktap_print_msg "$name"
	t0=$SECONDS
	"$t" >"$out" 2>&1
	rc=$?
	failed0=$KTAP_FAILED
	ktap_relay "" "$name" ${required:+"$required"} <"$out"
	if [ "$rc" -ne 0 ] && [ "$KTAP_FAILED" -eq "$failed0" ]; then
		ktap_test_fail "$name exited $rc"
	fi
	ktap_print_msg "$name: $((SECONDS - t0)) s"
done
ktap_finished
