#!/bin/bash
# Host-side tests of ext4-backport/prepare.sh and rename.sh; prints KTAP.
# Works only in a private temporary directory (fake headers, fake /usr/src, fake
# kernel trees and patch series, OUT); nothing outside it is changed or deleted.
# The last tests use the real headers and linux-source tarball of each kernel in
# KVER_REAL (default: the kernels of this make check, EXT4X_KVERS, else those
# scripts/kver.sh --supported chooses) when present (else SKIP).
# kernel-independent: the same cases whichever kernel make check is at
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prepare=$here/prepare.sh
T=$(mktemp -d /tmp/ext4x-test-prepare.XXXXXX)
trap 'rm -rf "$T"' EXIT

# shellcheck source=tests/lib/ktap.sh
. "$here/../tests/lib/ktap.sh"

# shellcheck source=ext4-backport/tests/lib.sh
. "$here/tests/lib.sh"

# expect NAME RC EXACT-STDERR [OUTDIR]: checks rc, that stderr is exactly one line equal
# to EXACT-STDERR (or matching it as an ERE if it starts with ^), and that OUTDIR still
# holds only its marker file
expect() {
	local name=$1 want_rc=$2 want=$3 outdir=${4:-} why=""
	[ "$rc" -eq "$want_rc" ] || why+="rc $rc, want $want_rc; "
	if [ "${want:0:1}" = "^" ]; then
		echo "$err" | tail -n1 | grep -qE -- "$want" || why+="stderr does not match; "
	else
		[ "$err" = "$want" ] || why+="stderr differs; "
	fi
	if [ -n "$outdir" ]; then
		[ "$(ls -A "$outdir")" = marker ] && [ "$(cat "$outdir/marker")" = untouched ] ||
			why+="OUT was touched; "
	fi
	if [ -z "$why" ]; then
		ktap_test_pass "$name"
	else
		ktap_test_fail "$name" "$why" "want: $want" "got:  $err"
	fi
}

# a fresh OUT holding one marker file
mkout() { rm -rf "$1"; mkdir -p "$1"; echo untouched >"$1/marker"; }

# fake headers: kernelversion, auto.conf, utsrelease.h
mkheaders() { # DIR VERSION RELEASE
	mkdir -p "$1/include/config" "$1/include/generated"
	printf 'kernelversion:\n\t@echo %s\n' "$2" >"$1/Makefile"
	printf 'CONFIG_EXT4_FS=m\nCONFIG_EXT4_FS_POSIX_ACL=y\nCONFIG_EXT4_FS_SECURITY=y\n' >"$1/include/config/auto.conf"
	printf '#define UTS_RELEASE "%s"\n' "$3" >"$1/include/generated/utsrelease.h"
}
kmakefile() { # VERSION PATCHLEVEL SUBLEVEL
	printf '# SPDX-License-Identifier: GPL-2.0\nVERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = %s\nEXTRAVERSION =\nNAME = Fake\n' "$@"
}
# fake kernel tree: Makefile + a tiny fs/ext4 + trace header
mktree() { # DIR SUBLEVEL
	mkdir -p "$1/fs/ext4" "$1/include/trace/events"
	kmakefile 6 1 "$2" >"$1/Makefile"
	printf 'line one\nline two\nline three\n' >"$1/fs/ext4/xattr.c"
	printf 'obj-$(CONFIG_EXT4_FS) += ext4.o\next4-y := xattr.o\n' >"$1/fs/ext4/Makefile"
	printf '#define TRACE_SYSTEM ext4\n' >"$1/include/trace/events/ext4.h"
}
# fake linux-source-6.1.tar.xz in DIR whose Makefile has SUBLEVEL
mktarball() { # DIR SUBLEVEL
	mktree "$T/tarroot/linux-source-6.1" "$2"
	mkdir -p "$1"
	tar -cJf "$1/linux-source-6.1.tar.xz" -C "$T/tarroot" linux-source-6.1
	rm -rf "$T/tarroot"
}

KV=6.1.0-57-amd64
mkheaders "$T/headers" 6.1.192 "$KV"
mkheaders "$T/headers-6.99" 6.99.0 6.99.0-1-amd64
fakehdr=("KVER=$KV" "EXT4X_KBUILD=$T/headers" EXT4X_HEADERS_DEBVER=6.1.192-3)

# the real kernels: 6 tests each
read -r -a real_kvers <<<"${KVER_REAL:-${EXT4X_KVERS:-$("$here/../scripts/kver.sh" --supported | paste -sd' ')}}"

ktap_print_header
ktap_set_plan $((10 + 6 * ${#real_kvers[@]}))

# 1: no source at all
mkdir -p "$T/empty-usr-src"; mkout "$T/out1"
run "${fakehdr[@]}" EXT4X_SRCDIR="$T/empty-usr-src" OUT="$T/out1" --
expect "missing linux-source tarball is refused with exit 2, OUT untouched" 2 \
	"ext4x: kernel source for $KV (6.1.192, Debian 6.1.192-3) not found: apt-get install linux-source-6.1=6.1.192-3, or set KSRC=/path/to/linux-6.1.192" \
	"$T/out1"

# 2: tarball of another SUBLEVEL
mktarball "$T/src-190" 190; mkout "$T/out2"
run "${fakehdr[@]}" EXT4X_SRCDIR="$T/src-190" EXT4X_SOURCE_DEBVER=6.1.190-1 OUT="$T/out2" --
expect "tarball of another version (6.1.190) is refused" 2 \
	"ext4x: $T/src-190/linux-source-6.1.tar.xz is 6.1.190 (Debian 6.1.190-1) but the target kernel $KV is 6.1.192 (Debian 6.1.192-3): install linux-source-6.1=6.1.192-3 or set KSRC=/path/to/linux-6.1.192" \
	"$T/out2"

# 3: same upstream version, other Debian revision
mktarball "$T/src-192" 192; mkout "$T/out3"
run "${fakehdr[@]}" EXT4X_SRCDIR="$T/src-192" EXT4X_SOURCE_DEBVER=6.1.192-2 OUT="$T/out3" --
expect "tarball of another Debian revision (6.1.192-2) is refused" 2 \
	"ext4x: $T/src-192/linux-source-6.1.tar.xz is 6.1.192 (Debian 6.1.192-2) but the target kernel $KV is 6.1.192 (Debian 6.1.192-3): install linux-source-6.1=6.1.192-3 or set KSRC=/path/to/linux-6.1.192" \
	"$T/out3"

# 4: right version but no package owns the tarball: Debian revision unknown
mkout "$T/out4"
run "${fakehdr[@]}" EXT4X_SRCDIR="$T/src-192" OUT="$T/out4" --
expect "tarball owned by no Debian package is refused" 2 \
	"ext4x: $T/src-192/linux-source-6.1.tar.xz is 6.1.192 but belongs to no Debian package, so it cannot be checked against $KV (Debian 6.1.192-3): install linux-source-6.1=6.1.192-3 or set KSRC=/path/to/linux-6.1.192" \
	"$T/out4"

# 5: KSRC of another version
mktree "$T/ksrc-190" 190; mkout "$T/out5"
run "${fakehdr[@]}" KSRC="$T/ksrc-190" OUT="$T/out5" --
expect "KSRC tree of another version is refused" 2 \
	"ext4x: KSRC=$T/ksrc-190 is 6.1.190 but the target kernel $KV is 6.1.192 (Debian 6.1.192-3): point KSRC at a 6.1.192 tree" \
	"$T/out5"

# 6: kernel with no patch series
mkout "$T/out6"
run KVER=6.99.0-1-amd64 EXT4X_KBUILD="$T/headers-6.99" EXT4X_HEADERS_DEBVER= \
	EXT4X_SRCDIR="$T/empty-usr-src" OUT="$T/out6" --
have=$(cd "$here/patches" && ls -d */series | sed 's,/series$,,' | sort -V | paste -sd, | sed 's/,/, /g')
expect "kernel 6.99 without a patch series is refused" 2 \
	"ext4x: no patch series for kernel 6.99 (have: $have)" "$T/out6"

# 6b: a patch root with no series at all still gets its one line
mkout "$T/out6b"
mkdir -p "$T/no-series"
run KVER="$KV" EXT4X_PATCHDIR="$T/no-series" OUT="$T/out6b" --
expect "a patch root without any series is refused with its message" 2 \
	"ext4x: no patch series for kernel 6.1 (have: none)" "$T/out6b"

# 7: a patch that does not apply is named; the good one before it applied
mktree "$T/ksrc-192" 192
mkdir -p "$T/patches/6.1"
cat >"$T/patches/6.1/0001-good.patch" <<'EOF'
--- a/fs/ext4/xattr.c
+++ b/fs/ext4/xattr.c
@@ -1,3 +1,3 @@
 line one
-line two
+line 2
 line three
EOF
cat >"$T/patches/6.1/0002-bad.patch" <<'EOF'
--- a/fs/ext4/xattr.c
+++ b/fs/ext4/xattr.c
@@ -1,3 +1,3 @@
 line one
-line zwei
+line deux
 line three
EOF
printf '# test series\n0001-good.patch\n\n0002-bad.patch  # comment\n' >"$T/patches/6.1/series"
mkout "$T/out7"
run "${fakehdr[@]}" KSRC="$T/ksrc-192" EXT4X_PATCHDIR="$T/patches" OUT="$T/out7" --
expect "a patch that does not apply stops prepare and is named" 1 \
	"ext4x: patch 6.1/0002-bad.patch (#2 in $T/patches/6.1/series) does not apply to KSRC=$T/ksrc-192 (6.1.192)" \
	"$T/out7"

# 8: series naming a missing file
printf '0001-good.patch\n0003-missing.patch\n' >"$T/patches/6.1/series"
mkout "$T/out8"
run "${fakehdr[@]}" KSRC="$T/ksrc-192" EXT4X_PATCHDIR="$T/patches" OUT="$T/out8" --
expect "a series entry without its patch file is refused" 2 \
	"ext4x: $T/patches/6.1/series: patch 6.1/0003-missing.patch not found" "$T/out8"

# 9: bad FLAVOUR
mkout "$T/out9"
run "${fakehdr[@]}" FLAVOUR=ext5 OUT="$T/out9" --
expect "FLAVOUR other than ext4x/ext4 is refused" 2 \
	"ext4x: FLAVOUR=ext5: must be ext4x or ext4" "$T/out9"

# 10-: the real thing, for each kernel whose headers and source this host has
for rkver in "${real_kvers[@]}"; do
	rxy=$(env -u MAKEFLAGS -u MAKELEVEL make -s --no-print-directory \
		-C "/lib/modules/$rkver/build" kernelversion 2>/dev/null | cut -d. -f1,2)
	if [ -z "$rxy" ] || [ ! -f "/usr/src/linux-source-$rxy.tar.xz" ]; then
		for t in "real prepare" "second prepare is a no-op" "changed series re-prepares" \
			"slab cache names" "rename.sh --check" "unlisted inode_dio_wait"; do
			ktap_test_skip "$t ($rkver)" "no /lib/modules/$rkver/build or /usr/src/linux-source-${rxy:-X.Y}.tar.xz"
		done
		continue
	fi
	R=$T/real-$rxy
	mkout "$R"
	nseries=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/patches/$rxy/series" | grep -c .)
	t0=$(date +%s)
	run KVER="$rkver" OUT="$R/out" --
	t1=$(date +%s)
	kb=$R/out/fs/ext4/Kbuild
	if [ "$rc" -eq 0 ] && [ -f "$R/out/.ext4x-stamp" ] &&
		grep -q '^obj-$(CONFIG_EXT4X_FS) += ext4x.o' "$kb" &&
		grep -q '^ext4x-y' "$kb" && grep -q 'ext4x_jbd2.o' "$kb" &&
		grep -q '^ccflags-y += -DCONFIG_EXT4X_FS_POSIX_ACL=1' "$kb" &&
		! grep -v '^#' "$kb" | grep -q 'CONFIG_EXT4_' && [ -f "$R/out/include/trace/events/ext4x.h" ]; then
		ktap_test_pass "real prepare ($rkver, $nseries patch(es) of the $rxy series) produces a renamed tree and Kbuild in $((t1 - t0)) s"
	else
		ktap_test_fail "real prepare ($rkver) produces a renamed tree and Kbuild" \
			"rc $rc" "$out" "$err"
	fi

	touch "$R/out/fs/ext4/built.o"
	run KVER="$rkver" OUT="$R/out" --
	if [ "$rc" -eq 0 ] && grep -q 'is up to date' <<<"$out" && [ -f "$R/out/fs/ext4/built.o" ]; then
		ktap_test_pass "second prepare is a no-op ($rkver: stamp current, build products kept)"
	else
		ktap_test_fail "second prepare is a no-op ($rkver)" "$out" "$err"
	fi

	# a changed series (an added comment) re-prepares and replaces OUT
	cp -a "$here/patches" "$R/patches"
	echo "# changed" >>"$R/patches/$rxy/series"
	run KVER="$rkver" OUT="$R/out" EXT4X_PATCHDIR="$R/patches" --
	if [ "$rc" -eq 0 ] && grep -q 'prepared' <<<"$out" && [ ! -e "$R/out/fs/ext4/built.o" ] &&
		[ -z "$(find "$R" -mindepth 1 -maxdepth 1 ! -name out ! -name patches \
			! -name marker ! -name .prepare.lock)" ]; then
		ktap_test_pass "a changed $rxy series re-prepares and replaces OUT, leaving no temporary dirs"
	else
		ktap_test_fail "a changed $rxy series re-prepares and replaces OUT" "$out" "$err" \
			"$(ls -A "$R")"
	fi

	# every slab cache is named ext4x_*, including the ones 6.12 creates with
	# KMEM_CACHE() of a struct without ext4 in its name (rename.sh spells them out)
	slabs=$(cd "$R/out/fs/ext4" && {
		grep -hoE 'kmem_cache_create(_usercopy)?\("[^"]*"' ./*.c | sed 's/.*("//; s/"$//'
		grep -hoE 'KMEM_CACHE(_USERCOPY)?\([A-Za-z0-9_]+' ./*.c | sed 's/.*(//'
	} | sort -u)
	missing=""
	for w in ext4x_inode_cache ext4x_extent_status ext4x_pending_reservation \
		ext4x_bio_post_read_ctx ext4x_prealloc_space ext4x_io_end; do
		# (a here-string: "echo | grep -q" can die of SIGPIPE under pipefail)
		grep -qx "$w" <<<"$slabs" || missing+=" $w"
	done
	if [ -z "$missing" ] && ! grep -qv '^ext4x_' <<<"$slabs"; then
		ktap_test_pass "$rkver: all $(echo "$slabs" | grep -c .) literal slab cache names are ext4x_*"
	else
		ktap_test_fail "$rkver: slab cache names are ext4x_*" "missing:${missing:- none}" \
			"names: $(echo "$slabs" | paste -sd' ')"
	fi

	# the rename check catches a leftover clashing name
	cp -a "$R/out" "$R/bad"
	rm -f "$R/bad/fs/ext4/Kbuild"
	echo 'static const char *leak = "ext4_inode_cache";' >>"$R/bad/fs/ext4/super.c"
	if "$here/rename.sh" --check "$R/bad" >"$T/stdout" 2>"$T/stderr"; then
		ktap_test_fail "rename.sh --check fails on a leftover \"ext4_inode_cache\" ($rkver)"
	elif grep -q 'ext4_inode_cache' "$T/stderr" && "$here/rename.sh" --check "$R/out" >/dev/null 2>&1; then
		ktap_test_pass "rename.sh --check fails on a leftover \"ext4_inode_cache\" and passes the real $rxy tree"
	else
		ktap_test_fail "rename.sh --check names the leftover ($rkver)" "$(cat "$T/stderr")"
	fi
	# a plain inode_dio_wait() the series does not list (here: a listed one taken off
	# the list) stops the build, and the function is named
	if [ -f "$R/patches/$rxy/kept-dio-waits" ]; then
		sed -i '/^ext4_buffered_write_iter /d' "$R/patches/$rxy/kept-dio-waits"
		run KVER="$rkver" EXT4X_PATCHDIR="$R/patches" -- --check
		if [ "$rc" -eq 1 ] && grep -q 'inode_dio_wait() in ext4_buffered_write_iter file.c' <<<"$out" &&
			grep -q 'drains direct I/O where the .* series does not know it' <<<"$err"; then
			ktap_test_pass "$rkver: an inode_dio_wait() kept-dio-waits does not list stops the build and is named"
		else
			ktap_test_fail "$rkver: an unlisted inode_dio_wait() stops the build" "rc $rc" "$out" "$err"
		fi
	else
		ktap_test_skip "$rkver: unlisted inode_dio_wait" "the $rxy series keeps DAX reads under i_rwsem"
	fi
	rm -rf "$R"
done

ktap_finished
