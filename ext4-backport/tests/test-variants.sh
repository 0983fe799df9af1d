#!/bin/bash
# Host-side tests of the series' variants for older point releases
# (ext4-backport/series.sh, as prepare.sh and archive-series.sh use it), of
# the real patch pool (every file named by its series, none stored twice)
# and of prepare.sh --check; prints KTAP. Like test-prepare.sh, everything
# happens in a private temporary directory (fake headers, fake kernel trees,
# patch roots, OUT); FLAVOUR=ext4 keeps the rename out of it (the same series
# logic runs for both).
# kernel-independent: fake headers and trees only
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prepare=$here/prepare.sh
T=$(mktemp -d /tmp/ext4x-test-variants.XXXXXX)
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

# headers DIR SUBLEVEL: fake headers of 6.1.0-57-amd64 at 6.1.SUBLEVEL
headers() {
	mkdir -p "$1/include/config" "$1/include/generated"
	printf 'kernelversion:\n\t@echo 6.1.%s\n' "$2" >"$1/Makefile"
	printf 'CONFIG_EXT4_FS=m\n' >"$1/include/config/auto.conf"
	printf '#define UTS_RELEASE "6.1.0-57-amd64"\n' >"$1/include/generated/utsrelease.h"
}
mkdir -p "$T/tmpdir"
for v in 180 183 185 188 192; do headers "$T/h$v" $v; done
# tree DIR SUBLEVEL LINE7: a 6.1.SUBLEVEL tree whose fs/ext4/xattr.c has LINE7 as
# its 7th line
tree() {
	mkdir -p "$1/fs/ext4" "$1/include/trace/events"
	printf 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = %s\nEXTRAVERSION =\n' "$2" >"$1/Makefile"
	printf '%s\n' one two three four five six "$3" eight >"$1/fs/ext4/xattr.c"
	printf 'obj-$(CONFIG_EXT4_FS) += ext4.o\next4-y := xattr.o\n' >"$1/fs/ext4/Makefile"
	printf '#define TRACE_SYSTEM ext4\n' >"$1/include/trace/events/ext4.h"
}
# 6.1.192, which the series is written for, changed the line patch #2 removes
tree "$T/src192" 192 SEVEN
for v in 180 183 185 188; do tree "$T/src$v" $v seven; done
# hunk FROM TO LINE: a patch of xattr.c replacing line LINE's FROM by TO
hunk() {
	local n=$3 s=$(($3 - 1)) before after
	before=$(sed -n "$((n - 1))p" "$T/src180/fs/ext4/xattr.c")
	after=$(sed -n "$((n + 1))p" "$T/src180/fs/ext4/xattr.c")
	printf -- '--- a/fs/ext4/xattr.c\n+++ b/fs/ext4/xattr.c\n@@ -%s,3 +%s,3 @@\n %s\n-%s\n+%s\n %s\n' \
		"$s" "$s" "$before" "$1" "$2" "$after"
}
# the 6.1 series: #1 turns two into 2, #2 SEVEN into 7
mkdir -p "$T/base/6.1"
hunk two 2 2 >"$T/base/6.1/0001-a.patch"
hunk SEVEN 7 7 >"$T/base/6.1/0002-b.patch"
printf '# test series\n0001-a.patch\n0002-b.patch\n' >"$T/base/6.1/series"
# root NAME [SECOND-LINE]: a fresh copy of the base patch root, the series'
# second entry replaced by SECOND-LINE
root() {
	rm -rf "${T:?}/${1:?}"
	cp -a "$T/base" "$T/$1"
	[ $# -lt 2 ] || printf '0001-a.patch\n%s\n' "$2" >"$T/$1/6.1/series"
}
# variant ROOT DIR TO: DIR/0002-b.patch of ROOT turns seven into TO
variant() { mkdir -p "$T/$1/6.1/$2" && hunk seven "$3" 7 >"$T/$1/6.1/$2/0002-b.patch"; }
# on SUBLEVEL ROOT OUT [ARGS]: prepare 6.1.SUBLEVEL's tree with ROOT's series
on() {
	local v=$1 r=$2 o=$3
	shift 3
	run KVER=6.1.0-57-amd64 "EXT4X_KBUILD=$T/h$v" EXT4X_HEADERS_DEBVER= FLAVOUR=ext4 \
		KSRC="$T/src$v" EXT4X_PATCHDIR="$T/$r" OUT="$T/$o" -- "$@"
}
line7() { sed -n 7p "$1/fs/ext4/xattr.c"; }

ktap_print_header
ktap_set_plan 22

# 1-2: the series as it is
root r1
on 192 r1 o1
result "the series applies to the release it was written for" \
	'[ "$rc" -eq 0 ] && [ "$(line7 "$T/o1")" = 7 ] && ! grep -q "variant(s) for" <<<"$out"'
mkout "$T/o2"
on 180 r1 o2
result "on an older point release, patch #2 does not apply and is named; OUT untouched" \
	'[ "$rc" -eq 1 ] && [ "$err" = "ext4x: patch 6.1/0002-b.patch (#2 in $T/r1/6.1/series) does not apply to KSRC=$T/src180 (6.1.180)" ] && untouched "$T/o2"'

# 3-5: one variant, written for 6.1.180, for the releases before 6.1.192
root r3 '0002-b.patch <6.1.192:6.1.180'
variant r3 6.1.180 7
on 180 r3 o3
result "6.1.180 applies the variant 6.1.180/0002-b.patch, #1 from the series" \
	'[ "$rc" -eq 0 ] && [ "$(line7 "$T/o3")" = 7 ] && [ "$(sed -n 2p "$T/o3/fs/ext4/xattr.c")" = 2 ] &&
	 grep -qxF "ext4x: 1 variant(s) for 6.1.180: 6.1.180/0002-b.patch" <<<"$out"'
on 188 r3 o4
result "6.1.188, listed nowhere, gets the variant of its range" \
	'[ "$rc" -eq 0 ] && [ "$(line7 "$T/o4")" = 7 ]'
on 192 r3 o5
result "6.1.192 (not before 6.1.192) applies the series' own patch" \
	'[ "$rc" -eq 0 ] && [ "$(line7 "$T/o5")" = 7 ] && ! grep -q "variant(s) for" <<<"$out"'

# 6-8: two variants, oldest first: each release gets the one of its range
root r6 '0002-b.patch <6.1.185:6.1.180 <6.1.192:6.1.185'
variant r6 6.1.180 7a
variant r6 6.1.185 7b
on 183 r6 o6
result "two variants: 6.1.183 gets 6.1.180's" '[ "$rc" -eq 0 ] && [ "$(line7 "$T/o6")" = 7a ]'
on 185 r6 o7
result "two variants: 6.1.185 gets 6.1.185's (a bound is the first release it excludes)" \
	'[ "$rc" -eq 0 ] && [ "$(line7 "$T/o7")" = 7b ]'
on 192 r6 o8
result "two variants: 6.1.192 gets the series' own" '[ "$rc" -eq 0 ] && [ "$(line7 "$T/o8")" = 7 ]'

# 9-12: mistakes in a series line are refused before anything is extracted
root r9 '0002-b.patch <6.1.192:6.1.185 <6.1.185:6.1.180'
variant r9 6.1.180 7a
variant r9 6.1.185 7b
mkout "$T/o9"
on 183 r9 o9
result "variants listed newest first are refused, OUT untouched" \
	'[ "$rc" -eq 2 ] && [ "$err" = "ext4x: $T/r9/6.1/series:2: variants must be listed oldest first (6.1.192, then 6.1.185)" ] && untouched "$T/o9"'
root r10 '0002-b.patch 6.1.180'
on 183 r10 o10
result "a variant without its <RELEASE: is refused" \
	'[ "$rc" -eq 2 ] && [ "$err" = "ext4x: $T/r10/6.1/series:2: '"'"'6.1.180'"'"' is not a variant <RELEASE:DIR (e.g. <6.1.192:6.1.170)" ]'
root r11 '0002-b.patch <6.1.192:6.1.180'
on 192 r11 o11
result "a variant file that is missing is refused, even where it would not be used" \
	'[ "$rc" -eq 2 ] && [ "$err" = "ext4x: $T/r11/6.1/series:2: variant 6.1.180/0002-b.patch not found" ]'
root r12 '0009-gone.patch'
on 192 r12 o12
result "a series entry found nowhere is refused" \
	'[ "$rc" -eq 2 ] && [ "$err" = "ext4x: $T/r12/6.1/series: patch 6.1/0009-gone.patch not found" ]'

# 13: a failing variant is named by its path
root r13 '0002-b.patch <6.1.192:6.1.180'
mkdir -p "$T/r13/6.1/6.1.180"
hunk seventy 7 7 >"$T/r13/6.1/6.1.180/0002-b.patch"
on 180 r13 o13
result "a variant that does not apply is named with its directory" \
	'[ "$rc" -eq 1 ] && [ "$err" = "ext4x: patch 6.1/6.1.180/0002-b.patch (#2 in $T/r13/6.1/series) does not apply to KSRC=$T/src180 (6.1.180)" ]'

# 14: changing a variant changes the stamp: prepared again, not "up to date"
on 180 r3 o14
variant r3 6.1.180 7c
on 180 r3 o14
result "a changed variant re-prepares (the stamp covers the files chosen)" \
	'[ "$rc" -eq 0 ] && ! grep -q "up to date" <<<"$out" && [ "$(line7 "$T/o14")" = 7c ]'

# 15-18: --check
mkout "$T/o15"
on 183 r6 o15 --check
result "--check: yes (exit 0) when it would prepare, OUT not touched" \
	'[ "$rc" -eq 0 ] && grep -q "^ext4x: ext4 can be prepared for 6.1.0-57-amd64 from KSRC=$T/src183 (6.1.183) (checked, nothing kept)$" <<<"$out" && untouched "$T/o15"'
on 180 r1 o15 --check
result "--check: the failing patch, exit 1, the same line as a prepare" \
	'[ "$rc" -eq 1 ] && [ "$err" = "ext4x: patch 6.1/0002-b.patch (#2 in $T/r1/6.1/series) does not apply to KSRC=$T/src180 (6.1.180)" ] && untouched "$T/o15"'
run KVER=6.1.0-57-amd64 "EXT4X_KBUILD=$T/h192" EXT4X_HEADERS_DEBVER=6.1.192-3 \
	EXT4X_SRCDIR="$T/nowhere" EXT4X_PATCHDIR="$T/r1" -- --check
result "--check: a refusal, exit 2" \
	'[ "$rc" -eq 2 ] && grep -q "^ext4x: kernel source for 6.1.0-57-amd64 (6.1.192, Debian 6.1.192-3) not found" <<<"$err"'
result "--check leaves nothing in TMPDIR" '[ -z "$(ls -A "$T/tmpdir")" ]'

# 19-20: a line naming another series' file; its variant is this series' own
root r19 '../6.0/0002-b.patch <6.1.192:6.1.180'
mkdir -p "$T/r19/6.0" && mv "$T/r19/6.1/0002-b.patch" "$T/r19/6.0/"
variant r19 6.1.180 7
on 192 r19 o19
result "6.1.192 applies ../6.0/0002-b.patch, and says no variant" \
	'[ "$rc" -eq 0 ] && [ "$(line7 "$T/o19")" = 7 ] && ! grep -q "variant(s) for" <<<"$out"'
on 180 r19 o20
result "6.1.180 applies 6.1/6.1.180/0002-b.patch, the only variant it names" \
	'[ "$rc" -eq 0 ] && [ "$(line7 "$T/o20")" = 7 ] &&
	 grep -qxF "ext4x: 1 variant(s) for 6.1.180: 6.1.180/0002-b.patch" <<<"$out"'

# 21-22: the real pool
# shellcheck source=ext4-backport/series.sh
. "$here/series.sh"
named="" bad=""
for s in "$here"/patches/*/series; do
	d=${s%/series}
	# the newest release, and each release a variant was written for:
	# between them, every file a line names
	for r in "${d##*/}.99999" $(find "$d" -mindepth 1 -maxdepth 1 -type d -printf '%f\n'); do
		if series_pick "$d" "$r" 2>>"$T/pool.err"; then
			named+=$(printf "${d##*/}/%s\n" "${series_patches[@]}")$'\n'
		else
			bad+=" ${d##*/}"
		fi
	done
	while IFS= read -r f; do
		grep -qxF "${f#"$here/patches/"}" <<<"$named" || bad+=" ${f#"$here/patches/"} (named by no series line)"
	done < <(find "$d" -name '*.patch' | sort)
done
result "every pool file is named by its series, every name found" '[ -z "$bad" ]' || true
[ -z "$bad" ] || ktap_print_msg "unnamed or unreadable:$bad $(cat "$T/pool.err")"
dups=$(find "$here/patches" -type f -exec sha256sum {} + | sort | uniq -w64 -D | sed "s,$here/,,")
result "no two files of the pool are the same text" '[ -z "$dups" ]'
[ -z "$dups" ] || ktap_print_msg "$dups"

ktap_finished
