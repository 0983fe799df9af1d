#!/bin/bash
# tests/vm/run-guest.sh's answer to the emulator's int3 fault, with a
# stand-in QEMU that prints a planted log per boot (and stand-ins for the
# kernel fetch and the initramfs): a boot that died of an int3 on an
# untainted kernel is set aside as serial.int3.log and booted again, on a
# new NVDIMM, or with --reboot on the same one; three times a run at most;
# an int3 on a kernel our modules tainted fails the run at once. KTAP on
# stdout.
# kernel-independent: no kernel is built or booted
# Usage: tests/host/test-run-guest-int3.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run-guest.sh beside stand-ins for its helpers that need a kernel
mkdir -p "$tmp/vm" "$tmp/debug" "$tmp/bin" "$tmp/kernel/boot"
cp "$top"/tests/vm/{run-guest.sh,common.sh,kernel-problems.awk,emulator-int3.awk} \
	"$top"/tests/vm/{parse-log.awk,extract-files.sh} "$tmp/vm/"
: >"$tmp/debug/kcsan-core-races"
printf '#!/bin/sh\necho "%s"\n' "$tmp/kernel" >"$tmp/vm/fetch-kernel.sh"
cat >"$tmp/vm/mkinitramfs.sh" <<'EOF'
#!/bin/sh
while [ $# -gt 1 ] && [ "$1" != --out ]; do shift; done
: >"$2"
EOF
# QEMU boot N appends $tmp/boots/N to the console file, notes whether the
# NVDIMM file is new (nothing written to it yet) or used, then writes to it,
# as a guest would
cat >"$tmp/bin/qemu-system-x86_64" <<'EOF'
#!/bin/bash
for a; do
	case $a in
	file,id=con,path=*) con=${a#*path=} con=${con%,append=on} ;;
	*mem-path=*nvdimm.img*) nv=${a#*mem-path=} nv=${nv%%,*} ;;
	esac
done
n=$(($(cat "$FAKE_DIR/count" 2>/dev/null || echo 0) + 1))
echo "$n" >"$FAKE_DIR/count"
cat "$FAKE_DIR/boots/$n" >>"$con"
if [ "$(stat -c %b "$nv")" = 0 ]; then echo new; else echo used; fi >>"$FAKE_DIR/nvdimm"
dd if=/dev/urandom of="$nv" bs=4k count=1 conv=notrunc status=none
EOF
chmod +x "$tmp"/vm/*.sh "$tmp/bin/qemu-system-x86_64"

banner='ext4x-guest: booted 6.1.0-57-amd64, 2 cpus, 1950780 kB'
# plant N KIND: boot N prints a passing test file (pass), its start only
# (cut), or dies of an int3 on an untainted (int3) or tainted kernel
plant() {
	local taint="Not tainted"
	{
		printf '%s\r\n' "$banner"
		case $2 in
		pass)
			printf '%s\r\n' "KTAP version 1" "1..1" "# t: running (timeout 300s)" \
				"    ok 1 - a" "ok 1 - t" "ext4x-guest: done" ;;
		cut) printf '%s\r\n' "KTAP version 1" "1..1" "# t: running (timeout 300s)" ;;
		int3-tainted | int3)
			[ "$2" = int3 ] || taint="Tainted: G           OE     "
			printf '[    8.585477] %s\r\n' "int3: 0000 [#1] PREEMPT SMP NOPTI" \
				"CPU: 0 PID: 160 Comm: init $taint 6.1.0-57-amd64 #1" \
				"Call Trace:" "Kernel panic - not syncing: Fatal exception" ;;
		esac
	} >"$tmp/boots/$1"
}
# guest KIND... -- ARGS...: plant one boot per KIND, run run-guest.sh ARGS;
# sets rc, qemus (QEMU runs), nvdimm (new or used, at each QEMU's start)
guest() {
	local n=0
	rm -rf "$tmp/boots" "$tmp/res" "$tmp/count" "$tmp/nvdimm"
	mkdir -p "$tmp/boots"
	while [ "$1" != -- ]; do
		n=$((n + 1))
		plant "$n" "$1"
		shift
	done
	shift
	PATH=$tmp/bin:$PATH FAKE_DIR=$tmp EXT4X_QUIET=1 EXT4X_QEMU_LOCK=$tmp/lock \
		"$tmp/vm/run-guest.sh" --kver 6.1.0-57-amd64 --tests t --timeout 60 \
		--results "$tmp/res" "$@" >"$tmp/out" 2>&1 && rc=0 || rc=$?
	qemus=$(cat "$tmp/count")
	nvdimm=$(paste -sd' ' "$tmp/nvdimm")
}
# verdict STATUS DESC: DESC holds when the checks before exited 0 (STATUS)
verdict() {
	if [ "$1" = 0 ]; then
		ktap_test_pass "$2"
	else
		ktap_test_fail "$2" "rc=$rc qemus=$qemus nvdimm=$nvdimm; output:" "$(cat "$tmp/out")"
	fi
}

ktap_print_header
ktap_set_plan 5
guest int3 pass --
[ "$rc" = 0 ] && [ "$qemus" = 2 ] && grep -q "^1 passed, 0 failed" "$tmp/out"
verdict $? "an untainted int3, then a pass: the run passes"
grep -q "int3: 0000" "$tmp/res/serial.int3.log" &&
	! grep -q "int3: 0000" "$tmp/res/serial.log" && [ "$nvdimm" = "new new" ]
verdict $? "the int3 boot is set aside, and the boot after it has a new NVDIMM"
guest int3-tainted pass --
[ "$rc" != 0 ] && [ "$qemus" = 1 ] && [ ! -e "$tmp/res/serial.int3.log" ]
verdict $? "an int3 on a kernel our modules tainted fails the run at once"
guest int3 int3 int3 int3 pass --
[ "$rc" != 0 ] && [ "$qemus" = 4 ] &&
	[ "$(grep -c "int3: 0000" "$tmp/res/serial.int3.log")" = 3 ]
verdict $? "a fourth int3 in one run fails it"
guest cut int3 pass -- --reboot
[ "$rc" = 0 ] && [ "$qemus" = 3 ] && [ "$nvdimm" = "new used used" ]
verdict $? "with --reboot, the boot after the int3 keeps the NVDIMM"
ktap_finished
