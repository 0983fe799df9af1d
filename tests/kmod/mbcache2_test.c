// SPDX-License-Identifier: GPL-2.0
/*
 * mbcache2 tests. module_init runs the cases selected by the mode
 * parameter and prints KTAP lines prefixed "ktap: " into the kernel log;
 * it returns 0 even when cases fail so that the harness can unload it.
 *
 *   mode=all    every case (default)
 *   mode=quick  the cases that provoke no warning and take no time, for
 *               load/unload cycles
 *   mode=hold   no cases: create the cache "mbcache2_test-hold" with a few
 *               entries and lookups and keep it until unload (module
 *               refcount and debugfs checks from the shell)
 *   mode=drop   no cases: create the cache "mbcache2_test-drop" with
 *               DROP_UNREF unused entries, DROP_HELD touched entries this
 *               module holds a reference to and DROP_TOUCHED touched unused
 *               ones; /sys/kernel/debug/mbcache2_test/drop reports which
 *               survive, for a drop_caches check from the shell
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blockgroup_lock.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mbcache.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <mbcache2/mbcache2.h>

#include "ktap.h"

static char *mode = "all";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "all, quick, hold or drop");

static unsigned int conc_secs = 3;
module_param(conc_secs, uint, 0444);
MODULE_PARM_DESC(conc_secs, "seconds the concurrency case runs");

static unsigned int slowdown = 1;
module_param(slowdown, uint, 0444);
MODULE_PARM_DESC(slowdown, "multiplies the bound of every wait (a debug kernel)");

/*
 * Evaluate @cond every 20 ms until it holds or 2 s times slowdown have
 * passed; the last value of @cond. For what a background trim does.
 */
#define WAIT_UNTIL(cond)						\
({									\
	unsigned int __i = 0;						\
	bool __done;							\
									\
	while (!(__done = (cond)) && __i++ < 100 * slowdown)		\
		msleep(20);						\
	__done;								\
})

static unsigned int diff_ops = 200000;
module_param(diff_ops, uint, 0444);
MODULE_PARM_DESC(diff_ops, "operations in the differential case");

static struct ktap ktap;

/* Diagnostic on failure; evaluates to the condition */
#define CHECK(cond)							\
({									\
	bool __ok = !!(cond);						\
	if (!__ok)							\
		ktap_print_msg("%s:%d: check failed: %s", __func__,		\
			       __LINE__, #cond);				\
	__ok;								\
})

#define REFCNT(e)	atomic_read(&(e)->e_refcnt)

static bool referenced(struct mbcache2_entry *e)
{
	return test_bit(MBE2_REFERENCED_B, &e->e_flags);
}

static bool stats_entries_ok(struct mbcache2 *cache, u64 want)
{
	struct mbcache2_stats st;

	mbcache2_get_stats(cache, &st);
	if (st.entries == want && mbcache2_count(cache) == want)
		return true;
	ktap_print_msg("entries: stats %llu, stripes %lu, want %llu", st.entries,
		       mbcache2_count(cache), want);
	return false;
}

static bool test_create_bad_args(void)
{
	bool ok = true;

	ok &= CHECK(!mbcache2_create(0, "mbcache2_test-bad"));
	ok &= CHECK(!mbcache2_create(-1, "mbcache2_test-bad"));
	ok &= CHECK(!mbcache2_create(MBCACHE2_MAX_BUCKET_BITS + 1,
				     "mbcache2_test-bad"));
	ok &= CHECK(!mbcache2_create(10, NULL));
	ok &= CHECK(!mbcache2_create(10, ""));
	return ok;
}

static bool test_create_destroy(void)
{
	static const int bits[] = { MBCACHE2_MIN_BUCKET_BITS, 4, 7, 10, 16,
				    MBCACHE2_MAX_BUCKET_BITS };
	bool ok = true;
	int i;

	for (i = 0; i < ARRAY_SIZE(bits); i++) {
		struct mbcache2 *c = mbcache2_create(bits[i], "mbcache2_test-cd");

		if (!CHECK(c))
			return false;
		ok &= CHECK(mbcache2_max_entries(c) == 16UL << bits[i]);
		ok &= CHECK(mbcache2_count(c) == 0);
		ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 1, 1, true)
			    == 0);
		ok &= CHECK(mbcache2_count(c) == 1);
		mbcache2_destroy(c);
	}
	return ok;
}

static bool test_create_get_put(void)
{
	struct mbcache2 *c = mbcache2_create(6, "mbcache2_test-get");
	struct mbcache2_entry *e;
	bool ok = true;

	if (!CHECK(c))
		return false;
	ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 7, 100, false) == 0);
	e = mbcache2_entry_get(c, 7, 100);
	if (CHECK(e)) {
		ok &= CHECK(e->e_key == 7 && e->e_value == 100);
		ok &= CHECK(REFCNT(e) == 2);
		ok &= CHECK(!test_bit(MBE2_REUSABLE_B, &e->e_flags));
		ok &= CHECK(!referenced(e));
		mbcache2_entry_put(c, e);
		ok &= CHECK(REFCNT(e) == 1);
	} else {
		ok = false;
	}
	ok &= CHECK(!mbcache2_entry_get(c, 7, 101));
	ok &= CHECK(!mbcache2_entry_get(c, 8, 100));
	ok &= CHECK(stats_entries_ok(c, 1));
	mbcache2_destroy(c);
	return ok;
}

static bool test_duplicates(void)
{
	struct mbcache2 *c = mbcache2_create(6, "mbcache2_test-dup");
	struct mbcache2_stats st;
	bool ok = true;

	if (!CHECK(c))
		return false;
	ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 1, 1, true) == 0);
	ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 1, 1, true) == -EBUSY);
	/* reusable flag does not make a different pair */
	ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 1, 1, false) ==
		    -EBUSY);
	ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 1, 2, true) == 0);
	ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 2, 1, true) == 0);
	ok &= CHECK(stats_entries_ok(c, 3));
	mbcache2_get_stats(c, &st);
	ok &= CHECK(st.inserts == 3 && st.duplicates == 2);
	mbcache2_destroy(c);
	return ok;
}

/* ext4x's getxattr path: present, and create only if not */
static bool test_present_takes_no_reference(void)
{
	struct mbcache2 *c = mbcache2_create(6, "mbcache2_test-present");
	struct mbcache2_entry *e;
	struct mbcache2_stats st;
	u64 live;
	bool ok = true;
	int i;

	if (!CHECK(c))
		return false;
	ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 5, 50, true) == 0);
	live = mbcache2_live_objects();
	for (i = 0; i < 1000; i++)
		ok &= CHECK(mbcache2_entry_present(c, 5, 50));
	/* No allocation, no insert or duplicate, no reference taken */
	ok &= CHECK(mbcache2_live_objects() == live);
	mbcache2_get_stats(c, &st);
	ok &= CHECK(st.inserts == 1 && st.duplicates == 0);
	ok &= CHECK(st.lookups == 1000 && st.hits == 1000);
	e = mbcache2_entry_get(c, 5, 50);
	if (CHECK(e)) {
		ok &= CHECK(atomic_read(&e->e_refcnt) == 2);
		mbcache2_entry_put(c, e);
	} else {
		ok = false;
	}
	/* Neither another value nor another key is present */
	ok &= CHECK(!mbcache2_entry_present(c, 5, 51));
	ok &= CHECK(!mbcache2_entry_present(c, 6, 50));
	ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 5, 51, false) == 0);
	ok &= CHECK(mbcache2_entry_present(c, 5, 51));
	ok &= CHECK(stats_entries_ok(c, 2));
	mbcache2_destroy(c);
	return ok;
}

static bool test_find_walk(void)
{
	struct mbcache2 *c = mbcache2_create(1, "mbcache2_test-find");
	struct mbcache2_entry *e;
	u64 seen[8];
	int n = 0, i;
	bool ok = true;

	if (!CHECK(c))
		return false;
	/* 2 buckets: other keys share the chain and must be skipped */
	for (i = 1; i <= 5; i++) {
		ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 9, i, true) ==
			    0);
		ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 10 + i, i,
						  true) == 0);
	}
	ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 9, 6, false) == 0);
	ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 9, 7, true) == 0);

	for (e = mbcache2_entry_find_first(c, 9); e;
	     e = mbcache2_entry_find_next(c, e)) {
		if (n < ARRAY_SIZE(seen))
			seen[n] = e->e_value;
		n++;
		ok &= CHECK(REFCNT(e) == 2);
	}
	/* Newest first, the non-reusable one skipped */
	if (CHECK(n == 6)) {
		ok &= CHECK(seen[0] == 7);
		for (i = 1; i < 6; i++)
			ok &= CHECK(seen[i] == 6 - i);
	} else {
		ok = false;
	}
	ok &= CHECK(!mbcache2_entry_find_first(c, 99));
	/* get finds the non-reusable one */
	e = mbcache2_entry_get(c, 9, 6);
	if (CHECK(e))
		mbcache2_entry_put(c, e);
	else
		ok = false;
	/* Every reference dropped by the walk */
	e = mbcache2_entry_get(c, 9, 3);
	if (CHECK(e)) {
		ok &= CHECK(REFCNT(e) == 2);
		mbcache2_entry_put(c, e);
	}
	/* Setting REUSABLE later makes it findable, like ext4 does */
	e = mbcache2_entry_get(c, 9, 6);
	if (CHECK(e)) {
		set_bit(MBE2_REUSABLE_B, &e->e_flags);
		mbcache2_entry_put(c, e);
	}
	e = mbcache2_entry_find_first(c, 9);
	e = e ? mbcache2_entry_find_next(c, e) : NULL;
	ok &= CHECK(e && e->e_value == 6);
	if (e)
		mbcache2_entry_put(c, e);
	mbcache2_destroy(c);
	return ok;
}

static bool test_delete_or_get(void)
{
	struct mbcache2 *c = mbcache2_create(4, "mbcache2_test-del");
	struct mbcache2_entry *e, *d;
	struct mbcache2_stats st;
	bool ok = true;

	if (!CHECK(c))
		return false;
	ok &= CHECK(!mbcache2_entry_delete_or_get(c, 1, 1));
	ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 1, 1, true) == 0);
	ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 1, 2, true) == 0);

	/* Unused (even if referenced): removed */
	e = mbcache2_entry_get(c, 1, 1);
	if (CHECK(e)) {
		mbcache2_entry_touch(c, e);
		mbcache2_entry_put(c, e);
	}
	ok &= CHECK(!mbcache2_entry_delete_or_get(c, 1, 1));
	ok &= CHECK(!mbcache2_entry_get(c, 1, 1));
	ok &= CHECK(stats_entries_ok(c, 1));

	/* In use: stays, and the caller gets a reference */
	e = mbcache2_entry_get(c, 1, 2);
	if (!CHECK(e)) {
		mbcache2_destroy(c);
		return false;
	}
	d = mbcache2_entry_delete_or_get(c, 1, 2);
	ok &= CHECK(d == e);
	ok &= CHECK(REFCNT(e) == 3);
	ok &= CHECK(stats_entries_ok(c, 1));
	if (d)
		mbcache2_entry_put(c, d);
	mbcache2_entry_put(c, e);
	ok &= CHECK(!mbcache2_entry_delete_or_get(c, 1, 2));
	ok &= CHECK(stats_entries_ok(c, 0));
	mbcache2_get_stats(c, &st);
	ok &= CHECK(st.deletes == 2);
	mbcache2_destroy(c);
	return ok;
}

struct holder {
	struct mbcache2 *cache;
	struct mbcache2_entry *entry;
	struct completion got;
	struct completion done;
	unsigned int hold_ms;
	bool released;		/* set just before the holder's put */
};

static int holder_fn(void *data)
{
	struct holder *h = data;

	h->entry = mbcache2_entry_get(h->cache, 3, 33);
	complete(&h->got);
	msleep(h->hold_ms);
	WRITE_ONCE(h->released, true);
	if (h->entry)
		mbcache2_entry_put(h->cache, h->entry);
	kthread_complete_and_exit(&h->done, 0);
}

static bool test_wait_unused(void)
{
	struct holder h = { .hold_ms = 200 };
	struct task_struct *t;
	struct mbcache2_entry *e;
	bool ok = true;

	h.cache = mbcache2_create(4, "mbcache2_test-wait");
	if (!CHECK(h.cache))
		return false;
	init_completion(&h.got);
	init_completion(&h.done);
	ok &= CHECK(mbcache2_entry_create(h.cache, GFP_KERNEL, 3, 33, true)
		    == 0);
	t = kthread_run(holder_fn, &h, "mbcache2_holder");
	if (!CHECK(!IS_ERR(t))) {
		mbcache2_destroy(h.cache);
		return false;
	}
	wait_for_completion(&h.got);
	ok &= CHECK(h.entry);

	e = mbcache2_entry_delete_or_get(h.cache, 3, 33);
	ok &= CHECK(e && e == h.entry);
	if (e) {
		/* the holder is still asleep: this returns after its put */
		mbcache2_entry_wait_unused(e);
		ok &= CHECK(READ_ONCE(h.released));
		ok &= CHECK(REFCNT(e) == 2);
		mbcache2_entry_put(h.cache, e);
	}
	wait_for_completion(&h.done);
	ok &= CHECK(!mbcache2_entry_delete_or_get(h.cache, 3, 33));
	ok &= CHECK(stats_entries_ok(h.cache, 0));
	mbcache2_destroy(h.cache);
	return ok;
}

/* Referenced entries survive one reclaim pass, unreferenced ones do not */
static bool test_second_chance(void)
{
	struct mbcache2 *c = mbcache2_create(1, "mbcache2_test-lru");
	struct mbcache2_entry *e, *held;
	struct mbcache2_stats st;
	bool ok = true;
	int i;

	if (!CHECK(c))
		return false;
	/* 2 buckets, 2 stripes, 16 entries each before trimming */
	for (i = 0; i < 12; i++)
		ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, i, i, true)
			    == 0);
	/* Touch the even ones */
	for (i = 0; i < 12; i += 2) {
		e = mbcache2_entry_get(c, i, i);
		if (CHECK(e)) {
			mbcache2_entry_touch(c, e);
			mbcache2_entry_touch(c, e);
			ok &= CHECK(referenced(e));
			mbcache2_entry_put(c, e);
		}
	}
	/* Hold 11, unreferenced but in use */
	held = mbcache2_entry_get(c, 11, 11);
	if (!CHECK(held)) {
		mbcache2_destroy(c);
		return false;
	}

	/* One pass: frees the 5 unused unreferenced odd ones */
	ok &= CHECK(mbcache2_shrink(c, mbcache2_count(c)) == 5);
	for (i = 0; i < 12; i++) {
		e = mbcache2_entry_get(c, i, i);
		if (i % 2 == 0 || i == 11) {
			if (CHECK(e)) {
				ok &= CHECK(!referenced(e));
				mbcache2_entry_put(c, e);
			}
		} else if (!CHECK(!e)) {
			ok = false;
			mbcache2_entry_put(c, e);
		}
	}
	ok &= CHECK(stats_entries_ok(c, 7));
	/* Second pass: the once-referenced ones go, the held one stays */
	ok &= CHECK(mbcache2_shrink(c, mbcache2_count(c)) == 6);
	ok &= CHECK(stats_entries_ok(c, 1));
	ok &= CHECK(mbcache2_shrink(c, ~0UL) == 0);
	mbcache2_entry_put(c, held);
	ok &= CHECK(mbcache2_shrink(c, 1) == 1);
	ok &= CHECK(stats_entries_ok(c, 0));
	mbcache2_get_stats(c, &st);
	ok &= CHECK(st.evictions == 12);
	mbcache2_destroy(c);
	return ok;
}

/* Inserting far more than the capacity keeps the cache near its limit */
/*
 * A background trim may still be evicting when a test reads the counts:
 * read them until the stats' entry gauge and the stripe counts agree and
 * hold still for 20 ms (at most 2 s times slowdown). An accounting error
 * still shows.
 */
static void settle_stats(struct mbcache2 *c, struct mbcache2_stats *st)
{
	unsigned long prev = ULONG_MAX, now;
	unsigned int i;

	for (i = 0; i < 100 * slowdown; i++) {
		mbcache2_get_stats(c, st);
		now = mbcache2_count(c);
		if (st->entries == now && now == prev)
			return;
		prev = now;
		msleep(20);
	}
}

/* Wait (bounded) for the trim to take @c below its limit */
static bool wait_below_limit(struct mbcache2 *c)
{
	unsigned long max = mbcache2_max_entries(c);

	if (WAIT_UNTIL(mbcache2_count(c) < max))
		return true;
	ktap_print_msg("count %lu, still not below max %lu", mbcache2_count(c),
		       max);
	return false;
}

static bool test_over_limit(void)
{
	struct mbcache2 *c = mbcache2_create(2, "mbcache2_test-limit");
	unsigned long max;
	struct mbcache2_stats st;
	bool ok = true;
	int i;

	if (!CHECK(c))
		return false;
	max = mbcache2_max_entries(c);
	ok &= CHECK(max == 64);
	for (i = 0; i < 5000; i++)
		ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, i, i, true)
			    == 0);
	/* Synchronous reclaim bounds the cache at twice its limit */
	ok &= CHECK(mbcache2_count(c) <= 2 * max);
	/* The trim work brings it below the limit */
	ok &= wait_below_limit(c);
	settle_stats(c, &st);
	ok &= CHECK(st.inserts == 5000);
	ok &= CHECK(st.evictions == 5000 - st.entries);
	ok &= CHECK(st.entries == mbcache2_count(c));
	mbcache2_destroy(c);
	return ok;
}

/*
 * The limit is the whole cache's: entries that all hash to one stripe, far
 * beyond that stripe's even share of the capacity, are not evicted while
 * the cache is under its limit. Both a small cache (each stripe's count is
 * folded into the total on every change) and ext4's geometry (1024
 * buckets, 128 stripes, folded every 8) are checked.
 */
static bool cache_wide_case(int bits, unsigned long one_key)
{
	struct mbcache2 *c = mbcache2_create(bits, "mbcache2_test-wide");
	unsigned long i, max, spread;
	struct mbcache2_stats st;
	bool ok = true;

	if (!CHECK(c))
		return false;
	max = mbcache2_max_entries(c);
	/* One key: one bucket, one stripe */
	for (i = 0; i < one_key; i++)
		ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 7, i, false)
			    == 0);
	/* Then spread keys up to 16 entries below the limit */
	spread = max - 16 - one_key;
	for (i = 0; i < spread; i++)
		ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 1000 + i, i,
						  true) == 0);
	msleep(50);
	settle_stats(c, &st);
	if (!CHECK(st.evictions == 0 && mbcache2_count(c) == max - 16))
		ktap_print_msg("bits %d: %llu evicted, %lu cached of %lu", bits,
			       st.evictions, mbcache2_count(c), max - 16);
	ok &= CHECK(st.entries == max - 16);

	/* Over the limit: the trim work takes the cache below it */
	for (i = 0; i < max / 4; i++)
		ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 5000 + i, i,
						  true) == 0);
	ok &= wait_below_limit(c);
	settle_stats(c, &st);
	ok &= CHECK(st.evictions > 0);
	ok &= CHECK(st.evictions == st.inserts - st.entries);
	mbcache2_destroy(c);
	return ok;
}

static bool test_cache_wide_limit(void)
{
	bool ok = cache_wide_case(4, 200);

	return cache_wide_case(10, 2000) && ok;
}

/* The stripe of @key in a cache of 2^@bits buckets (as mbcache2.c maps it) */
static unsigned int key_stripe(u32 key, int bits)
{
	return hash_32(key, bits) & (min_t(unsigned int, NR_BG_LOCKS, 1 << bits) - 1);
}

/*
 * A shrinker batch (128 entries of ext4's geometry: 1024 buckets, 128
 * stripes) takes the oldest entries of a few stripes, at least 32 of
 * each, and the next batch goes on with the following stripes.
 */
static bool test_shrink_few_stripes(void)
{
	struct mbcache2 *c = mbcache2_create(10, "mbcache2_test-batch");
	unsigned long *seen;
	struct mbcache2_entry *e;
	unsigned int nseen[2] = { 0, 0 }, pass, stripes;
	bool ok = true;
	u32 key;

	seen = bitmap_zalloc(NR_BG_LOCKS, GFP_KERNEL);
	if (!CHECK(c && seen)) {
		ok = false;
		goto out;
	}
	stripes = min_t(unsigned int, NR_BG_LOCKS, 1 << 10);
	for (key = 0; key < 8192; key++)
		ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, key, key,
						  true) == 0);
	for (pass = 0; pass < 2; pass++) {
		unsigned long before = mbcache2_count(c);

		ok &= CHECK(mbcache2_shrink(c, 128) == 128);
		ok &= CHECK(mbcache2_count(c) == before - 128);
		for (key = 0; key < 8192; key++) {
			unsigned int idx = key_stripe(key, 10);

			e = mbcache2_entry_get(c, key, key);
			if (e) {
				mbcache2_entry_put(c, e);
				continue;
			}
			if (!__test_and_set_bit(idx, seen))
				nseen[pass]++;
		}
	}
	/* 128 entries at 32 or more a stripe: 4 stripes a batch, not 128 */
	if (!CHECK(nseen[0] <= 4 && nseen[1] <= 4 && nseen[1] > 0)) {
		ktap_print_msg("stripes touched: %u then %u more of %u",
			       nseen[0], nseen[1], stripes);
		ok = false;
	}
out:
	bitmap_free(seen);
	if (c)
		mbcache2_destroy(c);
	return ok;
}

/*
 * At twice the capacity an inserter that may sleep reclaims from its
 * stripe before it inserts, and the new entry stays. 2 buckets: capacity
 * 32, every change folded.
 */
static bool test_sync_reclaim_before_insert(void)
{
	struct mbcache2 *c = mbcache2_create(1, "mbcache2_test-sync");
	struct mbcache2_entry *held[70], *e;
	unsigned long before, after;
	bool ok = true;
	int i;

	if (!CHECK(c))
		return false;
	/* held entries cannot be reclaimed: the count stays at 70 */
	for (i = 0; i < 70; i++) {
		ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, i, i, true)
			    == 0);
		held[i] = mbcache2_entry_get(c, i, i);
		ok &= CHECK(held[i]);
	}
	/* let the trim queued meanwhile run and find nothing to free */
	msleep(20);
	ok &= CHECK(mbcache2_count(c) == 70);
	for (i = 0; i < 70; i++)
		if (held[i])
			mbcache2_entry_put(c, held[i]);

	/* nothing is queued now: only the inserter can reclaim */
	before = mbcache2_count(c);
	ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, 1000, 1, true) == 0);
	after = mbcache2_count(c);
	if (!CHECK(after < before)) {
		ktap_print_msg("count %lu after the insert, %lu before", after,
			       before);
		ok = false;
	}
	e = mbcache2_entry_get(c, 1000, 1);
	ok &= CHECK(e);
	if (e)
		mbcache2_entry_put(c, e);
	mbcache2_destroy(c);
	return ok;
}

static u64 trims_of(struct mbcache2 *c)
{
	struct mbcache2_stats st;

	mbcache2_get_stats(c, &st);
	return st.trims;
}

/* Create @n entries of a 1024-bucket cache's stripe 0, keys from *@key up */
static bool create_in_stripe0(struct mbcache2 *c, u32 *key, unsigned int n)
{
	bool ok = true;

	for (; ok && n; (*key)++) {
		if (key_stripe(*key, 10))
			continue;
		ok = CHECK(mbcache2_entry_create(c, GFP_KERNEL, *key, *key,
						 true) == 0);
		n--;
	}
	return ok;
}

/*
 * A trim that finds the cache under its capacity (the folded count was
 * high by its slack) is not queued again until the folded count has grown
 * by what the cache lacked. ext4's geometry: 128 stripes folded every 8.
 * Every stripe gets a multiple of 8 entries (all folded, 16376 in all),
 * then 127 stripes lose 7 each (not folded): the folded count stays 16376
 * while the cache holds 15487. 8 more entries in stripe 0 fold the total
 * to the capacity (16384): one trim runs and frees nothing. 8 more fold
 * again: no second trim.
 */
static bool test_trim_only_when_it_frees(void)
{
	struct mbcache2 *c = mbcache2_create(10, "mbcache2_test-trim");
	unsigned int stripes = min_t(unsigned int, NR_BG_LOCKS, 1 << 10);
	unsigned int *have, idx, n = 0, i;
	struct mbcache2_entry *e;
	struct mbcache2_stats st;
	bool ok = true;
	u32 key, *keys;

	have = kcalloc(stripes, sizeof(*have), GFP_KERNEL);
	keys = kvmalloc_array(16376, sizeof(*keys), GFP_KERNEL);
	if (!CHECK(c && have && keys) || !CHECK(stripes == 128)) {
		ok = false;
		goto out;
	}
	/* 128 entries a stripe, 120 in the last one: 16376, all folded */
	for (key = 0; ok && n < 16376; key++) {
		idx = key_stripe(key, 10);
		if (have[idx] == (idx == stripes - 1 ? 120 : 128))
			continue;
		ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, key, key,
						  true) == 0);
		have[idx]++;
		keys[n++] = key;
	}
	/* 7 fewer in stripes 1..127: each stays short of its next fold */
	memset(have, 0, stripes * sizeof(*have));
	for (i = 0; ok && i < n; i++) {
		idx = key_stripe(keys[i], 10);
		if (!idx || have[idx] == 7)
			continue;
		e = mbcache2_entry_delete_or_get(c, keys[i], keys[i]);
		if (!CHECK(!e)) {
			mbcache2_entry_put(c, e);
			ok = false;
		}
		have[idx]++;
	}
	ok &= CHECK(mbcache2_count(c) == 15487 && trims_of(c) == 0);

	/* 8 new keys of stripe 0 fold the total to the capacity */
	key = 0x80000000;
	ok = ok && create_in_stripe0(c, &key, 8);
	ok &= CHECK(WAIT_UNTIL(trims_of(c) >= 1));
	/* 8 more fold again, below what the trim left as its threshold */
	ok = ok && create_in_stripe0(c, &key, 8);
	msleep(100);
	mbcache2_get_stats(c, &st);
	if (!CHECK(st.trims == 1 && st.evictions == 0)) {
		ktap_print_msg("trims %llu, evictions %llu", st.trims,
			       st.evictions);
		ok = false;
	}
out:
	kvfree(keys);
	kfree(have);
	if (c)
		mbcache2_destroy(c);
	return ok;
}

static bool test_stats_reset(void)
{
	struct mbcache2 *c = mbcache2_create(4, "mbcache2_test-stats");
	struct mbcache2_entry *e;
	struct mbcache2_stats st;
	bool ok = true;
	int i;

	if (!CHECK(c))
		return false;
	for (i = 0; i < 10; i++)
		mbcache2_entry_create(c, GFP_KERNEL, i, i, true);
	for (i = 0; i < 20; i++) {
		e = mbcache2_entry_get(c, i, i);
		if (e)
			mbcache2_entry_put(c, e);
	}
	mbcache2_get_stats(c, &st);
	ok &= CHECK(st.lookups == 20 && st.hits == 10 && st.inserts == 10);
	ok &= CHECK(st.entries == 10);
	mbcache2_reset_stats(c);
	mbcache2_get_stats(c, &st);
	ok &= CHECK(st.lookups == 0 && st.hits == 0 && st.inserts == 0);
	ok &= CHECK(st.entries == 10);
	ok &= CHECK(!mbcache2_entry_delete_or_get(c, 0, 0));
	mbcache2_entry_create(c, GFP_KERNEL, 0, 0, true);
	mbcache2_get_stats(c, &st);
	ok &= CHECK(st.deletes == 1 && st.inserts == 1 && st.entries == 10);
	mbcache2_destroy(c);
	return ok;
}

static bool test_entry_size(void)
{
	unsigned int ours = mbcache2_entry_size();

	ktap_print_msg("entry bytes: mbcache2 %u, stock mbcache %zu", ours,
		       sizeof(struct mb_cache_entry));
	return CHECK(ours >= sizeof(struct mbcache2_entry)) &&
	       CHECK(ours <= sizeof(struct mb_cache_entry));
}

static bool test_destroy_busy(void)
{
	struct mbcache2 *c = mbcache2_create(3, "mbcache2_test-busy");
	struct mbcache2_entry *e;
	u64 live;
	bool ok = true;
	int i;

	if (!CHECK(c))
		return false;
	live = mbcache2_live_objects();
	for (i = 0; i < 10; i++)
		ok &= CHECK(mbcache2_entry_create(c, GFP_KERNEL, i, i, true)
			    == 0);
	e = mbcache2_entry_get(c, 4, 4);
	if (!CHECK(e)) {
		mbcache2_destroy(c);
		return false;
	}
	ok &= CHECK(mbcache2_live_objects() == live + 10);
	ktap_expect_warn_begin();
	mbcache2_destroy(c);
	ktap_expect_warn_end();
	/* The held entry outlives its cache, unhashed, with our reference */
	ok &= CHECK(mbcache2_live_objects() == live + 1);
	ok &= CHECK(REFCNT(e) == 1);
	ok &= CHECK(hlist_unhashed(&e->e_hash_list));
	ok &= CHECK(e->e_key == 4 && e->e_value == 4);
	mbcache2_entry_put(c, e);
	ok &= CHECK(mbcache2_live_objects() == live);
	return ok;
}

/*
 * Differential test: the same pseudo-random operations on the stock
 * mbcache and on mbcache2 must give the same results. The key space (64
 * keys x 32 values, at most 2048 entries, at most a few keys per stripe)
 * stays far below both capacities (16384 for 10 bucket bits; 128 per
 * mbcache2 stripe), so no reclaim runs on either side; the case checks
 * that mbcache2 evicted nothing.
 */
#define DIFF_KEYS	64
#define DIFF_VALUES	32
#define DIFF_HELD	16
#define DIFF_WALK	(DIFF_VALUES + 1)

struct diff_state {
	struct mb_cache *a;
	struct mbcache2 *b;
	struct mb_cache_entry *held_a[DIFF_HELD];
	struct mbcache2_entry *held_b[DIFF_HELD];
	struct rnd_state rnd;
	unsigned long op;
	unsigned long counts[8];
};

static bool diff_same(struct diff_state *s, struct mb_cache_entry *ea,
		      struct mbcache2_entry *eb, const char *what)
{
	if (!ea && !eb)
		return true;
	if (ea && eb && ea->e_key == eb->e_key && ea->e_value == eb->e_value &&
	    test_bit(MBE_REUSABLE_B, &ea->e_flags) ==
	    test_bit(MBE2_REUSABLE_B, &eb->e_flags))
		return true;
	ktap_print_msg("op %lu %s: stock %s %u/%llu, mbcache2 %s %u/%llu", s->op,
		       what, ea ? "entry" : "NULL", ea ? ea->e_key : 0,
		       ea ? ea->e_value : 0, eb ? "entry" : "NULL",
		       eb ? eb->e_key : 0, eb ? eb->e_value : 0);
	return false;
}

/* Keep the pair of references in a held slot, dropping what was there */
static void diff_hold(struct diff_state *s, struct mb_cache_entry *ea,
		      struct mbcache2_entry *eb)
{
	unsigned int slot = prandom_u32_state(&s->rnd) % DIFF_HELD;

	if (s->held_a[slot])
		mb_cache_entry_put(s->a, s->held_a[slot]);
	if (s->held_b[slot])
		mbcache2_entry_put(s->b, s->held_b[slot]);
	s->held_a[slot] = ea;
	s->held_b[slot] = eb;
}

static bool diff_step(struct diff_state *s)
{
	u32 r = prandom_u32_state(&s->rnd);
	u32 key = prandom_u32_state(&s->rnd) % DIFF_KEYS;
	u64 value = prandom_u32_state(&s->rnd) % DIFF_VALUES;
	bool reusable = r & 0x100;
	struct mb_cache_entry *ea;
	struct mbcache2_entry *eb;
	unsigned int slot, n;
	int ra, rb;

	switch (r % 8) {
	case 0:	/* create */
	case 1:
		ra = mb_cache_entry_create(s->a, GFP_KERNEL, key, value,
					   reusable);
		rb = mbcache2_entry_create(s->b, GFP_KERNEL, key, value,
					   reusable);
		if (ra != rb) {
			ktap_print_msg("op %lu create: %d vs %d", s->op, ra, rb);
			return false;
		}
		return true;
	case 2:	/* ext4x's getxattr path against stock's plain create */
		ra = mb_cache_entry_create(s->a, GFP_KERNEL, key, value,
					   reusable);
		rb = -EBUSY;
		if (!mbcache2_entry_present(s->b, key, value))
			rb = mbcache2_entry_create(s->b, GFP_KERNEL, key, value,
						   reusable);
		if (ra != rb) {
			ktap_print_msg("op %lu present/create: %d vs %d", s->op,
				       ra, rb);
			return false;
		}
		return true;
	case 3:	/* get, then keep or drop */
		ea = mb_cache_entry_get(s->a, key, value);
		eb = mbcache2_entry_get(s->b, key, value);
		if (!diff_same(s, ea, eb, "get"))
			return false;
		if (ea && (r & 0x200)) {
			diff_hold(s, ea, eb);
		} else if (ea) {
			mb_cache_entry_put(s->a, ea);
			mbcache2_entry_put(s->b, eb);
		}
		return true;
	case 4:	/* walk all reusable entries of a key */
		ea = mb_cache_entry_find_first(s->a, key);
		eb = mbcache2_entry_find_first(s->b, key);
		for (n = 0; n < DIFF_WALK; n++) {
			if (!diff_same(s, ea, eb, "find")) {
				if (ea)
					mb_cache_entry_put(s->a, ea);
				if (eb)
					mbcache2_entry_put(s->b, eb);
				return false;
			}
			if (!ea)
				return true;
			if (n == 0 && (r & 0x200)) {
				diff_hold(s, ea, eb);
				return true;
			}
			ea = mb_cache_entry_find_next(s->a, ea);
			eb = mbcache2_entry_find_next(s->b, eb);
		}
		ktap_print_msg("op %lu find: walk longer than %d", s->op, DIFF_WALK);
		return false;
	case 5:	/* delete_or_get */
		ea = mb_cache_entry_delete_or_get(s->a, key, value);
		eb = mbcache2_entry_delete_or_get(s->b, key, value);
		if (!diff_same(s, ea, eb, "delete_or_get"))
			return false;
		if (ea) {
			mb_cache_entry_put(s->a, ea);
			mbcache2_entry_put(s->b, eb);
		}
		return true;
	case 6:	/* touch a held entry */
		slot = key % DIFF_HELD;
		if (s->held_a[slot]) {
			mb_cache_entry_touch(s->a, s->held_a[slot]);
			mbcache2_entry_touch(s->b, s->held_b[slot]);
		}
		return true;
	default: /* put a held entry */
		slot = key % DIFF_HELD;
		if (s->held_a[slot]) {
			mb_cache_entry_put(s->a, s->held_a[slot]);
			mbcache2_entry_put(s->b, s->held_b[slot]);
			s->held_a[slot] = NULL;
			s->held_b[slot] = NULL;
		}
		return true;
	}
}

static bool test_differential(void)
{
	struct diff_state *s;
	struct mbcache2_stats st;
	struct mb_cache_entry *ea;
	struct mbcache2_entry *eb;
	unsigned long present = 0;
	bool ok = true;
	u32 key;
	u64 value;
	int i;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!CHECK(s))
		return false;
	prandom_seed_state(&s->rnd, 0x6d62636163686532ULL);
	s->a = mb_cache_create(10);
	s->b = mbcache2_create(10, "mbcache2_test-diff");
	if (!CHECK(s->a && s->b))
		goto out;

	for (s->op = 0; s->op < diff_ops; s->op++) {
		if (!diff_step(s)) {
			ok = false;
			break;
		}
	}
	for (i = 0; i < DIFF_HELD; i++)
		if (s->held_a[i]) {
			mb_cache_entry_put(s->a, s->held_a[i]);
			mbcache2_entry_put(s->b, s->held_b[i]);
		}
	/* Same final contents */
	for (key = 0; key < DIFF_KEYS; key++) {
		for (value = 0; value < DIFF_VALUES; value++) {
			ea = mb_cache_entry_get(s->a, key, value);
			eb = mbcache2_entry_get(s->b, key, value);
			ok &= diff_same(s, ea, eb, "final get");
			if (ea) {
				present++;
				mb_cache_entry_put(s->a, ea);
			}
			if (eb)
				mbcache2_entry_put(s->b, eb);
		}
	}
	mbcache2_get_stats(s->b, &st);
	ok &= CHECK(st.evictions == 0);
	ok &= CHECK(st.entries == present);
	ktap_print_msg("differential: %lu ops, %lu entries left", s->op, present);
	ktap_print_msg("differential: %llu inserts %llu deletes %llu lookups",
		       st.inserts, st.deletes, st.lookups);
out:
	if (s->a)
		mb_cache_destroy(s->a);
	if (s->b)
		mbcache2_destroy(s->b);
	kfree(s);
	return ok;
}

/*
 * Concurrency: one thread per online CPU inserting, looking up, touching,
 * walking, deleting and releasing shared and private keys in a small cache
 * (so that the trim work and synchronous reclaim run too).
 */
#define CONC_SHARED_KEYS	256
#define CONC_VALUES		8

struct conc_thread {
	struct mbcache2 *cache;
	struct completion done;
	unsigned long deadline;
	unsigned int id;
	unsigned long ops;
	unsigned long errors;
};

static void conc_check(struct conc_thread *t, struct mbcache2_entry *e,
		       u32 key, u64 value)
{
	if (e->e_key != key || (value != U64_MAX && e->e_value != value) ||
	    REFCNT(e) < 2)
		t->errors++;
}

static int conc_fn(void *data)
{
	struct conc_thread *t = data;
	struct mbcache2 *c = t->cache;
	struct mbcache2_entry *e, *held = NULL;
	struct rnd_state rnd;

	prandom_seed_state(&rnd, t->id + 1);
	while (time_before(jiffies, t->deadline)) {
		u32 r = prandom_u32_state(&rnd);
		u64 value = (r >> 8) % CONC_VALUES;
		u32 key;
		int i;

		if (r & 0x10000)
			key = (r >> 12) % CONC_SHARED_KEYS;
		else
			key = 0x100000 * (t->id + 1) + (r >> 12) % 64;

		switch (r % 8) {
		case 0:
		case 1:
			mbcache2_entry_create(c, GFP_KERNEL, key, value, r & 0x20);
			break;
		case 2:
			if (!mbcache2_entry_present(c, key, value))
				mbcache2_entry_create(c, GFP_KERNEL, key, value,
						      true);
			break;
		case 3:
			e = mbcache2_entry_get(c, key, value);
			if (e) {
				conc_check(t, e, key, value);
				mbcache2_entry_touch(c, e);
				if (!held && (r & 0x40))
					held = e;
				else
					mbcache2_entry_put(c, e);
			}
			break;
		case 4:
			i = 0;
			for (e = mbcache2_entry_find_first(c, key); e && i < 64;
			     e = mbcache2_entry_find_next(c, e), i++)
				conc_check(t, e, key, U64_MAX);
			if (e)
				mbcache2_entry_put(c, e);
			break;
		case 5:
		case 6:
			e = mbcache2_entry_delete_or_get(c, key, value);
			if (e) {
				conc_check(t, e, key, value);
				mbcache2_entry_put(c, e);
			}
			break;
		default:
			if (held) {
				mbcache2_entry_put(c, held);
				held = NULL;
			} else if ((r & 0xf00) == 0) {
				mbcache2_shrink(c, 16);
			}
			break;
		}
		t->ops++;
		if ((t->ops & 255) == 0)
			cond_resched();
	}
	if (held)
		mbcache2_entry_put(c, held);
	kthread_complete_and_exit(&t->done, 0);
}

static bool test_concurrency(void)
{
	unsigned int n = max(num_online_cpus(), 2U), i, cpu, started = 0;
	struct conc_thread *threads;
	struct mbcache2_stats st;
	unsigned long ops = 0, errors = 0, left;
	struct mbcache2 *c;
	u64 live;
	bool ok = true;

	live = mbcache2_live_objects();
	threads = kcalloc(n, sizeof(*threads), GFP_KERNEL);
	if (!CHECK(threads))
		return false;
	c = mbcache2_create(4, "mbcache2_test-conc");
	if (!CHECK(c)) {
		kfree(threads);
		return false;
	}
	cpu = cpumask_first(cpu_online_mask);
	for (i = 0; i < n; i++) {
		struct task_struct *task;

		threads[i].cache = c;
		threads[i].id = i;
		threads[i].deadline = jiffies + conc_secs * HZ;
		init_completion(&threads[i].done);
		task = kthread_create(conc_fn, &threads[i], "mbcache2_conc/%u",
				      i);
		if (IS_ERR(task)) {
			ok = false;
			break;
		}
		kthread_bind(task, cpu);
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
		wake_up_process(task);
		started++;
	}
	for (i = 0; i < started; i++) {
		wait_for_completion(&threads[i].done);
		ops += threads[i].ops;
		errors += threads[i].errors;
	}
	ok &= CHECK(errors == 0);
	/* The threads are done; a trim one of them queued may not be. */
	settle_stats(c, &st);
	ktap_print_msg("concurrency: %u threads, %lu ops", started, ops);
	ktap_print_msg("concurrency: %llu inserts %llu evictions %llu deletes %llu left",
		       st.inserts, st.evictions, st.deletes, st.entries);
	ok &= CHECK(st.entries == mbcache2_count(c));
	ok &= CHECK(st.inserts == st.evictions + st.deletes + st.entries);
	/* Nothing is in use: two passes (second chance) empty the cache */
	mbcache2_shrink(c, ~0UL);
	mbcache2_shrink(c, ~0UL);
	left = mbcache2_count(c);
	ok &= CHECK(left == 0);
	ok &= CHECK(stats_entries_ok(c, 0));
	mbcache2_destroy(c);
	ok &= CHECK(mbcache2_live_objects() == live);
	kfree(threads);
	return ok;
}

struct test_case {
	const char *name;
	bool (*fn)(void);
	bool quick;
};

static const struct test_case cases[] = {
	{ "create_rejects_bad_arguments", test_create_bad_args, true },
	{ "create_destroy_all_sizes", test_create_destroy, true },
	{ "create_get_put", test_create_get_put, true },
	{ "duplicate_pair_is_ebusy", test_duplicates, true },
	{ "present_takes_no_reference", test_present_takes_no_reference, true },
	{ "find_first_next_walk", test_find_walk, true },
	{ "delete_or_get_unused_and_used", test_delete_or_get, true },
	{ "wait_unused_waits_for_other_user", test_wait_unused, false },
	{ "touch_gives_second_chance", test_second_chance, true },
	{ "over_limit_trims_to_capacity", test_over_limit, true },
	{ "limit_is_cache_wide_not_per_stripe", test_cache_wide_limit, true },
	{ "shrink_batch_takes_few_stripes", test_shrink_few_stripes, true },
	{ "sync_reclaim_before_insert", test_sync_reclaim_before_insert, false },
	{ "trim_queued_only_when_it_frees", test_trim_only_when_it_frees, false },
	{ "stats_and_reset", test_stats_reset, true },
	{ "entry_size_not_above_stock", test_entry_size, true },
	{ "destroy_with_busy_entry_warns_no_leak", test_destroy_busy, false },
	{ "differential_vs_stock_mbcache", test_differential, false },
	{ "concurrency_one_thread_per_cpu", test_concurrency, false },
};

/* mode=hold */
static struct mbcache2 *hold_cache;

/* mode=drop */
#define DROP_UNREF	1000
#define DROP_HELD	100
#define DROP_TOUCHED	100
#define DROP_KEY_UNREF	0
#define DROP_KEY_HELD	1
#define DROP_KEY_TOUCHED 2
static struct mbcache2 *drop_cache;
static struct mbcache2_entry **drop_held;
static struct dentry *drop_dir;

static int drop_populate(void)
{
	struct mbcache2_entry *e;
	int i;

	drop_cache = mbcache2_create(10, "mbcache2_test-drop");
	drop_held = kcalloc(DROP_HELD, sizeof(*drop_held), GFP_KERNEL);
	if (!drop_cache || !drop_held)
		return -ENOMEM;
	/* Keys spread the entries over many buckets and stripes */
	for (i = 0; i < DROP_UNREF; i++)
		mbcache2_entry_create(drop_cache, GFP_KERNEL,
				      i * 3 + DROP_KEY_UNREF, i, true);
	for (i = 0; i < DROP_HELD; i++) {
		mbcache2_entry_create(drop_cache, GFP_KERNEL,
				      i * 3 + DROP_KEY_HELD, i, true);
		e = mbcache2_entry_get(drop_cache, i * 3 + DROP_KEY_HELD, i);
		if (!e)
			return -ENOMEM;
		mbcache2_entry_touch(drop_cache, e);
		drop_held[i] = e;
	}
	for (i = 0; i < DROP_TOUCHED; i++) {
		mbcache2_entry_create(drop_cache, GFP_KERNEL,
				      i * 3 + DROP_KEY_TOUCHED, i, true);
		e = mbcache2_entry_get(drop_cache, i * 3 + DROP_KEY_TOUCHED,
				       i);
		if (!e)
			return -ENOMEM;
		mbcache2_entry_touch(drop_cache, e);
		mbcache2_entry_put(drop_cache, e);
	}
	return 0;
}

static void drop_count(struct seq_file *m, const char *name, u32 kind,
		       int n)
{
	struct mbcache2_entry *e;
	int i, alive = 0, refd = 0;

	for (i = 0; i < n; i++) {
		e = mbcache2_entry_get(drop_cache, i * 3 + kind, i);
		if (!e)
			continue;
		alive++;
		refd += referenced(e);
		mbcache2_entry_put(drop_cache, e);
	}
	seq_printf(m, "%s_alive %d\n%s_referenced %d\n", name, alive, name,
		   refd);
}

static int drop_show(struct seq_file *m, void *unused)
{
	drop_count(m, "unref", DROP_KEY_UNREF, DROP_UNREF);
	drop_count(m, "held", DROP_KEY_HELD, DROP_HELD);
	drop_count(m, "touched", DROP_KEY_TOUCHED, DROP_TOUCHED);
	seq_printf(m, "count %lu\n", mbcache2_count(drop_cache));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(drop);

static void drop_release(void)
{
	int i;

	debugfs_remove_recursive(drop_dir);
	if (drop_held)
		for (i = 0; i < DROP_HELD; i++)
			if (drop_held[i])
				mbcache2_entry_put(drop_cache, drop_held[i]);
	kfree(drop_held);
	if (drop_cache)
		mbcache2_destroy(drop_cache);
}

static int hold_populate(void)
{
	struct mbcache2_entry *e;
	int i;

	hold_cache = mbcache2_create(8, "mbcache2_test-hold");
	if (!hold_cache)
		return -ENOMEM;
	for (i = 0; i < 10; i++)
		mbcache2_entry_create(hold_cache, GFP_KERNEL, i, i, true);
	mbcache2_entry_create(hold_cache, GFP_KERNEL, 0, 0, true);
	for (i = 0; i < 20; i++) {
		e = mbcache2_entry_get(hold_cache, i, i);
		if (e)
			mbcache2_entry_put(hold_cache, e);
	}
	return 0;
}

static int __init mbcache2_test_init(void)
{
	bool quick = !strcmp(mode, "quick");
	int i, planned = 0, err;

	if (!strcmp(mode, "hold"))
		return hold_populate();
	if (!strcmp(mode, "drop")) {
		err = drop_populate();
		if (err) {
			drop_release();
			return err;
		}
		drop_dir = debugfs_create_dir("mbcache2_test", NULL);
		debugfs_create_file("drop", 0400, drop_dir, NULL, &drop_fops);
		return 0;
	}
	if (!quick && strcmp(mode, "all")) {
		pr_err("unknown mode %s\n", mode);
		return -EINVAL;
	}

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		planned += !quick || cases[i].quick;
	ktap_print_header();
	ktap_set_plan(&ktap, planned);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (quick && !cases[i].quick)
			continue;
		ktap_test_result(&ktap, cases[i].fn(), cases[i].name);
	}
	ktap_print_msg("mbcache2 live objects at the end: %llu",
		       mbcache2_live_objects());
	return 0;
}

static void __exit mbcache2_test_exit(void)
{
	if (hold_cache)
		mbcache2_destroy(hold_cache);
	if (drop_cache)
		drop_release();
}

module_init(mbcache2_test_init);
module_exit(mbcache2_test_exit);

MODULE_DESCRIPTION("mbcache2 tests (KTAP in the kernel log)");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(MBCACHE2_NS);
