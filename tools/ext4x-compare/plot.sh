#!/bin/sh
# plot.sh RESULTS.json OUT.png: the chart of an ext4x-compare results file.
# Top: per job, bars of A and B for its main metric (IOPS or ops/s), scaled
# to A's median (so jobs in different units share one axis), error bars
# min..max of the rounds, the tick labels carry A's median in its unit.
# Below, left: B/A of every job and metric with its 95 % interval (a dot
# without bars where the rounds give no interval), the line at 1 for "no
# difference". Below, right, when fio measured latency: the median clat
# p50, p99 and p99.9 of A and B per job, log scale. At the bottom, when
# jobs were run at several thread counts (--threads N1,N2,...): each such
# job's main metric against the thread count, A and B, relative to A at the
# smallest count, so a line that stays flat is a side that does not scale.
# Needs gnuplot (Debian:
# gnuplot-nox). POSIX sh + awk: reads the format the tool writes (one
# object per line), not arbitrary JSON.
set -eu
[ $# -eq 2 ] || { echo "usage: plot.sh RESULTS.json OUT.png" >&2; exit 2; }
json=$1 png=$2
[ -r "$json" ] || { echo "plot.sh: cannot read $json" >&2; exit 1; }
command -v gnuplot >/dev/null 2>&1 ||
	{ echo "plot.sh: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# data: label a a_lo a_hi b b_lo b_hi (relative to A's median)
# ratios: index "label" ratio lo hi (lo = hi = ratio without an interval)
# latency: label a b (us), one line per job and percentile
# scaling: per swept job a block "threads a b" (relative to A at the
# fewest threads), blocks apart by two empty lines; sjobs: their names
awk -v dir="$tmp" '
	function num(s, key,    t) {
		if (!match(s, "\"" key "\":-?[0-9.eE+-]+")) return ""
		t = substr(s, RSTART, RLENGTH)
		sub(/^"[^"]*":/, "", t)
		return t + 0
	}
	function str(s, key,    t) {
		if (!match(s, "\"" key "\":\"[^\"]*\"")) return ""
		t = substr(s, RSTART, RLENGTH)
		sub(/^"[^"]*":"/, "", t); sub(/"$/, "", t)
		return t
	}
	function human(x) {
		if (x >= 1e6) return sprintf("%.2fM", x / 1e6)
		if (x >= 1e3) return sprintf("%.1fk", x / 1e3)
		return sprintf("%.0f", x)
	}
	/"fs_a":/ { fa = str($0, "fs_a"); fb = str($0, "fs_b") }
	/^\{"name":/ {
		name = str($0, "name"); unit = str($0, "unit")
		i = index($0, "\"b\":{")
		a = substr($0, 1, i - 1); b = substr($0, i)
		am = num(a, "median")
		if (am <= 0) next
		printf "\"%s\\n(A %s %s)\" %g %g %g %g %g %g\n", name, human(am), unit,
			1, num(a, "min") / am, num(a, "max") / am,
			num(b, "median") / am, num(b, "min") / am, num(b, "max") / am > (dir "/data")
		n++
	}
	/^\{"job":.*"points":\[/ {
		job = str($0, "job")
		t = $0; sub(/.*"points":\[/, "", t)
		np = split(t, pt, /\},?/)
		a1 = 0
		if (ns++) printf "\n\n" > (dir "/scaling")
		for (k = 1; k <= np; k++) {
			if (pt[k] !~ /"threads":/) continue
			if (a1 == 0) a1 = num(pt[k], "a")
			if (a1 <= 0) break
			printf "%d %g %g\n", num(pt[k], "threads"), num(pt[k], "a") / a1,
				num(pt[k], "b") / a1 > (dir "/scaling")
		}
		print job > (dir "/sjobs")
		next
	}
	/^\{"job":/ {
		job = str($0, "job"); m = str($0, "metric")
		r = num($0, "ratio")
		if (r == "") next
		lo = r; hi = r
		if (match($0, /"ci":\[[0-9.]+,[0-9.]+\]/)) {
			t = substr($0, RSTART + 6, RLENGTH - 7)
			split(t, c, ",")
			lo = c[1]; hi = c[2]
		}
		printf "%d \"%s %s\" %g %g %g\n", nr++, job, m, r, lo, hi > (dir "/ratios")
		if (m ~ /^clat_/) {
			i = index($0, "\"b\":{")
			printf "\"%s %s\" %g %g\n", job, substr(m, 6), num(substr($0, 1, i - 1), "median"),
				num(substr($0, i), "median") > (dir "/latency")
		}
	}
	END {
		printf "%s\n%s\n", (fa == "" ? "A" : fa), (fb == "" ? "B" : fb) > (dir "/names")
		printf "%d\n", nr > (dir "/nratios")
		if (!n) { print "plot.sh: no jobs in the file" > "/dev/stderr"; exit 1 }
	}' "$json"

fa=$(sed -n 1p "$tmp/names")
fb=$(sed -n 2p "$tmp/names")
nr=$(cat "$tmp/nratios")
title=$(sed -n 's/.*"kernel":"\([^"]*\)".*"threads":\([0-9]*\).*/kernel \1, \2 threads/p' "$json" | head -n 1)
counts=$(sed -n 's/.*"thread_counts":\[\([0-9,]*,[0-9,]*\)\].*/\1/p' "$json" | head -n 1)
[ -z "$counts" ] || title=$(echo "$title" | sed "s/, [0-9]* threads$/, threads $counts/")
rounds=$(sed -n 's/.*"rounds":\([0-9]*\).*/\1/p' "$json" | head -n 1)

# with a thread sweep the canvas grows by a row for the scaling panel;
# rows: top (bars), mid (B/A, latency), bottom (scaling)
if [ -s "$tmp/scaling" ]; then
	height=1300 top=0.67 topsize=0.33 mid=0.34 row=0.33
else
	height=900 top=0.5 topsize=0.5 mid=0 row=0.5
fi
term="pngcairo size 1100,$height font \",10\""
gnuplot -e 'set terminal' 2>/dev/null | grep -q pngcairo || term="png size 1100,$height"

cat >"$tmp/plot.gp" <<EOF
set terminal $term
set output '$png'
set termoption noenhanced
set multiplot
set origin 0,$top
set size 1,$topsize
set title "ext4x-compare: A = $fa, B = $fb (median of ${rounds:-?} rounds, bars: min..max)\\n$title"
set ylabel "relative to A's median"
set yrange [0:*]
set grid ytics
set key top right
set style data histogram
set style histogram errorbars gap 2 lw 1.5
set style fill solid 0.7 border -1
set boxwidth 0.9
set xtics nomirror
set bmargin 4
plot '$tmp/data' using 2:3:4:xtic(1) title "A: $fa" lc rgb "#4c72b0", \\
     '' using 5:6:7 title "B: $fb" lc rgb "#dd8452", \\
     1 notitle lc rgb "#888888" dt 2
reset
EOF
if [ "$nr" -gt 0 ]; then
	if [ -s "$tmp/latency" ]; then
		echo "set origin 0,$mid" >>"$tmp/plot.gp"
		echo "set size 0.5,$row" >>"$tmp/plot.gp"
	else
		echo "set origin 0,$mid" >>"$tmp/plot.gp"
		echo "set size 1,$row" >>"$tmp/plot.gp"
	fi
	cat >>"$tmp/plot.gp" <<EOF
set title "B/A with its 95 % interval (Mann-Whitney)\\na dot alone: too few rounds"
set xlabel "B/A"
set ytics nomirror
set yrange [$nr - 0.5:-0.5]
set grid xtics
set arrow from 1, graph 0 to 1, graph 1 nohead lc rgb "#888888" dt 2
plot '$tmp/ratios' using 3:1:4:5:ytic(2) with xerrorbars pt 7 lc rgb "#dd8452" notitle
reset
EOF
fi
if [ -s "$tmp/latency" ]; then
	# a log axis draws bars from its bottom: put it a decade below the
	# smallest value, or a p50 at the bottom of gnuplot's range shows nothing
	ylo=$(awk '{ for (i = NF - 1; i <= NF; i++) if ($i > 0 && (m == "" || $i < m)) m = $i }
		END { if (m == "") m = 1; print 10 ^ (int(log(m) / log(10) + 100) - 101) }' "$tmp/latency")
	cat >>"$tmp/plot.gp" <<EOF
set origin 0.5,$mid
set size 0.5,$row
set title "completion latency (us)\\nmedian of the rounds"
set logscale y
set yrange [$ylo:*]
set grid ytics
set key top left
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set xtics rotate by 45 right nomirror font ",9"
plot '$tmp/latency' using 2:xtic(1) title "A: $fa" lc rgb "#4c72b0", \\
     '' using 3 title "B: $fb" lc rgb "#dd8452"
reset
EOF
fi
if [ -s "$tmp/scaling" ]; then
	# one colour per job; A with dots, B with squares
	cmd='' i=0
	while read -r job; do
		c=$(echo '#4c72b0 #dd8452 #55a868 #c44e52 #8172b2 #937860' |
			cut -d ' ' -f $((i % 6 + 1)))
		cmd="$cmd${cmd:+, }'$tmp/scaling' index $i using 1:2 with linespoints"
		cmd="$cmd lw 2 pt 7 lc rgb '$c' title 'A: $fa $job'"
		cmd="$cmd, '' index $i using 1:3 with linespoints lw 2 pt 5 dt 2"
		cmd="$cmd lc rgb '$c' title 'B: $fb $job'"
		i=$((i + 1))
	done <"$tmp/sjobs"
	cat >>"$tmp/plot.gp" <<EOF
set origin 0,0
set size 1,$row
set title "scaling: median against thread count, relative to A at the fewest threads"
set xlabel "threads"
set ylabel "relative to A at the fewest threads"
set logscale x 2
set xtics nomirror
set yrange [0:*]
set grid xtics ytics
set key outside right
plot $cmd
EOF
fi
echo 'unset multiplot' >>"$tmp/plot.gp"
gnuplot "$tmp/plot.gp"
[ -s "$png" ] || { echo "plot.sh: gnuplot wrote no $png" >&2; exit 1; }
