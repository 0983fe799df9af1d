#!/bin/bash
# Host side of `make demo`: run tests/guest/demo.sh (ext4x-compare on the
# emulated NVDIMM) in the QEMU guest, show its progress lines as they come,
# then draw the chart from the results the guest handed back and print the
# table. Usage: run-demo.sh KVER MODULES_DIR RESULTS_DIR [demo|bench]
# demo (the default): 4 rounds with the tool's xattr mix; bench, behind
# `make bench-ext4x`: 5 rounds and an xattr load that only reads. The guest
# boots without slub_debug: a benchmark measures our code, not the debug
# allocator.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${1:?usage: run-demo.sh KVER MODULES_DIR RESULTS_DIR}
modules=${2:?}
results=${3:?}
case ${4:-demo} in
demo) settings="ext4x_demo_rounds=4" ;;
bench) settings="ext4x_demo_rounds=5 ext4x_demo_write_pct=0" ;;
*) echo "run-demo.sh: unknown mode '$4' (demo or bench)" >&2; exit 2 ;;
esac
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
	--bench --tests demo --append "$settings" --timeout 1800 --log "$log" \
	--results "$results" || rc=$?
sleep 1
kill $tailpid 2>/dev/null || true
if [ ! -s "$results/results.json" ]; then
	echo "demo: the guest handed back no results.json (run-guest.sh exit $rc); see $log" >&2
	exit 1
fi
"$top/tools/ext4x-compare/plot.sh" "$results/results.json" "$results/results.png"
echo
cat "$results/table.md"
echo
echo "results: $results"
echo "  table.md results.json results.png runs.tsv stats.md progress.log console.log"
echo "demo: $(($(date +%s) - start))s in the guest step (run-guest.sh exit $rc)"
exit "$rc"
