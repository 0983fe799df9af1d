#!/bin/bash
# Boot Debian's kernel in a QEMU TCG guest with an emulated NVDIMM, run guest
# test files, stream the serial console, and summarise the KTAP results.
#
# Usage: run-guest.sh [--kver KVER] [--modules DIR] [--tests a,b,c]
#                     [--timeout SEC] [--mem 2G] [--smp 2] [--log FILE]
#                     [--results DIR]
#   --modules DIR  built .ko files (searched recursively) to install in the
#                  guest's /lib/modules/KVER/extra
#   --tests LIST   guest test files tests/guest/NAME.sh (default: all)
#   --extra-tests DIR  add DIR/*.sh to the guest's test files
#   --timeout SEC  limit for the whole QEMU run (default 1200)
#   --log FILE     where to write the serial log (default: a temp file)
#   --results DIR  copy the serial log there as serial.log, with the files
#                  guest tests handed back (ktap_export_file)
#   --bench        boot without slub_debug: benchmarks measure our code, not
#                  the debug allocator (tests keep it, to catch corruption)
#   --reboot       boot again after a guest reset, until a boot ends with
#                  "ext4x-guest: done": each boot is a new QEMU process on
#                  the same NVDIMM file, which keeps what reached it; used by
#                  the power-cut test (tests/standalone/powercut.sh)
#   --append ARGS  extra kernel command line arguments (e.g. test parameters)
#   --small        the small initramfs (no fio, no stress-ng: ~20 MB in place
#                  of 115 MB unpacked), for a guest with little --mem
#   --cxl          a q35 machine with, beside the NVDIMM, one emulated CXL
#                  type 3 persistent memory device (256 MiB) behind a CXL
#                  host bridge and a fixed memory window: what the
#                  persistent memory setup of docs/INSTALL.md needs
#   --plugin SPEC  load a QEMU TCG plugin, SPEC as QEMU's -plugin takes it
#                  (FILE,ARG=VALUE,...): the coherence plugin of
#                  tests/coherence/, which counts cache-line transfers
#   --dpkg-root DIR  boot the kernel of another Debian root (a chroot, e.g.
#                  tests/trixie's Debian 13 one): fetch-kernel.sh checks its
#                  version against DIR's linux-headers-KVER and downloads it
#                  there (needs --kver)
# The last line printed is "N passed, N failed[, N skipped]"; the exit status
# is non-zero if anything failed. Environment: EXT4X_CACHE (cache root),
# EXT4X_QUIET=1 (do not stream the console), EXT4X_TOOLS_ROOT (the
# ext4x-tools package unpacked: installed in the guest as apt would, which
# boots with ext4x_tools=1 so that tests can insist on it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/common.sh
. "$here/common.sh"

kver='' moddir='' extra='' tests=all limit=1200 mem=2G smp=2 log='' results=''
slub=' slub_debug=FZPU' reboot=0 kargs='' small='' plugin=() cxl=0
while [ $# -gt 0 ]; do
	if [ "$1" = --bench ]; then
		slub=''
		shift
		continue
	fi
	if [ "$1" = --reboot ]; then
		reboot=1
		shift
		continue
	fi
	if [ "$1" = --cxl ]; then
		cxl=1
		shift
		continue
	fi
	if [ "$1" = --small ]; then
		small=--small
		shift
		continue
	fi
	[ $# -ge 2 ] || die "missing value for $1"
	case $1 in
	--kver) kver=$2 ;;
	--modules) moddir=$2 ;;
	--tests) tests=$2 ;;
	--extra-tests) extra=$2 ;;
	--timeout) limit=$2 ;;
	--mem) mem=$2 ;;
	--smp) smp=$2 ;;
	--log) log=$2 ;;
	--results) results=$2 ;;
	--append) kargs=$2 ;;
	--plugin) plugin=(-plugin "$2") ;;
	--dpkg-root)
		[ -d "$2" ] || die "--dpkg-root $2: no such directory"
		EXT4X_DPKG_ROOT=$(cd "$2" && pwd)
		export EXT4X_DPKG_ROOT ;;
	*) die "unknown argument: $1" ;;
	esac
	shift 2
done
[ -n "$kver" ] || [ -z "${EXT4X_DPKG_ROOT:-}" ] ||
	die "--dpkg-root (or EXT4X_DPKG_ROOT) needs --kver"
[ -n "$kver" ] || kver=$(default_kver)
[[ $tests =~ ^[A-Za-z0-9_,.-]+$ ]] || die "bad --tests list: $tests"
[[ $limit =~ ^[0-9]+$ ]] || die "bad --timeout: $limit"
command -v qemu-system-x86_64 >/dev/null ||
	die "qemu-system-x86_64 missing (run scripts/install-deps.sh)"

work=$(mktemp -d "${TMPDIR:-/tmp}/ext4x-guest.XXXXXX")
tailpid='' qpid=''
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null || true
	[ -z "$tailpid" ] || kill "$tailpid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
[ -n "$log" ] || log=$work/serial.log
mkdir -p "$(dirname "$log")"
: >"$log"
rm -f "$log.int3"

# One guest at a time: two TCG guests on a 2-core host starve each other
# into timeouts and make every number they print meaningless.
exec 9>"${EXT4X_QEMU_LOCK:-/tmp/ext4x-qemu.lock}"
if ! flock -n 9; then
	info "another guest is running; waiting for it"
	flock 9
fi

kroot=$("$here/fetch-kernel.sh" "$kver")
"$here/mkinitramfs.sh" --kver "$kver" ${moddir:+--modules "$moddir"} \
	${extra:+--extra-tests "$extra"} $small --out "$work/initramfs.cpio.gz"
truncate -s 1G "$work/nvdimm.img"
machine=(-machine "pc,nvdimm=on")
if [ "$cxl" = 1 ]; then
	# QEMU 7.2's spelling (memdev=; later releases say persistent-memdev=)
	truncate -s 256M "$work/cxl-pmem.img" "$work/cxl-lsa.img"
	machine=(-machine "q35,nvdimm=on,cxl=on"
		-object "memory-backend-file,id=cxlmem,share=on,mem-path=$work/cxl-pmem.img,size=256M"
		-object "memory-backend-file,id=cxllsa,share=on,mem-path=$work/cxl-lsa.img,size=256M"
		-device "pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1"
		-device "cxl-rp,port=0,bus=cxl.1,id=cxlrp0,chassis=0,slot=2"
		-device "cxl-type3,bus=cxlrp0,memdev=cxlmem,lsa=cxllsa,id=cxlpmem0"
		-M "cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G")
fi

append="console=ttyS0 rdinit=/init panic=-1 oops=panic$slub"
append="$append loglevel=4 ext4x_tests=$tests${kargs:+ $kargs}"
[ -z "${EXT4X_TOOLS_ROOT:-}" ] || append="$append ext4x_tools=1"
info "booting $kver (TCG, $smp vCPUs, $mem), tests: $tests, timeout ${limit}s"
start=$(date +%s)
if [ "${EXT4X_QUIET:-0}" != 1 ]; then
	tail -n +1 -f --pid=$$ "$log" &
	tailpid=$!
fi
# A guest reset (the power cut's sysrq b, or panic=-1) ends QEMU
# (-no-reboot); with --reboot the next boot is a new QEMU on the same
# NVDIMM file and serial log. Not a reset inside one QEMU: once in about
# a hundred such reboots the stock kernel died 1.7 s into the boot of an
# int3 trap left by its own code patching (QEMU 7.2, multi-threaded TCG);
# fresh QEMUs have met it far more rarely (docs/NOTES.md).
boots=0 int3_retries=0
while :; do
	boots=$((boots + 1))
	from=$(stat -c %s "$log")
	left=$((limit - ($(date +%s) - start)))
	qrc=124
	[ "$left" -gt 0 ] || break
	timeout -k 10 "$left" qemu-system-x86_64 \
		-accel tcg,thread=multi -cpu max "${machine[@]}" \
		-smp "$smp" -m "$mem,slots=2,maxmem=8G" \
		-object "memory-backend-file,id=mem1,share=on,mem-path=$work/nvdimm.img,size=1G" \
		-device nvdimm,id=nvdimm1,memdev=mem1 \
		-kernel "$kroot/boot/vmlinuz-$kver" -initrd "$work/initramfs.cpio.gz" \
		-append "$append" -no-reboot -nodefaults \
		-chardev "file,id=con,path=$log,append=on" -serial chardev:con \
		-display none "${plugin[@]}" &
	qpid=$!
	qrc=0
	wait "$qpid" || qrc=$?
	qpid=''
	# The emulator fault of docs/NOTES.md, in a fresh QEMU too: the stock
	# kernel dies of an int3 trap left by its own code patching, untainted,
	# so before any module of ours was loaded (emulator-int3.awk). Up to
	# three times a run, that boot's log is set aside and the guest boots
	# again. Without --reboot the boot starts over on a new NVDIMM; with
	# it the NVDIMM keeps what reached it, and to the power-cut test the
	# fault was one more cut.
	if [ "$int3_retries" -lt 3 ] &&
		tail -c +$((from + 1)) "$log" | awk -f "$here/kernel-problems.awk" -f "$here/emulator-int3.awk"; then
		int3_retries=$((int3_retries + 1))
		tail -c +$((from + 1)) "$log" >>"$log.int3"
		truncate -s "$from" "$log"
		if [ "$reboot" = 0 ]; then
			rm -f "$work/nvdimm.img"
			truncate -s 1G "$work/nvdimm.img"
		fi
		info "the stock kernel died of an int3 trap (QEMU TCG, docs/NOTES.md); its log: $log.int3; booting again"
		boots=$((boots - 1))
		continue
	fi
	if [ "$reboot" = 0 ] || [ "$qrc" != 0 ] || [ "$boots" -ge 1000 ]; then
		break
	fi
	# grep -c reads to the end: grep -q would stop early, and the SIGPIPE
	# of tail or tr would fail the pipeline (pipefail) and boot once more
	done_lines=$(tail -c +$((from + 1)) "$log" | tr -d '\r' | grep -c '^ext4x-guest: done' || :)
	[ "$done_lines" -eq 0 ] || break
done
if [ -n "$tailpid" ]; then
	sleep 0.5
	kill "$tailpid" 2>/dev/null || true
	wait "$tailpid" 2>/dev/null || true
	tailpid=''
fi
elapsed=$(($(date +%s) - start))
echo
info "QEMU exited with status $qrc after ${elapsed}s$([ "$reboot" = 0 ] || echo " ($boots boots)")"

timed_out=0
case $qrc in
0) ;;
124 | 137) timed_out=1 ;;
*) info "QEMU failed (status $qrc)" ;;
esac

status=0
if [ -n "$results" ]; then
	mkdir -p "$results"
	cp "$log" "$results/serial.log"
	[ ! -f "$log.int3" ] || cp "$log.int3" "$results/serial.int3.log"
	# A garbled transfer is reported but does not fail the run: the test
	# that needs the file notices its absence.
	"$here/extract-files.sh" "$log" "$results" ||
		info "warning: some files from the guest could not be extracted"
fi
echo "==== summary ($kver, ${elapsed}s) ===="
awk -v timed_out="$timed_out" -v known_races="$here/../debug/kcsan-core-races" \
	-f "$here/kernel-problems.awk" -f "$here/parse-log.awk" "$log" || status=1
exit "$status"
