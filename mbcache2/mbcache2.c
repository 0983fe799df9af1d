// SPDX-License-Identifier: GPL-2.0
/*
 * mbcache2 - a meta block cache whose operations share no cache line
 *
 * The API follows mbcache (fs/mbcache.c): a cache maps a 32-bit key to
 * 64-bit values, a (key, value) pair is unique, entries are reference
 * counted and the cache holds one reference while an entry is hashed.
 *
 * Locking: the hash buckets are striped over the spinlocks of a struct
 * blockgroup_lock; bucket b belongs to stripe b & (nr_stripes - 1). The
 * stripe lock guards the stripe's chains, its LRU list and its count
 * (struct mbc2_stripe, one cache line each). An entry's hash reference is
 * dropped only under its stripe lock, together with the unhashing, so an
 * entry found in a chain has e_refcnt >= 1 and an entry whose last
 * reference goes in mbcache2_entry_put() is already unhashed: freeing it
 * never touches the cache.
 *
 * Counting without a shared line: a stripe adds its count change to the
 * cache-wide c_folded_count only every c_fold entries, so that total is
 * off by less than c_slack = nr_stripes * c_fold. Every operation reads
 * the cache's first lines and writes none of them; the folded count and
 * the reclaim cursor live on lines of their own.
 *
 * Reclaim is second chance per stripe (the head of a stripe's LRU is freed
 * if unused and unreferenced, otherwise it loses its referenced bit and
 * goes to the tail). A scan takes the stripes round robin from a cursor,
 * at least MBC2_SCAN_QUANTUM entries from each, so a shrinker batch takes
 * a few locks. The capacity is cache-wide (16 entries per bucket): a fold
 * that reaches it queues the trim work, which scans the cache down to 7/8
 * of it; at twice the capacity inserters reclaim from their own stripe
 * before they insert, as mbcache's inserters do.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blockgroup_lock.h>
#include <linux/debugfs.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <mbcache2/mbcache2.h>
#include <percpu_stats/percpu_stats.h>

#include "compat.h"

#define MBC2_NAME_LEN		32
/* Entries an inserter scans in its own stripe at twice the capacity */
#define MBC2_SYNC_SHRINK_BATCH	64
/* The trim work scans a full cache down to (1 - 1/8) of its capacity */
#define MBC2_TRIM_DIVISOR	8
/* A stripe folds its count every 1/16 of its even share, at most 64 */
#define MBC2_FOLD_DIVISOR	16
#define MBC2_FOLD_MAX		64
/* Fewest entries a scan takes from a stripe it visits */
#define MBC2_SCAN_QUANTUM	32UL
/* Most entries scanned under one hold of a stripe lock */
#define MBC2_SCAN_CHUNK		64UL

enum mbc2_event {
	MBC2_MISSES,
	MBC2_HITS,
	MBC2_INSERTS,
	MBC2_DUPLICATES,
	MBC2_DELETES,
	MBC2_EVICTIONS,
	MBC2_TRIMS,
	MBC2_NR_EVENTS
};

/* A stripe's LRU and count, under its lock; s_count is read locklessly */
struct mbc2_stripe {
	struct list_head	s_lru;		/* oldest first */
	unsigned long		s_count;
	long			s_unfolded;	/* not yet in c_folded_count */
} ____cacheline_aligned_in_smp;

/* One cache, normally one per device */
struct mbcache2 {
	struct blockgroup_lock	c_bgl;		/* the stripe locks */

	/* read by every operation, written at creation */
	struct hlist_head	*c_hash;	/* 2^c_bucket_bits chains */
	struct mbc2_stripe	*c_stripes;	/* one per lock in c_bgl */
	unsigned int		c_bucket_bits;
	unsigned int		c_nr_stripes;	/* a power of two */
	unsigned long		c_max_entries;	/* the capacity */
	unsigned long		c_fold;		/* a stripe folds at +-c_fold */
	unsigned long		c_slack;	/* c_folded_count's error */
	struct percpu_stats	c_events;	/* enum mbc2_event */
	struct percpu_stats	c_entries;	/* one gauge: entries cached */
	/* twice the capacity: inserters reclaim first (written on change) */
	bool			c_reclaim_sync;

	/* written by folds */
	atomic_long_t		c_folded_count ____cacheline_aligned_in_smp;
	long			c_trim_at;	/* fold total that queues a trim */

	/* written by reclaim */
	unsigned int		c_shrink_cursor ____cacheline_aligned_in_smp;
	struct shrinker		*c_shrink;
	struct work_struct	c_trim_work;
	struct dentry		*c_debugfs;
	char			c_name[MBC2_NAME_LEN];	/* '/' made '!' */
};

static struct kmem_cache *mbc2_entry_cache;
/* Entries allocated and not yet freed, over all caches */
static struct percpu_stats mbc2_live;
static struct dentry *mbc2_debugfs_root;

static inline unsigned int mbc2_bucket(const struct mbcache2 *cache, u32 key)
{
	return hash_32(key, cache->c_bucket_bits);
}

static inline unsigned int mbc2_stripe_idx(const struct mbcache2 *cache,
					   unsigned int bucket)
{
	return bucket & (cache->c_nr_stripes - 1);
}

static inline spinlock_t *mbc2_lock(struct mbcache2 *cache, unsigned int idx)
{
	return bgl_lock_ptr(&cache->c_bgl, idx);
}

/* (@key, @value) in @bucket's chain, or NULL; caller holds its stripe lock */
static inline struct mbcache2_entry *mbc2_chain_find(struct mbcache2 *cache,
						     unsigned int bucket,
						     u32 key, u64 value)
{
	struct mbcache2_entry *entry;

	hlist_for_each_entry(entry, &cache->c_hash[bucket], e_hash_list)
		if (entry->e_key == key && entry->e_value == value)
			return entry;
	return NULL;
}

static struct mbcache2_entry *mbc2_entry_alloc(gfp_t mask, u32 key,
					       u64 value, bool reusable)
{
	struct mbcache2_entry *entry;

	entry = kmem_cache_alloc(mbc2_entry_cache, mask);
	if (!entry)
		return NULL;
	INIT_LIST_HEAD(&entry->e_list);
	INIT_HLIST_NODE(&entry->e_hash_list);
	/* the reference the hash table will own */
	atomic_set(&entry->e_refcnt, 1);
	entry->e_key = key;
	entry->e_value = value;
	entry->e_flags = reusable ? BIT(MBE2_REUSABLE_B) : 0;
	percpu_stats_inc(&mbc2_live, 0);
	return entry;
}

static void mbc2_entry_free(struct mbcache2_entry *entry)
{
	kmem_cache_free(mbc2_entry_cache, entry);
	percpu_stats_dec(&mbc2_live, 0);
}

static void mbc2_set_reclaim_sync(struct mbcache2 *cache, bool on)
{
	if (READ_ONCE(cache->c_reclaim_sync) != on)
		WRITE_ONCE(cache->c_reclaim_sync, on);
}

/* Add a stripe's count change to the cache total and act on the total */
static noinline void mbc2_fold(struct mbcache2 *cache,
			       struct mbc2_stripe *stripe, long unfolded)
{
	long total;

	stripe->s_unfolded = 0;
	total = atomic_long_add_return(unfolded, &cache->c_folded_count);
	/* on at twice the capacity, off below it: no flip-flop at one level */
	if (total >= 2 * (long)cache->c_max_entries)
		mbc2_set_reclaim_sync(cache, true);
	else if (total < (long)cache->c_max_entries)
		mbc2_set_reclaim_sync(cache, false);
	/* only growth calls for a trim; the trim's own folds are negative */
	if (unfolded > 0 && total >= READ_ONCE(cache->c_trim_at) &&
	    !work_pending(&cache->c_trim_work))
		schedule_work(&cache->c_trim_work);
}

/* Change a stripe's count by @delta under its lock; fold it when due */
static inline void mbc2_stripe_count(struct mbcache2 *cache,
				     struct mbc2_stripe *stripe, long delta)
{
	long unfolded = stripe->s_unfolded + delta;

	WRITE_ONCE(stripe->s_count, stripe->s_count + delta);
	if (likely(abs(unfolded) < cache->c_fold))
		stripe->s_unfolded = unfolded;
	else
		mbc2_fold(cache, stripe, unfolded);
}

/* Caller holds the stripe lock and has taken the hash reference */
static inline void mbc2_unlink(struct mbcache2 *cache,
			       struct mbc2_stripe *stripe,
			       struct mbcache2_entry *entry)
{
	hlist_del_init(&entry->e_hash_list);
	list_del_init(&entry->e_list);
	mbc2_stripe_count(cache, stripe, -1);
}

/* Scan @nr_to_scan entries from the head of stripe @idx's LRU */
static unsigned long mbc2_shrink_stripe(struct mbcache2 *cache,
					unsigned int idx,
					unsigned long nr_to_scan)
{
	struct mbc2_stripe *stripe = &cache->c_stripes[idx];
	spinlock_t *lock = mbc2_lock(cache, idx);
	struct mbcache2_entry *entry, *next;
	unsigned long freed = 0;
	LIST_HEAD(dispose);

	while (nr_to_scan) {
		unsigned long chunk = min(nr_to_scan, MBC2_SCAN_CHUNK);

		nr_to_scan -= chunk;
		spin_lock(lock);
		while (chunk-- && !list_empty(&stripe->s_lru)) {
			entry = list_first_entry(&stripe->s_lru,
						 struct mbcache2_entry, e_list);
			if (test_bit(MBE2_REFERENCED_B, &entry->e_flags) ||
			    atomic_cmpxchg(&entry->e_refcnt, 1, 0) != 1) {
				clear_bit(MBE2_REFERENCED_B, &entry->e_flags);
				list_move_tail(&entry->e_list, &stripe->s_lru);
				continue;
			}
			mbc2_unlink(cache, stripe, entry);
			list_add(&entry->e_list, &dispose);
			freed++;
		}
		if (list_empty(&stripe->s_lru))
			nr_to_scan = 0;
		spin_unlock(lock);
		if (nr_to_scan)
			cond_resched();
	}

	list_for_each_entry_safe(entry, next, &dispose, e_list)
		mbc2_entry_free(entry);
	if (freed) {
		percpu_stats_add(&cache->c_events, MBC2_EVICTIONS, freed);
		percpu_stats_add(&cache->c_entries, 0, -(s64)freed);
	}
	return freed;
}

/**
 * mbcache2_count - entries in a cache, summed over its stripes locklessly
 * @cache: the cache
 *
 * Return: the number of hashed entries, a snapshot for reporting.
 */
unsigned long mbcache2_count(struct mbcache2 *cache)
{
	unsigned long count = 0;
	unsigned int i;

	for (i = 0; i < cache->c_nr_stripes; i++)
		count += READ_ONCE(cache->c_stripes[i].s_count);
	return count;
}
EXPORT_SYMBOL_NS_GPL(mbcache2_count, MBCACHE2_NS);

/**
 * mbcache2_max_entries - capacity of a cache
 * @cache: the cache
 *
 * Return: 16 entries per bucket, the count at which reclaim starts.
 */
unsigned long mbcache2_max_entries(struct mbcache2 *cache)
{
	return cache->c_max_entries;
}
EXPORT_SYMBOL_NS_GPL(mbcache2_max_entries, MBCACHE2_NS);

/**
 * mbcache2_shrink - reclaim unused entries from a cache, as its shrinker
 * @cache: the cache
 * @nr_to_scan: number of entries to look at
 *
 * Scans the oldest entries of the stripes round robin from where the last
 * scan stopped, each stripe's share of @nr_to_scan but at least
 * MBC2_SCAN_QUANTUM; a scan of mbcache2_count() entries visits each once.
 *
 * Context: process context; may sleep.
 * Return: the number of entries freed.
 */
unsigned long mbcache2_shrink(struct mbcache2 *cache, unsigned long nr_to_scan)
{
	unsigned int mask = cache->c_nr_stripes - 1, start, n;
	unsigned long total = mbcache2_count(cache), freed = 0;

	if (!total || !nr_to_scan)
		return 0;
	start = READ_ONCE(cache->c_shrink_cursor);
	for (n = 0; n < cache->c_nr_stripes && nr_to_scan; n++) {
		unsigned int idx = (start + n) & mask;
		unsigned long count, quota;

		count = READ_ONCE(cache->c_stripes[idx].s_count);
		if (!count)
			continue;
		if (nr_to_scan >= total)
			quota = count;
		else
			quota = max(MBC2_SCAN_QUANTUM,
				    div64_u64((u64)count * nr_to_scan, total));
		quota = min3(quota, count, nr_to_scan);
		nr_to_scan -= quota;
		freed += mbc2_shrink_stripe(cache, idx, quota);
		cond_resched();
	}
	WRITE_ONCE(cache->c_shrink_cursor, (start + n) & mask);
	return freed;
}
EXPORT_SYMBOL_NS_GPL(mbcache2_shrink, MBCACHE2_NS);

/*
 * The folded count, or the exact one when the folded one is too close to
 * zero to tell an empty cache from one holding up to c_slack entries.
 */
static unsigned long mbc2_shrink_count(struct shrinker *shrink,
				       struct shrink_control *sc)
{
	struct mbcache2 *cache = mbc2_shrinker_owner(shrink);
	long folded = atomic_long_read(&cache->c_folded_count);

	if (folded > (long)cache->c_slack)
		return folded;
	return mbcache2_count(cache);
}

static unsigned long mbc2_shrink_scan(struct shrinker *shrink,
				      struct shrink_control *sc)
{
	return mbcache2_shrink(mbc2_shrinker_owner(shrink), sc->nr_to_scan);
}

/*
 * Count exactly; if the cache is at its capacity, scan it down to 7/8 of
 * it. If not (the folded count was high by its slack), queue the next trim
 * only when the folded count has grown by what the cache lacked.
 */
static void mbc2_trim_worker(struct work_struct *work)
{
	struct mbcache2 *cache = container_of(work, struct mbcache2,
					      c_trim_work);
	unsigned long max = cache->c_max_entries;
	long folded = atomic_long_read(&cache->c_folded_count);
	unsigned long count = mbcache2_count(cache);

	percpu_stats_inc(&cache->c_events, MBC2_TRIMS);
	if (count >= max) {
		mbcache2_shrink(cache, count - (max - max / MBC2_TRIM_DIVISOR));
		WRITE_ONCE(cache->c_trim_at, max);
		count = mbcache2_count(cache);
	} else {
		/* at most the largest drift: folded and count raced */
		WRITE_ONCE(cache->c_trim_at,
			   min(folded + (long)(max - count),
			       (long)(max + cache->c_slack)));
	}
	mbc2_set_reclaim_sync(cache, count >= 2 * max);
}

/* Hash @entry unless its (key, value) is present; frees it if it is */
static int mbc2_insert(struct mbcache2 *cache, struct mbcache2_entry *entry)
{
	unsigned int bucket = mbc2_bucket(cache, entry->e_key);
	unsigned int idx = mbc2_stripe_idx(cache, bucket);
	struct mbc2_stripe *stripe = &cache->c_stripes[idx];
	spinlock_t *lock = mbc2_lock(cache, idx);

	spin_lock(lock);
	if (mbc2_chain_find(cache, bucket, entry->e_key, entry->e_value)) {
		spin_unlock(lock);
		mbc2_entry_free(entry);
		percpu_stats_inc(&cache->c_events, MBC2_DUPLICATES);
		return -EBUSY;
	}
	hlist_add_head(&entry->e_hash_list, &cache->c_hash[bucket]);
	list_add_tail(&entry->e_list, &stripe->s_lru);
	mbc2_stripe_count(cache, stripe, 1);
	spin_unlock(lock);

	percpu_stats_inc(&cache->c_events, MBC2_INSERTS);
	percpu_stats_inc(&cache->c_entries, 0);
	return 0;
}

/**
 * mbcache2_entry_create - add an entry to a cache
 * @cache: the cache
 * @mask: allocation flags for the new entry
 * @key: key of the entry
 * @value: value of the entry; (@key, @value) identifies the entry
 * @reusable: whether the find functions may return the entry
 *
 * The cache owns the new entry; the caller gets no reference. At twice the
 * capacity, if @mask allows blocking, first reclaims from the entry's
 * stripe.
 *
 * Context: process context; sleeps only if @mask allows blocking.
 * Return: 0, -EBUSY if (@key, @value) is already cached, or -ENOMEM.
 */
int mbcache2_entry_create(struct mbcache2 *cache, gfp_t mask, u32 key,
			  u64 value, bool reusable)
{
	struct mbcache2_entry *entry;

	if (unlikely(READ_ONCE(cache->c_reclaim_sync)) &&
	    gfpflags_allow_blocking(mask)) {
		unsigned int idx = mbc2_stripe_idx(cache,
						   mbc2_bucket(cache, key));

		mbc2_shrink_stripe(cache, idx, MBC2_SYNC_SHRINK_BATCH);
	}
	entry = mbc2_entry_alloc(mask, key, value, reusable);
	if (!entry)
		return -ENOMEM;
	return mbc2_insert(cache, entry);
}
EXPORT_SYMBOL(mbcache2_entry_create);

/**
 * mbcache2_entry_present - tell whether a key/value pair is cached
 * @cache: the cache
 * @key: the key
 * @value: the value
 *
 * For a caller that only decides whether to create the entry, as ext4 does
 * for a block it read for getxattr: takes no reference, so readers of one
 * entry do not all write its reference count.
 *
 * Return: true if (@key, @value) is cached.
 */
bool mbcache2_entry_present(struct mbcache2 *cache, u32 key, u64 value)
{
	unsigned int bucket = mbc2_bucket(cache, key);
	spinlock_t *lock = mbc2_lock(cache, mbc2_stripe_idx(cache, bucket));
	bool found;

	spin_lock(lock);
	found = mbc2_chain_find(cache, bucket, key, value);
	spin_unlock(lock);
	percpu_stats_inc(&cache->c_events, found ? MBC2_HITS : MBC2_MISSES);
	return found;
}
EXPORT_SYMBOL(mbcache2_entry_present);

/**
 * __mbcache2_entry_free - free an entry whose last reference is gone
 * @cache: the cache the entry belonged to (not dereferenced)
 * @entry: the entry, already unhashed
 *
 * For mbcache2_entry_put() only. A hashed entry means a reference was
 * dropped twice: it is leaked with a warning, not freed under its chain.
 */
void __mbcache2_entry_free(struct mbcache2 *cache,
			   struct mbcache2_entry *entry)
{
	if (WARN_ON_ONCE(!hlist_unhashed(&entry->e_hash_list)))
		return;
	mbc2_entry_free(entry);
}
EXPORT_SYMBOL(__mbcache2_entry_free);

/**
 * mbcache2_entry_wait_unused - wait until only the cache and we use an entry
 * @entry: an entry the caller holds a reference to
 *
 * Context: process context; sleeps.
 */
void mbcache2_entry_wait_unused(struct mbcache2_entry *entry)
{
	wait_var_event(&entry->e_refcnt, atomic_read(&entry->e_refcnt) <= 2);
}
EXPORT_SYMBOL(mbcache2_entry_wait_unused);

/* Walk @key's chain from after @old (or its head) for a reusable entry */
static struct mbcache2_entry *mbc2_find(struct mbcache2 *cache,
					struct mbcache2_entry *old, u32 key)
{
	unsigned int bucket = mbc2_bucket(cache, key);
	spinlock_t *lock = mbc2_lock(cache, mbc2_stripe_idx(cache, bucket));
	struct mbcache2_entry *entry = NULL;
	struct hlist_node *node;

	spin_lock(lock);
	if (old && !hlist_unhashed(&old->e_hash_list))
		node = old->e_hash_list.next;
	else
		node = cache->c_hash[bucket].first;
	for (; node; node = node->next) {
		entry = hlist_entry(node, struct mbcache2_entry, e_hash_list);
		if (entry->e_key == key &&
		    test_bit(MBE2_REUSABLE_B, &entry->e_flags)) {
			atomic_inc(&entry->e_refcnt);
			break;
		}
		entry = NULL;
	}
	spin_unlock(lock);
	if (old)
		mbcache2_entry_put(cache, old);
	return entry;
}

/**
 * mbcache2_entry_find_first - find the newest reusable entry with a key
 * @cache: the cache
 * @key: the key
 *
 * Return: the entry with a reference (for mbcache2_entry_put() or
 * mbcache2_entry_find_next()), or NULL.
 */
struct mbcache2_entry *mbcache2_entry_find_first(struct mbcache2 *cache,
						 u32 key)
{
	struct mbcache2_entry *entry = mbc2_find(cache, NULL, key);

	percpu_stats_inc(&cache->c_events, entry ? MBC2_HITS : MBC2_MISSES);
	return entry;
}
EXPORT_SYMBOL(mbcache2_entry_find_first);

/**
 * mbcache2_entry_find_next - find the next reusable entry with that key
 * @cache: the cache
 * @entry: an entry returned by a find, with its reference, which is dropped
 *
 * Continues after @entry, or from the chain's head if @entry was removed.
 *
 * Return: the entry with a reference, or NULL.
 */
struct mbcache2_entry *mbcache2_entry_find_next(struct mbcache2 *cache,
						struct mbcache2_entry *entry)
{
	return mbc2_find(cache, entry, entry->e_key);
}
EXPORT_SYMBOL(mbcache2_entry_find_next);

/**
 * mbcache2_entry_get - look an entry up by key and value
 * @cache: the cache
 * @key: the key
 * @value: the value
 *
 * Return: the entry, reusable or not, with a reference, or NULL.
 */
struct mbcache2_entry *mbcache2_entry_get(struct mbcache2 *cache, u32 key,
					  u64 value)
{
	unsigned int bucket = mbc2_bucket(cache, key);
	spinlock_t *lock = mbc2_lock(cache, mbc2_stripe_idx(cache, bucket));
	struct mbcache2_entry *entry;

	spin_lock(lock);
	entry = mbc2_chain_find(cache, bucket, key, value);
	if (entry)
		atomic_inc(&entry->e_refcnt);
	spin_unlock(lock);
	percpu_stats_inc(&cache->c_events, entry ? MBC2_HITS : MBC2_MISSES);
	return entry;
}
EXPORT_SYMBOL(mbcache2_entry_get);

/**
 * mbcache2_entry_delete_or_get - remove an entry unless it is in use
 * @cache: the cache
 * @key: the key
 * @value: the value
 *
 * Return: NULL if the entry was freed or not cached; if someone holds a
 * reference, the entry with one more (see mbcache2_entry_wait_unused()).
 */
struct mbcache2_entry *mbcache2_entry_delete_or_get(struct mbcache2 *cache,
						    u32 key, u64 value)
{
	unsigned int bucket = mbc2_bucket(cache, key);
	unsigned int idx = mbc2_stripe_idx(cache, bucket);
	spinlock_t *lock = mbc2_lock(cache, idx);
	struct mbcache2_entry *entry;

	spin_lock(lock);
	entry = mbc2_chain_find(cache, bucket, key, value);
	if (entry && atomic_cmpxchg(&entry->e_refcnt, 1, 0) == 1) {
		mbc2_unlink(cache, &cache->c_stripes[idx], entry);
		spin_unlock(lock);
		mbc2_entry_free(entry);
		percpu_stats_inc(&cache->c_events, MBC2_DELETES);
		percpu_stats_dec(&cache->c_entries, 0);
		return NULL;
	}
	if (entry)
		atomic_inc(&entry->e_refcnt);
	spin_unlock(lock);
	return entry;
}
EXPORT_SYMBOL(mbcache2_entry_delete_or_get);

/**
 * mbcache2_entry_touch - give an entry a second chance at the next reclaim
 * @cache: the cache the entry belongs to
 * @entry: an entry the caller holds a reference to
 */
void mbcache2_entry_touch(struct mbcache2 *cache,
			  struct mbcache2_entry *entry)
{
	/* a hot entry's line is written only when the bit changes */
	if (!test_bit(MBE2_REFERENCED_B, &entry->e_flags))
		set_bit(MBE2_REFERENCED_B, &entry->e_flags);
}
EXPORT_SYMBOL(mbcache2_entry_touch);

/**
 * mbcache2_get_stats - read a cache's statistics, for reporting
 * @cache: the cache
 * @stats: the events since creation or the last reset, the entries now
 */
void mbcache2_get_stats(struct mbcache2 *cache, struct mbcache2_stats *stats)
{
	u64 sums[MBC2_NR_EVENTS];

	memset(stats, 0, sizeof(*stats));
	if (percpu_stats_sum_all(&cache->c_events, sums, MBC2_NR_EVENTS) < 0)
		return;
	stats->lookups = sums[MBC2_HITS] + sums[MBC2_MISSES];
	stats->hits = sums[MBC2_HITS];
	stats->inserts = sums[MBC2_INSERTS];
	stats->duplicates = sums[MBC2_DUPLICATES];
	stats->deletes = sums[MBC2_DELETES];
	stats->evictions = sums[MBC2_EVICTIONS];
	stats->trims = sums[MBC2_TRIMS];
	stats->entries = percpu_stats_sum_positive(&cache->c_entries, 0);
}
EXPORT_SYMBOL_NS_GPL(mbcache2_get_stats, MBCACHE2_NS);

/**
 * mbcache2_reset_stats - restart a cache's event counters from zero
 * @cache: the cache
 *
 * An event racing with the reset is counted once (percpu_stats_reset()).
 */
void mbcache2_reset_stats(struct mbcache2 *cache)
{
	percpu_stats_reset(&cache->c_events);
}
EXPORT_SYMBOL_NS_GPL(mbcache2_reset_stats, MBCACHE2_NS);

static int mbc2_stats_show(struct seq_file *m, void *unused)
{
	struct mbcache2 *cache = m->private;
	struct mbcache2_stats st;

	mbcache2_get_stats(cache, &st);
	seq_printf(m, "lookups %llu\nhits %llu\ninserts %llu\nduplicates %llu\n",
		   st.lookups, st.hits, st.inserts, st.duplicates);
	seq_printf(m, "deletes %llu\nevictions %llu\ntrims %llu\nentries %llu\n",
		   st.deletes, st.evictions, st.trims, st.entries);
	seq_printf(m, "stripe_entries %lu\nmax_entries %lu\nbuckets %lu\n",
		   mbcache2_count(cache), cache->c_max_entries,
		   1UL << cache->c_bucket_bits);
	seq_printf(m, "stripes %u\nentry_bytes %u\n", cache->c_nr_stripes,
		   kmem_cache_size(mbc2_entry_cache));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mbc2_stats);

/* Writing "0" or "reset" to the reset file resets the event counters */
static ssize_t mbc2_reset_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[8];
	size_t n = min(len, sizeof(buf) - 1);

	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	buf[n] = '\0';
	if (!sysfs_streq(buf, "0") && !sysfs_streq(buf, "reset"))
		return -EINVAL;
	mbcache2_reset_stats(file->private_data);
	return len;
}

static const struct file_operations mbc2_reset_fops = {
	.owner		= THIS_MODULE,
	.open		= simple_open,
	.write		= mbc2_reset_write,
};

/**
 * mbcache2_create - create a cache
 * @bucket_bits: log2 of the number of hash buckets, from
 *	MBCACHE2_MIN_BUCKET_BITS to MBCACHE2_MAX_BUCKET_BITS
 * @name: names /sys/kernel/debug/mbcache2/<name>/ and the shrinker
 *
 * Context: process context; sleeps.
 * Return: the cache, or NULL if an argument is invalid or memory is short.
 */
struct mbcache2 *mbcache2_create(int bucket_bits, const char *name)
{
	unsigned long buckets, i;
	struct mbcache2 *cache;

	if (bucket_bits < MBCACHE2_MIN_BUCKET_BITS ||
	    bucket_bits > MBCACHE2_MAX_BUCKET_BITS || !name || !*name) {
		pr_err("%s(%d, %s): want bucket_bits %d..%d and a name\n", __func__,
		       bucket_bits, name ?: "NULL", MBCACHE2_MIN_BUCKET_BITS,
		       MBCACHE2_MAX_BUCKET_BITS);
		return NULL;
	}

	cache = kvzalloc(sizeof(*cache), GFP_KERNEL);
	if (!cache)
		return NULL;
	buckets = 1UL << bucket_bits;
	cache->c_bucket_bits = bucket_bits;
	cache->c_nr_stripes = min_t(unsigned long, NR_BG_LOCKS, buckets);
	cache->c_max_entries = buckets << 4;
	cache->c_fold = clamp_t(unsigned long, cache->c_max_entries /
				cache->c_nr_stripes / MBC2_FOLD_DIVISOR,
				1, MBC2_FOLD_MAX);
	cache->c_slack = cache->c_nr_stripes * (cache->c_fold - 1);
	cache->c_trim_at = cache->c_max_entries;
	strscpy(cache->c_name, name, sizeof(cache->c_name));
	strreplace(cache->c_name, '/', '!');
	bgl_lock_init(&cache->c_bgl);
	INIT_WORK(&cache->c_trim_work, mbc2_trim_worker);

	cache->c_hash = kvmalloc_array(buckets, sizeof(*cache->c_hash),
				       GFP_KERNEL);
	if (!cache->c_hash)
		goto free_cache;
	for (i = 0; i < buckets; i++)
		INIT_HLIST_HEAD(&cache->c_hash[i]);

	cache->c_stripes = kcalloc(cache->c_nr_stripes,
				   sizeof(*cache->c_stripes), GFP_KERNEL);
	if (!cache->c_stripes)
		goto free_hash;
	for (i = 0; i < cache->c_nr_stripes; i++)
		INIT_LIST_HEAD(&cache->c_stripes[i].s_lru);

	if (percpu_stats_init(&cache->c_events, MBC2_NR_EVENTS, GFP_KERNEL))
		goto free_stripes;
	if (percpu_stats_init(&cache->c_entries, 1, GFP_KERNEL))
		goto free_events;

	cache->c_shrink = mbc2_shrinker_create(mbc2_shrink_count,
					       mbc2_shrink_scan, cache,
					       cache->c_name);
	if (!cache->c_shrink)
		goto free_entries;

	/*
	 * Two files: under lockdown debugfs refuses to open a file with a
	 * mode beyond 0444, so a read-only stats file stays readable there.
	 */
	cache->c_debugfs = debugfs_create_dir(cache->c_name,
					      mbc2_debugfs_root);
	debugfs_create_file("stats", 0444, cache->c_debugfs, cache,
			    &mbc2_stats_fops);
	debugfs_create_file("reset", 0200, cache->c_debugfs, cache,
			    &mbc2_reset_fops);
	return cache;

free_entries:
	percpu_stats_destroy(&cache->c_entries);
free_events:
	percpu_stats_destroy(&cache->c_events);
free_stripes:
	kfree(cache->c_stripes);
free_hash:
	kvfree(cache->c_hash);
free_cache:
	kvfree(cache);
	return NULL;
}
EXPORT_SYMBOL(mbcache2_create);

/**
 * mbcache2_destroy - destroy a cache and free its entries
 * @cache: the cache, which nothing else may use any more
 *
 * An entry still in use is a caller bug: it is unhashed with a warning and
 * freed by its last mbcache2_entry_put().
 *
 * Context: process context; sleeps.
 */
void mbcache2_destroy(struct mbcache2 *cache)
{
	struct mbcache2_entry *entry;
	unsigned long busy = 0;
	unsigned int idx;

	debugfs_remove_recursive(cache->c_debugfs);
	mbc2_shrinker_destroy(cache->c_shrink);
	cancel_work_sync(&cache->c_trim_work);

	for (idx = 0; idx < cache->c_nr_stripes; idx++) {
		struct mbc2_stripe *stripe = &cache->c_stripes[idx];
		spinlock_t *lock = mbc2_lock(cache, idx);

		spin_lock(lock);
		while (!list_empty(&stripe->s_lru)) {
			entry = list_first_entry(&stripe->s_lru,
						 struct mbcache2_entry, e_list);
			mbc2_unlink(cache, stripe, entry);
			if (atomic_dec_and_test(&entry->e_refcnt))
				mbc2_entry_free(entry);
			else
				busy++;
		}
		spin_unlock(lock);
		cond_resched();
	}
	/* the folds above may have queued a trim */
	cancel_work_sync(&cache->c_trim_work);
	WARN(busy, "cache %s destroyed with %lu entries in use\n",
	     cache->c_name, busy);

	percpu_stats_destroy(&cache->c_entries);
	percpu_stats_destroy(&cache->c_events);
	kfree(cache->c_stripes);
	kvfree(cache->c_hash);
	kvfree(cache);
}
EXPORT_SYMBOL(mbcache2_destroy);

/**
 * mbcache2_live_objects - entries allocated and not freed, all caches
 *
 * Return: the number of live entries (a per-CPU sum: for tests).
 */
u64 mbcache2_live_objects(void)
{
	return percpu_stats_sum_positive(&mbc2_live, 0);
}
EXPORT_SYMBOL_NS_GPL(mbcache2_live_objects, MBCACHE2_NS);

/**
 * mbcache2_entry_size - memory one entry takes
 *
 * Return: the object size of the entry slab cache, in bytes.
 */
unsigned int mbcache2_entry_size(void)
{
	return kmem_cache_size(mbc2_entry_cache);
}
EXPORT_SYMBOL_NS_GPL(mbcache2_entry_size, MBCACHE2_NS);

static int mbc2_live_objects_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%llu\n", mbcache2_live_objects());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mbc2_live_objects);

static int __init mbcache2_init(void)
{
	int err;

	err = percpu_stats_init(&mbc2_live, 1, GFP_KERNEL);
	if (err)
		return err;
	mbc2_entry_cache = kmem_cache_create("mbcache2_entry",
					     sizeof(struct mbcache2_entry), 0,
					     SLAB_RECLAIM_ACCOUNT | SLAB_NO_MERGE,
					     NULL);
	if (!mbc2_entry_cache) {
		percpu_stats_destroy(&mbc2_live);
		return -ENOMEM;
	}
	mbc2_debugfs_root = debugfs_create_dir("mbcache2", NULL);
	debugfs_create_file("live_objects", 0400, mbc2_debugfs_root, NULL,
			    &mbc2_live_objects_fops);
	return 0;
}

static void __exit mbcache2_exit(void)
{
	debugfs_remove_recursive(mbc2_debugfs_root);
	kmem_cache_destroy(mbc2_entry_cache);
	percpu_stats_destroy(&mbc2_live);
}

module_init(mbcache2_init);
module_exit(mbcache2_exit);

MODULE_DESCRIPTION("Meta block cache with striped locks, one per device");
MODULE_LICENSE("GPL");
MODULE_VERSION(EXT4X_VERSION);
