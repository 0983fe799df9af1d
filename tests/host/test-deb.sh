#!/bin/bash
# The ext4x-dkms .deb, KTAP on stdout: `make deb` (packaging/mkdeb.sh) builds it;
# it holds only the DKMS sources under /usr/src/ext4x-VERSION (no tests, no build
# output), lintian finds nothing without overrides, it depends on dkms and
# only suggests linux-source-X.Y (the README's command installs the running
# kernel's, at its headers' version); `apt-get install ./ext4x-dkms_*.deb` builds and installs
# the modules through DKMS for the kernels dh_dkms's postinst names ("Building
# for ..."): the running kernel and the newest one when the running one is
# installed, every kernel with headers when it is not (a chroot, or this
# bench's host kernel). Each other kernel of make check (EXT4X_KVERS, else
# KVER) is then built by the hook a kernel package runs when it is installed
# (/etc/kernel/postinst.d/dkms), so the test holds whichever kernel the host
# booted. For each kernel dkms status says installed and modinfo shows its
# vermagic and the depends. The package's tests (debian/tests: tools and
# dkms-kernels) then run as autopkgtest runs them, against ext4x-dkms and
# ext4x-tools installed together; purge removes everything again. The
# package's version is VERSION's, and docs/INSTALL.md is its README.Debian.
# Always purges what it installed (EXIT trap); skips if ext4x is already there.
# required-in-ci: a skip of the whole file fails make check under CI=true
# kernel-independent: one run covers every kernel (tests/host/run.sh)
# Usage: tests/host/test-deb.sh [KVER]   (EXT4X_KVERS="K1 K2": the kernels to check)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/host/dkms-common.sh
. "$top/tests/host/dkms-common.sh"

kver=${1:-${KVER:-$("$top/scripts/kver.sh")}}
read -r -a kvers <<<"${EXT4X_KVERS:-$kver}"
version=$(tr -d ' \n' <"$top/VERSION")
ktap_print_header
command -v dh_dkms >/dev/null || ktap_skip_all "dh-dkms not installed (scripts/install-deps.sh)"
dkms_test_start "$kver" "$version"
! dpkg-query -W -f='${db:Status-Abbrev}' ext4x-tools 2>/dev/null | grep -qv '^.n' ||
	ktap_skip_all "ext4x-tools is installed: not touching it"

tmp=$(mktemp -d /tmp/ext4x-deb-test.XXXXXX)
chmod 755 "$tmp"   # apt's _apt user reads the local .deb
for k in "${kvers[@]}"; do state_snapshot "$k" >"$tmp/before.$k"; done
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	if dpkg-query -W -f='${db:Status-Abbrev}' ext4x-dkms ext4x-tools 2>/dev/null | grep -qv '^.n'; then
		echo "# cleanup: apt-get purge ext4x-dkms ext4x-tools"
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq ext4x-dkms ext4x-tools >/dev/null 2>&1 ||
			dpkg --purge --force-all ext4x-dkms ext4x-tools >/dev/null 2>&1
	fi
	if [ -n "$(dkms status -m ext4x -v "$version" 2>/dev/null)" ]; then
		dkms remove -m ext4x -v "$version" --all >/dev/null 2>&1
	fi
	for k in "${kvers[@]}"; do state_restore_depmod "$k" "$tmp/before.$k"; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

deb=$tmp/ext4x-dkms_${version}_all.deb
t0=$(date +%s)
ktap_check "make deb builds ext4x-dkms_${version}_all.deb" \
	bash -c "make -s -C '$top' deb DEB_OUT='$tmp' >'$tmp/make.log' 2>&1 && [ -f '$deb' ]"
ktap_print_msg "make deb took $(($(date +%s) - t0)) s"

# contents: exactly the staged DKMS tree under usr/src/ext4x-VERSION, and the docs
"$top/packaging/mkdkmssrc.sh" "$tmp/stage" >/dev/null
(cd "$tmp/stage" && find . -type f | sed "s,^\\.,./usr/src/ext4x-$version," | sort) >"$tmp/want"
dpkg-deb -c "$deb" 2>/dev/null | awk '$1 !~ /^d/ {print $6}' | grep -v '^./usr/share/doc/ext4x-dkms/' | sort >"$tmp/have"
ktap_check "package holds exactly the DKMS sources (+ /usr/share/doc)" diff -u "$tmp/want" "$tmp/have"
ktap_check "no tests, build output or kernel source in the package" bash -c \
	"! grep -E '/tests/|\\.(o|ko|mod|mod\\.c|cmd|a)\$|/build/|linux-source|fs/ext4/' '$tmp/have'"
ktap_check "package version $(dpkg-deb -f "$deb" Version 2>/dev/null) is VERSION's ($version)" \
	test "$(dpkg-deb -f "$deb" Version 2>/dev/null)" = "$version"
# the package ships no override, and lintian is not allowed one
lintian_clean "$deb" "$tmp/lintian.log"
# (dh_compress gzips it: it is over 4 KiB)
ktap_check "docs/INSTALL.md is the package's README.Debian" bash -c \
	"dpkg-deb --fsys-tarfile '$deb' | tar -xOf - ./usr/share/doc/ext4x-dkms/README.Debian.gz | zcat | cmp -s - '$top/docs/INSTALL.md'"
deps=$(dpkg-deb -f "$deb" Depends 2>/dev/null)
recs=$(dpkg-deb -f "$deb" Recommends 2>/dev/null)
sugs=$(dpkg-deb -f "$deb" Suggests 2>/dev/null)
ktap_print_msg "Depends: $deps" "Recommends: $recs" "Suggests: $sugs"
# apt installs the first alternative of a Depends or Recommends whatever
# kernel runs (6.1's source on a Debian 12 running 6.12): the source of the
# running kernel is the user's to install, at the headers' version
ktap_check "Depends: dkms; no linux-source in Depends or Recommends" bash -c \
	"grep -qE '(^|, )dkms( |,|\$)' <<<'$deps' && ! grep -q linux-source <<<'$deps, $recs'"
for k in "${kvers[@]}"; do
	xy=$(echo "$k" | cut -d. -f1-2)
	ktap_check "Suggests: linux-source-$xy" bash -c "grep -qE '(^|, )linux-source-$xy( |,|\$)' <<<'$sugs'"
done
# README's command for the running kernel's source, for each kernel as if it
# ran (uname -r -> K), apt-get simulating: linux-source-X.Y at K's headers'
# Debian version, which the archive has
srccmd=$(grep -m1 '^apt-get install "linux-source-' "$top/README.md")
for k in "${kvers[@]}"; do
	xy=$(echo "$k" | cut -d. -f1-2)
	hv=$(dpkg-query -W -f='${Version}' "linux-headers-$k" 2>/dev/null)
	cmd=${srccmd//uname -r/echo $k}
	cmd=${cmd/apt-get install/apt-get install -s}
	if [ -n "$srccmd" ] && out=$(eval "$cmd" 2>&1) &&
		grep -qF -e "Inst linux-source-$xy ($hv " \
			-e "linux-source-$xy is already the newest version ($hv)" <<<"$out"; then
		ktap_test_pass "README's source command on $k: linux-source-$xy $hv"
	else
		ktap_test_fail "README's source command on $k: linux-source-$xy $hv" "${cmd:-no such line in README.md}" "$out"
	fi
done

t0=$(date +%s)
tools_deb=ext4x-tools_${version}_$(dpkg --print-architecture).deb
ktap_check "apt-get install ./ext4x-dkms_${version}_all.deb ./$tools_deb" bash -c \
	"cd '$tmp' && DEBIAN_FRONTEND=noninteractive apt-get install -y ./ext4x-dkms_${version}_all.deb ./$tools_deb >'$tmp/apt.log' 2>&1 || { tail -n 25 '$tmp/apt.log'; exit 1; }"
ktap_print_msg "apt-get install took $(($(date +%s) - t0)) s (the postinst's DKMS builds included)"
# the kernels the postinst built for: "Building for A, B and C"
postinst_kvers=" $(sed -n 's/^Building for //p' "$tmp/apt.log" | head -n 1 | sed 's/,/ /g; s/ and / /g') "
ktap_print_msg "the postinst built for:$postinst_kvers(running: $(uname -r))"
for k in "${kvers[@]}"; do
	if [[ $postinst_kvers == *" $k "* ]]; then
		how="by the package's postinst"
	else
		how="by the kernel hook, after the postinst left it out"
		/etc/kernel/postinst.d/dkms "$k" >"$tmp/hook.$k.log" 2>&1 ||
			ktap_print_msg "/etc/kernel/postinst.d/dkms $k failed:" "$(tail -n 20 "$tmp/hook.$k.log")"
	fi
	ktap_check "dkms status: ext4x/$version installed for $k ($how)" bash -c \
		"dkms status -m ext4x -v '$version' -k '$k' | grep -q ': installed'"
	dest=/lib/modules/$k/updates/dkms
	for m in percpu_stats mbcache2 ext4x; do
		ko=$(dkms_ko "$dest" "$m") || ko=$dest/$m.ko
		ktap_check "${ko##*/} in $dest, vermagic $k, version $version" bash -c \
			"[ -f $ko ] && modinfo -F vermagic $ko | grep -q '^$k SMP ' &&
			 [ \"\$(modinfo -F version $ko)\" = '$version' ]"
	done
	ext4x_ko=$(dkms_ko "$dest" ext4x) || ext4x_ko=$dest/ext4x.ko
	mbcache2_ko=$(dkms_ko "$dest" mbcache2) || mbcache2_ko=$dest/mbcache2.ko
	ktap_check "modinfo ($k): ext4x depends on mbcache2,percpu_stats; mbcache2 on percpu_stats" bash -c \
		"modinfo -F depends $ext4x_ko | tr , '\\n' | grep -qx mbcache2 &&
		 modinfo -F depends $ext4x_ko | tr , '\\n' | grep -qx percpu_stats &&
		 [ \"\$(modinfo -F depends $mbcache2_ko)\" = percpu_stats ]"
	ktap_print_msg "ext4x: $(modinfo -F vermagic "$ext4x_ko" 2>&1); depends: $(modinfo -F depends "$ext4x_ko" 2>&1)"
done

# debian/tests as autopkgtest runs them: from the source tree, as root, a
# scratch dir in AUTOPKGTEST_TMP, stderr allowed (both say allow-stderr)
for t in $(sed -n 's/^Tests: *//p' "$top/debian/tests/control" | tr ',' ' '); do
	mkdir -p "$tmp/autopkgtest-$t"
	ktap_check "debian/tests/$t against the installed packages" bash -c \
		"cd '$top' && AUTOPKGTEST_TMP='$tmp/autopkgtest-$t' debian/tests/$t >'$tmp/$t.log' 2>&1 &&
		 sed 's/^/# /' '$tmp/$t.log' || { cat '$tmp/$t.log'; exit 1; }"
done

ktap_check "apt-get purge ext4x-dkms ext4x-tools" bash -c \
	"DEBIAN_FRONTEND=noninteractive apt-get purge -y ext4x-dkms ext4x-tools >'$tmp/purge.log' 2>&1 || { tail -n 25 '$tmp/purge.log'; exit 1; }"
for k in "${kvers[@]}"; do
	left=$(state_leftovers "$k" "$tmp/before.$k"; [ ! -e "/usr/src/ext4x-$version" ] || echo "/usr/src/ext4x-$version")
	if [ -z "$left" ]; then
		ktap_test_pass "nothing left under /lib/modules/$k, /var/lib/dkms or /usr/src"
	else
		ktap_test_fail "nothing left under /lib/modules/$k, /var/lib/dkms or /usr/src" "left:" "$left"
	fi
done
ktap_check "ext4x-dkms and ext4x-tools no longer known to dpkg" bash -c \
	"! dpkg-query -W -f='\${db:Status-Abbrev}' ext4x-dkms ext4x-tools 2>/dev/null | grep -qv '^.n'"
ktap_finished
