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
 *  - The capacity (16 entries per bucket, as in mbcache) is divided evenly
 *    between the stripes. An insert that finds its stripe at or above its
 *    share schedules the background trim work, which takes every stripe
 *    above 7/8 of its share down to 7/8; at twice its share the inserter
 *    also reclaims a batch from its own stripe. No cache-wide
 *    counter is read or written on the insert path.
 *
 *  - Reclaim (shrinker, trim work, mbcache2_shrink()) is second chance per
 *    stripe: the head of a stripe's LRU is freed when it is unreferenced
 *    and unused, otherwise its referenced bit is cleared and it moves to
 *    the tail. The shrinker spreads its scan over the stripes in
 *    proportion to their counts, starting at a rotating cursor, so a scan
 *    of as many entries as the cache holds is exactly one pass over every
 *    stripe.
 *
 *  - Lookups (mbcache2_entry_get(), the lookup of mbcache2_entry_ensure(),
 *    mbcache2_entry_find_first() and _find_next()) take no lock: they walk
 *    the chain under rcu_read_lock(), as described below. Inserts and
 *    removals still take the stripe lock, and the hash reference is still
 *    dropped only under it, in the same step that unhashes the entry.
 *
 * Lockless lookups. Entries come from a SLAB_TYPESAFE_BY_RCU kmem_cache:
 * a freed entry may be reused at once, by any cache, but its memory stays
 * an mbcache2_entry for as long as a reader is in an RCU read-side
 * section. The chains are hlist_nulls lists: the end of chain b of a cache
 * is the nulls value (tag << MBCACHE2_MAX_BUCKET_BITS) | b, where tag is
 * the cache's own tag (a number given to each cache at creation, never 0),
 * which also sits in the high bits of e_flags of each entry the cache
 * allocates. An entry's life runs from its allocation, which writes e_key,
 * e_value and e_flags and then sets e_refcnt to 1 with release semantics,
 * to the moment e_refcnt reaches 0; it is then freed (and unhashed, see
 * above) and e_refcnt stays 0 until the next allocation. Writers only
 * change the chains under the stripe lock with the _rcu list primitives,
 * and hlist_nulls_del_init_rcu() leaves e_hash_list.next intact, so a
 * reader that stands on an entry can always go on walking.
 *
 * A reader that reached an entry through a pointer it read earlier may see
 * any field from the entry's present life or from an earlier one (or a
 * later one, if it holds no reference): key, value and flags of another
 * pair, perhaps of another cache; e_hash_list.next of a chain of another
 * bucket or cache; a refcount of 0 (free, or claimed for removal). Each
 * step makes that harmless:
 *
 *  1. The key/value (key/REUSABLE for find) comparison before taking a
 *     reference is only a filter: a stale match costs a retry below, a
 *     stale mismatch skips an entry that the final nulls check or a later
 *     retry then accounts for.
 *  2. The reference is taken with atomic_inc_not_zero(): it fails on a
 *     free entry and on one that a remover claimed (cmpxchg 1 -> 0 under
 *     the stripe lock), and the walk restarts from the head. Once it
 *     succeeds, the reader holds a reference in some life L, which cannot
 *     end before the reader drops it, and the full barrier of the
 *     successful increment orders it after the release that began L: the
 *     reader now reads L's key, value and flags, which stay fixed for all
 *     of L (only the flag bits below the tag change).
 *  3. Having its reference, the reader checks again the key, the value (or
 *     the REUSABLE bit), that the tag in e_flags is its cache's and that
 *     the entry is hashed. An entry is hashed only between its insertion
 *     and its removal in the same life (every life ends unhashed), so all
 *     four together mean that the entry is, or was while the reader looked,
 *     a member of this cache with the requested key and value: a correct
 *     answer. The tag is what keeps an entry of another cache with the
 *     same key and value (two devices, same block number) from passing.
 *     On any mismatch the reader drops its reference with
 *     mbcache2_entry_put(), which frees the entry if that was the last
 *     reference (it was then unhashed, so the free is legal), and
 *     restarts.
 *  4. A walk that was led into another chain by a reused entry ends at
 *     that chain's nulls marker, whose value (other bucket, or other
 *     cache's tag) differs from the one expected, and restarts; only a
 *     walk that ends at its own chain's end may report a miss.
 *
 * Removers claim the hash reference with atomic_cmpxchg(&e_refcnt, 1, 0)
 * under the stripe lock (shrinker, trim, mbcache2_entry_delete_or_get()):
 * as readers may increment the count at any time, a plain read of 1 would
 * not mean unused. A remover whose cmpxchg fails treats the entry as in
 * use, which a reader's transient reference may also cause: the shrinker
 * then keeps the entry for a later pass, delete_or_get() returns it with a
 * reference (the caller waits for mbcache2_entry_wait_unused() and tries
 * again, as with a real user). An insert that finds a duplicate drops the
 * new entry's reference with atomic_dec_and_test(), since a reader may
 * hold a transient one. mbcache2_destroy() claims each entry the same way;
 * an entry that it cannot claim waits out an RCU grace period (after
 * which no reader holds a transient reference to an entry that is in no
 * chain) before it counts as leaked by a user. Allocation masks lose
 * __GFP_ZERO: zeroing would clear e_hash_list.next under a reader.
 *
 * Statistics: /sys/kernel/debug/mbcache2/<name>/stats prints one
 * "name value" per line: the event counters lookups, hits, inserts,
 * duplicates, deletes and evictions (per-CPU percpu_stats counters), the
 * gauge entries (incremented on insert and decremented on removal, on
 * whatever CPU; the sum is clamped at zero because it may be transiently
 * negative), stripe_entries (the sum of the per-stripe counts), the
 * capacity (max_entries, buckets, stripes) and the size of one entry beside
 * that of a stock mbcache entry (entry_bytes, stock_entry_bytes). Writing
 * "0" or "reset" to the file restarts the event counters from zero: their
 * current totals become a base that later reads subtract, no per-CPU
 * counter is written, so an event racing with the reset is counted exactly
 * once, before or after it. The entries gauge is not reset.
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
#include <linux/rculist_nulls.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "../percpu_stats/percpu_stats.h"
#include "mbcache2.h"

/* Longest cache name kept, including the NUL */
#define MBC2_NAME_LEN		32
/* Most entries an inserter scans when its stripe is at twice its share */
#define MBC2_SYNC_SHRINK_BATCH	64
/*
 * The trim work takes every stripe above 7/8 of its share down to 7/8, so
 * that one run makes room for many inserts (about as many as the 1/16 of
 * the whole cache that the stock trim frees) before a stripe reaches its
 * share again and schedules the next run.
 */
#define MBC2_TRIM_DIVISOR	8
/* Most entries scanned per stripe lock hold */
#define MBC2_SCAN_CHUNK		64
/*
 * The bits of e_flags from MBC2_TAG_SHIFT up hold the owning cache's tag;
 * the tag also sits above the bucket index in the chain's nulls value,
 * which has BITS_PER_LONG - 1 bits, so it has MBC2_TAG_BITS bits (43 on
 * 64-bit: caches would have to be created at a million a second for three
 * months before a tag came back).
 */
#define MBC2_TAG_SHIFT		8
#define MBC2_FLAG_MASK		(BIT(MBC2_TAG_SHIFT) - 1)
#define MBC2_TAG_BITS		(BITS_PER_LONG - 1 - MBCACHE2_MAX_BUCKET_BITS)
#define MBC2_TAG_MASK		(BIT(MBC2_TAG_BITS) - 1)

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
 * @s_count: number of entries on @s_lru (and in the stripe's chains)
 */
struct mbc2_stripe {
	struct list_head	s_lru;
	unsigned long		s_count;
} ____cacheline_aligned_in_smp;

/**
 * struct mbcache2 - one cache, normally one per device
 * @c_bgl: the stripe locks
 * @c_hash: 2^@c_bucket_bits hash chain heads; chain b ends with the nulls
 *	value @c_nulls_base | b
 * @c_nulls_base: the cache's tag shifted above the bucket index
 * @c_flags_tag: the cache's tag shifted above the flag bits of e_flags
 * @c_stripes: @c_nr_stripes stripe structs, parallel to @c_bgl
 * @c_bucket_bits: log2 of the number of hash buckets
 * @c_nr_stripes: number of stripes in use, a power of two
 * @c_max_entries: capacity of the whole cache
 * @c_stripe_limit: capacity of one stripe
 * @c_shrink_cursor: stripe where the next shrinker scan starts
 * @c_events: event counters (enum mbc2_event); reset from debugfs
 * @c_entries: a single gauge, entries in the cache; never reset
 * @c_shrink: memory pressure shrinker
 * @c_trim_work: background trim when a stripe exceeds its share
 * @c_debugfs: the cache's debugfs directory
 * @c_name: name given at creation, '/' replaced by '!'
 */
struct mbcache2 {
	struct blockgroup_lock	c_bgl;
	struct hlist_nulls_head	*c_hash;
	unsigned long		c_nulls_base;
	unsigned long		c_flags_tag;
	struct mbc2_stripe	*c_stripes;
	unsigned int		c_bucket_bits;
	unsigned int		c_nr_stripes;
	unsigned long		c_max_entries;
	unsigned long		c_stripe_limit;
	unsigned int		c_shrink_cursor;
	struct percpu_stats	c_events;
	struct percpu_stats	c_entries;
	struct shrinker		c_shrink;
	struct work_struct	c_trim_work;
	struct dentry		*c_debugfs;
	char			c_name[MBC2_NAME_LEN];
};

static struct kmem_cache *mbc2_entry_cache;
/* The last tag given to a cache */
static atomic_long_t mbc2_last_tag;
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

static inline unsigned long mbc2_nulls(const struct mbcache2 *cache,
				       unsigned int bucket)
{
	return cache->c_nulls_base | bucket;
}

/*
 * Second check of a lockless lookup, made while holding a reference to
 * @entry: is it still a hashed entry of @cache with @key? (Its value or
 * REUSABLE bit is checked by the caller.)
 */
static inline bool mbc2_entry_is(const struct mbcache2 *cache,
				 const struct mbcache2_entry *entry, u32 key)
{
	return !hlist_nulls_unhashed_lockless(&entry->e_hash_list) &&
	       READ_ONCE(entry->e_key) == key &&
	       (READ_ONCE(entry->e_flags) & ~MBC2_FLAG_MASK) ==
	       cache->c_flags_tag;
}

/*
 * The constructor runs when a slab page is created, not per allocation:
 * it leaves both list nodes unlinked (the chain pointer at a nulls marker
 * that no chain uses, as tag 0 is never given) and the refcount at 0.
 * Every entry goes back to the slab unlinked and with a zero refcount, and
 * allocation must leave e_hash_list alone (a lockless reader may be
 * walking through it), so these hold for every free entry. The cache is
 * SLAB_TYPESAFE_BY_RCU, which is never merged: mbcache2_entry keeps its
 * own line in /proc/slabinfo.
 */
static void mbc2_entry_ctor(void *obj)
{
	struct mbcache2_entry *entry = obj;

	INIT_LIST_HEAD(&entry->e_list);
	entry->e_hash_list.next = (struct hlist_nulls_node *)NULLS_MARKER(0);
	entry->e_hash_list.pprev = NULL;
	atomic_set(&entry->e_refcnt, 0);
	entry->e_flags = 0;
}

static struct mbcache2_entry *mbc2_entry_alloc(struct mbcache2 *cache,
					       gfp_t mask, u32 key, u64 value,
					       bool reusable)
{
	struct mbcache2_entry *entry;

	/* Zeroing would cut the chain under a lockless reader */
	entry = kmem_cache_alloc(mbc2_entry_cache, mask & ~__GFP_ZERO);
	if (!entry)
		return NULL;
	/*
	 * A lockless reader holding a stale pointer to this object can take
	 * a reference as soon as the refcount is not 0: the fields it checks
	 * afterwards must already hold their new values.
	 */
	WRITE_ONCE(entry->e_key, key);
	WRITE_ONCE(entry->e_value, value);
	WRITE_ONCE(entry->e_flags, cache->c_flags_tag |
		   (reusable ? BIT(MBE2_REUSABLE_B) : 0));
	/* The only reference is the one the hash table will own */
	atomic_set_release(&entry->e_refcnt, 1);
	percpu_stats_inc(&mbc2_live, 0);
	return entry;
}

static void mbc2_entry_free(struct mbcache2_entry *entry)
{
	kmem_cache_free(mbc2_entry_cache, entry);
	percpu_stats_dec(&mbc2_live, 0);
}

/* Caller holds the stripe lock and has just claimed the hash reference */
static void mbc2_unlink(struct mbc2_stripe *stripe,
			struct mbcache2_entry *entry)
{
	hlist_nulls_del_init_rcu(&entry->e_hash_list);
	list_del_init(&entry->e_list);
	stripe->s_count--;
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
			mbc2_unlink(stripe, entry);
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
	struct mbcache2 *cache = container_of(shrink, struct mbcache2,
					      c_shrink);

	return mbcache2_count(cache);
}

static unsigned long mbc2_shrink_scan(struct shrinker *shrink,
				      struct shrink_control *sc)
{
	struct mbcache2 *cache = container_of(shrink, struct mbcache2,
					      c_shrink);

	return mbcache2_shrink(cache, sc->nr_to_scan);
}

static void mbc2_trim_worker(struct work_struct *work)
{
	struct mbcache2 *cache = container_of(work, struct mbcache2,
					      c_trim_work);
	unsigned long low = cache->c_stripe_limit -
			    cache->c_stripe_limit / MBC2_TRIM_DIVISOR;
	unsigned int idx;

	for (idx = 0; idx < cache->c_nr_stripes; idx++) {
		unsigned long count = READ_ONCE(cache->c_stripes[idx].s_count);

		if (count > low)
			mbc2_shrink_stripe(cache, idx, count - low);
	}
}

/* Called by an inserter that left its stripe with @count entries */
static void mbc2_over_limit(struct mbcache2 *cache, unsigned int idx,
			    unsigned long count)
{
	if (!work_pending(&cache->c_trim_work))
		schedule_work(&cache->c_trim_work);
	if (count >= 2 * cache->c_stripe_limit)
		mbc2_shrink_stripe(cache, idx,
				   min_t(unsigned long, MBC2_SYNC_SHRINK_BATCH,
					 count - cache->c_stripe_limit));
}

/* Hash @entry unless its (key, value) is present; frees it if it is. */
static int mbc2_insert(struct mbcache2 *cache, struct mbcache2_entry *entry)
{
	unsigned int bucket = mbc2_bucket(cache, entry->e_key);
	unsigned int idx = mbc2_stripe_idx(cache, bucket);
	struct hlist_nulls_head *head = &cache->c_hash[bucket];
	struct mbc2_stripe *stripe = &cache->c_stripes[idx];
	spinlock_t *lock = mbc2_lock(cache, idx);
	struct mbcache2_entry *dup;
	struct hlist_nulls_node *node;
	unsigned long count;

	spin_lock(lock);
	hlist_nulls_for_each_entry(dup, node, head, e_hash_list) {
		if (dup->e_key == entry->e_key &&
		    dup->e_value == entry->e_value) {
			spin_unlock(lock);
			/*
			 * A lockless reader may hold a transient reference;
			 * then its put frees the entry, never hashed.
			 */
			if (atomic_dec_and_test(&entry->e_refcnt))
				mbc2_entry_free(entry);
			percpu_stats_inc(&cache->c_events, MBC2_DUPLICATES);
			return -EBUSY;
		}
	}
	/* Release: the entry's fields before the pointer to it */
	hlist_nulls_add_head_rcu(&entry->e_hash_list, head);
	list_add_tail(&entry->e_list, &stripe->s_lru);
	count = ++stripe->s_count;
	spin_unlock(lock);

	percpu_stats_inc(&cache->c_events, MBC2_INSERTS);
	percpu_stats_inc(&cache->c_entries, 0);
	if (unlikely(count >= cache->c_stripe_limit))
		mbc2_over_limit(cache, idx, count);
	return 0;
}

/*
 * Look (@key, @value) up without a lock: see "Lockless lookups" at the top
 * of the file for why each check is there. Returns the entry with a
 * reference, or NULL.
 */
static struct mbcache2_entry *mbc2_get(struct mbcache2 *cache, u32 key,
				       u64 value)
{
	unsigned int bucket = mbc2_bucket(cache, key);
	struct hlist_nulls_head *head = &cache->c_hash[bucket];
	struct mbcache2_entry *entry;
	struct hlist_nulls_node *node;

	rcu_read_lock();
restart:
	hlist_nulls_for_each_entry_rcu(entry, node, head, e_hash_list) {
		/* 1. A filter: the fields may be from another life */
		if (READ_ONCE(entry->e_key) != key ||
		    READ_ONCE(entry->e_value) != value)
			continue;
		/* 2. Free or claimed for removal: gone, look again */
		if (!atomic_inc_not_zero(&entry->e_refcnt))
			goto restart;
		/* 3. Pinned in its present life: is it really ours? */
		if (likely(mbc2_entry_is(cache, entry, key) &&
			   READ_ONCE(entry->e_value) == value))
			goto out;
		mbcache2_entry_put(cache, entry);
		goto restart;
	}
	/* 4. Moved to another chain by a reuse: the miss proves nothing */
	if (unlikely(get_nulls_value(node) != mbc2_nulls(cache, bucket)))
		goto restart;
	entry = NULL;
out:
	rcu_read_unlock();
	return entry;
}

/*
 * Walk @key's chain from after @old (or from the start) for a reusable
 * entry, without a lock, as mbc2_get() does; drops the reference to @old.
 */
static struct mbcache2_entry *mbc2_find(struct mbcache2 *cache,
					struct mbcache2_entry *old, u32 key)
{
	unsigned int bucket = mbc2_bucket(cache, key);
	struct hlist_nulls_head *head = &cache->c_hash[bucket];
	struct mbcache2_entry *entry;
	struct hlist_nulls_node *node;

	rcu_read_lock();
restart:
	/* Our reference keeps @old in its life, so in this cache */
	if (old && !hlist_nulls_unhashed_lockless(&old->e_hash_list))
		node = rcu_dereference(hlist_nulls_next_rcu(&old->e_hash_list));
	else
		node = rcu_dereference(hlist_nulls_first_rcu(head));
	for (; !is_a_nulls(node);
	     node = rcu_dereference(hlist_nulls_next_rcu(node))) {
		entry = hlist_nulls_entry(node, struct mbcache2_entry,
					  e_hash_list);
		if (READ_ONCE(entry->e_key) != key ||
		    !test_bit(MBE2_REUSABLE_B, &entry->e_flags))
			continue;
		if (!atomic_inc_not_zero(&entry->e_refcnt))
			goto restart;
		if (likely(mbc2_entry_is(cache, entry, key) &&
			   test_bit(MBE2_REUSABLE_B, &entry->e_flags)))
			goto out;
		mbcache2_entry_put(cache, entry);
		goto restart;
	}
	if (unlikely(get_nulls_value(node) != mbc2_nulls(cache, bucket)))
		goto restart;
	entry = NULL;
out:
	rcu_read_unlock();
	if (old)
		mbcache2_entry_put(cache, old);
	return entry;
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
 * caller gets no reference. May reclaim a batch of entries from the
 * entry's stripe if that stripe holds twice its share of the capacity.
 *
 * Return: 0 on success, -EBUSY if (@key, @value) is already cached,
 * -ENOMEM if the allocation failed, -EINVAL for a NULL @cache.
 */
int mbcache2_entry_create(struct mbcache2 *cache, gfp_t mask, u32 key,
			  u64 value, bool reusable)
{
	struct mbcache2_entry *entry;

	if (WARN_ON_ONCE(!cache))
		return -EINVAL;
	entry = mbc2_entry_alloc(cache, mask, key, value, reusable);
	if (!entry)
		return -ENOMEM;
	return mbc2_insert(cache, entry);
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
 * Return: 0 if an entry was created, -EBUSY if (@key, @value) is already
 * cached, -ENOMEM if the allocation failed, -EINVAL for a NULL @cache.
 */
int mbcache2_entry_ensure(struct mbcache2 *cache, gfp_t mask, u32 key,
			  u64 value, bool reusable)
{
	struct mbcache2_entry *entry;

	if (WARN_ON_ONCE(!cache))
		return -EINVAL;
	entry = mbc2_get(cache, key, value);
	percpu_stats_inc(&cache->c_events, entry ? MBC2_HITS : MBC2_MISSES);
	if (entry) {
		mbcache2_entry_put(cache, entry);
		return -EBUSY;
	}
	entry = mbc2_entry_alloc(cache, mask, key, value, reusable);
	if (!entry)
		return -ENOMEM;
	return mbc2_insert(cache, entry);
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
	if (WARN_ON_ONCE(!hlist_nulls_unhashed(&entry->e_hash_list)))
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

/**
 * mbcache2_entry_find_first - find the first reusable entry with a key
 * @cache: the cache
 * @key: the key
 *
 * Takes no lock: walks the chain under RCU.
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
 * reference to @entry in all cases. Takes no lock: walks the chain under
 * RCU.
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

/**
 * mbcache2_entry_get - look an entry up by key and value
 * @cache: the cache
 * @key: the key
 * @value: the value
 *
 * Unlike the find functions, also returns entries that are not reusable.
 * Takes no lock: walks the chain under RCU and takes the reference with
 * atomic_inc_not_zero().
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
 * mbcache2_entry_wait_unused() and retry. A concurrent lookup holds a
 * reference for a moment, even one that then finds the entry is not the
 * one it wants: that too makes the entry in use, briefly.
 *
 * Return: NULL if the entry was removed or was not cached (or @cache is
 * NULL); otherwise the entry, with a reference.
 */
struct mbcache2_entry *mbcache2_entry_delete_or_get(struct mbcache2 *cache,
						    u32 key, u64 value)
{
	unsigned int bucket, idx;
	struct mbcache2_entry *entry;
	struct hlist_nulls_node *node;
	spinlock_t *lock;	/* the stripe lock of @key */

	if (WARN_ON_ONCE(!cache))
		return NULL;
	bucket = mbc2_bucket(cache, key);
	idx = mbc2_stripe_idx(cache, bucket);
	lock = mbc2_lock(cache, idx);

	spin_lock(lock);
	hlist_nulls_for_each_entry(entry, node, &cache->c_hash[bucket],
				   e_hash_list) {
		if (entry->e_key != key || entry->e_value != value)
			continue;
		/* Only the cmpxchg may decide: readers take references */
		if (atomic_cmpxchg(&entry->e_refcnt, 1, 0) == 1) {
			mbc2_unlink(&cache->c_stripes[idx], entry);
			spin_unlock(lock);
			mbc2_entry_free(entry);
			percpu_stats_inc(&cache->c_events, MBC2_DELETES);
			percpu_stats_dec(&cache->c_entries, 0);
			return NULL;
		}
		/* Hashed and unclaimed under the lock: the count is >= 1 */
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

/* Writing "0" or "reset" calls mbcache2_reset_stats() */
static ssize_t mbc2_stats_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	struct mbcache2 *cache = file_inode(file)->i_private;
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

static const struct file_operations mbc2_stats_fops = {
	.owner		= THIS_MODULE,
	.open		= mbc2_stats_open,
	.read		= seq_read,
	.write		= mbc2_stats_write,
	.llseek		= seq_lseek,
	.release	= single_release,
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
	unsigned long bucket_count, i, tag;
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
	cache->c_stripe_limit = cache->c_max_entries / cache->c_nr_stripes;
	strscpy(cache->c_name, name, sizeof(cache->c_name));
	strreplace(cache->c_name, '/', '!');
	bgl_lock_init(&cache->c_bgl);
	INIT_WORK(&cache->c_trim_work, mbc2_trim_worker);
	/* Tag 0 is the nulls value of a free entry's chain pointer */
	do {
		tag = atomic_long_inc_return(&mbc2_last_tag) & MBC2_TAG_MASK;
	} while (!tag);
	cache->c_nulls_base = tag << MBCACHE2_MAX_BUCKET_BITS;
	cache->c_flags_tag = tag << MBC2_TAG_SHIFT;

	cache->c_hash = kvmalloc_array(bucket_count, sizeof(*cache->c_hash),
				       GFP_KERNEL);
	if (!cache->c_hash)
		goto free_cache;
	for (i = 0; i < bucket_count; i++)
		INIT_HLIST_NULLS_HEAD(&cache->c_hash[i], mbc2_nulls(cache, i));

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

	cache->c_shrink.count_objects = mbc2_shrink_count;
	cache->c_shrink.scan_objects = mbc2_shrink_scan;
	cache->c_shrink.seeks = DEFAULT_SEEKS;
	if (register_shrinker(&cache->c_shrink, "mbcache2-%s", cache->c_name))
		goto free_entries;

	cache->c_debugfs = debugfs_create_dir(cache->c_name,
					      mbc2_debugfs_root);
	if (!IS_ERR(cache->c_debugfs))
		debugfs_create_file("stats", 0600, cache->c_debugfs, cache,
				    &mbc2_stats_fops);

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
 * Context: process context; sleeps (for an RCU grace period, if an entry
 * is not free to go at once).
 */
void mbcache2_destroy(struct mbcache2 *cache)
{
	struct mbcache2_entry *entry, *next;
	unsigned long busy = 0;
	unsigned int idx;
	LIST_HEAD(held);

	if (WARN_ON_ONCE(!cache))
		return;
	debugfs_remove_recursive(cache->c_debugfs);
	unregister_shrinker(&cache->c_shrink);
	cancel_work_sync(&cache->c_trim_work);

	for (idx = 0; idx < cache->c_nr_stripes; idx++) {
		struct mbc2_stripe *stripe = &cache->c_stripes[idx];
		spinlock_t *lock = mbc2_lock(cache, idx);

		spin_lock(lock);
		while (!list_empty(&stripe->s_lru)) {
			entry = list_first_entry(&stripe->s_lru,
						 struct mbcache2_entry, e_list);
			if (atomic_cmpxchg(&entry->e_refcnt, 1, 0) == 1) {
				mbc2_unlink(stripe, entry);
				mbc2_entry_free(entry);
				continue;
			}
			/*
			 * A user's reference, or a transient one of a
			 * lockless lookup of another cache that came here by
			 * a stale pointer: keep the hash reference for now.
			 */
			mbc2_unlink(stripe, entry);
			list_add(&entry->e_list, &held);
		}
		spin_unlock(lock);
		cond_resched();
	}
	if (!list_empty(&held)) {
		/*
		 * Transient references live within one RCU read-side section
		 * and no walk that starts now can reach an entry that is in
		 * no chain: after a grace period only users' ones are left.
		 */
		synchronize_rcu();
		list_for_each_entry_safe(entry, next, &held, e_list) {
			list_del_init(&entry->e_list);
			if (atomic_dec_and_test(&entry->e_refcnt))
				mbc2_entry_free(entry);
			else
				busy++;
		}
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
	BUILD_BUG_ON(MBE2_REUSABLE_B >= MBC2_TAG_SHIFT);
	BUILD_BUG_ON(MBC2_TAG_SHIFT + MBC2_TAG_BITS > BITS_PER_LONG);
	mbc2_entry_cache = kmem_cache_create("mbcache2_entry",
					     sizeof(struct mbcache2_entry), 0,
					     SLAB_RECLAIM_ACCOUNT |
					     SLAB_TYPESAFE_BY_RCU,
					     mbc2_entry_ctor);
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
	/*
	 * For a SLAB_TYPESAFE_BY_RCU cache, 6.1 leaves the end of the
	 * destruction, /sys/kernel/slab/mbcache2_entry included, to a work
	 * item on the system workqueue (after an rcu_barrier()). Wait for it,
	 * so that the module is really gone when the unload returns and a
	 * reload can create the cache under the same name again.
	 */
	flush_scheduled_work();
	percpu_stats_destroy(&mbc2_live);
}

module_init(mbcache2_init);
module_exit(mbcache2_exit);

MODULE_DESCRIPTION("Scalable meta block cache with per-device caches");
MODULE_LICENSE("GPL");
