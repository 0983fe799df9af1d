#!/bin/sh
# DKMS PRE_BUILD script of ext4x (dkms.conf names it; dkms runs it in its
# build copy of the source tree, whose top is two levels up).
# Usage: packaging/dkms/pre-build.sh KERNELVER [KERNEL_BUILD_DIR]
#
# Runs ext4-backport/prepare.sh for exactly the kernel dkms builds for: it checks
# that the ext4 source of that kernel is there (linux-source-X.Y of the headers'
# Debian version, or KSRC=) and that we have a patch series for it, and prepares
# ext4x's tree. A refusal is one line on stderr ("ext4x: ..."), which dkms
# passes through to the user (and apt shows during `apt install`).
#
# dkms 3.0 ignores a failing PRE_BUILD, so the build itself stops on the same
# check: ext4-backport/Kbuild runs prepare.sh again (a no-op once prepared).
# Environment overrides of prepare.sh (KSRC, EXT4X_SRCDIR, EXT4X_PATCHDIR, ...)
# reach it through dkms's environment.
set -eu
kver=${1:?usage: pre-build.sh KERNELVER [KERNEL_BUILD_DIR]}
kbuild=${2:-/lib/modules/$kver/build}
cd "$(dirname "$0")/../.."
exec ext4-backport/prepare.sh KVER="$kver" EXT4X_KBUILD="$kbuild"
