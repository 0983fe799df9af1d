#!/bin/bash
# Static checks of our own code: checkpatch --strict (taken from the target
# kernel's own linux-source package) on every C file we wrote and on every
# patch of the ext4 series, sparse over the suite, shellcheck over our
# shell scripts. Prints KTAP.
# Usage: tests/static/run.sh KVER
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${1:?usage: check.sh KVER}
kdir=/lib/modules/$kver/build
cache=${EXT4X_CACHE:-/var/cache/ext4x-test}/checkpatch

# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"

# checkpatch.pl and its data files from linux-source-X.Y of the target.
# Under a parent make, -s alone still prints "Entering directory" lines.
series=$(env -u MAKEFLAGS -u MAKELEVEL make -s --no-print-directory \
	-C "$kdir" kernelversion 2>/dev/null | cut -d. -f1,2)
tarball=/usr/src/linux-source-$series.tar.xz
if [ ! -r "$tarball" ]; then
	echo "ext4x: $tarball missing: apt-get install linux-source-$series" >&2
	exit 2
fi
stamp="$cache/$series.stamp"
if [ ! -e "$stamp" ] || [ "$tarball" -nt "$stamp" ]; then
	rm -rf "${cache:?}/$series"
	mkdir -p "$cache/$series"
	tar -xJf "$tarball" -C "$cache/$series" --strip-components=1 \
		"linux-source-$series/scripts/checkpatch.pl" \
		"linux-source-$series/scripts/spelling.txt" \
		"linux-source-$series/scripts/const_structs.checkpatch"
	touch "$stamp"
fi
checkpatch=(perl "$cache/$series/scripts/checkpatch.pl" --no-tree --strict
	--quiet --show-types)

ktap_print_header
mapfile -t files < <(cd "$top" && git ls-files -- '*.c' '*.h' |
	grep -v '\.mod\.c$' | sort)
mapfile -t patches < <(cd "$top" && git ls-files -- 'ext4-backport/patches/*.patch' | sort)
ktap_set_plan $((${#files[@]} + ${#patches[@]} + 6))
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for f in "${files[@]}"; do
	if (cd "$top" && "${checkpatch[@]}" -f "$f") >"$out" 2>&1; then
		ktap_test_pass "checkpatch $f"
	else
		ktap_test_fail "checkpatch $f" "$(cat "$out")"
	fi
done
for p in "${patches[@]}"; do
	# A patch of ext4 is judged on the lines it adds, not on ext4's own,
	# whose names it must use as they are (CAMELCASE: 6.12's ac_cX_found).
	# Fed on stdin: given the path of a file git tracks, checkpatch checks
	# the .patch file itself as source.
	if "${checkpatch[@]}" --ignore FILE_PATH_CHANGES,CAMELCASE - <"$top/$p" \
		>"$out" 2>&1; then
		ktap_test_pass "checkpatch $p"
	else
		ktap_test_fail "checkpatch $p" "$(cat "$out")"
	fi
done

# sparse over our own sources (tests/static/sparse-ours.sh picks them);
# W=1 as `make modules` builds, so nothing is compiled again.
make -s -C "$top" KVER="$kver" modules >/dev/null
# our C files as Kbuild names them (the set sparse-ours.sh checks)
ours_re="($top/)?(percpu_stats/|mbcache2/|tests/kmod/|[^ ]*/ext4x_version\.c)"
if ! make -C "$kdir" M="$top" W=1 C=2 CHECK="$top/tests/static/sparse-ours.sh $top" \
	modules >"$out" 2>&1; then
	ktap_test_fail "sparse (make C=2) ran" "$(cat "$out")"
elif grep -E "^${ours_re}[^ ]*:[0-9]+:" "$out" >"$out.ours"; then
	ktap_test_fail "sparse clean on our C" "$(cat "$out.ours")"
else
	# sparse must have looked at every C file of ours (the modules, the
	# test modules, ext4x's version file): none may slip past it
	checked=$(grep -cE "^  CHECK +$ours_re" "$out")
	ours=$(cd "$top" && git ls-files 'percpu_stats/*.c' 'mbcache2/*.c' 'tests/kmod/*.c' 'ext4-backport/ext4x_version.c' | wc -l)
	if [ "$checked" -ge "$ours" ] && [ "$ours" -gt 0 ]; then
		ktap_test_pass "sparse clean on our C ($checked files checked, $ours tracked)"
	else
		ktap_test_fail "sparse clean on our C" "sparse checked $checked of our $ours C files"
	fi
fi
rm -f "$out.ours"

# Warnings and errors of shellcheck, over every shell script we track: by
# name (*.sh) or by a #!/bin/sh or #!/bin/bash first line.
mapfile -t scripts < <(cd "$top" && git ls-files | while IFS= read -r f; do
	case $f in
	*.sh) echo "$f" ;;
	*) head -n 1 "$f" 2>/dev/null | grep -qE '^#!/bin/(ba)?sh' && echo "$f" ;;
	esac
done)
if (cd "$top" && shellcheck -x -S warning "${scripts[@]}") >"$out" 2>&1; then
	ktap_test_pass "shellcheck clean on our ${#scripts[@]} shell scripts"
else
	ktap_test_fail "shellcheck clean on our ${#scripts[@]} shell scripts" "$(cat "$out")"
fi
# The repository speaks of itself only: no tracked file may name a path of
# the machine it was written on (a workspace, a home directory, a sibling
# checkout); /tmp, /usr, /lib, /sys and /proc paths are the system's.
outside='(\.\./shared|(^|[^$A-Za-z0-9_./-])/(work|home)/[A-Za-z])'
if (cd "$top" && git grep -nE "$outside" -- . ':!tests/static/run.sh') >"$out"; then
	ktap_test_fail "no tracked file names a path outside the repository" "$(cat "$out")"
else
	ktap_test_pass "no tracked file names a path outside the repository"
fi
# ...and of itself as it is: how the work was organised (work sessions,
# numbered issues or tasks of a tracker) belongs in git log, not in a file.
history='(\b[Ss]ession [0-9]|\b[Ii]ssues? #?[0-9]|\b[Tt]asks? #[0-9]|\bthe seeds?\b)'
if (cd "$top" && git grep -nE "$history" -- . ':!tests/static/run.sh') >"$out"; then
	ktap_test_fail "no tracked file speaks of sessions, issue numbers or seeds" "$(cat "$out")"
else
	ktap_test_pass "no tracked file speaks of sessions, issue numbers or seeds"
fi
# docs/INSTALL.md's persistent memory commands are the ones the guest runs:
# every doc_run line of tests/standalone/pmem-setup.sh appears there, in
# backquotes, spelled the same.
doc_commands() {
	local cmd n=0 missing=0
	while IFS= read -r cmd; do
		n=$((n + 1))
		grep -qF "\`$cmd\`" "$top/docs/INSTALL.md" ||
			{ echo "not in docs/INSTALL.md: \`$cmd\`"; missing=$((missing + 1)); }
	done < <(sed -n 's/^[[:space:]]*doc_run "\(.*\)"$/\1/p' "$top/tests/standalone/pmem-setup.sh")
	[ "$n" -ge 6 ] || { echo "only $n doc_run lines found"; return 1; }
	[ "$missing" -eq 0 ]
}
ktap_check "docs/INSTALL.md spells each command tests/standalone/pmem-setup.sh runs" doc_commands

# Numbers that must agree: dkms.conf's version and kernel pattern, and
# debian/changelog's version, with VERSION and the patch series dirs
# (test-source-package.sh checks the built packages').
ktap_check "dkms.conf and debian/changelog agree with VERSION and the patch series dirs" \
	"$top/packaging/dkms/conf-agrees.sh" "$top"
echo "# static: $((KTAP_N - KTAP_FAILED)) passed, $KTAP_FAILED failed"
ktap_finished
