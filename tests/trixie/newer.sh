#!/bin/bash
# make check-newer: tests/trixie/run.sh on each kernel series of
# trixie-backports that ext4x has a patch series for, one chroot each
# (build/trixie-backports for 7.3, build/trixie-backports-7.2 for 7.2: the
# newest release of that series in the suite, its headers, linux-source and
# image), one after the other; then a table of the runs and the one closing
# line "N passed, N failed[, N skipped]", the sum of theirs. Each run's own
# table, skips and logs are in its output and its results directory.
#
# Usage: tests/trixie/newer.sh [run.sh's arguments: --rebuild, --deb FILE]
# Environment: EXT4X_NEWER_SERIES, the series to check (default "7.3 7.2");
# the rest as for tests/trixie/run.sh.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/totals.sh
. "$top/tests/lib/totals.sh"

list=${EXT4X_NEWER_SERIES:-7.3 7.2}
for xy in $list; do
	[ -f "$top/ext4-backport/patches/$xy/series" ] || {
		echo "newer.sh: error: EXT4X_NEWER_SERIES names $xy, which has no patch series" >&2
		exit 2
	}
done
# each run's log, read for its total (its own output is in its results)
results=$(mktemp -d /tmp/ext4x-newer.XXXXXX)
trap 'rm -rf "$results"' EXIT
for xy in $list; do
	# shellcheck disable=SC2034 # kver: the column record() fills
	kver=trixie-backports-$xy
	EXT4X_TRIXIE_BACKPORTS=1 EXT4X_NEWER_SERIES=$xy total_stage run.sh "$top/tests/trixie/run.sh" "$@"
done
totals_report
