#!/bin/sh
# Stock mbcache against mbcache2 (reports numbers, asserts nothing about
# them). Run with: tests/vm/run-guest.sh --tests bench-mbcache2 ...
# manual: benchmark, not part of the default test list
# timeout: 600
. /tests/guest/lib.sh

run_kmod_bench mbcache2_bench bench-mbcache2 rounds="${EXT4X_BENCH_ROUNDS:-5}"
