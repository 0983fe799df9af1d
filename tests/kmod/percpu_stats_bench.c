// SPDX-License-Identifier: GPL-2.0
/*
 * Microbenchmark of percpu_stats against the kernel's own counting
 * primitives, run from module_init inside the guest. Each round runs every
 * variant once, in an order rotated per round (A B C D, B C D A, ...), so
 * that drift in the host's load hits all variants alike; the table reports
 * medians over rounds. Results go to the kernel log prefixed "bench: ".
 * It never fails: it reports numbers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/percpu_counter.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include <percpu_stats/percpu_stats.h>

#include "bench.h"

static unsigned int rounds = 7;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "interleaved rounds (medians are reported)");
static unsigned int ops = 1000000;
module_param(ops, uint, 0444);
MODULE_PARM_DESC(ops, "operations per thread per run");
static char *only;
module_param(only, charp, 0444);
MODULE_PARM_DESC(only, "raw, raw_dyn, pcs, pcc or atomic: one run on every online CPU, no table");

enum variant { V_RAW, V_RAW_DYN, V_PCS, V_PCC, V_ATOMIC, NR_VARIANTS };

static const char * const variant_name[NR_VARIANTS] = {
	[V_RAW] = "this_cpu_inc, static (raw)",
	[V_RAW_DYN] = "this_cpu_inc, alloc_percpu",
	[V_PCS] = "percpu_stats_inc",
	[V_PCC] = "percpu_counter_inc",
	[V_ATOMIC] = "atomic_long_inc",
};

/* the names the "only" parameter takes */
static const char * const variant_key[NR_VARIANTS] = {
	[V_RAW] = "raw",
	[V_RAW_DYN] = "raw_dyn",
	[V_PCS] = "pcs",
	[V_PCC] = "pcc",
	[V_ATOMIC] = "atomic",
};

static DEFINE_PER_CPU(unsigned long, raw_counter);
/* What percpu_stats_inc() is without its bounds check */
static u64 __percpu *raw_dyn;
static struct percpu_stats stats;
static struct percpu_counter pcc;
static atomic_long_t shared_atomic;

struct bench_thread {
	struct task_struct *task;
	enum variant v;
	u64 ns;
};

static atomic_t ready;
static bool go;
static DECLARE_COMPLETION(all_done);
static atomic_t running;

static noinline void run_ops(enum variant v, unsigned int n)
{
	unsigned int i;

	switch (v) {
	case V_RAW:
		for (i = 0; i < n; i++)
			this_cpu_inc(raw_counter);
		break;
	case V_RAW_DYN:
		for (i = 0; i < n; i++)
			this_cpu_inc(raw_dyn[1]);
		break;
	case V_PCS:
		for (i = 0; i < n; i++)
			percpu_stats_inc(&stats, 1);
		break;
	case V_PCC:
		for (i = 0; i < n; i++)
			percpu_counter_inc(&pcc);
		break;
	case V_ATOMIC:
		for (i = 0; i < n; i++)
			atomic_long_inc(&shared_atomic);
		break;
	default:
		break;
	}
}

static int bench_fn(void *arg)
{
	struct bench_thread *bt = arg;
	u64 start;

	atomic_inc(&ready);
	while (!READ_ONCE(go))
		cond_resched();
	start = ktime_get_ns();
	run_ops(bt->v, ops);
	bt->ns = ktime_get_ns() - start;
	if (atomic_dec_and_test(&running))
		complete(&all_done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* Mean picoseconds per op per thread of one run with @nthreads threads. */
static u64 run_variant(enum variant v, unsigned int nthreads,
		       struct bench_thread *bt)
{
	unsigned int i, started = 0;
	u64 total = 0;
	int cpu;

	atomic_set(&ready, 0);
	atomic_set(&running, nthreads);
	WRITE_ONCE(go, false);
	reinit_completion(&all_done);
	for_each_online_cpu(cpu) {
		if (started == nthreads)
			break;
		bt[started].v = v;
		bt[started].ns = 0;
		bt[started].task = kthread_create(bench_fn, &bt[started],
						  "pcs_bench/%d", cpu);
		if (IS_ERR(bt[started].task))
			break;
		kthread_bind(bt[started].task, cpu);
		wake_up_process(bt[started].task);
		started++;
	}
	if (started < nthreads) {
		/* Release and reap what did start; report nothing. */
		atomic_sub(nthreads - started, &running);
		nthreads = started;
	}
	while (atomic_read(&ready) < nthreads)
		schedule_timeout_uninterruptible(1);
	WRITE_ONCE(go, true);
	if (nthreads)
		wait_for_completion(&all_done);
	for (i = 0; i < nthreads; i++) {
		kthread_stop(bt[i].task);
		total += bt[i].ns;
	}
	/* Picoseconds, so that sub-nanosecond differences still show. */
	return nthreads ? div64_u64(total * 1000, (u64)nthreads * ops) : 0;
}

static u64 bench_sink;

static void print_row(const char *name, struct bench_series *one,
		      struct bench_series *all, struct bench_series *raw_one,
		      struct bench_series *raw_all)
{
	char b[8][24];

	if (!all) {
		bench_print("| %s | %s [%s-%s] | | |", name,
			    bench_ns(b[0], one->med), bench_ns(b[1], one->min),
			    bench_ns(b[2], one->max));
		return;
	}
	bench_print("| %s | %s [%s-%s] | %s [%s-%s] | %sx / %sx |", name,
		    bench_ns(b[0], one->med), bench_ns(b[1], one->min),
		    bench_ns(b[2], one->max), bench_ns(b[3], all->med),
		    bench_ns(b[4], all->min), bench_ns(b[5], all->max),
		    bench_ratio(b[6], one->med, raw_one->med),
		    bench_ratio(b[7], all->med, raw_all->med));
}

static u64 sum_cost_ps(bool pcs_side)
{
	const unsigned int calls = 2000;
	unsigned int i;
	u64 start, acc = 0;

	start = ktime_get_ns();
	for (i = 0; i < calls; i++) {
		if (pcs_side)
			acc += percpu_stats_sum(&stats, 1);
		else
			acc += percpu_counter_sum(&pcc);
	}
	WRITE_ONCE(bench_sink, acc);
	return div_u64((ktime_get_ns() - start) * 1000, calls);
}

static int __init percpu_stats_bench_init(void)
{
	static struct bench_series one[NR_VARIANTS], all[NR_VARIANTS];
	static struct bench_series sum_pcs, sum_pcc;
	unsigned int ncpu = num_online_cpus(), r, k;
	struct bench_thread *bt;
	char buf[24];
	int err;

	rounds = clamp(rounds, 1U, (unsigned int)BENCH_MAX_ROUNDS);
	bt = kcalloc(ncpu, sizeof(*bt), GFP_KERNEL);
	if (!bt)
		return -ENOMEM;
	err = -ENOMEM;
	raw_dyn = __alloc_percpu(4 * sizeof(u64), sizeof(u64));
	if (!raw_dyn)
		goto out_free;
	err = percpu_stats_init(&stats, 4, GFP_KERNEL);
	if (err)
		goto out_free;
	err = percpu_counter_init(&pcc, 0, GFP_KERNEL);
	if (err)
		goto out_stats;

	if (only) {
		/*
		 * One run and no table: the coherence benchmark counts the
		 * cache-line transfers of the run from outside the guest.
		 */
		int v = match_string(variant_key, NR_VARIANTS, only);

		if (v < 0) {
			pr_err("only=%s: not one of raw, raw_dyn, pcs, pcc, atomic\n",
			       only);
			err = -EINVAL;
		} else {
			run_variant(v, ncpu, bt);
			bench_print("# only %s: %u threads, %u ops each", only,
				    ncpu, ops);
			err = 0;
		}
		goto out_pcc;
	}
	bench_print("# percpu_stats: %u online CPUs, %u possible", ncpu,
		    num_possible_cpus());
	bench_print("# %u interleaved rounds, %u ops per thread per run",
		    rounds, ops);
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < NR_VARIANTS; k++) {
			enum variant v = (k + r) % NR_VARIANTS;

			one[v].v[r] = run_variant(v, 1, bt);
			all[v].v[r] = run_variant(v, ncpu, bt);
		}
		/* Alternate which sum goes first, too. */
		if (r & 1) {
			sum_pcc.v[r] = sum_cost_ps(false);
			sum_pcs.v[r] = sum_cost_ps(true);
		} else {
			sum_pcs.v[r] = sum_cost_ps(true);
			sum_pcc.v[r] = sum_cost_ps(false);
		}
		bench_print("# round %u/%u done", r + 1, rounds);
	}
	for (k = 0; k < NR_VARIANTS; k++) {
		bench_summarise(&one[k], rounds);
		bench_summarise(&all[k], rounds);
	}
	bench_summarise(&sum_pcs, rounds);
	bench_summarise(&sum_pcc, rounds);

	bench_print("");
	bench_print("| operation | 1 thread: ns/op | %u threads: ns/op/thread | %s |",
		    ncpu, "vs raw, 1 / N threads");
	bench_print("# ns/op cells: median [min-max] over the rounds");
	bench_print("|---|---|---|---|");
	for (k = 0; k < NR_VARIANTS; k++)
		print_row(variant_name[k], &one[k], &all[k], &one[V_RAW],
			  &all[V_RAW]);
	print_row("percpu_stats_sum (one counter)", &sum_pcs, NULL, NULL, NULL);
	print_row("percpu_counter_sum", &sum_pcc, NULL, NULL, NULL);
	bench_print("");
	bench_print("# atomic_long_inc / percpu_stats_inc, %u threads: %sx", ncpu,
		    bench_ratio(buf, all[V_ATOMIC].med, all[V_PCS].med));
	bench_print("# percpu_stats_inc / this_cpu_inc on alloc_percpu memory, 1 thread: %sx",
		    bench_ratio(buf, one[V_PCS].med, one[V_RAW_DYN].med));
	bench_print("# percpu_counter_inc / percpu_stats_inc, 1 thread: %sx",
		    bench_ratio(buf, one[V_PCC].med, one[V_PCS].med));
	bench_print("# end");

out_pcc:
	percpu_counter_destroy(&pcc);
out_stats:
	percpu_stats_destroy(&stats);
out_free:
	free_percpu(raw_dyn);
	kfree(bt);
	return err;
}

static void __exit percpu_stats_bench_exit(void)
{
}

module_init(percpu_stats_bench_init);
module_exit(percpu_stats_bench_exit);

MODULE_DESCRIPTION("percpu_stats microbenchmark (reports, never fails)");
MODULE_LICENSE("GPL");
