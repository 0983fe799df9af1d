#!/bin/sh
# ext4x-compare (tools/ext4x-compare): each refusal (missing device, non-DAX
# device, existing file system or partition table without --force, mounted
# device, bad usage) prints its message, exits 3 (2 for usage) and leaves the
# device's first MiB and the results path untouched; one short round of every
# job writes a table, a JSON file and a progress log that agree with each
# other, keeps fio's JSON per run and side, snapshots the file system
# statistics around each run (the alloc job moves ext4x's mb_stats) and
# records what the meta file promises (all with the ext4x-tools package's
# installed command when the guest has it); without fio it stops in one line,
# and a fio that fails is reported per run while the runs that worked are
# still summarised; a --threads sweep runs every job at each count and
# --perf-c2c records one run per side (with a stand-in perf). Numbers are
# not judged. The host
# checks the chart and the statistics (test-compare-plot).
# timeout: 300
. /tests/vm/guest/lib.sh

# The ext4x-tools package's command when the guest has the package
# (ext4x_tools=1: make check installs it), else the tree's copy.
tool=/tools/ext4x-compare/ext4x-compare
if [ "$(boot_param ext4x_tools)" = 1 ]; then
	tool=/usr/sbin/ext4x-compare
	ktap_check "the ext4x-tools package is installed: command and helpers" \
		test -x $tool -a -x /usr/libexec/ext4x/xattr-load -a -x /usr/libexec/ext4x/statx-dax
fi
ktap_print_msg "compare runs $tool"
dev=/dev/pmem0
sum1() { dd if="$1" bs=1M count=1 2>/dev/null | md5sum | cut -d' ' -f1; }

# refusal DESC STATUS PATTERN DEVICE ARGS...: the tool exits STATUS with a
# message matching PATTERN, the device's first MiB is unchanged and no
# results directory appears.
refusal() {
	_desc=$1 _want=$2 _pat=$3 _d=$4
	shift 4
	_before=none
	[ ! -b "$_d" ] || _before=$(sum1 "$_d")
	rm -rf /tmp/refused
	_out=$("$tool" --device "$_d" --out /tmp/refused --no-plot --rounds 1 \
		--runtime 1 "$@" 2>&1)
	_rc=$?
	_after=none
	[ ! -b "$_d" ] || _after=$(sum1 "$_d")
	if [ "$_rc" = "$_want" ] && printf '%s\n' "$_out" | grep -q "$_pat" &&
		[ "$_before" = "$_after" ] && [ ! -e /tmp/refused ]; then
		ktap_print_msg "$_out"
		ktap_test_pass "$_desc"
	else
		ktap_test_fail "$_desc" "exit $_rc (want $_want), message: $_out" \
			"want /$_pat/; first MiB $_before -> $_after" \
			"results dir: $(ls -d /tmp/refused 2>&1)"
	fi
}

refusal "refuses a missing device" 3 "no such device" /dev/pmem9
refusal "refuses bad usage" 2 "unknown option" "$dev" --bogus
modprobe loop 2>/dev/null
dd if=/dev/urandom of=/tmp/nodax.img bs=1M count=4 2>/dev/null
loopdev=$(losetup -f)
losetup "$loopdev" /tmp/nodax.img
refusal "refuses a non-DAX device (loop)" 3 "not DAX-capable" "$loopdev" --force
losetup -d "$loopdev"

/sbin/mke2fs -q -F -t ext4 /dev/pmem0
refusal "refuses an existing ext4 without --force" 3 \
	"holds an ext2/3/4 file system.*--force" "$dev"
dd if=/dev/zero of="$dev" bs=64k count=1 2>/dev/null
printf '\125\252' | dd of="$dev" bs=1 seek=510 conv=notrunc 2>/dev/null
refusal "refuses a partition table (MBR) without --force" 3 "MBR" "$dev"
/sbin/mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 /dev/pmem0
mkdir -p /mnt/c
modprobe ext4
mount -t ext4 -o ro "$dev" /mnt/c
refusal "refuses a mounted device even with --force" 3 "mounted" "$dev" --force
umount /mnt/c

out=/tmp/cmp
rm -rf "$out"
# a user's fio job file with a relative file name: it must land on the device
printf '%s\n' '[global]' ioengine=psync bs=4k size=8M time_based runtime=1 \
	group_reporting '[userjob]' rw=randwrite filename=userfile >/tmp/user.fio
mkdir -p /tmp/cwd && cd /tmp/cwd || exit 1
"$tool" --device "$dev" --force --rounds 1 --runtime 2 --warmup 1 --size 32 \
	--xattr-files 500 --xattr-time 2 --no-plot --out "$out" \
	--fio-jobfile /tmp/user.fio --mount-opts noatime >/tmp/cmp.log 2>&1
rc=$?
cd / || exit 1
ktap_print_msg "$(cat /tmp/cmp.log)"
if [ "$rc" = 0 ]; then ktap_test_pass "one round runs"; else ktap_test_fail "one round runs" "exit $rc"; fi
ktap_check "results path printed" grep -q "results: $out" /tmp/cmp.log
ktap_check "live progress: round, side, fs, job, metrics, elapsed" \
	grep -q '^\[round 1/1\] B=ext4x randread: iops [0-9.]* IOPS.* ([0-9]*s)' /tmp/cmp.log
ktap_check "table.md, results.json, runs.tsv, progress.log written" \
	test -s "$out/table.md" -a -s "$out/results.json" -a -s "$out/runs.tsv" -a -s "$out/progress.log"

# Every job of the JSON is a row of the table with the same medians and
# ratio; every metric was measured once per side.
consistent() {
	n=0
	for job in randread randrw alloc truncate punch xattr; do
		line=$(grep "^{\"name\":\"$job\"" "$out/results.json") ||
			{ echo "no job $job in results.json"; return 1; }
		a=${line#*\"a\":\{\"median\":}
		a=${a%%,*}
		b=${line#*\"b\":\{\"median\":}
		b=${b%%,*}
		r=${line#*\"ratio\":}
		r=${r%%,*}
		m=${line#*\"metric\":\"}
		m=${m%%\"*}
		case $line in *'"n":1,'*'"n":1,'*) ;; *) echo "$job: not one run per side: $line"; return 1 ;; esac
		row=$(grep "^| $job | $m |" "$out/table.md") || { echo "no row for $job $m"; return 1; }
		# | job | metric | unit | A median | B median | B/A | interval | verdict |
		# shellcheck disable=SC2046 # the cells are words
		set -- $(echo "$row" | tr -d '|')
		if [ "$4" != "$a" ] || [ "$5" != "$b" ] || [ "$6" != "$r" ]; then
			echo "$job: json A=$a B=$b r=$r, table: $row"
			return 1
		fi
		n=$((n + 1))
	done
	rows=$(grep -c '^| [a-z]* | [a-z_0-9.]* | [^ ]* | [0-9]' "$out/table.md")
	mets=$(grep -c '^{"job":' "$out/results.json")
	[ "$rows" = "$mets" ] || { echo "table has $rows metric rows, json $mets"; return 1; }
	runs=$(grep -c '^{"round":' "$out/results.json")
	[ "$runs" = $((mets * 2)) ] || { echo "$runs runs in results.json, want $((mets * 2))"; return 1; }
}
ktap_check "table and JSON agree (jobs, medians, ratios, runs)" consistent
ktap_check "fio's JSON kept per side, job and round" sh -c \
	"for s in A B; do for j in randread randrw alloc truncate punch; do
		grep -q '\"fio version\"' $out/raw/\$s/\$j-1.json || exit 1; done; done"
# the truncate and punch jobs' first group, the one measured, is the
# thread that frees blocks, the readers a group of their own
ktap_check "truncate and punch measure ftruncate and fallocate beside readers" sh -c \
	"for s in A B; do for j in truncate:ftruncate punch:falloc; do
		f=$out/raw/\$s/\${j%:*}-1.json
		grep -q '\"ioengine\" : \"'\${j#*:}'\"' \$f &&
		grep -q '\"jobname\" : \"'\${j%:*}'-readers\"' \$f &&
		grep -m 1 '\"jobname\"' \$f | grep -q '\"'\${j%:*}'\"' || exit 1; done; done"
# fio-plot's input rules: a directory per data set, files named
# RW-IODEPTH-NUMJOBS.json whose job options hold those rw, iodepth, numjobs
fio_plot_layout() {
	for d in A-ext4 B-ext4x; do
		for rw in randread randrw write; do
			set -- "$out/fio-plot/$d-round1/$rw"-1-*.json
			[ $# = 1 ] && [ -s "$1" ] || { echo "$d: no single $rw-1-N.json: $*"; return 1; }
			n=${1##*-}
			n=${n%.json}
			for kv in "rw:$rw" "iodepth:1" "numjobs:$n"; do
				grep -q "\"${kv%%:*}\" : \"${kv#*:}\"" "$1" ||
					{ echo "$1: no ${kv%%:*} ${kv#*:} in its job options"; return 1; }
			done
		done
	done
}
ktap_check "fio-plot layout: per side and round, RW-IODEPTH-NUMJOBS.json" fio_plot_layout
# randread, randrw, alloc, truncate, punch and jobfile, on each side
ktap_check "CPU per I/O measured for every fio job and side" \
	test "$(grep -c '^1	[AB]	[a-z0-9]*	[a-z]*	cpu_per_io	[0-9.]*	us	' "$out/runs.tsv")" = 12
ktap_check "--fio-jobfile: the user's job ran on both sides, its file on the device" sh -c \
	"grep -q '^1	A	ext4	jobfile	iops	' $out/runs.tsv &&
	 grep -q '^1	B	ext4x	jobfile	iops	' $out/runs.tsv &&
	 test -s $out/raw/B/jobfile-1.json && test ! -e /tmp/cwd/userfile"
ktap_check "--mount-opts: recorded with dax" grep -q '"mount_opts":"dax,noatime"' "$out/meta.json"
ktap_print_msg "meta: $(cat "$out/meta.json")"
ktap_check "meta records clocksource, gtod_reduce, fio, CPU and pmem" sh -c \
	"grep -q '\"clocksource\":\"[a-z_0-9]*\",\"gtod_reduce\":\(true\|false\)' $out/meta.json &&
	 grep -q '\"fio\":\"fio-' $out/meta.json && grep -q '\"cpu_model\":\"..*\"' $out/meta.json &&
	 grep -q '\"pmem_mode\":\"[a-z]' $out/meta.json"
ktap_check "meta names the B module's file and checksum" \
	grep -q '"fs_b_module":"/[^"]*ext4x.ko[^"]*","fs_b_vermagic":"[^"]*","fs_b_sha256":"[0-9a-f]\{64\}"' "$out/meta.json"
ktap_check "meta records ext4x's MODULE_VERSION and srcversion" \
	grep -q '"fs_b_version":"[0-9][^"]*","fs_b_srcversion":"[0-9A-F]\{8,\}"' "$out/meta.json"
# (the user's job file runs as it is, gtod_reduce or not: not judged here)
ktap_check "latency rows exactly when fio measured latency" sh -c \
	"if grep -q '\"gtod_reduce\":true' $out/meta.json; then ! grep -q '^| randread | clat_p99 |' $out/table.md
	 else grep -q '^| randread | clat_p99 | us |' $out/table.md; fi"
ktap_check "statistics snapshots around every run (es_shrinker_info, mb_stats)" sh -c \
	"for s in A B; do for w in before after; do
		test -s $out/stats/\$s/alloc-1.\$w/mb_stats &&
		test -s $out/stats/\$s/randread-1.\$w/es_shrinker_info || exit 1; done; done"
ktap_print_msg "$(cat "$out/stats.md" 2>&1)"
ktap_check "the alloc job moves ext4x's allocator statistics (stats.md)" \
	grep -q '^| B | alloc | mb_stats | ' "$out/stats.md"
ktap_check "device left unmounted" sh -c "! grep -q '^$dev ' /proc/mounts"

# No fio: the program moved aside for one run (a PATH without /usr/bin
# still found it through /bin). The tool stops before touching the device,
# in one line.
fio=$(command -v fio)
mv "$fio" "$fio.aside"
refusal "refuses to start without fio (exit 1)" 1 "error: fio not found" "$dev" --force
mv "$fio.aside" "$fio"
ktap_check "without fio: the message is one line" \
	test "$(printf '%s\n' "$_out" | wc -l)" = 1

# A fio that fails (here: every alloc run) is one FAILED line per run with
# fio's own last line; the runs that worked are still summarised.
mkdir -p /tmp/failfio
cat >/tmp/failfio/fio <<EOF
#!/bin/sh
case " \$* " in
*" --name=alloc "*) echo "fio: injected failure of the alloc job" >&2; exit 1 ;;
esac
exec $fio "\$@"
EOF
chmod +x /tmp/failfio/fio
rm -rf /tmp/partial
PATH=/tmp/failfio:$PATH "$tool" --device "$dev" --force --rounds 1 --runtime 1 \
	--warmup 1 --size 16 --jobs randread,alloc --no-plot --out /tmp/partial \
	>/tmp/partial.log 2>&1
rc=$?
ktap_print_msg "$(cat /tmp/partial.log)"
ktap_check "a failing fio: exit 1, one FAILED line per failed run with fio's message" \
	sh -c "test $rc = 1 &&
	 test \$(grep -c 'alloc: FAILED: fio: fio: injected failure of the alloc job' /tmp/partial.log) = 2"
ktap_check "a failing fio: the runs that worked are in the table, the failed job is not" \
	sh -c "grep -q '^| randread | iops | IOPS | [0-9]' /tmp/partial/table.md &&
	 ! grep -q '^| alloc |' /tmp/partial/table.md"
ktap_check "device left unmounted after the failed runs" sh -c "! grep -q '^$dev ' /proc/mounts"

# A thread sweep with --perf-c2c. perf c2c needs load-latency sampling,
# which QEMU's CPU has not, so a stand-in perf on PATH runs the command it
# records and prints a report: this checks the tool's wiring (which runs,
# which files, which thread counts), not perf; the host checks that a
# perf that cannot sample is refused.
mkdir -p /tmp/c2cperf
cat >/tmp/c2cperf/perf <<'EOF'
#!/bin/sh
[ "$1" = c2c ] || exit 1
case $2 in
record)
	[ "$3" = -o ] && [ "$5" = -- ] || exit 1
	echo "stand-in c2c record" >"$4"
	shift 5
	exec "$@"
	;;
report)
	[ "$3" = -i ] && [ -s "$4" ] || exit 1
	echo "=== Shared Data Cache Line Table ==="
	echo "  0  0xffff888000000040  stand-in line"
	echo "=== Shared Cache Line Distribution Pareto ==="
	;;
*) exit 1 ;;
esac
EOF
chmod +x /tmp/c2cperf/perf
sw=/tmp/sweep
rm -rf "$sw"
PATH=/tmp/c2cperf:$PATH "$tool" --device "$dev" --force --rounds 1 --runtime 1 \
	--warmup 0 --size 16 --threads 1,2 --jobs randread,xattr --xattr-files 200 \
	--xattr-time 1 --perf-c2c --no-plot --out "$sw" >/tmp/sweep.log 2>&1
rc=$?
ktap_print_msg "$(cat /tmp/sweep.log)"
ktap_check "--threads 1,2 --perf-c2c: one round runs" test "$rc" = 0
ktap_check "sweep: every job at each count, named JOB@N" sh -c \
	"for j in randread@1 randread@2 xattr@1 xattr@2; do
		grep -q \"^{\\\"name\\\":\\\"\$j\\\"\" $sw/results.json || exit 1; done
	 grep -q '\"thread_counts\":\[1,2\]' $sw/meta.json"
ktap_check "sweep: fio ran 1 and 2 threads, fio-plot names them" sh -c \
	"for s in A B; do for n in 1 2; do
		grep -q '\"numjobs\" : \"'\$n'\"' $sw/raw/\$s/randread@\$n-1.json || exit 1; done; done
	 test -s $sw/fio-plot/A-ext4-round1/randread-1-1.json &&
	 test -s $sw/fio-plot/B-ext4x-round1/randread-1-2.json"
ktap_check "sweep: the scaling table has every job and count" sh -c \
	"grep -q '^Scaling' $sw/table.md &&
	 test \$(grep -c '^| \(randread | iops\|xattr | ops\) | [12] | [0-9]' $sw/table.md) = 4"
ktap_check "--perf-c2c: a record and report per side, at the largest count" sh -c \
	"for s in A B; do test -s $sw/c2c/\$s-randread.data && grep -q 'stand-in line' $sw/c2c/\$s-randread.txt &&
		grep -q '\"fio version\"' $sw/c2c/\$s-randread.fio.json &&
		grep -q '\"numjobs\" : \"2\"' $sw/c2c/\$s-randread.fio.json || exit 1; done
	 grep -q '^## B = ext4x, randread, 2 threads' $sw/c2c/top-lines.md &&
	 test ! -e $sw/c2c/A-randrw.data"
ktap_check "--perf-c2c: its runs are not measured results" sh -c \
	"test \$(grep -c '	randread@2	iops	' $sw/runs.tsv) = 2"
ktap_check "device left unmounted after the sweep" sh -c "! grep -q '^$dev ' /proc/mounts"
ktap_check "no kernel warning or BUG" ktap_kernel_clean
for f in results.json table.md stats.md; do
	[ -f "$out/$f" ] && ktap_export_file "$out/$f" "compare-$f"
done
