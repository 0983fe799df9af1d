// SPDX-License-Identifier: GPL-2.0
/*
 * mbcache2 - a scalable meta block cache
 *
 * The API and its semantics follow the 6.1 mbcache (fs/mbcache.c): a cache
 * maps a 32-bit key to 64-bit values; a (key, value) pair is unique, a key
 * need not be. Entries are reference counted; the cache holds one reference
 * for as long as an entry is hashed.
 *
 * What differs is the locking and the bookkeeping:
 *
 *  - Each cache has a struct blockgroup_lock: NR_BG_LOCKS cacheline-aligned
 *    spinlocks (128 on a distro kernel). Hash bucket b belongs to stripe
 *    b & (nr_stripes - 1). The stripe lock guards the hash chains of its
 *    buckets and, in a parallel array of cacheline-aligned structs, the
 *    stripe's own LRU list and entry count. Insert, lookup and delete take
 *    exactly one stripe lock and touch no cache-wide shared cacheline
 *    (statistics are per-CPU).
 *
 *  - Because the hash reference of an entry is dropped only under its
 *    stripe lock, and at the same moment the entry is unhashed, an entry
 *    found in a chain under the lock always has e_refcnt >= 1, and an
 *    entry whose refcount drops to zero through mbcache2_entry_put() has
 *    already been unhashed: freeing it never touches the cache.
 *
 *  - The capacity is cache-wide, as in mbcache: 16 entries per bucket,
 *    whatever stripe they hash to. A stripe may hold any share of it, so
 *    one hot bucket (thousands of full xattr blocks with the same hash) or
 *    an unlucky spread of hashes never evicts an entry while the cache as
 *    a whole is under its limit. The count that decides is kept without a
 *    cache-wide cacheline on every insert: each stripe folds its net
 *    change into one atomic_long_t once it reaches +-c_fold entries (1/16
 *    of a stripe's even share, at least 1), so the folded total is never
 *    off by more than nr_stripes * (c_fold - 1) entries (896 of 16384 for
 *    ext4's 1024 buckets). The insert that folds compares that total with
 *    the limit: at the limit it schedules the trim work, which counts the
 *    stripes exactly and, only if the cache really is full, scans it down
 *    to 7/8 of the limit, oldest first in each stripe and each stripe in
 *    proportion to its size; at twice the limit (the work cannot keep up)
 *    the inserter scans a batch of its own stripe, if its gfp mask lets it
 *    sleep.
 *
 *  - Reclaim (shrinker, trim work, mbcache2_shrink()) is second chance per
 *    stripe: the head of a stripe's LRU is freed when it is unreferenced
 *    and unused, otherwise its referenced bit is cleared and it moves to
 *    the tail. The shrinker spreads its scan over the stripes in
 *    proportion to their counts, starting at a rotating cursor, so a scan
 *    of as many entries as the cache holds is exactly one pass over every
 *    stripe.
 *
 *  - Lookups take the stripe lock; there is no RCU lookup path.
 *
 * Statistics: /sys/kernel/debug/mbcache2/<name>/stats prints one
 * "name value" per line: the event counters lookups, hits, inserts,
 * duplicates, deletes and evictions (per-CPU percpu_stats counters), the
 * gauge entries (incremented on insert and decremented on removal, on
 * whatever CPU; the sum is clamped at zero because it may be transiently
 * negative), stripe_entries (the sum of the per-stripe counts), the
 * capacity (max_entries, buckets, stripes) and the size of one entry beside
 * that of a stock mbcache entry (entry_bytes, stock_entry_bytes). The
 * stats file is read-only; writing "0" or "reset" to the write-only file
 * /sys/kernel/debug/mbcache2/<name>/reset restarts the event counters from
 * zero: their current totals become a base that later reads subtract, no
 * per-CPU counter is written, so an event racing with the reset is counted
 * exactly once, before or after it. The entries gauge is not reset.
 * /sys/kernel/debug/mbcache2/live_objects counts entries allocated and not
 * yet freed, over all caches.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blockgroup_lock.h>
#include <linux/debugfs.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/mbcache.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <mbcache2/mbcache2.h>
#include <percpu_stats/percpu_stats.h>

#include "compat.h"

/* Longest cache name kept, including the NUL */
#define MBC2_NAME_LEN		32
/* Most entries an inserter scans when the cache is at twice its limit */
#define MBC2_SYNC_SHRINK_BATCH	64
/*
 * The trim work scans a full cache down to 7/8 of its limit, so that one
 * run makes room for many inserts (twice the 1/16 of the cache that the
 * stock trim scans) before the next one is needed.
 */
#define MBC2_TRIM_DIVISOR	8
/* A stripe folds its count change into the cache total every 1/16 share */
#define MBC2_FOLD_DIVISOR	16
#define MBC2_FOLD_MAX		64
/* Most entries scanned per stripe lock hold */
#define MBC2_SCAN_CHUNK		64

enum mbc2_event {
	MBC2_MISSES,
	MBC2_HITS,
	MBC2_INSERTS,
	MBC2_DUPLICATES,
	MBC2_DELETES,
	MBC2_EVICTIONS,
	MBC2_NR_EVENTS
};

/**
 * struct mbc2_stripe - per-stripe reclaim state, guarded by the stripe lock
 * @s_lru: entries of the stripe, least recently inserted first
 * @s_count: number of entries on @s_lru (and in the stripe's chains);
 *	read without the lock by mbcache2_count()
 * @s_unfolded: change of @s_count not yet added to the cache's
 *	c_folded_count
 */
struct mbc2_stripe {
	struct list_head	s_lru;
	unsigned long		s_count;
	long			s_unfolded;
} ____cacheline_aligned_in_smp;

/**
 * struct mbcache2 - one cache, normally one per device
 * @c_bgl: the stripe locks
 * @c_hash: 2^@c_bucket_bits hash chain heads
 * @c_stripes: @c_nr_stripes stripe structs, parallel to @c_bgl
 * @c_bucket_bits: log2 of the number of hash buckets
 * @c_nr_stripes: number of stripes in use, a power of two
 * @c_max_entries: capacity of the whole cache
 * @c_fold: how far a stripe's count may drift before it is folded into
 *	@c_folded_count
 * @c_folded_count: entries in the cache, give or take
 *	@c_nr_stripes * (@c_fold - 1); decides when to reclaim
 * @c_shrink_cursor: stripe where the next shrinker scan starts
 * @c_events: event counters (enum mbc2_event); reset from debugfs
 * @c_entries: a single gauge, entries in the cache; never reset
 * @c_shrink: memory pressure shrinker (mbc2_shrinker_create())
 * @c_trim_work: background trim when the cache reaches its limit
 * @c_debugfs: the cache's debugfs directory
 * @c_name: name given at creation, '/' replaced by '!'
 */
struct mbcache2 {
	struct blockgroup_lock	c_bgl;
	struct hlist_head	*c_hash;
	struct mbc2_stripe	*c_stripes;
	unsigned int		c_bucket_bits;
	unsigned int		c_nr_stripes;
	unsigned long		c_max_entries;
	unsigned long		c_fold;
	atomic_long_t		c_folded_count;
	unsigned int		c_shrink_cursor;
	struct percpu_stats	c_events;
	struct percpu_stats	c_entries;
	struct shrinker		*c_shrink;
	struct work_struct	c_trim_work;
	struct dentry		*c_debugfs;
	char			c_name[MBC2_NAME_LEN];
};

static struct kmem_cache *mbc2_entry_cache;
/* One counter: entries allocated and not yet freed, over all caches */
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

static inline struct mbcache2_entry *mbc2_entry_alloc(gfp_t mask, u32 key,
						      u64 value, bool reusable)
{
	struct mbcache2_entry *entry;

	entry = kmem_cache_alloc(mbc2_entry_cache, mask);
	if (!entry)
		return NULL;
	INIT_LIST_HEAD(&entry->e_list);
	INIT_HLIST_NODE(&entry->e_hash_list);
	/* The only reference is the one the hash table will own */
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

/* Add a stripe's unfolded count change to the cache total; returns it */
static noinline long mbc2_fold(struct mbcache2 *cache,
			       struct mbc2_stripe *stripe, long unfolded)
{
	stripe->s_unfolded = 0;
	return atomic_long_add_return(unfolded, &cache->c_folded_count);
}

/*
 * Change a stripe's entry count by @delta (+1 or -1) under its lock, and
 * fold the change into the cache total once it reaches c_fold. Returns the
 * new folded total if this call folded, 0 otherwise. Inline, with the
 * fold out of line: the insert and delete paths pay no call for it.
 */
static inline long mbc2_stripe_count(struct mbcache2 *cache,
				     struct mbc2_stripe *stripe, long delta)
{
	long unfolded = stripe->s_unfolded + delta;

	WRITE_ONCE(stripe->s_count, stripe->s_count + delta);
	if (likely(abs(unfolded) < cache->c_fold)) {
		stripe->s_unfolded = unfolded;
		return 0;
	}
	return mbc2_fold(cache, stripe, unfolded);
}

/* Caller holds the stripe lock and has just taken the hash reference */
static inline void mbc2_unlink(struct mbcache2 *cache,
			       struct mbc2_stripe *stripe,
			       struct mbcache2_entry *entry)
{
	hlist_del_init(&entry->e_hash_list);
	list_del_init(&entry->e_list);
	mbc2_stripe_count(cache, stripe, -1);
}

/*
 * Scan up to @nr_to_scan entries from the head of one stripe's LRU and
 * free the unused, unreferenced ones; give the others a second chance.
 */
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
		unsigned long chunk = min_t(unsigned long, nr_to_scan,
					    MBC2_SCAN_CHUNK);

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
		cond_resched();
	}

	list_for_each_entry_safe(entry, next, &dispose, e_list) {
		list_del_init(&entry->e_list);
		mbc2_entry_free(entry);
	}
	if (freed) {
		percpu_stats_add(&cache->c_events, MBC2_EVICTIONS, freed);
		percpu_stats_add(&cache->c_entries, 0, -(s64)freed);
	}
	return freed;
}

/**
 * mbcache2_count - number of entries in a cache
 * @cache: the cache
 *
 * Sums the per-stripe counts without taking the stripe locks, so the result
 * is a snapshot that concurrent inserts and deletes may already have made
 * stale. It walks every stripe: do not call it per operation.
 *
 * Return: the number of hashed entries, or 0 for a NULL @cache.
 */
unsigned long mbcache2_count(struct mbcache2 *cache)
{
	unsigned long count = 0;
	unsigned int i;

	if (WARN_ON_ONCE(!cache))
		return 0;
	for (i = 0; i < cache->c_nr_stripes; i++)
		count += READ_ONCE(cache->c_stripes[i].s_count);
	return count;
}
EXPORT_SYMBOL(mbcache2_count);

/**
 * mbcache2_max_entries - capacity of a cache
 * @cache: the cache
 *
 * Return: 16 entries per hash bucket, the level above which background
 * reclaim starts, or 0 for a NULL @cache.
 */
unsigned long mbcache2_max_entries(struct mbcache2 *cache)
{
	if (WARN_ON_ONCE(!cache))
		return 0;
	return cache->c_max_entries;
}
EXPORT_SYMBOL(mbcache2_max_entries);

/**
 * mbcache2_shrink - reclaim unused entries from a cache
 * @cache: the cache
 * @nr_to_scan: number of entries to look at
 *
 * Does what the cache's shrinker does under memory pressure: scans
 * @nr_to_scan entries, spread over the stripes in proportion to their
 * entry counts and starting where the previous scan stopped, and frees
 * those that are neither in use nor referenced. An entry that is
 * referenced (mbcache2_entry_touch()) or in use loses its referenced bit
 * and goes to the tail of its stripe's LRU: it survives this pass. A scan
 * of at least mbcache2_count() entries visits every entry exactly once.
 * Exported for tests and for callers that want to trim a cache.
 *
 * Context: process context; may sleep.
 * Return: the number of entries freed.
 */
unsigned long mbcache2_shrink(struct mbcache2 *cache, unsigned long nr_to_scan)
{
	unsigned long total, left = nr_to_scan, freed = 0;
	unsigned int nr = 0, start, mask, idx;

	if (WARN_ON_ONCE(!cache))
		return 0;
	total = mbcache2_count(cache);
	if (!total || !nr_to_scan)
		return 0;
	mask = cache->c_nr_stripes - 1;
	start = READ_ONCE(cache->c_shrink_cursor) & mask;
	for (nr = 0; nr < cache->c_nr_stripes && left; nr++) {
		unsigned long count, quota;

		idx = (start + nr) & mask;
		count = READ_ONCE(cache->c_stripes[idx].s_count);
		if (!count)
			continue;
		/* This stripe's share of the scan, rounded up */
		if (nr_to_scan >= total)
			quota = count;
		else
			quota = div64_u64((u64)count * nr_to_scan + total - 1,
					  total);
		quota = min(quota, left);
		left -= quota;
		freed += mbc2_shrink_stripe(cache, idx, quota);
	}
	WRITE_ONCE(cache->c_shrink_cursor, (start + nr) & mask);
	return freed;
}
EXPORT_SYMBOL(mbcache2_shrink);

static unsigned long mbc2_shrink_count(struct shrinker *shrink,
				       struct shrink_control *sc)
{
	struct mbcache2 *cache = mbc2_shrinker_owner(shrink);

	return mbcache2_count(cache);
}

static unsigned long mbc2_shrink_scan(struct shrinker *shrink,
				      struct shrink_control *sc)
{
	struct mbcache2 *cache = mbc2_shrinker_owner(shrink);

	return mbcache2_shrink(cache, sc->nr_to_scan);
}

/*
 * The trim work: count the stripes exactly (the folded total that
 * scheduled it may be high by up to nr_stripes * (c_fold - 1)) and, if the
 * cache is at its limit, scan it down to 7/8 of it.
 */
static void mbc2_trim_worker(struct work_struct *work)
{
	struct mbcache2 *cache = container_of(work, struct mbcache2,
					      c_trim_work);
	unsigned long low = cache->c_max_entries -
			    cache->c_max_entries / MBC2_TRIM_DIVISOR;
	unsigned long count = mbcache2_count(cache);

	if (count >= cache->c_max_entries)
		mbcache2_shrink(cache, count - low);
}

/*
 * Called by an inserter into stripe @idx whose fold left the cache total
 * at @total. At twice the limit the trim work is not keeping up, and the
 * inserter scans a batch of its own stripe: one lock, where a cache-wide
 * scan would take every stripe's.
 */
static void mbc2_over_limit(struct mbcache2 *cache, unsigned int idx,
			    gfp_t mask, unsigned long total)
{
	if (!work_pending(&cache->c_trim_work))
		schedule_work(&cache->c_trim_work);
	if (total >= 2 * cache->c_max_entries &&
	    gfpflags_allow_blocking(mask))
		mbc2_shrink_stripe(cache, idx, MBC2_SYNC_SHRINK_BATCH);
}

/* Hash @entry unless its (key, value) is present; frees it if it is. */
static int mbc2_insert(struct mbcache2 *cache, gfp_t mask,
		       struct mbcache2_entry *entry)
{
	unsigned int bucket = mbc2_bucket(cache, entry->e_key);
	unsigned int idx = mbc2_stripe_idx(cache, bucket);
	struct hlist_head *head = &cache->c_hash[bucket];
	struct mbc2_stripe *stripe = &cache->c_stripes[idx];
	spinlock_t *lock = mbc2_lock(cache, idx);
	struct mbcache2_entry *dup;
	long total;

	spin_lock(lock);
	hlist_for_each_entry(dup, head, e_hash_list) {
		if (dup->e_key == entry->e_key &&
		    dup->e_value == entry->e_value) {
			spin_unlock(lock);
			mbc2_entry_free(entry);
			percpu_stats_inc(&cache->c_events, MBC2_DUPLICATES);
			return -EBUSY;
		}
	}
	hlist_add_head(&entry->e_hash_list, head);
	list_add_tail(&entry->e_list, &stripe->s_lru);
	total = mbc2_stripe_count(cache, stripe, 1);
	spin_unlock(lock);

	percpu_stats_inc(&cache->c_events, MBC2_INSERTS);
	percpu_stats_inc(&cache->c_entries, 0);
	if (unlikely(total >= (long)cache->c_max_entries))
		mbc2_over_limit(cache, idx, mask, total);
	return 0;
}

/**
 * mbcache2_entry_create - add an entry to a cache
 * @cache: the cache
 * @mask: allocation flags for the new entry
 * @key: key of the entry
 * @value: value of the entry; (@key, @value) identifies the entry
 * @reusable: whether mbcache2_entry_find_first() and
 *	mbcache2_entry_find_next() may return the entry
 *
 * Allocates an entry and hashes it, unless an entry with the same key and
 * value is already in the cache. The new entry is owned by the cache; the
 * caller gets no reference. Schedules the trim work when the cache is at
 * its limit; at twice the limit also reclaims a batch of entries from the
 * new entry's stripe itself, if @mask allows blocking.
 *
 * Context: process context (the stripe locks are not irq-safe); sleeps
 * only if @mask allows blocking.
 * Return: 0 on success, -EBUSY if (@key, @value) is already cached,
 * -ENOMEM if the allocation failed, -EINVAL for a NULL @cache.
 */
int mbcache2_entry_create(struct mbcache2 *cache, gfp_t mask, u32 key,
			  u64 value, bool reusable)
{
	struct mbcache2_entry *entry;

	if (WARN_ON_ONCE(!cache))
		return -EINVAL;
	entry = mbc2_entry_alloc(mask, key, value, reusable);
	if (!entry)
		return -ENOMEM;
	return mbc2_insert(cache, mask, entry);
}
EXPORT_SYMBOL(mbcache2_entry_create);

/**
 * mbcache2_entry_ensure - make sure a key/value pair is cached
 * @cache: the cache
 * @mask: allocation flags, used only if the pair is not cached yet
 * @key: key of the entry
 * @value: value of the entry
 * @reusable: reusable flag for a newly created entry; an existing entry
 *	keeps its flags
 *
 * Same result as mbcache2_entry_create(), but looks the pair up first and
 * allocates nothing when it is already cached. Use it where the pair is
 * usually present (e.g. on every read of a shared xattr block); use
 * mbcache2_entry_create() where it usually is not, as a miss here costs a
 * second chain walk.
 *
 * Context: as mbcache2_entry_create().
 * Return: 0 if an entry was created, -EBUSY if (@key, @value) is already
 * cached, -ENOMEM if the allocation failed, -EINVAL for a NULL @cache.
 */
int mbcache2_entry_ensure(struct mbcache2 *cache, gfp_t mask, u32 key,
			  u64 value, bool reusable)
{
	unsigned int bucket, idx;
	struct mbcache2_entry *entry;
	spinlock_t *lock;	/* the stripe lock of @key */
	bool found = false;

	if (WARN_ON_ONCE(!cache))
		return -EINVAL;
	bucket = mbc2_bucket(cache, key);
	idx = mbc2_stripe_idx(cache, bucket);
	lock = mbc2_lock(cache, idx);

	spin_lock(lock);
	hlist_for_each_entry(entry, &cache->c_hash[bucket], e_hash_list) {
		if (entry->e_key == key && entry->e_value == value) {
			found = true;
			break;
		}
	}
	spin_unlock(lock);

	percpu_stats_inc(&cache->c_events, found ? MBC2_HITS : MBC2_MISSES);
	if (found)
		return -EBUSY;
	entry = mbc2_entry_alloc(mask, key, value, reusable);
	if (!entry)
		return -ENOMEM;
	return mbc2_insert(cache, mask, entry);
}
EXPORT_SYMBOL(mbcache2_entry_ensure);

/**
 * __mbcache2_entry_free - free an entry whose last reference is gone
 * @cache: the cache the entry belonged to (not dereferenced)
 * @entry: the entry, already unhashed
 *
 * Called by mbcache2_entry_put(); not for direct use. An entry loses its
 * last reference only after it left the hash table, so this only returns
 * the memory. A still-hashed entry means a reference was dropped twice:
 * it is left alone (leaked) with a warning rather than corrupt its chain.
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
 * mbcache2_entry_wait_unused - wait to be the last user of an entry
 * @entry: an entry the caller holds a reference to
 *
 * Sleeps until no one but the cache and the caller holds a reference,
 * typically after mbcache2_entry_delete_or_get() returned @entry.
 *
 * Context: process context; sleeps.
 */
void mbcache2_entry_wait_unused(struct mbcache2_entry *entry)
{
	if (WARN_ON_ONCE(!entry))
		return;
	wait_var_event(&entry->e_refcnt, atomic_read(&entry->e_refcnt) <= 2);
}
EXPORT_SYMBOL(mbcache2_entry_wait_unused);

/* Walk @key's chain from after @old (or from the start) for a reusable one */
static struct mbcache2_entry *mbc2_find(struct mbcache2 *cache,
					struct mbcache2_entry *old, u32 key)
{
	unsigned int bucket = mbc2_bucket(cache, key);
	unsigned int idx = mbc2_stripe_idx(cache, bucket);
	spinlock_t *lock = mbc2_lock(cache, idx);
	struct mbcache2_entry *entry;
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
			/* Hashed, so the cache's reference keeps it >= 1 */
			atomic_inc(&entry->e_refcnt);
			goto out;
		}
	}
	entry = NULL;
out:
	spin_unlock(lock);
	if (old)
		mbcache2_entry_put(cache, old);
	return entry;
}

/**
 * mbcache2_entry_find_first - find the first reusable entry with a key
 * @cache: the cache
 * @key: the key
 *
 * Return: the most recently inserted reusable entry with @key, with a
 * reference the caller must drop with mbcache2_entry_put() or pass to
 * mbcache2_entry_find_next(); NULL if there is none or @cache is NULL.
 */
struct mbcache2_entry *mbcache2_entry_find_first(struct mbcache2 *cache,
						 u32 key)
{
	struct mbcache2_entry *entry;

	if (WARN_ON_ONCE(!cache))
		return NULL;
	entry = mbc2_find(cache, NULL, key);
	percpu_stats_inc(&cache->c_events, entry ? MBC2_HITS : MBC2_MISSES);
	return entry;
}
EXPORT_SYMBOL(mbcache2_entry_find_first);

/**
 * mbcache2_entry_find_next - find the next reusable entry with the same key
 * @cache: the cache
 * @entry: an entry returned by a find, with its reference
 *
 * Continues the chain walk after @entry; if @entry was removed from the
 * cache meanwhile, starts again from the head of the chain. Drops the
 * reference to @entry in all cases.
 *
 * Return: the next reusable entry with @entry's key, with a reference, or
 * NULL if there is none or an argument is NULL.
 */
struct mbcache2_entry *mbcache2_entry_find_next(struct mbcache2 *cache,
						struct mbcache2_entry *entry)
{
	if (WARN_ON_ONCE(!entry))
		return NULL;
	if (WARN_ON_ONCE(!cache)) {
		mbcache2_entry_put(cache, entry);
		return NULL;
	}
	return mbc2_find(cache, entry, entry->e_key);
}
EXPORT_SYMBOL(mbcache2_entry_find_next);

/* Look (key, value) up under its stripe lock; returns it with a reference */
static struct mbcache2_entry *mbc2_get(struct mbcache2 *cache, u32 key,
				       u64 value)
{
	unsigned int bucket = mbc2_bucket(cache, key);
	unsigned int idx = mbc2_stripe_idx(cache, bucket);
	spinlock_t *lock = mbc2_lock(cache, idx);
	struct mbcache2_entry *entry;

	spin_lock(lock);
	hlist_for_each_entry(entry, &cache->c_hash[bucket], e_hash_list) {
		if (entry->e_key == key && entry->e_value == value) {
			atomic_inc(&entry->e_refcnt);
			break;
		}
	}
	spin_unlock(lock);
	return entry;
}

/**
 * mbcache2_entry_get - look an entry up by key and value
 * @cache: the cache
 * @key: the key
 * @value: the value
 *
 * Unlike the find functions, also returns entries that are not reusable.
 *
 * Return: the entry with a reference the caller must drop with
 * mbcache2_entry_put(), or NULL if it is not cached or @cache is NULL.
 */
struct mbcache2_entry *mbcache2_entry_get(struct mbcache2 *cache, u32 key,
					  u64 value)
{
	struct mbcache2_entry *entry;

	if (WARN_ON_ONCE(!cache))
		return NULL;
	entry = mbc2_get(cache, key, value);
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
 * Removes and frees the entry (@key, @value) if no one holds a reference
 * to it, whether or not it was referenced. If someone does, leaves it in
 * the cache and returns it with a new reference, so that the caller can
 * mbcache2_entry_wait_unused() and retry.
 *
 * Return: NULL if the entry was removed or was not cached (or @cache is
 * NULL); otherwise the entry, with a reference.
 */
struct mbcache2_entry *mbcache2_entry_delete_or_get(struct mbcache2 *cache,
						    u32 key, u64 value)
{
	unsigned int bucket, idx;
	struct mbcache2_entry *entry;
	spinlock_t *lock;	/* the stripe lock of @key */

	if (WARN_ON_ONCE(!cache))
		return NULL;
	bucket = mbc2_bucket(cache, key);
	idx = mbc2_stripe_idx(cache, bucket);
	lock = mbc2_lock(cache, idx);

	spin_lock(lock);
	hlist_for_each_entry(entry, &cache->c_hash[bucket], e_hash_list) {
		if (entry->e_key != key || entry->e_value != value)
			continue;
		if (atomic_cmpxchg(&entry->e_refcnt, 1, 0) == 1) {
			mbc2_unlink(cache, &cache->c_stripes[idx], entry);
			spin_unlock(lock);
			mbc2_entry_free(entry);
			percpu_stats_inc(&cache->c_events, MBC2_DELETES);
			percpu_stats_dec(&cache->c_entries, 0);
			return NULL;
		}
		atomic_inc(&entry->e_refcnt);
		spin_unlock(lock);
		return entry;
	}
	spin_unlock(lock);
	return NULL;
}
EXPORT_SYMBOL(mbcache2_entry_delete_or_get);

/**
 * mbcache2_entry_touch - mark an entry as recently used
 * @cache: the cache the entry belongs to
 * @entry: an entry the caller holds a reference to
 *
 * Sets the entry's referenced bit: the next reclaim pass that reaches the
 * entry clears the bit instead of freeing it (second chance).
 */
void mbcache2_entry_touch(struct mbcache2 *cache,
			  struct mbcache2_entry *entry)
{
	if (WARN_ON_ONCE(!cache || !entry))
		return;
	/* Do not dirty a hot entry's cacheline when the bit is already set */
	if (!test_bit(MBE2_REFERENCED_B, &entry->e_flags))
		set_bit(MBE2_REFERENCED_B, &entry->e_flags);
}
EXPORT_SYMBOL(mbcache2_entry_touch);

/**
 * mbcache2_get_stats - read a cache's statistics
 * @cache: the cache
 * @stats: where to store them
 *
 * The event counters count since the cache was created or since the last
 * mbcache2_reset_stats(); @stats->entries is the current number of
 * entries. Sums per-CPU counters: meant for reporting, not per operation.
 * A NULL @cache gives all zeroes.
 */
void mbcache2_get_stats(struct mbcache2 *cache, struct mbcache2_stats *stats)
{
	u64 sums[MBC2_NR_EVENTS];

	memset(stats, 0, sizeof(*stats));
	if (WARN_ON_ONCE(!cache))
		return;
	if (percpu_stats_sum_all(&cache->c_events, sums, MBC2_NR_EVENTS) < 0)
		return;
	stats->lookups = sums[MBC2_HITS] + sums[MBC2_MISSES];
	stats->hits = sums[MBC2_HITS];
	stats->inserts = sums[MBC2_INSERTS];
	stats->duplicates = sums[MBC2_DUPLICATES];
	stats->deletes = sums[MBC2_DELETES];
	stats->evictions = sums[MBC2_EVICTIONS];
	stats->entries = percpu_stats_sum_positive(&cache->c_entries, 0);
}
EXPORT_SYMBOL(mbcache2_get_stats);

/**
 * mbcache2_reset_stats - restart a cache's event counters from zero
 * @cache: the cache
 *
 * Records the current totals of the event counters (lookups, hits,
 * inserts, duplicates, deletes, evictions) as a base that later reads
 * subtract (percpu_stats_reset()). No per-CPU counter is written, so an
 * event that races with the reset is counted either before it or after
 * it, never lost and never twice. The entries count is not reset.
 */
void mbcache2_reset_stats(struct mbcache2 *cache)
{
	if (WARN_ON_ONCE(!cache))
		return;
	percpu_stats_reset(&cache->c_events);
}
EXPORT_SYMBOL(mbcache2_reset_stats);

static int mbc2_stats_show(struct seq_file *m, void *unused)
{
	struct mbcache2 *cache = m->private;
	struct mbcache2_stats st;

	mbcache2_get_stats(cache, &st);
	seq_printf(m, "lookups %llu\n", st.lookups);
	seq_printf(m, "hits %llu\n", st.hits);
	seq_printf(m, "inserts %llu\n", st.inserts);
	seq_printf(m, "duplicates %llu\n", st.duplicates);
	seq_printf(m, "deletes %llu\n", st.deletes);
	seq_printf(m, "evictions %llu\n", st.evictions);
	seq_printf(m, "entries %llu\n", st.entries);
	seq_printf(m, "stripe_entries %lu\n", mbcache2_count(cache));
	seq_printf(m, "max_entries %lu\n", cache->c_max_entries);
	seq_printf(m, "buckets %lu\n", 1UL << cache->c_bucket_bits);
	seq_printf(m, "stripes %u\n", cache->c_nr_stripes);
	seq_printf(m, "entry_bytes %u\n", kmem_cache_size(mbc2_entry_cache));
	seq_printf(m, "stock_entry_bytes %zu\n",
		   ALIGN(sizeof(struct mb_cache_entry), sizeof(void *)));
	return 0;
}

static int mbc2_stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, mbc2_stats_show, inode->i_private);
}

static const struct file_operations mbc2_stats_fops = {
	.owner		= THIS_MODULE,
	.open		= mbc2_stats_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* Writing "0" or "reset" to the reset file calls mbcache2_reset_stats() */
static ssize_t mbc2_reset_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	struct mbcache2 *cache = file->private_data;
	char buf[8];
	size_t n = min(len, sizeof(buf) - 1);

	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	buf[n] = '\0';
	if (!sysfs_streq(buf, "0") && !sysfs_streq(buf, "reset"))
		return -EINVAL;
	mbcache2_reset_stats(cache);
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
 * @name: name of the cache, e.g. "pmem0-xattr"; names its debugfs
 *	directory /sys/kernel/debug/mbcache2/<name>/ and its shrinker, so it
 *	should be unique (a duplicate only loses the debugfs files)
 *
 * The cache holds up to 16 entries per bucket before it reclaims in the
 * background. Each cache pins the mbcache2 module until it is destroyed.
 *
 * Context: process context; sleeps.
 * Return: the cache, or NULL if an argument is invalid or memory is short.
 */
struct mbcache2 *mbcache2_create(int bucket_bits, const char *name)
{
	unsigned long bucket_count, i;
	struct mbcache2 *cache;

	if (bucket_bits < MBCACHE2_MIN_BUCKET_BITS ||
	    bucket_bits > MBCACHE2_MAX_BUCKET_BITS) {
		pr_err("bucket_bits %d out of range [%d, %d]\n", bucket_bits,
		       MBCACHE2_MIN_BUCKET_BITS, MBCACHE2_MAX_BUCKET_BITS);
		return NULL;
	}
	if (!name || !*name) {
		pr_err("a cache needs a name\n");
		return NULL;
	}

	cache = kvzalloc(sizeof(*cache), GFP_KERNEL);
	if (!cache)
		return NULL;
	bucket_count = 1UL << bucket_bits;
	cache->c_bucket_bits = bucket_bits;
	cache->c_nr_stripes = min_t(unsigned long, NR_BG_LOCKS, bucket_count);
	cache->c_max_entries = bucket_count << 4;
	cache->c_fold = clamp_t(unsigned long, cache->c_max_entries /
				cache->c_nr_stripes / MBC2_FOLD_DIVISOR,
				1, MBC2_FOLD_MAX);
	strscpy(cache->c_name, name, sizeof(cache->c_name));
	strreplace(cache->c_name, '/', '!');
	bgl_lock_init(&cache->c_bgl);
	INIT_WORK(&cache->c_trim_work, mbc2_trim_worker);

	cache->c_hash = kvmalloc_array(bucket_count, sizeof(*cache->c_hash),
				       GFP_KERNEL);
	if (!cache->c_hash)
		goto free_cache;
	for (i = 0; i < bucket_count; i++)
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

	cache->c_debugfs = debugfs_create_dir(cache->c_name,
					      mbc2_debugfs_root);
	/*
	 * Two files, not one read-write file: under kernel lockdown
	 * (lockdown=integrity, as with Secure Boot) debugfs refuses to open
	 * any file whose mode has a bit beyond 0444, and any open for
	 * writing (debugfs_locked_down() in fs/debugfs/file.c, 6.1 and
	 * 6.12 alike). A 0444 stats file without .write stays readable
	 * there; only the reset file is refused.
	 */
	if (!IS_ERR(cache->c_debugfs)) {
		debugfs_create_file("stats", 0444, cache->c_debugfs, cache,
				    &mbc2_stats_fops);
		debugfs_create_file("reset", 0200, cache->c_debugfs, cache,
				    &mbc2_reset_fops);
	}

	__module_get(THIS_MODULE);
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
 * @cache: the cache
 *
 * The caller must make sure nothing else uses @cache any more. Entries
 * that someone still holds a reference to are a caller bug: they trigger a
 * warning, are taken out of the cache, and are freed by their last
 * mbcache2_entry_put(), which does not touch the destroyed cache.
 *
 * Context: process context; sleeps.
 */
void mbcache2_destroy(struct mbcache2 *cache)
{
	struct mbcache2_entry *entry;
	unsigned long busy = 0;
	unsigned int idx;

	if (WARN_ON_ONCE(!cache))
		return;
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
	WARN(busy, "cache %s destroyed with %lu entries in use\n",
	     cache->c_name, busy);

	percpu_stats_destroy(&cache->c_entries);
	percpu_stats_destroy(&cache->c_events);
	kfree(cache->c_stripes);
	kvfree(cache->c_hash);
	kvfree(cache);
	module_put(THIS_MODULE);
}
EXPORT_SYMBOL(mbcache2_destroy);

/**
 * mbcache2_live_objects - entries allocated and not yet freed
 *
 * Counts over all caches, including entries that outlived their cache
 * because someone held a reference at mbcache2_destroy(). For tests and
 * leak checks; sums a per-CPU counter, so do not call it per operation.
 *
 * Return: the number of live mbcache2_entry objects.
 */
u64 mbcache2_live_objects(void)
{
	return percpu_stats_sum_positive(&mbc2_live, 0);
}
EXPORT_SYMBOL(mbcache2_live_objects);

/**
 * mbcache2_entry_size - memory used by one entry
 *
 * Return: the object size of the mbcache2_entry slab cache, in bytes.
 */
unsigned int mbcache2_entry_size(void)
{
	return kmem_cache_size(mbc2_entry_cache);
}
EXPORT_SYMBOL(mbcache2_entry_size);

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
					     SLAB_RECLAIM_ACCOUNT |
					     MBC2_SLAB_NO_MERGE, NULL);
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

MODULE_DESCRIPTION("Scalable meta block cache with per-device caches");
MODULE_LICENSE("GPL");
MODULE_VERSION(EXT4X_VERSION);
