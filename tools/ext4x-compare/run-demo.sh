#!/bin/bash
# Host side of `make demo`: build the ext4x-tools package (`make deb`'s
# packaging/mkdeb.sh) and unpack it for the guest, which runs its installed
# /usr/sbin/ext4x-compare (tests/standalone/demo.sh) on the emulated NVDIMM;
# show the progress lines as they come, then draw the chart with the
# package's plot.sh from the results the guest handed back and print the
# table. Usage: run-demo.sh KVER MODULES_DIR RESULTS_DIR [demo|bench]
# demo (the default): 4 rounds with the tool's xattr mix; bench, behind
# `make bench-ext4x`: 5 rounds and an xattr load that only reads. The guest
# boots without slub_debug: a benchmark measures our code, not the debug
# allocator. The demo boots with clocksource=tsc tsc=reliable: the guest's
# default, hpet, is too slow to read per I/O, and with it the tool would run
# fio with gtod_reduce and the chart would have no latency panel.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${1:?usage: run-demo.sh KVER MODULES_DIR RESULTS_DIR}
modules=${2:?}
results=${3:?}
case ${4:-demo} in
demo) settings="ext4x_demo_rounds=4 clocksource=tsc tsc=reliable" ;;
bench) settings="ext4x_demo_rounds=5 ext4x_demo_write_pct=0" ;;
*) echo "run-demo.sh: unknown mode '$4' (demo or bench)" >&2; exit 2 ;;
esac
rm -rf "$results"
mkdir -p "$results"
log=$results/console.log
: >"$log"

# the package as apt would install it: its files, unpacked
pkg=$(mktemp -d "${TMPDIR:-/tmp}/ext4x-demo-pkg.XXXXXX")
trap 'rm -rf "$pkg"' EXIT
"$top/packaging/mkdeb.sh" "$pkg" >"$results/mkdeb.log" 2>&1 ||
	{ echo "demo: building the ext4x-tools package failed; see $results/mkdeb.log" >&2; exit 1; }
dpkg -x "$pkg/ext4x-tools_$(tr -d ' \n' <"$top/VERSION")_$(dpkg --print-architecture).deb" "$pkg/root"
export EXT4X_TOOLS_ROOT=$pkg/root

start=$(date +%s)
# The console without the base64 of the files coming back: the guest's
# progress lines, the tool's messages and the bench's own.
tail -n +1 -F "$log" 2>/dev/null > >(grep --line-buffered -E \
	'^ *(\[round|micro |ext4x-compare:|ext4x-guest:|# pmem:)|^(ok|not ok) ') &
tailpid=$!
trap 'kill $tailpid 2>/dev/null || true; rm -rf "$pkg"' EXIT
rc=0
EXT4X_QUIET=1 "$top/tests/vm/run-guest.sh" --kver "$kver" --modules "$modules" \
	--bench --tests demo --append "$settings" --timeout 1800 --log "$log" \
	--results "$results" || rc=$?
sleep 1
kill $tailpid 2>/dev/null || true
if [ ! -s "$results/results.json" ]; then
	echo "demo: the guest handed back no results.json (run-guest.sh exit $rc); see $log" >&2
	exit 1
fi
if ! grep -q 'ext4x-guest: demo runs /usr/sbin/ext4x-compare' "$log"; then
	echo "demo: the guest did not run the packaged /usr/sbin/ext4x-compare; see $log" >&2
	rc=1
fi
"$EXT4X_TOOLS_ROOT/usr/libexec/ext4x/plot.sh" "$results/results.json" "$results/results.png"
echo
cat "$results/table.md"
echo
echo "results: $results"
echo "  table.md results.json results.png runs.tsv stats.md progress.log console.log"
echo "demo: $(($(date +%s) - start))s in the guest step (run-guest.sh exit $rc)"
exit "$rc"
