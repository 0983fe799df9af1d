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

passed=0
failed=0
skipped=0

# stage NAME CMD...: run a KTAP-printing stage and add up its cases.
stage() {
	local name=$1 log="$results/$1.log" rc p f s
	shift
	echo "=== $name"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if [ ! -r "$log" ]; then
		echo "# $name: its log $log is gone: counted as one failure"
		failed=$((failed + 1))
		return
	fi
	p=$(grep -cE '^ok [0-9]+' "$log" | head -n 1)
	s=$(grep -cE '^ok [0-9]+.*# SKIP' "$log" | head -n 1)
	f=$(grep -cE '^not ok [0-9]+' "$log" | head -n 1)
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "# $name exited $rc without a failing case: counted as one failure"
		f=1
	fi
	passed=$((passed + p - s))
	skipped=$((skipped + s))
	failed=$((failed + f))
}

stage static "$top/tests/static/check.sh" "$kver"
stage host "$top/tests/host/run.sh" "$kver"

# guest_stage NAME ARGS...: one run-guest.sh run (ARGS added to it); adds up
# the total it prints, its serial log and files under $results/NAME.
guest_stage() {
	local name=$1 rc total p f s
	shift
	echo "=== $name"
	"$top/tests/vm/run-guest.sh" --kver "$kver" --modules "$modules" \
		--results "$results/$name" "$@" 2>&1 | tee "$results/$name.log"
	rc=${PIPESTATUS[0]}
	total=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$results/$name.log" | tail -n 1)
	if [ -z "$total" ]; then
		echo "# $name printed no total (exit $rc): counted as one failure"
		failed=$((failed + 1))
		return
	fi
	p=$(echo "$total" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
	f=$(echo "$total" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
	s=$(echo "$total" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + ${s:-0}))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "# $name run exited $rc: counted as one failure"
		failed=$((failed + 1))
	fi
}

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
guest_stage guest-lowmem --tests lowmem --mem 512M

echo
echo "results: $results"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
