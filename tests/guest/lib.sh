# shellcheck shell=sh
# KTAP helpers for guest test files (busybox sh). Source it first:
#
#   . /tests/guest/lib.sh
#   ktap_plan 2                       # optional; printed at exit if omitted
#   ktap_check "mkfs works" mkfs.ext4 -q -F /dev/pmem0
#   run_kmod_test percpu_stats_test   # cases printed by the module
#
# Sourcing prints "KTAP version 1"; results are numbered automatically; at
# exit the plan is printed if it was not, a plan that does not match the
# number of results is reported, and the exit status is 1 if anything failed.
# A description must not contain '#', which starts a KTAP directive.

KTAP_N=0
KTAP_PLANNED=
KTAP_FAILED=0
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

printf 'KTAP version 1\n'

# ktap_plan N: announce N results.
ktap_plan() {
	KTAP_PLANNED=$1
	printf '1..%s\n' "$1"
}

# ktap_diag TEXT...: print each line of each argument as a diagnostic.
ktap_diag() {
	for _d in "$@"; do
		printf '%s\n' "$_d" | sed 's/^/# /'
	done
}

# ktap_ok DESC
ktap_ok() {
	KTAP_N=$((KTAP_N + 1))
	printf 'ok %d - %s\n' "$KTAP_N" "$1"
}

# ktap_fail DESC [DIAG...]: diagnostics are printed before the result.
ktap_fail() {
	_desc=$1
	shift
	[ $# -eq 0 ] || ktap_diag "$@"
	KTAP_N=$((KTAP_N + 1))
	KTAP_FAILED=$((KTAP_FAILED + 1))
	printf 'not ok %d - %s\n' "$KTAP_N" "$_desc"
}

# ktap_skip DESC REASON
ktap_skip() {
	KTAP_N=$((KTAP_N + 1))
	printf 'ok %d - %s # SKIP %s\n' "$KTAP_N" "$1" "${2:-skipped}"
}

# ktap_check DESC CMD [ARGS...]: ok when CMD exits 0, else not ok with the
# command, its status and the tail of its output.
ktap_check() {
	_desc=$1
	shift
	if "$@" >"$KTAP_TMP/check" 2>&1; then
		ktap_ok "$_desc"
	else
		_rc=$?
		ktap_fail "$_desc" "command: $*" "exit status: $_rc" \
			"$(tail -n 20 "$KTAP_TMP/check")"
	fi
}

# ktap_export_file PATH NAME: hand a file to the host. run-guest.sh decodes
# it into its --results directory as NAME ([A-Za-z0-9._-] only).
ktap_export_file() {
	if [ ! -r "$1" ]; then
		ktap_diag "ktap_export_file: cannot read $1"
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

# Re-emit a module's KTAP lines (file $1) as results of this file: its
# version and plan lines are dropped, results renumbered, diagnostics and
# indented subtest lines passed through. Sets KTAP_MOD_PLAN, KTAP_MOD_RESULTS.
ktap_relay() {
	KTAP_MOD_PLAN=
	KTAP_MOD_RESULTS=0
	while IFS= read -r _l || [ -n "$_l" ]; do
		case $_l in
		'KTAP version'* | 'TAP version'*) ;;
		1..*) KTAP_MOD_PLAN=${_l#1..} ;;
		'ok '[0-9]* | 'not ok '[0-9]*)
			_st=ok
			case $_l in 'not '*) _st='not ok' ;; esac
			_r=${_l#"$_st" }
			_r=${_r#"${_r%%[!0-9]*}"}
			KTAP_N=$((KTAP_N + 1))
			KTAP_MOD_RESULTS=$((KTAP_MOD_RESULTS + 1))
			[ "$_st" = ok ] || KTAP_FAILED=$((KTAP_FAILED + 1))
			printf '%s %d%s\n' "$_st" "$KTAP_N" "$_r"
			;;
		'#'* | ' '*) printf '%s\n' "$_l" ;;
		*) printf '# %s\n' "$_l" ;;
		esac
	done <"$1"
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
	ktap_relay "$KTAP_TMP/mod"
	if [ "$_load" -ne 0 ]; then
		ktap_fail "$_mod: load" "modprobe $_mod $* failed ($_load):" \
			"$(cat "$KTAP_TMP/modprobe")" "kernel log tail:" \
			"$(tail -n 25 "$KTAP_TMP/dmesg")"
		return 1
	fi
	if [ "$KTAP_MOD_RESULTS" -eq 0 ]; then
		ktap_fail "$_mod: results" "the module printed no 'ktap: ok/not ok' lines"
	elif [ -n "$KTAP_MOD_PLAN" ] && [ "$KTAP_MOD_PLAN" != "$KTAP_MOD_RESULTS" ]; then
		ktap_fail "$_mod: plan" \
			"planned $KTAP_MOD_PLAN cases, reported $KTAP_MOD_RESULTS"
	fi
	if ! /sbin/modprobe -r "$_mod" >"$KTAP_TMP/modprobe" 2>&1; then
		ktap_fail "$_mod: unload" "$(cat "$KTAP_TMP/modprobe")"
		return 1
	fi
}

# run_kmod_bench MODULE NAME [PARAMS...]: load a benchmark module whose
# module_init prints its table into the kernel log prefixed "bench: ", save
# the table as /tmp/NAME.md, show it, hand it to the host as NAME.md, check
# that it ran to its "# end" line, and unload the module. The numbers
# themselves are never judged.
run_kmod_bench() {
	_mod=$1
	_name=$2
	shift 2
	dmesg -c >/dev/null
	if ! /sbin/modprobe "$_mod" "$@"; then
		ktap_fail "benchmark_loaded" "$(ktap_dmesg | tail -n 20)"
		return 1
	fi
	ktap_dmesg | sed -n 's/^\([^ :]*: \)\{0,1\}bench: //p' >"/tmp/$_name.md"
	ktap_diag "$(cat "/tmp/$_name.md")"
	ktap_export_file "/tmp/$_name.md" "$_name.md"
	ktap_check "benchmark_printed_its_table" grep -q '^# end' "/tmp/$_name.md"
	/sbin/modprobe -r "$_mod"
}

ktap_finish() {
	_rc=$?
	if [ -z "$KTAP_PLANNED" ]; then
		printf '1..%d\n' "$KTAP_N"
	elif [ "$KTAP_PLANNED" != "$KTAP_N" ]; then
		ktap_diag "planned $KTAP_PLANNED results, printed $KTAP_N"
		_rc=1
	fi
	rm -rf "$KTAP_TMP"
	[ "$KTAP_FAILED" -eq 0 ] || _rc=1
	exit "$_rc"
}
trap ktap_finish EXIT
