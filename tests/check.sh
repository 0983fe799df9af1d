#!/bin/bash
# The test suite over every target kernel, as `make check` runs it: for each
# kernel the build, static checks and host tests (KTAP on stdout) and the
# guest runs (which print their own totals), then one table of stages with
# the kernel of each, and one closing line "N passed, N failed[, N skipped]".
#
# Usage: tests/check.sh [--long] KVER...
#   KVER    kernel releases to build and boot (make check: kver.sh --supported)
#   --long  the long reliability runs instead (make check-long,
#           docs/RELIABILITY.md): stress, hostile images, hotplug and module
#           cycles with ext4x_long=1, stress-ng's filesystem class on
#           Debian's ext4 and on the drop-in flavour (the same outcomes),
#           100 power cuts, the low-memory run,
#           whether each series applies to every linux-source version
#           still in the archive, Debian 13's kernels (tests/trixie/run.sh
#           and newer.sh: trixie's 6.12 and trixie-backports' 7.3 and
#           7.2, each in a chroot), and the debug-kernel lane (KASAN and
#           KCSAN kernels from each KVER's source: tests/debug/lane.sh)
# make check runs the guests of every kernel in one lane and, beside it at a
# lower priority, the static checks, host tests and later builds in another
# (build/check-lane); --long runs everything one stage after another.
# Results of kernel K go to build/K/results (--long: build/K/results-long);
# the modules booted are those of `make collect KVER=K` (build/K/modules).
# Environment: EXT4X_POWERCUT_CYCLES (1 to 200; 10, --long: 100),
#   EXT4X_POWERCUT_SEED (default 1); a bad value stops the run before it starts.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
long=0
if [ "${1:-}" = --long ]; then
	long=1
	shift
fi
[ $# -gt 0 ] || { echo "usage: check.sh [--long] KVER..." >&2; exit 2; }

# shellcheck source=tests/lib/totals.sh
. "$top/tests/lib/totals.sh"
# shellcheck source=tests/lib/settings.sh
. "$top/tests/lib/settings.sh"
powercut_settings $((long ? 100 : 10)) || exit 2
if [ "$long" -eq 1 ]; then
	# shellcheck source=tests/debug/lane.sh
	. "$top/tests/debug/lane.sh"
	debug_lane_settings || exit 2
fi

# build_stage: the one-pass build for $kver, its modules collected in
# $modules; each module's vermagic must name $kver (no stale object of
# another kernel). KTAP.
build_stage() {
	local ko v n=0 bad=0
	echo "KTAP version 1"
	# this kernel's headers and its exact linux-source (a no-op when make
	# deps installed them; another release of a series already installed,
	# as make check-long's newer ones, swaps linux-source-X.Y)
	if ! "$top/scripts/install-deps.sh" "$kver" >"$results/build.out" 2>&1 ||
		! make -s -j"$(nproc)" -C "$top" KVER="$kver" collect >>"$results/build.out" 2>&1; then
		cat "$results/build.out"
		echo "not ok 1 - make collect KVER=$kver"
		return 1
	fi
	echo "ok 1 - make collect KVER=$kver"
	for ko in "$modules"/*.ko; do
		n=$((n + 1))
		v=$(modinfo -F vermagic "$ko" | awk '{print $1}')
		[ "$v" = "$kver" ] || { echo "# $ko: vermagic $v"; bad=$((bad + 1)); }
	done
	if [ "$n" -ge 3 ] && [ "$bad" -eq 0 ]; then
		echo "ok 2 - $n modules, every vermagic $kver"
	else
		echo "not ok 2 - $n modules, $bad with a vermagic other than $kver"
	fi
}

# the kernels of this run, for the host tests that cover them all at once
# (test-deb.sh: one .deb install builds for every kernel with headers)
export EXT4X_KVERS="$*"

# tools_package: the ext4x-tools package (packaging/mkdeb.sh, as make deb)
# unpacked into build/tools-root as apt would install it; the guests get it
# (run-guest.sh's EXT4X_TOOLS_ROOT), so the compare test runs the installed
# /usr/sbin/ext4x-compare and its compiled helpers, not the tree's copy. KTAP.
tools_package() {
	local deb
	echo "KTAP version 1"
	echo "1..1"
	rm -rf "$top/build/tools-deb" "$top/build/tools-root"
	deb=$top/build/tools-deb/ext4x-tools_$(tr -d ' \n' <"$top/VERSION")_$(dpkg --print-architecture).deb
	if "$top/packaging/mkdeb.sh" "$top/build/tools-deb" >"$results/tools-package.out" 2>&1 &&
		dpkg -x "$deb" "$top/build/tools-root"; then
		echo "ok 1 - ext4x-tools built and unpacked for the guests"
	else
		tail -n 20 "$results/tools-package.out"
		echo "not ok 1 - ext4x-tools built and unpacked for the guests"
		return 1
	fi
}
# guest_stages I: the guests of the I-th kernel.
guest_stages() {
	# The bench checks itself, once: guest files that fail on purpose must
	# be counted as failures (three short boots).
	if [ "$1" -eq 1 ]; then
		stage harness "$top/tests/vm/harness-selftest.sh" "$kver"
		# The coherence plugin on its calibration pair
		# (tests/coherence/README.md), so the instrument of make
		# bench-coherence cannot rot.
		stage coherence "$top/tests/coherence/check.sh" "$kver" "$results/coherence"
	fi
	# The suite: every automatic guest test file in one guest.
	guest_stage guest
	# ext4x.ko against the stock ext4.ko of this kernel (fetched for the
	# guest): no shared global, tracepoint or ext4 name.
	stage symbols "$top/ext4-backport/symbol-clashes.sh" "$modules/ext4x.ko"
	# docs/INSTALL.md's persistent memory setup, as written there, on an
	# emulated NVDIMM and an emulated CXL device.
	guest_stage pmem-setup --tests pmem-setup --cxl --small --timeout 400
	# Power cuts and memory pressure (tests/lib/totals.sh).
	reliability_stages "$pc_cycles" "$pc_seed"
}

# at_kernel I: kver, kidx, modules and results of the I-th kernel
at_kernel() {
	kidx=$1
	kver=${kvers[$1 - 1]}
	modules=$top/build/$kver/modules
	results=$top/build/$kver/results$([ "$long" -eq 1 ] && echo -long)
	mkdir -p "$results"
}

kvers=("$@")
if [ "$long" -eq 0 ]; then
	# Two lanes. A TCG guest keeps about 1.2 of the 2 cores busy, and guests
	# run one at a time (tests/vm/run-guest.sh), so the guests of every
	# kernel run in this shell, one after the other, while a second lane,
	# at a lower priority so that the guests' timing is not the one that
	# suffers, runs the host side: the static checks and host tests of
	# each kernel and the tree builds of the kernels after the first. The
	# tree holds one kernel's build at a time, so that lane orders its
	# stages: static checks of kernel 1 (its build), build of kernel 2,
	# host tests of kernel 1 (no tree build), static checks of kernel 2,
	# and so on. A guest lane that needs kernel I waits for the file
	# lane/built-I (its modules are in build/KVER/modules by then).
	lane=$top/build/check-lane
	rm -rf "$lane"
	mkdir -p "$lane"
	at_kernel 1
	stage build build_stage
	: >"$lane/built-1"
	stage tools-package tools_package
	[ ! -x "$top/build/tools-root/usr/sbin/ext4x-compare" ] ||
		export EXT4X_TOOLS_ROOT=$top/build/tools-root
	echo "=== the host lane runs beside the guests; its output follows them (and is in build/check-lane/host.log)"
	# The lane gets a process group of its own (set -m), so that an
	# interrupted make check stops it too: ^C reaches only this shell's
	# group, and the trap below passes a TERM on, which runs the host
	# tests' EXIT traps (a purge, a dkms remove) as ^C did before.
	set -m
	(
		renice -n 10 -p "$BASHPID" >/dev/null
		totals_reset
		for ((i = 1; i <= ${#kvers[@]}; i++)); do
			at_kernel "$i"
			built=0
			! compgen -G "$modules/*.ko" >/dev/null || built=1
			[ "$built" -eq 0 ] || stage static "$top/tests/static/run.sh" "$kver"
			if [ "$i" -lt ${#kvers[@]} ]; then
				at_kernel $((i + 1))
				stage build build_stage
				: >"$lane/built-$((i + 1))"
				at_kernel "$i"
			fi
			[ "$built" -eq 0 ] ||
				EXT4X_HOST_REPEAT=$((i == 1)) stage host "$top/tests/host/run.sh" "$kver"
		done
		totals_save "$lane/host.totals"
	) </dev/null >"$lane/host.log" 2>&1 &
	host_lane=$!
	set +m
	trap 'kill -TERM -- -"$host_lane" 2>/dev/null; wait "$host_lane"; exit 130' INT TERM
	for ((i = 1; i <= ${#kvers[@]}; i++)); do
		at_kernel "$i"
		while [ ! -e "$lane/built-$i" ] && kill -0 "$host_lane" 2>/dev/null; do
			sleep 5
		done
		# Without modules of this kernel its guests would only repeat
		# the build failure (already counted).
		compgen -G "$modules/*.ko" >/dev/null || continue
		guest_stages "$i"
	done
	wait "$host_lane"
	trap - INT TERM
	echo "=== the host lane's output"
	cat "$lane/host.log"
	totals_merge "$lane/host.totals" "host lane"
else
	for ((i = 1; i <= ${#kvers[@]}; i++)); do
		at_kernel "$i"
		stage build build_stage
		compgen -G "$modules/*.ko" >/dev/null || continue
		guest_stage long --tests stress,hostile,hotplug,lifecycle \
			--append ext4x_long=1 --timeout 5400
		# An outside suite on Debian's ext4 and on the drop-in flavour
		# (tests/standalone/fs-suite.sh): the same outcomes.
		KVER=$kver stage fs-suite "$top/tests/host/test-dropin.sh" --suite
		# Power cuts and memory pressure (tests/lib/totals.sh).
		reliability_stages "$pc_cycles" "$pc_seed"
	done
fi

# Does each series apply to every linux-source of its X.Y the archive still
# has? Once, not per kernel (ext4-backport/tests/archive-series.sh).
if [ "$long" -eq 1 ]; then
	kver=- kidx=$((${#kvers[@]} + 1)) results=$top/build/results-long
	mkdir -p "$results"
	stage archive-series "$top/ext4-backport/tests/archive-series.sh"
	# Debian 13: trixie's kernel, then each trixie-backports series ext4x
	# has (7.3, 7.2), each in its chroot, as make check-trixie and make
	# check-newer run them; each run's own closing line is its total.
	total_stage trixie "$top/tests/trixie/run.sh"
	total_stage newer "$top/tests/trixie/newer.sh"
	# The suite on debug kernels built from each kernel's own source.
	for k in "$@"; do
		debug_lane "$k"
	done
fi

totals_report
