// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the coherence model (model.h, model.c) on synthetic access
 * streams, deterministic, on the host; KTAP on stdout.
 *   gcc -O2 -pthread test-model.c model.c && ./a.out
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

static int n, failed;

static bool has(const char *buf, const char *text)
{
	return strstr(buf, text);
}

static void result(int ok, const char *desc)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++n, desc);
	failed += !ok;
}

/* transfers of a stream of (cpu, store) accesses to one line */
static unsigned int stream(const char *s, u32 epoch, u64 *state,
			   unsigned int *w, unsigned int *r)
{
	/* s: pairs "0w", "1r", ... */
	*w = *r = 0;
	for (; s[0] && s[1]; s += 2) {
		enum coh_xfer x = coh_step(*state, epoch, s[0] - '0', s[1] == 'w', state);

		*w += x == COH_XFER_WRITE;
		*r += x == COH_XFER_READ;
	}
	return *w + *r;
}

static void step_cases(void)
{
	u64 st = 0;
	unsigned int w, r;

	stream("0w1w0w1w0w1w", 1, &st, &w, &r);
	result(w == 5 && r == 0, "two CPUs storing in turn: a write transfer but for the first");
	st = 0;
	stream("0w0w0w0r0w", 1, &st, &w, &r);
	result(w + r == 0, "one CPU alone: no transfer");
	st = 0;
	stream("0w1r1r1r0r", 1, &st, &w, &r);
	result(w == 0 && r == 1, "a store read by another CPU: one read transfer, then shared");
	stream("1r0w", 1, &st, &w, &r);
	result(w == 1 && r == 0, "a store to a shared line: one write transfer");
	st = 0;
	stream("0r1r0r1r", 1, &st, &w, &r);
	result(w + r == 0, "reads of a clean line by every CPU: no transfer");
	st = 0;
	stream("0w", 1, &st, &w, &r);
	stream("1r1w", 2, &st, &w, &r);
	result(w + r == 0, "a new window forgets the last one's copies");
	result(COH_HOLDERS(st) == 2 && COH_OWNER(st) == 1 && COH_EPOCH(st) == 2,
	       "the state word holds the holders, the owner and the window");
}

static void table_cases(void)
{
	struct coh c;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int i;

	if (coh_init(&c, 12, 8, 1ULL << 32)) {
		result(0, "tables allocated");
		return;
	}
	/* closed: nothing counts */
	coh_access(&c, 0, 0x1000, 0xffffffff81000000ULL, true);
	coh_access(&c, 1, 0x1000, 0xffffffff81000000ULL, true);
	result(__atomic_load_n(&c.accesses, __ATOMIC_RELAXED) == 0,
	       "no window open: no access counted");

	coh_open(&c, true);
	for (i = 0; i < 10; i++) {
		coh_access(&c, i & 1, 0x1008, 0xffffffff81000010ULL, true);	/* RAM, kernel */
		coh_access(&c, i & 1, 0x1000, 0x401000, true);			/* user: skipped */
		coh_access(&c, i & 1, (1ULL << 32) + 64, 0xffffffff81000020ULL, i & 1);
	}
	coh_access(&c, 0, 0x2000 + 64 * (i & 1), 0xffffffff81000030ULL, true);
	f = open_memstream(&buf, &len);
	coh_close(&c, f, 7);
	fclose(f);
	result(has(buf, "window 7 kernel\n") &&
	       has(buf, "totals dram_w 9 dram_r 0 pmem_w 5 pmem_r 4 accesses 21 dropped 0\n"),
	       "kernel-only window: user accesses left out, RAM and NVDIMM lines counted apart");
	result(has(buf, "site 0xffffffff81000010 9 0\n") &&
	       !has(buf, "site 0xffffffff81000020") && !has(buf, "site 0xffffffff81000030"),
	       "each instruction's transfers on RAM lines, none for instructions without");
	result(has(buf, "line 0x1000 9 0 0xffffffff81000010\n"
		   "line 0x100000040 5 4 0xffffffff81000020\nend 7\n"),
	       "the top lines, most transfers first, with their last instruction");
	free(buf);
	buf = NULL;

	coh_open(&c, false);
	coh_access(&c, 1, 0x1008, 0x401000, true);
	coh_access(&c, 0, 0x1008, 0x401000, false);
	f = open_memstream(&buf, &len);
	coh_close(&c, f, 8);
	fclose(f);
	result(has(buf, "window 8 all\n"
		   "totals dram_w 0 dram_r 1 pmem_w 0 pmem_r 0 accesses 2 dropped 0\n"
		   "site 0x401000 0 1\n"),
	       "a window counting every access starts from clean lines and counters");
	free(buf);
	coh_destroy(&c);
}

struct worker {
	struct coh *c;
	unsigned int cpu;
};

static void *private_lines(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < 200000; i++)
		coh_access(w->c, w->cpu, 0x10000 + 4096 * w->cpu + 64 * (i % 32),
			   0xffffffff81000000ULL, i & 1);
	return NULL;
}

static void thread_cases(void)
{
	struct worker w[2];
	pthread_t t[2];
	struct coh c;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (coh_init(&c, 12, 8, 1ULL << 32)) {
		result(0, "tables allocated");
		return;
	}
	coh_open(&c, false);
	for (int i = 0; i < 2; i++) {
		w[i] = (struct worker){ &c, i };
		pthread_create(&t[i], NULL, private_lines, &w[i]);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	f = open_memstream(&buf, &len);
	coh_close(&c, f, 0);
	fclose(f);
	result(has(buf, "totals dram_w 0 dram_r 0 pmem_w 0 pmem_r 0 accesses 400000 dropped 0\n"),
	       "two threads at once on private lines: every access counted, no transfer");
	free(buf);
	coh_destroy(&c);
}

int main(void)
{
	printf("KTAP version 1\n1..13\n");
	step_cases();
	table_cases();
	thread_cases();
	return failed != 0;
}
