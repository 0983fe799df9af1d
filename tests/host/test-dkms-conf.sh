#!/bin/bash
# packaging/dkms/conf-agrees.sh, the check that the top-level dkms.conf names
# VERSION's version and exactly the patch series dirs, on copies of the tree's
# files: it passes on them as they are, and fails, saying what to write, on a
# bumped VERSION, on a changelog entry of another version and on a new series
# dir. KTAP on stdout.
# kernel-independent: no kernel is built or read
# Usage: tests/host/test-dkms-conf.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# copy TOP DIR: the files the check reads
copy() {
	mkdir -p "$2/packaging/dkms" "$2/debian"
	cp "$1/VERSION" "$1/dkms.conf" "$2/"
	cp "$1/debian/changelog" "$2/debian/"
	cp "$1/packaging/dkms/conf-agrees.sh" "$2/packaging/dkms/"
	(cd "$1" && find ext4-backport/patches -name series -exec cp --parents -t "$2" {} +)
}
agrees() { "$1/packaging/dkms/conf-agrees.sh" "$1"; }

ktap_print_header
ktap_set_plan 4
copy "$top" "$tmp/same"
ktap_check "the tree's dkms.conf agrees" agrees "$tmp/same"

copy "$top" "$tmp/bumped"
echo 9.9.9 >"$tmp/bumped/VERSION"
if out=$(agrees "$tmp/bumped" 2>&1); then
	ktap_test_fail "a bumped VERSION is refused" "conf-agrees.sh passed"
elif grep -q 'write PACKAGE_VERSION="9.9.9"' <<<"$out"; then
	ktap_test_pass "a bumped VERSION is refused"
else
	ktap_test_fail "a bumped VERSION is refused" "$out"
fi

copy "$top" "$tmp/changelog"
sed -i '1s/(\([^)]*\))/(\1.1)/' "$tmp/changelog/debian/changelog"
if out=$(agrees "$tmp/changelog" 2>&1); then
	ktap_test_fail "a changelog entry of another version is refused" "conf-agrees.sh passed"
elif grep -q "debian/changelog's version is '.*\.1', VERSION says" <<<"$out"; then
	ktap_test_pass "a changelog entry of another version is refused"
else
	ktap_test_fail "a changelog entry of another version is refused" "$out"
fi

copy "$top" "$tmp/series"
mkdir -p "$tmp/series/ext4-backport/patches/6.999"
: >"$tmp/series/ext4-backport/patches/6.999/series"
if out=$(agrees "$tmp/series" 2>&1); then
	ktap_test_fail "a new series dir is refused until dkms.conf names it" "conf-agrees.sh passed"
elif grep -q 'BUILD_EXCLUSIVE_KERNEL=.*6\\\.999' <<<"$out" &&
	grep -q 'the series dirs say "(have: [^)]*6\.999[,)]' <<<"$out"; then
	ktap_test_pass "a new series dir is refused until dkms.conf names it"
else
	ktap_test_fail "a new series dir is refused until dkms.conf names it" "$out"
fi
ktap_finished
