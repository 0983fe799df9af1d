#!/bin/sh
# The coherence plugin's calibration pair (tests/coherence/README.md): two
# threads pinned to CPU 0 and 1 do atomic increments of one shared counter,
# then of one private counter each, each run in a window of its own. The
# guest cannot see the counts (the plugin writes them on the host): it runs
# the pair and says where the NVDIMM lies in guest-physical memory; the host
# side (tests/coherence/check.sh, tests/coherence/bench.sh) judges.
# Kernel parameter: ext4x_coh_calib=N increments per thread (default 200000).
# Run by: tests/coherence/check.sh (make check), tests/coherence/bench.sh
# timeout: 300
. /tests/vm/guest/lib.sh

n=200000
boot_param_int n ext4x_coh_calib 1000 100000000
ktap_check "both CPUs online" test "$(cat /sys/devices/system/cpu/online)" = 0-1
# the plugin's pmem= must agree with this (tests/coherence/check.sh)
sed -n 's/^ *\([0-9a-f]*\)-\([0-9a-f]*\) : Persistent Memory.*/coherence: pmem 0x\1-0x\2/p' /proc/iomem
ktap_check "calibration: shared counter, $n increments a thread" coherence-mark calib shared "$n"
ktap_check "calibration: private counters, $n increments a thread" coherence-mark calib private "$n"
