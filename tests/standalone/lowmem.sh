#!/bin/sh
# Memory pressure (run in its own small guest: run-guest.sh --mem 384M
# --small, as make check does; --small leaves fio and stress-ng out of the
# initramfs, which otherwise takes too much of 384M to mount the root):
# ext4x -o dax on the NVDIMM (map=dev: its struct pages live on the
# NVDIMM, not in the small RAM), a few thousand distinct
# external xattr blocks in mbcache2, the xattr load running while a
# tmpfs fill leaves the guest almost no free memory. mbcache2's shrinker
# must free entries (evictions > 0), and afterwards the counters must add
# up (inserts - deletes - evictions = entries = stripe_entries), no entry
# may outlive the unmount (live_objects 0), and nothing may fail or WARN.
# Run by: tests/check.sh, in a small guest of its own: --mem 384M --small
# timeout: 600
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh

mnt=/mnt/lm
fill=/mnt/fill
nfiles=3000
mkdir -p "$mnt" "$fill"
ktap_print_msg "memory: $(grep -E '^(MemTotal|MemAvailable)' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
dmesg -c >/dev/null
modprobe ext4x || {
	ktap_test_fail "modprobe ext4x" "$(ktap_dmesg | tail -n 10)"
	exit 1
}
ktap_check "mkfs.ext4 -I 128" mke2fs -q -F -t ext4 -b 4096 -I 128 -N 8192 /dev/pmem0 256M
ktap_check "mount -t ext4x -o dax" mount -t ext4x -o dax /dev/pmem0 "$mnt"
stats=/sys/kernel/debug/mbcache2/pmem0-xattr/stats
field() { awk -v k="$1" '$1 == k { print $2 }' "$stats"; }
# reclaim: pages the kernel scanned for reclaim and slab objects it asked
# shrinkers to scan, so far. When no eviction happened, these tell a test
# that made too little pressure (the kernel reclaimed nothing) from a
# shrinker that was asked and freed nothing.
reclaim() {
	awk '$1 ~ /^pgscan_(kswapd|direct)$/ { p += $2 } $1 == "slabs_scanned" { s = $2 }
		END { printf "%d %d\n", p, s }' /proc/vmstat
}

# Distinct values, so every file has its own xattr block and cache entry;
# one setfattr --restore sets them all.
populate() {
	mkdir -p "$mnt/d" "$mnt/x"
	(cd "$mnt/d" && seq 1 $nfiles | sed 's/^/f/' | xargs touch) || return 1
	seq 1 $nfiles | awk '{ printf "# file: d/f%d\nuser.v=\"value-%d\"\n\n", $1, $1 }' \
		>/tmp/restore
	(cd "$mnt" && setfattr --restore=/tmp/restore)
}
ktap_check "$nfiles files, each with its own xattr block" populate
ktap_check "xattr-load setup" xattr-load -d "$mnt/x" -f 300 -s
ktap_print_msg "after populating: $(tr '\n' ' ' <"$stats")"

# Fill memory: tmpfs pages cannot be reclaimed without swap, so the kernel
# must take memory back from caches, mbcache2's shrinker included.
# ext4x_lowmem_margin=MiB (default 24) is what the first fill leaves of
# MemAvailable: the debug lane gives more, as KASAN holds freed objects in
# its quarantine (up to 1/32 of RAM) that MemAvailable counts as free.
mount -t tmpfs -o size=100% tmpfs "$fill"
avail=$(awk '/^MemAvailable/ { print int($2 / 1024) }' /proc/meminfo)
margin=24
boot_param_int margin ext4x_lowmem_margin 0 4096
want=$((avail - margin))
ktap_print_msg "filling ${want} MiB of tmpfs (MemAvailable ${avail} MiB)"
ev0=$(field evictions)
read -r pg0 sl0 <<EOF
$(reclaim)
EOF
xattr-load -d "$mnt/x" -f 300 -j 2 -t 20 -w 5 >/tmp/xl 2>&1 &
xpid=$!
dd if=/dev/zero of="$fill/a" bs=1M count="$want" 2>/dev/null
# keep pressure on: read every file's xattr while memory is short
cat /tmp/restore | sed -n 's/^# file: //p' | (cd "$mnt" && xargs getfattr -d >/dev/null 2>&1)
for n in 1 2 3; do
	dd if=/dev/zero of="$fill/b$n" bs=1M count=8 2>/dev/null
	rm -f "$fill/b$n"
done
# How much pressure reaches the slab shrinkers differs between kernels: 6.1
# evicted with 24 MiB left, 6.12 (MGLRU) did not. While the shrinker has not
# run yet, push on in 4 MiB steps, kept, down to 12 MiB of MemAvailable.
n=0
while [ "$(field evictions)" -eq "$ev0" ] && [ "$n" -lt 16 ] &&
	[ "$(awk '/^MemAvailable/ { print int($2 / 1024) }' /proc/meminfo)" -gt 12 ]; do
	dd if=/dev/zero of="$fill/c$n" bs=1M count=4 2>/dev/null
	n=$((n + 1))
done
ktap_print_msg "pushed on by $((n * 4)) MiB"
read -r pg1 sl1 <<EOF
$(reclaim)
EOF
ktap_print_msg "under pressure: $(grep -E '^(MemFree|MemAvailable)' /proc/meminfo | tr -s ' ' | tr '\n' ' ')" \
	"reclaim since the fill began: $((pg1 - pg0)) pages scanned, $((sl1 - sl0)) slab objects" \
	"$(tr '\n' ' ' <"$stats")"
wait $xpid
xrc=$?
rm -f "$fill"/a "$fill"/c*
umount "$fill"
ev1=$(field evictions)
if [ "$((ev1 - ev0))" -gt 0 ]; then
	ktap_test_pass "the shrinker evicted mbcache2 entries under pressure ($((ev1 - ev0)))"
else
	ktap_test_fail "the shrinker evicted mbcache2 entries under pressure" "$(cat "$stats")"
fi
ktap_check "xattr-load without a failed call under pressure" test "$xrc" -eq 0
ktap_print_msg "$(cat /tmp/xl)"
sync
mbcache2_counts_add_up "after the pressure" "$stats"
ktap_check "every xattr still reads back" sh -c \
	"cd $mnt && getfattr -d -R d | grep -c '^user.v=' | grep -qx $nfiles"
umount "$mnt"
ktap_check "no mbcache2 entry alive after umount" \
	sh -c '[ "$(cat /sys/kernel/debug/mbcache2/live_objects)" = 0 ]'
ktap_check "e2fsck -fn clean" /sbin/e2fsck -fn /dev/pmem0
ktap_check "modules unload" sh -c 'rmmod ext4x && rmmod mbcache2 && rmmod percpu_stats'
ktap_check "no allocation failure, WARN, BUG or oops" \
	ktap_kernel_clean "page allocation failure|EXT4-fs error"
