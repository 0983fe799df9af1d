#!/bin/bash
# make bench-coherence: cache-line transfers per operation, stock ext4
# against ext4x, counted by the coherence plugin in one guest boot
# (tests/standalone/bench-coherence.sh drives it; tests/coherence/README.md
# says what the figures mean and what they cannot show). Prints and writes
# RESULTS/bench-coherence.md:
#   - the calibration (two pinned threads incrementing one atomic counter,
#     then private ones), first, before every round and last: median and
#     range; when the median shared increment costs under COH_MIN_SHARED
#     transfers the two vCPU threads did not run at the same time and
#     nothing is reported ("host too busy")
#   - per job and side, transfers per I/O on RAM lines (the kernel's own
#     data) and on NVDIMM lines (file data), each the difference between
#     the 3N and the N run over 2N I/Os a thread: median and range over
#     the rounds; the ratio ours / stock (ext4x, or mbcache2 for the mb- jobs)
#   - per job, the 10 (EXT4X_COH_TOP) functions that cause the most RAM-line
#     transfers, per I/O, stock against ext4x (the guest's own /proc/kallsyms)
#   - per job and side, the 10 lines with the most transfers in round 1's
#     long run, per I/O, with the function that last moved each
# A benchmark: it reports numbers and fails only when it could not run.
# Usage: tests/coherence/bench.sh KVER MODULES RESULTS
#        tests/coherence/bench.sh --report RESULTS   (the tables again, from
#                                 the files of an earlier run)
# Environment: EXT4X_COH_ROUNDS (3), EXT4X_COH_IOS (1000), EXT4X_COH_TOP (10)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=tests/vm/common.sh
. "$top/tests/vm/common.sh"
# shellcheck source=tests/coherence/lib.sh
. "$here/lib.sh"
# Below this many transfers per shared increment the vCPUs took turns: a
# quiet host gave 0.15-0.67, one running make check beside 0.001-0.002.
COH_MIN_SHARED=0.1

run_guest() {
	local kver=$1 modules=$2 rounds=${EXT4X_COH_ROUNDS:-3} ios=${EXT4X_COH_IOS:-1000} so rc=0
	[[ $rounds =~ ^[0-9]+$ ]] && [ "$rounds" -ge 1 ] && [ "$rounds" -le 20 ] ||
		die "EXT4X_COH_ROUNDS=$rounds: want 1 to 20"
	[[ $ios =~ ^[0-9]+$ ]] && [ "$ios" -ge 100 ] || die "EXT4X_COH_IOS=$ios: want 100 or more"
	so=$("$here/build.sh")
	rm -rf "$res"
	mkdir -p "$res"
	"$top/tests/vm/run-guest.sh" --kver "$kver" --modules "$modules" --bench \
		--tests bench-coherence --timeout 3600 --results "$res" \
		--append "nokaslr clocksource=tsc tsc=reliable ext4x_coh_rounds=$rounds ext4x_coh_ios=$ios" \
		--plugin "$so,out=$res/coherence.out,pmem=$COH_PMEM" >"$res/guest.log" 2>&1 || rc=$?
	tail -n 3 "$res/guest.log"
	[ "$rc" -eq 0 ] || die "the guest failed (exit $rc): $res/guest.log"
}

if [ "${1:-}" = --report ] && [ $# -eq 2 ]; then
	res=$2
else
	[ $# -eq 3 ] || die "usage: bench.sh KVER MODULES RESULTS | bench.sh --report RESULTS"
	res=$3
	run_guest "$1" "$2"
fi
[[ ${EXT4X_COH_TOP:-10} =~ ^[1-9][0-9]*$ ]] || die "EXT4X_COH_TOP=${EXT4X_COH_TOP-}: want a count of functions, 1 or more"
out=$res/coherence.out
coh_pmem_agrees "$res/serial.log" ||
	die "the guest's NVDIMM is not at $COH_PMEM (its /proc/iomem: $(grep -a 'coherence: pmem' "$res/serial.log"))"
[ -s "$res/kallsyms.gz" ] || die "the guest handed back no kallsyms.gz"

# "K|LABEL|N" of each window (N operations), from the console
tr -d '\r' <"$res/serial.log" | sed -n 's/^ *coherence: window \([0-9]*\) \(.*\) ops \([0-9]*\)$/\1|\2|\3/p' \
	>"$res/labels"
coh_windows "$out" >"$res/windows"
# per window and site: "K ADDR TRANSFERS"
awk '$1 == "window" { w = $2 } $1 == "site" { print w, $2, $3 + $4 }' "$out" >"$res/sites"
# ext4x's functions are ext4's renamed: one name for both, so that the two
# sides line up ("ext4_mark_iloc_dirty [ext4]" for ext4x_mark_iloc_dirty too)
zcat "$res/kallsyms.gz" | awk '{
	n = $3; m = $4
	if (m == "[ext4x]") { m = "[ext4]"; sub(/^ext4x_/, "ext4_", n) }
	print $1, n (m != "" ? " " m : "") }' | sort >"$res/symbols"

report() {
	awk -v min="$COH_MIN_SHARED" -v symfile="$res/symbols" -v sitefile="$res/sites" \
		-v ntop="${EXT4X_COH_TOP:-10}" '
	function median(list, n,   a, i, j, t) {
		n = split(list, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		lo = a[1]; hi = a[n]
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	# symbol of an address: the greatest symbol at or below it
	function sym(addr,   lo2, hi2, mid) {
		if (addr in symcache) return symcache[addr]
		lo2 = 1; hi2 = nsym
		if (nsym == 0 || addr < saddr[1]) return symcache[addr] = addr
		while (lo2 < hi2) {
			mid = int((lo2 + hi2 + 1) / 2)
			if (saddr[mid] <= addr) lo2 = mid; else hi2 = mid - 1
		}
		return symcache[addr] = sname[lo2]
	}
	BEGIN {
		while ((getline l < symfile) > 0) {
			split(l, f, " "); nsym++
			saddr[nsym] = sprintf("%016s", f[1]); sname[nsym] = f[2] (f[3] != "" ? " " f[3] : "")
		}
	}
	FNR == 1 { file++ }
	file == 1 { split($0, f, "|"); label[f[1]] = f[2]; ops[f[1]] = f[3]; if (f[1] + 0 > maxk) maxk = f[1] + 0; next }
	file == 2 { dw[$1] = $3 + $4; pw[$1] = $5 + $6; acc[$1] = $7; drop[$1] = $8; next }
	END {
		# calibration
		print "## Calibration (transfers per increment; all accesses counted)"
		print ""
		print "| | shared counter | private counters |"
		print "| --- | --- | --- |"
		cs = cp = ""; ncal = 0
		for (k = 0; k <= maxk; k++) {
			if (!(k in label)) continue
			if (label[k] == "calib-shared") cs = cs " " (dw[k] + pw[k]) / ops[k]
			if (label[k] == "calib-private") { cp = cp " " (dw[k] + pw[k]) / ops[k]; ncal++ }
			if (drop[k] > 0) dropped += drop[k]
		}
		ms = median(cs); ls = lo; hs = hi
		mp = median(cp); lp = lo; hp = hi
		printf "| median of %d (min-max) | %.3f (%.3f-%.3f) | %.4f (%.4f-%.4f) |\n", ncal, ms, ls, hs, mp, lp, hp
		print ""
		if (ncal < 2 || ms < min) {
			printf "host too busy: a shared increment cost under %s transfers, so the two vCPU threads did not run at the same time; nothing else is reported.\n", min
			exit 3
		}
		if (dropped) printf "warning: %d accesses found no free slot in the plugin'"'"'s tables\n\n", dropped
		# per job and side: the long run minus the short one, per round
		for (k = 0; k <= maxk; k++) {
			if (!(k in label)) continue
			n = split(label[k], f, " ")
			if (n != 4) continue
			key = f[3] " " f[2]; r = f[1]
			if (f[4] == "x1") { sd[key, r] = dw[k]; sp[key, r] = pw[k]; so[key, r] = ops[k]; sk[key, r] = k }
			else {
				d = ops[k] - so[key, r]
				rd[key] = rd[key] " " (dw[k] - sd[key, r]) / d
				rp[key] = rp[key] " " (pw[k] - sp[key, r]) / d
				longk[key, r] = k; shortk[key, r] = sk[key, r]; delta[key, r] = d
				jobs[f[3]] = 1; rounds[r] = 1
			}
		}
		print "## Transfers per operation (3N run minus N run; median over rounds, range)"
		print ""
		print "A I/O of the file-system jobs (stock ext4 against ext4x), an xattr call of xattr, a"
		print "cache operation of the mb- jobs (stock mbcache against mbcache2)."
		print ""
		print "| job | RAM lines, stock | RAM lines, ours | ours / stock | NVDIMM lines, stock | NVDIMM lines, ours |"
		print "| --- | --- | --- | --- | --- | --- |"
		njobs = split("randread randwrite alloc xattr mb-insert mb-lookup mb-apart mb-churn mb-mixed", order, " ")
		for (j = 1; j <= njobs; j++) {
			job = order[j]; if (!(job in jobs)) continue
			ma = median(rd[job " A"]); la = lo; ha = hi
			mb = median(rd[job " B"]); lb = lo; hb = hi
			pa = median(rp[job " A"]); pb = median(rp[job " B"])
			printf "| %s | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) | %s | %.2f | %.2f |\n", job, ma, la, ha, mb, lb, hb,
				(ma > 0 ? sprintf("%.2f", mb / ma) : "-"), pa, pb
		}
		# the micro operations: one side (M), kernel accesses as for the jobs
		nm = split("pcs percpu_stats_inc pcc percpu_counter_inc atomic atomic_long_inc", mname, " ")
		if ((mname[1] " M") in rd) {
			print ""
			print "## One counter incremented from both CPUs (transfers per increment)"
			print ""
			print "| operation | RAM lines |"
			print "| --- | --- |"
			for (j = 1; j < nm; j += 2) {
				if (!((mname[j] " M") in rd)) continue
				mm = median(rd[mname[j] " M"])
				printf "| %s | %.3f (%.3f-%.3f) |\n", mname[j + 1], mm, lo, hi
			}
		}
		# functions: per side, the sum over rounds of (long - short) per I/O, averaged
		while ((getline l < sitefile) > 0) {
			split(l, f, " "); site[f[1], f[2]] += f[3]; sites[f[1]] = sites[f[1]] " " f[2]
		}
		for (j = 1; j <= njobs; j++) {
			job = order[j]; if (!(job in jobs)) continue
			delete fn; delete names; nr = 0
			for (r in rounds) {
				nr++
				for (side = 1; side <= 2; side++) {
					s = side == 1 ? "A" : "B"
					kl = longk[job " " s, r]; ks = shortk[job " " s, r]
					n = split(sites[kl], a, " ")
					for (i = 1; i <= n; i++) fn[s, sym(sprintf("%016s", substr(a[i], 3)))] += site[kl, a[i]] / delta[job " " s, r]
					n = split(sites[ks], a, " ")
					for (i = 1; i <= n; i++) fn[s, sym(sprintf("%016s", substr(a[i], 3)))] -= site[ks, a[i]] / delta[job " " s, r]
				}
			}
			for (x in fn) { split(x, f, SUBSEP); names[f[2]] = 1 }
			m = 0
			for (nm in names) { m++; top[m] = nm; val[m] = (fn["A", nm] > fn["B", nm] ? fn["A", nm] : fn["B", nm]) }
			for (i = 1; i <= m; i++) for (jj = i + 1; jj <= m; jj++)
				if (val[jj] > val[i]) { t = val[i]; val[i] = val[jj]; val[jj] = t; t = top[i]; top[i] = top[jj]; top[jj] = t }
			print ""
			printf "### %s: functions with the most RAM-line transfers per operation (mean over rounds)\n\n", job
			print "| function | stock | ours |"
			print "| --- | --- | --- |"
			for (i = 1; i <= m && i <= ntop; i++)
				printf "| %s | %.3f | %.3f |\n", top[i], fn["A", top[i]] / nr, fn["B", top[i]] / nr
		}
	}' "$res/labels" "$res/windows"
}
# lines: per job and side, the ten lines with the most transfers in round
# 1's long run, per I/O of that run, with the function of the last
# instruction that moved each. Lines are objects (a lock, an inode's
# rwsem), different on the two sides, so they are listed, not paired.
lines_report() {
	local job side k
	for job in randread randwrite alloc xattr; do
		grep -q "|r1 A $job x3|" "$res/labels" || continue
		printf '
### %s: lines with the most transfers per I/O (round 1, the 3N run)

' "$job"
		echo "| side | line | write | read | function |"
		echo "| --- | --- | --- | --- | --- |"
		for side in A B; do
			k=$(awk -F'|' -v l="r1 $side $job x3" '$2 == l { print $1 "|" $3 }' "$res/labels")
			awk -v w="${k%|*}" -v ops="${k#*|}" -v side="$([ "$side" = A ] && echo stock || echo ext4x)" \
				-v symfile="$res/symbols" '
				BEGIN { while ((getline l < symfile) > 0) { split(l, f, " "); n++; a[n] = f[1]; nm[n] = f[2] (f[3] != "" ? " " f[3] : "") } }
				function sym(x,   lo, hi, mid) {
					lo = 1; hi = n
					if (x < a[1]) return "?"
					while (lo < hi) { mid = int((lo + hi + 1) / 2); if (a[mid] <= x) lo = mid; else hi = mid - 1 }
					return nm[lo]
				}
				$1 == "window" { on = ($2 == w) }
				on && $1 == "line" && shown < 10 {
					shown++
					printf "| %s | %s | %.3f | %.3f | %s |\n", side, $2, $3 / ops, $4 / ops, sym(sprintf("%016s", substr($5, 3)))
				}' "$out"
		done
	done
}

status=0
{ report && lines_report; } >"$res/bench-coherence.md" || status=$?
cat "$res/bench-coherence.md"
echo
echo "results: $res (plugin records: coherence.out, console: serial.log)"
exit "$status"
