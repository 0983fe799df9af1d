#!/bin/sh
# Hostile images: small ext4 images with random bytes written into one
# structure each (superblock, group descriptors, inode table, an external
# xattr block, an extent tree block, a directory block), generated
# deterministically from a seed, loop-mounted with stock ext4 and with ext4x
# (errors=continue, and errors=remount-ro in place of the default: a
# corrupted s_errors could ask for panic) and walked: ls -laR, getfattr -d
# on everything, cat of every file, and (errors=continue) a create, xattr
# set and unlink. Mounting may fail and the walk may report errors; the
# kernel must not oops or WARN, no step may hang (30 s, times a debug
# kernel's ext4x_timeout_scale), and ext4x, a renamed copy of stock's code,
# must meet the same outcome as stock ext4 on the same image (refused,
# errors or clean). A file reads up to the image's size: a
# corrupted i_size can claim a terabyte of holes, which no kernel reads
# in 30 s.
# 50 images (ext4x_long=1 on the kernel command line: 300).
# timeout: 900
# timeout-long: 1800
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh

nimg=50
[ "$(boot_param ext4x_long)" = 1 ] && nimg=300
seed0=1000
boot_param_int seed0 ext4x_hostile_seed 0 1000000000
work=/tmp/hostile
# the images' size: no file on one holds more data than this
img_bytes=4194304
# a step's limit, stretched on a debug kernel as the file's is
scale=1
boot_param_int scale ext4x_timeout_scale 1 100
step_limit=$((30 * scale))
mnt=/mnt/h
mkdir -p "$work" "$mnt"
modprobe loop 2>/dev/null
dmesg -c >/dev/null
# Every mount of a corrupted image logs a few lines; keep warnings (level 4)
# and worse on the console, where the log parser looks for WARN and oops.
dmesg -n 5
modprobe ext4 && modprobe ext4x || {
	ktap_test_fail "modprobe ext4 and ext4x" "$(ktap_dmesg | tail -n 10)"
	exit 1
}

# ---- two base images: with metadata_csum (most corruption is caught by a
# checksum) and without (the parsers see the corrupted fields) -------------
mkbase() {
	_img=$work/base-$1.img
	rm -f "$_img"
	dd if=/dev/zero of="$_img" bs=$img_bytes count=1 2>/dev/null
	mke2fs -q -F -t ext4 -b 1024 -I 128 -N 256 $2 "$_img" || return 1
	_lo=$(losetup -f) && losetup "$_lo" "$_img" || return 1
	mount -t ext4 "$_lo" "$mnt" || { losetup -d "$_lo"; return 1; }
	mkdir -p "$mnt/d1/d2" "$mnt/big"
	i=0
	while [ $i -lt 12 ]; do
		head -c $((i * 700 + 1)) /dev/urandom >"$mnt/d1/f$i"
		setfattr -n user.tag -v "shared-value" "$mnt/d1/f$i"
		setfattr -n user.own -v "v$((i % 3))" "$mnt/d1/f$i"
		i=$((i + 1))
	done
	setfacl -m u:1000:rw "$mnt/d1/f1" 2>/dev/null
	ln -s d1/f1 "$mnt/link"
	ln "$mnt/d1/f2" "$mnt/d1/d2/hard"
	# a file with many extents: every other 1k block written
	i=0
	while [ $i -lt 40 ]; do
		dd if=/dev/urandom of="$mnt/frag" bs=1k count=1 seek=$((i * 2)) conv=notrunc 2>/dev/null
		i=$((i + 1))
	done
	# a directory over several blocks (htree index)
	i=0
	while [ $i -lt 120 ]; do
		: >"$mnt/big/entry-with-a-longish-name-$i"
		i=$((i + 1))
	done
	umount "$mnt" && losetup -d "$_lo"
}
ktap_check "base image with metadata_csum" mkbase csum ""
ktap_check "base image without metadata_csum" mkbase nocsum "-O ^metadata_csum"

# region BASE TARGET: "OFFSET LENGTH" of the structure in bytes.
region() {
	_b=$work/base-$1.img
	case $2 in
	sb) echo "1024 1024" ;;
	gdt) echo "2048 1024" ;;
	itable)
		_it=$(dumpe2fs "$_b" 2>/dev/null | sed -n 's/^ *Inode table at \([0-9]*\)-.*/\1/p' | head -n1)
		echo "$((_it * 1024)) 4096"
		;;
	xattr)
		_x=$(debugfs -R "stat /d1/f3" "$_b" 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p' | head -n1)
		echo "$((_x * 1024)) 1024"
		;;
	extent)
		_e=$(debugfs -R "stat /frag" "$_b" 2>/dev/null | tr ',' '\n' | sed -n 's/.*(ETB[0-9]*):\([0-9]*\).*/\1/p' | head -n1)
		echo "$((_e * 1024)) 1024"
		;;
	dir)
		_d=$(debugfs -R "blocks /big" "$_b" 2>/dev/null | cut -d' ' -f2)
		echo "$((_d * 1024)) 1024"
		;;
	esac
}
for b in csum nocsum; do
	for t in sb gdt itable xattr extent dir; do
		# shellcheck disable=SC2046 # "offset length", split on purpose
		set -- $(region $b $t)
		if [ "${1:-0}" -lt 1024 ] || [ "${2:-0}" -eq 0 ]; then
			ktap_test_fail "locate $t in base-$b" "region: $*"
			exit 1
		fi
		eval "reg_${b}_$t=\"$1 $2\""
	done
done
# shellcheck disable=SC2154 # the reg_* were set by the eval above
ktap_print_msg "regions (offset length): sb gdt itable xattr extent dir:" \
	"csum: $reg_csum_sb, $reg_csum_gdt, $reg_csum_itable, $reg_csum_xattr, $reg_csum_extent, $reg_csum_dir" \
	"nocsum: $reg_nocsum_sb, $reg_nocsum_gdt, $reg_nocsum_itable, $reg_nocsum_xattr, $reg_nocsum_extent, $reg_nocsum_dir"

# corrupt IMG SEED OFFSET LENGTH: 1 to 8 random bytes at random places.
corrupt() {
	awk -v seed="$2" -v off="$3" -v len="$4" 'BEGIN {
		srand(seed)
		n = 1 + int(rand() * 8)
		for (i = 0; i < n; i++)
			printf "%d %o\n", off + int(rand() * len), int(rand() * 256)
	}' | while read -r o v; do
		# shellcheck disable=SC2059 # the octal escape is the point
		printf "\\$v" | dd of="$1" bs=1 seek="$o" conv=notrunc 2>/dev/null
	done
}

# walk FSTYPE OPTS IMG: print the outcome class (refused, errors, clean, or
# hung when a step ran into its limit). Each step runs in a session of its
# own (run_in_session): at the limit the whole session dies, and no find or
# reader of it reads on beside the rest of the run, holding the lazily
# unmounted file system.
walk() {
	cp "$3" "$work/run.img"
	_lo=$(losetup -f)
	losetup "$_lo" "$work/run.img" || { echo setup; return; }
	dmesg -c >/dev/null
	if ! mount -t "$1" -o "$2" "$_lo" "$mnt" 2>/dev/null; then
		losetup -d "$_lo"
		ktap_kernel_clean | sed "s|^|$1 $2: |" >>"$work/problems"
		echo refused
		return
	fi
	_e=0 _hung=0
	for _step in "ls -laR $mnt" \
		"find $mnt -exec getfattr -h -d -m - {} +" \
		"find $mnt -type f -exec head -c $img_bytes {} +"; do
		if run_in_session "$step_limit" sh -c "$_step" </dev/null >/dev/null 2>&1; then
			:
		elif [ "$session_timed_out" = 1 ]; then
			_hung=1
		else
			_e=1
		fi
	done
	case $2 in
	*continue*)
		{ : >"$mnt/new" && setfattr -n user.x -v y "$mnt/new" &&
			rm "$mnt/new"; } 2>/dev/null || _e=1
		;;
	esac
	umount "$mnt" 2>/dev/null || umount -l "$mnt"
	losetup -d "$_lo"
	ktap_kernel_clean | sed "s|^|$1 $2: |" >>"$work/problems"
	ktap_dmesg | grep -q "EXT4-fs error\|EXT4-fs warning" && _e=1
	if [ $_hung -eq 1 ]; then
		echo hung
	elif [ $_e -eq 0 ]; then
		echo clean
	else
		echo errors
	fi
}

: >"$work/problems"
differ=0 both_refused=0 same=0 hung=0 total=0
targets="sb gdt itable xattr extent dir"
i=0
: >"$KTAP_TMP/worse"
while [ $i -lt "$nimg" ]; do
	seed=$((seed0 + i))
	set -- $targets
	shift $((i % 6))
	t=$1
	if [ $(((i / 6) % 2)) -eq 0 ]; then b=csum; else b=nocsum; fi
	eval "set -- \$reg_${b}_$t"
	cp "$work/base-$b.img" "$work/img"
	corrupt "$work/img" "$seed" "$1" "$2"
	line="img $i $b/$t seed $seed:"
	for o in errors=continue errors=remount-ro; do
		s=$(walk ext4 "$o" "$work/img")
		x=$(walk ext4x "$o" "$work/img")
		total=$((total + 1))
		line="$line ${o#errors=} ext4=$s ext4x=$x"
		if [ "$s" = hung ] || [ "$x" = hung ]; then
			hung=$((hung + 1))
			echo "$line" >>"$KTAP_TMP/worse"
		elif [ "$s" = refused ] && [ "$x" = refused ]; then
			both_refused=$((both_refused + 1))
		elif [ "$s" = "$x" ]; then
			same=$((same + 1))
		else
			differ=$((differ + 1))
			echo "$line" >>"$KTAP_TMP/worse"
		fi
	done
	echo "# $line"
	i=$((i + 1))
done
ktap_print_msg "hostile images: $nimg images, $total mounts per fs type:" \
	"refused by both $both_refused, same outcome $same, different $differ, a step hung $hung"
if [ "$differ" -eq 0 ] && [ "$hung" -eq 0 ]; then
	ktap_test_pass "ext4x meets stock ext4's outcome on $nimg corrupted images, no hang"
else
	ktap_test_fail "ext4x meets stock ext4's outcome on $nimg corrupted images, no hang" \
		"$(cat "$KTAP_TMP/worse")"
fi
# The serial log parser also counts every WARN, BUG and oops; say it here too.
if [ -s "$work/problems" ]; then
	ktap_test_fail "no oops or WARN in the kernel log" "$(head -n 30 "$work/problems")"
else
	ktap_test_pass "no oops or WARN in the kernel log"
fi
rm -rf "$work"
dmesg -n 7
