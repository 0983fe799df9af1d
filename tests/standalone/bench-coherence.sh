#!/bin/sh
# Cache-line transfers per operation, stock ext4 (A) against ext4x (B), on
# the emulated NVDIMM mounted -o dax; counted by the coherence plugin on the
# host (tests/coherence/README.md), which this file only drives: each
# measured run is one window, opened and closed with coherence-mark, and
# announced on the console as "coherence: window K LABEL ops N" (K counts
# the windows in order, as the plugin does). Rounds alternate A B A B.
# Jobs, two threads pinned to CPU 0 and CPU 1, A (stock) and B (ours):
#   randread   fio psync 4 KiB O_DIRECT random reads of two shared 64 MiB
#              files (Waiman Long's 2016 layout), stock ext4 against ext4x
#   randwrite  random overwrites of the same files (already written)
#   alloc      appends to fresh files, four a thread (every write allocates)
#   xattr      xattr-load: getxattr and listxattr (1 % setxattr) of random
#              files among XFILES sharing one xattr block (mkfs -I 128)
#   mb-insert, mb-lookup, mb-apart, mb-churn, mb-mixed
#              mbcache2_bench's workloads run in the kernel (only=), stock
#              mbcache (A) against mbcache2 (B)
# and the micro operations, one side (M): percpu_stats_inc, percpu_counter_inc
# and atomic_long_inc of one counter from both CPUs (percpu_stats_bench,
# only=pcs, pcc, atomic). Each runs at two lengths, N and 3N operations a
# thread, so that what a run costs once (starting fio, loading a module,
# filling a cache, opening files) cancels in the difference.
# The calibration pair (coherence-mark calib) runs first, before every
# round and last.
# Kernel parameters: ext4x_coh_rounds (default 3), ext4x_coh_ios (N of the
# file-system jobs, default 1000; the mbcache workloads run 8N rounded up to
# a multiple of 64, the micro operations 100N), ext4x_coh_calib (increments
# a thread, default 200000).
# Run by: make bench-coherence (tests/coherence/bench.sh)
# timeout: 3000
. /tests/vm/guest/lib.sh

rounds=3
boot_param_int rounds ext4x_coh_rounds 1 20
ios=1000
boot_param_int ios ext4x_coh_ios 100 1000000
calib=200000
boot_param_int calib ext4x_coh_calib 1000 100000000
k=0

# window LABEL OPS CMD...: CMD inside a kernel-only window
window() {
	_label=$1 _ops=$2
	shift 2
	coherence-mark start-kernel
	"$@"
	_rc=$?
	coherence-mark stop
	echo "coherence: window $k $_label ops $_ops"
	k=$((k + 1))
	return $_rc
}

calibrate() {
	for _m in shared private; do
		if coherence-mark calib "$_m" "$calib" >/dev/null; then
			echo "coherence: window $k calib-$_m ops $((2 * calib))"
		else
			ktap_test_fail "calibration ($_m)"
			echo "coherence: window $k calib-$_m-failed ops 0"
		fi
		k=$((k + 1))
	done
}

fio_job() { # JOB IOS
	case $1 in
	alloc)
		rm -rf /mnt/alloc && mkdir /mnt/alloc &&
			fio --name=alloc --directory=/mnt/alloc --rw=write --nrfiles=4 \
				--size=$(($2 * 4))k --fallocate=none --number_ios="$2" $common
		;;
	*)
		fio --name="$1" --filename=/mnt/f0:/mnt/f1 --filesize=64M --rw="$1" \
			--number_ios="$2" --norandommap --randrepeat=0 $common
		;;
	esac
}
# O_DIRECT: ext4x relaxes DAX locking only for I/O that asks for it
common="--bs=4k --ioengine=psync --direct=1 --thread --numjobs=2 --cpus_allowed=0-1
 --cpus_allowed_policy=split --gtod_reduce=1 --output=/dev/null"

# kmod_run MODULE ARGS...: one only= run of a benchmark module, unloaded after
kmod_run() {
	_m=$1
	shift
	modprobe "$_m" "$@" || return 1
	modprobe -r "$_m"
}
# mkfs_dax [MKE2FS OPTION...]: a fresh ext4 on /dev/pmem0 mounted -t $fs
# -o dax on /mnt, status 1 when that failed; a mount without dax fails a
# test of its own, and the jobs still run
mkfs_dax() {
	mke2fs -q -F -t ext4 -b 4096 "$@" /dev/pmem0 &&
		mount -t "$fs" -o dax /dev/pmem0 /mnt || return 1
	grep -q " /mnt $fs .*dax" /proc/mounts ||
		ktap_test_fail "round $r $side: $fs mounted with dax" "$(grep ' /mnt ' /proc/mounts)"
	return 0
}
# xattr_run ARGS...: xattr-load, its JSON line not on the console
xattr_run() {
	xattr-load "$@" >/dev/null
}
xfiles=500

sed -n 's/^ *\([0-9a-f]*\)-\([0-9a-f]*\) : Persistent Memory.*/coherence: pmem 0x\1-0x\2/p' /proc/iomem
ktap_check "ext4x loads" modprobe ext4x
calibrate
r=1
while [ "$r" -le "$rounds" ]; do
	[ "$r" -eq 1 ] || calibrate
	for side in A B; do
		fs=ext4
		[ "$side" = A ] || fs=ext4x
		if ! mkfs_dax; then
			ktap_test_fail "round $r $side: mkfs and mount -t $fs -o dax"
			continue
		fi
		dd if=/dev/zero of=/mnt/f0 bs=1M count=64 2>/dev/null &&
			dd if=/dev/zero of=/mnt/f1 bs=1M count=64 2>/dev/null && sync
		for job in randread randwrite alloc; do
			for len in 1 3; do
				n=$((ios * len))
				window "r$r $side $job x$len" $((2 * n)) fio_job "$job" "$n" ||
					ktap_test_fail "round $r $side $job x$len: fio ran"
			done
		done
		umount /mnt
		if ! mkfs_dax -I 128 || ! mkdir /mnt/x ||
			! xattr-load -d /mnt/x -f "$xfiles" -s >/dev/null; then
			ktap_test_fail "round $r $side: xattr files on $fs"
		else
			for len in 1 3; do
				n=$((ios * len))
				window "r$r $side xattr x$len" $((2 * n)) \
					xattr_run -d /mnt/x -f "$xfiles" -j 2 -n "$n" -p ||
					ktap_test_fail "round $r $side xattr x$len: xattr-load ran"
			done
		fi
		umount /mnt
		mbside=stock
		[ "$side" = A ] || mbside=mbcache2
		for w in insert lookup apart churn mixed; do
			for len in 1 3; do
				n=$(((ios * 8 + 63) / 64 * 64 * len))
				window "r$r $side mb-$w x$len" $((2 * n)) \
					kmod_run mbcache2_bench only="$w-$mbside" ops="$n" ||
					ktap_test_fail "round $r $side mb-$w x$len: mbcache2_bench ran"
			done
		done
	done
	for v in pcs pcc atomic; do
		for len in 1 3; do
			n=$((ios * len * 100))
			window "r$r M $v x$len" $((2 * n)) \
				kmod_run percpu_stats_bench only="$v" ops="$n" ||
				ktap_test_fail "round $r $v x$len: percpu_stats_bench ran"
		done
	done
	r=$((r + 1))
done
calibrate
ktap_test_pass "$rounds rounds: $k windows"
# the host names the instructions with the guest's own symbols (nokaslr)
grep -E '^[0-9a-f]+ [tT] ' /proc/kallsyms | gzip -c >/tmp/kallsyms.gz
ktap_export_file /tmp/kallsyms.gz kallsyms.gz
