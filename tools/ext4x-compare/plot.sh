#!/bin/sh
# plot.sh RESULTS.json OUT.png: bar chart of an ext4x-compare results file.
# Each job gets two bars, A and B, scaled to A's median (so jobs measured in
# different units share one axis); the error bars span min..max of the
# rounds; the tick labels carry A's median in its unit. Needs gnuplot
# (Debian: gnuplot-nox). POSIX sh + awk: reads the format the tool writes
# (one job object per line), not arbitrary JSON.
set -eu
[ $# -eq 2 ] || { echo "usage: plot.sh RESULTS.json OUT.png" >&2; exit 2; }
json=$1 png=$2
[ -r "$json" ] || { echo "plot.sh: cannot read $json" >&2; exit 1; }
command -v gnuplot >/dev/null 2>&1 ||
	{ echo "plot.sh: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# data: label a a_lo a_hi b b_lo b_hi (relative to A's median)
awk '
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
			num(b, "median") / am, num(b, "min") / am, num(b, "max") / am
		n++
	}
	END {
		printf "%s\n%s\n", (fa == "" ? "A" : fa), (fb == "" ? "B" : fb) > "'"$tmp"'/names"
		if (!n) { print "plot.sh: no jobs in the file" > "/dev/stderr"; exit 1 }
	}' "$json" >"$tmp/data"

fa=$(sed -n 1p "$tmp/names")
fb=$(sed -n 2p "$tmp/names")
title=$(sed -n 's/.*"kernel":"\([^"]*\)".*"threads":\([0-9]*\).*/kernel \1, \2 threads/p' "$json" | head -n 1)
rounds=$(sed -n 's/.*"rounds":\([0-9]*\).*/\1/p' "$json" | head -n 1)

term='pngcairo size 900,540 font ",10"'
gnuplot -e 'set terminal' 2>/dev/null | grep -q pngcairo || term='png size 900,540'

cat >"$tmp/plot.gp" <<EOF
set terminal $term
set output '$png'
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
plot '$tmp/data' using 2:3:4:xtic(1) title "A: $fa" lc rgb "#4c72b0", \
     '' using 5:6:7 title "B: $fb" lc rgb "#dd8452", \
     1 notitle lc rgb "#888888" dt 2
EOF
gnuplot "$tmp/plot.gp"
[ -s "$png" ] || { echo "plot.sh: gnuplot wrote no $png" >&2; exit 1; }
