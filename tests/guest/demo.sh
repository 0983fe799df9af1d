#!/bin/sh
# The comparison demo: tests/compare/ext4x-compare, stock ext4 (A) against
# ext4x (B) on the emulated NVDIMM, a few short rounds; every file of its
# results directory is handed back to the host (run-guest.sh --results).
# manual: make demo runs it (a few minutes of guest time)
# timeout: 900
. /tests/guest/lib.sh

out=/tmp/ext4x-compare-demo
if /tests/compare/ext4x-compare --device /dev/pmem0 --rounds 3 --runtime 5 \
	--warmup 2 --size 128 --xattr-files 2000 --xattr-time 5 --no-plot \
	--out "$out"; then
	ktap_ok "ext4x-compare ran"
else
	ktap_fail "ext4x-compare ran" "exit status $?"
fi
for f in "$out"/*; do
	[ -f "$f" ] && ktap_export_file "$f" "${f##*/}"
done
ktap_check "results.json and table.md written" test -s "$out/results.json" -a -s "$out/table.md"
