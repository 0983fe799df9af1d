# shellcheck shell=bash disable=SC2034,SC2154 # rc, out, err: for the caller; prepare, T: from it
# Shared by the host tests of prepare.sh (test-prepare.sh, test-variants.sh).
# The caller sets prepare (the script) and T (its private temporary directory),
# and RUN_TMPDIR to give prepare.sh a TMPDIR of its own.

# run ENV... -- ARGS: prepare.sh with none of our variables from the caller's
# environment, only ENV...; sets rc, out (stdout) and err (stderr)
run() {
	local envs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env -u KVER -u KSRC -u OUT -u FLAVOUR -u EXT4X_KBUILD -u EXT4X_SRCDIR \
		-u EXT4X_PATCHDIR -u EXT4X_HEADERS_DEBVER -u EXT4X_SOURCE_DEBVER \
		${RUN_TMPDIR:+TMPDIR="$RUN_TMPDIR"} ${envs[@]+"${envs[@]}"} "$prepare" "$@" >"$T/stdout" 2>"$T/stderr"
	rc=$?
	out=$(cat "$T/stdout")
	err=$(cat "$T/stderr")
}
