#!/bin/sh
# percpu_stats: the in-kernel cases, then load/unload cycles that must
# leave no object, module or debugfs entry behind.
# timeout: 240
. /tests/vm/guest/lib.sh

run_kmod_test percpu_stats_test

# Each load runs 200 init/destroy pairs; none may stay alive, and the
# unload must take the debugfs directory with it.
none_alive() {
	_live=$(cat /sys/kernel/debug/percpu_stats/live 2>/dev/null || echo missing)
	[ "$_live" = 0 ] || { echo "$_live objects alive after 200 init/destroy pairs"; return 1; }
}
no_debugfs() {
	[ ! -e /sys/kernel/debug/percpu_stats ] || { echo "debugfs directory left behind"; return 1; }
}
module_cycles load_unload_50_cycles_leave_nothing 50 percpu_stats_test \
	lifecycle=200 none_alive no_debugfs
