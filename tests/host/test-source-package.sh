#!/bin/bash
# The ext4x Debian source package, KTAP on stdout. `make deb` builds it from
# the tree (dpkg-source -b, debian/source/options keeping build output out)
# and the .debs from it; the source package holds every file of the tree and
# nothing of build/, results/ or .git; its version is debian/changelog's,
# which is VERSION's; lintian finds no error or warning in the source, the
# binaries and the .buildinfo, overrides ignored. The binaries are
# reproducible: a second build from a copy of the tree at another path,
# with every file dated 2001 and umask 077, makes the same .deb bytes.
# `dpkg-buildpackage -us -uc` works in a plain copy of the tree (no make) and
# its clean step leaves the copy as it was. debian/tests/control names
# tests that exist and are executable, and the .dsc announces them with
# dkms's generic test (autopkgtest-pkg-dkms). test-deb.sh runs debian/tests
# against the installed packages.
# Nothing is installed; temporary directories are removed on exit.
# required-in-ci: a skip of the whole file fails make check under CI=true
# kernel-independent
# Usage: tests/host/test-source-package.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"

ktap_print_header
for c in dpkg-buildpackage dh_dkms git; do
	command -v "$c" >/dev/null || ktap_skip_all "$c not installed (scripts/install-deps.sh)"
done
git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	ktap_skip_all "$top is not a git checkout: its file list is unknown"
version=$(tr -d ' \n' <"$top/VERSION")
arch=$(dpkg --print-architecture)
tmp=$(mktemp -d /tmp/ext4x-srcpkg-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
debs=("ext4x-dkms_${version}_all.deb" "ext4x-tools_${version}_$arch.deb")

# copy_tree DEST: the tree's files as git sees them (tracked and new, not
# ignored), with what the work tree holds now
copy_tree() {
	mkdir -p "$1"
	(cd "$top" && git ls-files -z -co --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		xargs -0 cp --parents -P -t "$1")
}

a=$tmp/a
ktap_check "make deb builds the source package and ${debs[*]}" bash -c \
	"make -s -C '$top' deb DEB_OUT='$a' >'$tmp/make-a.log' 2>&1 &&
	 for f in ext4x_$version.dsc ext4x_$version.tar.xz ext4x_${version}_$arch.changes ${debs[*]}; do
		[ -f '$a'/\$f ] || { echo \"# no \$f\"; exit 1; }
	 done || { tail -n 20 '$tmp/make-a.log'; exit 1; }"

# (dpkg-source leaves out the VCS's own files, .gitignore among them)
(cd "$top" && git ls-files -co --exclude-standard | while IFS= read -r f; do
	[ -e "$f" ] && echo "$f"; done | grep -v '\(^\|/\)\.gitignore$' | sort) >"$tmp/want"
tar -tJf "$a/ext4x_$version.tar.xz" 2>/dev/null | sed -n "s,^ext4x-$version/,,p" |
	grep -v -e '/$' -e '^$' | sort >"$tmp/have"
ktap_check "the source package holds exactly the tree's files but .gitignore ($(wc -l <"$tmp/want"))" \
	diff -u "$tmp/want" "$tmp/have"
# debian/source/options must leave out all that .gitignore ignores ("/build/"
# is "build"): a checkout with modules built in place is a normal one
missing=$(cd "$top" && git ls-files -z '*.gitignore' | xargs -0 cat | sed -e '/^#/d' -e '/^$/d' \
	-e 's,^/,,' -e 's,/$,,' | sort -u | while IFS= read -r pat; do
		grep -qxF "tar-ignore = $pat" debian/source/options || echo "$pat"
	done)
ktap_check "debian/source/options leaves out every .gitignore pattern" \
	bash -c "[ -z '$missing' ] || { echo 'missing: $missing' | paste -sd' '; exit 1; }"
ktap_check "no build output, results or .git in the source package" bash -c \
	"! grep -E '(^|/)(build|results|\\.git)/|\\.(o|ko|mod)\$' '$tmp/have'"
cl=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version 2>/dev/null)
ktap_check "debian/changelog's version ($cl) is VERSION's ($version), and the .dsc's" bash -c \
	"[ '$cl' = '$version' ] && grep -qx 'Version: $version' '$a/ext4x_$version.dsc'"
ktap_check "the .dsc announces debian/tests and dkms's generic test" \
	grep -qx 'Testsuite: autopkgtest, autopkgtest-pkg-dkms' "$a/ext4x_$version.dsc"
names=$(sed -n 's/^Tests: *//p' "$top/debian/tests/control" | tr ',' ' ' | xargs)
ktap_check "debian/tests/control names tests that exist and run: $names" bash -c \
	"[ -n '$names' ] && for t in $names; do [ -x '$top/debian/tests/'\$t ] || exit 1; done"
if command -v lintian >/dev/null; then
	ktap_check "lintian: source, binaries and .buildinfo clean, overrides ignored" bash -c \
		"lintian --no-override --fail-on error,warning '$a/ext4x_${version}_$arch.changes' >'$tmp/lintian.log' 2>&1 ||
		 { cat '$tmp/lintian.log'; exit 1; }"
else
	ktap_test_skip "lintian: source, binaries and .buildinfo clean, overrides ignored" "lintian not installed"
fi

# the same tree elsewhere, every file older than the changelog, private umask
b=$tmp/elsewhere/deeper/ext4x
copy_tree "$b"
find "$b" -exec touch --no-dereference -d 2001-01-01 {} +
ktap_check "make deb from a copy at another path, files dated 2001, umask 077" bash -c \
	"umask 077 && make -s -C '$b' deb DEB_OUT='$tmp/b' >'$tmp/make-b.log' 2>&1 ||
	 { tail -n 20 '$tmp/make-b.log'; exit 1; }"
for d in "${debs[@]}"; do
	ktap_check "reproducible: $d is the same bytes both times" cmp "$a/$d" "$tmp/b/$d"
done

# a Debian developer's build: in the tree, no make, output beside it
c=$tmp/dev/ext4x
copy_tree "$c"
(cd "$c" && find . | sort) >"$tmp/c.before"
ktap_check "dpkg-buildpackage -us -uc in a copy of the tree" bash -c \
	"cd '$c' && dpkg-buildpackage -us -uc >'$tmp/dbp.log' 2>&1 &&
	 for d in ${debs[*]}; do [ -f ../\$d ] || exit 1; done || { tail -n 20 '$tmp/dbp.log'; exit 1; }"
ktap_check "its clean step (dpkg-buildpackage -T clean) leaves the tree as it was" bash -c \
	"cd '$c' && dpkg-buildpackage -T clean >'$tmp/clean.log' 2>&1 &&
	 find . | sort | diff -u '$tmp/c.before' -"
ktap_finished
