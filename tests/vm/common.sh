#!/bin/bash
# Shared helpers for the host side of the test bench. Source it; it defines
# functions only and changes no state.

# Print a message on stderr, prefixed with the calling script's name.
info() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
}

# Print an error and exit non-zero.
die() {
	info "error: $*"
	exit 1
}

# Release of the kernel the linux-headers-amd64 metapackage depends on,
# e.g. 6.1.0-57-amd64 (scripts/kver.sh).
default_kver() {
	local k
	k=$("$(dirname "${BASH_SOURCE[0]}")/../../scripts/kver.sh")
	[ -n "$k" ] || die "linux-headers-amd64 is neither installed nor in the package lists; pass --kver"
	printf '%s\n' "$k"
}

# Root of the download and image cache.
cache_root() {
	printf '%s\n' "${EXT4X_CACHE:-/var/cache/ext4x-test}"
}

# Version of an installed Debian package, empty when it is not installed.
installed_version() {
	{ dpkg-query -W -f='${db:Status-Abbrev} ${Version}' "$1" 2>/dev/null ||
		true; } | sed -n 's/^ii  *//p'
}
