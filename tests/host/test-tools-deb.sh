#!/bin/bash
# The ext4x-tools .deb, KTAP on stdout: `make deb` builds it beside
# ext4x-dkms; it holds /usr/sbin/ext4x-compare, its manual page and the
# helpers compiled at package build time in /usr/libexec/ext4x, and depends
# on fio, e2fsprogs and util-linux. It is unpacked into a temporary root
# (dpkg -x: nothing is installed on this host) and run from there: --help
# exits 0, bad usage exits 2, the helpers run, the manual page renders, and
# lintian finds nothing with no override (when lintian is installed). Removes its temporary
# directory on exit.
# required-in-ci: a skip of the whole file fails make check under CI=true
# Usage: tests/host/test-tools-deb.sh
# kernel-independent
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/host/dkms-common.sh
. "$top/tests/host/dkms-common.sh"

ktap_print_header
command -v dpkg-buildpackage >/dev/null && command -v dh_dkms >/dev/null ||
	ktap_skip_all "debhelper or dh-dkms not installed (scripts/install-deps.sh)"
version=$(tr -d ' \n' <"$top/VERSION")
arch=$(dpkg --print-architecture)
tmp=$(mktemp -d /tmp/ext4x-tools-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

deb=$tmp/ext4x-tools_${version}_$arch.deb
ktap_check "make deb builds ext4x-tools_${version}_$arch.deb" \
	bash -c "make -s -C '$top' deb DEB_OUT='$tmp' >'$tmp/make.log' 2>&1 && [ -f '$deb' ]"

cat >"$tmp/want" <<EOF
./usr/libexec/ext4x/plot.sh
./usr/libexec/ext4x/statx-dax
./usr/libexec/ext4x/xattr-load
./usr/sbin/ext4x-compare
./usr/sbin/fsck.ext4x
./usr/sbin/mkfs.ext4x
./usr/share/doc/ext4x-tools/changelog.gz
./usr/share/doc/ext4x-tools/copyright
./usr/share/man/man8/ext4x-compare.8.gz
./usr/share/man/man8/fsck.ext4x.8.gz
./usr/share/man/man8/mkfs.ext4x.8.gz
EOF
dpkg-deb -c "$deb" 2>/dev/null | awk '$1 !~ /^d/ { print $6 }' | sort >"$tmp/have"
ktap_check "contents: the command, its helpers, mkfs and fsck, the manual pages" diff -u "$tmp/want" "$tmp/have"
ktap_check "the helpers are executables for $arch" bash -c \
	"dpkg-deb --fsys-tarfile '$deb' | tar -tvf - ./usr/libexec/ext4x/xattr-load ./usr/libexec/ext4x/statx-dax |
	 awk '\$1 !~ /^-rwxr-xr-x/ { exit 1 }'"

deps=$(dpkg-deb -f "$deb" Depends 2>/dev/null)
recs=$(dpkg-deb -f "$deb" Recommends 2>/dev/null)
ktap_print_msg "Depends: $deps" "Recommends: $recs"
ktap_check "Depends: fio, e2fsprogs, util-linux; Recommends: gnuplot-nox" bash -c \
	"for p in fio e2fsprogs util-linux; do grep -qE \"(^|, )\$p( |,|\\\$)\" <<<'$deps' || exit 1; done
	 grep -qE '(^|, )gnuplot-nox( |,|\$)' <<<'$recs'"

root=$tmp/root
dpkg -x "$deb" "$root"
tool=$root/usr/sbin/ext4x-compare
out=$("$tool" --help 2>&1)
rc=$?
if [ "$rc" = 0 ] && grep -q -- '--fio-jobfile' <<<"$out"; then
	ktap_test_pass "ext4x-compare --help exits 0"
else
	ktap_test_fail "ext4x-compare --help exits 0" "exit $rc: $out"
fi
out=$("$tool" --rounds 2>&1)
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <<<"$out")" -le 2 ] && grep -q "missing value for --rounds" <<<"$out"; then
	ktap_test_pass "bad usage exits 2 with a short message"
else
	ktap_test_fail "bad usage exits 2 with a short message" "exit $rc: $out"
fi
# statx-dax on a tmpfs file: no DAX there, exit 1 (or 2 where the kernel
# does not report the attribute); 3 would be a usage or statx error
: >"$tmp/plain"
"$root/usr/libexec/ext4x/statx-dax" "$tmp/plain" >/dev/null 2>&1
rc=$?
if [ "$rc" = 1 ] || [ "$rc" = 2 ]; then
	ktap_test_pass "statx-dax runs: a file under /tmp is not DAX (exit $rc)"
else
	ktap_test_fail "statx-dax runs: a file under /tmp is not DAX" "exit $rc"
fi
mkdir "$tmp/x"
# Skipped only where the file system of $tmp is seen to refuse user xattrs.
: >"$tmp/probe"
if ! python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.probe", b"1")' \
	"$tmp/probe" 2>"$tmp/probe.err"; then
	ktap_test_skip "xattr-load runs: sets up 3 files" \
		"no user xattrs under $tmp: $(tail -n 1 "$tmp/probe.err")"
elif "$root/usr/libexec/ext4x/xattr-load" -d "$tmp/x" -f 3 -s >"$tmp/xl.log" 2>&1 &&
	[ "$(find "$tmp/x" -type f | wc -l)" = 3 ]; then
	ktap_test_pass "xattr-load runs: sets up 3 files"
else
	ktap_test_fail "xattr-load runs: sets up 3 files" "$(cat "$tmp/xl.log")"
fi
# --report of the unpacked command finds plot.sh in ../libexec/ext4x
rep=$tmp/report
mkdir -p "$rep"
cp "$top/tools/ext4x-compare/fixtures/demo/runs.tsv" "$top/tools/ext4x-compare/fixtures/demo/meta.json" "$rep/"
if ! command -v gnuplot >/dev/null; then
	ktap_test_skip "the installed command draws the chart with its plot.sh" "no gnuplot"
elif out=$("$tool" --report "$rep" 2>&1) && [ -s "$rep/results.png" ]; then
	ktap_test_pass "the installed command draws the chart with its plot.sh"
else
	ktap_test_fail "the installed command draws the chart with its plot.sh" "$out"
fi

# mkfs.ext4x and fsck.ext4x on an image file (e2fsprogs only, no kernel):
# an ext4 as mkfs.ext4 makes it, clean; a broken superblock is reported
img=$tmp/fs.img
truncate -s 64M "$img"
if out=$("$root/usr/sbin/mkfs.ext4x" -q -F "$img" 2>&1) &&
	feat=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Filesystem features: *//p') &&
	grep -qw extent <<<"$feat" && grep -qw has_journal <<<"$feat"; then
	ktap_test_pass "mkfs.ext4x makes an ext4 (extent, has_journal), as mkfs.ext4 does"
else
	ktap_test_fail "mkfs.ext4x makes an ext4 (extent, has_journal), as mkfs.ext4 does" \
		"$out" "features: ${feat:-}"
fi
ktap_check "fsck.ext4x -fn: the new file system is clean (exit 0)" \
	"$root/usr/sbin/fsck.ext4x" -fn "$img"
# the primary superblock's magic (bytes 1080-1081) zeroed
printf '\0\0' | dd of="$img" bs=1 seek=1080 conv=notrunc status=none
"$root/usr/sbin/fsck.ext4x" -fn "$img" >"$tmp/fsck.log" 2>&1
rc=$?
if [ "$rc" -ge 4 ]; then
	ktap_test_pass "fsck.ext4x -fn reports a broken superblock (exit $rc)"
else
	ktap_test_fail "fsck.ext4x -fn reports a broken superblock" "exit $rc" "$(tail -n 5 "$tmp/fsck.log")"
fi
# systemd's fstab generator gives an ext4x entry its fsck unit only when it
# finds fsck.ext4x (PATH: the package's /usr/sbin first); without it, none
gen=/lib/systemd/system-generators/systemd-fstab-generator
fsck_unit() {
	rm -rf "$tmp/gen" && mkdir -p "$tmp/gen" &&
		env PATH="$1" SYSTEMD_FSTAB="$tmp/fstab" SYSTEMD_PROC_CMDLINE="" \
			SYSTEMD_LOG_LEVEL=warning "$gen" "$tmp/gen" "$tmp/gen" "$tmp/gen" >/dev/null 2>&1 &&
		grep -qxF 'Requires=systemd-fsck@dev-pmem0.service' "$tmp/gen/mnt-pmem.mount"
}
printf '/dev/pmem0 /mnt/pmem ext4x dax,nofail,x-systemd.device-timeout=30s 0 2\n' >"$tmp/fstab"
if [ ! -x "$gen" ]; then
	ktap_test_skip "systemd's fstab generator checks an ext4x entry with fsck.ext4x" "no $gen"
elif fsck_unit "$root/usr/sbin:/usr/sbin:/usr/bin:/sbin:/bin" &&
	! fsck_unit "/usr/sbin:/usr/bin:/sbin:/bin"; then
	ktap_test_pass "systemd's fstab generator checks an ext4x entry with fsck.ext4x (and not without it)"
else
	ktap_test_fail "systemd's fstab generator checks an ext4x entry with fsck.ext4x (and not without it)" \
		"$(cat "$tmp/gen/mnt-pmem.mount" 2>/dev/null)"
fi

for page in fsck.ext4x mkfs.ext4x; do
	ktap_check "$page(8) renders, and groff finds nothing to warn about" bash -c \
		"[ -z \"\$(zcat '$root/usr/share/man/man8/$page.8.gz' | groff -man -ww -z 2>&1)\" ] &&
		 MANWIDTH=80 man -l '$root/usr/share/man/man8/$page.8.gz' 2>/dev/null | grep -q '^SYNOPSIS'"
done

man=$root/usr/share/man/man8/ext4x-compare.8.gz
out=$(MANWIDTH=80 man -l "$man" 2>&1 >"$tmp/man.txt")
if [ -z "$out" ] && grep -q '^NAME' "$tmp/man.txt" && grep -q -- '--diff DIR1 DIR2' "$tmp/man.txt"; then
	ktap_test_pass "man -l renders ext4x-compare(8) without warnings"
else
	ktap_test_fail "man -l renders ext4x-compare(8) without warnings" "$out" "$(head -n 5 "$tmp/man.txt")"
fi
ktap_check "groff finds nothing to warn about in the page" bash -c \
	"[ -z \"\$(zcat '$man' | groff -man -ww -z 2>&1)\" ]"

# no override file (the contents above have none), and none read from anywhere else
lintian_clean "$deb" "$tmp/lintian.log"
ktap_finished
