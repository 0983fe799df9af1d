# shellcheck shell=bash
# Settings the test scripts take from the environment, checked before any
# work starts: a mistyped value is an error that names it, never a run of
# something else (bash arithmetic would read "1O" as a variable, i.e. 0).

# setting_int NAME DEFAULT MIN MAX: print the value of environment variable
# NAME, DEFAULT when it is unset or empty. Anything but a whole number from
# MIN to MAX is reported on stderr; status 2.
setting_int() {
	local v=${!1:-$2}
	if [[ $v =~ ^[0-9]{1,10}$ ]] && ((10#$v >= $3 && 10#$v <= $4)); then
		echo $((10#$v))
	else
		echo "$1=$v: want a whole number from $3 to $4" >&2
		return 2
	fi
}

# setting_words NAME DEFAULT WORD...: print NAME's value (DEFAULT when unset
# or empty) when each of its words is one of WORD...; else report on
# stderr, status 2.
setting_words() {
	local name=$1 v=${!1:-$2} w words
	shift 2
	read -r -a words <<<"$v"
	for w in "${words[@]}"; do
		[[ " $* " == *" $w "* ]] && continue
		echo "$name=$v: \"$w\" is not one of: $*" >&2
		return 2
	done
	echo "$v"
}
