#!/bin/sh
# Self-check of the test bench: the emulated NVDIMM, ext4 with DAX, statx,
# fio, and handing a file back to the host.
# timeout: 120
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh

ktap_set_plan 7
mnt=/mnt

if [ -b /dev/pmem0 ]; then
	ktap_test_pass "pmem0 is a block device"
else
	ktap_test_fail "pmem0 is a block device" "$(ls -l /dev/pmem* 2>&1)"
	for c in mkfs mount_dax statx_dax fio export umount; do
		ktap_test_skip "$c" "no /dev/pmem0"
	done
	exit 0
fi

ktap_check "mkfs.ext4" mkfs.ext4 -q -F /dev/pmem0

if mount -t ext4 -o dax /dev/pmem0 "$mnt" 2>"$KTAP_TMP/err"; then
	opts=$(awk -v m="$mnt" '$2 == m { print $4 }' /proc/mounts)
	case ",$opts," in
	*,dax=always,* | *,dax,*) ktap_test_pass "mount -o dax shows dax in /proc/mounts" ;;
	*) ktap_test_fail "mount -o dax shows dax in /proc/mounts" "options: $opts" ;;
	esac
else
	ktap_test_fail "mount -o dax shows dax in /proc/mounts" "$(cat "$KTAP_TMP/err")" \
		"$(ktap_dmesg | tail -n 10)"
	for c in statx_dax fio export umount; do
		ktap_test_skip "$c" "mount failed"
	done
	exit 0
fi

echo hello >"$mnt/file"
ktap_check "STATX_ATTR_DAX set on a file" statx-dax "$mnt/file"

if fio --name=selftest --filename="$mnt/fio.dat" --size=32M --bs=4k \
	--rw=randread --ioengine=psync --runtime=2 --time_based \
	--gtod_reduce=1 --output-format=terse >"$KTAP_TMP/fio" 2>&1; then
	ktap_print_msg "fio randread 4k psync: $(cut -d';' -f8 "$KTAP_TMP/fio") IOPS"
	ktap_test_pass "fio psync 4k randread on the DAX mount"
else
	ktap_test_fail "fio psync 4k randread on the DAX mount" "$(tail -n 20 "$KTAP_TMP/fio")"
fi

# Not through ktap_check: the export must reach the console.
if ktap_export_file "$KTAP_TMP/fio" selftest-fio.terse; then
	ktap_test_pass "hand a file back to the host"
else
	ktap_test_fail "hand a file back to the host"
fi

ktap_check "umount" umount "$mnt"
