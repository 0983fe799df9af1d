#!/bin/sh
# dax-race: DAX reads race every change of a file's block mapping that the
# read path must not see half done (tests/vm/dax-race.c): truncate, hole
# punch, collapse and insert range, the extent status shrinker, and, on a
# dax=inode mount, the per-file DAX flag. Each block carries its owner and
# offset, so a read of a freed, foreign or shifted block fails the run.
# ext4x's DAX reads take no i_es_lock, and its O_DIRECT reads no i_rwsem
# and O_DIRECT overwrites no i_rwsem (or shared), so this is the test of those
# (dax-race opens its files with O_DIRECT). A third phase is deterministic: on
# a small, full file system without a journal (freed blocks are reused at
# once), a read is stopped by userfaultfd after it has mapped its block,
# and a truncate at that block must not complete until the read does (the
# read would otherwise copy a block the scratch file has taken meanwhile).
# A fourth phase, without a journal (faster allocating writes), writes a
# file back from its last block down while a reader reads it, so the extent
# status entry the reader looks up grows at its front in place. The fifth
# is deterministic too: a DAX write is stopped in its copy, and an
# overwrite of another block of the file must complete meanwhile when the
# stopped write is an O_DIRECT overwrite (ext4x: without i_rwsem, or
# shared), and must not when it extends the file, fills a hole, converts
# an unwritten extent, goes to a setuid file or is a plain write without
# O_DIRECT (exclusive; ext4x's overwrites without i_rwsem are only counted
# there); a plain read (without O_DIRECT, so under i_rwsem shared on
# ext4x too) likewise completes beside the first only; a truncate, a chmod
# u+s, a security xattr or chattr +i must wait for a stopped overwrite.
# After each phase e2fsck -fn must be clean and the kernel log free of
# WARN, BUG, oops and ext4 errors. Each phase runs 15 s (ext4x_long=1:
# 120 s; ext4x_race_secs=N: N s); the write-stall phase goes on until it
# has stopped a write of every kind beside every change once, at most
# eleven times that long (a debug kernel is slow). ext4x_race_fs=ext4 runs
# it on stock ext4.
# timeout: 300
# timeout-long: 600
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh

mnt=/mnt/race
mkdir -p "$mnt"
secs=15
[ "$(boot_param ext4x_long)" = 1 ] && secs=120
boot_param_int secs ext4x_race_secs 1 86400
fs=ext4x
boot_param_fs fs ext4x_race_fs
modprobe "$fs" || {
	ktap_test_fail "modprobe $fs" "$(ktap_dmesg | tail -n 10)"
	exit 1
}

# phase NAME MOUNTOPTS MKFSOPTS [MODE]: MODE as dax-race takes it
phase() {
	# shellcheck disable=SC2086 # MKFSOPTS: options, then a size
	mke2fs -q -F -t ext4 $3 || {
		ktap_test_fail "$1: mke2fs" "exit status $?"
		return 1
	}
	if ! mount -t "$fs" -o "$2" /dev/pmem0 "$mnt" 2>"$KTAP_TMP/err"; then
		ktap_test_fail "$1: mount -t $fs -o $2" "$(cat "$KTAP_TMP/err")"
		return 1
	fi
	dmesg -c >/dev/null
	if dax-race "$mnt" "$secs" $4 >"$KTAP_TMP/out" 2>&1; then
		ktap_test_pass "$1: $secs s of I/O racing mapping changes, every block its owner's"
	else
		ktap_test_fail "$1: $secs s of I/O racing mapping changes, every block its owner's" \
			"$(head -n 20 "$KTAP_TMP/out")"
	fi
	sed 's/^/# /' "$KTAP_TMP/out" | head -n 3
	ktap_fs_clean "$1" "$mnt"
}

# Stock ext4 takes i_rwsem exclusive for every DAX write; a module built
# by ext4-backport shares it for overwrites when its series has that patch
# (modinfo's series field lists the patches applied; stock has none).
series=$(modinfo -F series "$fs" 2>/dev/null)
ktap_print_msg "$fs series: ${series:-none (stock)}"
case " $series " in
*" dax-overwrites-without-i_rwsem "*) write_stall=write-stall-unlocked ;;
*" dax-overwrites-under-shared-i_rwsem "*) write_stall=write-stall ;;
*) write_stall=write-stall-exclusive ;;
esac

ktap_set_plan 15
phase "$fs dax=always" dax=always /dev/pmem0
phase "$fs dax=inode, DAX flag toggled" dax=inode /dev/pmem0 dax-flag
phase "$fs dax=always, read stopped after mapping, full, no journal" dax=always \
	"-b 4096 -m 0 -O ^has_journal /dev/pmem0 16384" stall
phase "$fs dax=always, a file written back from its end down, no journal" \
	dax=always "-O ^has_journal /dev/pmem0" es-merge
phase "$fs dax=always, write stopped in its copy" dax=always /dev/pmem0 \
	"$write_stall"
