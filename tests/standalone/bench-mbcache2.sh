#!/bin/sh
# Stock mbcache against mbcache2 (reports numbers, asserts nothing about
# them). Run with: tests/vm/run-guest.sh --tests bench-mbcache2 ...
# Run by: make bench-mbcache2
# timeout: 600
. /tests/vm/guest/lib.sh

# What one entry costs in memory, as the slab allocator reports it
# (this guest boots without slub_debug); a cache merged into another one
# has no slabinfo line of its own, sysfs names the cache it lives in.
slab_line() {
	_s=/sys/kernel/slab/$1
	[ -e "$_s" ] || return 0
	printf '# slab %s: %s bytes per object, %s objects per %s KiB slab%s\n' \
		"$1" "$(cat "$_s/slab_size")" "$(cat "$_s/objs_per_slab")" \
		$((4 << $(cat "$_s/order"))) \
		"$([ -L "$_s" ] && echo ", merged into $(basename "$(readlink "$_s")")")"
}
/sbin/modprobe mbcache
/sbin/modprobe mbcache2
BENCH_NOTE=$(slab_line mbcache2_entry; slab_line mbcache
	grep -E "^(mbcache2_entry|mbcache) " /proc/slabinfo | sed "s/^/# slabinfo: /")
export BENCH_NOTE
run_kmod_bench mbcache2_bench bench-mbcache2 rounds="${EXT4X_BENCH_ROUNDS:-5}"
