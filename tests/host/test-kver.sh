#!/bin/bash
# Which kernel releases scripts/kver.sh chooses, for archive states that
# happen as Debian's archive moves: apt-cache and dpkg-query are stubs on
# PATH that answer from a made-up archive, so the cases do not depend on
# this machine or on the day. Each state gives the expected releases, or a
# refusal of one line and exit status 1; never a release that lacks its
# headers, a bootable image or its exact linux-source. KTAP on stdout.
# kernel-independent: nothing is built or booted
# Usage: tests/host/test-kver.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The stubs read $KVER_STUB/archive and $KVER_STUB/installed: one line per
# package version, "PKG VERSION [DEPENDS]", a package's candidate first.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/apt-cache" <<'EOF'
#!/bin/bash
a=$KVER_STUB/archive
case $1 in
madison)
	shift
	for p; do
		awk -v p="$p" '$1 == p { printf "%s | %s | stub bookworm/main amd64 Packages\n", $1, $2 }' "$a"
	done ;;
show)
	shift
	[ "$1" != --no-all-versions ] || shift
	for p; do
		awk -v p="$p" '$1 == p && !n++ {
			printf "Package: %s\nVersion: %s\n", $1, $2
			$1 = $2 = ""; sub(/^ +/, "")
			if ($0 != "") print "Depends: " $0
			print "" }' "$a"
	done ;;
pkgnames) awk -v p="$2" 'index($1, p) == 1 { print $1 }' "$a" | sort -u ;;
*) echo "apt-cache stub: $1 not stubbed" >&2; exit 100 ;;
esac
EOF
cat >"$tmp/bin/dpkg-query" <<'EOF'
#!/bin/bash
# dpkg-query -W -f=FORMAT PATTERN...: the installed lines whose package
# matches a pattern; status 1 when a pattern matches none, as dpkg-query.
[ "$1" = -W ] || { echo "dpkg-query stub: $1 not stubbed" >&2; exit 100; }
fmt=${2#-f=}
shift 2
rc=0
for pat; do
	hit=0
	while read -r p v d; do
		# shellcheck disable=SC2053 # a glob, as dpkg-query takes it
		[[ $p == $pat ]] || continue
		hit=1
		o=${fmt//'${Package}'/$p}
		o=${o//'${Version}'/$v}
		o=${o//'${Depends}'/$d}
		o=${o//'${db:Status-Abbrev}'/ii }
		printf '%b' "$o"
	done <"$KVER_STUB/installed"
	[ "$hit" -eq 1 ] || { echo "dpkg-query: no packages found matching $pat" >&2; rc=1; }
done
exit $rc
EOF
chmod +x "$tmp/bin/apt-cache" "$tmp/bin/dpkg-query"

# The series 6.1 archive every state shares: the 6.1 default, complete.
base_61='linux-image-amd64 6.1.192-3 linux-image-6.1.0-57-amd64 (= 6.1.192-3)
linux-headers-amd64 6.1.192-3 linux-headers-6.1.0-57-amd64 (= 6.1.192-3)
linux-headers-6.1.0-57-amd64 6.1.192-3
linux-image-6.1.0-57-amd64 6.1.192-3
linux-image-6.1.0-57-amd64-unsigned 6.1.192-3
linux-source-6.1 6.1.192-3
linux-source-6.1 6.1.192-2
linux-headers-6.1.0-56-amd64 6.1.190-1
linux-image-6.1.0-56-amd64 6.1.190-1
linux-source-6.1 6.1.190-1'

# Release R of 6.12 at Debian version "R.V-1~deb12u1" with what is listed:
# h headers, i signed image, u unsigned image, s source, m the metapackage
# depending on it; also the -rt and -cloud flavours' headers and images,
# complete, so that they can never be chosen by mistake.
rel612() {
	local n=$1 what=$2 r v
	r=6.12.$n+deb12-amd64 v=6.12.$n-1~deb12u1
	case $what in *m*) echo "linux-image-6.12-amd64 $v linux-image-$r (= $v)" ;; esac
	case $what in *h*) echo "linux-headers-$r $v" ;; esac
	case $what in *i*) echo "linux-image-$r $v" ;; esac
	case $what in *u*) echo "linux-image-$r-unsigned $v" ;; esac
	case $what in *s*) echo "linux-source-6.12 $v" ;; esac
	echo "linux-headers-6.12.$n+deb12-rt-amd64 $v"
	echo "linux-image-6.12.$n+deb12-rt-amd64 $v"
	echo "linux-headers-6.12.$n+deb12-cloud-amd64 $v"
	echo "linux-image-6.12.$n+deb12-cloud-amd64 $v"
}

# state NAME [LINES]: start a made-up archive, the 6.1 base and LINES,
# with nothing installed.
state() {
	export KVER_STUB=$tmp/$1
	mkdir -p "$KVER_STUB"
	: >"$KVER_STUB/installed"
	printf '%s\n' "$base_61" ${2:+"$2"} >"$KVER_STUB/archive"
}

# expect DESC STATUS STDOUT STDERR-PATTERN ARGS...: kver.sh ARGS in the
# current state exits STATUS printing exactly STDOUT (lines joined by
# spaces); its stderr, lines joined by " | ", matches the extended regular
# expression STDERR-PATTERN ("" = stderr empty).
expect() {
	local desc=$1 want_rc=$2 want_out=$3 want_err=$4 out rc=0 ok=1
	shift 4
	out=$(PATH=$tmp/bin:$PATH timeout 60 "$top/scripts/kver.sh" "$@" 2>"$tmp/err") || rc=$?
	out=$(printf '%s\n' "$out" | paste -sd' ')
	[ "$rc" -eq "$want_rc" ] && [ "$out" = "$want_out" ] || ok=0
	if [ -z "$want_err" ]; then
		[ ! -s "$tmp/err" ] || ok=0
	else
		paste -sd'|' "$tmp/err" | sed 's/|/ | /g' | grep -qE -- "$want_err" || ok=0
	fi
	if [ "$ok" -eq 1 ]; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc" "kver.sh $*: status $rc (want $want_rc)" \
			"stdout '$out' (want '$want_out')" \
			"stderr (want ${want_err:-nothing}): $(cat "$tmp/err")"
	fi
}

ktap_print_header

# Today's bookworm-security: the metapackage and signed image at 117,
# headers, unsigned image and source also at 118.
state today "$(rel612 117 mhius; rel612 118 hus; rel612 115 hius)"
expect "the metapackages' releases are the defaults" \
	0 "6.1.0-57-amd64 6.12.117+deb12-amd64" "" --supported
expect "a newer complete release is left to --newer" \
	0 "6.12.118+deb12-amd64" "" --newer
expect "--long is --supported, then --newer" \
	0 "6.1.0-57-amd64 6.12.117+deb12-amd64 6.12.118+deb12-amd64" "" --long
expect "--series 6.1 follows linux-image-amd64" 0 "6.1.0-57-amd64" "" --series 6.1

# The metapackage has moved on before the signed image is there.
state unsigned-only "$(rel612 118 mhus; rel612 117 hius)"
expect "signed image missing: the -unsigned image of the same version boots" \
	0 "6.12.118+deb12-amd64" "" --series 6.12

# Headers and image of the new release are out, its source is not yet.
state source-lags "$(rel612 118 mhiu; rel612 117 hius)"
expect "source lagging behind headers: the newest complete older release, one line why" \
	0 "6.12.117+deb12-amd64" "^kver.sh: 6.12: skipped 6.12.118\+deb12-amd64, the release linux-image-6.12-amd64 depends on: no linux-source-6.12 at 6.12.118-1~deb12u1$" \
	--series 6.12

# Only headers of the metapackage's release.
state headers-only "$(rel612 119 mh; rel612 118 hius)"
expect "headers only: no image, no source, so the release before" \
	0 "6.12.118+deb12-amd64" "^kver.sh: 6.12: skipped 6.12.119\+deb12-amd64, [^|]*: no linux-image-6.12.119\+deb12-amd64 \(signed or -unsigned\), linux-source-6.12 at 6.12.119-1~deb12u1$" \
	--series 6.12

# The metapackage points past every source in the archive.
state meta-ahead "$(rel612 120 mhiu; rel612 118 hiu; rel612 117 hius)"
expect "metapackage ahead of source: the newest release whose source is there" \
	0 "6.12.117+deb12-amd64" "^kver.sh: 6.12: skipped 6.12.120\+deb12-amd64, [^|]*: no linux-source-6.12 at 6.12.120-1~deb12u1$" --series 6.12

# Every 6.12 release lacks something; 6.1 is still chosen and printed.
state nothing-612 "$(rel612 118 mhi; rel612 117 hu)"
expect "nothing usable for a series: refused in one line, status 1, the other series printed" \
	1 "6.1.0-57-amd64" "^kver.sh: 6.12: skipped 6.12.118\+deb12-amd64, .*: no linux-source-6.12 at [^|]* \| kver.sh: 6.12: no older 6.12 release has headers, image and linux-source of one version in the archive either$" \
	--supported

# No 6.12 in the archive at all.
state no-612
expect "no package of a series at all: refused in one line, status 1" \
	1 "" "^kver.sh: 6.12: no image metapackage depends on a 6.12 release[^|]*$" --series 6.12

# The source of the default release is installed although the archive has
# dropped it (a bench set up before the archive moved).
state source-installed "$(rel612 117 mhiu; rel612 115 hius)"
echo "linux-source-6.12 6.12.117-1~deb12u1" >"$KVER_STUB/installed"
expect "an installed linux-source of exactly the version counts" \
	0 "6.12.117+deb12-amd64" "" --series 6.12

ktap_finished
