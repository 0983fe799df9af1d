#!/bin/bash
# The coherence instrument checks itself in a guest (make check): the
# plugin is built, loaded into QEMU, and counts the calibration pair of
# tests/standalone/coherence-calib.sh. Asserted is only what a busy host
# cannot change: the plugin loaded, recorded both windows and counted
# accesses, private counters cost (almost) no transfer, the shared counter
# some, and the NVDIMM sits where the plugin is told it does. How many
# transfers the shared counter costs depends on the two vCPU threads
# really running at once: printed, not asserted (bench.sh refuses to
# report on a host too busy for it). KTAP on stdout.
# Usage: tests/coherence/check.sh KVER [RESULTS_DIR]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
# shellcheck source=tests/coherence/lib.sh
. "$here/lib.sh"
kver=${1:?usage: check.sh KVER [RESULTS_DIR]}
res=${2:-$top/build/$kver/results/coherence}
n=200000

ktap_print_header
rm -rf "$res"
mkdir -p "$res"
if ! so=$("$here/build.sh" 2>"$res/build.log"); then
	ktap_test_fail "the plugin builds" "$(tail -n 20 "$res/build.log")"
	ktap_finished
	exit
fi
ktap_test_pass "the plugin builds against Debian's qemu-plugin.h"

rc=0
EXT4X_QUIET=1 "$top/tests/vm/run-guest.sh" --kver "$kver" --tests coherence-calib \
	--append "ext4x_coh_calib=$n" --timeout 600 --results "$res/guest" \
	--plugin "$so,out=$res/coherence.out,pmem=$COH_PMEM" >"$res/guest.log" 2>&1 || rc=$?
if [ "$rc" -eq 0 ]; then
	ktap_test_pass "the calibration guest ran: $(tail -n 1 "$res/guest.log")"
else
	ktap_test_fail "the calibration guest ran" "run-guest.sh exit $rc" "$(tail -n 30 "$res/guest.log")"
fi
ktap_check "the guest's NVDIMM is where the plugin counts it from ($COH_PMEM)" \
	coh_pmem_agrees "$res/guest/serial.log"
ktap_check "the plugin loaded and wrote its header" \
	grep -q '^coherence 1 vcpus 2 ' "$res/coherence.out"

mapfile -t w < <(coh_windows "$res/coherence.out")
if [ ${#w[@]} -eq 2 ] && [ "$(grep -c '^end ' "$res/coherence.out")" -eq 2 ]; then
	ktap_test_pass "two windows recorded, each closed"
else
	ktap_test_fail "two windows recorded, each closed" "$(cat "$res/coherence.out" 2>/dev/null | head -n 20)"
fi
read -r _ _ sw sr _ _ sacc sdrop <<<"${w[0]:-}"
read -r _ _ pw pr _ _ pacc pdrop <<<"${w[1]:-}"
per() { awk -v t="$1" -v n="$2" 'BEGIN { printf "%.4f", t / n }'; }
ktap_print_msg "shared:  ${sw:-?} write + ${sr:-?} read transfers, $(per "$((${sw:-0} + ${sr:-0}))" $((2 * n))) a increment, ${sacc:-?} accesses" \
	"private: ${pw:-?} write + ${pr:-?} read transfers, $(per "$((${pw:-0} + ${pr:-0}))" $((2 * n))) a increment, ${pacc:-?} accesses"
if [ "${sacc:-0}" -ge $((2 * n)) ] && [ "${pacc:-0}" -ge $((2 * n)) ] &&
	[ "${sdrop:-1}" -eq 0 ] && [ "${pdrop:-1}" -eq 0 ]; then
	ktap_test_pass "every increment was seen (at least $((2 * n)) accesses a window, none dropped)"
else
	ktap_test_fail "every increment was seen" "accesses ${sacc:-?} and ${pacc:-?}, dropped ${sdrop:-?} and ${pdrop:-?}"
fi
# Starting and joining the threads costs some hundred transfers (about
# 740 for 400000 increments on a quiet host); the increments themselves none.
if [ -n "${pw:-}" ] && [ $((pw + pr)) -lt $((2 * n / 100)) ]; then
	ktap_test_pass "private counters: under 1 transfer per 100 increments"
else
	ktap_test_fail "private counters: under 1 transfer per 100 increments" "${pw:-?} + ${pr:-?} transfers"
fi
if [ -n "${sw:-}" ] && [ $((sw + sr)) -gt $((pw + pr)) ]; then
	ktap_test_pass "shared counter: more transfers than the private ones"
else
	ktap_test_fail "shared counter: more transfers than the private ones" "${sw:-?} + ${sr:-?} against ${pw:-?} + ${pr:-?}"
fi
ktap_finished
