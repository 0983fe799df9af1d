// SPDX-License-Identifier: GPL-2.0
/*
 * statfs-loop: call statfs(2) on PATH for SECONDS seconds and print how many
 * calls were made, for the KCSAN comparison of stock ext4 and ext4x
 * (tests/standalone/kcsan-statfs.sh): a guest shell forking stat -f makes
 * about 20 calls a second on a KCSAN kernel under TCG, too few for KCSAN's
 * sampling to see a race.
 *
 *   statfs-loop PATH SECONDS
 *
 * Exit status: 0, 1 when a call failed (named on stderr), 2 on bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <sys/vfs.h>

int main(int argc, char **argv)
{
	struct timespec now, end;
	unsigned long calls = 0;
	struct statfs st;
	char *rest;
	long secs;

	if (argc != 3) {
		fprintf(stderr, "usage: statfs-loop PATH SECONDS\n");
		return 2;
	}
	secs = strtol(argv[2], &rest, 10);
	if (*argv[2] == '\0' || *rest != '\0' || secs <= 0) {
		fprintf(stderr, "statfs-loop: SECONDS must be a positive number, not '%s'\n",
			argv[2]);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += secs;
	do {
		/* the clock is read every 256 calls: it costs more than statfs */
		for (int i = 0; i < 256; i++, calls++) {
			if (statfs(argv[1], &st) != 0) {
				fprintf(stderr, "statfs-loop: statfs %s: %s\n",
					argv[1], strerror(errno));
				return 1;
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	printf("%lu\n", calls);
	return 0;
}
