// SPDX-License-Identifier: GPL-2.0
/*
 * xattr-load: an xattr-heavy load for the ext4 xattr block cache.
 *
 *   xattr-load -d DIR -f FILES -s            create FILES files in DIR, each
 *                                            with the same POSIX ACL and user
 *                                            xattrs (so they share one block)
 *   xattr-load -d DIR -f FILES -j THREADS [-t SECONDS | -n OPS] [-w PCT] [-p]
 *              [-l]                          THREADS threads pick random files
 *                                            and getxattr/listxattr them, and
 *                                            setxattr with PCT% probability;
 *                                            -p pins thread i to the i-th
 *                                            online CPU (modulo their count);
 *                                            -l: listxattr only (on ext4, one
 *                                            block cache lookup per call)
 *
 * A set writes one of two values of user.flip, so the files keep sharing a
 * few blocks and every set looks a block up in the cache. The run prints one
 * JSON line: {"threads":..,"seconds":..,"ops":..,"ops_per_s":..,...}.
 * Exit status: 0, 1 when some call failed, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_THREADS 1024
#define PATH_LEN 4096

static const char *dir;
static long nfiles = 2000;
static long nthreads = 1;
static double seconds;
static long ops_per_thread;
static long write_pct = 1;
static int pin;
static int list_only;
static int stop;	/* read and written with __atomic builtins */

struct worker {
	pthread_t tid;
	long id;
	u64 seed;
	long ops, gets, lists, sets, errors;
	int first_errno;
	/* keep the counters of two threads off one cache line */
	char pad[64];
};

/* POSIX ACL in the kernel's xattr format (posix_acl_xattr_header/entry). */
static const struct {
	u16 tag, perm;
	u32 id;
} acl_entries[] = {
	{ 0x01, 6, 0xffffffffu },	/* ACL_USER_OBJ  rw- */
	{ 0x02, 6, 1000 },		/* ACL_USER 1000 rw- */
	{ 0x02, 4, 1001 },		/* ACL_USER 1001 r-- */
	{ 0x04, 4, 0xffffffffu },	/* ACL_GROUP_OBJ r-- */
	{ 0x08, 4, 1000 },		/* ACL_GROUP 1000 r-- */
	{ 0x10, 6, 0xffffffffu },	/* ACL_MASK rw- */
	{ 0x20, 4, 0xffffffffu },	/* ACL_OTHER r-- */
};

static unsigned char acl[4 + sizeof(acl_entries)];
static size_t acl_len;

static void put_le(unsigned char *p, u32 v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		p[i] = (v >> (8 * i)) & 0xff;
}

static void build_acl(void)
{
	size_t i, n = ARRAY_SIZE(acl_entries);
	unsigned char *p = acl;

	put_le(p, 2, 4);	/* POSIX_ACL_XATTR_VERSION */
	p += 4;
	for (i = 0; i < n; i++) {
		put_le(p, acl_entries[i].tag, 2);
		put_le(p + 2, acl_entries[i].perm, 2);
		put_le(p + 4, acl_entries[i].id, 4);
		p += 8;
	}
	acl_len = p - acl;
}

static const char *const user_names[] = {
	"user.owner", "user.project", "user.checksum", "user.comment",
};

static const char *const user_values[] = {
	"ext4x-compare",
	"xattr block cache load",
	"0123456789abcdef0123456789abcdef",
	"the same value on every file, so the files share one xattr block",
};

static const char *const flip_values[] = { "alpha", "omega" };

#define NUSER ARRAY_SIZE(user_names)

static void file_path(char *buf, long i)
{
	snprintf(buf, PATH_LEN, "%s/f%06ld", dir, i);
}

static int setup(void)
{
	char path[PATH_LEN];
	size_t k;
	long i;
	int fd;

	for (i = 0; i < nfiles; i++) {
		file_path(path, i);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0) {
			fprintf(stderr, "xattr-load: %s: %s\n", path, strerror(errno));
			return 1;
		}
		close(fd);
		if (setxattr(path, "system.posix_acl_access", acl, acl_len, 0)) {
			fprintf(stderr, "xattr-load: setxattr ACL %s: %s\n", path,
				strerror(errno));
			return 1;
		}
		for (k = 0; k < NUSER; k++) {
			if (setxattr(path, user_names[k], user_values[k],
				     strlen(user_values[k]), 0)) {
				fprintf(stderr, "xattr-load: setxattr %s %s: %s\n",
					path, user_names[k], strerror(errno));
				return 1;
			}
		}
		if (setxattr(path, "user.flip", flip_values[0],
			     strlen(flip_values[0]), 0)) {
			fprintf(stderr, "xattr-load: setxattr %s user.flip: %s\n",
				path, strerror(errno));
			return 1;
		}
	}
	return 0;
}

static u64 next_rand(u64 *s)
{
	/* xorshift64 */
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	char path[PATH_LEN], buf[4096];
	u64 r;
	ssize_t ret;
	long n;

	for (n = 0; ops_per_thread ? n < ops_per_thread :
	     !__atomic_load_n(&stop, __ATOMIC_RELAXED); n++) {
		r = next_rand(&w->seed);
		file_path(path, (long)(r % (u64)nfiles));
		r >>= 24;
		if ((long)(r % 100) < write_pct) {
			const char *v = flip_values[(r >> 8) & 1];

			ret = setxattr(path, "user.flip", v, strlen(v), 0);
			w->sets++;
		} else {
			switch (list_only ? 0 : (r >> 8) % 4) {
			case 0:
				ret = listxattr(path, buf, sizeof(buf));
				w->lists++;
				break;
			case 1:
				ret = getxattr(path, "system.posix_acl_access",
					       buf, sizeof(buf));
				w->gets++;
				break;
			default:
				ret = getxattr(path, user_names[(r >> 12) % NUSER],
					       buf, sizeof(buf));
				w->gets++;
				break;
			}
		}
		if (ret < 0) {
			if (!w->errors)
				w->first_errno = errno;
			w->errors++;
		}
		w->ops++;
	}
	return NULL;
}

/* Binds @tid to the (@i modulo their count)-th CPU this process may run on */
static int pin_thread(pthread_t tid, long i)
{
	cpu_set_t allowed, one;
	int cpu, n = 0, want;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return -1;
	want = (int)(i % CPU_COUNT(&allowed));
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed) || n++ != want)
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		return pthread_setaffinity_np(tid, sizeof(one), &one) ? -1 : 0;
	}
	return -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run(void)
{
	static struct worker w[MAX_THREADS];
	long ops = 0, gets = 0, lists = 0, sets = 0, errors = 0, i;
	int first_errno = 0;
	double t0, t1;
	struct timespec ts;

	t0 = now();
	for (i = 0; i < nthreads; i++) {
		w[i].id = i;
		w[i].seed = 0x9e3779b97f4a7c15ull * (u64)(i + 1);
		if (pthread_create(&w[i].tid, NULL, work, &w[i])) {
			fprintf(stderr, "xattr-load: pthread_create failed\n");
			exit(1);
		}
		if (pin && pin_thread(w[i].tid, i)) {
			fprintf(stderr, "xattr-load: cannot pin thread %ld\n", i);
			exit(1);
		}
	}
	if (!ops_per_thread) {
		ts.tv_sec = (time_t)seconds;
		ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(w[i].tid, NULL);
		ops += w[i].ops;
		gets += w[i].gets;
		lists += w[i].lists;
		sets += w[i].sets;
		if (w[i].errors && !first_errno)
			first_errno = w[i].first_errno;
		errors += w[i].errors;
	}
	t1 = now();
	printf("{\"threads\":%ld,\"files\":%ld,\"seconds\":%.3f,\"ops\":%ld,",
	       nthreads, nfiles, t1 - t0, ops);
	printf("\"ops_per_s\":%.1f,\"get\":%ld,\"list\":%ld,\"set\":%ld,",
	       ops / (t1 - t0), gets, lists, sets);
	printf("\"errors\":%ld,\"first_error\":\"%s\"}\n", errors,
	       errors ? strerror(first_errno) : "");
	return errors ? 1 : 0;
}

static void bad_usage(void)
{
	static const char *const lines[] = {
		"-d DIR [-f FILES] -s",
		"-d DIR [-f FILES] [-j THREADS] [-t SECONDS | -n OPS] [-w PCT] [-p] [-l]",
	};

	fprintf(stderr, "usage: xattr-load %s\n       xattr-load %s\n",
		lines[0], lines[1]);
	exit(2);
}

int main(int argc, char **argv)
{
	int c, do_setup = 0;

	while ((c = getopt(argc, argv, "d:f:j:t:n:w:spl")) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'f':
			nfiles = atol(optarg);
			break;
		case 'j':
			nthreads = atol(optarg);
			break;
		case 't':
			seconds = atof(optarg);
			break;
		case 'n':
			ops_per_thread = atol(optarg);
			break;
		case 'w':
			write_pct = atol(optarg);
			break;
		case 's':
			do_setup = 1;
			break;
		case 'p':
			pin = 1;
			break;
		case 'l':
			list_only = 1;
			break;
		default:
			bad_usage();
		}
	}
	if (!dir || nfiles < 1 || nthreads < 1 || nthreads > MAX_THREADS ||
	    write_pct < 0 || write_pct > 100 || optind != argc)
		bad_usage();
	if (strlen(dir) > PATH_LEN - 16)
		bad_usage();
	build_acl();
	if (do_setup)
		return setup();
	if (seconds <= 0 && ops_per_thread <= 0)
		seconds = 10;
	return run();
}
