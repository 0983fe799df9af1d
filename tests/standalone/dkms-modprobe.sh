#!/bin/sh
# dkms-modprobe: the modules that `dkms install` put in /lib/modules/KVER/updates/dkms
# (copied into this guest's extra/ by tests/host/test-dkms.sh) resolve through depmod:
# `modprobe ext4x` loads percpu_stats, mbcache2 and ext4x in that order, ext4x mounts
# /dev/pmem0 with -o dax, the statistics files are there, under lockdown mbcache2's
# read-only stats file still reads and its reset file is refused, and `modprobe -r`
# unloads all three. Last, what a forgotten MOK enrolment looks like: the DKMS key is
# not in this kernel's keyring, so under lockdown (as with Secure Boot) and with
# sig_enforce the load is refused; the messages are printed as diagnostics for the
# README.
# Run with: tests/vm/run-guest.sh --modules DIR_OF_DKMS_KO --tests dkms-modprobe
# Run by: tests/host/test-dkms.sh, with the modules DKMS installed
# timeout: 240
. /tests/vm/guest/lib.sh

kver=$(uname -r)
mods="percpu_stats mbcache2 ext4x"

for m in $mods; do
	ktap_check "$m is DKMS-built and signed (signer: DKMS module signing key)" sh -c \
		"[ \"\$(/sbin/modinfo -F signer $m)\" = 'DKMS module signing key' ]"
done
ktap_check "vermagic is $kver" sh -c \
	"/sbin/modinfo -F vermagic ext4x | grep -q '^$kver SMP'"
ktap_check "depmod: ext4x depends on mbcache2 and percpu_stats" sh -c \
	"grep -E '/ext4x\.ko:' /lib/modules/$kver/modules.dep | grep -q mbcache2.ko &&
	 grep -E '/ext4x\.ko:' /lib/modules/$kver/modules.dep | grep -q percpu_stats.ko"
/sbin/modprobe --show-depends ext4x >/tmp/deps 2>&1
ktap_print_msg "modprobe --show-depends ext4x:" "$(cat /tmp/deps)"
order=$(sed -n 's,^insmod .*/\([a-z0-9_]*\)\.ko.*,\1,p' /tmp/deps | grep -xE 'percpu_stats|mbcache2|ext4x' | tr '\n' ' ')
ktap_check "load order percpu_stats, mbcache2, ext4x" [ "$order" = "percpu_stats mbcache2 ext4x " ]

dmesg -c >/dev/null
ktap_check "modprobe ext4x" /sbin/modprobe ext4x
ktap_check "all three loaded, dependencies in use" sh -c \
	'grep -q "^ext4x " /proc/modules &&
	 grep -E "^mbcache2 " /proc/modules | grep -q ext4x &&
	 grep -E "^percpu_stats " /proc/modules | grep -q mbcache2'
ktap_print_msg "$(grep -E '^(percpu_stats|mbcache2|ext4x|jbd2|mbcache) ' /proc/modules)"

ktap_check "mkfs /dev/pmem0" /sbin/mke2fs -q -F -t ext4 /dev/pmem0
ktap_check "mount -t ext4x -o dax /dev/pmem0 /mnt" mount -t ext4x -o dax /dev/pmem0 /mnt
ktap_check "dax=always in /proc/mounts" sh -c \
	'grep "^/dev/pmem0 /mnt ext4x " /proc/mounts | grep -q "dax=always"'
ktap_print_msg "$(grep pmem0 /proc/mounts)"
ktap_check "write and read back" sh -c \
	'seq 1 10000 >/mnt/f && sync && [ "$(md5sum </mnt/f)" = "$(seq 1 10000 | md5sum)" ]'
ktap_check "statistics: /proc/fs/ext4x/pmem0/es_shrinker_info" test -r /proc/fs/ext4x/pmem0/es_shrinker_info
ktap_check "statistics: /sys/kernel/debug/mbcache2" test -d /sys/kernel/debug/mbcache2
ktap_print_msg "statistics files:" "$(ls -d /proc/fs/ext4x/pmem0/* /sys/kernel/debug/mbcache2/* \
	/sys/kernel/debug/mbcache2/*/* /sys/kernel/debug/percpu_stats* /sys/kernel/debug/percpu_stats/* 2>&1)"

# Under lockdown (Secure Boot) debugfs opens only files with no mode bit beyond 0444,
# and none for writing: mbcache2's stats file must still read, its reset file is
# refused. Lockdown stays on from here: the MOK checks below need it.
# (192 bytes do not fit in a 256-byte inode: the value goes to an xattr block)
ktap_check "an xattr block in mbcache2's cache" sh -c \
	'setfattr -n user.team -v "$(seq 1 100 | tr -d "\n")" /mnt/f &&
	 grep -q "^inserts [1-9]" /sys/kernel/debug/mbcache2/pmem0-xattr/stats'
mkdir -p /sys/kernel/security
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
if [ -w /sys/kernel/security/lockdown ] && echo integrity >/sys/kernel/security/lockdown 2>/dev/null; then
	locked=1
	ktap_print_msg "lockdown: $(cat /sys/kernel/security/lockdown)"
	ktap_check "lockdown: mbcache2 stats (0444) reads" sh -c \
		'grep -q "^inserts [1-9]" /sys/kernel/debug/mbcache2/pmem0-xattr/stats'
	out=$( (echo reset >/sys/kernel/debug/mbcache2/pmem0-xattr/reset) 2>&1) && rc=0 || rc=$?
	ktap_print_msg "lockdown: echo reset >.../pmem0-xattr/reset -> exit $rc: $out" "$(ktap_dmesg | tail -n 2)"
	ktap_check "lockdown: mbcache2 reset (0200) refused with EPERM" sh -c \
		"[ $rc -ne 0 ] && printf '%s' \"\$1\" | grep -q 'Operation not permitted'" sh "$out"
else
	locked=0
	ktap_test_skip "lockdown: mbcache2 stats (0444) reads" "no writable /sys/kernel/security/lockdown"
	ktap_test_skip "lockdown: mbcache2 reset (0200) refused with EPERM" "no writable /sys/kernel/security/lockdown"
fi
ktap_check "umount" umount /mnt
# kmod removes the dependencies in load order and skips one still in use, so a plain
# `modprobe -r ext4x` leaves percpu_stats behind: name all three (docs/INSTALL.md).
ktap_check "modprobe -r ext4x mbcache2 percpu_stats unloads all three" sh -c \
	'/sbin/modprobe -r ext4x mbcache2 percpu_stats && ! grep -qE "^(ext4x|mbcache2|percpu_stats) " /proc/modules'
ktap_check "no kernel warning or BUG" ktap_kernel_clean "Unknown symbol|disagrees about version"

# A MOK that was never enrolled, as Secure Boot sees it: lockdown (on since the
# statistics checks), then sig_enforce.
dmesg -c >/dev/null
if [ "$locked" = 1 ]; then
	out=$(/sbin/modprobe ext4x 2>&1) && rc=0 || rc=$?
	ktap_print_msg "lockdown=integrity: modprobe ext4x -> exit $rc:" "$out" "kernel log:" "$(ktap_dmesg)"
	ktap_check "lockdown refuses the DKMS-signed module (key not enrolled)" sh -c \
		"[ $rc -ne 0 ] && ! grep -q '^ext4x ' /proc/modules"
else
	ktap_test_skip "lockdown refuses the DKMS-signed module (key not enrolled)" "no writable /sys/kernel/security/lockdown"
fi
dmesg -c >/dev/null
if echo 1 >/sys/module/module/parameters/sig_enforce 2>/dev/null; then
	out=$(/sbin/modprobe ext4x 2>&1) && rc=0 || rc=$?
	ktap_print_msg "sig_enforce=1: modprobe ext4x -> exit $rc:" "$out" "kernel log:" "$(ktap_dmesg)"
	ktap_check "sig_enforce: 'Key was rejected by service'" sh -c \
		"[ $rc -ne 0 ] && printf '%s' \"\$1\" | grep -q 'Key was rejected by service'" sh "$out"
else
	ktap_test_skip "sig_enforce: 'Key was rejected by service'" "cannot set sig_enforce"
fi
