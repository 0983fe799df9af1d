#!/bin/sh
# pmem-setup: docs/INSTALL.md's persistent memory setup, run as the document
# writes it, on the guest's emulated NVDIMM and on an emulated CXL type 3
# persistent memory device (run-guest.sh --cxl). Each command the document
# gives is run by doc_run with the same spelling (tests/static/run.sh
# checks that every doc_run line appears in INSTALL.md), and what the
# document says of it is checked: the names it lists, fsdax's default
# alignment, DAX on after the mount, mke2fs's 1 KiB blocks under 512 MiB
# and dax=always refusing them, devdax giving a character device no file
# system mounts.
# Run by: tests/check.sh (make check), a guest of its own booted with
# run-guest.sh --cxl --small
# timeout: 240
. /tests/vm/guest/lib.sh

dir=/tools/fs-helpers
[ "$(boot_param ext4x_tools)" != 1 ] || dir=/usr/sbin
PATH=$dir:$PATH
ktap_print_msg "mkfs.ext4x from $dir"

for m in cxl_acpi cxl_pci cxl_mem cxl_pmem dax_pmem device_dax ext4x; do
	modprobe "$m" 2>/dev/null || ktap_print_msg "modprobe $m failed"
done
# The memdev appears once cxl_mem has probed the PCI device. Where it does
# not, the CXL results are skipped with the reason: no device (a guest
# without run-guest.sh --cxl), or cxl_pci refusing it (6.12 wants event
# interrupts that QEMU 7.2's type 3 device does not have).
# wait_for TEST PATH: wait up to 10 s until test TEST PATH holds (-e, -b, -c)
wait_for() {
	_i=0
	while ! test "$1" "$2" && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	test "$1" "$2"
}
cxl_why=''
if ! wait_for -e /sys/bus/cxl/devices/mem0; then
	cxl_why=$(ktap_dmesg | grep -m 1 '^cxl_pci .*[Ff]ail')
	cxl_why="no CXL memdev mem0${cxl_why:+: $cxl_why}"
	grep -qx 0x050210 /sys/bus/pci/devices/*/class 2>/dev/null ||
		cxl_why="no CXL memory device: boot with run-guest.sh --cxl"
fi

ktap_set_plan 17

# doc_run CMD: run CMD, a command line as docs/INSTALL.md spells it; its
# output is left in $KTAP_TMP/out, and the result is named after it.
doc_run() {
	if sh -c "$1" >"$KTAP_TMP/out" 2>&1; then
		ktap_test_pass "$1"
		return 0
	fi
	ktap_test_fail "$1" "exit status $?" "$(tail -n 10 "$KTAP_TMP/out")"
	return 1
}

# json_has KEY VALUE: the last doc_run printed "KEY":VALUE (ndctl and cxl
# print JSON, one key a line with its value after the colon)
json_has() {
	grep -q "\"$1\":$2" "$KTAP_TMP/out"
}

# dax_on DEV MNT: DEV is mounted at MNT by ext4x with dax=always, and a file
# written there has STATX_ATTR_DAX
dax_on() {
	grep -q "^$1 $2 ext4x .*dax=always" /proc/mounts &&
		echo x >"$2/probe" && statx-dax "$2/probe"
}

# --- what is there ---
doc_run "ndctl list -RN"
ktap_check "ndctl list -RN names region0 and namespace0.0" sh -c \
	"grep -q '\"dev\":\"region0\"' $KTAP_TMP/out &&
	 grep -q '\"dev\":\"namespace0.0\"' $KTAP_TMP/out"

# --- NVDIMM ---
doc_run "ndctl create-namespace -f -e namespace0.0 -m fsdax"
# shellcheck disable=SC2317 # called through ktap_check
fsdax_default() {
	json_has mode '"fsdax"' && json_has align 2097152 &&
		json_has blockdev '"pmem0"' && wait_for -b /dev/pmem0
}
ktap_check "namespace0.0 is fsdax with the default 2 MiB alignment, as /dev/pmem0" \
	fsdax_default
mkdir -p /mnt/pmem /mnt/cxl
doc_run "mkfs.ext4x -b 4096 /dev/pmem0"
doc_run "mount -t ext4x -o dax=always /dev/pmem0 /mnt/pmem"
ktap_check "/dev/pmem0: dax=always in /proc/mounts, STATX_ATTR_DAX on a file" \
	dax_on /dev/pmem0 /mnt/pmem
umount /mnt/pmem 2>/dev/null

# --- block size ---
# shellcheck disable=SC2317 # called through ktap_check
small_fs_1k() {
	dd if=/dev/zero of=/tmp/small.img bs=1M count=0 seek=256 2>/dev/null &&
		mkfs.ext4x -q -F /tmp/small.img &&
		dumpe2fs -h /tmp/small.img 2>/dev/null | grep -q '^Block size: *1024$'
}
ktap_check "mkfs.ext4x without -b makes 1 KiB blocks under 512 MiB (a 256 MiB file)" \
	small_fs_1k
ktap_check "mount -o dax=always refuses a 1 KiB block size on /dev/pmem0" sh -c \
	"mkfs.ext4x -q -F -b 1024 /dev/pmem0 &&
	 ! mount -t ext4x -o dax=always /dev/pmem0 /mnt/pmem"

# --- CXL persistent memory: a region, then its namespace ---
if [ -n "$cxl_why" ]; then
	for i in 1 2 3 4 5 6 7; do
		ktap_test_skip "CXL step $i of 7" "$cxl_why"
	done
else
	doc_run "cxl list -MD"
	ktap_check "cxl list -MD names the memdev mem0 and the root decoder decoder0.0" \
		sh -c "grep -q '\"memdev\":\"mem0\"' $KTAP_TMP/out &&
		       grep -q '\"decoder\":\"decoder0.0\"' $KTAP_TMP/out"

	doc_run "cxl create-region -t pmem -m -d decoder0.0 -w 1 mem0"
	region=$(sed -n 's/.*"region":"\(region[0-9]*\)".*/\1/p' "$KTAP_TMP/out" | head -n 1)
	# INSTALL.md's example names region1: the NVDIMM's region is region0
	ktap_check "the new region is region1, a pmem region ndctl lists" sh -c \
		"[ '$region' = region1 ] && ndctl list -R -r region1 | grep -q '\"type\":\"pmem\"'"
	doc_run "ndctl create-namespace -m fsdax -r region1"
	cxldev=/dev/$(sed -n 's/.*"blockdev":"\(pmem[0-9]*\)".*/\1/p' "$KTAP_TMP/out" | head -n 1)
	# shellcheck disable=SC2317 # called through ktap_check
	cxl_fsdax() {
		json_has mode '"fsdax"' && json_has align 2097152 && wait_for -b "$cxldev"
	}
	ktap_check "the CXL region's namespace is fsdax, 2 MiB aligned, a block device ($cxldev)" \
		cxl_fsdax
	# The emulated CXL device keeps nothing written to it (QEMU 7.2 under TCG
	# reads zeros back: docs/NOTES.md), so the file system steps are checked
	# on the NVDIMM only.

	# devdax: a character device, no file system
	ns=$(ndctl list -r "$region" -N | sed -n 's/.*"dev":"\(namespace[0-9.]*\)".*/\1/p' | head -n 1)
	# shellcheck disable=SC2317 # called through ktap_check
	devdax_unmountable() {
		ndctl create-namespace -f -e "$ns" -m devdax >"$KTAP_TMP/out" 2>&1 || return 1
		_chardev=/dev/$(sed -n 's/.*"chardev":"\(dax[0-9.]*\)".*/\1/p' "$KTAP_TMP/out" | head -n 1)
		wait_for -c "$_chardev" || { echo "$_chardev: no character device"; return 1; }
		! mount -t ext4x -o dax=always "$_chardev" /mnt/cxl
	}
	ktap_check "devdax on the CXL namespace ($ns): a character device no file system mounts" \
		devdax_unmountable
fi
ktap_check "the kernel logged no warning, BUG or oops" ktap_kernel_clean
