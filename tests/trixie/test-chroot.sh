#!/bin/bash
# shellcheck disable=SC2154 # tdir, troot, tstamp, tenv, t_suite, t_xy: set by tests/trixie/lib.sh
# The Debian 13 (trixie) chroot of the trixie check, KTAP on stdout: made or
# reused by tests/trixie/mkchroot.sh, then what it must be: Debian 13 with
# trixie-security in its sources and package lists, linux-headers-amd64's
# kernel (with EXT4X_TRIXIE_BACKPORTS=1: the newest X.Y release of
# trixie-backports) with linux-source-X.Y of exactly the headers' Debian version,
# trixie's gcc-14 (the compiler the headers were made with) and dkms, and
# nothing left mounted.
# Usage: tests/trixie/test-chroot.sh [--rebuild]   (passed to mkchroot.sh)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/trixie/lib.sh
. "$top/tests/trixie/lib.sh"
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"

case ${1:-} in
'' | --rebuild) ;;
*) t_die "unknown argument '$1' (usage: test-chroot.sh [--rebuild])" ;;
esac
ktap_print_header
[ "$(id -u)" -eq 0 ] || ktap_skip_all "needs root (debootstrap, chroot, mount)"
t_lock

t0=$(date +%s)
if how=$("$top/tests/trixie/mkchroot.sh" "$@" 2>"$tdir/mkchroot.err"); then
	ktap_test_pass "trixie chroot in ${troot#"$top"/} ($how)"
else
	ktap_test_fail "trixie chroot in ${troot#"$top"/}" "$(tail -n 20 "$tdir/mkchroot.err")"
	ktap_finished
	exit 1
fi
ktap_print_msg "mkchroot.sh took $(($(date +%s) - t0)) s"

kver=$(t_env KVER) hv=$(t_env HEADERS_VERSION)
ktap_check "Debian 13: os-release VERSION_ID 13, debian_version 13.x" bash -c \
	". '$troot/etc/os-release' && [ \"\$VERSION_ID\" = 13 ] && grep -q '^13\\.' '$troot/etc/debian_version'"
ktap_print_msg "debian_version $(cat "$troot/etc/debian_version"), archive $(t_env ARCHIVE), security $(t_env SECURITY)"
ktap_check "apt sources and lists: trixie, trixie-updates, trixie-security" bash -c \
	"cd '$troot/var/lib/apt/lists' && ls ./*_dists_trixie_main_binary-amd64_Packages* &&
	 ls ./*_dists_trixie-updates_InRelease && ls ./*_dists_trixie-security_main_binary-amd64_Packages*"
ktap_check "linux-headers-$kver $hv installed${t_backports:+ from $t_backports}" \
	test "$(t_version "$troot" "linux-headers-$kver")" = "$hv"
ktap_check "linux-source-$t_xy $hv (the headers' Debian version)" bash -c \
	"[ '$(t_version "$troot" "linux-source-$t_xy")' = '$hv' ] && [ -f '$troot/usr/src/linux-source-$t_xy.tar.xz' ]"
cc_text=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$troot/lib/modules/$kver/build/.config" 2>/dev/null)
gcc_text=$(t_chroot "$troot" gcc-14 --version 2>&1 | head -n 1)
ktap_print_msg "headers built with: $cc_text" "chroot gcc-14: $gcc_text"
# The same major version is what Kbuild needs; an exact match is noted.
ktap_check "gcc-14 $(t_env GCC_VERSION) is of the compiler series of the headers" \
	bash -c "[[ '$cc_text' == *gcc-14\ * ]] && [[ '$gcc_text' == gcc-14\ * ]]"
[ "${cc_text#x86_64-linux-gnu-}" = "$gcc_text" ] ||
	ktap_print_msg "note: not the exact gcc the kernel was built with (Kbuild warns)"
ktap_check "dkms $(t_env DKMS_VERSION) installed" test -x "$troot/usr/sbin/dkms"
ktap_check "dpkg --audit clean" bash -c \
	"[ -z \"\$(dpkg --admindir='$troot/var/lib/dpkg' --audit 2>&1)\" ]"
# t_mounts: what is mounted at or under $tdir (not a sibling such as
# build/trixie-backports, which the other check's runs use)
# shellcheck disable=SC2317 # called through ktap_check
nothing_mounted() {
	local m
	m=$(t_mounts "$tdir")
	[ -z "$m" ] || { echo "$m"; return 1; }
}
ktap_check "nothing mounted under ${tdir#"$top"/}" nothing_mounted
ktap_finished
