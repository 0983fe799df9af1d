#!/bin/sh
# percpu_stats microbenchmark (reports numbers, asserts nothing about them).
# timeout: 600
# Run by: make bench-percpu
. /tests/vm/guest/lib.sh

run_kmod_bench percpu_stats_bench bench-percpu rounds="${EXT4X_BENCH_ROUNDS:-7}"
