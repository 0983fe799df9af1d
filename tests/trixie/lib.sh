# shellcheck shell=bash disable=SC2034,SC2154 # variables for the scripts that source it; top: set by them
# Shared by the Debian 13 (trixie) check, tests/trixie/*.sh: where the cached
# chroot lives (build/trixie/ of the repository), which Debian archive it
# comes from (the one apt on this host already uses), the one lock of a run,
# and /proc, /sys and /dev mounted into the chroot only around the commands
# that need them. Source it after setting top (the repository root); it
# defines variables and functions and changes no state.

# EXT4X_TRIXIE_BACKPORTS=1 (make check-newer): the same checks on a kernel
# of trixie-backports, in a chroot of its own with that suite enabled and
# the headers, linux-source-X.Y and the image of the newest X.Y release
# there taken from it. EXT4X_NEWER_SERIES picks X.Y: 7.3 (the default, in
# build/trixie-backports) or an older series the suite still carries (7.2,
# in build/trixie-backports-7.2).
t_suite=trixie
if [ "${EXT4X_TRIXIE_BACKPORTS:-0}" = 1 ]; then
	t_backports=trixie-backports
	t_xy=${EXT4X_NEWER_SERIES:-7.3}
	[[ $t_xy =~ ^[0-9]+\.[0-9]+$ ]] || {
		printf '%s: error: EXT4X_NEWER_SERIES=%s: want a kernel series X.Y\n' "${0##*/}" "$t_xy" >&2
		exit 2
	}
	tdir=$top/build/trixie-backports
	[ "$t_xy" = 7.3 ] || tdir+=-$t_xy
else
	tdir=$top/build/trixie
	t_backports=''
	t_xy=6.12               # trixie's kernel series (linux-source-6.12)
fi
troot=$tdir/root                # the chroot
tstamp=$tdir/chroot.stamp       # written last when the chroot is complete
tenv=$tdir/chroot.env           # KEY=VALUE facts about the chroot (versions)

t_info() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
t_die() {
	t_info "error: $*"
	exit 1
}

# t_archives: "ARCHIVE_URI SECURITY_URI" of the Debian archive this host's
# apt uses (apt-get indextargets: the sources of Label Debian and
# Debian-Security). EXT4X_TRIXIE_MIRROR / EXT4X_TRIXIE_SECURITY override.
t_archives() {
	local a s targets
	targets=$(apt-get indextargets --format '$(LABEL) $(REPO_URI)' 2>/dev/null | sort -u)
	a=${EXT4X_TRIXIE_MIRROR:-$(awk '$1 == "Debian" { print $2; exit }' <<<"$targets")}
	s=${EXT4X_TRIXIE_SECURITY:-$(awk '$1 == "Debian-Security" { print $2; exit }' <<<"$targets")}
	[ -n "$a" ] || t_die "no Debian archive in this host's apt sources (apt-get update first, or set EXT4X_TRIXIE_MIRROR)"
	[ -n "$s" ] || t_die "no Debian security archive in this host's apt sources (set EXT4X_TRIXIE_SECURITY)"
	printf '%s %s\n' "${a%/}" "${s%/}"
}

# t_lock: one trixie run at a time (they share build/trixie). A script run
# by one that holds the lock inherits it and does not take it again.
t_lock() {
	[ "${EXT4X_TRIXIE_LOCKED:-}" = "$tdir" ] && return 0
	mkdir -p "$tdir"
	exec 7>"$tdir/.lock"
	if ! flock -n 7; then
		t_info "another trixie run holds $tdir/.lock; waiting for it"
		flock 7
	fi
	export EXT4X_TRIXIE_LOCKED=$tdir
}

# t_mounts DIR: mount points at or below DIR, deepest first.
t_mounts() {
	local d
	d=$(realpath -m "$1")
	awk -v d="$d" '{
		m = $5
		while (match(m, /\\[0-7][0-7][0-7]/)) {
			c = substr(m, RSTART + 1, 3)
			m = substr(m, 1, RSTART - 1) sprintf("%c", (substr(c,1,1) * 64) + (substr(c,2,1) * 8) + substr(c,3,1)) substr(m, RSTART + 4)
		}
		if (m == d || index(m, d "/") == 1) print length(m) " " m
	}' /proc/self/mountinfo | sort -rn | cut -d' ' -f2-
}

# t_umount_all DIR: unmount everything at or below DIR; non-zero (and a
# message) if something stays mounted.
t_umount_all() {
	local m left
	while IFS= read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done < <(t_mounts "$1")
	left=$(t_mounts "$1")
	[ -z "$left" ] || { t_info "still mounted: $left"; return 1; }
}

# t_rmtree DIR: remove a chroot tree, never through a mount that is still
# there (a bound /dev would take the host's device nodes with it).
t_rmtree() {
	[ -e "$1" ] || return 0
	t_umount_all "$1" || t_die "cannot unmount everything under $1; not removing it"
	rm -rf --one-file-system "$1"
}

# t_mount ROOT: /proc (proc), /sys and /dev (bind) into the chroot.
t_mount() {
	local r=$1
	mkdir -p "$r/proc" "$r/sys" "$r/dev"
	mount -t proc proc "$r/proc" &&
		mount --bind /sys "$r/sys" &&
		mount --bind /dev "$r/dev"
}

# t_chroot ROOT CMD...: CMD in the chroot with a clean environment, nothing
# mounted (dpkg-query, file checks).
t_chroot() {
	local r=$1
	shift
	chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# t_in_chroot ROOT CMD...: CMD in the chroot with /proc, /sys and /dev
# mounted for its duration only; its exit status.
t_in_chroot() {
	local r=$1 rc=0
	shift
	if ! t_mount "$r"; then
		t_umount_all "$r"
		t_info "cannot mount /proc, /sys, /dev into $r"
		return 1
	fi
	t_chroot "$r" "$@" || rc=$?
	t_umount_all "$r" || rc=1
	return "$rc"
}

# t_version ROOT PACKAGE: the chroot's installed version of PACKAGE, or "".
t_version() {
	{ dpkg-query --admindir="$1/var/lib/dpkg" -W -f='${db:Status-Abbrev} ${Version}' "$2" 2>/dev/null ||
		true; } | sed -n 's/^ii  *//p'
}

# t_env KEY: a value of build/trixie/chroot.env ("" when absent).
t_env() {
	[ -f "$tenv" ] || return 0
	sed -n "s/^$1=//p" "$tenv" | head -n 1
}
