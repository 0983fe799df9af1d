#!/bin/sh
# Harness self-check: a stack dump (sysrq l) inside expect-warn brackets is
# ignored; the same outside them is a kernel problem.
# shellcheck source=tests/vm/guest/lib.sh
. /tests/vm/guest/lib.sh

# The dump of the other CPU comes by NMI and may trickle out for a while
# under TCG; print nothing until the kernel log has been still for 1 s, so
# that no result line shares the console with it.
quiet_kernel_log() {
	_n=-1
	while [ "$_n" != "$(dmesg | wc -l)" ]; do
		_n=$(dmesg | wc -l)
		sleep 1
	done
}

echo "ktap: # expect-warn begin" >/dev/kmsg
echo l >/proc/sysrq-trigger
quiet_kernel_log
echo "ktap: # expect-warn end" >/dev/kmsg
ktap_test_pass "bracketed stack dump"
echo l >/proc/sysrq-trigger
quiet_kernel_log
ktap_test_pass "unbracketed stack dump"
