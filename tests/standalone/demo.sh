#!/bin/sh
# The comparison demo and the ext4x benchmark: ext4x-compare (as the
# ext4x-tools package installs it, else tools/ext4x-compare/ext4x-compare),
# stock ext4 (A) against ext4x (B) on the emulated NVDIMM; every file of its
# results directory is handed back to the host (run-guest.sh --results).
# Kernel parameters (tools/ext4x-compare/run-demo.sh sets them):
#   ext4x_demo_rounds=N      interleaved rounds (default 4: the fewest with
#                            a 95 % interval of the ratio)
#   ext4x_demo_write_pct=P   xattr load's share of sets (default: the tool's);
#                            make bench-ext4x uses 5 rounds and 0, a load that
#                            only reads shared external xattr blocks, the
#                            path patch 0002 changes
# Run by: make demo and make bench-ext4x (4 to 8 minutes of guest time)
# timeout: 1500
. /tests/vm/guest/lib.sh

rounds=4
boot_param_int rounds ext4x_demo_rounds 1 100
pct=
boot_param_int pct ext4x_demo_write_pct 0 100

# the installed command of the ext4x-tools package when run-demo.sh put it
# in (with its helpers in /usr/libexec/ext4x), else the tree's copy
tool=/tools/ext4x-compare/ext4x-compare
[ ! -x /usr/sbin/ext4x-compare ] || tool=/usr/sbin/ext4x-compare
echo "ext4x-guest: demo runs $tool"

out=/tmp/ext4x-compare-demo
if "$tool" --device /dev/pmem0 --rounds "$rounds" \
	--runtime 5 --warmup 2 --size 128 --xattr-files 2000 --xattr-time 5 \
	${pct:+--xattr-write-pct "$pct"} --no-plot --out "$out"; then
	ktap_test_pass "ext4x-compare ran"
else
	ktap_test_fail "ext4x-compare ran" "exit status $?"
fi
for f in "$out"/*; do
	[ -f "$f" ] && ktap_export_file "$f" "${f##*/}"
done
# one run's fio JSON as a sample (all of them would slow the console down)
[ -f "$out/raw/B/randread-1.json" ] &&
	ktap_export_file "$out/raw/B/randread-1.json" raw-B-randread-1.json
ktap_check "results.json and table.md written" test -s "$out/results.json" -a -s "$out/table.md"
