#!/bin/sh
# Power cut: files written and fsynced on ext4x (-o dax on odd cycles, page
# cache on even ones) while other writers keep the journal busy; a timer
# hard-resets the guest at a random moment (sysrq b: no sync, no unmount).
# The guest boots again in a new QEMU (run-guest.sh --reboot), the NVDIMM
# keeping what reached it, and the next boot mounts with ext4x (journal
# replay), checks every file whose fsync had returned (content, size and
# xattr), runs e2fsck -fn, then starts the next cycle.
#
# One boot per cycle: boot K verifies cycle K (and cycle K-1 again, which
# has now survived two cuts), then runs cycle K+1's workload until the cut.
# What fsync made durable is recorded, after fsync returns, in a raw area of
# /dev/pmem0 beyond the file system (512-byte records written through the
# page cache, then fsync of the device, each record ending in "END" so a
# torn one is ignored) and printed on the console as "# fsynced NAME MD5";
# the host cross-checks those lines against the next
# boot's "# intact NAME MD5" lines (tests/vm/powercut-crosscheck.sh).
#
# Kernel parameters: ext4x_powercut=CYCLES (default 10),
# ext4x_powercut_seed=SEED (default 1): the operations and the moment of each
# cut come from awk's PRNG seeded with SEED and the cycle.
# Run by: tests/check.sh, in a guest of its own that reboots (--reboot)
# timeout: 150
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh

dev=/dev/pmem0
mnt=/mnt/pc
fs_size=256M
state=1048576     # sector of the state header (512 MiB)
per_cycle=2048    # record sectors per cycle (1 MiB)
max_cycles=200
mkdir -p "$mnt"

cycles=10
boot_param_int cycles ext4x_powercut 1 "$max_cycles"
seed=1
boot_param_int seed ext4x_powercut_seed 0 1000000000

now() { cut -d' ' -f1 /proc/uptime; }
recbase() { echo $((state + per_cycle * $1)); }

# put_sector SECTOR TEXT: one 512-byte buffered write, then fsync of the
# device. Not O_DIRECT: when the page cache page of the range cannot be
# invalidated, the kernel quietly turns a direct write into a buffered one
# (generic_file_direct_write), and a page cached before earlier direct
# writes then lacks them: its writeback put the stale sectors back over a
# record that had reached the NVDIMM (seen once in 180 records: a fsynced
# file's record gone while the next record survived). With every write
# through the page cache there is one copy, and fsync makes it durable.
put_sector() {
	printf '%s END\n' "$2" |
		dd of=$dev bs=512 count=1 seek="$1" conv=sync,notrunc,fsync 2>/dev/null
}
# records CYCLE: the complete records of a cycle, in order.
records() {
	dd if=$dev bs=512 skip="$(recbase "$1")" count=$per_cycle iflag=direct 2>/dev/null |
		tr '\0' '\n' | sed -n 's/ END$//p'
}
mode_of() { if [ $(($1 % 2)) -eq 1 ]; then echo dax; else echo nodax; fi; }
mount_cycle() {
	if [ "$(mode_of "$1")" = dax ]; then
		mount -t ext4x -o dax $dev $mnt
	else
		mount -t ext4x $dev $mnt
	fi
}

modprobe ext4x || {
	ktap_test_fail "modprobe ext4x" "$(ktap_dmesg | tail -n 10)"
	exit 1
}

# ---- which boot is this --------------------------------------------------
hdr=$(dd if=$dev bs=512 skip=$state count=1 iflag=direct 2>/dev/null | tr '\0' '\n' |
	sed -n 's/^pcstate \([0-9]*\) .* END$/\1/p')
if [ -z "$hdr" ]; then
	ktap_print_msg "power cut: $cycles cycles, seed $seed; first boot: mkfs"
	ktap_check "mkfs.ext4 $fs_size on $dev" mke2fs -q -F -t ext4 -b 4096 $dev $fs_size
	k=0
else
	k=$hdr
fi

# ---- verify cycle k (just cut) and k-1 (cut twice) -----------------------
# verify CYCLE: check the files the records of CYCLE promise; prints
# "# intact NAME MD5" per checked file; returns the number of bad files.
verify() {
	_c=$1
	records "$_c" >"$KTAP_TMP/rec.$_c"
	# Final state per name: F md5 (must be there), E old new (either),
	# M md5 (may be gone, else md5), D (must be gone), P len md5 (prefix).
	awk '
	$1 == "F" { st[$2] = "F " $3; order[$2] = ++n }
	$1 == "E" { st[$2] = "E " $3 " " $4; order[$2] = ++n }
	$1 == "M" { st[$2] = "M " $3; order[$2] = ++n }
	$1 == "D" { st[$2] = "D"; order[$2] = ++n }
	$1 == "P" { st[$2] = "P " $3 " " $4; order[$2] = ++n }
	END { for (f in st) print order[f], f, st[f] }' "$KTAP_TMP/rec.$_c" |
		sort -n | cut -d' ' -f2- >"$KTAP_TMP/want.$_c"
	# One md5sum and one getfattr over all the files (a process per file
	# costs seconds under TCG), then one awk decides.
	awk '$2 != "D" && $2 != "P" { print $1 }' "$KTAP_TMP/want.$_c" >"$KTAP_TMP/names"
	(cd "$mnt" && xargs md5sum <"$KTAP_TMP/names" 2>/dev/null) >"$KTAP_TMP/md5"
	(cd "$mnt" && xargs getfattr -n user.md5 <"$KTAP_TMP/names" 2>/dev/null) |
		sed -n 's/^# file: //p; s/^user.md5="\(.*\)"$/\1/p' |
		paste - - >"$KTAP_TMP/xattr"
	: >"$KTAP_TMP/prefix"
	awk '$2 == "P" { print $1, $3 }' "$KTAP_TMP/want.$_c" |
		while read -r name len; do
			echo "$name $(head -c "$len" "$mnt/$name" 2>/dev/null | md5sum | cut -d' ' -f1) $(stat -c %s "$mnt/$name" 2>/dev/null || echo 0)"
		done >"$KTAP_TMP/prefix"
	(cd "$mnt" && awk '$2 == "D" { print $1 }' "$KTAP_TMP/want.$_c" |
		while read -r name; do [ ! -e "$name" ] || echo "$name"; done) >"$KTAP_TMP/present"
	awk -v md5="$KTAP_TMP/md5" -v xa="$KTAP_TMP/xattr" -v pf="$KTAP_TMP/prefix" \
		-v pr="$KTAP_TMP/present" '
	BEGIN {
		while ((getline l < md5) > 0) { split(l, f, "  "); sum[f[2]] = f[1] }
		while ((getline l < xa) > 0) { split(l, f, "\t"); x[f[1]] = f[2] }
		while ((getline l < pf) > 0) { split(l, f, " "); psum[f[1]] = f[2]; psz[f[1]] = f[3] }
		while ((getline l < pr) > 0) there[l] = 1
	}
	{
		n++
		name = $1; what = $2
		if (what == "D") {
			# Printed, so the host finds every name of a "# fsynced"
			# line again even when the cut lost the "# unlinked" line
			# that followed it on the console.
			if (name in there) { print "# BAD " name ": unlinked and dir fsynced, still there"; bad++ }
			else print "# gone " name
			next
		}
		if (what == "P") {
			if (psum[name] != $4 || psz[name] < $3) {
				print "# BAD " name ": first " $3 " bytes md5 " psum[name] " (want " $4 "), size " psz[name]; bad++
			} else
				print "# intact " name " " $4
			next
		}
		if (!(name in sum)) {
			if (what == "M") { print "# gone " name; next }
			print "# BAD " name ": missing (want md5 " $3 (what == "E" ? " or " $4 : "") ")"; bad++
			next
		}
		got = sum[name]
		if (got != $3 && !(what == "E" && got == $4)) {
			print "# BAD " name ": md5 " got " (want " $3 (what == "E" ? " or " $4 : "") ")"; bad++
		} else if (x[name] != got) {
			print "# BAD " name ": xattr user.md5 [" x[name] "], content md5 " got; bad++
		} else
			print "# intact " name " " got
	}
	END { print "# names " n + 0 " bad " bad + 0 }' "$KTAP_TMP/want.$_c" >"$KTAP_TMP/vout"
	cat "$KTAP_TMP/vout"
	_n=$(sed -n 's/^# names \([0-9]*\) .*/\1/p' "$KTAP_TMP/vout")
	_bad=$(sed -n 's/^# names [0-9]* bad \([0-9]*\)/\1/p' "$KTAP_TMP/vout")
	echo "# cycle $_c: $_n names recorded, $_bad bad"
	return "$_bad"
}

if [ "$k" -ge 1 ]; then
	m=$(mode_of "$k")
	dmesg -c >/dev/null
	t0=$(now)
	if ! mount_cycle "$k" 2>"$KTAP_TMP/err"; then
		ktap_test_fail "cycle $k ($m): mount -t ext4x after the cut" \
			"$(cat "$KTAP_TMP/err")" "$(ktap_dmesg | tail -n 20)"
		/sbin/e2fsck -fn $dev 2>&1 | tail -n 30 | sed 's/^/# /'
		exit 1
	fi
	replay=no
	ktap_dmesg | grep -q 'pmem0): recovery complete' && replay=yes
	ktap_test_pass "cycle $k ($m): mount -t ext4x after the cut, journal replay $replay"
	echo "# powercut-replay cycle=$k replayed=$replay"
	bad=0
	if [ "$k" -ge 2 ]; then
		verify $((k - 1)) >"$KTAP_TMP/v1" || bad=1
		cat "$KTAP_TMP/v1"
	fi
	verify "$k" >"$KTAP_TMP/v0" || bad=1
	cat "$KTAP_TMP/v0"
	if [ "$bad" -eq 0 ]; then
		ktap_test_pass "cycle $k: every file whose fsync returned is intact"
	else
		ktap_test_fail "cycle $k: every file whose fsync returned is intact" \
			"$(grep '^# BAD' "$KTAP_TMP/v0" "$KTAP_TMP/v1" | head -n 20)" \
			"$(ktap_dmesg | tail -n 20)"
	fi
	# Keep the file system from filling up: cycle k-1 has been checked twice.
	rm -rf "$mnt/c$((k - 1))" "$mnt/noise"
	umount $mnt
	if /sbin/e2fsck -fn $dev >"$KTAP_TMP/fsck" 2>&1; then
		ktap_test_pass "cycle $k: e2fsck -fn clean"
	else
		ktap_test_fail "cycle $k: e2fsck -fn clean" "$(tail -n 40 "$KTAP_TMP/fsck")"
		bad=1
	fi
	if ! ktap_kernel_clean "EXT4-fs error" >"$KTAP_TMP/k"; then
		ktap_test_fail "cycle $k: no kernel error" "$(head -n 20 "$KTAP_TMP/k")"
		bad=1
	fi
	echo "# cycle $k verified in $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s"
	# Stop at the first broken cycle: the next would only pile up noise.
	[ "$bad" -eq 0 ] || exit 1
fi
if [ "$k" -ge "$cycles" ]; then
	ktap_print_msg "power cut: all $cycles cycles verified"
	exit 0
fi

# ---- cycle k+1: the workload, cut at a random moment ----------------------
k=$((k + 1))
m=$(mode_of "$k")
put_sector $state "pcstate $k seed=$seed cycles=$cycles" || {
	ktap_test_fail "cycle $k: write the state header"
	exit 1
}
if ! mount_cycle "$k" 2>"$KTAP_TMP/err"; then
	ktap_test_fail "cycle $k ($m): mount for the workload" "$(cat "$KTAP_TMP/err")"
	exit 1
fi
d=c$k
mkdir -p "$mnt/$d" "$mnt/noise"
sync "$mnt" "$mnt/$d"

# The plan: the cut's delay (1 to 4 s after the workload starts), then one
# operation per line: create (c), rename-replace (r), unlink (u), append to
# a log with fsync (a), with a size for c, r and a.
awk -v seed="$seed" -v k="$k" 'BEGIN {
	srand(seed * 1000 + k)
	printf "%.2f\n", 1 + rand() * 3
	for (i = 0; i < 1500; i++) {
		r = rand()
		op = r < 0.55 ? "c" : r < 0.7 ? "r" : r < 0.8 ? "u" : "a"
		# sizes: 1 byte to 260 KiB, mostly small, many not a multiple
		# of 4k (busybox awk has no ^ or exp)
		x = rand()
		sz = int(x * x * x * 262144) + 1 + (rand() < 0.5 ? 0 : int(rand() * 4096))
		print op, sz
	}
}' >/tmp/pc.plan
delay=$(head -n1 /tmp/pc.plan)
echo "# cycle $k ($m): workload; cut after ${delay}s"

# Noise: unsynced writes, overwrites and deletes in noise/, so the cut finds
# dirty pages, running transactions and block allocations in flight.
(
	j=0
	while :; do
		j=$((j + 1))
		dd if=/dev/urandom of="$mnt/noise/n$((j % 7))" bs=64k count=$((j % 16 + 1)) 2>/dev/null
		mkdir -p "$mnt/noise/d$((j % 5))" && : >"$mnt/noise/d$((j % 5))/e$j"
		[ $((j % 3)) -ne 0 ] || rm -rf "$mnt/noise/d$(((j + 2) % 5))"
	done
) &
# The cut: immediate reset, no sync, no unmount (the kernel's emergency
# restart); QEMU resets the machine and boots again.
(
	sleep "$delay"
	echo "# cycle $k: cut at $(now)"
	echo b >/proc/sysrq-trigger
) &

nrec=0
base=$(recbase "$k")
# rec TEXT: persist one record after the operation it describes returned.
rec() {
	put_sector $((base + nrec)) "$1" || echo "# record write failed: $1"
	nrec=$((nrec + 1))
}
buf=/tmp/pc.buf
# failed WHAT: report an operation that failed (the cut kills the rest).
failed() {
	echo "# op $i ($op $sz) failed: $1: $(tail -n 3 /tmp/pc.err | tr '\n' ' ')"
}
# write_fsynced FILE SIZE [DIR...]: SIZE random bytes into FILE, their md5
# in its user.md5, then FILE (and each DIR) fsynced. Sets sum; on a failed
# step reports it and returns 1.
write_fsynced() {
	_file=$1 _size=$2
	shift 2
	head -c "$_size" /dev/urandom >"$buf"
	sum=$(md5sum <"$buf" | cut -d' ' -f1)
	dd if="$buf" of="$_file" bs=64k conv=fsync 2>/tmp/pc.err || {
		failed dd
		return 1
	}
	setfattr -n user.md5 -v "$sum" "$_file" 2>/tmp/pc.err || {
		failed setfattr
		return 1
	}
	sync "$_file" "$@" 2>/tmp/pc.err || {
		failed sync
		return 1
	}
}
last='' lastsum='' logsize=0
i=0
tail -n +2 /tmp/pc.plan | while read -r op sz; do
	[ "$nrec" -lt $((per_cycle - 4)) ] || break
	i=$((i + 1))
	[ -n "$last" ] || op=c
	case $op in
	c)
		name=$d/f$i
		write_fsynced "$mnt/$name" "$sz" "$mnt/$d" || continue
		rec "F $name $sum"
		echo "# fsynced $name $sum"
		last=$name lastsum=$sum
		;;
	r)
		write_fsynced "$mnt/$last.tmp" "$sz" || continue
		rec "E $last $lastsum $sum"
		mv "$mnt/$last.tmp" "$mnt/$last" 2>/tmp/pc.err || {
			failed "mv"
			continue
		}
		sync "$mnt/$d" 2>/tmp/pc.err || {
			failed "sync"
			continue
		}
		rec "F $last $sum"
		echo "# fsynced $last $sum"
		lastsum=$sum
		;;
	u)
		rec "M $last $lastsum"
		rm "$mnt/$last" 2>/tmp/pc.err || {
			failed "rm"
			continue
		}
		sync "$mnt/$d" 2>/tmp/pc.err || {
			failed "sync"
			continue
		}
		rec "D $last"
		echo "# unlinked $last"
		last=''
		;;
	a)
		head -c "$sz" /dev/urandom >>/tmp/pc.log
		tail -c "$sz" /tmp/pc.log >$buf
		dd if=$buf of="$mnt/$d/log" bs=64k oflag=append conv=notrunc,fsync 2>/tmp/pc.err || {
			failed dd
			continue
		}
		logsize=$((logsize + sz))
		sum=$(md5sum </tmp/pc.log | cut -d' ' -f1)
		rec "P $d/log $logsize $sum"
		echo "# fsynced-prefix $d/log $logsize $sum"
		;;
	esac
done
# The plan ran out before the cut: wait for it.
sleep 60
ktap_test_fail "cycle $k: the cut did not happen"
