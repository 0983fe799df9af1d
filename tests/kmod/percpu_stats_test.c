// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel tests of percpu_stats. All cases run from module_init and
 * report KTAP through the kernel log (see ktap.h); the module stays loaded
 * until the harness removes it.
 *
 * Module parameter lifecycle=N skips the cases and instead creates and
 * destroys N objects, for the load/unload leak loop in
 * tests/guest/percpu-stats.sh.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <percpu_stats/percpu_stats.h>

#include "ktap.h"

static unsigned int lifecycle;
module_param(lifecycle, uint, 0444);
MODULE_PARM_DESC(lifecycle, "only create and destroy this many objects");

static struct ktap t;

/* ---- allocation-failure injection through kretprobes ---------------- */

/*
 * The Debian kernel has no fault injection, so a kretprobe stands in:
 * while armed, and only for this test's own task, it frees what the
 * probed allocator returned and makes the call return NULL. A kprobe on
 * kfree() tells whether the library freed what it had allocated first.
 */
static struct task_struct *inject_task;
static bool fail_percpu, fail_kmalloc;
static void *seen_kmalloc;
static bool seen_kmalloc_freed;

static int alloc_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return current == READ_ONCE(inject_task) ? 0 : 1;
}

static int percpu_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	void __percpu *p = (void __percpu __force *)regs_return_value(regs);

	if (fail_percpu && p) {
		free_percpu(p);
		regs_set_return_value(regs, 0);
	}
	return 0;
}

static int kmalloc_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	void *p = (void *)regs_return_value(regs);

	if (fail_kmalloc && p) {
		kfree(p);
		regs_set_return_value(regs, 0);
	} else {
		seen_kmalloc = p;
	}
	return 0;
}

static int kfree_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == READ_ONCE(inject_task) && seen_kmalloc &&
	    (void *)regs->di == seen_kmalloc)
		seen_kmalloc_freed = true;
	return 0;
}

static struct kretprobe percpu_probe;
static struct kretprobe kmalloc_probe;

/*
 * 6.10 renamed the allocators' out-of-line entry points for memory
 * allocation profiling (pcpu_alloc_noprof(), __kmalloc_noprof()); the
 * old names are what 6.1 has. The first name that registers is used.
 */
static const char * const percpu_alloc_names[] = {
	"pcpu_alloc_noprof", "__alloc_percpu_gfp",
};

static const char * const kmalloc_names[] = {
	"__kmalloc_noprof", "__kmalloc",
};

static int register_ret_probe(struct kretprobe *rp,
			      const char * const *names, unsigned int n,
			      kretprobe_handler_t handler)
{
	int err = -ENOENT;
	unsigned int i;

	for (i = 0; i < n && err; i++) {
		*rp = (struct kretprobe) {
			.kp.symbol_name	= names[i],
			.entry_handler	= alloc_entry,
			.handler	= handler,
		};
		err = register_kretprobe(rp);
	}
	if (err)
		ktap_print_msg("no kretprobe on %s (%d)", names[n - 1], err);
	return err;
}

static struct kprobe kfree_probe = {
	.symbol_name = "kfree",
	.pre_handler = kfree_pre,
};

static void test_init_zeroes(void)
{
	struct percpu_stats pcs;
	unsigned int i;
	bool ok;
	int cpu;

	ok = !percpu_stats_init(&pcs, 16, GFP_KERNEL);
	for_each_possible_cpu(cpu)
		for (i = 0; ok && i < 16; i++)
			ok = per_cpu_ptr(pcs.counters, cpu)[i] == 0;
	for (i = 0; ok && i < 16; i++)
		ok = pcs.base[i] == 0 && percpu_stats_sum(&pcs, i) == 0;
	percpu_stats_destroy(&pcs);
	ok = ok && !pcs.counters && !pcs.base && !pcs.nstats;
	ktap_test_result(&t, ok, "init_zeroes_every_cpu_destroy_clears");
}

static void test_init_errors(void)
{
	struct percpu_stats pcs;
	int err;

	err = percpu_stats_init(&pcs, 0, GFP_KERNEL);
	ktap_test_result(&t, err == -EINVAL && !pcs.counters && !pcs.base,
			 "init_rejects_zero");

	err = percpu_stats_init(&pcs, PERCPU_STATS_MAX + 1, GFP_KERNEL);
	if (!err)
		percpu_stats_destroy(&pcs);
	ktap_test_result(&t, err == -EINVAL, "init_rejects_absurd_count");

	err = percpu_stats_init(&pcs, PERCPU_STATS_MAX, GFP_KERNEL);
	ktap_test_result(&t, !err && pcs.nstats == PERCPU_STATS_MAX,
			 "init_accepts_max_count");
	percpu_stats_destroy(&pcs);
	percpu_stats_destroy(&pcs);	/* twice is harmless */
}

static void test_init_enomem(void)
{
	struct percpu_stats pcs;
	bool ok;
	int err;

	if (register_ret_probe(&percpu_probe, percpu_alloc_names,
			       ARRAY_SIZE(percpu_alloc_names), percpu_ret))
		goto no_probes;
	if (register_ret_probe(&kmalloc_probe, kmalloc_names,
			       ARRAY_SIZE(kmalloc_names), kmalloc_ret))
		goto no_kmalloc;
	if (register_kprobe(&kfree_probe))
		goto no_kfree;

	/* The per-CPU allocation fails after the base was allocated. */
	seen_kmalloc = NULL;
	seen_kmalloc_freed = false;
	fail_percpu = true;
	WRITE_ONCE(inject_task, current);
	err = percpu_stats_init(&pcs, 8, GFP_KERNEL);
	WRITE_ONCE(inject_task, NULL);
	fail_percpu = false;
	ok = err == -ENOMEM && seen_kmalloc && seen_kmalloc_freed &&
	     !pcs.counters && !pcs.base && pcs.nstats == 0;
	if (!ok)
		ktap_print_msg("err %d base seen %d freed %d", err, !!seen_kmalloc,
			       seen_kmalloc_freed);
	if (!err)
		percpu_stats_destroy(&pcs);
	ktap_test_result(&t, ok, "init_enomem_percpu_frees_base");

	/* The first allocation fails: nothing else may be attempted. */
	fail_kmalloc = true;
	WRITE_ONCE(inject_task, current);
	err = percpu_stats_init(&pcs, 8, GFP_KERNEL);
	WRITE_ONCE(inject_task, NULL);
	fail_kmalloc = false;
	ok = err == -ENOMEM && !pcs.counters && !pcs.base;
	if (!err)
		percpu_stats_destroy(&pcs);
	percpu_stats_destroy(&pcs);
	ktap_test_result(&t, ok, "init_enomem_base");

	unregister_kprobe(&kfree_probe);
	unregister_kretprobe(&kmalloc_probe);
	unregister_kretprobe(&percpu_probe);
	return;

	/* Unregister only what was registered: 6.12 oopses otherwise. */
no_kfree:
	unregister_kretprobe(&kmalloc_probe);
no_kmalloc:
	unregister_kretprobe(&percpu_probe);
no_probes:
	ktap_test_skip(&t, "init_enomem_percpu_frees_base", "no kprobes");
	ktap_test_skip(&t, "init_enomem_base", "no kprobes");
}

static void test_add_inc_dec(void)
{
	struct percpu_stats pcs;
	bool ok;

	if (percpu_stats_init(&pcs, 3, GFP_KERNEL)) {
		ktap_test_result(&t, false, "add_inc_dec_exact");
		return;
	}
	percpu_stats_add(&pcs, 0, 5);
	percpu_stats_inc(&pcs, 0);
	percpu_stats_dec(&pcs, 0);
	percpu_stats_dec(&pcs, 0);
	percpu_stats_add(&pcs, 2, -7);
	percpu_stats_add(&pcs, 2, 10);
	ok = percpu_stats_sum(&pcs, 0) == 4 && percpu_stats_sum(&pcs, 1) == 0 &&
	     percpu_stats_sum(&pcs, 2) == 3;
	percpu_stats_destroy(&pcs);
	ktap_test_result(&t, ok, "add_inc_dec_exact");
}

static void test_beyond_32bit(void)
{
	struct percpu_stats pcs;
	const u64 big = (1ULL << 32) + 7;
	bool ok;
	int i;

	if (percpu_stats_init(&pcs, 2, GFP_KERNEL)) {
		ktap_test_result(&t, false, "values_beyond_2_pow_32");
		return;
	}
	percpu_stats_add(&pcs, 0, big);
	percpu_stats_add(&pcs, 0, big);
	for (i = 0; i < 3; i++)
		percpu_stats_add(&pcs, 1, 3ULL << 40);
	percpu_stats_add(&pcs, 1, -(1LL << 41));
	ok = percpu_stats_sum(&pcs, 0) == 2 * big &&
	     percpu_stats_sum(&pcs, 1) == (9ULL << 40) - (1ULL << 41);
	percpu_stats_destroy(&pcs);
	ktap_test_result(&t, ok, "values_beyond_2_pow_32");
}

/* ---- writer threads ------------------------------------------------- */

struct writer {
	struct percpu_stats *pcs;
	struct task_struct *task;
	struct completion done;
	unsigned int idx;
	s64 delta;
	unsigned long loops;	/* 0: until told to stop */
	unsigned long done_count;	/* published after each add */
	bool stop;
};

static int writer_fn(void *arg)
{
	struct writer *w = arg;
	unsigned long n = 0;

	while (w->loops ? n < w->loops : !READ_ONCE(w->stop)) {
		percpu_stats_add(w->pcs, w->idx, w->delta);
		n++;
		/* Order the add before the count a checker reads. */
		smp_store_release(&w->done_count, n);
		if (!(n & 1023))
			cond_resched();
	}
	complete_all(&w->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 100);
	return 0;
}

static int writer_start(struct writer *w, struct percpu_stats *pcs, int cpu,
			unsigned int idx, s64 delta, unsigned long loops)
{
	w->pcs = pcs;
	w->idx = idx;
	w->delta = delta;
	w->loops = loops;
	w->done_count = 0;
	w->stop = false;
	init_completion(&w->done);
	w->task = kthread_create(writer_fn, w, "pcs_test/%d", cpu);
	if (IS_ERR(w->task)) {
		int err = PTR_ERR(w->task);

		w->task = NULL;
		return err;
	}
	if (cpu >= 0)
		kthread_bind(w->task, cpu);
	wake_up_process(w->task);
	return 0;
}

static void writer_finish(struct writer *w)
{
	if (!w->task)
		return;
	WRITE_ONCE(w->stop, true);
	wait_for_completion(&w->done);
	kthread_stop(w->task);
	w->task = NULL;
}

static void test_sum_all_cpus(void)
{
	struct writer *w;
	struct percpu_stats pcs;
	u64 want0 = 0, want1 = 0;
	int cpu, n = 0, started = 0;
	bool ok;

	w = kcalloc(nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	if (!w || percpu_stats_init(&pcs, 2, GFP_KERNEL)) {
		kfree(w);
		ktap_test_result(&t, false, "sum_exact_writers_on_every_cpu");
		return;
	}
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		/* Each CPU adds its own amount to counter 0, 1 to counter 1. */
		if (writer_start(&w[n], &pcs, cpu, 0, cpu + 1, 200000))
			break;
		want0 += 200000ULL * (cpu + 1);
		n++;
	}
	cpus_read_unlock();
	started = n;
	for (n = 0; n < started; n++)
		wait_for_completion(&w[n].done);
	for (n = 0; n < started; n++)
		writer_finish(&w[n]);
	/* Second round on counter 1 with an unbound writer per CPU. */
	for (n = 0; n < started; n++) {
		if (writer_start(&w[n], &pcs, -1, 1, 1, 100000))
			break;
		want1 += 100000;
	}
	for (cpu = 0; cpu < n; cpu++)
		writer_finish(&w[cpu]);
	ok = started == num_online_cpus() &&
	     percpu_stats_sum(&pcs, 0) == want0 &&
	     percpu_stats_sum(&pcs, 1) == want1;
	ktap_print_msg("%d writers: sum0 %llu (want %llu) sum1 %llu (want %llu)",
		       started, percpu_stats_sum(&pcs, 0), want0,
		       percpu_stats_sum(&pcs, 1), want1);
	percpu_stats_destroy(&pcs);
	kfree(w);
	ktap_test_result(&t, ok, "sum_exact_writers_on_every_cpu");
}

static void test_cross_cpu_inflight(void)
{
	struct writer inc = {}, dec = {};
	struct percpu_stats pcs;
	bool ok;

	if (num_online_cpus() < 2 || !cpu_online(0) || !cpu_online(1)) {
		ktap_test_skip(&t, "inc_on_cpu0_dec_on_cpu1", "needs CPUs 0 and 1");
		ktap_test_skip(&t, "sum_positive_clamps_negative",
			       "needs CPUs 0 and 1");
		return;
	}
	if (percpu_stats_init(&pcs, 1, GFP_KERNEL)) {
		ktap_test_result(&t, false, "inc_on_cpu0_dec_on_cpu1");
		ktap_test_result(&t, false, "sum_positive_clamps_negative");
		return;
	}
	/* "In flight": submitted on CPU 0, completed on CPU 1. */
	if (writer_start(&inc, &pcs, 0, 0, 1, 300000) ||
	    writer_start(&dec, &pcs, 1, 0, -1, 300000)) {
		writer_finish(&inc);
		ktap_test_result(&t, false, "inc_on_cpu0_dec_on_cpu1");
		ktap_test_result(&t, false, "sum_positive_clamps_negative");
		percpu_stats_destroy(&pcs);
		return;
	}
	wait_for_completion(&inc.done);
	wait_for_completion(&dec.done);
	writer_finish(&inc);
	writer_finish(&dec);
	ok = percpu_stats_sum(&pcs, 0) == 0 &&
	     percpu_stats_sum_positive(&pcs, 0) == 0 &&
	     *per_cpu_ptr(pcs.counters, 0) == 300000 &&
	     *per_cpu_ptr(pcs.counters, 1) == (u64)-300000;
	ktap_test_result(&t, ok, "inc_on_cpu0_dec_on_cpu1");

	/* More completions than submissions seen: a net negative total. */
	if (writer_start(&dec, &pcs, 1, 0, -1, 5)) {
		ktap_test_result(&t, false, "sum_positive_clamps_negative");
	} else {
		writer_finish(&dec);
		ok = percpu_stats_sum(&pcs, 0) == (u64)-5 &&
		     percpu_stats_sum_positive(&pcs, 0) == 0;
		percpu_stats_add(&pcs, 0, 12);
		ok = ok && percpu_stats_sum_positive(&pcs, 0) == 7;
		ktap_test_result(&t, ok, "sum_positive_clamps_negative");
	}
	percpu_stats_destroy(&pcs);
}

static void test_sum_all(void)
{
	struct percpu_stats pcs;
	u64 sums[5];
	unsigned int i;
	bool ok = true;

	if (percpu_stats_init(&pcs, 5, GFP_KERNEL)) {
		ktap_test_result(&t, false, "sum_all_matches_sum");
		return;
	}
	for (i = 0; i < 5; i++)
		percpu_stats_add(&pcs, i, (i + 1) * 1000003ULL);
	percpu_stats_reset(&pcs);
	for (i = 0; i < 5; i++)
		percpu_stats_add(&pcs, i, i * 11);
	if (percpu_stats_sum_all(&pcs, sums, 5))
		ok = false;
	for (i = 0; i < 5 && ok; i++)
		ok = sums[i] == i * 11 && sums[i] == percpu_stats_sum(&pcs, i);
	ktap_test_result(&t, ok, "sum_all_matches_sum");
	percpu_stats_destroy(&pcs);
}

static void test_reset_quiescent(void)
{
	struct percpu_stats pcs;
	bool ok;

	if (percpu_stats_init(&pcs, 2, GFP_KERNEL)) {
		ktap_test_result(&t, false, "reset_with_writers_stopped");
		return;
	}
	percpu_stats_add(&pcs, 0, 1000);
	percpu_stats_add(&pcs, 1, -3);
	percpu_stats_reset(&pcs);
	ok = percpu_stats_sum(&pcs, 0) == 0 && percpu_stats_sum(&pcs, 1) == 0;
	percpu_stats_inc(&pcs, 0);
	percpu_stats_add(&pcs, 1, 42);
	ok = ok && percpu_stats_sum(&pcs, 0) == 1 &&
	     percpu_stats_sum(&pcs, 1) == 42;
	percpu_stats_reset(&pcs);
	percpu_stats_reset(&pcs);
	ok = ok && percpu_stats_sum(&pcs, 0) == 0;
	percpu_stats_destroy(&pcs);
	ktap_test_result(&t, ok, "reset_with_writers_stopped");
}

/*
 * Resets while every CPU increments. Checks, for a counter that only
 * grows: (1) a reader never sees the total go down unless a reset ran
 * between its two reads; (2) after the writers stop, the total lies
 * between the adds done after the last reset returned and the adds begun
 * after it started, i.e. nothing was lost or counted twice.
 */
static struct percpu_stats reset_pcs;
static atomic_t reset_gen;	/* odd while a reset is in progress */
static bool reset_reader_stop;
static unsigned long reset_reader_backwards, reset_reader_reads;

static int reset_reader_fn(void *arg)
{
	struct completion *done = arg;
	u64 prev = 0, cur;
	int g0, g1, prev_gen = -1;

	while (!READ_ONCE(reset_reader_stop)) {
		g0 = atomic_read_acquire(&reset_gen);
		cur = percpu_stats_sum(&reset_pcs, 0);
		g1 = atomic_read_acquire(&reset_gen);
		if (g0 == g1 && !(g0 & 1) && g0 == prev_gen && cur < prev)
			reset_reader_backwards++;
		prev = cur;
		prev_gen = (g0 == g1) ? g0 : -1;
		reset_reader_reads++;
		cond_resched();
	}
	complete(done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 100);
	return 0;
}

static unsigned long writers_done(struct writer *w, int n)
{
	unsigned long sum = 0;
	int i;

	for (i = 0; i < n; i++) {
		/* Pairs with writer_fn(): the adds counted are done. */
		sum += smp_load_acquire(&w[i].done_count);
	}
	return sum;
}

static void test_reset_concurrent(void)
{
	struct completion reader_done;
	struct task_struct *reader;
	unsigned long before, after, total;
	struct writer *w;
	int cpu, n = 0, i;
	u64 final;
	bool ok;

	w = kcalloc(nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	if (!w || percpu_stats_init(&reset_pcs, 1, GFP_KERNEL)) {
		kfree(w);
		ktap_test_result(&t, false, "reset_with_writers_running");
		return;
	}
	atomic_set(&reset_gen, 0);
	reset_reader_stop = false;
	reset_reader_backwards = 0;
	reset_reader_reads = 0;
	init_completion(&reader_done);
	reader = kthread_run(reset_reader_fn, &reader_done, "pcs_reader");
	for_each_online_cpu(cpu) {
		if (writer_start(&w[n], &reset_pcs, cpu, 0, 1, 0))
			break;
		n++;
	}

	before = 0;
	after = 0;
	for (i = 0; i < 200; i++) {
		usleep_range(500, 1000);
		atomic_inc(&reset_gen);
		before = writers_done(w, n);
		percpu_stats_reset(&reset_pcs);
		after = writers_done(w, n);
		atomic_inc(&reset_gen);
	}
	usleep_range(2000, 3000);
	for (i = 0; i < n; i++)
		writer_finish(&w[i]);
	if (!IS_ERR(reader)) {
		WRITE_ONCE(reset_reader_stop, true);
		wait_for_completion(&reader_done);
		kthread_stop(reader);
	}
	total = writers_done(w, n);
	final = percpu_stats_sum(&reset_pcs, 0);
	/*
	 * Published counts lag the adds by at most one per writer, so the
	 * adds done before the last reset began are >= before, and those
	 * begun before it ended are <= after + n.
	 */
	ok = !IS_ERR(reader) && n > 0 && reset_reader_backwards == 0 &&
	     final <= total - before && final + after + n >= total;
	ktap_print_msg("%d writers, %lu adds, last reset after %lu-%lu of them",
		       n, total, before, after);
	ktap_print_msg("sum after it %llu; reader: %lu reads, %lu went backwards",
		       final, reset_reader_reads, reset_reader_backwards);
	percpu_stats_destroy(&reset_pcs);
	kfree(w);
	ktap_test_result(&t, ok, "reset_with_writers_running");
}

/* ---- bad index ------------------------------------------------------ */

static atomic_t warn_count;

static int warn_pre(struct kprobe *kp, struct pt_regs *regs)
{
	atomic_inc(&warn_count);
	return 0;
}

static struct kprobe warn_probe = {
	.symbol_name = "__warn",
	.pre_handler = warn_pre,
};

static noinline void bad_add(struct percpu_stats *pcs, unsigned int idx)
{
	percpu_stats_add(pcs, idx, 1000);
}

static void test_bad_index(void)
{
	struct percpu_stats pcs;
	unsigned int i, bad[] = { 4, 5, 7, 8, UINT_MAX };
	int cpu, warns;
	bool guard_ok = true, probed;

	/*
	 * White box: allocate eight counters but let the object believe it
	 * has four, so the four beyond the bound are real memory that an
	 * unchecked write would hit; they must stay zero.
	 */
	if (percpu_stats_init(&pcs, 8, GFP_KERNEL)) {
		ktap_test_result(&t, false, "bad_index_warns_once");
		ktap_test_result(&t, false, "bad_index_writes_nothing");
		return;
	}
	pcs.nstats = 4;
	probed = !register_kprobe(&warn_probe);
	atomic_set(&warn_count, 0);

	ktap_expect_warn_begin();
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		bad_add(&pcs, bad[i]);
	warns = atomic_read(&warn_count);
	/* The library's own check in sum: at most once per boot. */
	if (percpu_stats_sum(&pcs, 4) != 0)
		guard_ok = false;
	ktap_expect_warn_end();
	if (probed)
		unregister_kprobe(&warn_probe);

	for_each_possible_cpu(cpu)
		for (i = 0; i < 8; i++)
			if (per_cpu_ptr(pcs.counters, cpu)[i])
				guard_ok = false;
	if (probed)
		ktap_test_result(&t, warns == 1, "bad_index_warns_once");
	else
		ktap_test_skip(&t, "bad_index_warns_once", "cannot probe __warn");
	if (probed && warns != 1)
		ktap_print_msg("%d WARNs for %zu bad calls", warns, ARRAY_SIZE(bad));
	ktap_test_result(&t, guard_ok, "bad_index_writes_nothing");
	pcs.nstats = 8;
	percpu_stats_destroy(&pcs);
}

/* ---- CPU hotplug ---------------------------------------------------- */

static void test_hotplug(void)
{
	struct writer on1 = {}, on0 = {};
	struct percpu_stats pcs;
	u64 during, want;
	bool ok;
	int err;

	if (!cpu_online(0) || !cpu_online(1) || !cpu_is_hotpluggable(1)) {
		ktap_test_skip(&t, "cpu_offline_online_loses_nothing",
			       "CPU 1 not hotpluggable");
		return;
	}
	if (percpu_stats_init(&pcs, 1, GFP_KERNEL)) {
		ktap_test_result(&t, false, "cpu_offline_online_loses_nothing");
		return;
	}
	/* Counts made on CPU 1, then CPU 1 goes away while CPU 0 counts. */
	ok = !writer_start(&on1, &pcs, 1, 0, 3, 100000);
	if (ok) {
		wait_for_completion(&on1.done);
		writer_finish(&on1);
	}
	ok = ok && !writer_start(&on0, &pcs, 0, 0, 1, 0);
	err = ok ? remove_cpu(1) : -EINVAL;
	if (err)
		ktap_print_msg("remove_cpu(1): %d", err);
	during = percpu_stats_sum(&pcs, 0);
	ok = ok && !err && !cpu_online(1) && during >= 300000;
	msleep(20);
	if (!err)
		err = add_cpu(1);
	writer_finish(&on0);
	want = 300000 + on0.done_count;
	ok = ok && !err && percpu_stats_sum(&pcs, 0) == want;
	/* And CPU 1 counts again once it is back. */
	if (ok && !writer_start(&on1, &pcs, 1, 0, 1, 1000)) {
		wait_for_completion(&on1.done);
		writer_finish(&on1);
		ok = percpu_stats_sum(&pcs, 0) == want + 1000;
	}
	ktap_print_msg("sum while CPU1 offline %llu, want %llu", during,
		       want + 1000);
	percpu_stats_destroy(&pcs);
	ktap_test_result(&t, ok, "cpu_offline_online_loses_nothing");
}

static int __init percpu_stats_test_init(void)
{
	struct percpu_stats pcs;
	unsigned int i;

	if (lifecycle) {
		for (i = 0; i < lifecycle; i++) {
			if (percpu_stats_init(&pcs, 1 + i % 64, GFP_KERNEL))
				return -ENOMEM;
			percpu_stats_inc(&pcs, 0);
			percpu_stats_destroy(&pcs);
		}
		return 0;
	}

	ktap_print_header();
	ktap_set_plan(&t, 17);
	test_init_errors();		/* 3 */
	test_init_enomem();		/* 2 */
	test_init_zeroes();		/* 1 */
	test_add_inc_dec();		/* 1 */
	test_beyond_32bit();		/* 1 */
	test_sum_all_cpus();		/* 1 */
	test_cross_cpu_inflight();	/* 2 */
	test_sum_all();			/* 1 */
	test_reset_quiescent();		/* 1 */
	test_reset_concurrent();	/* 1 */
	test_bad_index();		/* 2 */
	test_hotplug();			/* 1 */
	if (t.run != t.planned)
		ktap_print_msg("planned %d cases, ran %d", t.planned, t.run);
	return 0;
}

static void __exit percpu_stats_test_exit(void)
{
}

module_init(percpu_stats_test_init);
module_exit(percpu_stats_test_exit);

MODULE_DESCRIPTION("In-kernel tests of percpu_stats (KTAP)");
MODULE_LICENSE("GPL");
