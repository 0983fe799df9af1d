#!/bin/sh
# Prints the kernel release that Debian's linux-headers-amd64 depends on
# (e.g. 6.1.0-57-amd64): installed if it is, else from the archive.
set -eu
deps=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null) ||
	deps=$(apt-cache show --no-all-versions linux-headers-amd64 2>/dev/null |
	       sed -n 's/^Depends: //p' | head -n 1)
printf '%s\n' "$deps" | tr ',' '\n' |
	sed -n 's/^ *linux-headers-\([0-9][^ ]*\).*/\1/p' | head -n 1
