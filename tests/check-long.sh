#!/bin/bash
# The long reliability runs (make check-long, docs/RELIABILITY.md): the
# guest files stress, hostile, hotplug and lifecycle with ext4x_long=1
# (300 s of stress and of hotplug per phase, 300 hostile images, 300 module
# cycles), 100 power cuts with the host cross-check, and the low-memory run.
# Prints each run's results and one closing line
# "N passed, N failed[, N skipped]".
# Usage: tests/check-long.sh KVER MODULES_DIR RESULTS_DIR
# Environment: EXT4X_POWERCUT_CYCLES (100), EXT4X_POWERCUT_SEED (1).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:?usage: check-long.sh KVER MODULES_DIR RESULTS_DIR}
modules=${2:?}
results=${3:?}
mkdir -p "$results"
# shellcheck source=tests/lib/totals.sh
. "$top/tests/lib/totals.sh"

guest_stage long --tests stress,hostile,hotplug,lifecycle --append ext4x_long=1 \
	--timeout 5400
cycles=${EXT4X_POWERCUT_CYCLES:-100}
guest_stage powercut --tests powercut --reboot --timeout $((120 + cycles * 45)) \
	--append "ext4x_powercut=$cycles ext4x_powercut_seed=${EXT4X_POWERCUT_SEED:-1}"
stage powercut-crosscheck "$top/tests/vm/powercut-check.sh" \
	"$results/powercut/serial.log"
guest_stage lowmem --tests lowmem --mem 384M --small

totals_report
