#!/bin/bash
# tools/ext4x-compare on the host (no kernel code runs): plot.sh turns a results
# file of ext4x-compare (tools/ext4x-compare/fixtures/demo, from a real guest run)
# into a valid PNG; --report rebuilds the same results.json and table.md
# from runs.tsv under bash, dash and busybox sh; the interval of the ratio
# matches a worked example; --diff compares two results directories;
# stats.md sums the statistics snapshots' changes; a --threads sweep gets
# its scaling table and chart panel; the tool refuses a missing device, a
# non-block device, a bad --threads and a --perf-c2c that cannot record
# before doing anything. Prints KTAP.
# kernel-independent
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/tools/ext4x-compare/ext4x-compare
fix=$top/tools/ext4x-compare/fixtures/demo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"

ktap_print_header

# 1: the chart
if ! command -v gnuplot >/dev/null; then
	ktap_test_skip "plot.sh writes a PNG" "no gnuplot (apt-get install gnuplot-nox)"
else
	out=$("$top/tools/ext4x-compare/plot.sh" "$fix/results.json" "$tmp/out.png" 2>&1)
	rc=$?
	sig=$(head -c 8 "$tmp/out.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
	if [ "$rc" = 0 ] && [ "$sig" = 89504e470d0a1a0a ] && [ -s "$tmp/out.png" ]; then
		ktap_test_pass "plot.sh writes a PNG ($(stat -c %s "$tmp/out.png") bytes)"
	else
		ktap_test_fail "plot.sh writes a PNG" "exit $rc, signature '$sig'" "$out"
	fi
fi
if ! out=$("$top/tools/ext4x-compare/plot.sh" "$tmp/none.json" "$tmp/x.png" 2>&1) &&
	[ ! -e "$tmp/x.png" ]; then
	ktap_test_pass "plot.sh fails on a missing results file"
else
	ktap_test_fail "plot.sh fails on a missing results file" "$out"
fi

# 2: --report under each shell gives the fixture's results.json and table.md
for sh in bash dash busybox; do
	cmd=("$sh")
	[ "$sh" = busybox ] && cmd=(busybox sh)
	if ! command -v "$sh" >/dev/null; then
		ktap_test_skip "--report under $sh" "no $sh"
		continue
	fi
	d=$tmp/report-$sh
	mkdir -p "$d"
	cp "$fix/runs.tsv" "$fix/meta.json" "$d/"
	out=$("${cmd[@]}" "$tool" --report "$d" --no-plot 2>&1)
	rc=$?
	if [ "$rc" = 0 ] && cmp -s "$d/results.json" "$fix/results.json" &&
		cmp -s "$d/table.md" "$fix/table.md"; then
		ktap_test_pass "--report under $sh rebuilds results.json and table.md"
	else
		ktap_test_fail "--report under $sh rebuilds results.json and table.md" "exit $rc" "$out" \
			"$(diff "$fix/results.json" "$d/results.json" | head -n 10)"
	fi
done

# 3: every job of the JSON that --report just wrote (under bash) is a row
# of its table with the same medians and ratio
bad=''
gen=$tmp/report-bash
while IFS= read -r line; do
	job=$(sed 's/^{"name":"\([^"]*\)".*/\1/' <<<"$line")
	a=$(sed 's/.*"a":{"median":\([^,]*\),.*/\1/' <<<"$line")
	b=$(sed 's/.*"b":{"median":\([^,]*\),.*/\1/' <<<"$line")
	r=$(sed 's/.*"ratio":\([^,]*\),.*/\1/' <<<"$line")
	m=$(sed 's/.*"metric":"\([^"]*\)".*/\1/' <<<"$line")
	row=$(grep "^| $job | $m |" "$gen/table.md" | tr -d '|' | tr -s ' ')
	read -r _ _ _ ta tb tr _ <<<"$row"
	[ "$ta $tb $tr" = "$a $b $r" ] || bad="$bad $job(json $a $b $r, table $ta $tb $tr)"
done < <(grep '^{"name":' "$gen/results.json")
if [ -z "$bad" ] && grep -q '^{"name":' "$gen/results.json"; then
	ktap_test_pass "--report output: JSON jobs and table rows agree"
else
	ktap_test_fail "--report output: JSON jobs and table rows agree" "$bad"
fi

# 4: the interval of the ratio, on values whose answer is worked out by
# hand: A = 101..105, B = 201..205 (iops) gives 25 ratios B/A; with 5 and 5
# values the exact Mann-Whitney 95 % interval runs from the 3rd smallest
# (201/104 = 1.933) to the 3rd largest (205/102 = 2.010), confidence
# 1 - 8/252 = 0.968. clat_p99: A = 11..15, B = 10..14 overlaps: the
# interval 10/13 .. 14/12 = 0.733 .. 1.167 holds 1. 3 and 3 values allow
# no 95 % interval at all (the smallest two-sided p is 0.1).
mw=$tmp/mw
mkdir -p "$mw"
echo '{"test":1}' >"$mw/meta.json"
{
	printf 'round\tside\tfs\tjob\tmetric\tvalue\tunit\tseconds\n'
	for i in 1 2 3 4 5; do
		printf '%s\tA\text4\tj\tiops\t%s\tIOPS\t1\n' "$i" $((100 + i))
		printf '%s\tB\text4x\tj\tiops\t%s\tIOPS\t1\n' "$i" $((200 + i))
		printf '%s\tA\text4\tj\tclat_p99\t%s\tus\t1\n' "$i" $((10 + i))
		printf '%s\tB\text4x\tj\tclat_p99\t%s\tus\t1\n' "$i" $((9 + i))
		[ "$i" -gt 3 ] && continue
		printf '%s\tA\text4\tk\tiops\t%s\tIOPS\t1\n' "$i" $((100 + i))
		printf '%s\tB\text4x\tk\tiops\t%s\tIOPS\t1\n' "$i" $((200 + i))
	done
} >"$mw/runs.tsv"
for sh in bash busybox; do
	cmd=("$sh")
	[ "$sh" = busybox ] && cmd=(busybox sh)
	command -v "$sh" >/dev/null || { ktap_test_skip "interval under $sh" "no $sh"; continue; }
	out=$("${cmd[@]}" "$tool" --report "$mw" --no-plot 2>&1)
	want1='| j | iops | IOPS | 103.0 | 203.0 | 1.971 | 1.933..2.010 | B higher (better) |'
	want2='| j | clat_p99 | us | 13.0 | 12.0 | 0.923 | 0.733..1.167 | no difference shown |'
	want3='| k | iops | IOPS | 102.0 | 202.0 | 1.980 | - | too few rounds for an interval |'
	if grep -qxF "$want1" <<<"$out" && grep -qxF "$want2" <<<"$out" &&
		grep -qxF "$want3" <<<"$out" && grep -q '"ci":\[1.933,2.010\],"conf":0.968' "$mw/results.json"; then
		ktap_test_pass "Mann-Whitney interval of B/A under $sh: worked example"
	else
		ktap_test_fail "Mann-Whitney interval of B/A under $sh: worked example" "$out"
	fi
done

# 5: --diff of two results directories: A from the first, B from the second;
# a directory against itself: B's 201..205 against 201..205, 3rd smallest
# ratio 202/205 = 0.985, 3rd largest 205/202 = 1.015
out=$("$tool" --diff "$mw" "$mw" --out "$tmp/diff" --no-plot 2>&1)
rc=$?
if [ "$rc" = 0 ] && grep -qxF '| B:j | iops | IOPS | 203.0 | 203.0 | 1.000 | 0.985..1.015 | no difference shown |' <<<"$out"; then
	ktap_test_pass "--diff DIR DIR: ratio 1, no difference shown"
else
	ktap_test_fail "--diff DIR DIR: ratio 1, no difference shown" "exit $rc" "$out"
fi
out=$("$tool" --diff "$mw" "$tmp/nowhere" --out "$tmp/diff2" 2>&1)
rc=$?
if [ "$rc" = 2 ] && grep -q "nowhere has no runs.tsv" <<<"$out" && [ ! -e "$tmp/diff2" ]; then
	ktap_test_pass "--diff with a directory without results: exit 2, nothing written"
else
	ktap_test_fail "--diff with a directory without results: exit 2, nothing written" "exit $rc: $out"
fi

# the chart of a results file with intervals and latency: three panels
if command -v gnuplot >/dev/null; then
	out=$("$top/tools/ext4x-compare/plot.sh" "$mw/results.json" "$tmp/mw.png" 2>&1)
	rc=$?
	sig=$(head -c 8 "$tmp/mw.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
	if [ "$rc" = 0 ] && [ "$sig" = 89504e470d0a1a0a ]; then
		ktap_test_pass "plot.sh draws intervals and the latency panel"
	else
		ktap_test_fail "plot.sh draws intervals and the latency panel" "exit $rc" "$out"
	fi
fi

# 6: stats.md from statistics snapshots: the change of every number,
# summed over the rounds; an unchanged number is left out; a line with
# several numbers names each by its position
st=$tmp/st
mkdir -p "$st"
cp "$fix/runs.tsv" "$fix/meta.json" "$st/"
for r in 1 2; do
	mkdir -p "$st/stats/B/alloc-$r.before" "$st/stats/B/alloc-$r.after"
	printf 'mballoc:\n\treqs: %s\n\tsame: 7\n\t%s/2 cache hits/misses\n' $((r * 10)) "$r" \
		>"$st/stats/B/alloc-$r.before/mb_stats"
	printf 'mballoc:\n\treqs: %s\n\tsame: 7\n\t%s/2 cache hits/misses\n' $((r * 10 + 4)) $((r + 3)) \
		>"$st/stats/B/alloc-$r.after/mb_stats"
done
"$tool" --report "$st" --no-plot >/dev/null 2>&1
if grep -qxF '| B | alloc | mb_stats | mballoc: reqs: # | 8 |' "$st/stats.md" &&
	grep -qxF '| B | alloc | mb_stats | mballoc: #/# cache hits/misses [1] | 6 |' "$st/stats.md" &&
	! grep -q 'same\|\[2\]' "$st/stats.md"; then
	ktap_test_pass "stats.md sums the changes of the statistics over the rounds"
else
	ktap_test_fail "stats.md sums the changes of the statistics over the rounds" "$(cat "$st/stats.md" 2>&1)"
fi

# 7: refusals that need no device
out=$("$tool" --device "$tmp/nonexistent" --out "$tmp/r1" 2>&1)
rc=$?
if [ "$rc" = 3 ] && grep -q "no such device" <<<"$out" && [ ! -e "$tmp/r1" ]; then
	ktap_test_pass "refuses a missing device"
else
	ktap_test_fail "refuses a missing device" "exit $rc: $out"
fi
: >"$tmp/plain"
out=$("$tool" --device "$tmp/plain" --out "$tmp/r2" 2>&1)
rc=$?
if [ "$rc" = 3 ] && grep -q "not a block device" <<<"$out" && [ ! -s "$tmp/plain" ] &&
	[ ! -e "$tmp/r2" ]; then
	ktap_test_pass "refuses a regular file"
else
	ktap_test_fail "refuses a regular file" "exit $rc: $out"
fi
out=$("$tool" --device /dev/null --rounds x 2>&1)
rc=$?
if [ "$rc" = 2 ] && grep -q "not a number" <<<"$out"; then
	ktap_test_pass "bad usage exits 2"
else
	ktap_test_fail "bad usage exits 2" "exit $rc: $out"
fi

# refused DESC STATUS PATTERN DIR CMD...: CMD (run with --out DIR) exits
# STATUS with a message matching PATTERN, and DIR does not appear
refused() {
	local desc=$1 want=$2 pat=$3 dir=$4 out rc
	shift 4
	out=$("$@" --out "$dir" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && grep -q -- "$pat" <<<"$out" && [ ! -e "$dir" ]; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc" "exit $rc (want $want): $out"
	fi
}

# 8: --threads takes a count or a list of distinct counts >= 1
for arg in 0 x 1,,2 2,2 ,1; do
	refused "--threads $arg: exit 2, nothing written" 2 "--threads" "$tmp/t-$arg" \
		"$tool" --device /dev/null --threads "$arg"
done

# 9: a thread sweep's scaling table, worked out by hand. randread: A at 1
# thread 100,110,120 (median 110), at 2: 200,220,240 (220); B at 1:
# 150,160,170 (160), at 2: 450,480,510 (480). At 2 threads B/A = 480/220
# = 2.182, A against its own 1-thread median 220/110 = 2.00x, B 480/160 =
# 3.00x. xattr, 1 and 4 threads: A flat at 50 (1.00x), B 60 then 240.
sw=$tmp/sweep
mkdir -p "$sw"
echo '{"kernel":"k","rounds":3,"threads":4,"thread_counts":[1,2,4]}' >"$sw/meta.json"
{
	printf 'round\tside\tfs\tjob\tmetric\tvalue\tunit\tseconds\n'
	for i in 1 2 3; do
		printf '%s\tA\text4\trandread@1\tiops\t%s\tIOPS\t1\n' "$i" $((90 + 10 * i))
		printf '%s\tA\text4\trandread@2\tiops\t%s\tIOPS\t1\n' "$i" $((180 + 20 * i))
		printf '%s\tB\text4x\trandread@1\tiops\t%s\tIOPS\t1\n' "$i" $((140 + 10 * i))
		printf '%s\tB\text4x\trandread@2\tiops\t%s\tIOPS\t1\n' "$i" $((420 + 30 * i))
		printf '%s\tA\text4\txattr@1\tops\t50\tops/s\t1\n' "$i"
		printf '%s\tA\text4\txattr@4\tops\t50\tops/s\t1\n' "$i"
		printf '%s\tB\text4x\txattr@1\tops\t60\tops/s\t1\n' "$i"
		printf '%s\tB\text4x\txattr@4\tops\t240\tops/s\t1\n' "$i"
	done
} >"$sw/runs.tsv"
out=$("$tool" --report "$sw" --no-plot 2>&1)
rc=$?
want1='| randread | iops | 1 | 110.0 | 160.0 | 1.455 | 1.00x | 1.00x |'
want2='| randread | iops | 2 | 220.0 | 480.0 | 2.182 | 2.00x | 3.00x |'
want3='| xattr | ops | 4 | 50.0 | 240.0 | 4.800 | 1.00x | 4.00x |'
json='{"job":"randread","metric":"iops","points":[{"threads":1,"a":110.0,"b":160.0,"ratio":1.455},{"threads":2,"a":220.0,"b":480.0,"ratio":2.182}]},'
if [ "$rc" = 0 ] && grep -qxF "$want1" <<<"$out" && grep -qxF "$want2" <<<"$out" &&
	grep -qxF "$want3" <<<"$out" && grep -qxF "$json" "$sw/results.json" &&
	! grep -q '^Scaling' "$tmp/report-bash/table.md"; then
	ktap_test_pass "a thread sweep's scaling table and JSON: worked example"
else
	ktap_test_fail "a thread sweep's scaling table and JSON: worked example" "exit $rc" "$out" \
		"$(grep -A 3 '"scaling"' "$sw/results.json")"
fi

# the chart of a sweep gains the scaling row: 1300 pixels high, not 900
# (the PNG's IHDR height, bytes 21-24)
pngh() { od -An -tu1 -j 20 -N 4 "$1" 2>/dev/null | awk '{ print (($1 * 256 + $2) * 256 + $3) * 256 + $4 }'; }
if command -v gnuplot >/dev/null; then
	out=$("$top/tools/ext4x-compare/plot.sh" "$sw/results.json" "$tmp/sweep.png" 2>&1)
	rc=$?
	if [ "$rc" = 0 ] && [ "$(pngh "$tmp/sweep.png")" = 1300 ] &&
		[ "$(pngh "$tmp/out.png")" = 900 ]; then
		ktap_test_pass "plot.sh adds the scaling panel to a sweep's chart"
	else
		ktap_test_fail "plot.sh adds the scaling panel to a sweep's chart" "exit $rc," \
			"heights $(pngh "$tmp/sweep.png") and $(pngh "$tmp/out.png")" "$out"
	fi
fi

# 10: --perf-c2c is refused, before the device is looked at and with
# nothing written, when it cannot record: no job it records, no perf, a
# perf that cannot sample (a stub here; the real one below)
refused "--perf-c2c without randread or randrw: exit 2" 2 \
	"perf-c2c records the randread and randrw jobs" "$tmp/c0" \
	"$tool" --device /dev/null --jobs xattr --perf-c2c
# a PATH with everything of /usr/bin and /usr/sbin but perf
mkdir -p "$tmp/noperf"
for f in /usr/bin/* /usr/sbin/*; do
	b=${f##*/}
	[ "$b" = perf ] || [ -e "$tmp/noperf/$b" ] || ln -s "$f" "$tmp/noperf/$b"
done
refused "--perf-c2c without perf: exit 1, nothing written" 1 \
	"perf not found (install linux-perf)" "$tmp/c1" \
	env PATH="$tmp/noperf" "$tool" --device /dev/null --jobs randread --perf-c2c
mkdir -p "$tmp/badperf"
printf '#!/bin/sh\necho "stub: no load-latency events on this CPU" >&2\nexit 255\n' \
	>"$tmp/badperf/perf"
chmod +x "$tmp/badperf/perf"
refused "--perf-c2c with a perf that cannot sample: exit 1 with perf's reason" 1 \
	"perf c2c cannot record here: stub: no load-latency events on this CPU" "$tmp/c2" \
	env PATH="$tmp/badperf:$PATH" "$tool" --device /dev/null --jobs randread --perf-c2c
left=$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'ext4x-compare-c2c.*' -newer "$tmp/badperf/perf")
if [ -z "$left" ]; then
	ktap_test_pass "--perf-c2c's refused trial record leaves no file behind"
else
	ktap_test_fail "--perf-c2c's refused trial record leaves no file behind" "$left"
fi
# the real perf, where there is one: either it cannot sample here (exit 1
# with its reason) or it can and the device is what is refused (exit 3)
if command -v perf >/dev/null; then
	out=$("$tool" --device "$tmp/nonexistent" --jobs randread --perf-c2c --out "$tmp/c3" 2>&1)
	rc=$?
	if { [ "$rc" = 1 ] && grep -q "perf c2c cannot record here: ." <<<"$out"; } ||
		{ [ "$rc" = 3 ] && grep -q "no such device" <<<"$out"; }; then
		ktap_test_pass "--perf-c2c with this machine's perf: exit $rc ($(tail -n 1 <<<"$out"))"
	else
		ktap_test_fail "--perf-c2c with this machine's perf" "exit $rc: $out"
	fi
else
	ktap_test_skip "--perf-c2c with this machine's perf" "no perf (apt-get install linux-perf)"
fi

ktap_finished
