# shellcheck shell=bash disable=SC2154,SC2034 # top: set by the caller; kver, results, modules: read by totals.sh
# The debug-kernel lane as a function, for tests/debug/run.sh (make
# check-debug) and tests/check.sh --long (make check-long); needs
# tests/lib/totals.sh and tests/lib/settings.sh sourced first.
#
# debug_lane KVER: for each debug configuration (tests/debug/*.config:
# KASAN with lockdep, list/object debugging and kmemleak; KCSAN with
# lockdep) a kernel from the same Debian source as KVER
# (tests/debug/build-kernel.sh, cached under build/debug/), our modules
# built against it, then the whole guest suite with a kmemleak scan and a
# check that KCSAN was watching (tests/standalone/kcsan-active.sh) after
# it, the power-cut guest and the low-memory guest booted on it (KASAN
# guests with 4-level paging, each boot checked: debug_paging_stage). A KASAN,
# lockdep, atomic-sleep, list or object-debugging report fails the run (the
# harness fails on any "BUG:"/"WARNING:" line); a KCSAN report fails it
# when one of our modules is in it, unless every racing function is a core
# one listed with its reason in tests/debug/kcsan-core-races
# (tests/vm/parse-log.awk counts the others). Stages go to the running
# totals; kver, results and modules are left set to the last variant's.
# Environment, read by debug_lane_settings (call it first: it stops a
# mistyped value before hours of work): EXT4X_DEBUG_VARIANTS (default
#   "kasan kcsan"), EXT4X_DEBUG_GUESTS (the guests to boot, of "suite
#   powercut lowmem", default all three; "none" boots none),
#   EXT4X_DEBUG_TESTS (the suite guest's test files, names of
#   tests/guest/*.sh, default "all"; the kmemleak scan and the KCSAN check
#   run after them either way),
#   EXT4X_DEBUG_LOWMEM_MEM (the low-memory guest's RAM; default 768M on the
#   KASAN kernel, make check's 384M on the KCSAN one),
#   EXT4X_DEBUG_POWERCUT_CYCLES (default 10), EXT4X_DEBUG_SLOWDOWN (guest
#   time limits are multiplied by it; default 12: under KASAN in TCG, guest
#   files ran 8 to 12 times slower than on the production kernel).

# debug_lane_settings: check the environment above and set debug_variants,
# debug_guests, debug_tests, debug_lowmem_mem, debug_pc and debug_slow;
# status 2 (with the reason on stderr) on a bad value.
debug_lane_settings() {
	local f names=()
	for f in "$top"/tests/guest/*.sh; do
		f=${f##*/}
		names+=("${f%.sh}")
	done
	debug_variants=$(setting_words EXT4X_DEBUG_VARIANTS "kasan kcsan" kasan kcsan) &&
		debug_guests=$(setting_words EXT4X_DEBUG_GUESTS "suite powercut lowmem" \
			suite powercut lowmem none) &&
		debug_tests=$(setting_words EXT4X_DEBUG_TESTS all all "${names[@]}") &&
		debug_pc=$(setting_int EXT4X_DEBUG_POWERCUT_CYCLES 10 1 200) &&
		debug_slow=$(setting_int EXT4X_DEBUG_SLOWDOWN 12 1 100) || return 2
	debug_lowmem_mem=${EXT4X_DEBUG_LOWMEM_MEM:-}
	if [ -n "$debug_lowmem_mem" ] && ! [[ $debug_lowmem_mem =~ ^[1-9][0-9]{0,5}[MG]$ ]]; then
		echo "EXT4X_DEBUG_LOWMEM_MEM=$debug_lowmem_mem: want a size such as 768M or 1G" >&2
		return 2
	fi
}

# debug_kernel_stage VARIANT KVER: build (or find cached) the debug kernel;
# KTAP. What build-kernel.sh printed (release=, root=, build=) goes to
# $results/kernel.env.
debug_kernel_stage() {
	local t0=$SECONDS
	echo "KTAP version 1"
	echo "1..1"
	if ! "$top/tests/debug/build-kernel.sh" "$1" "$2" >"$results/kernel.env"; then
		echo "not ok 1 - $1 kernel from the source of $2"
		return 1
	fi
	echo "ok 1 - $1 kernel $(sed -n 's/^release=//p' "$results/kernel.env") from the source of $2 ($((SECONDS - t0)) s)"
}

# debug_modules_stage KVER REL KBUILD: the one Kbuild pass against the debug
# kernel's build tree; its headers package does not exist, so the source's
# Debian version stands for it (the kernel was built from that very
# source). KTAP.
debug_modules_stage() {
	local xy sdeb
	echo "KTAP version 1"
	echo "1..1"
	xy=$(echo "$1" | cut -d. -f1-2)
	sdeb=$(dpkg-query -W -f='${Version}' "linux-source-$xy" 2>/dev/null)
	if EXT4X_KBUILD=$3 EXT4X_HEADERS_DEBVER=$sdeb \
		make -s -C "$top" KVER="$2" KDIR="$3" collect >"$results/modules.out" 2>&1; then
		echo "ok 1 - our modules built against $2"
	else
		tail -n 30 "$results/modules.out"
		echo "not ok 1 - our modules built against $2"
		return 1
	fi
}

# debug_paging_stage LOG...: every boot in the guest logs says it ran
# with 4-level paging (the KASAN guests' no5lvl, see debug_lane). KTAP.
debug_paging_stage() {
	local boots four
	echo "KTAP version 1"
	echo "1..1"
	read -r boots four < <(awk '/^ext4x-guest: booted/ { b++; if (/, 4-level paging/) f++ }
		END { print b + 0, f + 0 }' "$@")
	if [ "$boots" -gt 0 ] && [ "$four" -eq "$boots" ]; then
		echo "ok 1 - $boots boot(s), each with 4-level paging"
	else
		echo "not ok 1 - $four of $boots boot(s) with 4-level paging"
		return 1
	fi
}

# debug_guest NAME ARGS...: guest_stage, and NAME's log joins debug_lane's
# list of this invocation's guest logs, which debug_paging_stage reads.
debug_guest() {
	guest_stage "$@"
	logs="$logs $results/$1.log"
}

debug_lane() {
	local dkver=$1 slow=$debug_slow variant rel kroot kbuild guests pc mem margin
	local boot logs
	for variant in $debug_variants; do
		kver=$variant results=$top/build/debug/results-$variant-$dkver
		mkdir -p "$results"
		rm -f "$results/kernel.env"
		stage kernel debug_kernel_stage "$variant" "$dkver"
		rel=$(sed -n 's/^release=//p' "$results/kernel.env" 2>/dev/null)
		kroot=$(sed -n 's/^root=//p' "$results/kernel.env" 2>/dev/null)
		kbuild=$(sed -n 's/^build=//p' "$results/kernel.env" 2>/dev/null)
		[ -n "$rel" ] && [ -n "$kroot" ] && [ -n "$kbuild" ] || continue
		kver=$rel
		modules=$top/build/$rel/modules
		stage modules debug_modules_stage "$dkver" "$rel" "$kbuild"
		compgen -G "$modules/*.ko" >/dev/null || continue
		export EXT4X_KERNEL_ROOT=$kroot
		# KASAN guests boot with 4-level paging. With QEMU's -cpu max
		# the kernel picks 5-level paging, and identify_boot_cpu()
		# zeroes the boot CPU's feature words, LA57 included, after
		# interrupts are on: an interrupt in that window makes KASAN
		# take the 4-level shadow bounds and report the per-CPU read in
		# rcu_is_watching() as a wild access (docs/RELIABILITY.md).
		boot="ext4x_timeout_scale=$slow"
		[ "$variant" != kasan ] || boot="$boot no5lvl"
		guests=" $debug_guests " logs=
		if [[ $guests == *" suite "* ]]; then
			debug_guest guest --tests "${debug_tests// /,},kmemleak,kcsan-active" \
				--timeout $((1200 * slow)) \
				--append "$boot"
		fi
		if [[ $guests == *" powercut "* ]]; then
			pc=$debug_pc
			debug_guest powercut --tests powercut --reboot \
				--timeout $(((120 + pc * 45) * slow)) \
				--append "ext4x_powercut=$pc ext4x_powercut_seed=1 $boot"
			stage powercut-crosscheck "$top/tests/vm/powercut-crosscheck.sh" \
				"$results/powercut/serial.log"
		fi
		# The low-memory guest: make check's settings, except on the
		# KASAN kernel, which keeps much of 384M to itself, so it gets
		# 768M, and whose quarantine of freed objects counts as
		# available, so the first fill leaves a wider margin. In 1G
		# neither 6.12 debug kernel reclaimed before lowmem.sh's floor.
		# Measured in docs/RELIABILITY.md, "Debug kernels".
		if [[ $guests == *" lowmem "* ]]; then
			mem=384M margin=24
			[ "$variant" != kasan ] || mem=768M margin=64
			debug_guest lowmem --tests lowmem --mem "${debug_lowmem_mem:-$mem}" --small \
				--timeout $((600 * slow)) \
				--append "$boot ext4x_lowmem_margin=$margin"
		fi
		if [ "$variant" = kasan ] && [ -n "$logs" ]; then
			# shellcheck disable=SC2086 # the list is split on purpose
			stage paging debug_paging_stage $logs
		fi
		unset EXT4X_KERNEL_ROOT
	done
}
