#!/bin/bash
# Host side of the power-cut test (tests/standalone/powercut.sh): cross-check a
# serial log of a run-guest.sh --reboot run. Every "# fsynced NAME MD5" line
# a boot printed before it was cut (fsync had returned, the record was on
# the NVDIMM) must come back in the next boot as "# intact NAME ..." (or
# "# gone NAME" when its unlink was in flight), unless the same boot printed
# "# unlinked NAME" after it. Lines torn by the cut do not match and are not
# counted. The cut can also lose a whole line still on its way to the
# console: a lost "# fsynced" line only means one check fewer, and for a
# lost "# unlinked" line the next boot prints "# gone NAME" itself, from
# the unlink record on the NVDIMM. A boot that verified nothing (it printed
# no "# powercut-replay" line: the emulator's int3 fault of docs/NOTES.md
# killed it before the test ran) left the records on the NVDIMM as they
# were, so the names before it are looked for in the first later boot that
# verified. Prints KTAP and a figures line; exit 1 on a miss.
# Usage: powercut-crosscheck.sh SERIAL_LOG
set -euo pipefail
log=${1:?usage: powercut-crosscheck.sh SERIAL_LOG}
[ -r "$log" ] || { echo "powercut-check: cannot read $log" >&2; exit 2; }

echo "KTAP version 1"
echo "1..2"
awk '
{ sub(/\r+$/, "") }
# a cut can leave the last line without its end: the banner may follow it
/ext4x-guest: booted/ { boot++; next }
/^    # fsynced [^ ]+ [0-9a-f]+$/ && length($NF) == 32 { printed[boot, $3] = 1; plist[boot] = plist[boot] " " $3; next }
/^    # fsynced-prefix [^ ]+ [0-9]+ [0-9a-f]+$/ && length($NF) == 32 { printed[boot, $3] = 1; plist[boot] = plist[boot] " " $3; next }
/^    # unlinked [^ ]+$/ { delete printed[boot, $3]; next }
/^    # (intact|gone) [^ ]+/ { seen[boot, $3] = 1; nseen++; next }
/^    # powercut-replay cycle=[0-9]+ replayed=yes$/ { replays++; checked[boot] = 1; next }
/^    # powercut-replay / { verified++; checked[boot] = 1; next }
END {
	miss = 0
	for (b = 2; b <= boot; b++)
		if (!(b in checked)) {
			printf "# boot %d verified nothing; the names before it are looked for after it\n", b
			blind++
		}
	for (b = 1; b < boot; b++) {
		for (next_b = b + 1; next_b < boot && !(next_b in checked); next_b++)
			;
		n = split(plist[b], names, " ")
		for (i = 1; i <= n; i++) {
			if (!((b, names[i]) in printed) || done[b, names[i]]++)
				continue
			nprinted++
			if (!((next_b, names[i]) in seen)) {
				printf "# boot %d printed fsynced %s; boot %d did not find it intact\n", b, names[i], next_b
				miss++
			}
		}
	}
	verified += replays
	printf "# figures: %d boots (%d that verified nothing), %d cycles verified, %d with journal replay, %d fsynced names printed and cross-checked, %d intact/gone lines\n", boot, blind, verified, replays, nprinted, nseen
	if (verified == 0 || nprinted == 0) {
		print "not ok 1 - power cut: the log shows verified cycles and fsynced files"
	} else
		print "ok 1 - power cut: the log shows verified cycles and fsynced files"
	if (miss)
		printf "not ok 2 - power cut: every fsynced file printed before a cut was found after it (%d missing)\n", miss
	else
		print "ok 2 - power cut: every fsynced file printed before a cut was found after it"
	exit (miss || !verified || !nprinted) ? 1 : 0
}' "$log"
