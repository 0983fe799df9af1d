#!/bin/bash
# The debug-kernel lane alone (make check-debug): tests/debug/lane.sh's
# debug_lane for KVER (a KASAN and a KCSAN kernel from KVER's own Debian
# source, our modules against each, the guest suite with a kmemleak scan,
# the power cuts and the low-memory guest on each), then the table of stages
# and "N passed, N failed". make check-long runs the same lane for every
# kernel of KVERS.
#
# Usage: tests/debug/run.sh [KVER]
# Environment: see tests/debug/lane.sh (EXT4X_DEBUG_VARIANTS,
#   EXT4X_DEBUG_GUESTS, EXT4X_DEBUG_POWERCUT_CYCLES, EXT4X_DEBUG_SLOWDOWN,
#   EXT4X_DEBUG_LOWMEM_MEM).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/totals.sh
. "$top/tests/lib/totals.sh"
# shellcheck source=tests/lib/settings.sh
. "$top/tests/lib/settings.sh"
# shellcheck source=tests/debug/lane.sh
. "$top/tests/debug/lane.sh"

debug_lane_settings || exit 2
debug_lane "${1:-$("$top/scripts/kver.sh")}"
totals_report
