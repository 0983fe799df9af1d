// SPDX-License-Identifier: GPL-2.0
/*
 * statx-dax: report whether a file is accessed through DAX.
 *
 * Usage: statx-dax PATH
 * Prints "dax" or "nodax" and exits 0 when STATX_ATTR_DAX is set, 1 when it
 * is clear, 2 when the kernel does not report the attribute for this file,
 * 3 on usage or statx errors. Built static so it runs in the test initramfs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX 0x00200000
#endif

int main(int argc, char **argv)
{
	struct statx stx;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH\n", argv[0]);
		return 3;
	}
	memset(&stx, 0, sizeof(stx));
	if (statx(AT_FDCWD, argv[1], AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS,
		  &stx) != 0) {
		fprintf(stderr, "statx %s: %s\n", argv[1], strerror(errno));
		return 3;
	}
	if (!(stx.stx_attributes_mask & STATX_ATTR_DAX)) {
		printf("unknown\n");
		return 2;
	}
	if (stx.stx_attributes & STATX_ATTR_DAX) {
		printf("dax\n");
		return 0;
	}
	printf("nodax\n");
	return 1;
}
