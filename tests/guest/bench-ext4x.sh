#!/bin/sh
# The ext4x benchmark: ext4x-compare like the demo, with 5 interleaved
# rounds and an xattr load that only reads (getxattr/listxattr on files
# sharing external xattr blocks), the path patch 0003 changes. Every file
# of its results directory is handed back to the host.
# manual: make bench-ext4x runs it (about 8 minutes of guest time)
# timeout: 1500
. /tests/guest/lib.sh

out=/tmp/ext4x-compare-bench
if /tests/compare/ext4x-compare --device /dev/pmem0 --rounds 5 --runtime 5 \
	--warmup 2 --size 128 --xattr-files 2000 --xattr-time 5 --xattr-write-pct 0 \
	--no-plot --out "$out"; then
	ktap_ok "ext4x-compare ran"
else
	ktap_fail "ext4x-compare ran" "exit status $?"
fi
for f in "$out"/*; do
	[ -f "$f" ] && ktap_export_file "$f" "${f##*/}"
done
ktap_check "results.json and table.md written" test -s "$out/results.json" -a -s "$out/table.md"
