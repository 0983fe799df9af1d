#!/bin/bash
# shellcheck disable=SC2154 # tdir, troot, tstamp, tenv, t_suite, t_xy: set by tests/trixie/lib.sh
# The ext4x-dkms .deb on Debian 13 (trixie), as a trixie user installs it,
# KTAP on stdout: packaging/mkdeb.sh builds it on this host (as `make deb`
# does), then in the trixie chroot (tests/trixie/mkchroot.sh)
# `apt-get install ./ext4x-dkms_VERSION_all.deb`, whose postinst has DKMS
# build for trixie's kernel (headers in /lib/modules); dkms status says
# installed, and percpu_stats, mbcache2 and ext4x are in
# /lib/modules/KVER/updates/dkms with trixie's vermagic and their
# dependencies. The three modules are copied (decompressed, as .ko) to
# build/trixie/dkms-modules for the guest. Last, apt-get purge leaves
# nothing of ext4x behind, so the cached chroot stays as it was made. Before
# the purge: README's linux-source command, simulated in the chroot, names
# linux-source-6.12 at the headers' version, and the package's
# debian/tests/dkms-kernels passes there.
# Usage: tests/trixie/test-deb.sh [--deb FILE]
#   --deb FILE  install this ext4x-dkms .deb instead of building one
# Logs: build/trixie/logs/{mkdeb,apt-install,dkms-make,apt-purge}.log
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/trixie/lib.sh
. "$top/tests/trixie/lib.sh"
# shellcheck source=tests/host/dkms-common.sh
. "$top/tests/host/dkms-common.sh"

given=''
if [ "${1:-}" = --deb ] && [ $# -eq 2 ]; then
	[ -f "$2" ] || t_die "--deb $2: no such file"
	given=$(realpath "$2")
elif [ $# -ne 0 ]; then
	t_die "usage: test-deb.sh [--deb FILE]"
fi
ktap_print_header
[ "$(id -u)" -eq 0 ] || ktap_skip_all "needs root (chroot)"
kver=$(t_env KVER)
[ -f "$tstamp" ] && [ -n "$kver" ] || ktap_skip_all "no trixie chroot (tests/trixie/mkchroot.sh)"
command -v dh_dkms >/dev/null || ktap_skip_all "dh-dkms not installed (scripts/install-deps.sh): cannot make the .deb"
t_lock

version=$(tr -d ' \n' <"$top/VERSION")
deb=ext4x-dkms_${version}_all.deb
logs=$tdir/logs
out=$tdir/dkms-modules
dest=/lib/modules/$kver/updates/dkms
cin=$troot/tmp/ext4x-deb
mkdir -p "$logs"
rm -rf "$out" "$tdir/deb" "$cin"
mkdir -p "$out"

# purge: ext4x-dkms out of the chroot again, in whatever state dpkg has it
# (a failed postinst leaves it half-configured), and every DKMS registration
# of ext4x an interrupted run may have left; the packages apt pulled in with
# it (Recommends) go too.
purge() {
	local st v
	st=$(dpkg-query --admindir="$troot/var/lib/dpkg" -W -f='${db:Status-Abbrev}' ext4x-dkms 2>/dev/null || true)
	case $st in
	'' | ?n*) ;;
	*) t_in_chroot "$troot" apt-get purge -y --autoremove ext4x-dkms || return 1 ;;
	esac
	for v in "$troot"/var/lib/dkms/ext4x/*; do
		[ -d "$v" ] && [ ! -L "$v" ] || continue
		t_in_chroot "$troot" dkms remove "ext4x/${v##*/}" --all || return 1
	done
	[ ! -e "$troot/var/lib/dkms/ext4x" ]
}
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	t_umount_all "$troot" || true
	purge >>"$logs/apt-purge.log" 2>&1 || true
	t_umount_all "$troot" || true
	rm -rf "$cin"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
: >"$logs/apt-purge.log"
purge >>"$logs/apt-purge.log" 2>&1 || t_die "cannot remove an earlier ext4x-dkms from the chroot (log: ${logs#"$top"/}/apt-purge.log)"

t0=$(date +%s)
if [ -n "$given" ]; then
	deb=${given##*/}
	mkdir -p "$tdir/deb"
	ktap_check "the given $deb is an ext4x-dkms package" bash -c \
		"[ \"\$(dpkg-deb -f '$given' Package)\" = ext4x-dkms ] && cp '$given' '$tdir/deb/'"
else
	ktap_check "packaging/mkdeb.sh (make deb) builds $deb" bash -c \
		"'$top/packaging/mkdeb.sh' '$tdir/deb' >'$logs/mkdeb.log' 2>&1 && [ -f '$tdir/deb/$deb' ] ||
		 { tail -n 20 '$logs/mkdeb.log'; exit 1; }"
	ktap_print_msg "make deb took $(($(date +%s) - t0)) s"
fi
version=$(dpkg-deb -f "$tdir/deb/$deb" Version 2>/dev/null || echo "$version")
ktap_print_msg "$deb: Depends: $(dpkg-deb -f "$tdir/deb/$deb" Depends 2>&1)"
ktap_print_msg "dkms.conf: $(dpkg-deb --fsys-tarfile "$tdir/deb/$deb" 2>/dev/null |
	tar -xOf - "./usr/src/ext4x-$version/dkms.conf" 2>/dev/null | grep '^BUILD_EXCLUSIVE_KERNEL=')"

# The .deb in the chroot's /tmp, readable by apt's _apt user.
mkdir -p "$cin"
chmod 755 "$cin"
cp "$tdir/deb/$deb" "$cin/" 2>/dev/null
apt_install() {
	t_in_chroot "$troot" sh -c "cd /tmp/ext4x-deb && apt-get install -y ./$deb" \
		>"$logs/apt-install.log" 2>&1 || { tail -n 30 "$logs/apt-install.log"; return 1; }
}
t0=$(date +%s)
ktap_check "apt-get install ./$deb in the trixie chroot" apt_install
ktap_print_msg "apt-get install took $(($(date +%s) - t0)) s (DKMS build included)"
ktap_print_msg "apt-get install pulled in: $(sed -n 's/^Unpacking \([^ ]*\) .*/\1/p' "$logs/apt-install.log" | paste -sd' ')"
# What DKMS and ext4x said during the install (a refusal is one "ext4x:" line).
ktap_print_msg "$(grep -E '^(ext4x:|Building (module|for)|Error|Sign|Installing /|Autoinstall|Running the pre_build|Warning)' \
	"$logs/apt-install.log" | head -n 15)"
mk=$(find "$troot/var/lib/dkms/ext4x" -path "*/$kver/*/log/make.log" 2>/dev/null | head -n 1)
[ -z "$mk" ] || cp "$mk" "$logs/dkms-make.log"

status=$(t_in_chroot "$troot" dkms status -m ext4x -v "$version" -k "$kver" 2>&1)
ktap_print_msg "dkms status: $status"
if grep -q ': installed' <<<"$status"; then
	ktap_test_pass "dkms status: ext4x/$version installed for $kver"
else
	ktap_test_fail "dkms status: ext4x/$version installed for $kver" "$status" \
		"$(tail -n 15 "$logs/dkms-make.log" 2>/dev/null)"
fi

for m in percpu_stats mbcache2 ext4x; do
	ko=$(dkms_ko "$troot$dest" "$m") || ko=''
	vm=$( [ -z "$ko" ] || modinfo -F vermagic "$ko" 2>&1)
	if [ -n "$ko" ] && [[ $vm == "$kver SMP "* ]]; then
		ktap_test_pass "$dest/${ko##*/}, vermagic $kver"
		dkms_ko_copy "$troot$dest" "$m" "$out"
	else
		ktap_test_fail "$dest/$m.ko*, vermagic $kver" "file: ${ko:-none}" "vermagic: $vm"
	fi
done
if [ -f "$out/ext4x.ko" ] && [ -f "$out/mbcache2.ko" ]; then
	ktap_check "modinfo: ext4x depends on mbcache2,percpu_stats; mbcache2 on percpu_stats" bash -c \
		"modinfo -F depends '$out/ext4x.ko' | tr , '\\n' | grep -qx mbcache2 &&
		 modinfo -F depends '$out/ext4x.ko' | tr , '\\n' | grep -qx percpu_stats &&
		 [ \"\$(modinfo -F depends '$out/mbcache2.ko')\" = percpu_stats ]"
	ktap_print_msg "signer: $(modinfo -F signer "$out/ext4x.ko" 2>&1)"
else
	ktap_test_fail "modinfo: ext4x depends on mbcache2,percpu_stats; mbcache2 on percpu_stats" "ext4x.ko or mbcache2.ko missing"
fi

# README's command for the running kernel's source, as if trixie's kernel
# ran (uname -r -> KVER), apt-get simulating in the chroot: linux-source-X.Y
# at the headers' Debian version
srccmd=$(grep -m1 '^apt-get install "linux-source-' "$top/README.md")
xy=$(echo "$kver" | cut -d. -f1-2)
hv=$(dpkg-query --admindir="$troot/var/lib/dpkg" -W -f='${Version}' "linux-headers-$kver" 2>/dev/null)
cmd=${srccmd//uname -r/echo $kver}
cmd=${cmd/apt-get install/apt-get install -s}
if [ -n "$srccmd" ] && out=$(t_in_chroot "$troot" bash -c "$cmd" 2>&1) &&
	grep -qF -e "Inst linux-source-$xy ($hv " \
		-e "linux-source-$xy is already the newest version ($hv)" <<<"$out"; then
	ktap_test_pass "README's source command on $kver: linux-source-$xy $hv"
else
	ktap_test_fail "README's source command on $kver: linux-source-$xy $hv" "${cmd:-no such line in README.md}" "$out"
fi
# the package's own DKMS test (debian/tests/dkms-kernels), as autopkgtest
# would run it in a trixie testbed
cp "$top/debian/tests/dkms-kernels" "$cin/"
dkms_kernels() {
	if t_in_chroot "$troot" bash /tmp/ext4x-deb/dkms-kernels >"$logs/dkms-kernels.log" 2>&1; then
		sed 's/^/# /' "$logs/dkms-kernels.log"
	else
		cat "$logs/dkms-kernels.log"
		return 1
	fi
}
ktap_check "debian/tests/dkms-kernels in the chroot" dkms_kernels

purge_logged() {
	purge >>"$logs/apt-purge.log" 2>&1 || { tail -n 20 "$logs/apt-purge.log"; return 1; }
}
ktap_check "apt-get purge ext4x-dkms" purge_logged
left=$(find "$troot/lib/modules" "$troot/usr/lib/modules" \( -name 'ext4x.ko*' -o -name 'mbcache2.ko*' \
	-o -name 'percpu_stats.ko*' \) 2>/dev/null; ls -d "$troot/usr/src/ext4x-"* "$troot/var/lib/dkms/ext4x" 2>/dev/null)
if [ -z "$left" ]; then
	ktap_test_pass "nothing of ext4x left in the chroot"
else
	ktap_test_fail "nothing of ext4x left in the chroot" "$left"
fi
ktap_finished
