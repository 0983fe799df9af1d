#!/bin/bash
# Install the Debian packages the test bench needs, only when some are missing.
# Usage: deps.sh [KVER]   (KVER defaults to the linux-headers-amd64 release)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/common.sh
. "$here/common.sh"

# stress-ng: the stress test in the guest (tests/guest/stress.sh).
# gnuplot-nox: the chart of tests/compare/plot.sh (make demo, host tests).
# linux-source: the ext4 source ext4x is built from (ext4-backport/prepare.sh).
# sparse, shellcheck: the static checks (tests/static/check.sh).
pkgs=(qemu-system-x86 busybox-static kmod ndctl fio e2fsprogs cpio attr acl stress-ng
	xz-utils gcc libc6-dev gnuplot-nox sparse shellcheck)
compgen -G "/usr/src/linux-source-*.tar.xz" >/dev/null || pkgs+=(linux-source)
# dkms, debhelper, dh-dkms: the DKMS flow and the ext4x-dkms .deb (make deb,
# tests/host/test-dkms.sh and test-deb.sh); openssl: dkms makes its module
# signing key with it (only a Recommends away, so not pulled in by dkms).
pkgs+=(dkms debhelper dh-dkms openssl)
if [ $# -ge 1 ] && [ -n "$1" ]; then
	pkgs+=("linux-headers-$1")
else
	pkgs+=(linux-headers-amd64)
fi

missing=()
for p in "${pkgs[@]}"; do
	[ -n "$(installed_version "$p")" ] || missing+=("$p")
done
# The default release is only known once the metapackage is installed.
if [ $# -eq 0 ] || [ -z "${1:-}" ]; then
	if [ -n "$(installed_version linux-headers-amd64)" ]; then
		kver=$(default_kver)
		[ -n "$(installed_version "linux-headers-$kver")" ] ||
			missing+=("linux-headers-$kver")
	fi
fi
[ ${#missing[@]} -eq 0 ] && exit 0

info "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
