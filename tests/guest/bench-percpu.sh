#!/bin/sh
# percpu_stats microbenchmark (reports numbers, asserts nothing about them).
# timeout: 600
# manual: a benchmark, run by make bench-percpu
. /tests/guest/lib.sh

rounds=${EXT4X_BENCH_ROUNDS:-7}
dmesg -c >/dev/null
if modprobe percpu_stats_bench rounds="$rounds"; then
	ktap_dmesg | sed -n 's/^\([^ :]*: \)\{0,1\}bench: //p' >/tmp/bench-percpu.md
	ktap_diag "$(cat /tmp/bench-percpu.md)"
	ktap_export_file /tmp/bench-percpu.md bench-percpu.md
	ktap_check "benchmark_printed_its_table" grep -q '^# end' /tmp/bench-percpu.md
	modprobe -r percpu_stats_bench
else
	ktap_fail "benchmark_loaded" "$(ktap_dmesg | tail -n 20)"
fi
