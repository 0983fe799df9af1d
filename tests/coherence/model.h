/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cache-coherence model for counting cache-line transfers between the
 * vCPUs of an emulated machine (tests/coherence/README.md).
 *
 * Per 64-byte guest-physical line the model keeps the set of vCPUs that
 * hold a copy and, when one of them has written it since, that vCPU (the
 * line is then modified there).  An access is:
 *
 *   a write transfer  a store by a vCPU while another vCPU holds a copy
 *                     (the copies elsewhere must be invalidated);
 *   a read transfer   a load by a vCPU without a copy while another vCPU
 *                     holds the line modified (perf c2c's HITM);
 *   nothing           anything else (a hit, or a line no other vCPU holds).
 *
 * There is no capacity: a copy stays until another vCPU's store takes it
 * away.  Every line is forgotten when a window opens, as if the caches had
 * been written back, so only sharing inside the window counts.
 */
#ifndef COHERENCE_MODEL_H
#define COHERENCE_MODEL_H

#include <stdbool.h>
#include <stdio.h>

/* the kernel's names; every shared field is accessed with __atomic builtins */
typedef unsigned long long u64;
typedef unsigned int u32;

#define COH_MAX_CPUS	8
#define COH_LINE_SHIFT	6
#define COH_TOP_LINES	32

enum coh_xfer { COH_XFER_NONE, COH_XFER_WRITE, COH_XFER_READ };
/* where a line lives: ordinary RAM or the emulated NVDIMM */
enum coh_class { COH_DRAM, COH_PMEM, COH_NR_CLASSES };

/*
 * The state of one line in one word: bits 0-7 the vCPUs with a copy, bits
 * 8-11 the vCPU holding it modified plus one (0: clean), bits 32-63 the
 * window it belongs to (a line of an older window is unknown).
 */
#define COH_HOLDERS(s)	((unsigned int)((s) & 0xff))
#define COH_OWNER(s)	((int)(((s) >> 8) & 0xf) - 1)
#define COH_EPOCH(s)	((u32)((s) >> 32))
#define COH_STATE(holders, owner, epoch) \
	((u64)(holders) | ((u64)((owner) + 1) << 8) | ((u64)(epoch) << 32))

/**
 * coh_step() - one access to one line
 * @old: the line's state word
 * @epoch: the current window
 * @cpu: the accessing vCPU, below COH_MAX_CPUS
 * @store: a store (or the store half of an atomic read-modify-write)
 * @new: the line's next state word
 *
 * Return: the transfer the access causes.
 */
static inline enum coh_xfer coh_step(u64 old, u32 epoch,
				     unsigned int cpu, bool store,
				     u64 *new)
{
	unsigned int holders = 0, me = 1u << cpu;
	int owner = -1;

	if (COH_EPOCH(old) == epoch) {
		holders = COH_HOLDERS(old);
		owner = COH_OWNER(old);
	}
	if (store) {
		*new = COH_STATE(me, (int)cpu, epoch);
		return holders & ~me ? COH_XFER_WRITE : COH_XFER_NONE;
	}
	if (holders & me) {
		*new = COH_STATE(holders, owner, epoch);
		return COH_XFER_NONE;
	}
	/* a modified copy elsewhere is written back and shared */
	*new = COH_STATE(holders | me, -1, epoch);
	return owner >= 0 ? COH_XFER_READ : COH_XFER_NONE;
}

struct coh_line {
	u64 key;		/* line number + 1; 0: free */
	u64 state;
	u32 xfers[2];	/* write, read transfers in the window */
	u64 site;		/* the last instruction that caused one */
};

struct coh_site {
	u64 key;		/* instruction address; 0: free */
	u32 xfers[2];
};

struct coh {
	struct coh_line *lines;
	u64 line_mask;
	struct coh_site *sites;
	u64 site_mask;
	u64 pmem_start;		/* lines from here on are COH_PMEM */
	u32 epoch;
	bool open;
	bool kernel_only;
	u64 accesses;
	u64 dropped;	/* accesses that found no free slot */
	u64 xfers[COH_NR_CLASSES][2];
};

int coh_init(struct coh *c, unsigned int line_bits, unsigned int site_bits,
	     u64 pmem_start);
void coh_destroy(struct coh *c);
void coh_open(struct coh *c, bool kernel_only);
void coh_access(struct coh *c, unsigned int cpu, u64 paddr, u64 site,
		bool store);
void coh_close(struct coh *c, FILE *out, unsigned int window);

#endif
