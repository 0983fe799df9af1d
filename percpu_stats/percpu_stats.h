/* SPDX-License-Identifier: GPL-2.0 */
/*
 * percpu_stats - per-CPU 64-bit event counters
 *
 * An update is one this_cpu_add() on the updating CPU's own row: no lock
 * and no shared cache line (on x86 a single instruction; elsewhere the
 * arch's this_cpu_add, which may disable preemption or interrupts around
 * it). A sum walks every possible CPU, so it is for readers that run
 * rarely (debugfs, shrinker counts), not for a hot path.
 *
 * Counters wrap modulo 2^64, so a gauge may go up on one CPU and down on
 * another; percpu_stats_sum_positive() clamps a negative total to zero.
 *
 * A reset writes no per-CPU counter: it records the current totals as a
 * base under a seqcount and readers subtract it. Each update lands in one
 * per-CPU word the reset reads once, so it is counted before the reset or
 * after it, never lost or twice.
 *
 * Updates may run in any context; sum and reset take a seqcount and a
 * spinlock, so not from hard interrupts or NMI.
 */
#ifndef _PERCPU_STATS_H
#define _PERCPU_STATS_H

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/gfp.h>
#include <linux/percpu.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/* Largest number of counters one object may hold: 4 KiB of each CPU. */
#define PERCPU_STATS_MAX	512

/**
 * struct percpu_stats - a set of per-CPU 64-bit statistics counters
 * @counters: per-CPU rows of @nstats counters each
 * @base: raw totals recorded by the last reset, one per counter
 * @nstats: number of counters; valid indices are 0 .. @nstats - 1
 * @reset_lock: serialises resets (the writer side of @reset_seq)
 * @reset_seq: lets readers see @base and the per-CPU rows consistently
 *
 * Treat the members as private to the percpu_stats library.
 */
struct percpu_stats {
	u64 __percpu *counters;
	u64 *base;
	unsigned int nstats;
	spinlock_t reset_lock;		/* serialises resets */
	seqcount_spinlock_t reset_seq;
};

int percpu_stats_init(struct percpu_stats *pcs, unsigned int nstats,
		      gfp_t gfp);
void percpu_stats_destroy(struct percpu_stats *pcs);
u64 percpu_stats_sum(struct percpu_stats *pcs, unsigned int idx);
u64 percpu_stats_sum_positive(struct percpu_stats *pcs, unsigned int idx);
int percpu_stats_sum_all(struct percpu_stats *pcs, u64 *sums,
			 unsigned int nsums);
void percpu_stats_reset(struct percpu_stats *pcs);

#if BITS_PER_LONG == 32
void __percpu_stats_add_slow(struct percpu_stats *pcs, unsigned int idx,
			     s64 delta);
#endif

/**
 * percpu_stats_add - add a signed amount to one counter
 * @pcs: the counters, set up by percpu_stats_init()
 * @idx: which counter, below the @nstats given at init time
 * @delta: amount to add; a negative amount subtracts
 *
 * Any context. An index out of range warns once per call site and
 * changes nothing.
 */
static __always_inline void percpu_stats_add(struct percpu_stats *pcs,
					     unsigned int idx, s64 delta)
{
	if (WARN_ON_ONCE(idx >= pcs->nstats))
		return;
#if BITS_PER_LONG == 64
	this_cpu_add(pcs->counters[idx], (u64)delta);
#else
	__percpu_stats_add_slow(pcs, idx, delta);
#endif
}

/* percpu_stats_add(@pcs, @idx, 1) */
static __always_inline void percpu_stats_inc(struct percpu_stats *pcs,
					     unsigned int idx)
{
	percpu_stats_add(pcs, idx, 1);
}

/* percpu_stats_add(@pcs, @idx, -1) */
static __always_inline void percpu_stats_dec(struct percpu_stats *pcs,
					     unsigned int idx)
{
	percpu_stats_add(pcs, idx, -1);
}

#endif /* _PERCPU_STATS_H */
