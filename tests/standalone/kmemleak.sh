#!/bin/sh
# kmemleak after the suite, in the suite's own guest (tests/debug/run.sh runs
# --tests all,kmemleak on a kernel with CONFIG_DEBUG_KMEMLEAK): with our
# modules unloaded, a scan must show no unreferenced object that ext4x,
# mbcache2, percpu_stats or their test modules allocated. Their frames can
# no longer be resolved once they are unloaded, so a frame that kmemleak
# prints as a bare address counts as ours; the report names the objects, so
# a person can tell when it was another unloaded module.
# Run by: tests/debug/run.sh, last in the suite's guest
# timeout: 900
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh

kml=/sys/kernel/debug/kmemleak
[ -e "$kml" ] || ktap_skip_all "no $kml: a kernel without CONFIG_DEBUG_KMEMLEAK"
ktap_set_plan 3

loaded=$(awk '$1 ~ /^(ext4x|mbcache2|percpu_stats)/ { print $1 }' /proc/modules | tr '\n' ' ')
if [ -z "$loaded" ]; then
	ktap_test_pass "none of our modules is loaded"
else
	ktap_test_fail "none of our modules is loaded" "still loaded: $loaded"
fi

# An object is reported once it has stayed unreferenced for a few seconds
# and through two scans.
ktap_check "kmemleak scans" sh -c "echo scan >$kml && sleep 6 && echo scan >$kml"
cat "$kml" >"$KTAP_TMP/leaks"
# one report per "unreferenced object" block; ours: a frame of our modules
# by name, or a bare address (a frame of a module that is gone)
awk -v out="$KTAP_TMP/ours" '
function flush() {
	if (block == "") return
	total++
	if (ours) { n++; printf "%s", block > out }
	block = ""; ours = 0
}
/^unreferenced object/ { flush() }
{ block = block $0 "\n" }
/\[(ext4x|mbcache2|percpu_stats)[a-z_]*\]|[ \t](ext4x_|mbcache2_|mbc2_|percpu_stats_)/ { ours = 1 }
/\[<[0-9a-f]+>\] 0x[0-9a-f]+$/ { ours = 1 }
END { flush(); printf "%d %d\n", total + 0, n + 0 }' "$KTAP_TMP/leaks" >"$KTAP_TMP/counts"
read -r total ours <"$KTAP_TMP/counts"
ktap_print_msg "kmemleak: $total unreferenced object(s) reported in all, $ours attributed to our modules"
if [ "$ours" -eq 0 ]; then
	ktap_test_pass "no leak attributed to our modules ($total other report(s) in the kernel)"
else
	ktap_test_fail "no leak attributed to our modules" "$(head -n 80 "$KTAP_TMP/ours")"
fi
[ "$total" -eq 0 ] || ktap_export_file "$KTAP_TMP/leaks" kmemleak.txt
