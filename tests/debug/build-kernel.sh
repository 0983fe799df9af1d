#!/bin/bash
# Build a debug kernel for the test guest from the same Debian source the
# suite targets: linux-source-X.Y of exactly KVER's headers' Debian version,
# Debian's own config of KVER (the headers' .config) as the base, trimmed
# with localmodconfig to the modules the guest loads (tests/vm/guest-modules.list
# and what they depend on), then the debug options of tests/debug/VARIANT.config.
#
# The result is cached under build/debug/<debian version>-VARIANT-<hash of the
# inputs: the base config, the fragment, the module list, the source's
# version and the code of the build recipe below, as bash prints it without
# comments>/, and a second run with the same inputs only prints it:
#   obj/                 the build tree (make -C obj M=... builds modules for it)
#   root/boot/vmlinuz-R  root/lib/modules/R   what the guest boots (R: release)
#   build.log, build-seconds
# Prints "release=R", "root=DIR", "build=DIR" on stdout.
#
# Usage: tests/debug/build-kernel.sh VARIANT [KVER]
#   VARIANT  kasan or kcsan (tests/debug/*.config; they exclude each other)
#   KVER     the Debian kernel whose source and config are used (default:
#            scripts/kver.sh)
# Environment: EXT4X_DEBUG_JOBS (make -j, default: the number of CPUs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=tests/vm/common.sh
. "$top/tests/vm/common.sh"

variant=${1:?usage: build-kernel.sh kasan|kcsan [KVER]}
frag=$here/$variant.config
[ -f "$frag" ] || die "no debug configuration $frag (have: $(cd "$here" && ls -- *.config | sed 's/\.config$//' | paste -sd' '))"
kver=${2:-$("$top/scripts/kver.sh")}
[ -n "$kver" ] || die "cannot tell the target kernel: pass KVER"
hdr=/usr/src/linux-headers-$kver
[ -f "$hdr/.config" ] || die "no $hdr/.config: apt-get install linux-headers-$kver"
xy=$(echo "$kver" | cut -d. -f1-2)
tarball=/usr/src/linux-source-$xy.tar.xz
[ -r "$tarball" ] || die "$tarball missing: apt-get install linux-source-$xy"
hdeb=$(installed_version "linux-headers-$kver")
sdeb=$(installed_version "linux-source-$xy")
[ -n "$hdeb" ] && [ "$hdeb" = "$sdeb" ] ||
	die "linux-source-$xy is ${sdeb:-not installed} but linux-headers-$kver is ${hdeb:-not installed}: install linux-source-$xy=$hdeb"

# The modules the guest loads, with their dependencies, as localmodconfig
# reads them (an lsmod listing): from the Debian image of KVER.
kroot=$("$top/tests/vm/fetch-kernel.sh" "$kver")
guest_modules() {
	local name
	while read -r name; do
		case $name in '' | '#'*) continue ;; esac
		name=${name#\?}
		/sbin/modprobe -C /dev/null -d "$kroot" -S "$kver" --show-depends "$name" 2>/dev/null |
			sed -n 's|^insmod .*/\([^/]*\)\.ko\(\.[a-z]*\)\{0,1\} *.*|\1|p'
	done <"$top/tests/vm/guest-modules.list" | tr - _ | sort -u
}

# build_kernel DIR: the recipe: extract, configure, build and install into
# DIR (see the layout above).
build_kernel() {
	local dir=$1 t0=$SECONDS args line v missing o rel
	mkdir -p "$dir/src" "$dir/obj" "$dir/root/boot"
	info "extracting $tarball"
	tar -xJf "$tarball" -C "$dir/src" --strip-components=1
	{
		echo "Module Size Used by"
		guest_modules | awk '{ print $1, 0, 0 }'
	} >"$dir/lsmod"
	cp "$hdr/.config" "$dir/obj/.config"
	kmake() { make -C "$dir/src" O="$dir/obj" -j"${EXT4X_DEBUG_JOBS:-$(nproc)}" "$@"; }
	{
		kmake LSMOD="$dir/lsmod" localmodconfig </dev/null
		# the fragment: CONFIG_X=y|m|n|"string"|number, "# CONFIG_X is not set"
		args=()
		while IFS= read -r line; do
			case $line in
			'# CONFIG_'*' is not set') line=${line#\# CONFIG_}; args+=(--disable "${line%% *}") ;;
			'#'* | '') ;;
			CONFIG_*=\"*\") line=${line#CONFIG_}; v=${line#*=}; v=${v#\"}; args+=(--set-str "${line%%=*}" "${v%\"}") ;;
			CONFIG_*=y) line=${line#CONFIG_}; args+=(--enable "${line%%=*}") ;;
			CONFIG_*=m) line=${line#CONFIG_}; args+=(--module "${line%%=*}") ;;
			CONFIG_*=n) line=${line#CONFIG_}; args+=(--disable "${line%%=*}") ;;
			CONFIG_*=*) line=${line#CONFIG_}; args+=(--set-val "${line%%=*}" "${line#*=}") ;;
			*) die "$frag: cannot read line '$line'" ;;
			esac
		done <"$frag"
		"$dir/src/scripts/config" --file "$dir/obj/.config" "${args[@]}"
		kmake olddefconfig
	} >"$dir/config.log" 2>&1 || die "configuring failed (log: $dir/config.log)"
	# every option the fragment asks for must have survived olddefconfig
	missing=$(grep -E '^(CONFIG_|# CONFIG_)' "$frag" | while IFS= read -r line; do
		case $line in
		'# CONFIG_'*) o=${line#\# }; o=${o%% *}
			grep -q "^$o=" "$dir/obj/.config" && echo "$o (wanted off)" ;;
		*=n) o=${line%%=*}; grep -q "^$o=" "$dir/obj/.config" && echo "$o (wanted off)" ;;
		*) grep -qxF "$line" "$dir/obj/.config" || echo "$line" ;;
		esac
	done || true)
	[ -z "$missing" ] || die "the kernel's Kconfig refused: $(echo "$missing" | paste -sd' ') (log: $dir/config.log)"
	info "building (log: $dir/build.log)"
	kmake bzImage modules >"$dir/build.log" 2>&1 || {
		tail -n 30 "$dir/build.log" >&2
		die "kernel build failed (log: $dir/build.log)"
	}
	rel=$(cat "$dir/obj/include/config/kernel.release")
	kmake INSTALL_MOD_PATH="$dir/root" INSTALL_MOD_STRIP=1 modules_install \
		>>"$dir/build.log" 2>&1 || die "modules_install failed (log: $dir/build.log)"
	cp "$dir/obj/arch/x86/boot/bzImage" "$dir/root/boot/vmlinuz-$rel"
	echo $((SECONDS - t0)) >"$dir/build-seconds"
	touch "$dir/done.stamp"
	info "built $rel in $(cat "$dir/build-seconds") s"
}

hash=$( {
	cat "$hdr/.config" "$frag" "$top/tests/vm/guest-modules.list"
	declare -f build_kernel guest_modules
	echo "$sdeb"
} | sha256sum | cut -c1-12)
# the real directory: a checkout whose build/debug is a link to another's
# shares its kernels, and the build tree's paths must outlive the checkout
mkdir -p "$top/build/debug"
debug=$(cd "$top/build/debug" && pwd -P)
dir=$debug/$sdeb-$variant-$hash
if [ -f "$dir/done.stamp" ]; then
	info "cached: $dir (built in $(cat "$dir/build-seconds") s)"
else
	# this variant built from the same source with other inputs is stale;
	# the other kernel series' builds stay
	find "$debug" -maxdepth 1 -name "$sdeb-$variant-*" ! -path "$dir" \
		-exec rm -rf {} + 2>/dev/null || true
	rm -rf "$dir"
	build_kernel "$dir"
fi
echo "release=$(cat "$dir/obj/include/config/kernel.release")"
echo "root=$dir/root"
echo "build=$dir/obj"
