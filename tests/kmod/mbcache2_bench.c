// SPDX-License-Identifier: GPL-2.0
/*
 * Stock mbcache (A) against mbcache2 (B), side by side in one run.
 *
 * Each measurement runs a workload for a fixed time on a fresh cache of
 * 10 bucket bits (ext4's size) with 1 thread and with one thread per online
 * CPU, and counts operations. A and B alternate (A B A B ...) over several
 * rounds so that drift in the machine's speed hits both alike. The result
 * is a Markdown table printed to the kernel log, each line prefixed
 * "bench: ": median ops/s per side, the ratio B/A of the medians, and the
 * min and max of each side. It reports, it asserts nothing.
 *
 * Workloads:
 *   insert  unique keys (both caches reclaim once past 16384 entries)
 *   lookup  get + put of present entries (4096 prepopulated)
 *   apart   the same, but thread i looks up only keys whose hash bucket
 *           has i's parity: no two threads share a bucket or a stripe
 *   churn   "make sure this block is cached" for present entries: stock
 *           ext4's mb_cache_entry_create() (allocates, finds the duplicate,
 *           frees, -EBUSY) against ext4x's mbcache2_entry_present() (a
 *           lookup without a reference), create on a miss
 *   mixed   50% lookup, 25% insert, 25% delete_or_get over 8192 keys
 *
 * After the table, the cost of the two lock kinds alone, which explains
 * most of the single-thread lookup gap: a stripe's spinlock_t, taken
 * through the out-of-line _raw_spin_lock()/_raw_spin_unlock() on a distro
 * kernel, against stock's bit lock in the hash chain head, all inline.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/blockgroup_lock.h>
#include <linux/completion.h>
#include <linux/hash.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/list_bl.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mbcache.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <mbcache2/mbcache2.h>

#include "bench.h"

static unsigned int rounds = 5;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "rounds of A B measurements (median over them)");

static unsigned int run_ms = 200;
module_param(run_ms, uint, 0444);
MODULE_PARM_DESC(run_ms, "duration of one measurement in milliseconds");

static char *only;
module_param(only, charp, 0444);
MODULE_PARM_DESC(only, "WORKLOAD-SIDE: one run on every online CPU, no table");

static unsigned int ops = 100000;
module_param(ops, uint, 0444);
MODULE_PARM_DESC(ops, "operations per thread of an only= run (a multiple of 64)");

#define BENCH_BITS		10
#define BENCH_PRESENT		4096
#define BENCH_MIXED_KEYS	8192

/* One side of the comparison */
struct side {
	const char *name;
	void *(*create)(void);
	void (*destroy)(void *cache);
	int (*insert)(void *cache, u32 key, u64 value);
	bool (*lookup)(void *cache, u32 key, u64 value);
	int (*churn)(void *cache, u32 key, u64 value);
	void (*delete)(void *cache, u32 key, u64 value);
};

static void *a_create(void)
{
	return mb_cache_create(BENCH_BITS);
}

static void a_destroy(void *c)
{
	mb_cache_destroy(c);
}

static int a_insert(void *c, u32 key, u64 value)
{
	return mb_cache_entry_create(c, GFP_KERNEL, key, value, true);
}

static bool a_lookup(void *c, u32 key, u64 value)
{
	struct mb_cache_entry *e = mb_cache_entry_get(c, key, value);

	if (!e)
		return false;
	mb_cache_entry_put(c, e);
	return true;
}

static void a_delete(void *c, u32 key, u64 value)
{
	struct mb_cache_entry *e = mb_cache_entry_delete_or_get(c, key, value);

	if (e)
		mb_cache_entry_put(c, e);
}

static void *b_create(void)
{
	return mbcache2_create(BENCH_BITS, "mbcache2_bench");
}

static void b_destroy(void *c)
{
	mbcache2_destroy(c);
}

static int b_insert(void *c, u32 key, u64 value)
{
	return mbcache2_entry_create(c, GFP_KERNEL, key, value, true);
}

static bool b_lookup(void *c, u32 key, u64 value)
{
	struct mbcache2_entry *e = mbcache2_entry_get(c, key, value);

	if (!e)
		return false;
	mbcache2_entry_put(c, e);
	return true;
}

static int b_churn(void *c, u32 key, u64 value)
{
	if (mbcache2_entry_present(c, key, value))
		return -EBUSY;
	return b_insert(c, key, value);
}

static void b_delete(void *c, u32 key, u64 value)
{
	struct mbcache2_entry *e = mbcache2_entry_delete_or_get(c, key, value);

	if (e)
		mbcache2_entry_put(c, e);
}

static const struct side sides[2] = {
	{ "stock", a_create, a_destroy, a_insert, a_lookup, a_insert,
	  a_delete },
	{ "mbcache2", b_create, b_destroy, b_insert, b_lookup, b_churn,
	  b_delete },
};

enum workload { W_INSERT, W_LOOKUP, W_CHURN, W_MIXED, W_APART, NR_WORKLOADS };

static const char * const workload_names[NR_WORKLOADS] = {
	"unique insert", "lookup hit", "getxattr churn", "mixed 50/25/25",
	"lookup hit, apart",
};

/* the workload names of the "only" parameter */
static const char * const workload_keys[NR_WORKLOADS] = {
	"insert", "lookup", "churn", "mixed", "apart",
};

/* The present keys by the parity of their bucket (both caches hash alike) */
static u32 apart_keys[2][BENCH_PRESENT];
static unsigned int apart_n[2];

static void apart_init(void)
{
	u32 key;

	for (key = 0; key < BENCH_PRESENT; key++) {
		unsigned int p = hash_32(key, BENCH_BITS) & 1;

		apart_keys[p][apart_n[p]++] = key;
	}
}

struct run {
	const struct side *side;
	void *cache;
	enum workload w;
	atomic_t ready;
	bool go;
	u64 deadline;
	u64 max_ops;	/* when not 0, run this many and ignore deadline */
};

struct worker {
	struct run *run;
	struct completion done;
	unsigned int id;
	u64 ops;
	u64 ns;
};

static int worker_fn(void *data)
{
	struct worker *wk = data;
	struct run *run = wk->run;
	const struct side *s = run->side;
	void *c = run->cache;
	struct rnd_state rnd;
	u64 ops = 0, start, now;
	u32 seq = 0;

	prandom_seed_state(&rnd, wk->id * 7919 + 1);
	atomic_inc(&run->ready);
	while (!READ_ONCE(run->go))
		cond_resched();
	start = ktime_get_ns();
	do {
		int i;

		for (i = 0; i < 64; i++) {
			u32 r = prandom_u32_state(&rnd);
			u32 key;

			switch (run->w) {
			case W_INSERT:
				key = (wk->id << 24) | seq++;
				s->insert(c, key, key);
				break;
			case W_LOOKUP:
				key = r % BENCH_PRESENT;
				s->lookup(c, key, key);
				break;
			case W_APART:
				key = apart_keys[wk->id & 1][r % apart_n[wk->id & 1]];
				s->lookup(c, key, key);
				break;
			case W_CHURN:
				key = r % BENCH_PRESENT;
				s->churn(c, key, key);
				break;
			default:
				key = (r >> 2) % BENCH_MIXED_KEYS;
				if ((r & 3) < 2)
					s->lookup(c, key, key);
				else if ((r & 3) == 2)
					s->insert(c, key, key);
				else
					s->delete(c, key, key);
				break;
			}
		}
		ops += 64;
		cond_resched();
		now = ktime_get_ns();
	} while (run->max_ops ? ops < run->max_ops : now < run->deadline);
	wk->ops = ops;
	wk->ns = now - start;
	kthread_complete_and_exit(&wk->done, 0);
}

/*
 * One measurement; returns ops/s summed over the threads, 0 on error. With
 * @max_ops each thread runs that many operations instead of run_ms.
 */
static u64 measure(const struct side *s, enum workload w, unsigned int nthr,
		   u64 max_ops)
{
	struct worker *wk;
	struct run run = { .side = s, .w = w, .max_ops = max_ops };
	unsigned int i, cpu, started = 0;
	u64 total = 0;
	u32 key;

	wk = kcalloc(nthr, sizeof(*wk), GFP_KERNEL);
	run.cache = s->create();
	if (!wk || !run.cache)
		goto out;
	atomic_set(&run.ready, 0);
	if (w == W_LOOKUP || w == W_CHURN || w == W_APART)
		for (key = 0; key < BENCH_PRESENT; key++)
			s->insert(run.cache, key, key);
	if (w == W_MIXED)
		for (key = 0; key < BENCH_MIXED_KEYS; key += 2)
			s->insert(run.cache, key, key);

	cpu = cpumask_first(cpu_online_mask);
	for (i = 0; i < nthr; i++) {
		struct task_struct *t;

		wk[i].run = &run;
		wk[i].id = i;
		init_completion(&wk[i].done);
		t = kthread_create(worker_fn, &wk[i], "mbc2_bench/%u", i);
		if (IS_ERR(t))
			break;
		kthread_bind(t, cpu);
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
		wake_up_process(t);
		started++;
	}
	while (atomic_read(&run.ready) < started)
		cond_resched();
	run.deadline = ktime_get_ns() + (u64)run_ms * NSEC_PER_MSEC;
	smp_wmb();	/* deadline before go */
	WRITE_ONCE(run.go, true);
	for (i = 0; i < started; i++) {
		wait_for_completion(&wk[i].done);
		if (wk[i].ns)
			total += div64_u64(wk[i].ops * NSEC_PER_SEC, wk[i].ns);
	}
	if (started < nthr)
		total = 0;
out:
	if (run.cache)
		s->destroy(run.cache);
	kfree(wk);
	return total;
}

/* results[workload][thread config][side] */
static struct bench_series results[NR_WORKLOADS][2][2];

#define LOCK_PAIRS	200000
static struct blockgroup_lock bench_bgl;
static struct hlist_bl_head bench_heads[BENCH_PRESENT];
/* lock_ps[0]: stripe spinlock pair, [1]: chain head bit lock pair */
static struct bench_series lock_ps[2];

/* Picoseconds per lock + unlock of a stripe lock, walking the stripes */
static noinline u64 stripe_lock_pairs(void)
{
	u64 start = ktime_get_ns();
	unsigned int i;

	for (i = 0; i < LOCK_PAIRS; i++) {
		spinlock_t *lock = bgl_lock_ptr(&bench_bgl, i);

		spin_lock(lock);
		spin_unlock(lock);
	}
	return div_u64((ktime_get_ns() - start) * 1000, LOCK_PAIRS);
}

/* The same for the bit lock of a hash chain head, as stock mbcache does */
static noinline u64 bit_lock_pairs(void)
{
	u64 start = ktime_get_ns();
	unsigned int i;

	for (i = 0; i < LOCK_PAIRS; i++) {
		struct hlist_bl_head *head = &bench_heads[i % BENCH_PRESENT];

		hlist_bl_lock(head);
		hlist_bl_unlock(head);
	}
	return div_u64((ktime_get_ns() - start) * 1000, LOCK_PAIRS);
}

static void print_lock_pairs(unsigned int n)
{
	char b[3][24];
	unsigned int k;

	bgl_lock_init(&bench_bgl);
	for (k = 0; k < ARRAY_SIZE(bench_heads); k++)
		INIT_HLIST_BL_HEAD(&bench_heads[k]);
	for (k = 0; k < n; k++) {
		lock_ps[0].v[k] = stripe_lock_pairs();
		lock_ps[1].v[k] = bit_lock_pairs();
		cond_resched();
	}
	bench_summarise(&lock_ps[0], n);
	bench_summarise(&lock_ps[1], n);
	bench_print("Lock + unlock, 1 thread, ns (median [min-max] of %u interleaved runs):", n);
	bench_print("stripe spinlock_t %s [%s-%s],",
		    bench_ns(b[0], lock_ps[0].med), bench_ns(b[1], lock_ps[0].min),
		    bench_ns(b[2], lock_ps[0].max));
	bench_print("stock's chain head bit lock %s [%s-%s].",
		    bench_ns(b[0], lock_ps[1].med), bench_ns(b[1], lock_ps[1].min),
		    bench_ns(b[2], lock_ps[1].max));
}

/*
 * only=WORKLOAD-SIDE (WORKLOAD: insert, lookup, churn, mixed or apart; SIDE: stock
 * or mbcache2): one run of ops operations on every online CPU and no table.
 * The coherence benchmark counts the cache-line transfers of the run from
 * outside the guest.
 */
static int __init run_only(void)
{
	char *dash = strchr(only, '-');
	int w = -1, s = -1;

	if (dash) {
		*dash = '\0';
		w = match_string(workload_keys, NR_WORKLOADS, only);
		if (!strcmp(dash + 1, "stock"))
			s = 0;
		else if (!strcmp(dash + 1, "mbcache2"))
			s = 1;
		*dash = '-';
	}
	if (!dash || w < 0 || s < 0 || !ops || ops % 64) {
		pr_err("only=%s ops=%u: want WORKLOAD-SIDE and ops a multiple of 64\n",
		       only, ops);
		return -EINVAL;
	}
	if (!measure(&sides[s], w, num_online_cpus(), ops))
		return -ENOMEM;
	bench_print("# only %s: %u threads, %u ops each", only,
		    num_online_cpus(), ops);
	return 0;
}

static int __init mbcache2_bench_init(void)
{
	unsigned int threads[2] = { 1, num_online_cpus() };
	unsigned int r, w, t, s;

	apart_init();
	if (only)
		return run_only();
	rounds = clamp(rounds, 1U, (unsigned int)BENCH_MAX_ROUNDS);
	bench_print("# mbcache2 benchmark: A = stock mbcache, B = mbcache2");
	bench_print("# %u rounds of %u ms, A and B interleaved", rounds, run_ms);
	bench_print("# %u online CPUs, bucket_bits %d", threads[1], BENCH_BITS);
	for (r = 0; r < rounds; r++)
		for (w = 0; w < NR_WORKLOADS; w++)
			for (t = 0; t < 2; t++)
				for (s = 0; s < 2; s++)
					results[w][t][s].v[r] =
						measure(&sides[s], w,
							threads[t], 0);

	bench_print("");
	bench_print("| workload | threads | A stock ops/s | B mbcache2 ops/s | %s",
		    "B/A | A min..max | B min..max |");
	bench_print("|---|---:|---:|---:|---:|---:|---:|");
	for (w = 0; w < NR_WORKLOADS; w++) {
		for (t = 0; t < 2; t++) {
			struct bench_series *a = &results[w][t][0];
			struct bench_series *b = &results[w][t][1];
			char ratio[24];

			bench_summarise(a, rounds);
			bench_summarise(b, rounds);
			bench_print("| %s | %u | %llu | %llu | %s | %llu..%llu | %llu..%llu |",
				    workload_names[w], threads[t], a->med, b->med,
				    bench_ratio(ratio, b->med, a->med), a->min,
				    a->max, b->min, b->max);
		}
	}
	bench_print("");
	bench_print("Bytes per entry: stock mbcache %zu (sizeof struct mb_cache_entry),",
		    sizeof(struct mb_cache_entry));
	bench_print("mbcache2 %u (kmem_cache_size of mbcache2_entry).",
		    mbcache2_entry_size());
	bench_print("");
	print_lock_pairs(rounds);
	bench_print("# end");
	return 0;
}

static void __exit mbcache2_bench_exit(void)
{
}

module_init(mbcache2_bench_init);
module_exit(mbcache2_bench_exit);

MODULE_DESCRIPTION("Benchmark: stock mbcache against mbcache2");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(MBCACHE2_NS);
