#!/bin/sh
# Where the time of an xattr read goes, and the xattr load where CPUs
# contend: the measurements behind the "ext4x xattr get/list >= 1.20" goal
# of docs/PERFORMANCE.md. Reports numbers, asserts only that they were taken.
#  1. function_graph profile: one thread of xattr-load (reads only) on
#     stock ext4 and on ext4x, with only the syscalls, the path walk, the
#     file system's xattr calls, the block read and the cache calls traced;
#     per function, calls and mean inclusive time, and the untraced rate.
#  2. contention: xattr-load with 8 threads on the 2 vCPUs, reads plus 10 %
#     setxattr (which looks the block up in the cache to share it), A B A B
#     over 5 rounds, fresh mkfs per run.
# Run by: make profile-xattr (about 6 minutes of guest time)
# timeout: 1200
. /tests/vm/guest/lib.sh

mnt=/mnt/p
trc=/sys/kernel/tracing
out=/tmp/profile-xattr.md
files=2000
mkdir -p "$mnt"
[ -d $trc/events ] || mount -t tracefs nodev $trc
modprobe ext4x

# setup FSTYPE: fresh file system with $files files sharing xattr blocks
setup() {
	mke2fs -q -F -t ext4 -I 128 /dev/pmem0 >/dev/null 2>&1 &&
		mount -t "$1" -o dax /dev/pmem0 "$mnt" && mkdir "$mnt/x" &&
		xattr-load -d "$mnt/x" -f $files -s >/dev/null
}

# ops_per_s FILE: the rate from xattr-load's JSON line
ops_per_s() {
	sed -n 's/.*"ops_per_s":\([0-9.]*\).*/\1/p' "$1"
}

# The functions timed: the syscalls, the path walk, the file system's
# xattr entry points, the block read and the cache calls of both sides.
# Only these are traced, so each duration includes its untraced callees;
# the few traced ones add their own tracing cost (a few us under TCG).
traced='__x64_sys_getxattr __x64_sys_listxattr user_path_at_empty user_path_at
ext4_xattr_get ext4x_xattr_get ext4_listxattr ext4x_listxattr
ext4_sb_bread ext4x_sb_bread ext4_xattr_block_cache_insert*
ext4x_xattr_block_cache_insert* mb_cache_entry_create mbcache2_entry_present'

# profile FSTYPE: per traced function, calls and inclusive time, over 2 s
# of one thread's reads
profile() {
	setup "$1" || return 1
	echo 0 >$trc/tracing_on
	: >$trc/set_ftrace_filter
	for f in $traced; do
		echo "$f" >>$trc/set_ftrace_filter 2>/dev/null
	done
	# The default "local" clock is per CPU: a call that migrates between
	# vCPUs would get the difference of two unsynchronised clocks.
	echo mono >$trc/trace_clock
	echo function_graph >$trc/current_tracer
	echo funcgraph-tail >$trc/trace_options
	echo nofuncgraph-irqs >$trc/trace_options
	echo 16384 >$trc/buffer_size_kb
	: >$trc/trace
	echo 1 >$trc/tracing_on
	xattr-load -d "$mnt/x" -f $files -j 1 -t 2 -w 0 >"$KTAP_TMP/$1.load"
	echo 0 >$trc/tracing_on
	# Lines with a duration are a leaf "f();" or a closing "} /* f */"
	awk -F'|' 'NF >= 2 && match($1, /[0-9]+\.[0-9]+ us/) {
		d = substr($1, RSTART, RLENGTH - 3)
		f = $2
		if (f ~ /\/\*/) { sub(/.*\/\* */, "", f); sub(/ *\*\/.*/, "", f) }
		else { sub(/^ */, "", f); sub(/\(\).*/, "", f) }
		sub(/ \[.*/, "", f)	# a module function is printed "f [mod]"
		n[f]++; t[f] += d
		if (f ~ /^__x64_sys_/) top += d
	}
	END {
		for (f in n)
			printf "%s %d %.2f %.1f\n", f, n[f], t[f] / n[f],
				top ? 100 * t[f] / top : 0
	}' $trc/trace | sort -k4,4nr >"$KTAP_TMP/$1.prof"
	echo nop >$trc/current_tracer
	: >$trc/set_ftrace_filter
	: >$trc/trace
	umount "$mnt"
	[ -s "$KTAP_TMP/$1.prof" ]
}

# rate FSTYPE: ops/s of the same load untraced
rate() {
	setup "$1" || return 1
	xattr-load -d "$mnt/x" -f $files -j 1 -t 2 -w 0 >"$KTAP_TMP/$1.plain"
	umount "$mnt"
	ops_per_s "$KTAP_TMP/$1.plain"
}

# median FILE SIDE: the median of SIDE's rates in FILE ("side rate" lines)
median() {
	awk -v s="$2" '$1 == s { print $2 }' "$1" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# rates_table FILE: each side's rates per round and their medians, and the
# ratio of the medians; sets a and b to the medians of ext4 and ext4x
rates_table() {
	a=$(median "$1" ext4)
	b=$(median "$1" ext4x)
	echo "| side | ops/s, each round | median |"
	echo "|---|---|---:|"
	echo "| stock ext4 | $(awk '$1 == "ext4" { printf "%s ", $2 }' "$1")| $a |"
	echo "| ext4x | $(awk '$1 == "ext4x" { printf "%s ", $2 }' "$1")| $b |"
	echo
	echo "ext4x / ext4 (medians): $(awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0) printf "%.3f", b / a }')"
}

{
	echo "# profile-xattr: $(nproc) vCPUs, $files files sharing xattr blocks, mkfs -I 128, -o dax"
	echo
}	>$out
# The untraced rates first, A B A B, so that a drift of the host's speed
# hits both sides alike; the profiles below are each side's own shares.
: >"$KTAP_TMP/plain"
r=1
while [ $r -le 3 ]; do
	for fs in ext4 ext4x; do
		echo "$fs $(rate $fs)" >>"$KTAP_TMP/plain"
	done
	r=$((r + 1))
done
{
	echo "## xattr reads untraced, 1 thread, 3 rounds A B"
	echo
	rates_table "$KTAP_TMP/plain"
	echo
} >>$out
ktap_check "untraced rates measured on both sides" test -n "$a" -a -n "$b"
for fs in ext4 ext4x; do
	if profile $fs; then
		ktap_test_pass "function_graph profile of $fs"
		{
			echo "## $fs: xattr reads (getxattr 3/4, listxattr 1/4), 1 thread"
			traced_rate=$(ops_per_s "$KTAP_TMP/$fs.load")
			echo "traced: $traced_rate ops/s," \
				"$(awk -v r="$traced_rate" 'BEGIN { if (r > 0) printf "%.1f", 1e6 / r }') us per call"
			echo
			echo "| function | calls | mean us (inclusive, traced) | % of syscall time |"
			echo "|---|---:|---:|---:|"
			awk '{ printf "| %s | %d | %s | %s |\n", $1, $2, $3, $4 }' "$KTAP_TMP/$fs.prof"
			echo
		} >>$out
	else
		ktap_test_fail "function_graph profile of $fs" "$(tail -n 5 $trc/trace 2>&1)"
		umount "$mnt" 2>/dev/null
	fi
done

# Contention: 8 threads on 2 vCPUs, 10 % sets, A B A B
rounds=5
: >"$KTAP_TMP/rates"
r=1
while [ $r -le $rounds ]; do
	for fs in ext4 ext4x; do
		if setup $fs; then
			xattr-load -d "$mnt/x" -f $files -j 8 -t 5 -w 10 >"$KTAP_TMP/run"
			echo "$fs $(ops_per_s "$KTAP_TMP/run")" >>"$KTAP_TMP/rates"
			umount "$mnt"
		fi
	done
	r=$((r + 1))
done
{
	echo "## xattr load, 8 threads on $(nproc) vCPUs, 10 % setxattr, $rounds rounds A B"
	echo
	rates_table "$KTAP_TMP/rates"
	echo "# end"
} >>$out
ktap_check "contended load measured on both sides" test -n "$a" -a -n "$b"
ktap_export_file "$out" profile-xattr.md
