#!/bin/bash
# A kernel update that ext4x cannot be built for must not break apt, KTAP on stdout.
# Done the way apt does it: ext4x is registered with DKMS and installed for KVER
# (a real build; in make check the one tests/host/test-dkms.sh just made and
# checked, EXT4X_KU_INSTALLED=1), then a new kernel arrives: a fake release FAKE (KVER's X.Y,
# ABI 99) whose headers are KVER's under FAKE's name, as a linux-headers-FAKE package that
# `dpkg -i` installs (its postinst runs /etc/kernel/header_postinst.d through
# linux-run-hooks, i.e. run-parts --exit-on-error, like Debian's), and the image's
# hook /etc/kernel/postinst.d/dkms FAKE. Its source is a fake linux-source
# tarball (EXT4X_SRCDIR, EXT4X_SOURCE_DEBVER: prepare.sh's overrides, which reach
# it through dkms's environment) made from KVER's fs/ext4:
#   - patch #2 of the series does not apply (a line it removes was changed);
#   - linux-source missing; linux-source of another Debian version;
#   - a kernel without a patch series (6.999.0-1-amd64);
#   each: the hook and dpkg exit 0, one line names the kernel, the reason (the
#   patch) and what to do, nothing is built or installed for that kernel, KVER's
#   modules are the same files with the same checksums, `dkms status` shows only
#   KVER (and for the patch, `dkms build` on the command line refuses with 77
#   and the same line);
#   - a compiler error the check cannot foresee: the hook still fails (visible).
# Then `dkms remove`, nothing left, `dpkg --audit` empty.
# Always cleans up (EXIT trap): dkms remove, /usr/src/ext4x-VERSION, the fake
# package and /lib/modules dirs. Skips if ext4x is already there, or the fake
# releases exist. Shares the lock of test-dkms.sh and test-deb.sh.
# Usage: tests/host/kernel-update.sh [KVER]
# EXT4X_KU_VIA_DEB=1: install ext4x with `make deb` + apt-get install (needs
# dh-dkms) instead of dkms add/install.
# EXT4X_KU_INSTALLED=1: ext4x VERSION is registered and installed for KVER
# by the caller, which holds the DKMS test lock and removes it afterwards
# (test-dkms.sh): no install, no removal, no lock; the fake kernel's things
# are still cleaned up.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/host/dkms-common.sh
. "$top/tests/host/dkms-common.sh"

kver=${1:-${KVER:-$("$top/scripts/kver.sh")}}
version=$(tr -d ' \n' <"$top/VERSION")
src=/usr/src/ext4x-$version
via_deb=${EXT4X_KU_VIA_DEB:-0}
installed=${EXT4X_KU_INSTALLED:-0}
ktap_print_header
[ "$via_deb" = 0 ] || command -v dh_dkms >/dev/null || ktap_skip_all "EXT4X_KU_VIA_DEB=1 needs dh-dkms"
if ! command -v dpkg-deb >/dev/null || ! command -v linux-run-hooks >/dev/null; then
	ktap_skip_all "needs dpkg-deb and linux-run-hooks (linux-base)"
fi
if [ "$installed" = 1 ]; then
	[ "$(id -u)" -eq 0 ] || ktap_skip_all "needs root (dkms, dpkg)"
	dkms status -m ext4x -v "$version" -k "$kver" | grep -q ': installed' ||
		ktap_skip_all "EXT4X_KU_INSTALLED=1 but ext4x/$version is not installed for $kver"
	via_deb=0
else
	dkms_test_start "$kver" "$version"
fi

xy=$(echo "$kver" | cut -d. -f1-2)
fake=$xy.0-99-amd64          # the new kernel of the series
nokver=6.999.0-1-amd64       # a kernel of a series ext4x has no patches for
fakepkg=linux-headers-$fake
for d in "/lib/modules/$fake" "/lib/modules/$nokver" "/usr/src/linux-headers-$fake"; do
	[ ! -e "$d" ] || ktap_skip_all "$d exists: not touching it"
done
dpkg-query -W -f='${db:Status-Abbrev}' "$fakepkg" 2>/dev/null | grep -q '^.[^n]' &&
	ktap_skip_all "$fakepkg is installed: not touching it"
[ -f "/usr/src/linux-source-$xy.tar.xz" ] || ktap_skip_all "no /usr/src/linux-source-$xy.tar.xz"
audit_before=$(dpkg --audit 2>&1)

tmp=$(mktemp -d /tmp/ext4x-kernel-update.XXXXXX)
chmod 755 "$tmp"   # apt's _apt user reads a local .deb
state_snapshot "$kver" >"$tmp/before"
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	if dpkg-query -W -f='${db:Status-Abbrev}' "$fakepkg" 2>/dev/null | grep -q '^.[^n]'; then
		echo "# cleanup: dpkg --purge $fakepkg"
		dpkg --purge "$fakepkg" >/dev/null 2>&1 || dpkg --purge --force-all "$fakepkg" >/dev/null 2>&1
	fi
	if [ "$installed" = 1 ]; then
		# the caller's install: only the fake kernel's cached verdicts go
		rm -rf "/var/lib/dkms/ext4x/$version/$fake" "/var/lib/dkms/ext4x/$version/$nokver"
	elif dpkg-query -W -f='${db:Status-Abbrev}' ext4x-dkms 2>/dev/null | grep -q '^.[^n]'; then
		echo "# cleanup: apt-get purge ext4x-dkms"
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq ext4x-dkms >/dev/null 2>&1 ||
			dpkg --purge --force-all ext4x-dkms >/dev/null 2>&1
	fi
	if [ "$installed" = 0 ] && { [ -n "$(dkms status -m ext4x -v "$version" 2>/dev/null)" ] || [ -e "/var/lib/dkms/ext4x/$version" ]; }; then
		echo "# cleanup: dkms remove ext4x/$version --all"
		dkms remove -m ext4x -v "$version" --all >/dev/null 2>&1
		rm -rf "/var/lib/dkms/ext4x/$version"
		rmdir /var/lib/dkms/ext4x 2>/dev/null
	fi
	rm -rf "/lib/modules/$fake" "/lib/modules/$nokver" "/usr/src/linux-headers-$fake"
	state_restore_depmod "$kver" "$tmp/before"
	[ "$via_deb" = 1 ] || [ "$installed" = 1 ] || rm -rf "$src"
	rm -rf "$tmp"
}
trap 'cleanup' EXIT
trap 'exit 130' INT TERM

kbuild=$(readlink -f "/lib/modules/$kver/build")
hver=$(env -u MAKEFLAGS -u MAKELEVEL make -s --no-print-directory -C "$kbuild" kernelversion 2>/dev/null)
fakedeb=$hver-99             # the Debian version of the new kernel

# ---- 1. ext4x installed for KVER ---------------------------------------------------------
t0=$(date +%s)
if [ "$installed" = 1 ]; then
	ktap_print_msg "ext4x/$version installed for $kver by the caller"
elif [ "$via_deb" = 1 ]; then
	deb=$tmp/ext4x-dkms_${version}_all.deb
	ktap_check "make deb" bash -c "make -s -C '$top' deb DEB_OUT='$tmp' >'$tmp/make.log' 2>&1 && [ -f '$deb' ]"
	ktap_check "apt-get install ./ext4x-dkms_${version}_all.deb (builds for $kver)" bash -c \
		"cd '$tmp' && DEBIAN_FRONTEND=noninteractive apt-get install -y ./ext4x-dkms_${version}_all.deb >'$tmp/apt.log' 2>&1 || { tail -n 25 '$tmp/apt.log'; exit 1; }"
	grep -E '^ext4x:|Skipped|Building' "$tmp/apt.log" | sed 's/^/# apt: /'
else
	ktap_check "stage $src, dkms add" bash -c \
		"'$top/packaging/mkdkmssrc.sh' '$src' && dkms add -m ext4x -v '$version'"
	ktap_check "dkms install -m ext4x -v $version -k $kver (build, install)" \
		dkms install -m ext4x -v "$version" -k "$kver"
fi
ktap_print_msg "ext4x for $kver took $(($(date +%s) - t0)) s"
dest=/lib/modules/$kver/updates/dkms
ktap_check "ext4x installed for $kver" bash -c \
	"dkms status -m ext4x -v '$version' -k '$kver' | grep -q ': installed' && [ -n \"\$(ls '$dest'/ext4x.ko* 2>/dev/null)\" ]"
# KVER's modules: every file under updates/ and in dkms's tree for KVER, with
# checksum, size, mtime and inode (same files, not rewritten)
kver_files() {
	find "/lib/modules/$kver/updates" "/var/lib/dkms/ext4x/$version/$kver" -type f 2>/dev/null | sort |
		while IFS= read -r f; do echo "$(sha256sum <"$f" | cut -c1-64) $(stat -c '%s %Y %i' "$f") $f"; done
}
kver_files >"$tmp/kver.files"
dpkg --audit >"$tmp/audit.setup" 2>&1
ktap_print_msg "$(wc -l <"$tmp/kver.files") files of ext4x for $kver recorded"

# ---- fake sources ------------------------------------------------------------------------
# KVER's own fs/ext4, Makefile and trace header, from the real tarball
mkdir -p "$tmp/pristine"
tar -xf "/usr/src/linux-source-$xy.tar.xz" -C "$tmp/pristine" "linux-source-$xy/Makefile" \
	"linux-source-$xy/fs/ext4" "linux-source-$xy/include/trace/events/ext4.h"
series=$src/ext4-backport/patches/$xy/series
# (each line's first field: the patch as written for the newest release)
mapfile -t entries < <(sed -e 's/#.*//' "$series" | awk 'NF { print $1 }')
nth=2
[ "${#entries[@]}" -ge 2 ] || nth=1
bad=${entries[$((nth - 1))]:-}
# mksrc NAME EDIT: $tmp/src-NAME/linux-source-X.Y.tar.xz: the pristine tree after
# the function EDIT ran in it
mksrc() {
	rm -rf "$tmp/work" && cp -a "$tmp/pristine" "$tmp/work" && (cd "$tmp/work/linux-source-$xy" && "$2") &&
		mkdir -p "$tmp/src-$1" && tar -cJf "$tmp/src-$1/linux-source-$xy.tar.xz" -C "$tmp/work" "linux-source-$xy" &&
		rm -rf "$tmp/work"
}
# patch #2 does not apply: the first line its first hunk removes was changed (a
# later point release touched it); the patches before it still apply
edit_patchfail() {
	awk -v f="$tmp/pline" 'BEGIN { getline l <f } $0 == l { $0 = $0 " /* changed */"; n++ } { print }
		END { exit !n }' "$pfile" >"$pfile.new" && mv "$pfile.new" "$pfile"
}
# a compile error no check can foresee (fs/ext4/balloc.c is compiled first)
edit_compilefail() { echo '#error ext4x kernel-update test: a compile error' >>fs/ext4/balloc.c; }
if [ -n "$bad" ]; then
	pfile=$(sed -n 's,^+++ b/,,p' "$src/ext4-backport/patches/$xy/$bad" | head -n 1)
	awk '/^@@/ { h = 1; next } h && /^-/ && !/^---/ { print substr($0, 2); exit }' \
		"$src/ext4-backport/patches/$xy/$bad" >"$tmp/pline"
	ktap_check "fake source: patch #$nth ($bad) made not to apply ($pfile)" mksrc patchfail edit_patchfail
else
	ktap_test_fail "fake source: a series with patches" "$series names no patch"
fi
ktap_check "fake source: a compile error in fs/ext4/balloc.c" mksrc compilefail edit_compilefail
mkdir -p "$tmp/src-none"
rm -rf "$tmp/pristine"
# prepare.sh's overrides for each fake source (they reach it through dkms's environment)
env_patchfail=("EXT4X_SRCDIR=$tmp/src-patchfail" "EXT4X_SOURCE_DEBVER=$fakedeb")
env_compilefail=("EXT4X_SRCDIR=$tmp/src-compilefail" "EXT4X_SOURCE_DEBVER=$fakedeb")
env_none=("EXT4X_SRCDIR=$tmp/src-none")

# ---- the new kernel's headers, as a package -------------------------------------------------
# KVER's arch headers under FAKE's name (their Makefile includes KVER's -common
# headers, their scripts link to linux-kbuild-X.Y), FAKE in every file that says KVER
# (utsrelease.h, auto.conf, .kernelvariables): what a linux-headers-FAKE package holds
pkg=$tmp/pkg
mkdir -p "$pkg/DEBIAN" "$pkg/lib/modules/$fake" "$pkg/usr/src"
cp -a "$kbuild" "$pkg/usr/src/linux-headers-$fake"
grep -rlIF -- "$kver" "$pkg/usr/src/linux-headers-$fake" | while IFS= read -r f; do
	sed -i "s/$(sed 's/[.]/\\&/g' <<<"$kver")/$fake/g" "$f"
done
ln -s "/usr/src/linux-headers-$fake" "$pkg/lib/modules/$fake/build"
cat >"$pkg/DEBIAN/control" <<EOF
Package: $fakepkg
Version: $fakedeb
Architecture: $(dpkg --print-architecture)
Maintainer: ext4x tests <ext4x@localhost>
Section: kernel
Priority: optional
Description: fake headers of a kernel update (ext4x test)
 The headers of $kver under the release name $fake.
EOF
# what Debian's linux-headers postinst does (6.12's, verbatim in substance)
printf '#!/bin/sh -e\nversion=%s\nlinux-run-hooks headers postinst $version -- "$@"\nexit 0\n' "$fake" >"$pkg/DEBIAN/postinst"
chmod 755 "$pkg/DEBIAN/postinst"
ktap_check "fake $fakepkg $fakedeb package built" dpkg-deb --root-owner-group -b "$pkg" "$tmp/$fakepkg.deb"

# ---- checks shared by the cases --------------------------------------------------------------
# one_line DESC FILE FIXED...: exactly one line of FILE holds every FIXED string
one_line() {
	local desc=$1 file=$2 lines s n
	shift 2
	lines=$(cat "$file")
	for s in "$@"; do lines=$(grep -F -- "$s" <<<"$lines"); done
	n=$(grep -c . <<<"$lines")
	if [ "$n" -eq 1 ]; then
		ktap_test_pass "$desc"
		ktap_print_msg "$lines"
	else
		ktap_test_fail "$desc" "$n lines hold all of:" "$@" "output:" "$(cat "$file")"
	fi
}
# untouched K: nothing of ext4x for K, KVER's files unchanged, dkms status
untouched() {
	local k=$1
	ktap_check "$k: nothing built or installed" bash -c \
		"[ ! -e /var/lib/dkms/ext4x/$version/$k ] && ! find /lib/modules/$k -name '*.ko*' 2>/dev/null | grep ."
	kver_files >"$tmp/kver.now"
	ktap_check "$k: ext4x of $kver untouched (same files, checksums, mtimes, inodes)" \
		diff -u "$tmp/kver.files" "$tmp/kver.now"
	dkms status -m ext4x >"$tmp/status" 2>&1
	ktap_check "$k: dkms status shows ext4x installed for $kver, nothing for $k" bash -c \
		"grep -q '^ext4x/$version, $kver, [^:]*: installed' '$tmp/status' && ! grep -qF '$k' '$tmp/status'"
}
# hook NAME K ENV...: run /etc/kernel/NAME/dkms K as the kernel's postinst does;
# rc and output (stdout + stderr) in $tmp/hook.out
hook() {
	local d=$1 k=$2
	shift 2
	env "$@" "/etc/kernel/$d/dkms" "$k" >"$tmp/hook.out" 2>&1
}
nobuild="wait for an ext4x release that supports it; until then $fake boots without ext4x: boot a kernel it is installed for (dkms status -m ext4x)"

# ---- 2. patch #2 does not apply ----------------------------------------------------------
# 2a. dpkg -i of the new kernel's headers (postinst: run-parts --exit-on-error)
t0=$(date +%s)
env "${env_patchfail[@]}" dpkg -i "$tmp/$fakepkg.deb" >"$tmp/dpkg.out" 2>&1 && rc=0 || rc=$?
t_dpkg=$(($(date +%s) - t0))
if [ "$rc" -eq 0 ] && dpkg-query -W -f='${db:Status-Abbrev}' "$fakepkg" | grep -q '^ii'; then
	ktap_test_pass "patch does not apply: dpkg -i $fakepkg exits 0, package configured (ii)"
else
	ktap_test_fail "patch does not apply: dpkg -i $fakepkg exits 0, package configured (ii)" "exit $rc" "$(cat "$tmp/dpkg.out")"
fi
sed 's/^/# dpkg: /' "$tmp/dpkg.out"
ktap_print_msg "dpkg -i took $t_dpkg s (with the check's first run on the small fake tarball)"
one_line "patch does not apply: one line names $fake, patch $xy/$bad (#$nth) and what to do" "$tmp/dpkg.out" \
	"ext4x: ext4x $version is not built for $fake: patch $xy/$bad (#$nth in " \
	"does not apply to $tmp/src-patchfail/linux-source-$xy.tar.xz ($hver, Debian $fakedeb)" "$nobuild"
if [ ! -s "$tmp/audit.setup" ]; then
	ktap_check "patch does not apply: dpkg --audit is empty" bash -c '[ -z "$(dpkg --audit 2>&1)" ]'
else
	ktap_check "patch does not apply: dpkg --audit shows nothing new (the setup left some)" \
		bash -c "dpkg --audit 2>&1 | diff '$tmp/audit.setup' -"
fi
untouched "$fake"
# 2b. the image's hook: the cached verdict, same answer
t0=$(date +%s%N)
hook postinst.d "$fake" "${env_patchfail[@]}" && rc=0 || rc=$?
t_hit=$((($(date +%s%N) - t0) / 1000000))
if [ "$rc" -eq 0 ]; then
	ktap_test_pass "patch does not apply: /etc/kernel/postinst.d/dkms $fake exits 0"
else
	ktap_test_fail "patch does not apply: /etc/kernel/postinst.d/dkms $fake exits 0" "exit $rc" "$(cat "$tmp/hook.out")"
fi
one_line "patch does not apply: the image hook says it too" "$tmp/hook.out" \
	"ext4x: ext4x $version is not built for $fake: patch $xy/$bad" "$nobuild"
ktap_print_msg "the whole image hook, verdict from the cache: $t_hit ms"
# what dkms.conf adds to each dkms command once the verdict is cached: one
# packaging/dkms/check.sh run (the line is said once per --once id)
t0=$(date +%s%N)
for _ in 1 2 3 4 5 6 7 8 9 10; do
	env "${env_patchfail[@]}" "$src/packaging/dkms/check.sh" --once "$$" --cache "/var/lib/dkms/ext4x/$version/.check" \
		"$fake" 2>/dev/null
done
ktap_print_msg "packaging/dkms/check.sh with a cached verdict: $((($(date +%s%N) - t0) / 10000000)) ms a run (mean of 10)"
# 2c. dkms build on the command line: a clear refusal, exit 77
env "${env_patchfail[@]}" dkms build -m ext4x -v "$version" -k "$fake" >"$tmp/out" 2>&1 && rc=0 || rc=$?
if [ "$rc" -eq 77 ] && grep -q 'BUILD_EXCLUSIVE directive which does not match' "$tmp/out"; then
	ktap_test_pass "patch does not apply: dkms build -k $fake refuses (exit 77)"
else
	ktap_test_fail "patch does not apply: dkms build -k $fake refuses (exit 77)" "exit $rc" "$(cat "$tmp/out")"
fi
one_line "patch does not apply: dkms build says why, once" "$tmp/out" \
	"ext4x: ext4x $version is not built for $fake: patch $xy/$bad" "$nobuild"
untouched "$fake"

# ---- 3. linux-source missing --------------------------------------------------------------
hook header_postinst.d "$fake" "${env_none[@]}" && rc=0 || rc=$?
ktap_check "no linux-source: header hook exits 0" test "$rc" -eq 0
one_line "no linux-source: one line names $fake, the package to install and the dkms command" "$tmp/hook.out" \
	"ext4x: ext4x $version is not built for $fake: kernel source for $fake ($hver, Debian $fakedeb) not found: apt-get install linux-source-$xy=$fakedeb" \
	"; then: dkms install -m ext4x -v $version -k $fake; until then $fake boots without ext4x: boot a kernel it is installed for (dkms status -m ext4x)"
hook postinst.d "$fake" "${env_none[@]}" && rc=0 || rc=$?
ktap_check "no linux-source: image hook exits 0" test "$rc" -eq 0
untouched "$fake"

# ---- 4. linux-source of another Debian version (the kernel was upgraded, the source not) ----
hook header_postinst.d "$fake" && rc=0 || rc=$?
ktap_check "old linux-source: header hook exits 0" test "$rc" -eq 0
one_line "old linux-source: one line names both versions and the package to install" "$tmp/hook.out" \
	"ext4x: ext4x $version is not built for $fake: /usr/src/linux-source-$xy.tar.xz is $hver (Debian " \
	"but the target kernel $fake is $hver (Debian $fakedeb): install linux-source-$xy=$fakedeb" \
	"; then: dkms install -m ext4x -v $version -k $fake;"
untouched "$fake"

# ---- 5. a kernel of a series without patches ------------------------------------------------
mkdir -p "/lib/modules/$nokver"
ln -s "$kbuild" "/lib/modules/$nokver/build"
hook header_postinst.d "$nokver" && rc=0 || rc=$?
ktap_check "no patch series: header hook for $nokver exits 0" test "$rc" -eq 0
one_line "no patch series: dkms.conf's one line" "$tmp/hook.out" \
	"ext4x: no patch series for kernel 6.999 (have: " "): ext4x $version is not built for $nokver"
untouched "$nokver"
rm -rf "/lib/modules/$nokver"

# ---- 6. a compile error: the check passes, the build fails, visibly -------------------------
t0=$(date +%s)
hook header_postinst.d "$fake" "${env_compilefail[@]}" && rc=0 || rc=$?
if [ "$rc" -ne 0 ] && grep -q 'Bad return status for module build on kernel: '"$fake" "$tmp/hook.out"; then
	ktap_test_pass "compile error: the hook fails (exit $rc, dkms's 'Bad return status'), not skipped"
else
	ktap_test_fail "compile error: the hook fails, not skipped" "exit $rc" "$(tail -n 20 "$tmp/hook.out")"
fi
ktap_print_msg "compile error case took $(($(date +%s) - t0)) s"
mlog=/var/lib/dkms/ext4x/$version/build/make.log
if grep -q 'ext4x kernel-update test: a compile error' "$mlog"; then
	ktap_test_pass "compile error: it is ours, in dkms's make.log"
else
	ktap_test_fail "compile error: it is ours, in dkms's make.log" "$(tail -n 15 "$mlog" 2>&1)"
fi
ktap_check "compile error: no 'is not built for' skip line" bash -c "! grep -q 'is not built for' '$tmp/hook.out'"
untouched "$fake"

# ---- 7. the new kernel goes again; ext4x goes -------------------------------------------------
ktap_check "dpkg --purge $fakepkg" bash -c "dpkg --purge '$fakepkg' >'$tmp/purge.out' 2>&1 || { cat '$tmp/purge.out'; exit 1; }"
ktap_check "$fakepkg: /lib/modules/$fake and its headers gone with it" \
	bash -c "[ ! -e '/lib/modules/$fake' ] && [ ! -e '/usr/src/linux-headers-$fake' ]"
if [ "$installed" = 1 ]; then
	ktap_print_msg "ext4x stays installed for $kver: removing it, and the check that nothing is left, are the caller's"
elif [ "$via_deb" = 1 ]; then
	ktap_check "apt-get purge ext4x-dkms" bash -c \
		"DEBIAN_FRONTEND=noninteractive apt-get purge -y ext4x-dkms >'$tmp/purge.log' 2>&1 || { tail -n 25 '$tmp/purge.log'; exit 1; }"
else
	ktap_check "dkms remove -m ext4x -v $version --all" dkms remove -m ext4x -v "$version" --all
fi
if [ "$installed" = 1 ]; then
	# new since the caller's install: only dkms's build dir (the compile
	# error's) and the verdict cache, which the caller's dkms remove takes
	left=$(state_snapshot "$kver" | comm -13 "$tmp/before" - |
		grep -v "^/var/lib/dkms/ext4x/$version/\(build\|\.check\)")
	if [ -z "$left" ]; then
		ktap_test_pass "the update left nothing new under /lib/modules/$kver or /var/lib/dkms but dkms's build dir and verdict cache"
	else
		ktap_test_fail "the update left nothing new under /lib/modules/$kver or /var/lib/dkms" "left:" "$left"
	fi
elif left=$(state_leftovers "$kver" "$tmp/before") && [ -z "$left" ]; then
	ktap_test_pass "nothing left under /lib/modules/$kver or /var/lib/dkms (verdict cache included)"
else
	ktap_test_fail "nothing left under /lib/modules/$kver or /var/lib/dkms" "left:" "$left"
fi
if [ -z "$audit_before" ]; then
	ktap_check "dpkg --audit is empty" bash -c '[ -z "$(dpkg --audit 2>&1)" ]'
else
	ktap_test_skip "dpkg --audit is empty" "it was not before the test"
fi
ktap_finished
