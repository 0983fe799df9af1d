#!/bin/sh
# KCSAN was watching: on a kernel with CONFIG_KCSAN (the debug lane's
# second configuration, tests/debug/lane.sh), after the suite, KCSAN's
# debugfs file says it is enabled and that it set up watchpoints, i.e. the
# suite's memory accesses were sampled. Without this, a run with no KCSAN
# report could as well be a run in which KCSAN never looked. Prints its
# counters (data_races: races it found; the harness fails the run only on
# those in our modules that tests/debug/kcsan-core-races does not list,
# tests/vm/parse-log.awk).
# Run by: tests/debug/lane.sh, last in the suite's guest
# timeout: 120
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh

k=/sys/kernel/debug/kcsan
[ -r "$k" ] || ktap_skip_all "no $k: a kernel without CONFIG_KCSAN"
ktap_set_plan 2
cat "$k" >"$KTAP_TMP/kcsan"
ktap_print_msg "$(grep -E '^[a-z_]+: [0-9]+$' "$KTAP_TMP/kcsan" | tr '\n' ' ')"
count() { awk -v k="$1:" '$1 == k { print $2 }' "$KTAP_TMP/kcsan"; }
ktap_check "KCSAN is enabled" test "$(count enabled)" = 1
w=$(count setup_watchpoints)
ktap_check "KCSAN set up watchpoints during the run (${w:-none})" test "${w:-0}" -gt 0
