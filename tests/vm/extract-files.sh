#!/bin/bash
# Extract the files a guest handed back on its console (ktap_export_file):
#   # ext4x-file-begin NAME
#   # <base64 lines>
#   # ext4x-file-end NAME SHA256
# each line possibly indented. Writes DIR/NAME, checking the checksum.
# Usage: extract-files.sh LOG DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/common.sh
. "$here/common.sh"

[ $# -eq 2 ] || die "usage: extract-files.sh LOG DIR"
log=$1 dir=$2
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# awk writes each payload to $tmp/N.b64 and lists "N NAME SHA256 STATE".
awk -v tmp="$tmp" '
	{ sub(/\r+$/, ""); l = $0; sub(/^[ \t]*/, "", l) }
	l ~ /^# ext4x-file-begin / {
		n++; split(l, f, " "); name[n] = f[3]; state[n] = "open"; cur = n
		out = tmp "/" n ".b64"; printf "" > out; next
	}
	cur && l ~ /^# ext4x-file-end / {
		split(l, f, " "); sum[cur] = f[4]
		if (state[cur] == "open") state[cur] = "ok"
		close(out); cur = 0; next
	}
	cur && l ~ /^# [A-Za-z0-9+\/=]*$/ { print substr(l, 3) > out; next }
	# A kernel message between payload lines is harmless; anything else
	# inside a payload line means the line was garbled.
	cur && $0 ~ /^\[ *[0-9]+\.[0-9]+\] / { next }
	cur { state[cur] = "garbled" }
	END { for (i = 1; i <= n; i++) print i, name[i], sum[i], state[i] }
' "$log" >"$tmp/list"

bad=0
while read -r n name sum state; do
	if ! [[ $name =~ ^[A-Za-z0-9_][A-Za-z0-9._-]*$ ]]; then
		info "refusing file name '$name' from the guest"
		bad=1
		continue
	fi
	if [ "$state" != ok ]; then
		info "$name: transfer $state"
		bad=1
		continue
	fi
	if ! base64 -d "$tmp/$n.b64" >"$dir/$name" 2>/dev/null ||
		[ "$(sha256sum <"$dir/$name" | cut -d' ' -f1)" != "$sum" ]; then
		info "$name: checksum mismatch, kept as $name.corrupt"
		mv "$dir/$name" "$dir/$name.corrupt"
		bad=1
		continue
	fi
	info "received $dir/$name"
done <"$tmp/list"
exit "$bad"
