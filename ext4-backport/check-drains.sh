#!/bin/bash
# check-drains.sh - does every change that frees blocks still drain the lockless DAX reads?
#
# Usage: check-drains.sh TREE KEPT
#
# TREE holds a patched (not yet renamed) fs/ext4. Once a series lets DAX reads run
# without i_rwsem, it defines ext4_inode_dio_wait(), and every path that frees or moves
# blocks must call that: a plain inode_dio_wait() waits for direct I/O only. KEPT names,
# one "FUNCTION FILE why" per line ('#' comments), the functions whose plain
# inode_dio_wait() the series keeps because they free nothing a DAX read maps. Any
# other caller is printed ("FUNCTION FILE" on stdout), as is a series that needs KEPT
# and has none, and the exit status is 1. A tree without ext4_inode_dio_wait() passes.
set -euo pipefail

tree=${1:?usage: check-drains.sh TREE KEPT}
kept=${2:?usage: check-drains.sh TREE KEPT}
dir=$tree/fs/ext4
grep -q '^void ext4_inode_dio_wait(' "$dir/file.c" || exit 0
if [ ! -f "$kept" ]; then
	echo "no list of kept drains: $kept" >&2
	exit 1
fi

# "FUNCTION FILE" for each function of fs/ext4 that calls inode_dio_wait(): a
# function starts at a line that opens with a lowercase name and has "(" in it
callers=$(awk '
	/^[a-z_][a-z0-9_ \t*]*\(/ { fn = $0; sub(/\(.*/, "", fn); sub(/.*[ \t*]/, "", fn) }
	/^[ \t]*(\*|\/)/ { next }
	/(^|[^a-z0-9_])inode_dio_wait\(/ && fn != "ext4_inode_dio_wait" {
		f = FILENAME; sub(/.*\//, "", f); print fn " " f
	}' "$dir"/*.c | sort -u)
listed=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$kept" | awk '{ print $1 " " $2 }')
unknown=$(grep -vxF -f <(printf '%s\n' "$listed") <<<"$callers" || true)
[ -z "$unknown" ] || { printf '%s\n' "$unknown"; exit 1; }
