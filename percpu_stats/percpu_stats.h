/* SPDX-License-Identifier: GPL-2.0 */
/*
 * percpu_stats - cheap per-CPU statistics counters
 *
 * A percpu_stats object holds @nstats independent 64-bit event counters.
 * Each CPU owns a private row of them, so an update is a single
 * this_cpu_add() on 64-bit machines: no lock, no atomic instruction, no
 * preempt_disable()/preempt_enable() pair and no shared cacheline.
 *
 * What is cheap and what is not:
 *
 *  - percpu_stats_inc/dec/add() are inline and cost about as much as a
 *    bare this_cpu_inc() plus one well-predicted bounds check.
 *
 *  - percpu_stats_sum() walks every *possible* CPU (not just the online
 *    ones, so that a CPU going offline loses nothing). Its cost grows with
 *    num_possible_cpus(): one cacheline miss per possible CPU in the worst
 *    case. Do not call it from a path that runs per I/O or per lookup;
 *    it is meant for /proc, sysfs, debugfs and shrinker-style readers that
 *    run a few times per second at most. A caller that needs a cheap,
 *    frequently read total (e.g. to compare against a limit on every
 *    insert) should keep its own approximate counter instead.
 *
 *  - percpu_stats_sum_all() reads every counter in one pass over the
 *    CPUs; use it when printing a whole table.
 *
 * Counters are unsigned and wrap modulo 2^64, so an object may be used for
 * signed quantities (e.g. "requests in flight" incremented on one CPU and
 * decremented on another): percpu_stats_sum() then returns the two's
 * complement total and percpu_stats_sum_positive() clamps a negative total
 * to zero.
 *
 * Reset semantics: percpu_stats_reset() does not write to the per-CPU
 * counters at all. It records, under a seqcount, the raw total of each
 * counter as a base; every reader reports the raw total minus that base.
 * Each update lands in exactly one per-CPU 64-bit word, which the reset
 * reads exactly once, so every update is counted either before the reset
 * (it is part of the base) or after it (it is reported by later sums):
 * none is lost, none is counted twice and none is half-applied. For a
 * counter that only grows, a sum started after percpu_stats_reset()
 * returned never reports less than zero, and two sums with no reset in
 * between never go backwards.
 *
 * Concurrency: updates may run in any context, including hard and soft
 * interrupts. init and destroy must not race with anything else on the
 * same object. sum, sum_all and reset may run concurrently with each
 * other and with updates; none of them sleeps, but reset takes a spinlock
 * and readers retry on a seqcount, so call them from process or softirq
 * context, never from a hard interrupt or NMI.
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
 * Safe in any context, including interrupts, without disabling preemption.
 * An index out of range is a caller bug: it triggers a WARN once per call
 * site and changes nothing.
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

/**
 * percpu_stats_inc - add one to a counter
 * @pcs: the counters
 * @idx: which counter
 *
 * See percpu_stats_add().
 */
static __always_inline void percpu_stats_inc(struct percpu_stats *pcs,
					     unsigned int idx)
{
	percpu_stats_add(pcs, idx, 1);
}

/**
 * percpu_stats_dec - subtract one from a counter
 * @pcs: the counters
 * @idx: which counter
 *
 * See percpu_stats_add().
 */
static __always_inline void percpu_stats_dec(struct percpu_stats *pcs,
					     unsigned int idx)
{
	percpu_stats_add(pcs, idx, -1);
}

#endif /* _PERCPU_STATS_H */
