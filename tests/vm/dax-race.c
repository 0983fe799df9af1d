// SPDX-License-Identifier: GPL-2.0
/*
 * dax-race: DAX reads and overwrites against every change of a file's
 * block mapping that they must not see half done.
 *
 *   dax-race DIR SECONDS [dax-flag | es-merge | stall | write-stall |
 *                         write-stall-exclusive | write-stall-unlocked]
 *
 * Every block written carries its owner and offset (struct rec), so a read
 * that returns a block of another file or offset, or anything that is
 * neither such a pattern nor zeros, is caught. The files are opened with
 * O_DIRECT: ext4x relaxes its locking only for I/O that asked for direct
 * I/O semantics.
 *
 * Default: two readers and an overwriter on four files, a thread running
 * the extent status shrinker (drop_caches), and the main thread cycling
 * through truncate, hole punch, collapse+insert range, drop_caches and a
 * rewrite of a whole file as a tree of many extents. dax-flag: it also
 * toggles FS_XFLAG_DAX (mount with -o dax=inode).
 *
 * es-merge: the main thread punches file 0 whole and writes it back from
 * its last block down, over and over. Each block is allocated just before
 * the one written before it, so the extent status entry of the written
 * part grows at its front in place: its first block and its physical
 * block change under a lookup that takes no lock, which must see both old
 * or both new. One reader reads 16-byte records of that part, so that a
 * read is mostly its lookup. The run fails if the rewrites leave more
 * than NBLOCKS / 8 extents (blocks not allocated downwards: the mode
 * would test nothing).
 *
 * stall: the deterministic test of the one rule a read without i_rwsem
 * relies on, that a change which frees blocks first waits for the reads in
 * flight. The file system is filled up but for a few blocks. A reader
 * reads into a page registered with userfaultfd, so its copy stops at the
 * page fault after the read has mapped its block; while it is stopped,
 * the main thread truncates the file at that block and a scratch file
 * takes every free block (the freed one among them) and writes its own
 * pattern. The fault is answered when the truncate and the scratch write
 * are done, or after 200 ms. A truncate that completes while the read is
 * stopped fails the run, and so does the scratch pattern in the read.
 *
 * write-stall: the deterministic test of which DAX writes run under a
 * shared i_rwsem. A writer's source page is registered with userfaultfd,
 * so the write stops while it holds i_rwsem, in its copy. Meanwhile the
 * main thread overwrites another block of that file. Under an overwrite
 * of written blocks inside the size (i_rwsem shared) that must complete;
 * under a write that extends the file, fills a hole, converts an
 * unwritten extent or is made to a setuid file (i_rwsem exclusive) it
 * must not, nor under a plain overwrite (a descriptor without O_DIRECT:
 * such a write keeps POSIX's exclusion). In turn with that overwrite, the
 * main thread reads the block through a descriptor without O_DIRECT (a
 * plain read takes i_rwsem shared, as stock's does, so it completes beside
 * the shared overwrite only: ext4x's reads skip i_rwsem only when they
 * asked for O_DIRECT). write-stall-exclusive: as stock ext4 does, no
 * stopped write lets the other I/O complete. write-stall-unlocked: the
 * overwrite takes no i_rwsem at all (ext4x with the drain for writes);
 * an O_DIRECT overwrite beside an exclusive write may then complete, and
 * is only counted. In every mode, beside a stopped overwrite the main
 * thread also, in turn, truncates the file's last block, makes it setuid,
 * gives it a security xattr or sets its immutable flag: each must wait
 * until the overwrite is done, as it waits for i_rwsem. Before each
 * stopped overwrite the writer reads its block with O_DIRECT: on ext4x a
 * read that finds the drain bit set (left by an earlier change) clears
 * it, so the overwrite goes without i_rwsem rather than under it.
 *
 * Prints one line of counts; exit status 0 when every read was good and
 * every kind of change ran, 1 on a bad read or a failed call, 2 on bad
 * usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

typedef unsigned long long u64;
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define NFILES	4
#define NBLOCKS	512		/* 2 MiB a file */
#define BLK	4096
#define MAGIC	0x44415852u	/* "DAXR" */
#define NREADERS 2
#define SCRATCH	NFILES		/* fds[SCRATCH]: never read */
#define RESERVE	32		/* blocks stall mode leaves free */
#define HOT	16		/* stall mode reads the file's last blocks */

struct rec {			/* repeated through a block; 0 is no value */
	unsigned int magic, file, block, pad;	/* file + 1, block + 1 */
};

static int fds[NFILES + 1];
/* per file: odd while its blocks are shifted (collapse, then insert) */
static atomic_uint shifted[NFILES];
/*
 * collapse+insert of a file against its overwriter (which would write a
 * block's pattern at a shifted offset): held for reading by the overwriter
 */
static pthread_rwlock_t shift_lock[NFILES];
static atomic_int stop;
static atomic_ulong reads, strict_reads, overwrites, shrinks, bad;
#define NOPS	7
#define OP_DOWN	6		/* the es-merge mode's one change */
static unsigned long ops[NOPS];
static const char *const op_names[NOPS] = {
	"truncate", "punch", "collapse+insert", "dax-flag", "drop_caches",
	"rewrite", "rewrite-down"
};

/* extents a file had after its last rewrite from the last block down */
static unsigned long down_extents;
/* per file: blocks from here on are written (a rewrite down publishes it) */
static atomic_uint down_front[NFILES];

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

/* a block read into buf: count it, check it */
static void account(const char *buf, ssize_t n, unsigned int f, unsigned int b,
		    int strict)
{
	char tail[BLK] = { 0 };

	if (n < 0) {
		perror("pread");
		atomic_fetch_add(&bad, 1);
		return;
	}
	if (n < BLK) {		/* past a truncated end: the rest reads as zeros */
		memcpy(tail, buf, n);
		buf = tail;
	}
	if (check(buf, f, b, strict)) {
		report_bad(buf, f, b);
		atomic_fetch_add(&bad, 1);
	}
	atomic_fetch_add(&reads, 1);
	if (strict)
		atomic_fetch_add(&strict_reads, 1);
}

static void *reader(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg * 7919u + 1;
	char *buf = aligned_alloc(BLK, BLK);

	while (!atomic_load(&stop) && !atomic_load(&bad)) {
		unsigned int f = rnd(&seed, NFILES), b = rnd(&seed, NBLOCKS);
		unsigned int s0 = atomic_load(&shifted[f]);
		ssize_t n = pread(fds[f], buf, BLK, (off_t)b * BLK);

		account(buf, n, f, b, !(s0 & 1) && atomic_load(&shifted[f]) == s0);
	}
	free(buf);
	return NULL;
}

/*
 * es-merge: one record of a block of file 0's written part, the part
 * whose extent status entry grows at its front: a read of 16 bytes, so
 * that the lookup is most of what a read costs
 */
static void *merge_reader(void *arg)
{
	unsigned int seed = 7, k, b, r;
	struct rec want, got;
	ssize_t n;

	(void)arg;
	while (!atomic_load(&stop) && !atomic_load(&bad)) {
		k = atomic_load(&down_front[0]);
		if (k + 1 >= NBLOCKS)
			continue;
		b = k + 1 + rnd(&seed, NBLOCKS - k - 1);
		r = rnd(&seed, BLK / sizeof(got));
		n = pread(fds[0], &got, sizeof(got), (off_t)b * BLK + r * sizeof(got));
		want = (struct rec){ MAGIC, 1, b + 1, 0 };
		/* zeros: the file was punched again since k was read */
		if (n != sizeof(got) ||
		    (memcmp(&got, &want, sizeof(got)) &&
		     (got.magic || got.file || got.block || got.pad))) {
			fprintf(stderr, "bad read: f0 b%u: %zd B, magic %#x file+1 %u block+1 %u\n",
				b, n, got.magic, got.file, got.block);
			atomic_fetch_add(&bad, 1);
		}
		atomic_fetch_add(&reads, 1);
		atomic_fetch_add(&strict_reads, 1);
	}
	return NULL;
}

/* rewrites blocks with the pattern they hold, in place: a DAX overwrite */
static void *overwriter(void *arg)
{
	unsigned int seed = 104729u;
	char *buf = aligned_alloc(BLK, BLK);

	(void)arg;
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

static int shrink_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	int ret = fd < 0 || write(fd, "2", 1) != 1 ? -1 : 0;

	if (fd >= 0)
		close(fd);
	return ret;
}

/* the extent status shrinker, over and over */
static void *shrinker(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		if (shrink_caches()) {
			perror("drop_caches");
			atomic_fetch_add(&bad, 1);
			break;
		}
		atomic_fetch_add(&shrinks, 1);
		usleep(20000);
	}
	return NULL;
}

/*
 * writes blocks from..to-1 of file f (every step-th), or with down, from
 * the last one down, so that blocks just freed come back at other offsets
 */
static int write_blocks(unsigned int f, unsigned int from, unsigned int to,
			unsigned int step, int down)
{
	char *buf = aligned_alloc(BLK, BLK);
	unsigned int i, b;
	int ret = 0;

	for (i = 0; from + i < to && !ret; i += step) {
		b = down ? to - 1 - i : from + i;
		fill(buf, f, b);
		if (pwrite(fds[f], buf, BLK, (off_t)b * BLK) != BLK) {
			perror("pwrite");
			ret = -1;
		}
	}
	free(buf);
	return ret;
}

/* sets or clears one FS_IOC_SETFLAGS flag of the file */
static int set_inode_flag(int fd, int flag, int on)
{
	int flags;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags)) {
		perror("FS_IOC_GETFLAGS");
		return -1;
	}
	flags = on ? flags | flag : flags & ~flag;
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags)) {
		perror("FS_IOC_SETFLAGS");
		return -1;
	}
	return 0;
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

/* the number of extents of file f, or -1 */
static long count_extents(unsigned int f)
{
	struct fiemap fm = { .fm_length = FIEMAP_MAX_OFFSET };

	if (ioctl(fds[f], FS_IOC_FIEMAP, &fm))
		return perror("FS_IOC_FIEMAP"), -1;
	return fm.fm_mapped_extents;
}

/*
 * file f punched whole, then written from its last block down, each
 * block allocated just before the one written before it: the extent
 * status entry of the written part grows at its front
 */
static int rewrite_down(unsigned int f)
{
	char *buf = aligned_alloc(BLK, BLK);
	unsigned int b = NBLOCKS;
	long n;

	atomic_store(&down_front[f], NBLOCKS);
	if (fallocate(fds[f], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      0, (off_t)NBLOCKS * BLK)) {
		perror("punch all");
		b = 0;
	}
	while (b-- > 0) {
		fill(buf, f, b);
		if (pwrite(fds[f], buf, BLK, (off_t)b * BLK) != BLK) {
			perror("pwrite");
			break;
		}
		atomic_store(&down_front[f], b);
	}
	free(buf);
	if (atomic_load(&down_front[f]))
		return -1;
	n = count_extents(f);
	if (n < 0)
		return -1;
	down_extents = n;
	return 0;
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
		return write_blocks(f, at, NBLOCKS, 1, 0);
	case 1:
		if (fallocate(fds[f], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, o, l))
			return perror("punch"), -1;
		return write_blocks(f, at, at + len, 1, 0);
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
		return write_blocks(f, at, at + len, 1, 0);
	case 3:
		if (!toggle_dax)
			return 1;
		if (set_dax_flag(fds[f], rnd(seed, 2)))
			return perror("FS_IOC_FSSETXATTR"), -1;
		return 0;
	case 4:
		if (shrink_caches())
			return perror("drop_caches"), -1;
		return 0;
	case 5:
		/* every other block anew: a fragmented tree of many extents */
		if (fallocate(fds[f], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      0, (off_t)NBLOCKS * BLK))
			return perror("punch all"), -1;
		return write_blocks(f, 0, NBLOCKS, 2, 0) ?:
			write_blocks(f, 1, NBLOCKS, 2, 0);
	default:
		return rewrite_down(f);
	}
}

/* ---- stall mode ---------------------------------------------------------- */

static int uffd;
static char *stall_pages;
#define STALL_PAGES 64
static pthread_mutex_t stall_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stall_cv = PTHREAD_COND_INITIALIZER;
/*
 * an I/O is stopped at its fault (request, numbered by stall_seq), the
 * change made for that stop is done (done)
 */
static int stall_request, stall_done;
static unsigned long stall_seq;
static atomic_uint stall_file, stall_block, stall_kind;
static unsigned long stalls, changed_in_stall, waited_out;

/* write-stall: the kinds of stopped write, and what each let through */
enum { W_OVERWRITE, W_EXTEND, W_HOLE, W_UNWRITTEN, W_SETUID, W_PLAIN,
	W_KINDS };
static const char *const wkind_names[W_KINDS] = {
	"overwrite", "extend", "hole", "unwritten", "setuid", "plain"
};

/*
 * files 0 and 1 opened without O_DIRECT: for the plain overwrites, and for
 * the plain reads, which take i_rwsem shared on ext4x as on stock ext4
 */
static int plain_fds[2] = { -1, -1 };

/*
 * what the main thread does beside a stopped write, in turn for each kind:
 * an O_DIRECT overwrite of block 0, or a plain read of it; beside a
 * stopped overwrite also, in turn, a truncate of the file's last block
 * (never one the writer stops in), a chmod to setuid, a security xattr
 * set, or the immutable flag set (each waits for i_rwsem beside the other
 * kinds, which hold it exclusive)
 */
enum { BESIDE_OVERWRITE, BESIDE_READ, BESIDE_TRUNCATE, BESIDE_CHMOD,
	BESIDE_SECURITY, BESIDE_IMMUTABLE, BESIDES };
#define BESIDES_ANY	2	/* the first two go beside every kind */
/* how many times its time the write-stall phase may add to make every stop */
#define WSTALL_STRETCH	10
static const char *const beside_names[BESIDES] = {
	"overwrite", "plain read", "truncate", "chmod u+s", "security xattr",
	"chattr +i"
};

/*
 * whether a write of kind k is stopped beside change w: an overwrite
 * beside every change, the other kinds beside the first BESIDES_ANY only.
 * The writer and the verdict both ask this, so they cannot disagree.
 */
static int wstall_pairs(unsigned int w, unsigned int k)
{
	return k == W_OVERWRITE || w < BESIDES_ANY;
}

/* how many changes a write of kind k goes beside: always the first ones */
static unsigned int wstall_besides(unsigned int k)
{
	unsigned int w = 0;

	while (w < BESIDES && wstall_pairs(w, k))
		w++;
	return w;
}

static atomic_uint stall_beside;
static unsigned long wstalls[BESIDES][W_KINDS], wbeside[BESIDES][W_KINDS];
static int write_stall, shared_overwrites, unlocked_overwrites;
/*
 * set while the main thread makes its change for a stop, and then puts the
 * file back: the writer waits for it before it prepares its next write
 */
static int probing;

/* ms milliseconds from now, for pthread_cond_timedwait() */
static void deadline(struct timespec *until, long ms)
{
	clock_gettime(CLOCK_REALTIME, until);
	until->tv_nsec += ms * 1000000L;
	if (until->tv_nsec >= 1000000000L) {
		until->tv_sec += until->tv_nsec / 1000000000L;
		until->tv_nsec %= 1000000000L;
	}
}

/* all free space but RESERVE blocks goes to a file of its own */
static int fill_free(const char *dir)
{
	off_t size = 0, chunk = 256 * (off_t)BLK;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/race.fill", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	while (chunk >= BLK) {
		if (!fallocate(fd, 0, size, chunk))
			size += chunk;
		else if (errno == ENOSPC)
			chunk /= 2;
		else
			return perror("fallocate fill"), -1;
	}
	if (size < RESERVE * BLK || ftruncate(fd, size - RESERVE * BLK)) {
		perror("fill: ftruncate");
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * the scratch file takes every free block in one write, then gives them
 * back; freed blocks keep the scratch pattern
 */
static int scratch_cycle(void)
{
	size_t n = 4 * RESERVE + NBLOCKS, b;
	char *buf = aligned_alloc(BLK, n * BLK);
	int ret = 0;

	for (b = 0; b < n; b++)
		fill(buf + b * BLK, SCRATCH, b);
	if (pwrite(fds[SCRATCH], buf, n * BLK, 0) < 0 && errno != ENOSPC) {
		perror("scratch pwrite");
		ret = -1;
	}
	if (ftruncate(fds[SCRATCH], 0)) {
		perror("scratch ftruncate");
		ret = -1;
	}
	free(buf);
	return ret;
}

/* the next page of the registered range, made missing so that it faults */
static char *stall_page(unsigned int i)
{
	char *page = stall_pages + (size_t)(i % STALL_PAGES) * BLK;

	madvise(page, BLK, MADV_DONTNEED);
	return page;
}

static void *stall_reader(void *arg)
{
	unsigned int seed = 31, i = 0;

	(void)arg;
	while (!atomic_load(&stop) && !atomic_load(&bad)) {
		char *page = stall_page(i++);
		unsigned int b = NBLOCKS - HOT + rnd(&seed, HOT);
		ssize_t n;

		atomic_store(&stall_block, b);
		n = pread(fds[0], page, BLK, (off_t)b * BLK);
		account(page, n, 0, b, 1);
	}
	return NULL;
}

/* O_DIRECT: aligned to the block */
static char *prepare_buf;

/* block b of file f made what a write of this kind needs to find there */
static int wstall_prepare(unsigned int kind, unsigned int f, unsigned int b)
{
	off_t o = (off_t)b * BLK;

	switch (kind) {
	case W_OVERWRITE:
		/* ext4x: a read that finds the drain bit set clears it */
		if (pread(fds[f], prepare_buf, BLK, o) != BLK)
			return perror("pread"), -1;
		return 0;
	case W_EXTEND:
		if (ftruncate(fds[f], o))
			return perror("ftruncate"), -1;
		return 0;
	case W_HOLE:
	case W_UNWRITTEN:
		if (fallocate(fds[f], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, o, BLK))
			return perror("punch"), -1;
		if (kind == W_UNWRITTEN &&
		    fallocate(fds[f], FALLOC_FL_KEEP_SIZE, o, BLK))
			return perror("fallocate"), -1;
		return 0;
	default:
		return 0;
	}
}

/* the writer waits until the main thread is done with the last stop */
static void probe_wait(void)
{
	pthread_mutex_lock(&stall_mu);
	while (probing)
		pthread_cond_wait(&stall_cv, &stall_mu);
	pthread_mutex_unlock(&stall_mu);
}

static void probe_done(void)
{
	pthread_mutex_lock(&stall_mu);
	probing = 0;
	pthread_cond_broadcast(&stall_cv);
	pthread_mutex_unlock(&stall_mu);
}

/*
 * writes of every kind in turn, each from a missing page: it stops in its
 * copy, holding i_rwsem. Never block 0, which the main thread overwrites,
 * nor the last block, which it truncates. File 1 is setuid.
 */
static void *stall_writer(void *arg)
{
	unsigned int seed = 37, i = 0;

	(void)arg;
	while (!atomic_load(&stop) && !atomic_load(&bad)) {
		unsigned int kind = i % W_KINDS, f = kind == W_SETUID;
		unsigned int beside = (i / W_KINDS) % wstall_besides(kind);
		unsigned int b = 1 + rnd(&seed, NBLOCKS - 2);
		char *page = stall_page(i++);

		if (wstall_prepare(kind, f, b))
			break;
		atomic_store(&stall_file, f);
		atomic_store(&stall_block, b);
		atomic_store(&stall_kind, kind);
		atomic_store(&stall_beside, beside);
		if (pwrite(kind == W_PLAIN ? plain_fds[f] : fds[f], page, BLK,
			   (off_t)b * BLK) != BLK) {
			perror("stopped pwrite");
			break;
		}
		probe_wait();
		if (kind == W_EXTEND && write_blocks(f, b + 1, NBLOCKS, 1, 0))
			break;
	}
	if (!atomic_load(&stop))
		atomic_fetch_add(&bad, 1);
	return NULL;
}

/*
 * answers a fault once the change made for it is done, or after a time:
 * 200 ms, or 5 s where the change is expected to complete (an overwrite
 * beside a stopped overwrite). A read's page is answered with zeros, a
 * write's with the pattern of the block it writes.
 */
static void *stall_handler(void *arg)
{
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };
	char *pattern = aligned_alloc(BLK, BLK);
	struct uffd_msg msg;
	struct timespec until;

	(void)arg;
	while (!atomic_load(&stop) || stall_request) {
		unsigned int kind, beside;
		u64 page;
		int ret;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if (read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
		    msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		kind = atomic_load(&stall_kind);
		beside = atomic_load(&stall_beside);
		pthread_mutex_lock(&stall_mu);
		stall_request = 1;
		stall_done = 0;
		stall_seq++;
		pthread_cond_broadcast(&stall_cv);
		deadline(&until, write_stall && shared_overwrites &&
			 kind == W_OVERWRITE && beside <= BESIDE_READ ?
			 5000 : 200);
		while (!stall_done &&
		       !pthread_cond_timedwait(&stall_cv, &stall_mu, &until))
			;
		/*
		 * not counted: a stop the main thread never made its change
		 * for, the run having ended (while it makes one, stop is 0)
		 */
		if (stall_done || !atomic_load(&stop)) {
			stalls++;
			if (stall_done)
				changed_in_stall++;
			else
				waited_out++;
			if (write_stall) {
				wstalls[beside][kind]++;
				wbeside[beside][kind] += stall_done;
			}
		}
		stall_request = 0;
		pthread_mutex_unlock(&stall_mu);
		page = msg.arg.pagefault.address & ~(u64)(BLK - 1);
		if (write_stall) {
			struct uffdio_copy cp = {
				.dst = page, .src = (uintptr_t)pattern, .len = BLK,
			};

			fill(pattern, atomic_load(&stall_file),
			     atomic_load(&stall_block));
			ret = ioctl(uffd, UFFDIO_COPY, &cp);
		} else {
			struct uffdio_zeropage zp = {
				.range = { .start = page, .len = BLK },
			};

			ret = ioctl(uffd, UFFDIO_ZEROPAGE, &zp);
		}
		if (ret && errno != EEXIST) {
			perror("answering a userfault");
			atomic_fetch_add(&bad, 1);
		}
	}
	free(pattern);
	return NULL;
}

static int stall_setup(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		perror("userfaultfd");
		return -1;
	}
	stall_pages = mmap(NULL, (size_t)STALL_PAGES * BLK, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stall_pages == MAP_FAILED) {
		perror("mmap");
		return -1;
	}
	reg.range.start = (uintptr_t)stall_pages;
	reg.range.len = (size_t)STALL_PAGES * BLK;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		perror("UFFDIO_REGISTER");
		return -1;
	}
	return 0;
}

/*
 * waits up to 100 ms for an I/O to stop; 1 if none did, else 0 with the
 * stop's number in *seq
 */
static int stall_wait(unsigned long *seq)
{
	struct timespec until;
	int req;

	pthread_mutex_lock(&stall_mu);
	deadline(&until, 100);
	while (!stall_request &&
	       !pthread_cond_timedwait(&stall_cv, &stall_mu, &until))
		;
	req = stall_request;
	*seq = stall_seq;
	if (req)
		probing = 1;
	pthread_mutex_unlock(&stall_mu);
	return !req;
}

/* the change made for stop seq is done, if that I/O is still stopped */
static void stall_changed(unsigned long seq)
{
	pthread_mutex_lock(&stall_mu);
	if (stall_request && stall_seq == seq) {
		stall_done = 1;
		pthread_cond_broadcast(&stall_cv);
	}
	pthread_mutex_unlock(&stall_mu);
}

/*
 * one stopped read: truncate at its block, the scratch file takes the
 * freed blocks, the fault is answered, the file is written back
 */
static int stall_change(void)
{
	unsigned long seq;
	unsigned int at;

	if (stall_wait(&seq))
		return 1;
	at = atomic_load(&stall_block);
	if (ftruncate(fds[0], (off_t)at * BLK))
		return perror("ftruncate"), -1;
	if (scratch_cycle())
		return -1;
	stall_changed(seq);
	return write_blocks(0, at, NBLOCKS, 1, 1);
}

/* file f put back as it was before wstall_change() made its change */
static int wstall_restore(unsigned int f, unsigned int beside)
{
	switch (beside) {
	case BESIDE_TRUNCATE:
		return write_blocks(f, NBLOCKS - 1, NBLOCKS, 1, 0);
	case BESIDE_CHMOD:
		if (fchmod(fds[f], f == 1 ? 04644 : 0644))
			return perror("fchmod back"), -1;
		break;
	case BESIDE_SECURITY:
		if (fremovexattr(fds[f], "security.dax-race"))
			return perror("fremovexattr security.dax-race"), -1;
		break;
	case BESIDE_IMMUTABLE:
		return set_inode_flag(fds[f], FS_IMMUTABLE_FL, 0);
	default:
		return 0;
	}
	/* a write that strips nothing marks file 0 S_NOSEC again */
	return write_blocks(f, 0, 1, 1, 0);
}

/*
 * one stopped write: block 0 of its file overwritten or read, its last
 * block truncated, or the file made setuid meanwhile; then the file is
 * put back as it was, setuid (file 1) or not
 */
static int wstall_change(void)
{
	char buf[BLK];
	unsigned long seq;
	unsigned int f, beside;
	int ret = 0;

	if (stall_wait(&seq))
		return 1;
	f = atomic_load(&stall_file);
	beside = atomic_load(&stall_beside);
	switch (beside) {
	case BESIDE_READ:
		account(buf, pread(plain_fds[f], buf, BLK, 0), f, 0, 1);
		break;
	case BESIDE_TRUNCATE:
		if (ftruncate(fds[f], (off_t)(NBLOCKS - 1) * BLK))
			ret = (perror("ftruncate"), -1);
		break;
	case BESIDE_CHMOD:
		if (fchmod(fds[f], 04644))
			ret = (perror("fchmod"), -1);
		break;
	case BESIDE_SECURITY:
		if (fsetxattr(fds[f], "security.dax-race", "1", 1, 0))
			ret = (perror("fsetxattr security.dax-race"), -1);
		break;
	case BESIDE_IMMUTABLE:
		ret = set_inode_flag(fds[f], FS_IMMUTABLE_FL, 1);
		break;
	default:
		ret = write_blocks(f, 0, 1, 1, 0);
	}
	if (!ret) {
		stall_changed(seq);
		ret = wstall_restore(f, beside);
	}
	probe_done();
	return ret;
}

/* every block of file f as written: after the write-stall mode's changes */
static void verify_file(unsigned int f)
{
	char *buf = aligned_alloc(BLK, BLK);
	unsigned int b;

	for (b = 0; b < NBLOCKS; b++)
		account(buf, pread(fds[f], buf, BLK, (off_t)b * BLK), f, b, 1);
	free(buf);
}

/* what beside a stopped write of kind k did, against what it must */
static int wstall_verdict(unsigned int w, unsigned int k)
{
	int shared = shared_overwrites && k == W_OVERWRITE;

	if (!wstalls[w][k]) {
		fprintf(stderr, "no %s write was stopped for a %s\n",
			wkind_names[k], beside_names[w]);
		return 1;
	}
	/*
	 * nothing may shrink the file, give it privileges a write strips, or
	 * make it immutable under a write
	 */
	if (w >= BESIDE_TRUNCATE) {
		if (wbeside[w][k]) {
			fprintf(stderr, "a %s completed beside a stopped %s write\n",
				beside_names[w], wkind_names[k]);
			return 1;
		}
		return 0;
	}
	if (shared && wbeside[w][k] != wstalls[w][k]) {
		fprintf(stderr, "a %s waited for a stopped overwrite: %s\n",
			beside_names[w], unlocked_overwrites ?
			"not without i_rwsem" : "i_rwsem not shared");
		return 1;
	}
	/* an overwrite without i_rwsem need not wait for its holder */
	if (!shared && wbeside[w][k] &&
	    !(unlocked_overwrites && w == BESIDE_OVERWRITE)) {
		fprintf(stderr, "a %s ran beside a stopped %s write: %s\n",
			beside_names[w], wkind_names[k], w == BESIDE_READ ?
			"a plain read without i_rwsem" : "not exclusive");
		return 1;
	}
	return 0;
}

/* whether every stop that wstall_verdict() judges has been made once */
static int wstall_covered(void)
{
	unsigned int w, k;
	int all = 1;

	pthread_mutex_lock(&stall_mu);
	for (w = 0; w < BESIDES; w++)
		for (k = 0; k < W_KINDS; k++)
			all &= !wstall_pairs(w, k) || wstalls[w][k] != 0;
	pthread_mutex_unlock(&stall_mu);
	return all;
}

/*
 * write-stall's verdict: 0 when every kind of write held i_rwsem as it
 * must, a plain read waited for it as for any holder of i_rwsem, and no
 * truncate, chmod, security xattr or chattr +i completed beside a stopped
 * overwrite
 */
static int wstall_report(void)
{
	unsigned int k, w;
	int ret = 0;

	for (w = 0; w < BESIDES; w++) {
		printf(" %s beside a stopped write:", beside_names[w]);
		for (k = 0; k < W_KINDS; k++)
			if (wstall_pairs(w, k))
				printf(" %s %lu/%lu", wkind_names[k],
				       wbeside[w][k], wstalls[w][k]);
		printf(w + 1 < BESIDES ? ";" : "\n");
	}
	for (w = 0; w < BESIDES; w++)
		for (k = 0; k < W_KINDS; k++)
			if (wstall_pairs(w, k))
				ret |= wstall_verdict(w, k);
	return ret;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = {
		"", "dax-flag", "es-merge", "stall", "write-stall",
		"write-stall-exclusive", "write-stall-unlocked",
	};
	const char *mode = argc == 4 ? argv[3] : "";
	pthread_t th[NREADERS + 2];
	unsigned int seed = 12345, i, f, nth = 0, m;
	int ret, failed = 0, stall, es_merge;
	char path[4096];
	time_t secs, end, cap;

	for (m = 0; m < ARRAY_SIZE(modes); m++)
		if (!strcmp(mode, modes[m]))
			break;
	if (argc < 3 || argc > 4 || atoi(argv[2]) <= 0 ||
	    m == ARRAY_SIZE(modes)) {
		fprintf(stderr, "usage: dax-race DIR SECONDS [MODE]\n");
		fputs("modes: dax-flag es-merge stall write-stall\n"
		      "       write-stall-exclusive write-stall-unlocked\n", stderr);
		return 2;
	}
	toggle_dax = !strcmp(mode, "dax-flag");
	es_merge = !strcmp(mode, "es-merge");
	write_stall = !strncmp(mode, "write-stall", 11);
	unlocked_overwrites = !strcmp(mode, "write-stall-unlocked");
	shared_overwrites = !strcmp(mode, "write-stall") || unlocked_overwrites;
	stall = !strcmp(mode, "stall") || write_stall;
	for (f = 0; f <= NFILES; f++) {
		snprintf(path, sizeof(path), "%s/race.%u", argv[1], f);
		fds[f] = open(path, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0644);
		if (fds[f] < 0 || (toggle_dax && set_dax_flag(fds[f], 1))) {
			perror(path);
			return 1;
		}
		if (f == SCRATCH)
			continue;
		pthread_rwlock_init(&shift_lock[f], NULL);
		/* interleaved: each file a tree of many small extents */
		if (write_blocks(f, 0, NBLOCKS, 2, 0) ||
		    write_blocks(f, 1, NBLOCKS, 2, 0))
			return 1;
	}
	prepare_buf = aligned_alloc(BLK, BLK);
	if (!prepare_buf) {
		perror("aligned_alloc");
		return 1;
	}
	if (write_stall && fchmod(fds[1], 04644)) {
		perror("fchmod");
		return 1;
	}
	for (f = 0; write_stall && f < ARRAY_SIZE(plain_fds); f++) {
		snprintf(path, sizeof(path), "%s/race.%u", argv[1], f);
		plain_fds[f] = open(path, O_RDWR);
		if (plain_fds[f] < 0) {
			perror(path);
			return 1;
		}
	}
	if (stall) {
		if ((!write_stall && fill_free(argv[1])) || stall_setup())
			return 1;
		pthread_create(&th[nth++], NULL,
			       write_stall ? stall_writer : stall_reader, NULL);
		pthread_create(&th[nth++], NULL, stall_handler, NULL);
	} else {
		if (es_merge) {
			/* one reader and the writer: one vCPU each */
			pthread_create(&th[nth++], NULL, merge_reader, NULL);
		} else {
			for (i = 0; i < NREADERS; i++)
				pthread_create(&th[nth++], NULL, reader,
					       (void *)(uintptr_t)i);
			pthread_create(&th[nth++], NULL, overwriter, NULL);
			pthread_create(&th[nth++], NULL, shrinker, NULL);
		}
	}
	secs = atoi(argv[2]);
	end = time(NULL) + secs;
	cap = end + WSTALL_STRETCH * secs;
	/*
	 * The random mode runs its whole cycle of changes at least once, and
	 * the write-stall mode stops a write of every kind beside every change
	 * it judges at least once (up to WSTALL_STRETCH more times the time),
	 * even past the end: on a slow kernel (KASAN with lockdep) 15 s may
	 * hold neither, and a change that never ran would fail the run.
	 */
	for (i = 0; (time(NULL) < end || (!stall && !es_merge && i < NOPS) ||
		     (write_stall && time(NULL) < cap && !wstall_covered())) &&
	     !atomic_load(&bad); i++) {
		unsigned int op = es_merge ? OP_DOWN : i % NOPS;

		if (write_stall)
			ret = wstall_change();
		else if (es_merge)
			ret = rewrite_down(0);
		else
			ret = stall ? stall_change() : mutate(&seed, op);
		if (ret < 0) {
			failed = 1;
			break;
		}
		if (ret == 0)
			ops[stall ? 0 : op]++;
	}
	atomic_store(&stop, 1);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	if (write_stall && !failed && !atomic_load(&bad)) {
		verify_file(0);
		verify_file(1);
	}
	printf("reads %lu (offset checked %lu) bad %lu;",
	       atomic_load(&reads), atomic_load(&strict_reads), atomic_load(&bad));
	if (write_stall)
		return wstall_report() || failed || atomic_load(&bad);
	if (stall) {
		printf(" stalled reads %lu, truncated under a stalled read %lu, drained %lu\n",
		       stalls, changed_in_stall, waited_out);
		if (changed_in_stall)
			fprintf(stderr,
				"a truncate completed under a read stopped after mapping\n");
		if (failed || atomic_load(&bad) || changed_in_stall)
			return 1;
		if (!waited_out) {
			fprintf(stderr, "no read was stopped\n");
			return 1;
		}
		return 0;
	}
	printf(" overwrites %lu shrinks %lu;", atomic_load(&overwrites),
	       atomic_load(&shrinks));
	for (i = 0; i < NOPS; i++)
		printf(" %s %lu", op_names[i], ops[i]);
	printf("; extents after a rewrite down %lu\n", down_extents);
	if (failed || atomic_load(&bad))
		return 1;
	for (i = 0; i < NOPS; i++)
		if (!ops[i] && (es_merge ? i == OP_DOWN : i != 3 || toggle_dax)) {
			fprintf(stderr, "no %s ran\n", op_names[i]);
			return 1;
		}
	if (!es_merge && (!atomic_load(&overwrites) || !atomic_load(&shrinks))) {
		fprintf(stderr, "no overwrite or no shrink ran\n");
		return 1;
	}
	/* otherwise no entry grew at its front: the mode tested nothing */
	if (es_merge && down_extents > NBLOCKS / 8) {
		fprintf(stderr, "rewritten downwards: %lu extents, not allocated downwards\n",
			down_extents);
		return 1;
	}
	return 0;
}
