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
passed=0 failed=0 skipped=0

# add LOG RC: add up the last "N passed, N failed[, N skipped]" of LOG.
add() {
	local total p f s
	total=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
	if [ -z "$total" ]; then
		echo "# $1: no total (exit $2): counted as one failure"
		failed=$((failed + 1))
		return
	fi
	p=$(echo "$total" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
	f=$(echo "$total" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
	s=$(echo "$total" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
	[ "$2" -eq 0 ] || [ "$f" -gt 0 ] || failed=$((failed + 1))
}
# run NAME ARGS...: one run-guest.sh run.
run() {
	local name=$1
	shift
	echo "=== $name"
	"$top/tests/vm/run-guest.sh" --kver "$kver" --modules "$modules" \
		--results "$results/$name" "$@" 2>&1 | tee "$results/$name.log"
	add "$results/$name.log" "${PIPESTATUS[0]}"
}

run long --tests stress,hostile,hotplug,lifecycle --append ext4x_long=1 \
	--timeout 5400
cycles=${EXT4X_POWERCUT_CYCLES:-100}
run powercut --tests powercut --reboot --timeout $((120 + cycles * 45)) \
	--append "ext4x_powercut=$cycles ext4x_powercut_seed=${EXT4X_POWERCUT_SEED:-1}"
echo "=== powercut-crosscheck"
"$top/tests/vm/powercut-check.sh" "$results/powercut/serial.log" |
	tee "$results/powercut-crosscheck.log"
rc=${PIPESTATUS[0]}
p=$(grep -c '^ok ' "$results/powercut-crosscheck.log")
f=$(grep -c '^not ok ' "$results/powercut-crosscheck.log")
passed=$((passed + p)) failed=$((failed + f))
[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || failed=$((failed + 1))
run lowmem --tests lowmem --mem 512M

echo
echo "results: $results"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
