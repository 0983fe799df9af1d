#!/bin/bash
# Host side of `make demo`: run tests/guest/demo.sh (ext4x-compare on the
# emulated NVDIMM) in the QEMU guest, show its progress lines as they come,
# then draw the chart from the results the guest handed back and print the
# table. Usage: run-demo.sh KVER MODULES_DIR RESULTS_DIR [GUEST_TEST]
# GUEST_TEST is the guest file to run (default demo; bench-ext4x is the
# longer get/list-only variant behind `make bench-ext4x`). The guest boots
# without slub_debug: a benchmark measures our code, not the debug
# allocator.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${1:?usage: run-demo.sh KVER MODULES_DIR RESULTS_DIR}
modules=${2:?}
results=${3:?}
guest_test=${4:-demo}
rm -rf "$results"
mkdir -p "$results"
log=$results/console.log
: >"$log"

start=$(date +%s)
# The console without the base64 of the files coming back: the guest's
# progress lines, the tool's messages and the bench's own.
tail -n +1 -F "$log" 2>/dev/null > >(grep --line-buffered -E \
	'^ *(\[round|micro |ext4x-compare:|ext4x-guest:|# pmem:)|^(ok|not ok) ') &
tailpid=$!
trap 'kill $tailpid 2>/dev/null || true' EXIT
rc=0
EXT4X_QUIET=1 "$top/tests/vm/run-guest.sh" --kver "$kver" --modules "$modules" \
	--bench --tests "$guest_test" --timeout 1800 --log "$log" \
	--results "$results" || rc=$?
sleep 1
kill $tailpid 2>/dev/null || true
if [ ! -s "$results/results.json" ]; then
	echo "demo: the guest handed back no results.json (run-guest.sh exit $rc); see $log" >&2
	exit 1
fi
"$top/tests/compare/plot.sh" "$results/results.json" "$results/results.png"
echo
cat "$results/table.md"
echo
echo "results: $results"
echo "  table.md results.json results.png runs.tsv progress.log console.log"
echo "demo: $(($(date +%s) - start))s in the guest step (run-guest.sh exit $rc)"
exit "$rc"
