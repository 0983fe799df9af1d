#!/bin/bash
# Host-side tests of prepare.sh's per-version overrides (patches/X.Y/<version>/)
# and of prepare.sh --check; prints KTAP. Like test-prepare.sh, everything happens
# in a private temporary directory (fake headers, fake kernel trees, patch roots,
# OUT); FLAVOUR=ext4 keeps the rename out of it (the same series logic runs for both).
# kernel-independent: fake headers and trees only
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prepare=$here/prepare.sh
T=$(mktemp -d /tmp/ext4x-test-override.XXXXXX)
trap 'rm -rf "$T"' EXIT

# shellcheck source=tests/lib/ktap.sh
. "$here/../tests/lib/ktap.sh"

# shellcheck source=ext4-backport/tests/lib.sh
. "$here/tests/lib.sh"
# prepare.sh's temporary files: a case checks --check leaves none behind
RUN_TMPDIR=$T/tmpdir
# result NAME COND...: ok when rc/out/err meet COND (a bash test expression, eval'd)
result() {
	local name=$1
	shift
	if eval "$*"; then
		ktap_test_pass "$name"
	else
		ktap_test_fail "$name" "condition: $*" "rc $rc" "stdout:" "$out" "stderr:" "$err"
	fi
}
mkout() { rm -rf "$1"; mkdir -p "$1"; echo untouched >"$1/marker"; }
untouched() { [ "$(ls -A "$1")" = marker ] && [ "$(cat "$1/marker")" = untouched ]; }

# fake headers of 6.1.0-57-amd64 = 6.1.192
mkdir -p "$T/headers/include/config" "$T/headers/include/generated" "$T/tmpdir"
printf 'kernelversion:\n\t@echo 6.1.192\n' >"$T/headers/Makefile"
printf 'CONFIG_EXT4_FS=m\n' >"$T/headers/include/config/auto.conf"
printf '#define UTS_RELEASE "6.1.0-57-amd64"\n' >"$T/headers/include/generated/utsrelease.h"
# tree DIR LINE7: a 6.1.192 tree whose fs/ext4/xattr.c has LINE7 as its 7th line
tree() {
	mkdir -p "$1/fs/ext4" "$1/include/trace/events"
	printf 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 192\nEXTRAVERSION =\n' >"$1/Makefile"
	printf '%s\n' one two three four five six "$2" eight >"$1/fs/ext4/xattr.c"
	printf 'obj-$(CONFIG_EXT4_FS) += ext4.o\next4-y := xattr.o\n' >"$1/fs/ext4/Makefile"
	printf '#define TRACE_SYSTEM ext4\n' >"$1/include/trace/events/ext4.h"
}
tree "$T/src-old" seven      # the release the series was written for
tree "$T/src-new" SEVEN      # a point release that changed the line patch #2 removes
# hunk FROM TO LINE: a patch of xattr.c replacing line LINE's FROM by TO
hunk() {
	local n=$3 s=$(($3 - 1)) before after
	before=$(sed -n "$((n - 1))p" "$T/src-old/fs/ext4/xattr.c")
	after=$(sed -n "$((n + 1))p" "$T/src-old/fs/ext4/xattr.c")
	printf -- '--- a/fs/ext4/xattr.c\n+++ b/fs/ext4/xattr.c\n@@ -%s,3 +%s,3 @@\n %s\n-%s\n+%s\n %s\n' \
		"$s" "$s" "$before" "$1" "$2" "$after"
}
# the 6.1 series: #1 turns two into 2, #2 seven into 7
mkdir -p "$T/base/6.1"
hunk two 2 2 >"$T/base/6.1/0001-a.patch"
hunk seven 7 7 >"$T/base/6.1/0002-b.patch"
printf '# test series\n0001-a.patch\n0002-b.patch\n' >"$T/base/6.1/series"
# root NAME: a fresh copy of the base patch root
root() { rm -rf "${T:?}/${1:?}"; cp -a "$T/base" "$T/$1"; }

common=(KVER=6.1.0-57-amd64 "EXT4X_KBUILD=$T/headers" EXT4X_HEADERS_DEBVER=6.1.192-3 FLAVOUR=ext4)
line7() { sed -n 7p "$1/fs/ext4/xattr.c"; }

ktap_print_header
ktap_set_plan 15

# 1-2: the series as it is
root r1
run "${common[@]}" KSRC="$T/src-old" EXT4X_PATCHDIR="$T/r1" OUT="$T/o1" --
result "the series applies to the release it was written for" \
	'[ "$rc" -eq 0 ] && [ "$(line7 "$T/o1")" = 7 ] && ! grep -q "per-version override" <<<"$out"'
mkout "$T/o2"
run "${common[@]}" KSRC="$T/src-new" EXT4X_PATCHDIR="$T/r1" OUT="$T/o2" --
result "on the point release, patch #2 does not apply and is named; OUT untouched" \
	'[ "$rc" -eq 1 ] && [ "$err" = "ext4x: patch 6.1/0002-b.patch (#2 in $T/r1/6.1/series) does not apply to KSRC=$T/src-new (6.1.192)" ] && untouched "$T/o2"'

# 3: an override for the upstream version replaces patch #2
root r3
mkdir -p "$T/r3/6.1/6.1.192"
hunk SEVEN 7 7 >"$T/r3/6.1/6.1.192/0002-b.patch"
run "${common[@]}" KSRC="$T/src-new" EXT4X_PATCHDIR="$T/r3" OUT="$T/o3" --
result "override 6.1/6.1.192/0002-b.patch replaces #2 for 6.1.192; #1 still from the series" \
	'[ "$rc" -eq 0 ] && [ "$(line7 "$T/o3")" = 7 ] && [ "$(sed -n 2p "$T/o3/fs/ext4/xattr.c")" = 2 ] &&
	 grep -qxF "ext4x: per-version override $T/r3/6.1/6.1.192" <<<"$out"'

# 4-5: the Debian version's override wins over the upstream version's
mkdir -p "$T/r3/6.1/6.1.192-3"
hunk SEVEN 7deb 7 >"$T/r3/6.1/6.1.192-3/0002-b.patch"
run "${common[@]}" KSRC="$T/src-new" EXT4X_PATCHDIR="$T/r3" OUT="$T/o4" --
result "override 6.1/6.1.192-3/ (Debian version) wins over 6.1/6.1.192/" \
	'[ "$rc" -eq 0 ] && [ "$(line7 "$T/o4")" = 7deb ] && grep -qF "override $T/r3/6.1/6.1.192-3" <<<"$out"'
run KVER=6.1.0-57-amd64 "EXT4X_KBUILD=$T/headers" EXT4X_HEADERS_DEBVER=6.1.192-2 FLAVOUR=ext4 \
	KSRC="$T/src-new" EXT4X_PATCHDIR="$T/r3" OUT="$T/o5" --
result "another Debian revision (6.1.192-2) gets the upstream version's override" \
	'[ "$rc" -eq 0 ] && [ "$(line7 "$T/o5")" = 7 ]'

# 6: an override for another version is not used
root r6
mkdir -p "$T/r6/6.1/6.1.190"
hunk SEVEN 7 7 >"$T/r6/6.1/6.1.190/0002-b.patch"
mkout "$T/o6"
run "${common[@]}" KSRC="$T/src-new" EXT4X_PATCHDIR="$T/r6" OUT="$T/o6" --
result "an override for another version (6.1.190) is not used" \
	'[ "$rc" -eq 1 ] && grep -q "patch 6.1/0002-b.patch (#2 in" <<<"$err" && untouched "$T/o6"'

# 7: an override with its own series (drops #2, adds one of its own)
root r7
mkdir -p "$T/r7/6.1/6.1.192"
hunk four 4 4 >"$T/r7/6.1/6.1.192/0003-c.patch"
printf '0001-a.patch\n0003-c.patch\n' >"$T/r7/6.1/6.1.192/series"
echo "why this override exists" >"$T/r7/6.1/6.1.192/README"
run "${common[@]}" KSRC="$T/src-new" EXT4X_PATCHDIR="$T/r7" OUT="$T/o7" --
result "an override's own series replaces the series (README beside it is fine)" \
	'[ "$rc" -eq 0 ] && [ "$(line7 "$T/o7")" = SEVEN ] && [ "$(sed -n 4p "$T/o7/fs/ext4/xattr.c")" = 4 ] &&
	 grep -qF "applied 2 patch(es) from $T/r7/6.1/6.1.192/series" <<<"$out"'

# 8: an override file that replaces nothing is refused
root r8
mkdir -p "$T/r8/6.1/6.1.192"
hunk SEVEN 7 7 >"$T/r8/6.1/6.1.192/0002-B.patch"
mkout "$T/o8"
run "${common[@]}" KSRC="$T/src-new" EXT4X_PATCHDIR="$T/r8" OUT="$T/o8" --
result "an override file named after no series entry (a typo) is refused, OUT untouched" \
	'[ "$rc" -eq 2 ] && [ "$err" = "ext4x: $T/r8/6.1/6.1.192/0002-B.patch replaces no entry of $T/r8/6.1/series: an override file must have the name of the series entry it replaces" ] && untouched "$T/o8"'

# 9: an override series naming a file that is nowhere
root r9
mkdir -p "$T/r9/6.1/6.1.192"
printf '0001-a.patch\n0009-gone.patch\n' >"$T/r9/6.1/6.1.192/series"
run "${common[@]}" KSRC="$T/src-new" EXT4X_PATCHDIR="$T/r9" OUT="$T/o9" --
result "an override series entry found nowhere is refused" \
	'[ "$rc" -eq 2 ] && [ "$err" = "ext4x: $T/r9/6.1/6.1.192/series: patch 6.1/0009-gone.patch not found (nor in 6.1/6.1.192/)" ]'

# 10: a failing override patch is named by its path
root r10
mkdir -p "$T/r10/6.1/6.1.192"
hunk seventy 7 7 >"$T/r10/6.1/6.1.192/0002-b.patch"
run "${common[@]}" KSRC="$T/src-new" EXT4X_PATCHDIR="$T/r10" OUT="$T/o10" --
result "an override patch that does not apply is named with its directory" \
	'[ "$rc" -eq 1 ] && [ "$err" = "ext4x: patch 6.1/6.1.192/0002-b.patch (#2 in $T/r10/6.1/series) does not apply to KSRC=$T/src-new (6.1.192)" ]'

# 11: adding an override changes the stamp: prepared again, not "up to date"
root r11
run "${common[@]}" KSRC="$T/src-old" EXT4X_PATCHDIR="$T/r11" OUT="$T/o11" --
mkdir -p "$T/r11/6.1/6.1.192"
hunk seven 7b 7 >"$T/r11/6.1/6.1.192/0002-b.patch"
run "${common[@]}" KSRC="$T/src-old" EXT4X_PATCHDIR="$T/r11" OUT="$T/o11" --
result "a new override re-prepares (the stamp covers the override's files)" \
	'[ "$rc" -eq 0 ] && ! grep -q "up to date" <<<"$out" && [ "$(line7 "$T/o11")" = 7b ]'

# 12-15: --check
mkout "$T/o12"
run "${common[@]}" KSRC="$T/src-new" EXT4X_PATCHDIR="$T/r3" OUT="$T/o12" -- --check
result "--check: yes (exit 0) when it would prepare, OUT not touched" \
	'[ "$rc" -eq 0 ] && grep -q "^ext4x: ext4 can be prepared for 6.1.0-57-amd64 from KSRC=$T/src-new (6.1.192) (checked, nothing kept)$" <<<"$out" && untouched "$T/o12"'
run "${common[@]}" KSRC="$T/src-new" EXT4X_PATCHDIR="$T/r1" OUT="$T/o12" -- --check
result "--check: the failing patch, exit 1, the same line as a prepare" \
	'[ "$rc" -eq 1 ] && [ "$err" = "ext4x: patch 6.1/0002-b.patch (#2 in $T/r1/6.1/series) does not apply to KSRC=$T/src-new (6.1.192)" ] && untouched "$T/o12"'
run "${common[@]}" EXT4X_SRCDIR="$T/nowhere" EXT4X_PATCHDIR="$T/r1" -- --check
result "--check: a refusal, exit 2" \
	'[ "$rc" -eq 2 ] && grep -q "^ext4x: kernel source for 6.1.0-57-amd64 (6.1.192, Debian 6.1.192-3) not found" <<<"$err"'
result "--check leaves nothing in TMPDIR" '[ -z "$(ls -A "$T/tmpdir")" ]'

ktap_finished
