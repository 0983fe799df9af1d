# shellcheck shell=bash
# Shared by tests/coherence/check.sh and bench.sh: the guest's NVDIMM
# address for the plugin, and the reading of the plugin's records.

# Where the NVDIMM lands in guest-physical memory with run-guest.sh's
# machine (-m 2G: RAM below 4 GiB, the device-memory region from 4 GiB).
# The guest prints what its /proc/iomem says ("coherence: pmem A-B");
# coh_pmem_agrees checks the two.
COH_PMEM=0x100000000

# coh_pmem_agrees SERIAL_LOG: the guest saw its NVDIMM at COH_PMEM
coh_pmem_agrees() {
	local got
	got=$(tr -d '\r' <"$1" | sed -n 's/^ *coherence: pmem \(0x[0-9a-f]*\)-.*/\1/p' | head -n 1)
	[ -n "$got" ] && [ $((got)) -eq $((COH_PMEM)) ]
}

# coh_windows OUT: one line per window of the plugin's record file OUT,
# "INDEX MODE DRAM_W DRAM_R PMEM_W PMEM_R ACCESSES DROPPED"
coh_windows() {
	awk '$1 == "window" { w = $2; m = $3 }
	     $1 == "totals" { print w, m, $3, $5, $7, $9, $11, $13 }' "$1"
}
