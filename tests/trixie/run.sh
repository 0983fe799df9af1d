#!/bin/bash
# shellcheck disable=SC2154 # tdir, troot, tstamp, tenv: set by tests/trixie/lib.sh
# The suite on Debian 13 (trixie) as a trixie user gets it (make
# check-trixie): a trixie chroot (debootstrap from the Debian archive this
# host's apt uses, cached in build/trixie/), the ext4x-dkms .deb installed
# in it so DKMS builds for trixie's kernel, and those modules booted in the
# QEMU guest on trixie's own linux-image. Stages, each KTAP (tests/lib/
# totals.sh adds them up):
#   chroot       tests/trixie/test-chroot.sh: made or reused, versions right
#   kmod         tests/trixie/build-kmod.sh: percpu_stats, mbcache2 and the
#                test modules built in the chroot (gcc-14, trixie headers)
#   guest-kmod   those in the guest: tests/guest/percpu-stats.sh, mbcache2.sh
#   deb          tests/trixie/test-deb.sh: make deb, apt install ./ext4x-dkms
#                in the chroot, dkms status, the three .ko, purge
#   guest-ext4x  the DKMS-built modules in the guest: ext4x-load, ext4x-fs,
#                dkms-modprobe
#   guest, powercut, powercut-crosscheck, lowmem
#                the whole suite, the power cuts and the low-memory guest
#                (tests/lib/totals.sh's reliability_stages, as make check),
#                with the DKMS-built modules and the test modules
# With EXT4X_TRIXIE_BACKPORTS=1 (make check-newer, tests/trixie/newer.sh)
# all of it runs on a kernel of trixie-backports instead: the newest of
# series EXT4X_NEWER_SERIES (7.3 unless set), in build/trixie-backports/
# (7.3) or build/trixie-backports-X.Y/.
# then the table of stages and one closing line "N passed, N failed[, N
# skipped]"; exit status non-zero on any failure.
#
# Usage: tests/trixie/run.sh [--rebuild] [--deb FILE]
#   --rebuild   make the chroot anew (a newer trixie kernel, a suspect cache)
#   --deb FILE  install this ext4x-dkms .deb instead of building one
# Results: build/trixie/results/ (a log per stage, the guests' serial logs);
# the other logs in build/trixie/logs/. Needs root, and make deps's host
# packages (qemu, dh-dkms, ...). Environment: EXT4X_CACHE, EXT4X_QUIET as
# for tests/vm/run-guest.sh; EXT4X_POWERCUT_CYCLES and EXT4X_POWERCUT_SEED
# as for tests/check.sh; EXT4X_TRIXIE_MIRROR / EXT4X_TRIXIE_SECURITY to
# use another Debian archive than apt's.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/trixie/lib.sh
. "$top/tests/trixie/lib.sh"
# shellcheck source=tests/lib/totals.sh
. "$top/tests/lib/totals.sh"
# shellcheck source=tests/lib/settings.sh
. "$top/tests/lib/settings.sh"
powercut_settings 10 || exit 2

rebuild=() debopt=()
while [ $# -gt 0 ]; do
	case $1 in
	--rebuild) rebuild=(--rebuild); shift ;;
	--deb)
		[ $# -ge 2 ] && [ -f "$2" ] || t_die "--deb needs an existing .deb file"
		debopt=(--deb "$(realpath "$2")")
		shift 2 ;;
	*) t_die "unknown argument '$1' (usage: run.sh [--rebuild] [--deb FILE])" ;;
	esac
done
[ "$(id -u)" -eq 0 ] || t_die "needs root (debootstrap, chroot, mount)"
t_lock
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	t_umount_all "$tdir" || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start=$(date +%s)
results=$tdir/results
rm -rf "$results"
mkdir -p "$results"
kver=trixie modules=''

stage chroot "$top/tests/trixie/test-chroot.sh" "${rebuild[@]}"
kver=$(t_env KVER)
if [ ! -f "$tstamp" ] || [ -z "$kver" ]; then
	echo "# no trixie chroot: nothing else can run"
	kver=trixie
	record rest 0 1 0 "$SECONDS"
	totals_report
	exit 1
fi

stage kmod "$top/tests/trixie/build-kmod.sh"
modules=$tdir/kmod-modules
guest_stage guest-kmod --dpkg-root "$troot" --tests percpu-stats,mbcache2

stage deb "$top/tests/trixie/test-deb.sh" "${debopt[@]}"
modules=$tdir/dkms-modules
if [ -f "$modules/ext4x.ko" ] && [ -f "$modules/mbcache2.ko" ] && [ -f "$modules/percpu_stats.ko" ]; then
	guest_stage guest-ext4x --dpkg-root "$troot" --tests ext4x-load,ext4x-fs,dkms-modprobe
else
	echo "=== guest-ext4x ($kver)"
	echo "# no DKMS-built percpu_stats, mbcache2 and ext4x to boot: counted as one failure"
	record guest-ext4x 0 1 0 "$SECONDS"
fi

# The whole suite, power cuts and low memory on this kernel: the DKMS-built
# modules with the test modules built in the chroot (the suite's own
# stages of tests/check.sh, on this kernel's image).
if [ -f "$tdir/dkms-modules/ext4x.ko" ] && compgen -G "$tdir/kmod-modules/*_test.ko" >/dev/null; then
	modules=$tdir/suite-modules
	rm -rf "$modules"
	mkdir -p "$modules"
	cp "$tdir/dkms-modules/"*.ko "$modules/"
	cp -n "$tdir/kmod-modules/"*.ko "$modules/"
	guest_stage guest --dpkg-root "$troot"
	reliability_stages "$pc_cycles" "$pc_seed" --dpkg-root "$troot"
else
	echo "=== guest ($kver)"
	echo "# no DKMS-built ext4x or no test modules: the suite cannot run; counted as one failure"
	record guest 0 1 0 "$SECONDS"
fi

echo
echo "# trixie: $kver (linux-headers/linux-source $(t_env HEADERS_VERSION)," \
	"gcc-14 $(t_env GCC_VERSION), dkms $(t_env DKMS_VERSION)); took $(($(date +%s) - start)) s"
totals_report
