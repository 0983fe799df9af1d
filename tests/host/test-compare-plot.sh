#!/bin/bash
# tools/ext4x-compare on the host (no kernel code runs): plot.sh turns a results
# file of ext4x-compare (tools/ext4x-compare/fixtures/demo, from a real guest run)
# into a valid PNG; --report rebuilds the same results.json and table.md
# from runs.tsv under bash, dash and busybox sh; the tool refuses a missing
# device and a non-block device before doing anything. Prints KTAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/tools/ext4x-compare/ext4x-compare
fix=$top/tools/ext4x-compare/fixtures/demo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"

echo "KTAP version 1"

# 1: the chart
if ! command -v gnuplot >/dev/null; then
	ktap_skip "plot.sh writes a PNG" "no gnuplot (apt-get install gnuplot-nox)"
else
	out=$("$top/tools/ext4x-compare/plot.sh" "$fix/results.json" "$tmp/out.png" 2>&1)
	rc=$?
	sig=$(head -c 8 "$tmp/out.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
	if [ "$rc" = 0 ] && [ "$sig" = 89504e470d0a1a0a ] && [ -s "$tmp/out.png" ]; then
		ktap_ok "plot.sh writes a PNG ($(stat -c %s "$tmp/out.png") bytes)"
	else
		ktap_fail "plot.sh writes a PNG" "exit $rc, signature '$sig'" "$out"
	fi
fi
if ! out=$("$top/tools/ext4x-compare/plot.sh" "$tmp/none.json" "$tmp/x.png" 2>&1) &&
	[ ! -e "$tmp/x.png" ]; then
	ktap_ok "plot.sh fails on a missing results file"
else
	ktap_fail "plot.sh fails on a missing results file" "$out"
fi

# 2: --report under each shell gives the fixture's results.json and table.md
for sh in bash dash busybox; do
	cmd=("$sh")
	[ "$sh" = busybox ] && cmd=(busybox sh)
	if ! command -v "$sh" >/dev/null; then
		ktap_skip "--report under $sh" "no $sh"
		continue
	fi
	d=$tmp/report-$sh
	mkdir -p "$d"
	cp "$fix/runs.tsv" "$fix/meta.json" "$d/"
	out=$("${cmd[@]}" "$tool" --report "$d" --no-plot 2>&1)
	rc=$?
	if [ "$rc" = 0 ] && cmp -s "$d/results.json" "$fix/results.json" &&
		cmp -s "$d/table.md" "$fix/table.md"; then
		ktap_ok "--report under $sh rebuilds results.json and table.md"
	else
		ktap_fail "--report under $sh rebuilds results.json and table.md" "exit $rc" "$out" \
			"$(diff "$fix/results.json" "$d/results.json" | head -n 10)"
	fi
done

# 3: every job of the JSON is a table row with the same medians and ratio
bad=''
while IFS= read -r line; do
	job=$(sed 's/^{"name":"\([^"]*\)".*/\1/' <<<"$line")
	a=$(sed 's/.*"a":{"median":\([^,]*\),.*/\1/' <<<"$line")
	b=$(sed 's/.*"b":{"median":\([^,]*\),.*/\1/' <<<"$line")
	r=$(sed 's/.*"ratio":\([^}]*\)}.*/\1/' <<<"$line")
	row=$(grep "^| $job |" "$fix/table.md" | tr -d '|' | tr -s ' ')
	read -r _ _ ta _ _ tb _ _ tr <<<"$row"
	[ "$ta $tb $tr" = "$a $b $r" ] || bad="$bad $job(json $a $b $r, table $ta $tb $tr)"
done < <(grep '^{"name":' "$fix/results.json")
if [ -z "$bad" ] && grep -q '^{"name":' "$fix/results.json"; then
	ktap_ok "fixture: JSON jobs and table rows agree"
else
	ktap_fail "fixture: JSON jobs and table rows agree" "$bad"
fi

# 4: refusals that need no device
out=$("$tool" --device "$tmp/nonexistent" --out "$tmp/r1" 2>&1)
rc=$?
if [ "$rc" = 3 ] && grep -q "no such device" <<<"$out" && [ ! -e "$tmp/r1" ]; then
	ktap_ok "refuses a missing device"
else
	ktap_fail "refuses a missing device" "exit $rc: $out"
fi
: >"$tmp/plain"
out=$("$tool" --device "$tmp/plain" --out "$tmp/r2" 2>&1)
rc=$?
if [ "$rc" = 3 ] && grep -q "not a block device" <<<"$out" && [ ! -s "$tmp/plain" ] &&
	[ ! -e "$tmp/r2" ]; then
	ktap_ok "refuses a regular file"
else
	ktap_fail "refuses a regular file" "exit $rc: $out"
fi
out=$("$tool" --device /dev/null --rounds x 2>&1)
rc=$?
if [ "$rc" = 2 ] && grep -q "not a number" <<<"$out"; then
	ktap_ok "bad usage exits 2"
else
	ktap_fail "bad usage exits 2" "exit $rc: $out"
fi

ktap_done
