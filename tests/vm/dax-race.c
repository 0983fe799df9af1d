// SPDX-License-Identifier: GPL-2.0
/*
 * dax-race: readers and overwriters of DAX files against everything that
 * changes a file's block mapping meanwhile: truncate, hole punch, collapse
 * and insert range, the per-file DAX flag, and the extent status shrinker
 * (drop_caches, from a thread of its own). Every block written carries its
 * owner and offset, so a read that returns a freed block now owned by
 * another file, or a block of the wrong offset, or anything that is
 * neither a pattern nor zeros, is caught; so is an overwrite that lands in
 * a block the file no longer owns, when the new owner's block is read.
 *
 *   dax-race DIR SECONDS [dax-flag]
 *
 * dax-flag: the mutator also toggles FS_XFLAG_DAX (mount with -o
 * dax=inode). Prints one line of counts; exit status 0 when every read was
 * good and every kind of change ran, 1 on a bad read or a failed call, 2 on
 * bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define NFILES	4
#define NBLOCKS	512		/* 2 MiB a file */
#define BLK	4096
#define MAGIC	0x44415852u	/* "DAXR" */
#define NREADERS 2

struct rec {			/* repeated through a block; 0 is no value */
	uint32_t magic, file, block, pad;	/* file + 1, block + 1 */
};

static int fds[NFILES];
/* per file: odd while its blocks are shifted (collapse, then insert) */
static atomic_uint shifted[NFILES];
/* collapse+insert of a file against its overwriter (which would write a
 * block's pattern at a shifted offset): held for reading by the overwriter */
static pthread_rwlock_t shift_lock[NFILES];
static atomic_int stop;
static atomic_ulong reads, strict_reads, overwrites, shrinks, bad;
static unsigned long ops[6];
static const char *const op_names[6] = {
	"truncate", "punch", "collapse+insert", "dax-flag", "drop_caches", "rewrite"
};
static int toggle_dax;

static void fill(char *buf, unsigned int file, unsigned int block)
{
	struct rec r = { MAGIC, file + 1, block + 1, 0 };
	size_t i;

	for (i = 0; i < BLK; i += sizeof(r))
		memcpy(buf + i, &r, sizeof(r));
}

/*
 * 0 good, 1 bad. Every byte of every record is zero or the byte this file
 * writes there: the magic, file + 1 and, with strict, block + 1 of the
 * block read (without strict, a collapse or insert is moving the file's
 * blocks, and any block of the file may be there). A read racing a write
 * through the page cache (the DAX flag off) may see any part of the
 * write, down to single bytes, but no byte of another file or block.
 */
static int check(const char *buf, unsigned int file, unsigned int block,
		 int strict)
{
	struct rec want = { MAGIC, file + 1, block + 1, 0 };
	const unsigned char *w = (const unsigned char *)&want;
	const unsigned char *b = (const unsigned char *)buf;
	size_t i, j;

	for (i = 0; i < BLK; i += sizeof(want))
		for (j = 0; j < sizeof(want); j++) {
			if (!strict && j >= offsetof(struct rec, block) &&
			    j < offsetof(struct rec, pad))
				continue;
			if (b[i + j] && b[i + j] != w[j])
				return 1;
		}
	return 0;
}

static void report_bad(const char *buf, unsigned int file, unsigned int block)
{
	struct rec r;
	size_t i;

	for (i = 0; i < BLK; i += sizeof(r)) {
		memcpy(&r, buf + i, sizeof(r));
		if (r.magic || r.file || r.block || r.pad)
			break;
	}
	fprintf(stderr, "bad read: file %u block %u, at byte %zu: magic %#x file+1 %u block+1 %u\n",
		file, block, i, r.magic, r.file, r.block);
}

static unsigned int rnd(unsigned int *seed, unsigned int n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 8) % n;
}

static void *reader(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg * 7919u + 1;
	char *buf = aligned_alloc(BLK, BLK);

	while (!atomic_load(&stop)) {
		unsigned int f = rnd(&seed, NFILES), b = rnd(&seed, NBLOCKS);
		unsigned int s0 = atomic_load(&shifted[f]);
		ssize_t n = pread(fds[f], buf, BLK, (off_t)b * BLK);
		int strict;

		if (n < 0) {
			perror("pread");
			atomic_fetch_add(&bad, 1);
			break;
		}
		if (n < BLK)	/* past a truncated end */
			memset(buf + n, 0, BLK - n);
		strict = !(s0 & 1) && atomic_load(&shifted[f]) == s0;
		if (check(buf, f, b, strict)) {
			report_bad(buf, f, b);
			atomic_fetch_add(&bad, 1);
		}
		atomic_fetch_add(&reads, 1);
		if (strict)
			atomic_fetch_add(&strict_reads, 1);
	}
	free(buf);
	return NULL;
}

/* rewrites blocks with the pattern they hold, in place: a DAX overwrite */
static void *overwriter(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg * 104729u + 3;
	char *buf = aligned_alloc(BLK, BLK);

	while (!atomic_load(&stop)) {
		unsigned int f = rnd(&seed, NFILES), b = rnd(&seed, NBLOCKS);
		ssize_t n;

		fill(buf, f, b);
		pthread_rwlock_rdlock(&shift_lock[f]);
		n = pwrite(fds[f], buf, BLK, (off_t)b * BLK);
		pthread_rwlock_unlock(&shift_lock[f]);
		if (n != BLK) {
			perror("overwrite");
			atomic_fetch_add(&bad, 1);
			break;
		}
		atomic_fetch_add(&overwrites, 1);
	}
	free(buf);
	return NULL;
}

static int drop_caches(void);

/* the extent status shrinker, over and over */
static void *shrinker(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		if (drop_caches()) {
			perror("drop_caches");
			atomic_fetch_add(&bad, 1);
			break;
		}
		atomic_fetch_add(&shrinks, 1);
		usleep(20000);
	}
	return NULL;
}

static int write_blocks(unsigned int f, unsigned int from, unsigned int to,
			unsigned int step)
{
	char *buf = aligned_alloc(BLK, BLK);
	unsigned int b;
	int ret = 0;

	for (b = from; b < to && !ret; b += step) {
		fill(buf, f, b);
		if (pwrite(fds[f], buf, BLK, (off_t)b * BLK) != BLK) {
			perror("pwrite");
			ret = -1;
		}
	}
	free(buf);
	return ret;
}

static int set_dax_flag(int fd, int on)
{
	struct fsxattr fa;

	if (ioctl(fd, FS_IOC_FSGETXATTR, &fa))
		return -1;
	if (on)
		fa.fsx_xflags |= FS_XFLAG_DAX;
	else
		fa.fsx_xflags &= ~FS_XFLAG_DAX;
	return ioctl(fd, FS_IOC_FSSETXATTR, &fa);
}

static int drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	int ret = fd < 0 || write(fd, "2", 1) != 1 ? -1 : 0;

	if (fd >= 0)
		close(fd);
	return ret;
}

/* one change of file f's mapping, then its pattern written back */
static int mutate(unsigned int *seed, unsigned int op)
{
	unsigned int f = rnd(seed, NFILES);
	unsigned int at = rnd(seed, NBLOCKS - 16), len = 1 + rnd(seed, 15);
	off_t o = (off_t)at * BLK, l = (off_t)len * BLK;

	switch (op) {
	case 0:
		if (ftruncate(fds[f], o))
			return perror("ftruncate"), -1;
		return write_blocks(f, at, NBLOCKS, 1);
	case 1:
		if (fallocate(fds[f], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, o, l))
			return perror("punch"), -1;
		return write_blocks(f, at, at + len, 1);
	case 2:
		pthread_rwlock_wrlock(&shift_lock[f]);
		atomic_fetch_add(&shifted[f], 1);
		if (fallocate(fds[f], FALLOC_FL_COLLAPSE_RANGE, o, l) ||
		    fallocate(fds[f], FALLOC_FL_INSERT_RANGE, o, l)) {
			perror("collapse/insert");
			pthread_rwlock_unlock(&shift_lock[f]);
			return -1;
		}
		atomic_fetch_add(&shifted[f], 1);
		pthread_rwlock_unlock(&shift_lock[f]);
		return write_blocks(f, at, at + len, 1);
	case 3:
		if (!toggle_dax)
			return 1;
		if (set_dax_flag(fds[f], rnd(seed, 2)))
			return perror("FS_IOC_FSSETXATTR"), -1;
		return 0;
	case 4:
		if (drop_caches())
			return perror("drop_caches"), -1;
		return 0;
	default:
		/* every other block anew: a fragmented tree of many extents */
		if (fallocate(fds[f], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      0, (off_t)NBLOCKS * BLK))
			return perror("punch all"), -1;
		return write_blocks(f, 0, NBLOCKS, 2) ?: write_blocks(f, 1, NBLOCKS, 2);
	}
}

int main(int argc, char **argv)
{
	pthread_t th[NREADERS + 2];
	unsigned int seed = 12345, i, f;
	time_t end;
	char path[4096];
	int ret, failed = 0;

	if (argc < 3 || argc > 4 || atoi(argv[2]) <= 0 ||
	    (argc == 4 && strcmp(argv[3], "dax-flag"))) {
		fprintf(stderr, "usage: dax-race DIR SECONDS [dax-flag]\n");
		return 2;
	}
	toggle_dax = argc == 4;
	for (f = 0; f < NFILES; f++) {
		pthread_rwlock_init(&shift_lock[f], NULL);
		snprintf(path, sizeof(path), "%s/race.%u", argv[1], f);
		fds[f] = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fds[f] < 0 || (toggle_dax && set_dax_flag(fds[f], 1))) {
			perror(path);
			return 1;
		}
		/* interleaved: each file a tree of many small extents */
		if (write_blocks(f, 0, NBLOCKS, 2) || write_blocks(f, 1, NBLOCKS, 2))
			return 1;
	}
	for (i = 0; i < NREADERS; i++)
		pthread_create(&th[i], NULL, reader, (void *)(uintptr_t)i);
	pthread_create(&th[i++], NULL, overwriter, NULL);
	pthread_create(&th[i], NULL, shrinker, NULL);
	end = time(NULL) + atoi(argv[2]);
	for (i = 0; time(NULL) < end && !atomic_load(&bad); i++) {
		unsigned int op = i % 6;

		ret = mutate(&seed, op);
		if (ret < 0) {
			failed = 1;
			break;
		}
		if (ret == 0)
			ops[op]++;
	}
	atomic_store(&stop, 1);
	for (i = 0; i < NREADERS + 2; i++)
		pthread_join(th[i], NULL);
	printf("reads %lu (offset checked %lu) bad %lu; overwrites %lu shrinks %lu;",
	       atomic_load(&reads), atomic_load(&strict_reads), atomic_load(&bad),
	       atomic_load(&overwrites), atomic_load(&shrinks));
	for (i = 0; i < 6; i++)
		printf(" %s %lu", op_names[i], ops[i]);
	printf("\n");
	if (failed || atomic_load(&bad))
		return 1;
	for (i = 0; i < 6; i++)
		if (!ops[i] && (i != 3 || toggle_dax)) {
			fprintf(stderr, "no %s ran\n", op_names[i]);
			return 1;
		}
	if (!atomic_load(&overwrites) || !atomic_load(&shrinks)) {
		fprintf(stderr, "no overwrite or no shrink ran\n");
		return 1;
	}
	return 0;
}
