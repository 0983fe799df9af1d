#!/bin/sh
# Stock mbcache against mbcache2 (reports numbers, asserts nothing about
# them). Run with: tests/vm/run-guest.sh --tests bench-mbcache2 ...
# manual: benchmark, not part of the default test list
# timeout: 600
. /tests/guest/lib.sh

rounds=${EXT4X_BENCH_ROUNDS:-5}
dmesg -c >/dev/null
if modprobe mbcache2_bench rounds="$rounds"; then
	ktap_dmesg | sed -n 's/^\([^ :]*: \)\{0,1\}bench: //p' >/tmp/bench-mbcache2.md
	ktap_diag "$(cat /tmp/bench-mbcache2.md)"
	ktap_export_file /tmp/bench-mbcache2.md bench-mbcache2.md
	ktap_check "benchmark_printed_its_table" grep -q '^# end' /tmp/bench-mbcache2.md
	modprobe -r mbcache2_bench
else
	ktap_fail "benchmark_loaded" "$(ktap_dmesg | tail -n 20)"
fi
