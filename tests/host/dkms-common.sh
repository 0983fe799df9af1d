# shellcheck shell=bash
# Shared by tests/host/test-dkms.sh, test-deb.sh, kernel-update.sh and
# tests/trixie/test-deb.sh: KTAP output
# (tests/lib/ktap.sh), the one lock they take (they register the same DKMS module),
# and a before/after snapshot of /lib/modules/KVER and /var/lib/dkms; also the
# lintian check of both packages (test-tools-deb.sh). Source it; it defines
# functions only.

# shellcheck source=tests/lib/ktap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/ktap.sh"

# One DKMS test at a time on this machine (they all add ext4x to the one DKMS tree).
dkms_test_lock() {
	exec 8>"${EXT4X_DKMS_LOCK:-/tmp/ext4x-dkms-test.lock}"
	if ! flock -n 8; then
		echo "# another DKMS test is running; waiting for it"
		flock 8
	fi
}

# dkms_test_start KVER VERSION: skip the whole file unless this is root with
# dkms and KVER's headers, take the lock, and skip it too if an ext4x is
# already registered or installed (a test must not touch a real one).
dkms_test_start() {
	[ "$(id -u)" -eq 0 ] || ktap_skip_all "needs root (dkms, apt-get)"
	command -v dkms >/dev/null || ktap_skip_all "dkms not installed (scripts/install-deps.sh)"
	[ -f "/lib/modules/$1/build/Makefile" ] || ktap_skip_all "no headers for $1"
	dkms_test_lock
	ext4x_present && ktap_skip_all "ext4x is already registered with dkms or installed as ext4x-dkms: not touching it"
	[ ! -e "/usr/src/ext4x-$2" ] || ktap_skip_all "/usr/src/ext4x-$2 exists already: not touching it"
}

# Files under /lib/modules/KVER (not build/, source/) and /var/lib/dkms.
state_snapshot() {
	{ find "/lib/modules/$1" -mindepth 1 \( -path "/lib/modules/$1/build" -o \
		-path "/lib/modules/$1/source" \) -prune -o -print; find /var/lib/dkms -mindepth 1; } 2>/dev/null | sort
}

# state_leftovers KVER BEFORE_FILE: what a DKMS install left behind. Allowed:
# the depmod indexes (modules.*, checked not to name our modules) and dkms's own
# signing key /var/lib/dkms/mok.{key,pub}, which it keeps for every module.
state_leftovers() {
	local kver=$1 before=$2 f
	state_snapshot "$kver" | comm -13 "$before" - | while IFS= read -r f; do
		case $f in
		/lib/modules/"$kver"/modules.*)
			! grep -qaE 'ext4x|mbcache2|percpu_stats' "$f" || echo "$f (names our modules)" ;;
		/var/lib/dkms/mok.key | /var/lib/dkms/mok.pub) ;;
		*) echo "$f" ;;
		esac
	done
	find /lib/modules -name 'ext4x.ko*' -o -name 'mbcache2.ko*' -o -name 'percpu_stats.ko*' 2>/dev/null
	[ ! -e /var/lib/dkms/ext4x ] || echo /var/lib/dkms/ext4x
}

# Remove depmod indexes that were not there before (a headers-only kernel dir gets
# them from dkms's depmod), so the machine is as the test found it.
state_restore_depmod() {
	local kver=$1 before=$2 f
	state_snapshot "$kver" | comm -13 "$before" - | while IFS= read -r f; do
		case $f in /lib/modules/"$kver"/modules.*) rm -f "$f" ;; esac
	done
}

# ext4x registered with DKMS in any version, or its .deb installed
ext4x_present() {
	[ -n "$(dkms status -m ext4x 2>/dev/null)" ] || [ -e /var/lib/dkms/ext4x ] && return 0
	case $(dpkg-query -W -f='${db:Status-Abbrev}' ext4x-dkms 2>/dev/null) in
	'' | ?n*) return 1 ;;
	*) return 0 ;;
	esac
}

# dkms_ko DIR NAME: the path of module NAME in DIR, as dkms installed it: NAME.ko,
# or compressed like the kernel's own modules (6.12's CONFIG_MODULE_COMPRESS_XZ:
# NAME.ko.xz; also .zst, .gz). Prints nothing and fails if there is none.
dkms_ko() {
	local f
	for f in "$1/$2.ko" "$1/$2.ko.xz" "$1/$2.ko.zst" "$1/$2.ko.gz"; do
		[ -f "$f" ] && { printf '%s\n' "$f"; return 0; }
	done
	return 1
}

# dkms_ko_copy DIR NAME DEST: NAME's module from DIR as a plain DEST/NAME.ko
# (the guest image takes uncompressed modules).
dkms_ko_copy() {
	local f
	f=$(dkms_ko "$1" "$2") || return 1
	case $f in
	*.xz) xz -dc "$f" >"$3/$2.ko" ;;
	*.zst) zstd -qdc "$f" >"$3/$2.ko" ;;
	*.gz) gzip -dc "$f" >"$3/$2.ko" ;;
	*) cp "$f" "$3/$2.ko" ;;
	esac
}

# lintian_clean DEB LOG: one result, lintian finds no error or warning in DEB
# with every override ignored (the packages ship none: the Maintainer and
# changelog addresses must pass on their own); skipped without lintian.
lintian_clean() {
	if command -v lintian >/dev/null; then
		ktap_check "lintian: no error or warning, overrides ignored" bash -c \
			"lintian --no-override --fail-on error,warning '$1' >'$2' 2>&1 &&
			 ! grep -q 'bogus-mail-host' '$2' || { cat '$2'; exit 1; }"
	else
		ktap_test_skip "lintian: no error or warning, overrides ignored" "lintian not installed"
	fi
}
