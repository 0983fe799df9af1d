#!/bin/bash
# Install the Debian packages the test bench needs, only when some are missing.
# Usage: install-deps.sh [KVER...]
#   KVER  a target kernel release; default: every supported one
#         (scripts/kver.sh --supported: one per patch series)
# For each target: its linux-headers and the linux-source-X.Y of exactly the
# headers' Debian version (ext4-backport/prepare.sh refuses any other).
# apt-get update runs at most once, and only when something is missing or
# the package lists do not know a supported kernel.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/common.sh
. "$here/../tests/vm/common.sh"

# stress-ng: the stress test in the guest (tests/guest/stress.sh).
# gnuplot-nox: the chart of tools/ext4x-compare/plot.sh (make demo, host tests).
# sparse, shellcheck: the static checks (tests/static/run.sh).
pkgs=(qemu-system-x86 busybox-static kmod ndctl fio e2fsprogs cpio attr acl stress-ng
	xz-utils gcc libc6-dev gnuplot-nox sparse shellcheck)
# dkms, debhelper, dh-dkms: the DKMS flow and the ext4x-dkms .deb (make deb,
# tests/host/test-dkms.sh and test-deb.sh); openssl: dkms makes its module
# signing key with it (only a Recommends away, so not pulled in by dkms).
pkgs+=(dkms debhelper dh-dkms openssl)
# lintian: the source package and both .debs must lint clean
# (tests/host/test-source-package.sh, test-deb.sh, test-tools-deb.sh).
pkgs+=(lintian)
# EXT4X_DEPS_DEBUG=1 (make check-debug): what building a kernel needs
# (tests/debug/build-kernel.sh).
[ "${EXT4X_DEPS_DEBUG:-0}" = 0 ] || pkgs+=(bc bison flex libelf-dev libssl-dev)

export DEBIAN_FRONTEND=noninteractive
updated=0
apt_update() {
	[ "$updated" -eq 1 ] && return
	info "apt-get update"
	apt-get update -qq
	updated=1
}

# Debian version the headers of release $1 have, installed or in the archive.
headers_version() {
	local v
	v=$(installed_version "linux-headers-$1")
	[ -n "$v" ] || v=$(apt-cache show --no-all-versions "linux-headers-$1" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n 1)
	printf '%s\n' "$v"
}

kvers=("$@")
tmp_err=$(mktemp)
trap 'rm -f "$tmp_err"' EXIT
if [ ${#kvers[@]} -eq 0 ]; then
	# kver.sh fails when a series has no usable release; on a fresh
	# machine the package lists may just be missing or old. Its line on
	# a release it skipped is shown once, from the lists it chose with.
	if ! out=$("$here/kver.sh" --supported 2>"$tmp_err"); then
		apt_update
		out=$("$here/kver.sh" --supported 2>"$tmp_err") || {
			cat "$tmp_err" >&2
			die "not every patch series has a kernel release to test (kver.sh above)"
		}
	fi
	cat "$tmp_err" >&2
	mapfile -t kvers <<<"$out"
fi

missing=()
for p in "${pkgs[@]}"; do
	[ -n "$(installed_version "$p")" ] || missing+=("$p")
done
for k in "${kvers[@]}"; do
	[ -n "$(headers_version "$k")" ] || { apt_update; true; }
	v=$(headers_version "$k")
	[ -n "$v" ] || die "linux-headers-$k is in no package list: is $k a Debian kernel release?"
	[ -n "$(installed_version "linux-headers-$k")" ] || missing+=("linux-headers-$k")
	src=linux-source-$(printf '%s\n' "$k" | cut -d. -f1,2)
	[ "$(installed_version "$src")" = "$v" ] || missing+=("$src=$v")
done
[ ${#missing[@]} -eq 0 ] && exit 0

info "installing: ${missing[*]}"
apt_update
apt-get install -y -qq --no-install-recommends --allow-downgrades "${missing[@]}"
