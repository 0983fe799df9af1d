/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mbcache2 - the mbcache API (mb_cache_* becomes mbcache2_*) with striped
 * locks and no cache line shared by its operations; see mbcache2.c.
 */
#ifndef _MBCACHE2_H
#define _MBCACHE2_H

#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/types.h>
#include <linux/wait_bit.h>

struct mbcache2;

/* Bits in mbcache2_entry::e_flags */
enum {
	MBE2_REFERENCED_B = 0,	/* used since the last reclaim pass */
	MBE2_REUSABLE_B,	/* find_first/find_next may return it */
};

/* Limits on the bucket_bits argument of mbcache2_create() */
#define MBCACHE2_MIN_BUCKET_BITS	1
#define MBCACHE2_MAX_BUCKET_BITS	20

/**
 * struct mbcache2_entry - one key/value pair in a cache
 * @e_list: place in the LRU list of the entry's lock stripe; protected by
 *	the stripe lock
 * @e_hash_list: place in the hash chain; protected by the stripe lock. An
 *	entry stays hashed for as long as the cache holds its reference.
 * @e_refcnt: one reference for the cache (while hashed) plus one per user;
 *	the entry is freed when it drops to zero
 * @e_key: hash key, stable for the lifetime of the entry
 * @e_flags: MBE2_REFERENCED_B and MBE2_REUSABLE_B, changed with atomic
 *	bit operations
 * @e_value: user-supplied value, stable for the lifetime of the entry; a
 *	(key, value) pair is unique within a cache
 *
 * Users may read @e_key, @e_value and @e_flags of an entry they hold a
 * reference to, and may set or clear MBE2_REUSABLE_B.
 */
struct mbcache2_entry {
	struct list_head	e_list;
	struct hlist_node	e_hash_list;
	atomic_t		e_refcnt;
	u32			e_key;
	unsigned long		e_flags;
	u64			e_value;
};

struct mbcache2 *mbcache2_create(int bucket_bits, const char *name);
void mbcache2_destroy(struct mbcache2 *cache);

int mbcache2_entry_create(struct mbcache2 *cache, gfp_t mask, u32 key,
			  u64 value, bool reusable);
bool mbcache2_entry_present(struct mbcache2 *cache, u32 key, u64 value);
void __mbcache2_entry_free(struct mbcache2 *cache,
			   struct mbcache2_entry *entry);
void mbcache2_entry_wait_unused(struct mbcache2_entry *entry);

/**
 * mbcache2_entry_put - drop a reference to a cache entry
 * @cache: the cache the entry came from (not dereferenced)
 * @entry: the entry
 *
 * Drops a reference obtained from a lookup. Wakes a waiter in
 * mbcache2_entry_wait_unused() when at most the cache's reference and one
 * user's remain, and frees the entry when the last reference goes. An entry
 * can only lose its last reference after it was unhashed, so freeing it
 * never touches @cache: it is safe even after mbcache2_destroy().
 */
static inline void mbcache2_entry_put(struct mbcache2 *cache,
				      struct mbcache2_entry *entry)
{
	unsigned int cnt = atomic_dec_return(&entry->e_refcnt);

	if (cnt > 0) {
		if (cnt <= 2)
			wake_up_var(&entry->e_refcnt);
		return;
	}
	__mbcache2_entry_free(cache, entry);
}

struct mbcache2_entry *mbcache2_entry_delete_or_get(struct mbcache2 *cache,
						    u32 key, u64 value);
struct mbcache2_entry *mbcache2_entry_get(struct mbcache2 *cache, u32 key,
					  u64 value);
struct mbcache2_entry *mbcache2_entry_find_first(struct mbcache2 *cache,
						 u32 key);
struct mbcache2_entry *mbcache2_entry_find_next(struct mbcache2 *cache,
						struct mbcache2_entry *entry);
void mbcache2_entry_touch(struct mbcache2 *cache,
			  struct mbcache2_entry *entry);

/**
 * struct mbcache2_stats - a cache's statistics, see mbcache2_get_stats()
 * @lookups: find_first, get and present calls
 * @hits: lookups that found an entry
 * @inserts: entries created
 * @duplicates: creates refused with -EBUSY because the pair was cached
 * @deletes: entries removed by mbcache2_entry_delete_or_get()
 * @evictions: entries freed by reclaim
 * @trims: runs of the background trim
 * @entries: entries in the cache now (not affected by a reset)
 */
struct mbcache2_stats {
	u64 lookups;
	u64 hits;
	u64 inserts;
	u64 duplicates;
	u64 deletes;
	u64 evictions;
	u64 trims;
	u64 entries;
};

/*
 * For mbcache2's debugfs files and tests, exported in the symbol namespace
 * MBCACHE2_INTERNAL: EXPORT_SYMBOL_NS_GPL(sym, MBCACHE2_NS) and
 * MODULE_IMPORT_NS(MBCACHE2_NS). Since 6.13 both macros take the namespace
 * as a string literal; before, as a bare name they stringify themselves
 * (MBC2_NS_IS_NAME: the top-level Kbuild probes the target's module.h).
 */
#ifdef MBC2_NS_IS_NAME
#define MBCACHE2_NS MBCACHE2_INTERNAL
#else
#define MBCACHE2_NS "MBCACHE2_INTERNAL"
#endif

void mbcache2_get_stats(struct mbcache2 *cache, struct mbcache2_stats *stats);
void mbcache2_reset_stats(struct mbcache2 *cache);
unsigned long mbcache2_shrink(struct mbcache2 *cache,
			      unsigned long nr_to_scan);
unsigned long mbcache2_count(struct mbcache2 *cache);
unsigned long mbcache2_max_entries(struct mbcache2 *cache);
u64 mbcache2_live_objects(void);
unsigned int mbcache2_entry_size(void);

#endif /* _MBCACHE2_H */
