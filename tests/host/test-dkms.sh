#!/bin/bash
# The DKMS install flow on this host, against the Debian headers of KVER (that
# kernel need not run here; nothing is loaded on the host), KTAP on stdout:
#   `dkms add .` in a clean checkout of the tree (top-level dkms.conf); the refusals (missing source, no patch
#   series, a kernel outside BUILD_EXCLUSIVE_KERNEL) with their one-line messages,
#   each a BUILD_EXCLUSIVE skip (exit 77) before anything is built;
#   dkms build + install -k KVER; the installed modules' vermagic, version,
#   depends, signer;
#   those modules (copied out of /lib/modules/KVER/updates/dkms, not our build dir)
#   booted in the QEMU guest: tests/standalone/dkms-modprobe.sh (modprobe, mount -o dax);
#   with that install in place, a kernel update ext4x cannot be built for
#   (tests/host/kernel-update.sh, results prefixed "kernel update: ");
#   dkms remove, and nothing of ours left under /lib/modules or /var/lib/dkms.
# Always leaves ext4x unregistered (EXIT trap), and never touches an ext4x that was
# registered before it started (then it skips).
# required-in-ci: a skip of the whole file fails make check under CI=true
# Usage: tests/host/test-dkms.sh [KVER]   (or KVER in the environment)
# EXT4X_DKMS_NO_GUEST=1 skips the guest step, EXT4X_DKMS_NO_UPDATE=1 the
# kernel update.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/host/dkms-common.sh
. "$top/tests/host/dkms-common.sh"

kver=${1:-${KVER:-$("$top/scripts/kver.sh")}}
version=$(tr -d ' \n' <"$top/VERSION")
src=/usr/src/ext4x-$version
ktap_print_header
dkms_test_start "$kver" "$version"

tmp=$(mktemp -d /tmp/ext4x-dkms-test.XXXXXX)
state_snapshot "$kver" >"$tmp/before"
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	if [ -n "$(dkms status -m ext4x -v "$version" 2>/dev/null)" ]; then
		echo "# cleanup: dkms remove ext4x/$version --all"
		dkms remove -m ext4x -v "$version" --all >/dev/null 2>&1
	fi
	state_restore_depmod "$kver" "$tmp/before"
	rm -rf "$src" "$tmp"
}
trap 'cleanup' EXIT
trap 'exit 130' INT TERM

xy=$(echo "$kver" | cut -d. -f1-2)
mkdir -p "$tmp/empty"

# As a developer installs from git: `dkms add .` in a clean checkout (the
# tracked files of this tree), which reads the top-level dkms.conf and copies
# the tree to $src. (The .deb's staged tree is test-deb.sh's and
# kernel-update.sh's when run alone.)
checkout=$tmp/checkout
mkdir -p "$checkout"
ktap_check "a clean checkout of this tree (git ls-files)" bash -c \
	"git -C '$top' ls-files -z | (cd '$top' && tar --null -T - -cf -) | tar -xf - -C '$checkout'"
ktap_check "dkms add . in the checkout: ext4x/$version registered, the tree in $src" bash -c \
	"cd '$checkout' && dkms add . >'$tmp/add.log' 2>&1 &&
	 dkms status -m ext4x -v '$version' | grep -q ': added' &&
	 [ -f '$src/dkms.conf' ] && [ -x '$src/packaging/dkms/pre-build.sh' ] || { cat '$tmp/add.log'; exit 1; }"

# dkms_build_fails DESC REGEX [ENV=VALUE...] KERNELVER: the build is refused and
# stderr shows the one line matching REGEX exactly once; dkms's own output follows.
dkms_refused() {
	local desc=$1 re=$2 k=${*: -1} rc n
	local envs=("${@:3:$#-3}")
	env ${envs[@]+"${envs[@]}"} dkms build -m ext4x -v "$version" -k "$k" \
		>"$tmp/out" 2>"$tmp/err" && rc=0 || rc=$?
	last_rc=$rc
	n=$(grep -cE "$re" "$tmp/err")
	if [ "$rc" -ne 0 ] && [ "$n" -eq 1 ]; then
		ktap_test_pass "$desc"
		ktap_print_msg "dkms build exit $rc, stderr:" "$(cat "$tmp/err")"
	else
		ktap_test_fail "$desc" "dkms build exit $rc, $n matching line(s) for: $re" \
			"stderr:" "$(cat "$tmp/err")" "stdout:" "$(tail -n 5 "$tmp/out")"
	fi
}

# the release as an ERE (6.12.117+deb12-amd64 has a '+')
kver_re=$(printf '%s' "$kver" | sed 's/[.+]/\\&/g')

# 1. the ext4 source of exactly this kernel is missing (EXT4X_SRCDIR: an empty
#    /usr/src stand-in; the environment reaches prepare.sh through dkms)
dkms_refused "missing source: one line naming the package to install and the dkms command" \
	"^ext4x: ext4x $version is not built for $kver_re: kernel source for $kver_re \\([0-9.]+(, Debian [^)]+)?\\) not found: apt-get install linux-source-$xy(=[^,]+)?, or set KSRC=/path/to/linux-[0-9.]+; then: dkms install -m ext4x -v $version -k $kver_re; until then .*\\(dkms status -m ext4x\\)\$" \
	EXT4X_SRCDIR="$tmp/empty" "$kver"
log=/var/lib/dkms/ext4x/$version/build/make.log
ktap_check "missing source: skipped before building (exit 77, no make.log)" \
	bash -c "[ '$last_rc' -eq 77 ] && [ ! -e '$log' ]"
ktap_check "missing source: nothing built or installed" bash -c \
	"dkms status -m ext4x -v '$version' | grep -q ': added\$' && ! find /lib/modules/'$kver' -name 'ext4x.ko*' | grep ."
# 2. no patch series for the kernel's X.Y (EXT4X_PATCHDIR: a series root with 9.9 only)
mkdir -p "$tmp/patches/9.9" && : >"$tmp/patches/9.9/series"
dkms_refused "no patch series: prepare.sh's refusal in one line" \
	"^ext4x: ext4x $version is not built for $kver_re: no patch series for kernel $xy \\(have: 9\\.9\\); then: " \
	EXT4X_PATCHDIR="$tmp/patches" "$kver"
# 3. a kernel outside BUILD_EXCLUSIVE_KERNEL: dkms skips it (exit 77) and says why
fake=6.999.0-1-amd64
dkms_refused "unsupported kernel $fake: BUILD_EXCLUSIVE skip with our one line" \
	"^ext4x: no patch series for kernel 6\\.999 \\(have: [0-9., ]+\\): ext4x $version is not built for $fake\$" "$fake"
ktap_check "unsupported kernel: exit 77 and dkms's BUILD_EXCLUSIVE message" bash -c \
	"dkms build -m ext4x -v '$version' -k '$fake' >/dev/null 2>'$tmp/err77'; [ \$? -eq 77 ] && grep -q 'BUILD_EXCLUSIVE directive which does not match this kernel' '$tmp/err77'"
ktap_check "unsupported kernel: nothing created for it" bash -c "[ ! -e /lib/modules/$fake ] && [ ! -e /var/lib/dkms/ext4x/$version/$fake ]"

# 4. the real build and install for KVER
t0=$(date +%s)
ktap_check "dkms build -m ext4x -v $version -k $kver" dkms build -m ext4x -v "$version" -k "$kver"
ktap_print_msg "dkms build took $(($(date +%s) - t0)) s"
ktap_check "dkms install -m ext4x -v $version -k $kver" dkms install -m ext4x -v "$version" -k "$kver"
dest=/lib/modules/$kver/updates/dkms
for m in percpu_stats mbcache2 ext4x; do
	ko=$(dkms_ko "$dest" "$m") || ko=$dest/$m.ko
	ktap_check "${ko##*/} installed in $dest, found by modinfo -k $kver" \
		bash -c "[ -f $ko ] && [ \"\$(modinfo -k $kver -n $m)\" = $ko ]"
	ktap_check "$m vermagic is $kver" bash -c "modinfo -k $kver -F vermagic $m | grep -q '^$kver SMP '"
	ktap_check "$m version is VERSION ($version), with a srcversion" bash -c \
		"[ \"\$(modinfo -k $kver -F version $m)\" = '$version' ] &&
		 [ -n \"\$(modinfo -k $kver -F srcversion $m)\" ]"
done
ktap_check "ext4x depends on mbcache2 and percpu_stats (modinfo, modules.dep)" bash -c \
	"modinfo -k $kver -F depends ext4x | tr , '\\n' | grep -qx mbcache2 &&
	 modinfo -k $kver -F depends ext4x | tr , '\\n' | grep -qx percpu_stats &&
	 grep -qE '^updates/dkms/ext4x\\.ko[.a-z]*:.*mbcache2\\.ko' /lib/modules/$kver/modules.dep"
if grep -q '^CONFIG_MODULE_SIG=y' "/lib/modules/$kver/build/.config" 2>/dev/null; then
	ktap_check "signed with dkms's MOK (/var/lib/dkms/mok.pub)" bash -c \
		"for m in percpu_stats mbcache2 ext4x; do [ \"\$(modinfo -k $kver -F signer \$m)\" = 'DKMS module signing key' ] || exit 1; done"
else
	ktap_test_skip "signed with dkms's MOK" "$kver has no CONFIG_MODULE_SIG"
fi
ktap_print_msg "$(dkms status -m ext4x)"

# 5. the DKMS-installed modules in the guest: depmod, modprobe ext4x, mount -o dax
if [ "${EXT4X_DKMS_NO_GUEST:-0}" = 1 ]; then
	ktap_test_skip "guest: dkms-modprobe with the DKMS-installed modules" "EXT4X_DKMS_NO_GUEST=1"
elif ! command -v qemu-system-x86_64 >/dev/null; then
	ktap_test_skip "guest: dkms-modprobe with the DKMS-installed modules" "no qemu-system-x86_64"
else
	mkdir -p "$tmp/ko"
	for m in percpu_stats mbcache2 ext4x; do
		dkms_ko_copy "$dest" "$m" "$tmp/ko" || echo "# $m: no module in $dest"
	done
	EXT4X_QUIET=1 "$top/tests/vm/run-guest.sh" --kver "$kver" --modules "$tmp/ko" \
		--tests dkms-modprobe --timeout 600 --results "$tmp/guest" >"$tmp/guest.log" 2>&1 && rc=0 || rc=$?
	total=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$tmp/guest.log" | tail -n 1)
	sed -n '/^==== summary/,$p' "$tmp/guest.log" | sed 's/^/# /'
	if [ "$rc" -eq 0 ] && [ -n "$total" ]; then
		ktap_test_pass "guest: dkms-modprobe with the DKMS-installed modules ($total)"
		# the refusal messages for the README
		grep -aE 'modprobe: ERROR|Lockdown:|is rejected' "$tmp/guest/serial.log" 2>/dev/null |
			sed 's/^[[:space:]]*#* *//; s/^\[ *[0-9.]*\] //' | sort -u | sed 's/^/# guest: /'
	else
		ktap_test_fail "guest: dkms-modprobe with the DKMS-installed modules" "run-guest.sh exit $rc: ${total:-no total}" \
			"$(tail -n 20 "$tmp/guest.log")" \
			"$(grep -aE '^ *(not ok|# )' "$tmp/guest/serial.log" 2>/dev/null | tail -n 40)"
	fi
fi

# 6. a kernel update ext4x cannot be built for leaves this install alone
# (one build fewer than kernel-update.sh installing ext4x itself)
if [ "${EXT4X_DKMS_NO_UPDATE:-0}" = 1 ]; then
	ktap_test_skip "kernel update" "EXT4X_DKMS_NO_UPDATE=1"
else
	EXT4X_KU_INSTALLED=1 "$top/tests/host/kernel-update.sh" "$kver" >"$tmp/update.ktap" 2>&1 && rc=0 || rc=$?
	ktap_relay "kernel update: " "kernel update (tests/host/kernel-update.sh)" required <"$tmp/update.ktap"
	[ "$rc" -eq 0 ] || grep -q '^not ok' "$tmp/update.ktap" ||
		ktap_test_fail "kernel update: kernel-update.sh exited $rc"
fi

# 7. remove: nothing of ours left
ktap_check "dkms remove -m ext4x -v $version --all" dkms remove -m ext4x -v "$version" --all
left=$(state_leftovers "$kver" "$tmp/before")
if [ -z "$left" ]; then
	ktap_test_pass "nothing left under /lib/modules/$kver or /var/lib/dkms"
else
	ktap_test_fail "nothing left under /lib/modules/$kver or /var/lib/dkms" "left:" "$left"
fi
ktap_finished
