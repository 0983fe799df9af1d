#!/bin/sh
# percpu_stats microbenchmark (reports numbers, asserts nothing about them).
# timeout: 600
# manual: a benchmark, run by make bench-percpu
. /tests/guest/lib.sh

run_kmod_bench percpu_stats_bench bench-percpu rounds="${EXT4X_BENCH_ROUNDS:-7}"
