// SPDX-License-Identifier: GPL-2.0
/*
 * percpu_stats - cheap per-CPU statistics counters: the slow paths.
 *
 * The update fast path is inline in percpu_stats.h. Everything here runs
 * rarely: setting an object up, tearing it down, reading and resetting.
 * See percpu_stats.h for the cost model and the exact reset semantics.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <percpu_stats/percpu_stats.h>

/* Objects alive right now, for leak checks; see the debugfs file "live". */
static atomic_long_t percpu_stats_live = ATOMIC_LONG_INIT(0);
static struct dentry *percpu_stats_debugfs;

/*
 * One CPU's copy of one counter. A 64-bit machine reads it with a single
 * load; a 32-bit one updates and reads it as an atomic64_t so a reader on
 * another CPU never sees half of an update.
 */
static u64 pcs_read_cpu(struct percpu_stats *pcs, int cpu, unsigned int idx)
{
	u64 *p = per_cpu_ptr(pcs->counters, cpu) + idx;

#if BITS_PER_LONG == 64
	return READ_ONCE(*p);
#else
	return atomic64_read((atomic64_t *)p);
#endif
}

#if BITS_PER_LONG == 32
/**
 * __percpu_stats_add_slow - the update path of 32-bit machines
 * @pcs: the counters
 * @idx: which counter, already checked by the caller
 * @delta: amount to add
 *
 * A 64-bit this_cpu_add() is not a single instruction on 32-bit machines,
 * and a reader on another CPU could see a torn value. Update through an
 * atomic64_t on whichever CPU row we land on: a migration between finding
 * the row and adding to it only moves the count to another CPU's row,
 * which every sum includes anyway.
 */
void __percpu_stats_add_slow(struct percpu_stats *pcs, unsigned int idx,
			     s64 delta)
{
	atomic64_add(delta, (atomic64_t *)raw_cpu_ptr(pcs->counters + idx));
}
EXPORT_SYMBOL(__percpu_stats_add_slow);
#endif

/**
 * percpu_stats_init - allocate and zero a set of per-CPU counters
 * @pcs: the object to set up
 * @nstats: how many counters, 1 to %PERCPU_STATS_MAX
 * @gfp: allocation flags for the per-CPU rows and the reset base
 *
 * Context: process context when @gfp may sleep.
 * Return: 0 on success; -EINVAL if @nstats is 0 or above
 * %PERCPU_STATS_MAX; -ENOMEM if an allocation failed. On failure nothing
 * stays allocated and @pcs is left with no counters, so a later
 * percpu_stats_destroy() is harmless.
 */
int percpu_stats_init(struct percpu_stats *pcs, unsigned int nstats,
		      gfp_t gfp)
{
	pcs->counters = NULL;
	pcs->base = NULL;
	pcs->nstats = 0;
	spin_lock_init(&pcs->reset_lock);
	seqcount_spinlock_init(&pcs->reset_seq, &pcs->reset_lock);

	if (nstats == 0 || nstats > PERCPU_STATS_MAX) {
		pr_err("refusing %u counters (allowed: 1 to %u)\n",
		       nstats, PERCPU_STATS_MAX);
		return -EINVAL;
	}

	pcs->base = kcalloc(nstats, sizeof(*pcs->base), gfp);
	if (!pcs->base)
		return -ENOMEM;

	/* __alloc_percpu_gfp() returns zeroed memory on every CPU. */
	pcs->counters = __alloc_percpu_gfp(nstats * sizeof(u64), sizeof(u64),
					   gfp);
	if (!pcs->counters) {
		kfree(pcs->base);
		pcs->base = NULL;
		return -ENOMEM;
	}

	pcs->nstats = nstats;
	atomic_long_inc(&percpu_stats_live);
	return 0;
}
EXPORT_SYMBOL(percpu_stats_init);

/**
 * percpu_stats_destroy - free the counters of an object
 * @pcs: an object set up by percpu_stats_init(), successfully or not
 *
 * No update, read or reset may run concurrently or afterwards. Calling it
 * twice is harmless.
 */
void percpu_stats_destroy(struct percpu_stats *pcs)
{
	if (!pcs->counters)
		return;
	free_percpu(pcs->counters);
	kfree(pcs->base);
	pcs->counters = NULL;
	pcs->base = NULL;
	pcs->nstats = 0;
	atomic_long_dec(&percpu_stats_live);
}
EXPORT_SYMBOL(percpu_stats_destroy);

static u64 pcs_raw_sum(struct percpu_stats *pcs, unsigned int idx)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += pcs_read_cpu(pcs, cpu, idx);
	return sum;
}

/**
 * percpu_stats_sum - total of one counter since init or the last reset
 * @pcs: the counters
 * @idx: which counter
 *
 * Walks every possible CPU: see percpu_stats.h before calling it often.
 * Updates racing with the walk may or may not be included.
 *
 * Return: the total modulo 2^64 (a net negative total reads as a huge
 * value; see percpu_stats_sum_positive()), or 0 after a WARN for an index
 * out of range.
 */
u64 percpu_stats_sum(struct percpu_stats *pcs, unsigned int idx)
{
	unsigned int seq;
	u64 sum;

	if (WARN_ON_ONCE(idx >= pcs->nstats))
		return 0;

	/*
	 * A reset between the walk and the read of the base would subtract
	 * a base newer than the walk: retry so both come from one epoch.
	 */
	do {
		seq = read_seqcount_begin(&pcs->reset_seq);
		sum = pcs_raw_sum(pcs, idx) - READ_ONCE(pcs->base[idx]);
	} while (read_seqcount_retry(&pcs->reset_seq, seq));

	return sum;
}
EXPORT_SYMBOL(percpu_stats_sum);

/**
 * percpu_stats_sum_positive - total of one counter, negative totals as 0
 * @pcs: the counters
 * @idx: which counter
 *
 * For counters that go up on one CPU and down on another, such as
 * "requests in flight": a reader racing with the updates may see the
 * decrement before the increment and a net negative total, which this
 * reports as 0.
 *
 * Return: the total if it is not negative as an s64, else 0.
 */
u64 percpu_stats_sum_positive(struct percpu_stats *pcs, unsigned int idx)
{
	s64 sum = (s64)percpu_stats_sum(pcs, idx);

	return sum < 0 ? 0 : sum;
}
EXPORT_SYMBOL(percpu_stats_sum_positive);

/**
 * percpu_stats_sum_all - totals of every counter in one pass over the CPUs
 * @pcs: the counters
 * @sums: where to store the totals
 * @nsums: room in @sums; must equal the object's number of counters
 *
 * Reads each CPU's row once, which touches far fewer cachelines than
 * calling percpu_stats_sum() per counter. The totals are consistent with
 * respect to resets (all from before one, or all from after), not with
 * respect to concurrent updates.
 *
 * Return: 0, or -EINVAL (after a WARN) if @nsums does not match.
 */
int percpu_stats_sum_all(struct percpu_stats *pcs, u64 *sums,
			 unsigned int nsums)
{
	unsigned int seq, i;
	int cpu;

	if (WARN_ON_ONCE(nsums != pcs->nstats))
		return -EINVAL;

	do {
		seq = read_seqcount_begin(&pcs->reset_seq);
		for (i = 0; i < nsums; i++)
			sums[i] = -READ_ONCE(pcs->base[i]);
		for_each_possible_cpu(cpu)
			for (i = 0; i < nsums; i++)
				sums[i] += pcs_read_cpu(pcs, cpu, i);
	} while (read_seqcount_retry(&pcs->reset_seq, seq));

	return 0;
}
EXPORT_SYMBOL(percpu_stats_sum_all);

/**
 * percpu_stats_reset - make every counter read zero from now on
 * @pcs: the counters
 *
 * Does not write the per-CPU counters, so the update fast path pays
 * nothing for it: it records each counter's current raw total as a base
 * that later reads subtract. Every update is counted exactly once, either
 * before the reset or after it; see percpu_stats.h for the guarantees.
 * Concurrent resets are serialised.
 *
 * Context: process or softirq context.
 */
void percpu_stats_reset(struct percpu_stats *pcs)
{
	unsigned int i;

	/*
	 * Readers may run in softirq context and spin on the seqcount: keep
	 * them off this CPU while the write section is open.
	 */
	spin_lock_bh(&pcs->reset_lock);
	write_seqcount_begin(&pcs->reset_seq);
	for (i = 0; i < pcs->nstats; i++)
		WRITE_ONCE(pcs->base[i], pcs_raw_sum(pcs, i));
	write_seqcount_end(&pcs->reset_seq);
	spin_unlock_bh(&pcs->reset_lock);
}
EXPORT_SYMBOL(percpu_stats_reset);

static int live_get(void *data, u64 *val)
{
	*val = atomic_long_read(&percpu_stats_live);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(live_fops, live_get, NULL, "%llu\n");

static int __init percpu_stats_module_init(void)
{
	percpu_stats_debugfs = debugfs_create_dir("percpu_stats", NULL);
	debugfs_create_file_unsafe("live", 0444, percpu_stats_debugfs, NULL,
				   &live_fops);
	return 0;
}

static void __exit percpu_stats_module_exit(void)
{
	debugfs_remove(percpu_stats_debugfs);
}

module_init(percpu_stats_module_init);
module_exit(percpu_stats_module_exit);

MODULE_DESCRIPTION("Cheap per-CPU 64-bit statistics counters");
MODULE_LICENSE("GPL");
MODULE_VERSION(EXT4X_VERSION);
