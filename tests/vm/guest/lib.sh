# shellcheck shell=sh
# Helpers for guest test files (busybox sh). Source it first:
#
#   . /tests/vm/guest/lib.sh
#   ktap_set_plan 2                   # optional; printed at exit if omitted
#   ktap_check "mkfs works" mkfs.ext4 -q -F /dev/pmem0
#   run_kmod_test percpu_stats_test   # cases printed by the module
#
# The KTAP functions are tests/lib/ktap.sh's, the same as the host tests'.
# Sourcing prints "KTAP version 1"; at exit the plan is printed if it was
# not, a plan that does not match the number of results is reported, and
# the exit status is 1 if anything failed.

# shellcheck source=tests/lib/ktap.sh
. /tests/lib/ktap.sh
# shellcheck source=tests/vm/guest/session.sh
. /tests/vm/guest/session.sh

KTAP_TMP=${TMPDIR:-/tmp}/ktap.$$
mkdir -p "$KTAP_TMP"

# Programs also built into busybox: the busybox shell would run its applet,
# so call the real ones by path.
modprobe() { /sbin/modprobe "$@"; }
depmod() { /sbin/depmod "$@"; }
insmod() { /sbin/insmod "$@"; }
rmmod() { /sbin/rmmod "$@"; }
lsmod() { /sbin/lsmod "$@"; }
modinfo() { /sbin/modinfo "$@"; }
mke2fs() { /sbin/mke2fs "$@"; }

ktap_print_header

# boot_param NAME: the value of NAME=VALUE on the kernel command line
# (empty if absent). Guest test settings travel there (run-guest.sh --append).
boot_param() {
	sed -n "s/.*[[:space:]]$1=\([^ ]*\).*/\1/p" /proc/cmdline | head -n 1
}

# boot_param_int VAR NAME MIN MAX: when the kernel command line has NAME,
# set VAR to its value, a whole number from MIN to MAX; VAR keeps its
# default when NAME is absent. Any other value fails the file with a result
# that names it: a mistyped setting must not quietly run the default.
boot_param_int() {
	_bp=$(boot_param "$2")
	[ -n "$_bp" ] || return 0
	case $_bp in
	*[!0-9]*) _bp_ok=0 ;;
	*) [ "$_bp" -ge "$3" ] 2>/dev/null && [ "$_bp" -le "$4" ] 2>/dev/null &&
		_bp_ok=1 || _bp_ok=0 ;;
	esac
	if [ "$_bp_ok" != 1 ]; then
		ktap_test_fail "$2=$_bp" "want a whole number from $3 to $4"
		exit 1
	fi
	eval "$1=\$_bp"
}

# boot_param_fs VAR NAME: when the kernel command line has NAME, set VAR
# to its value, the file system a test runs on: ext4x, or stock ext4 to
# tell ext4x's behaviour from the kernel's. Any other value fails the file.
boot_param_fs() {
	_bp=$(boot_param "$2")
	case $_bp in
	'') ;;
	ext4 | ext4x) eval "$1=\$_bp" ;;
	*)
		ktap_test_fail "$2=$_bp" "want ext4 or ext4x"
		exit 1
		;;
	esac
}

# ktap_fs_clean NAME MNT: unmount MNT (the file system on /dev/pmem0),
# then two results: e2fsck -fn finds it clean, and the kernel logged no
# WARN, BUG, oops or ext4 error or warning. Returns 1 if MNT would not
# unmount (one result for that instead).
ktap_fs_clean() {
	umount "$2" || { ktap_test_fail "$1: umount" "$(grep " $2 " /proc/mounts)"; return 1; }
	ktap_check "$1: e2fsck -fn clean" /sbin/e2fsck -fn /dev/pmem0
	if ! ktap_kernel_clean "EXT4-fs error|EXT4-fs warning" >"$KTAP_TMP/k"; then
		ktap_test_fail "$1: no WARN, BUG, oops or ext4 error in the kernel log" \
			"$(head -n 30 "$KTAP_TMP/k")"
	else
		ktap_test_pass "$1: no WARN, BUG, oops or ext4 error in the kernel log"
	fi
}

# ktap_export_file PATH NAME: hand a file to the host. run-guest.sh decodes
# it into its --results directory as NAME ([A-Za-z0-9._-] only).
ktap_export_file() {
	if [ ! -r "$1" ]; then
		ktap_print_msg "ktap_export_file: cannot read $1"
		return 1
	fi
	_sum=$(sha256sum <"$1" | cut -d' ' -f1)
	printf '# ext4x-file-begin %s\n' "$2"
	base64 <"$1" | sed 's/^/# /'
	printf '# ext4x-file-end %s %s\n' "$2" "$_sum"
}

# Kernel log without timestamps.
ktap_dmesg() {
	dmesg | sed 's/^\[[ 0-9.]*\] //'
}

# ktap_kernel_clean [ERE]: status 0 when the kernel log holds no problem
# line (a warning, BUG, oops, call trace, general protection fault, UBSAN
# report, or a line matching ERE: what tests/vm/parse-log.awk fails a run
# on); else 1, and the problem lines are printed without timestamps.
# KCSAN data-race reports (kernels of tests/debug) are left out here: most
# name only other kernel code, and tests/vm/parse-log.awk, which sees the
# whole report on the serial console, decides which are ours.
ktap_kernel_clean() {
	ktap_dmesg | awk -v extra="${1:-}" '
	/^BUG: KCSAN: / { kcsan = 1; next }
	kcsan { if ($0 ~ /^=+$/) kcsan = 0; next }
	/WARNING:|(^|[^A-Za-z_])BUG[: ]|Oops|Call Trace|general protection|UBSAN/ || (extra != "" && $0 ~ extra) {
		print; n++
	}
	END { exit n > 0 }'
}

# run_kmod_test MODULE [PARAMS...]: load a kernel test module whose
# module_init runs its cases and prints KTAP lines prefixed "ktap: " into the
# kernel log; relay those lines as this file's results, then unload it.
run_kmod_test() {
	_mod=$1
	shift
	dmesg -c >/dev/null
	_load=0
	/sbin/modprobe "$_mod" "$@" >"$KTAP_TMP/modprobe" 2>&1 || _load=$?
	ktap_dmesg >"$KTAP_TMP/dmesg"
	sed -n 's/^\([^ :]*: \)\{0,1\}ktap: //p' "$KTAP_TMP/dmesg" >"$KTAP_TMP/mod"
	ktap_relay "" "$_mod" <"$KTAP_TMP/mod"
	if [ "$_load" -ne 0 ]; then
		ktap_test_fail "$_mod: load" "modprobe $_mod $* failed ($_load):" \
			"$(cat "$KTAP_TMP/modprobe")" "kernel log tail:" \
			"$(tail -n 25 "$KTAP_TMP/dmesg")"
		return 1
	fi
	if [ "$KTAP_RELAY_RESULTS" -eq 0 ]; then
		ktap_test_fail "$_mod: results" "the module printed no 'ktap: ok/not ok' lines"
	elif [ -n "$KTAP_RELAY_PLAN" ] && [ "$KTAP_RELAY_PLAN" != "$KTAP_RELAY_RESULTS" ]; then
		ktap_test_fail "$_mod: plan" \
			"planned $KTAP_RELAY_PLAN cases, reported $KTAP_RELAY_RESULTS"
	fi
	if ! /sbin/modprobe -r "$_mod" >"$KTAP_TMP/modprobe" 2>&1; then
		ktap_test_fail "$_mod: unload" "$(cat "$KTAP_TMP/modprobe")"
		return 1
	fi
}

# run_kmod_bench MODULE NAME [PARAMS...]: load a benchmark module whose
# module_init prints its table into the kernel log prefixed "bench: ", save
# the table as /tmp/NAME.md, show it, hand it to the host as NAME.md, check
# that it ran to its "# end" line, and unload the module. The numbers
# themselves are never judged. $BENCH_NOTE, if set, is added to the table.
run_kmod_bench() {
	_mod=$1
	_name=$2
	shift 2
	dmesg -c >/dev/null
	if ! /sbin/modprobe "$_mod" "$@"; then
		ktap_test_fail "benchmark_loaded" "$(ktap_dmesg | tail -n 20)"
		return 1
	fi
	ktap_dmesg | sed -n 's/^\([^ :]*: \)\{0,1\}bench: //p' >"/tmp/$_name.md"
	# What the numbers depend on besides our code, so that two runs can be
	# compared: the kernel command line and the CPU's mitigation state.
	{
		[ -z "$BENCH_NOTE" ] || printf '%s\n' "$BENCH_NOTE"
		echo "# guest cmdline: $(cat /proc/cmdline)"
		echo "# mitigations: $(grep -H . /sys/devices/system/cpu/vulnerabilities/* 2>/dev/null |
			sed 's|.*/||' | tr '\n' ';')"
	} >>"/tmp/$_name.md"
	ktap_print_msg "$(cat "/tmp/$_name.md")"
	ktap_export_file "/tmp/$_name.md" "$_name.md"
	ktap_check "benchmark_printed_its_table" grep -q '^# end' "/tmp/$_name.md"
	/sbin/modprobe -r "$_mod"
}

# mbcache2_counts_add_up DESC STATS: one result saying that the counters
# of the mbcache2 stats file STATS add up, inserts - deletes - evictions =
# entries = stripe_entries. Only exact with the cache's users stopped.
mbcache2_counts_add_up() {
	_st=$2
	# shellcheck disable=SC2046 # five numbers, split on purpose
	set -- "$1" $(awk '$1 == "inserts" { i = $2 } $1 == "deletes" { d = $2 }
		$1 == "evictions" { e = $2 } $1 == "entries" { n = $2 }
		$1 == "stripe_entries" { s = $2 }
		END { print i + 0, d + 0, e + 0, n + 0, s + 0 }' "$_st")
	if [ $(($2 - $3 - $4)) -eq "$5" ] && [ "$5" -eq "$6" ]; then
		ktap_test_pass "$1: inserts - deletes - evictions = entries = stripe_entries ($5)"
	else
		ktap_test_fail "$1: inserts - deletes - evictions = entries = stripe_entries" \
			"inserts $2 deletes $3 evictions $4 entries $5 stripe_entries $6"
	fi
}

# The modules loaded now that were not before module_cycles started.
_module_cycles_new() {
	awk '{ print $1 }' /proc/modules | grep -vxF -f "$KTAP_TMP/modules.before"
}
# Unload what MODULE pulled in and modprobe -r left (it skips a dependency
# still used by another one it removes later, e.g. percpu_stats under
# mbcache2); fails if any of it stays.
_module_cycles_unload_new() {
	_new=$(_module_cycles_new)
	# shellcheck disable=SC2086 # one module per word
	[ -z "$_new" ] || /sbin/modprobe -r -a $_new 2>/dev/null
	[ -z "$(_module_cycles_new)" ]
}

# module_cycles DESC N MODULE PARAMS LOADED GONE: N times load MODULE with
# PARAMS (a word list), run the command LOADED, unload MODULE and what it
# pulled in, check that the loaded modules are those of before, and run the
# command GONE. LOADED and GONE print what is wrong and fail. One result
# DESC for all the cycles, naming the first one that went wrong.
module_cycles() {
	_desc=$1 _n=$2 _mod=$3 _params=$4 _loaded=$5 _gone=$6 _bad='' _i=0
	awk '{ print $1 }' /proc/modules | sort >"$KTAP_TMP/modules.before"
	while [ "$_i" -lt "$_n" ]; do
		_i=$((_i + 1))
		dmesg -c >/dev/null
		# shellcheck disable=SC2086 # PARAMS is a word list
		if ! /sbin/modprobe "$_mod" $_params; then
			_bad="cycle $_i: loading $_mod failed"
		elif ! _why=$($_loaded 2>&1); then
			_bad="cycle $_i: $_why"
		elif ! /sbin/modprobe -r "$_mod"; then
			_bad="cycle $_i: unloading $_mod failed"
		elif ! _module_cycles_unload_new; then
			_bad="cycle $_i: modules left loaded: $(_module_cycles_new | tr '\n' ' ')"
		elif ! _why=$($_gone 2>&1); then
			_bad="cycle $_i: $_why"
		fi
		[ -z "$_bad" ] || break
	done
	if [ -z "$_bad" ]; then
		ktap_test_pass "$_desc"
	else
		ktap_test_fail "$_desc" "$_bad"
		/sbin/modprobe -r "$_mod" 2>/dev/null
	fi
}

# At exit: the plan if none was printed, and a failing status if a result
# failed, the plan was not met, or the file itself exited non-zero.
ktap_exit() {
	_rc=$?
	ktap_finished || _rc=1
	rm -rf "$KTAP_TMP"
	exit "$_rc"
}
trap ktap_exit EXIT
