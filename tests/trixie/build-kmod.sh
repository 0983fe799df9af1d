#!/bin/bash
# shellcheck disable=SC2154 # tdir, troot, tstamp, tenv, t_suite, t_xy: set by tests/trixie/lib.sh
# Build percpu_stats, mbcache2 and the test modules of tests/kmod inside the
# Debian 13 chroot (tests/trixie/mkchroot.sh) with trixie's gcc-14 against
# trixie's headers, one Kbuild pass over a copy of just those three
# directories, and collect the .ko files in build/trixie/kmod-modules for
# the guest (percpu_stats and mbcache2 guest tests). KTAP on stdout.
# Usage: tests/trixie/build-kmod.sh
# The build log is build/trixie/logs/kmod-build.log; the copy in the
# chroot is removed again.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/trixie/lib.sh
. "$top/tests/trixie/lib.sh"
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"

[ $# -eq 0 ] || t_die "usage: build-kmod.sh (no arguments)"
ktap_print_header
[ "$(id -u)" -eq 0 ] || ktap_skip_all "needs root (chroot)"
kver=$(t_env KVER)
[ -f "$tstamp" ] && [ -n "$kver" ] || ktap_skip_all "no trixie chroot (tests/trixie/mkchroot.sh)"
t_lock

out=$tdir/kmod-modules
logdir=$tdir/logs
log=$logdir/kmod-build.log
src=$troot/root/ext4x-kmod
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	t_umount_all "$troot" || true
	rm -rf "$src"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$logdir"
rm -rf "$src" "$out"
mkdir -p "$src" "$out"

# Only what the three directories need: their Kbuild, sources and headers,
# and VERSION (MODULE_VERSION, through the top-level Kbuild line copied below).
(cd "$top" && cp --parents -t "$src" VERSION percpu_stats/Kbuild percpu_stats/*.[ch] \
	mbcache2/Kbuild mbcache2/*.[ch] tests/kmod/Kbuild tests/kmod/*.[ch])
find "$src" -name '*.mod.c' -delete
{
	grep '^subdir-ccflags-y' "$top/Kbuild"
	printf 'obj-m += percpu_stats/ mbcache2/ tests/kmod/\n'
} >"$src/Kbuild"

kmod_make() {
	t_in_chroot "$troot" make -C "/lib/modules/$kver/build" M=/root/ext4x-kmod W=1 \
		-j"$(nproc)" modules >"$log" 2>&1 || { tail -n 30 "$log"; return 1; }
}
ktap_check "make -C /lib/modules/$kver/build M=... modules (trixie gcc-14, W=1)" kmod_make
warnings=$(grep -c 'warning:' "$log")
ktap_print_msg "compiler warnings: $warnings (log: ${logdir#"$top"/}/kmod-build.log)"
if [ "$warnings" -eq 0 ]; then
	ktap_test_pass "no compiler warnings from gcc-14"
else
	ktap_test_fail "no compiler warnings from gcc-14" "$(grep -A3 'warning:' "$log" | head -n 30)"
fi

for m in percpu_stats/percpu_stats mbcache2/mbcache2 tests/kmod/percpu_stats_test \
	tests/kmod/percpu_stats_bench tests/kmod/mbcache2_test tests/kmod/mbcache2_bench; do
	ko=$src/$m.ko
	name=${m##*/}
	if [ ! -f "$ko" ]; then
		ktap_test_fail "$name.ko built" "no $m.ko"
		continue
	fi
	vm=$(modinfo -F vermagic "$ko" 2>&1)
	cc=$(readelf -p .comment "$ko" 2>/dev/null | grep -o 'GCC: .*' | sort -u | paste -sd';')
	if [[ $vm == "$kver SMP "* ]] && [[ $cc == *'(Debian 14.'* ]]; then
		ktap_test_pass "$name.ko: vermagic $kver, compiled by gcc-14"
		cp "$ko" "$out/"
	else
		ktap_test_fail "$name.ko: vermagic $kver, compiled by gcc-14" "vermagic: $vm" "compiler: $cc"
	fi
done
ktap_print_msg "compiler: $(grep -o 'x86_64-linux-gnu-gcc-14 ([^)]*) [0-9.]*' "$troot/lib/modules/$kver/build/.config" | head -n 1)"
ktap_finished
