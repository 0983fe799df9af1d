#!/bin/bash
# shellcheck disable=SC2154 # tdir, troot, tstamp, tenv, t_suite, t_xy: set by tests/trixie/lib.sh
# Make, or reuse, the Debian 13 (trixie) chroot of the trixie check in
# build/trixie/root: debootstrap (minbase) from the Debian archive this
# host's apt uses, trixie + trixie-updates + trixie-security, then trixie's
# gcc-14, dkms, linux-headers-amd64 and linux-source-6.12 of exactly the
# headers' Debian version (what ext4-backport/prepare.sh insists on); with
# EXT4X_TRIXIE_BACKPORTS=1 the headers, linux-source-X.Y and image of the
# newest X.Y release of trixie-backports (tests/trixie/lib.sh).
#
# Usage: tests/trixie/mkchroot.sh [--rebuild]
#   --rebuild  make a new chroot even if the cached one is fine (the way to
#              pick up a newer trixie kernel: the cached one is never updated)
# The chroot is reused while build/trixie/chroot.stamp matches this script
# and the archive, and the chroot passes its checks (packages installed at
# the stamped versions, dpkg --audit clean); else it is made anew. Prints
# one line, "reused" or "built in N s"; the facts about the chroot (KVER,
# versions) are in build/trixie/chroot.env. The debootstrap and apt output
# is in build/trixie/chroot-build.log. Never leaves anything mounted.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/trixie/lib.sh
. "$top/tests/trixie/lib.sh"

rebuild=0
case ${1:-} in
'') ;;
--rebuild) rebuild=1 ;;
*) t_die "unknown argument '$1' (usage: mkchroot.sh [--rebuild])" ;;
esac
[ "$(id -u)" -eq 0 ] || t_die "needs root (debootstrap, chroot, mount)"

export DEBIAN_FRONTEND=noninteractive
if ! command -v debootstrap >/dev/null; then
	t_info "installing debootstrap"
	apt-get install -y -qq debootstrap >/dev/null 2>&1 ||
		{ apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; } ||
		t_die "cannot install debootstrap"
fi

t_lock
new=$tdir/root.new
log=$tdir/chroot-build.log
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	t_umount_all "$tdir" || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
t_umount_all "$tdir" || t_die "something under $tdir stays mounted"

read -r archive security < <(t_archives)
key=$({ cat "$top/tests/trixie/mkchroot.sh"; echo "$archive $security $t_backports"; } | sha256sum | cut -c1-16)

# The cached chroot is fine: the stamp matches and its packages are as stamped.
cached_ok() {
	local kver hv
	[ -f "$tstamp" ] && [ "$(cat "$tstamp")" = "$key" ] || return 1
	kver=$(t_env KVER) hv=$(t_env HEADERS_VERSION)
	[ -n "$kver" ] && [ -n "$hv" ] || return 1
	[ "$(t_version "$troot" "linux-headers-$kver")" = "$hv" ] &&
		[ "$(t_version "$troot" "linux-source-$t_xy")" = "$hv" ] &&
		[ -n "$(t_version "$troot" dkms)" ] &&
		[ -x "$troot/usr/bin/gcc-14" ] &&
		[ -f "$troot/lib/modules/$kver/build/Makefile" ] &&
		[ -f "$troot/usr/src/linux-source-$t_xy.tar.xz" ] &&
		[ -z "$(dpkg --admindir="$troot/var/lib/dpkg" --audit 2>&1)" ]
}

if [ "$rebuild" -eq 0 ] && cached_ok; then
	echo reused
	exit 0
fi
[ -f "$tstamp" ] && t_info "the cached chroot is stale or broken: making it anew"
rm -f "$tstamp"

start=$(date +%s)
t_rmtree "$troot"
t_rmtree "$new"
: >"$log"
run() {
	"$@" >>"$log" 2>&1 || {
		tail -n 25 "$log" >&2
		t_die "failed: $* (log: ${tdir#"$top"/}/chroot-build.log)"
	}
}
t_info "debootstrap $t_suite from $archive (log: ${tdir#"$top"/}/chroot-build.log)"
run debootstrap --variant=minbase --components=main "$t_suite" "$new" "$archive"
t_umount_all "$new" || t_die "debootstrap left mounts under $new"

rm -f "$new/etc/apt/sources.list"
cat >"$new/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $archive
Suites: $t_suite $t_suite-updates${t_backports:+ $t_backports}
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: $t_suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
# No service starts from a package installed in the chroot.
printf '#!/bin/sh\nexit 101\n' >"$new/usr/sbin/policy-rc.d"
chmod 755 "$new/usr/sbin/policy-rc.d"

t_info "apt-get update and install gcc-14, dkms, the headers"
run t_in_chroot "$new" apt-get update
run t_in_chroot "$new" apt-get install -y --no-install-recommends \
	gcc-14 make dkms openssl kmod xz-utils
if [ -n "$t_backports" ]; then
	# The newest $t_xy release of the backports suite, named: the suite
	# carries several series, and linux-headers-amd64 follows the newest.
	hpkg=$(t_chroot "$new" apt-cache pkgnames "linux-headers-$t_xy." |
		grep -E "^linux-headers-${t_xy//./\\.}\.[0-9]+\+deb[0-9]+-amd64\$" | sort -V | tail -n 1 || true)
	[ -n "$hpkg" ] || t_die "$t_backports has no linux-headers-$t_xy.N+debNN-amd64: no $t_xy kernel to check"
	run t_in_chroot "$new" apt-get install -y --no-install-recommends -t "$t_backports" "$hpkg"
	kver=${hpkg#linux-headers-}
else
	run t_in_chroot "$new" apt-get install -y --no-install-recommends linux-headers-amd64
	kver=$(dpkg-query --admindir="$new/var/lib/dpkg" -W -f='${Depends}' linux-headers-amd64 |
		tr ',' '\n' | sed -n 's/^ *linux-headers-\([0-9][^ ]*\).*/\1/p' | head -n 1)
	[ -n "$kver" ] || t_die "cannot tell the kernel release linux-headers-amd64 depends on"
fi
hv=$(t_version "$new" "linux-headers-$kver")
[ -n "$hv" ] || t_die "linux-headers-$kver is not installed in the chroot"
t_info "kernel $kver (Debian $hv): apt-get install linux-source-$t_xy=$hv linux-image-$kver=$hv"
# The image too, as on a machine that runs the kernel: DKMS runs depmod only
# for a kernel whose modules.dep is there (7.x's headers do not pull the
# image in; 6.12's do).
run t_in_chroot "$new" apt-get install -y --no-install-recommends \
	"linux-source-$t_xy=$hv" "linux-image-$kver=$hv"
run t_chroot "$new" apt-get clean

{
	echo "KVER=$kver"
	echo "HEADERS_VERSION=$hv"
	echo "SOURCE_VERSION=$(t_version "$new" "linux-source-$t_xy")"
	echo "GCC_VERSION=$(t_version "$new" gcc-14)"
	echo "DKMS_VERSION=$(t_version "$new" dkms)"
	echo "ARCHIVE=$archive"
	echo "SECURITY=$security"
	echo "BUILD_SECONDS=$(($(date +%s) - start))"
} >"$tenv.tmp"
mv "$new" "$troot"
mv "$tenv.tmp" "$tenv"
printf '%s\n' "$key" >"$tstamp"
echo "built in $(t_env BUILD_SECONDS) s"
