#!/bin/bash
# Build the coherence plugin (tests/coherence/README.md) for the QEMU that
# is installed: its API header, include/qemu/qemu-plugin.h, comes from
# Debian's qemu source package of exactly the installed version, fetched
# through a private deb-src list made from this host's apt sources (the
# Debian-labelled ones) and extracted at build time, never kept in the
# tree. Prints the path of the plugin.
# Usage: tests/coherence/build.sh [OUTDIR]   (default build/coherence)
# The header is cached in ${EXT4X_CACHE:-/var/cache/ext4x-test}/qemu-plugin/VERSION.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=tests/vm/common.sh
. "$top/tests/vm/common.sh"
out=${1:-$top/build/coherence}

ver=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not installed (scripts/install-deps.sh)"
cache=$(cache_root)/qemu-plugin/$ver
hdr=$cache/qemu-plugin.h
if [ ! -f "$hdr" ]; then
	info "fetching include/qemu/qemu-plugin.h of Debian's qemu $ver"
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	mkdir -p "$work/lists/partial" "$work/src"
	apt-get indextargets --format '$(LABEL)|$(REPO_URI)|$(RELEASE)|$(COMPONENT)' \
		'Created-By: Packages' | sort -u |
		awk -F'|' '$1 == "Debian" || $1 == "Debian-Security" { print "deb-src", $2, $3, $4 }' \
		>"$work/sources.list"
	[ -s "$work/sources.list" ] ||
		die "no Debian archive in this host's apt sources (apt-get update first)"
	apt=(apt-get -q -o Dir::Etc::SourceList="$work/sources.list"
		-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$work/lists")
	"${apt[@]}" update >"$work/update.log" 2>&1 ||
		die "apt-get update of the deb-src list failed: $(tail -n 3 "$work/update.log")"
	chmod 777 "$work/src"
	(cd "$work/src" && "${apt[@]}" source --download-only "qemu=$ver") >"$work/source.log" 2>&1 ||
		die "apt-get source qemu=$ver failed: $(tail -n 3 "$work/source.log")"
	orig=$(find "$work/src" -maxdepth 1 -name 'qemu_*.orig.tar.*' | head -n 1)
	[ -n "$orig" ] || die "no qemu orig tarball among $(ls "$work/src")"
	tar -xf "$orig" -C "$work/src" --wildcards '*/include/qemu/qemu-plugin.h' ||
		die "$orig holds no include/qemu/qemu-plugin.h"
	mkdir -p "$cache"
	find "$work/src" -path '*/include/qemu/qemu-plugin.h' -exec cp {} "$hdr.tmp" \;
	mv "$hdr.tmp" "$hdr"
fi
mkdir -p "$out"
gcc -O2 -Wall -Wextra -Wno-unused-parameter -shared -fPIC -I"$cache" \
	-o "$out/coherence.so.tmp" "$here/plugin.c" "$here/model.c"
mv "$out/coherence.so.tmp" "$out/coherence.so"
printf '%s\n' "$out/coherence.so"
