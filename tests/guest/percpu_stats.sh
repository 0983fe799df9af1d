#!/bin/sh
# percpu_stats: the in-kernel cases, then load/unload cycles that must
# leave no object, module or debugfs entry behind.
# timeout: 240
. /tests/guest/lib.sh

run_kmod_test percpu_stats_test

live=/sys/kernel/debug/percpu_stats/live
cycles=50
bad=
i=0
while [ "$i" -lt "$cycles" ]; do
	i=$((i + 1))
	if ! modprobe percpu_stats_test lifecycle=200; then
		bad="cycle $i: load failed"
		break
	fi
	n=$(cat "$live" 2>/dev/null || echo missing)
	if [ "$n" != 0 ]; then
		bad="cycle $i: $n objects alive after 200 init/destroy pairs"
		break
	fi
	if ! modprobe -r percpu_stats_test || grep -q '^percpu_stats ' /proc/modules; then
		bad="cycle $i: unload failed"
		break
	fi
	if [ -e /sys/kernel/debug/percpu_stats ]; then
		bad="cycle $i: debugfs directory left behind"
		break
	fi
done
if [ -z "$bad" ]; then
	ktap_ok "load_unload_${cycles}_cycles_leave_nothing"
else
	ktap_fail "load_unload_${cycles}_cycles_leave_nothing" "$bad"
fi
