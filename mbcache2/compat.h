/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the kernel API differences mbcache2 meets on the kernels it
 * supports (Debian 12's 6.1, Debian 12's and 13's 6.12), kept in this one
 * file so that mbcache2.c reads the same on all of them. Which side applies
 * is probed in the target's headers by mbcache2/Kbuild (MBC2_HAVE_*).
 */
#ifndef _MBCACHE2_COMPAT_H
#define _MBCACHE2_COMPAT_H

#include <linux/shrinker.h>
#include <linux/slab.h>

typedef unsigned long (*mbc2_shrink_fn)(struct shrinker *shrink,
					struct shrink_control *sc);

/*
 * Shrinkers.  Up to 6.6 the caller embeds a struct shrinker and hands it to
 * register_shrinker(); from 6.7 on the kernel allocates it
 * (shrinker_alloc(), shrinker_register(), shrinker_free()) and the caller
 * finds its own object through ->private_data.  Both kernels get the 6.7
 * shape here: an allocated shrinker, named "mbcache2-<name>", whose owner
 * mbc2_shrinker_owner() returns.
 */
#ifdef MBC2_HAVE_SHRINKER_ALLOC

static inline struct shrinker *mbc2_shrinker_create(mbc2_shrink_fn count,
						    mbc2_shrink_fn scan,
						    void *owner,
						    const char *name)
{
	struct shrinker *shrink = shrinker_alloc(0, "mbcache2-%s", name);

	if (!shrink)
		return NULL;
	shrink->count_objects = count;
	shrink->scan_objects = scan;
	shrink->seeks = DEFAULT_SEEKS;
	shrink->private_data = owner;
	shrinker_register(shrink);
	return shrink;
}

static inline void *mbc2_shrinker_owner(struct shrinker *shrink)
{
	return shrink->private_data;
}

static inline void mbc2_shrinker_destroy(struct shrinker *shrink)
{
	shrinker_free(shrink);
}

#else /* register_shrinker() */

struct mbc2_shrinker_box {
	struct shrinker	shrink;
	void		*owner;
};

static inline struct shrinker *mbc2_shrinker_create(mbc2_shrink_fn count,
						    mbc2_shrink_fn scan,
						    void *owner,
						    const char *name)
{
	struct mbc2_shrinker_box *box = kzalloc(sizeof(*box), GFP_KERNEL);

	if (!box)
		return NULL;
	box->shrink.count_objects = count;
	box->shrink.scan_objects = scan;
	box->shrink.seeks = DEFAULT_SEEKS;
	box->owner = owner;
	if (register_shrinker(&box->shrink, "mbcache2-%s", name)) {
		kfree(box);
		return NULL;
	}
	return &box->shrink;
}

static inline void *mbc2_shrinker_owner(struct shrinker *shrink)
{
	return container_of(shrink, struct mbc2_shrinker_box, shrink)->owner;
}

static inline void mbc2_shrinker_destroy(struct shrinker *shrink)
{
	unregister_shrinker(shrink);
	kfree(container_of(shrink, struct mbc2_shrinker_box, shrink));
}

#endif /* shrinker API */

/*
 * The entry cache has no constructor (so that slub_debug poisons freed
 * entries), and a constructor-less 56-byte SLAB_RECLAIM_ACCOUNT cache
 * would be merged with stock mbcache's, losing its own /proc/slabinfo
 * line. SLAB_NO_MERGE (6.5) keeps it apart; 6.1 has no such flag, so
 * there the cache may be an alias of another one: /sys/kernel/slab/
 * mbcache2_entry still names the cache it lives in.
 */
#ifdef SLAB_NO_MERGE
#define MBC2_SLAB_NO_MERGE	SLAB_NO_MERGE
#else
#define MBC2_SLAB_NO_MERGE	0
#endif

#endif /* _MBCACHE2_COMPAT_H */
