#!/bin/bash
# The drop-in flavour (ext4-backport FLAVOUR=ext4): builds the patched ext4
# under its stock name with percpu_stats and mbcache2 in one Kbuild pass, in
# a private copy of the tree (so the suite's own build is untouched), then
# boots it in the guest in place of Debian's ext4.ko
# (tests/standalone/dropin-ext4.sh). Prints KTAP.
#
# Usage: test-dropin.sh [--suite]
#   --suite  the same guest then runs an outside test suite on Debian's
#            ext4.ko and on the drop-in, and wants the same outcomes
#            (tests/standalone/fs-suite.sh: stress-ng's filesystem class;
#            about 10 minutes of guest time; make check-fs-suite); its
#            serial log is kept as build/KVER/fs-suite.serial.log
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${KVER:-$("$top/scripts/kver.sh")}
tests=dropin-ext4 limit=400 log=()
if [ "${1:-}" = --suite ]; then
	# the suite's serial log is kept: it has every stressor's outcome
	tests=dropin-ext4,fs-suite limit=2400
	mkdir -p "$top/build/$kver"
	log=(--log "$top/build/$kver/fs-suite.serial.log")
elif [ $# -gt 0 ]; then
	echo "usage: test-dropin.sh [--suite]" >&2
	exit 2
fi
tmp=$(mktemp -d /tmp/ext4x-dropin.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"

ktap_print_header
ktap_set_plan 3
git -C "$top" ls-files -z | (cd "$top" && tar --null -T - -cf -) |
	tar -xf - -C "$tmp"
start=$(date +%s)
if make -C "$tmp" KVER="$kver" EXT4X_TESTS=0 EXT4X_FLAVOUR=ext4 modules \
	>"$tmp/build.log" 2>&1 &&
	[ -f "$tmp/ext4-backport/build/ext4/fs/ext4/ext4.ko" ] &&
	! grep -q "warning:" "$tmp/build.log"; then
	ktap_test_pass "FLAVOUR=ext4 builds ext4.ko with no warning ($(($(date +%s) - start)) s)"
else
	ktap_test_fail "FLAVOUR=ext4 builds ext4.ko with no warning" \
		"$(tail -n 30 "$tmp/build.log")"
	ktap_test_skip modinfo "no module"
	ktap_test_skip guest "no module"
	ktap_finished
	exit 1
fi

mods=$tmp/modules
mkdir -p "$mods"
sed 's/\.o$/.ko/' "$tmp/modules.order" | (cd "$tmp" && xargs cp -t "$mods")
/sbin/modinfo "$mods/ext4.ko" >"$tmp/modinfo" 2>&1
if grep -q "^name: *ext4$" "$tmp/modinfo" &&
	grep -q "^depends:.*mbcache2" "$tmp/modinfo" &&
	grep -q "^alias: *fs-ext4$" "$tmp/modinfo"; then
	ktap_test_pass "the drop-in is named ext4, aliased fs-ext4, depends on mbcache2"
else
	ktap_test_fail "the drop-in is named ext4, aliased fs-ext4, depends on mbcache2" \
		"$(tail -n 30 "$tmp/modinfo")"
fi

if EXT4X_QUIET=1 "$top/tests/vm/run-guest.sh" --kver "$kver" --modules "$mods" \
	--tests "$tests" --timeout "$limit" "${log[@]}" >"$tmp/guest.log" 2>&1; then
	ktap_test_pass "guest: $(tail -n 1 "$tmp/guest.log") in the drop-in guest"
else
	ktap_test_fail "guest: the drop-in ext4 mounts and works" \
		"$(tail -n 30 "$tmp/guest.log")"
fi
ktap_finished
