// SPDX-License-Identifier: GPL-2.0
/*
 * The line and instruction tables of the coherence model (model.h), safe
 * to call from every vCPU thread at once: open addressing with the key
 * claimed by compare-and-swap, the state word updated by compare-and-swap,
 * the counters by atomic adds.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define COH_PROBES 64

static u64 coh_hash(u64 k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

int coh_init(struct coh *c, unsigned int line_bits, unsigned int site_bits,
	     u64 pmem_start)
{
	memset(c, 0, sizeof(*c));
	/* coh_find() takes an entry's first field for its key */
	if (offsetof(struct coh_line, key) || offsetof(struct coh_site, key))
		return -1;
	c->lines = calloc(1ULL << line_bits, sizeof(*c->lines));
	c->sites = calloc(1ULL << site_bits, sizeof(*c->sites));
	if (!c->lines || !c->sites) {
		coh_destroy(c);
		return -1;
	}
	c->line_mask = (1ULL << line_bits) - 1;
	c->site_mask = (1ULL << site_bits) - 1;
	c->pmem_start = pmem_start;
	return 0;
}

void coh_destroy(struct coh *c)
{
	free(c->lines);
	free(c->sites);
	c->lines = NULL;
	c->sites = NULL;
}

/*
 * The slot of key k (nonzero) in a table of entries of @size bytes that
 * start with their u64 key, claimed if k is new; NULL if
 * COH_PROBES slots from k's hash are all taken by other keys.
 */
static void *coh_find(void *table, size_t size, u64 mask, u64 k)
{
	u64 i = coh_hash(k);

	for (int p = 0; p < COH_PROBES; p++, i++) {
		u64 *key = (u64 *)((char *)table + (i & mask) * size);
		u64 cur = __atomic_load_n(key, __ATOMIC_ACQUIRE);

		if (cur == 0 && __atomic_compare_exchange_n(key, &cur, k, false,
							    __ATOMIC_ACQ_REL,
							    __ATOMIC_ACQUIRE))
			return key;
		if (cur == k)
			return key;
	}
	return NULL;
}

/* Start a window: every line and instruction of the last one forgotten. */
void coh_open(struct coh *c, bool kernel_only)
{
	memset(c->lines, 0, (c->line_mask + 1) * sizeof(*c->lines));
	memset(c->sites, 0, (c->site_mask + 1) * sizeof(*c->sites));
	c->kernel_only = kernel_only;
	__atomic_fetch_add(&c->epoch, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&c->open, true, __ATOMIC_RELEASE);
}

void coh_access(struct coh *c, unsigned int cpu, u64 paddr, u64 site,
		bool store)
{
	u64 lineno = paddr >> COH_LINE_SHIFT, old, new;
	u32 epoch = __atomic_load_n(&c->epoch, __ATOMIC_RELAXED);
	struct coh_line *l;
	struct coh_site *s;
	enum coh_xfer x;

	if (!__atomic_load_n(&c->open, __ATOMIC_RELAXED) ||
	    cpu >= COH_MAX_CPUS)
		return;
	/* kernel text is in the upper half of the address space */
	if (c->kernel_only && !(site >> 63))
		return;
	__atomic_fetch_add(&c->accesses, 1, __ATOMIC_RELAXED);
	l = coh_find(c->lines, sizeof(*c->lines), c->line_mask, lineno + 1);
	if (!l) {
		__atomic_fetch_add(&c->dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	old = __atomic_load_n(&l->state, __ATOMIC_RELAXED);
	do {
		x = coh_step(old, epoch, cpu, store, &new);
		if (new == old)
			break;
	} while (!__atomic_compare_exchange_n(&l->state, &old, new, true,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	if (x == COH_XFER_NONE)
		return;

	__atomic_fetch_add(&c->xfers[paddr >= c->pmem_start][x - 1], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&l->xfers[x - 1], 1, __ATOMIC_RELAXED);
	__atomic_store_n(&l->site, site, __ATOMIC_RELAXED);
	if (paddr >= c->pmem_start || !site)
		return;
	s = coh_find(c->sites, sizeof(*c->sites), c->site_mask, site);
	if (s)
		__atomic_fetch_add(&s->xfers[x - 1], 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&c->dropped, 1, __ATOMIC_RELAXED);
}

/* a counter's value, leaving it zero */
static unsigned long long take(u64 *counter)
{
	return __atomic_exchange_n(counter, 0, __ATOMIC_RELAXED);
}

struct coh_top {
	u64 line, site;
	u32 w, r;
};

/*
 * coh_close() - end the window and write its record to @out:
 *
 *   window N kernel|all
 *   totals dram_w W dram_r R pmem_w W pmem_r R accesses A dropped D
 *   site ADDR W R          each instruction that caused a transfer on a
 *                          RAM line, in table order
 *   line PADDR W R ADDR    the COH_TOP_LINES lines with the most transfers,
 *                          most first, with the last instruction that
 *                          caused one
 *   end N
 *
 * and clear the counters for the next window.  A vCPU still inside
 * coh_access() may add a last count while this runs.
 */
void coh_close(struct coh *c, FILE *out, unsigned int window)
{
	struct coh_top top[COH_TOP_LINES] = { 0 };
	u64 i;
	int n = 0;

	__atomic_store_n(&c->open, false, __ATOMIC_RELEASE);
	fprintf(out, "window %u %s\n", window, c->kernel_only ? "kernel" : "all");
	fprintf(out, "totals dram_w %llu dram_r %llu", take(&c->xfers[COH_DRAM][0]),
		take(&c->xfers[COH_DRAM][1]));
	fprintf(out, " pmem_w %llu pmem_r %llu", take(&c->xfers[COH_PMEM][0]),
		take(&c->xfers[COH_PMEM][1]));
	fprintf(out, " accesses %llu dropped %llu\n", take(&c->accesses),
		take(&c->dropped));
	for (i = 0; i <= c->site_mask; i++) {
		struct coh_site *s = &c->sites[i];
		u64 key = __atomic_load_n(&s->key, __ATOMIC_RELAXED);
		u32 w, r;

		if (!key)
			continue;
		w = __atomic_exchange_n(&s->xfers[0], 0, __ATOMIC_RELAXED);
		r = __atomic_exchange_n(&s->xfers[1], 0, __ATOMIC_RELAXED);
		if (w || r)
			fprintf(out, "site 0x%llx %u %u\n", (unsigned long long)key, w, r);
	}
	for (i = 0; i <= c->line_mask; i++) {
		struct coh_line *l = &c->lines[i];
		struct coh_top t;
		int j;

		if (!__atomic_load_n(&l->key, __ATOMIC_RELAXED))
			continue;
		t.w = __atomic_exchange_n(&l->xfers[0], 0, __ATOMIC_RELAXED);
		t.r = __atomic_exchange_n(&l->xfers[1], 0, __ATOMIC_RELAXED);
		if (!t.w && !t.r)
			continue;
		t.line = (__atomic_load_n(&l->key, __ATOMIC_RELAXED) - 1) << COH_LINE_SHIFT;
		t.site = __atomic_load_n(&l->site, __ATOMIC_RELAXED);
		/* insertion into the sorted top list */
		for (j = n; j > 0 && top[j - 1].w + top[j - 1].r < t.w + t.r; j--)
			if (j < COH_TOP_LINES)
				top[j] = top[j - 1];
		if (j < COH_TOP_LINES) {
			top[j] = t;
			if (n < COH_TOP_LINES)
				n++;
		}
	}
	for (int j = 0; j < n; j++)
		fprintf(out, "line 0x%llx %u %u 0x%llx\n",
			(unsigned long long)top[j].line, top[j].w, top[j].r,
			(unsigned long long)top[j].site);
	fprintf(out, "end %u\n", window);
	fflush(out);
}
