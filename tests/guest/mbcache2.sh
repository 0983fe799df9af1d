#!/bin/sh
# mbcache2: the in-kernel cases (mbcache2_test), then from the shell: the
# read-only debugfs stats file and its reset file, a cache pinning the module, the
# shrinker under drop_caches, and load/unload cycles that leave nothing.
# timeout: 400
. /tests/vm/guest/lib.sh

dbg=/sys/kernel/debug/mbcache2

# the waits of the in-kernel cases scale with a debug kernel's slowness
slow=1
boot_param_int slow ext4x_timeout_scale 1 100
run_kmod_test mbcache2_test slowdown="$slow"

# field FILE NAME: value of the "NAME value" line of FILE
field() {
	sed -n "s/^$2 //p" "$1"
}

# expect_fields DESC FILE NAME=VALUE...: one result for all the fields
expect_fields() {
	_desc=$1
	_file=$2
	shift 2
	_bad=
	for _kv in "$@"; do
		_got=$(field "$_file" "${_kv%%=*}")
		[ "$_got" = "${_kv#*=}" ] || _bad="$_bad ${_kv%%=*}=$_got (want ${_kv#*=})"
	done
	if [ -z "$_bad" ]; then
		ktap_test_pass "$_desc"
	else
		ktap_test_fail "$_desc" "mismatch:$_bad" "$(cat "$_file" 2>&1)"
	fi
}

# slab_entry_size: an entry's footprint as the slab allocator reports it,
# in /proc/slabinfo and /sys/kernel/slab, not as kmem_cache_size() says.
# The cache has no constructor, so slub_debug=P poisons freed entries (SLUB
# skips poisoning for caches with one). Without debugging an entry takes
# exactly its 56 bytes; under slub_debug red zones and tracking add to it.
slab_entry_size() {
	_slab=/sys/kernel/slab/mbcache2_entry
	if [ ! -e $_slab ]; then
		ktap_test_fail "slab_cache_in_sysfs" "no $_slab"
		return
	fi
	ktap_check "slab_entry_cache_has_no_constructor" test -z "$(cat $_slab/ctor)"
	_osize=$(cat $_slab/object_size)
	_ssize=$(cat $_slab/slab_size)
	_per=$(cat $_slab/objs_per_slab)
	_order=$(cat $_slab/order)
	_dbg=$(($(cat $_slab/sanity_checks) + $(cat $_slab/red_zone) +
		$(cat $_slab/poison) + $(cat $_slab/store_user)))
	# name active_objs num_objs objsize objperslab pagesperslab ...
	_line=$(grep '^mbcache2_entry ' /proc/slabinfo)
	ktap_print_msg "sysfs: object_size $_osize slab_size $_ssize objs_per_slab $_per order $_order debug_flags $_dbg" \
		"slabinfo: ${_line:-none (merged into $(readlink $_slab))}"
	if [ -n "$_line" ]; then
		# shellcheck disable=SC2086 # split the slabinfo fields
		set -- $_line
		if [ "$4" = "$_ssize" ] && [ "$5" = "$_per" ]; then
			ktap_test_pass "slabinfo_agrees_with_sysfs ($4 bytes, $5 per slab)"
		else
			ktap_test_fail "slabinfo_agrees_with_sysfs" "slabinfo $4/$5, sysfs $_ssize/$_per"
		fi
	else
		ktap_test_skip "slabinfo_agrees_with_sysfs" "cache merged into another"
	fi
	if [ "$_dbg" = 0 ]; then
		_want=$(((4096 << _order) / 56))
		if [ "$_ssize" = 56 ] && [ "$_per" = "$_want" ]; then
			ktap_test_pass "entry_takes_56_bytes_in_slab ($_per per $((4 << _order)) KiB)"
		else
			ktap_test_fail "entry_takes_56_bytes_in_slab" \
				"slab_size $_ssize, $_per per slab (want 56, $_want)"
		fi
	else
		ktap_check "slub_debug_poisons_entries (object_size 56)" \
			sh -c "[ $_osize = 56 ] && [ \$(cat $_slab/poison) = 1 ]"
	fi
}

# --- mode=hold: a cache with 10 entries, 1 duplicate, 20 lookups, 10 hits
if modprobe mbcache2_test mode=hold; then
	stats=$dbg/mbcache2_test-hold/stats
	ktap_print_msg "$(cat "$stats")"
	expect_fields "debugfs_stats_counts" "$stats" lookups=20 hits=10 \
		inserts=10 duplicates=1 deletes=0 evictions=0 entries=10 \
		stripe_entries=10 buckets=256 max_entries=4096
	ktap_check "debugfs_stats_entry_bytes_is_slab_object_size" \
		sh -c "grep -qx \"entry_bytes \$(cat /sys/kernel/slab/mbcache2_entry/object_size)\" $stats"
	# stats is read-only (0444, readable under lockdown), reset write-only
	ktap_check "debugfs_stats_0444_reset_0200" sh -c \
		"[ \$(stat -c %a $stats) = 444 ] && [ \$(stat -c %a ${stats%/stats}/reset) = 200 ]"
	if (echo reset >"$stats") 2>/dev/null; then
		ktap_test_fail "debugfs_stats_not_writable" "writing reset to stats succeeded"
	else
		ktap_test_pass "debugfs_stats_not_writable"
	fi
	expect_fields "debugfs_stats_write_changes_nothing" "$stats" lookups=20 \
		hits=10 inserts=10 entries=10
	reset=${stats%/stats}/reset
	echo reset >"$reset"
	expect_fields "debugfs_reset_keeps_entries" "$stats" lookups=0 hits=0 \
		inserts=0 duplicates=0 entries=10
	echo 0 >"$reset"
	expect_fields "debugfs_reset_with_0" "$stats" lookups=0 entries=10
	if (echo bogus >"$reset") 2>/dev/null; then
		ktap_test_fail "debugfs_rejects_bad_write" "writing bogus succeeded"
	else
		ktap_test_pass "debugfs_rejects_bad_write"
	fi

	ktap_check "stock_mbcache_loaded_beside_mbcache2" \
		sh -c "grep -q '^mbcache ' /proc/modules && grep -q '^mbcache2 ' /proc/modules"

	slab_entry_size

	# A user module pins mbcache2 by linking to it, one reference each.
	ref=$(cat /sys/module/mbcache2/refcnt)
	holders=$(ls /sys/module/mbcache2/holders | wc -l)
	if [ "$ref" -eq "$holders" ] && [ "$holders" -ge 1 ]; then
		ktap_test_pass "users_pin_module_by_linkage"
	else
		ktap_test_fail "users_pin_module_by_linkage" \
			"refcnt $ref with $holders holders, want one each"
	fi
	if rmmod mbcache2 2>/dev/null; then
		ktap_test_fail "unload_refused_while_cache_exists" "rmmod mbcache2 succeeded"
	else
		ktap_test_pass "unload_refused_while_cache_exists"
	fi
	rmmod mbcache2_test
	ref=$(cat /sys/module/mbcache2/refcnt)
	if [ "$ref" -eq 0 ] && [ ! -e "$dbg/mbcache2_test-hold" ]; then
		ktap_test_pass "destroy_drops_reference_and_debugfs_dir"
	else
		ktap_test_fail "destroy_drops_reference_and_debugfs_dir" \
			"refcnt $ref" "$(ls $dbg 2>&1)"
	fi
	ktap_check "unload_after_destroy" rmmod mbcache2
else
	ktap_test_fail "mode_hold_loads" "$(ktap_dmesg | tail -n 20)"
fi
modprobe -r mbcache2_test 2>/dev/null
modprobe -r mbcache2 2>/dev/null

# --- mode=drop: 1000 unused entries, 100 touched and held, 100 touched
if modprobe mbcache2_test mode=drop; then
	ctl=/sys/kernel/debug/mbcache2_test/drop
	cat "$ctl" >/tmp/drop.before
	expect_fields "drop_setup" /tmp/drop.before unref_alive=1000 \
		held_alive=100 held_referenced=100 touched_alive=100 \
		touched_referenced=100 count=1200
	sync
	echo 2 >/proc/sys/vm/drop_caches
	cat "$ctl" >/tmp/drop.after
	ktap_print_msg "after drop_caches:" "$(cat /tmp/drop.after)" \
		"$(cat $dbg/mbcache2_test-drop/stats)"
	expect_fields "drop_caches_frees_unused_entries" /tmp/drop.after \
		unref_alive=0
	expect_fields "drop_caches_keeps_used_clears_referenced" /tmp/drop.after \
		held_alive=100 held_referenced=0
	# drop_caches repeats the shrinkers while they free: the touched
	# entries lose their mark in the first pass and go in the next
	expect_fields "drop_caches_frees_touched_unused_on_second_pass" \
		/tmp/drop.after touched_alive=0 count=100
	rmmod mbcache2_test
else
	ktap_test_fail "mode_drop_loads" "$(ktap_dmesg | tail -n 20)"
fi
modprobe -r mbcache2_test 2>/dev/null
modprobe -r mbcache2 2>/dev/null

# --- load/unload cycles: the quick cases pass and leave no entry alive;
# the unload takes the debugfs directory and the slab cache with it.
quick_cases_clean() {
	if ktap_dmesg | grep -q 'ktap: not ok'; then
		ktap_dmesg | grep 'ktap: not ok' | head -n 3
		return 1
	fi
	_live=$(cat $dbg/live_objects 2>/dev/null || echo missing)
	[ "$_live" = 0 ] || { echo "$_live entries alive after the cases"; return 1; }
}
nothing_left() {
	if [ -e $dbg ] || [ -e /sys/kernel/slab/mbcache2_entry ]; then
		echo "debugfs directory or slab cache left behind"
		return 1
	fi
}
module_cycles load_unload_30_cycles_leave_nothing 30 mbcache2_test \
	"mode=quick slowdown=$slow" quick_cases_clean nothing_left
