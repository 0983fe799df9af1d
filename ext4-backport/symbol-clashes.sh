#!/bin/bash
# symbol-clashes.sh - check a built ext4x.ko against the stock ext4 module; prints KTAP.
#
# Usage: symbol-clashes.sh [EXT4X_KO [STOCK_EXT4_KO]]
#   EXT4X_KO       default: build/ext4x/fs/ext4/ext4x.ko next to this script
#   STOCK_EXT4_KO  default: the first of $STOCK_KO, then, for the KVER of the .ko's
#                  vermagic, the stock module extracted under the test cache
#                  (${EXT4X_CACHE:-/var/cache/ext4x-test}/kernel/$KVER/root/[usr/]lib/modules/
#                  $KVER/kernel/fs/ext4/) or installed in /lib/modules/$KVER/kernel/fs/ext4/;
#                  ext4.ko, or ext4.ko.xz/.zst/.gz as Debian ships it (6.12), which is
#                  decompressed to a temporary file; the comparisons with it are skipped
#                  if none is found (apt-get download linux-image-$KVER; dpkg-deb -x it)
# Checks: module name/aliases/depends; no defined global symbol without "ext4x" but the
# module boilerplate (init_module, cleanup_module, __this_module, and on 6.12 their
# __pfx_ padding symbols and the __start/__stop_alloc_tags section bounds); no global
# symbol, no tracepoint and no "ext4..." string (slab, proc, sysfs, fs names) shared
# with the stock module, except the fscrypt key prefix "ext4:" and the ioctl type names
# of the kernel's <uapi/linux/ext4.h> (BTF): ext4_new_group_input (6.12 on) and
# ext4_tune_sb_params (7.x).

set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ko=${1:-$here/build/ext4x/fs/ext4/ext4x.ko}
stock=${2:-${STOCK_KO:-}}
cache=${EXT4X_CACHE:-/var/cache/ext4x-test}
tmpd=""
trap '[ -z "$tmpd" ] || rm -rf "$tmpd"' EXIT

# shellcheck source=tests/lib/ktap.sh
. "$here/../tests/lib/ktap.sh"
# check NAME OUTPUT: a result that passes when OUTPUT (what is wrong) is empty
check() {
	if [ -z "$2" ]; then ktap_test_pass "$1"; else ktap_test_fail "$1" "$2"; fi
}

ktap_print_header
ktap_set_plan 9
if [ ! -f "$ko" ]; then
	for i in 1 2 3 4 5 6 7 8 9; do ktap_test_fail "check $i: $ko not found"; done
	exit 1
fi
echo "# module: $ko"

kver=$(modinfo -F vermagic "$ko" | awk '{print $1}')
if [ -z "$stock" ]; then
	# only the stock module of the same kernel: another one would share nothing
	for d in "$cache/kernel/$kver/root/lib/modules/$kver" \
		"$cache/kernel/$kver/root/usr/lib/modules/$kver" \
		"$cache/kernel/lib/modules/$kver" "/lib/modules/$kver"; do
		for c in "$d"/kernel/fs/ext4/ext4.ko{,.xz,.zst,.gz}; do
			[ -f "$c" ] && { stock=$c; break 2; }
		done
	done
fi
[ -z "$stock" ] || echo "# stock: $stock"
# nm and modinfo read the module itself: decompress a Debian-compressed one
case $stock in
*.ko.xz|*.ko.zst|*.ko.gz)
	tmpd=$(mktemp -d)
	case $stock in
	*.xz) unz=(xz -dc) ;;
	*.zst) unz=(zstd -qdc) ;;
	*) unz=(gzip -dc) ;;
	esac
	if "${unz[@]}" "$stock" >"$tmpd/ext4.ko" 2>/dev/null; then
		stock=$tmpd/ext4.ko
	else
		echo "# cannot decompress $stock with ${unz[0]}"
		stock=""
	fi
	;;
esac

# 1-3: modinfo
name=$(modinfo -F name "$ko")
check "modinfo name is ext4x" "$([ "$name" = ext4x ] || echo "name: $name")"
aliases=$(modinfo -F alias "$ko" | sort | paste -sd' ')
check "modinfo alias is only fs-ext4x" "$([ "$aliases" = fs-ext4x ] || echo "aliases: $aliases")"
deps=$(modinfo -F depends "$ko")
echo "# depends: $deps"
# the xattr caches are mbcache2's (patch 0003 of every series), not stock's
check "depends on jbd2 and mbcache2, not stock mbcache" "$(grep -q ',jbd2,' <<<",$deps," &&
	grep -q ',mbcache2,' <<<",$deps," && ! grep -q ',mbcache,' <<<",$deps," ||
	echo "depends: $deps")"

# 4: every defined global has ext4x in its name
boiler='^((__pfx_)?(init_module|cleanup_module)|__this_module|__(start|stop)_alloc_tags)$'
globals() { nm --defined-only -g "$1" | awk '{print $3}' | sort -u; }
ours=$(globals "$ko")
check "every global symbol is ext4x-prefixed (else add it to rename-globals.txt)" \
	"$(echo "$ours" | grep -v ext4x | grep -vE "$boiler")"

# 5: tracepoints: all in trace system ext4x
tps=$(nm "$ko" | awk '$3 ~ /^__tracepoint_/ {print $3}')
check "$(echo "$tps" | grep -c .) tracepoints, all __tracepoint_ext4x_*" \
	"$(echo "$tps" | grep -v '^__tracepoint_ext4x_')"

if [ -z "$stock" ] || [ ! -f "$stock" ]; then
	for t in "no global symbol shared with stock ext4.ko" "no tracepoint shared with stock ext4.ko" \
		"no ext4 string (slab/proc/sysfs/fs name) shared with stock ext4.ko" \
		"stock ext4.ko is the same kernel"; do
		ktap_test_skip "$t" "no stock ext4.ko (set STOCK_KO)"
	done
	ktap_finished; exit
fi

# 6: globals shared with the stock module
theirs=$(globals "$stock")
check "no global symbol shared with stock ext4.ko" \
	"$(comm -12 <(echo "$ours") <(echo "$theirs") | grep -vE "$boiler")"
# 7: tracepoint names
check "no tracepoint shared with stock ext4.ko" \
	"$(comm -12 <(echo "$tps" | sort) <(nm "$stock" | awk '$3 ~ /^__tracepoint_/ {print $3}' | sort))"
# 8: identity strings: slab caches, /proc/fs, /sys/fs, fs type, thread/workqueue names
check "no ext4 string (slab/proc/sysfs/fs name) shared with stock ext4.ko" \
	"$(comm -12 <(strings -a "$stock" | grep -E '^(fs/)?ext4' | sort -u) <(strings -a "$ko" | sort -u) |
		grep -vxE 'ext4:|ext4_new_group_input|ext4_tune_sb_params')"
# 9: same vermagic
check "stock ext4.ko is the same kernel" \
	"$([ "$(modinfo -F vermagic "$stock")" = "$(modinfo -F vermagic "$ko")" ] || echo "vermagic differs")"
echo "# local (static) symbols with the same name in both, harmless: $(comm -12 \
	<(nm --defined-only "$ko" | awk '$2 ~ /[a-z]/ {print $3}' | sort -u) \
	<(nm --defined-only "$stock" | awk '$2 ~ /[a-z]/ {print $3}' | sort -u) | grep -c .)"
ktap_finished
