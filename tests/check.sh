#!/bin/bash
# The whole test suite, as `make check` runs it: static checks and host
# tests (KTAP on stdout) and the guest suite (which prints its own total),
# summed into one closing line "N passed, N failed[, N skipped]".
# Usage: tests/check.sh KVER MODULES_DIR RESULTS_DIR
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:?usage: check.sh KVER MODULES_DIR RESULTS_DIR}
modules=${2:?}
results=${3:?}
mkdir -p "$results"

# shellcheck source=tests/lib/totals.sh
. "$top/tests/lib/totals.sh"

stage static "$top/tests/static/check.sh" "$kver"
stage host "$top/tests/host/run.sh" "$kver"

# The bench checks itself: guest files that fail on purpose must be
# counted as failures (tests/vm/harness-check.sh, three short boots).
stage harness "$top/tests/vm/harness-check.sh" "$kver"
# The suite: every non-manual guest test file in one guest.
guest_stage guest
# Power cut (tests/guest/powercut.sh, docs/RELIABILITY.md): the guest resets
# itself EXT4X_POWERCUT_CYCLES times (10; make check-long: 100) and reboots in
# the same QEMU; then the host cross-checks the serial log.
pc_cycles=${EXT4X_POWERCUT_CYCLES:-10}
guest_stage guest-powercut --tests powercut --reboot \
	--timeout $((120 + pc_cycles * 45)) \
	--append "ext4x_powercut=$pc_cycles ext4x_powercut_seed=${EXT4X_POWERCUT_SEED:-1}"
stage powercut-crosscheck "$top/tests/vm/powercut-check.sh" \
	"$results/guest-powercut/serial.log"
# Memory pressure in a small guest (tests/guest/lowmem.sh).
guest_stage guest-lowmem --tests lowmem --mem 384M --small

totals_report
