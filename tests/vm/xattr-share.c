// SPDX-License-Identifier: GPL-2.0
/*
 * xattr-share: set or remove one user xattr on a numbered range of files,
 * for the guest test of xattr block sharing (tests/guest/xattr-sharing.sh).
 *
 *   xattr-share create DIR FIRST COUNT   create files FIRST .. FIRST+COUNT-1
 *                                        (empty, no xattr)
 *   xattr-share shared DIR FIRST COUNT   files FIRST .. FIRST+COUNT-1 get
 *                                        one and the same POSIX access ACL:
 *                                        they share blocks, 1024 a block
 *   xattr-share unique DIR FIRST COUNT   each file gets user.uniq with a
 *                                        value of its own: one block each
 *   xattr-share remove DIR FIRST COUNT   the ACL removed from the files
 *
 * Files are DIR/<n / 4096>/<n>, created when missing. One process does the
 * whole range, so that a guest shell need not fork per file.
 * Exit status: 0, 1 when a call failed (named on stderr), 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#define PER_DIR 4096
#define ACL_NAME "system.posix_acl_access"

/* user::rw- user:1000:rw- group::r-- group:100:r-- mask::rw- other::r-- */
static const struct {
	unsigned int version;
	struct {
		unsigned short tag, perm;
		unsigned int id;
	} e[6];
} acl = { 2, { { 0x01, 6, ~0U }, { 0x02, 6, 1000 }, { 0x04, 4, ~0U },
	       { 0x08, 4, 100 }, { 0x10, 6, ~0U }, { 0x20, 4, ~0U } } };

static int file_path(char *buf, size_t len, const char *dir, long n, int make)
{
	snprintf(buf, len, "%s/%ld", dir, n / PER_DIR);
	if (make && mkdir(buf, 0755) && errno != EEXIST) {
		perror(buf);
		return -1;
	}
	snprintf(buf, len, "%s/%ld/%ld", dir, n / PER_DIR, n);
	if (make) {
		int fd = open(buf, O_CREAT | O_WRONLY, 0644);

		if (fd < 0) {
			perror(buf);
			return -1;
		}
		close(fd);
	}
	return 0;
}

static int known_mode(const char *mode)
{
	return !strcmp(mode, "create") || !strcmp(mode, "shared") ||
	       !strcmp(mode, "unique") || !strcmp(mode, "remove");
}

int main(int argc, char **argv)
{
	char path[4096], value[64];
	long first, count, n;
	const char *mode, *dir;

	if (argc != 5) {
		fprintf(stderr, "usage: %s create|shared|unique|remove DIR FIRST COUNT\n",
			argv[0]);
		return 2;
	}
	mode = argv[1];
	dir = argv[2];
	first = strtol(argv[3], NULL, 10);
	count = strtol(argv[4], NULL, 10);
	if (first < 0 || count < 0 || !known_mode(mode)) {
		fprintf(stderr, "%s: bad mode or range\n", argv[0]);
		return 2;
	}
	for (n = first; n < first + count; n++) {
		if (file_path(path, sizeof(path), dir, n, strcmp(mode, "remove")))
			return 1;
		if (!strcmp(mode, "create"))
			continue;
		if (!strcmp(mode, "remove")) {
			if (removexattr(path, ACL_NAME)) {
				perror(path);
				return 1;
			}
			continue;
		}
		if (!strcmp(mode, "shared")) {
			if (setxattr(path, ACL_NAME, &acl, sizeof(acl), 0)) {
				perror(path);
				return 1;
			}
			continue;
		}
		snprintf(value, sizeof(value), "unique-%ld", n);
		if (setxattr(path, "user.uniq", value, strlen(value), 0)) {
			perror(path);
			return 1;
		}
	}
	return 0;
}
