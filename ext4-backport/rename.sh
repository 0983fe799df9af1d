#!/bin/bash
# rename.sh - turn a pristine (already patched) fs/ext4 tree into the "ext4x" module,
# so that it loads and mounts beside the stock ext4 module.
#
# Usage: rename.sh TREE          rename TREE in place, then check it
#        rename.sh --check TREE  only run the checks on an already renamed TREE
#
# TREE is a kernel-tree-shaped directory holding fs/ext4/ and
# include/trace/events/ext4.h (as prepare.sh extracts them).
#
# The rename is mechanical (sed over every file), then checked: any leftover identifier
# or string that could clash with the stock ext4 module makes it fail.
#
# Rules (see README.md for the why):
#   1. every lowercase "ext4" that starts a word or follows "_" becomes "ext4x":
#      identifiers (ext4_foo, __ext4_foo, trace_ext4_foo, __tracepoint_ext4_foo),
#      strings ("ext4" fs type, "fs/ext4" proc dir, sysfs "ext4" kobject, every
#      kmem_cache name, "ext4lazyinit", ...), include names and TRACE_SYSTEM;
#      files named ext4*.{c,h} are renamed to match (ext4.h -> ext4x.h, ...), and
#      include/trace/events/ext4.h -> include/trace/events/ext4x.h;
#      a KMEM_CACHE(struct, flags) of a struct without ext4 in its name (6.12:
#      extent_status, pending_reservation, bio_post_read_ctx), which would name
#      the cache exactly like the stock module's, is spelled out as
#      kmem_cache_create("ext4x_<struct>", ...) with the same size, alignment
#      and flags;
#   2. CONFIG_EXT4_* -> CONFIG_EXT4X_* (values come from the generated Kbuild);
#   3. global functions without "ext4" in their name (rename-globals.txt) get an
#      "ext4x_" prefix;
#   4. kept on purpose: the fscrypt legacy key prefix "ext4:" (keyring ABI), the
#      ext4_has_unknown_ext4_* names EXTN_FEATURE_FUNCS(4) token-pastes, all
#      uppercase EXT4 names (EXT4_SUPER_MAGIC from uapi magic.h, on-disk format
#      macros, "EXT4-fs" in messages); no symbol comes from a macro name;
#      where the tree includes the kernel's <uapi/linux/ext4.h> (6.12: the ioctl
#      ABI moved there), that include and the lowercase names its macros use,
#      struct ext4_new_group_input and struct compat_ext4_new_group_input (which
#      ext4.h defines and EXT4_IOC32_GROUP_ADD names in both headers), and
#      (7.x) struct ext4_tune_sb_params of the GET/SET_TUNE_SB_PARAM ioctls,
#      stay as they are (types, no symbols);
#   5. the ext2 and ext3 file system registrations and their module aliases are
#      removed (ext4x answers only to "ext4x").
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "ext4x: rename: $*" >&2; exit 1; }

check_only=0
if [ "${1:-}" = "--check" ]; then check_only=1; shift; fi
[ $# -eq 1 ] || die "usage: rename.sh [--check] TREE"
tree=$1
[ -d "$tree/fs/ext4" ] || die "$tree/fs/ext4: no such directory"
cd "$tree"

# Lines that must survive rule 1 unchanged (matched after the rename, restored).
# key_prefix (6.1) / legacy_key_prefix (later): "ext4:" is the fscrypt keyring ABI.
keep_sed='s/(key_prefix[[:space:]]*=[[:space:]]*)"ext4x:"/\1"ext4:"/'
keep_grep='key_prefix[[:space:]]*=[[:space:]]*"ext4:"'
# EXTN_FEATURE_FUNCS(ver) in ext4.h token-pastes ext4_has_unknown_ext##ver##_*_features:
# the callers' literal ext4x_has_unknown_ext4x_* must stay ..._ext4_* to match what
# EXTN_FEATURE_FUNCS(4) generates (ext2/ext3 ones are untouched by rule 1 anyway).
paste_sed='s/_has_unknown_ext4x_/_has_unknown_ext4_/g'
paste_grep='_has_unknown_ext4_'
# The kernel's own <uapi/linux/ext4.h> (ioctl numbers and argument structs: ext4x
# speaks the same ioctl ABI) is included as it is, not renamed, and the struct it
# defines keeps its name. Trees that define that struct in ext4.h instead (6.1)
# are not touched by this rule.
uapi_sed='s,<uapi/linux/ext4x\.h>,<uapi/linux/ext4.h>,; s/\<(compat_)?ext4x_(new_group_input|tune_sb_params)\>/\1ext4_\2/g'
uapi_grep='<uapi/linux/ext4\.h>|\<(compat_)?ext4_(new_group_input|tune_sb_params)\>'

do_rename() {
	local f new words
	[ -f include/trace/events/ext4.h ] ||
		die "include/trace/events/ext4.h missing from $tree"
	[ ! -e include/trace/events/ext4x.h ] || die "$tree is already renamed"

	# rule 1, file names
	mv include/trace/events/ext4.h include/trace/events/ext4x.h
	for f in fs/ext4/ext4*; do
		new=fs/ext4/ext4x${f#fs/ext4/ext4}
		mv "$f" "$new"
	done

	# rule 3 word list
	words=$(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$here/rename-globals.txt")
	# rule 4, uapi header: only where the tree includes it
	local uapi=0
	if grep -rqF --include='*.[ch]' '<uapi/linux/ext4.h>' fs/ext4; then uapi=1; fi

	{
		# rule 1: lowercase ext4 at a word start or after '_' (not already ext4x);
		# loop because one match consumes the character before the next one.
		echo ':a'
		echo 's/(^|[^[:alnum:]])ext4([^x]|$)/\1ext4x\2/'
		echo 'ta'
		# rule 1, slab names: KMEM_CACHE(foo, flags) names its cache "foo";
		# one whole call on one line, else the check below fails on it
		echo '/KMEM_CACHE\(ext4x_/!s/KMEM_CACHE\(([A-Za-z_][A-Za-z0-9_]*),[[:space:]]*(.*)\);/kmem_cache_create("ext4x_\1", sizeof(struct \1), __alignof__(struct \1), \2, NULL);/'
		# rule 2
		echo 's/CONFIG_EXT4_/CONFIG_EXT4X_/g'
		# rule 3
		for f in $words; do
			echo "s/\\<$f\\>/ext4x_$f/g"
		done
		# rule 4
		echo "$keep_sed"
		echo "$paste_sed"
		[ "$uapi" -eq 0 ] || echo "$uapi_sed"
	} >"$tree/.rename.sed"

	find fs/ext4 include/trace/events/ext4x.h -type f -print0 |
		xargs -0 sed -i -E -f "$tree/.rename.sed"
	rm -f "$tree/.rename.sed"

	# rule 5: drop the ext2/ext3 registrations and aliases (whole lines only, so a
	# changed super.c fails the checks below instead of being half edited).
	sed -i -E \
		-e '/^[[:space:]]*MODULE_ALIAS(_FS)?\("ext[23]"\);[[:space:]]*$/d' \
		-e '/^[[:space:]]*(un)?register_as_ext[23]\(\);[[:space:]]*$/d' \
		fs/ext4/super.c
}

# Every check prints what it found and counts a failure.
fails=0
fail() { echo "ext4x: rename check: $*" >&2; fails=$((fails + 1)); }

do_check() {
	local out
	[ -f include/trace/events/ext4x.h ] || fail "include/trace/events/ext4x.h missing"
	[ ! -e include/trace/events/ext4.h ] || fail "include/trace/events/ext4.h still present"
	out=$(find fs/ext4 -type f -name 'ext4*' ! -name 'ext4x*')
	[ -z "$out" ] || fail "files not renamed: $out"

	# rule 1 leftovers: a lowercase ext4 not followed by x, anywhere
	# (sources only: not the generated Kbuild nor build products)
	out=$(grep -rnE --include='*.[ch]' --include=Makefile --include=Kconfig \
		'(^|[^[:alnum:]])ext4([^x]|$)' fs/ext4 include/trace/events/ext4x.h |
		grep -vE "$keep_grep" | grep -v -- "$paste_grep" | grep -vE "$uapi_grep" || true)
	[ -z "$out" ] || fail "lowercase ext4 left:"$'\n'"$out"
	# rule 2 leftovers
	out=$(grep -rn --include='*.[ch]' --include=Makefile 'CONFIG_EXT4_' fs/ext4 include/trace/events/ext4x.h || true)
	[ -z "$out" ] || fail "CONFIG_EXT4_ left:"$'\n'"$out"
	# rule 3 leftovers: a listed global still used under its stock name
	local w
	for w in $(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$here/rename-globals.txt"); do
		out=$(grep -rnw --include='*.[ch]' -- "$w" fs/ext4 include/trace/events/ext4x.h | grep -v "ext4x_$w" || true)
		[ -z "$out" ] || fail "global $w not renamed:"$'\n'"$out"
	done
	# rule 4: the fscrypt key prefix kept (crypto.c exists in every tree we support)
	grep -qE "$keep_grep" fs/ext4/crypto.c || fail 'fscrypt key_prefix "ext4:" not found in crypto.c'

	# identities, spelled out
	out=$(grep -rhoE --include='*.[ch]' 'MODULE_ALIAS(_FS)?\("[^"]*"\)' fs/ext4 | sort -u)
	[ "$out" = 'MODULE_ALIAS_FS("ext4x")' ] || fail "module aliases are not just fs-ext4x: $out"
	out=$(grep -rnE --include='*.[ch]' '(un)?register_as_ext[23]\(\);' fs/ext4 || true)
	[ -z "$out" ] || fail "ext2/ext3 registration left:"$'\n'"$out"
	out=$(grep -rnoE --include='*.[ch]' '(un)?register_filesystem\(&[a-z0-9_]+\)' fs/ext4 |
		grep -vE '&(ext4x|ext2|ext3)_fs_type\)' || true)
	[ -z "$out" ] || fail "unexpected register_filesystem:"$'\n'"$out"
	# ext2_fs_type/ext3_fs_type stay defined (IS_EXT2_SB/IS_EXT3_SB use them) but are
	# never registered: no register_as_ext[23]() call is left (above), and the ext2
	# one is only compiled with CONFIG_EXT4X_USE_FOR_EXT2, which we never set
	grep -q 'defined(CONFIG_EXT4X_USE_FOR_EXT2)' fs/ext4/super.c ||
		fail "ext2 registration is no longer under CONFIG_EXT4X_USE_FOR_EXT2"
	grep -qE '\.name[[:space:]]*=[[:space:]]*"ext4x",' fs/ext4/super.c ||
		fail 'file_system_type .name "ext4x" not found'
	grep -qE '"fs/ext4x"' fs/ext4/sysfs.c || fail '/proc/fs/ext4x not found in sysfs.c'
	grep -qE 'kobject_create_and_add\("ext4x",' fs/ext4/sysfs.c || fail '/sys/fs/ext4x not found in sysfs.c'
	grep -qE '^#define TRACE_SYSTEM ext4x$' include/trace/events/ext4x.h ||
		fail 'TRACE_SYSTEM ext4x not found'
	# every slab cache: a literal name must start with ext4x, KMEM_CACHE(struct ext4x_*)
	out=$(grep -rnE --include='*.[ch]' 'kmem_cache_create(_usercopy)?\("' fs/ext4 | grep -vE 'kmem_cache_create(_usercopy)?\("ext4x' || true)
	[ -z "$out" ] || fail "kmem cache names not renamed:"$'\n'"$out"
	out=$(grep -rnE --include='*.[ch]' 'KMEM_CACHE(_USERCOPY)?\(' fs/ext4 | grep -vE 'KMEM_CACHE(_USERCOPY)?\(ext4x' || true)
	[ -z "$out" ] || fail "KMEM_CACHE structs not renamed:"$'\n'"$out"

	[ "$fails" -eq 0 ] || die "$fails check(s) failed in $tree"
}

if [ "$check_only" -eq 0 ]; then
	do_rename
fi
do_check
