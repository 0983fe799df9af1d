# shellcheck shell=sh
# run_in_session, for the guest's busybox sh: sourced by run-tests.sh (each
# test file) and lib.sh (a test file's own steps, e.g. hostile.sh's walks).

# run_in_session LIMIT CMD [ARG...]: run CMD in a session of its own, with
# the caller's stdin, stdout and stderr, and return its exit status. Past
# LIMIT seconds a watchdog, in a session of its own too, KILLs CMD's whole
# session; when CMD exits, what is left of its session is KILLed as well.
# No child of CMD then reads on or holds a file open beside the caller:
# timeout(1) would signal CMD alone. Sets session_timed_out to 1 when the
# watchdog struck (CMD's status is 137 then), else to 0.
# shellcheck disable=SC2034 # session_timed_out is the callers'
run_in_session() {
	_ris_mark=${TMPDIR:-/tmp}/session-timed-out.$$
	rm -f "$_ris_mark"
	_ris_limit=$1
	shift
	setsid "$@" &
	_ris_pid=$!
	setsid sh -c "sleep $_ris_limit; : >$_ris_mark; kill -KILL -- -$_ris_pid" \
		</dev/null >/dev/null 2>&1 &
	_ris_dog=$!
	# the shell's "Killed" notes stay out of the caller's output
	wait "$_ris_pid" 2>/dev/null
	_ris_rc=$?
	# The watchdog by its pid first: a CMD that exits at once can find it
	# before its setsid, with no session of its own yet to kill. Then its
	# session, for the sleep it may have started.
	kill -KILL "$_ris_dog" 2>/dev/null
	kill -KILL -- "-$_ris_dog" 2>/dev/null
	wait "$_ris_dog" 2>/dev/null
	kill -KILL -- "-$_ris_pid" 2>/dev/null
	session_timed_out=0
	[ ! -e "$_ris_mark" ] || session_timed_out=1
	rm -f "$_ris_mark"
	return "$_ris_rc"
}
