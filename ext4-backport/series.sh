# shellcheck shell=bash
# Which patch files a series applies to a given release: sourced by
# prepare.sh and tests/archive-series.sh, so that the build and the check
# of the archive choose alike.
#
# patches/X.Y/series names the patches in the order they apply, one per
# line; '#' starts a comment. Each file is written for the newest release
# of X.Y. A patch whose context differs on older point releases lists the
# variants that replace it there, oldest first:
#
#   0003b-ext4-xattr-reusable-bit-on-mbcache2.patch <6.1.187:6.1.170 <6.1.192:6.1.187
#
# reads: a release before 6.1.187 applies 6.1.170/0003b-..., one before
# 6.1.192 applies 6.1.187/0003b-..., any later one 0003b-... itself. A
# variant's directory is named after the release it was written for, and
# holds only the patches that needed another text there, so each text is
# stored once and a release nobody listed gets the variant of its range.
# A line may name another series' file (../7.3/0001-...); its variants
# are still this series' own, DIR/0001-... under X.Y.

# series_version_lt A B: upstream version A sorts before B
series_version_lt() {
	[ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$1" ]
}

# series_pick XYDIR RELEASE: sets series_patches[] to the files to apply, as
# paths relative to XYDIR, and series_variant_files[] to those that are
# variants. On a
# malformed line or a missing file: one line on stderr, return 2.
series_pick() {
	local dir=$1 rel=$2 file=$1/series line name rest v before vdir pick last n=0
	local re='^<[0-9]+\.[0-9]+\.[0-9]+:[0-9][0-9.]*$'
	series_patches=() series_variant_files=()
	if [ ! -f "$file" ]; then
		echo "ext4x: $file not found" >&2
		return 2
	fi
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		line=${line%%#*}
		read -r name rest <<<"$line"
		[ -n "$name" ] || continue
		pick=$name last=""
		for v in $rest; do
			before=${v%%:*} vdir=${v#*:}
			if [[ ! $v =~ $re ]]; then
				echo "ext4x: $file:$n: '$v' is not a variant <RELEASE:DIR (e.g. <6.1.192:6.1.170)" >&2
				return 2
			fi
			before=${before#<}
			if [ -n "$last" ] && ! series_version_lt "$last" "$before"; then
				echo "ext4x: $file:$n: variants must be listed oldest first ($last, then $before)" >&2
				return 2
			fi
			last=$before
			if [ ! -f "$dir/$vdir/${name##*/}" ]; then
				echo "ext4x: $file:$n: variant $vdir/${name##*/} not found" >&2
				return 2
			fi
			if [ "$pick" = "$name" ] && series_version_lt "$rel" "$before"; then
				pick=$vdir/${name##*/}
				series_variant_files+=("$pick")
			fi
		done
		if [ ! -f "$dir/$pick" ]; then
			echo "ext4x: $file: patch ${dir##*/}/$pick not found" >&2
			return 2
		fi
		series_patches+=("$pick")
	done <"$file"
}
