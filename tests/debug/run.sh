#!/bin/bash
# The debug-kernel lane (make check-debug): for each debug configuration
# (tests/debug/*.config: KASAN with lockdep, list/object debugging and
# kmemleak; KCSAN with lockdep) a kernel from the same Debian source as KVER
# (tests/debug/build-kernel.sh, cached under build/debug/), our modules built
# against it, then the whole guest suite with a kmemleak scan after it, the
# power-cut guest and the low-memory guest booted on it. A KASAN, lockdep,
# atomic-sleep, list or object-debugging report fails the run (the harness
# fails on any "BUG:"/"WARNING:" line); a KCSAN report fails it only when one
# of our modules is in it (tests/vm/parse-log.awk counts the others).
# Ends with the table of stages and "N passed, N failed".
#
# Usage: tests/debug/run.sh [KVER]
# Environment: EXT4X_DEBUG_VARIANTS (default "kasan kcsan"), EXT4X_DEBUG_GUESTS
#   (the guests to boot, default "suite powercut lowmem"),
#   EXT4X_POWERCUT_CYCLES (default 10), EXT4X_DEBUG_SLOWDOWN (guest time
#   limits are multiplied by it; default 12: under KASAN in TCG, guest
#   files ran 8 to 12 times slower than on the production kernel).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
dkver=${1:-$("$top/scripts/kver.sh")}
slow=${EXT4X_DEBUG_SLOWDOWN:-12}
# shellcheck source=tests/lib/totals.sh
. "$top/tests/lib/totals.sh"

# kernel_stage VARIANT: build (or find cached) the debug kernel; KTAP. What
# build-kernel.sh printed (release=, root=, build=) goes to $results/kernel.env.
kernel_stage() {
	local t0=$SECONDS
	echo "KTAP version 1"
	echo "1..1"
	if ! "$top/tests/debug/build-kernel.sh" "$1" "$dkver" >"$results/kernel.env"; then
		echo "not ok 1 - $1 kernel from the source of $dkver"
		return 1
	fi
	echo "ok 1 - $1 kernel $(sed -n 's/^release=//p' "$results/kernel.env") from the source of $dkver ($((SECONDS - t0)) s)"
}

# modules_stage: the one Kbuild pass against the debug kernel's build tree;
# its headers package does not exist, so the source's Debian version stands
# for it (the kernel was built from that very source). KTAP.
modules_stage() {
	local xy sdeb
	echo "KTAP version 1"
	echo "1..1"
	xy=$(echo "$dkver" | cut -d. -f1-2)
	sdeb=$(dpkg-query -W -f='${Version}' "linux-source-$xy" 2>/dev/null)
	if EXT4X_KBUILD=$kbuild EXT4X_HEADERS_DEBVER=$sdeb \
		make -s -C "$top" KVER="$rel" KDIR="$kbuild" collect >"$results/modules.out" 2>&1; then
		echo "ok 1 - our modules built against $rel"
	else
		tail -n 30 "$results/modules.out"
		echo "not ok 1 - our modules built against $rel"
		return 1
	fi
}

for variant in ${EXT4X_DEBUG_VARIANTS:-kasan kcsan}; do
	kver=$variant results=$top/build/debug/results-$variant
	mkdir -p "$results"
	rm -f "$results/kernel.env"
	stage kernel kernel_stage "$variant"
	rel=$(sed -n 's/^release=//p' "$results/kernel.env" 2>/dev/null)
	kroot=$(sed -n 's/^root=//p' "$results/kernel.env" 2>/dev/null)
	kbuild=$(sed -n 's/^build=//p' "$results/kernel.env" 2>/dev/null)
	[ -n "$rel" ] && [ -n "$kroot" ] && [ -n "$kbuild" ] || continue
	kver=$rel
	modules=$top/build/$rel/modules
	stage modules modules_stage
	compgen -G "$modules/*.ko" >/dev/null || continue
	export EXT4X_KERNEL_ROOT=$kroot
	guests=" ${EXT4X_DEBUG_GUESTS:-suite powercut lowmem} "
	if [[ $guests == *" suite "* ]]; then
		guest_stage guest --tests all,kmemleak --timeout $((1200 * slow)) \
			--append "ext4x_timeout_scale=$slow"
	fi
	if [[ $guests == *" powercut "* ]]; then
		pc_cycles=${EXT4X_POWERCUT_CYCLES:-10}
		guest_stage powercut --tests powercut --reboot \
			--timeout $(((120 + pc_cycles * 45) * slow)) \
			--append "ext4x_powercut=$pc_cycles ext4x_powercut_seed=1 ext4x_timeout_scale=$slow"
		stage powercut-crosscheck "$top/tests/vm/powercut-crosscheck.sh" \
			"$results/powercut/serial.log"
	fi
	if [[ $guests == *" lowmem "* ]]; then
		guest_stage lowmem --tests lowmem --mem 384M --small --timeout $((600 * slow)) \
			--append "ext4x_timeout_scale=$slow"
	fi
	unset EXT4X_KERNEL_ROOT
done
totals_report
