/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - what differs between the kernels mbcache2 builds for.
 * mbcache2/Kbuild probes the target's headers for MBC2_HAVE_*.
 */
#ifndef _MBCACHE2_COMPAT_H
#define _MBCACHE2_COMPAT_H

#include <linux/shrinker.h>
#include <linux/slab.h>

typedef unsigned long (*mbc2_shrink_fn)(struct shrinker *shrink,
					struct shrink_control *sc);

/*
 * From 6.7 the kernel allocates shrinkers and gives them ->private_data;
 * before, the caller embeds one: here in a box that holds the owner too.
 */
#ifdef MBC2_HAVE_SHRINKER_ALLOC
#define mbc2_shrinker_owner(shrink)	((shrink)->private_data)
#define mbc2_shrinker_destroy(shrink)	shrinker_free(shrink)
#else
struct mbc2_shrinker_box {
	struct shrinker	shrink;
	void		*private_data;
};

static inline void *mbc2_shrinker_owner(struct shrinker *shrink)
{
	return container_of(shrink, struct mbc2_shrinker_box, shrink)->private_data;
}

static inline void mbc2_shrinker_destroy(struct shrinker *shrink)
{
	unregister_shrinker(shrink);
	kfree(container_of(shrink, struct mbc2_shrinker_box, shrink));
}
#endif

/* A registered shrinker named "mbcache2-<name>" for @owner, or NULL */
static inline struct shrinker *mbc2_shrinker_create(mbc2_shrink_fn count,
						    mbc2_shrink_fn scan,
						    void *owner,
						    const char *name)
{
#ifdef MBC2_HAVE_SHRINKER_ALLOC
	struct shrinker *shrink = shrinker_alloc(0, "mbcache2-%s", name);

	if (!shrink)
		return NULL;
	shrink->private_data = owner;
#else
	struct mbc2_shrinker_box *box = kzalloc(sizeof(*box), GFP_KERNEL);
	struct shrinker *shrink;

	if (!box)
		return NULL;
	box->private_data = owner;
	shrink = &box->shrink;
#endif
	shrink->count_objects = count;
	shrink->scan_objects = scan;
	shrink->seeks = DEFAULT_SEEKS;
#ifdef MBC2_HAVE_SHRINKER_ALLOC
	shrinker_register(shrink);
#else
	if (register_shrinker(shrink, "mbcache2-%s", name)) {
		kfree(box);
		return NULL;
	}
#endif
	return shrink;
}

/*
 * A constructor-less entry cache would be merged with a like-sized one
 * (stock mbcache's), losing its own /proc/slabinfo line; SLAB_NO_MERGE
 * (6.5) prevents it. On 6.1 /sys/kernel/slab/mbcache2_entry names the
 * cache it was merged into.
 */
#ifndef SLAB_NO_MERGE
#define SLAB_NO_MERGE	0
#endif

#endif /* _MBCACHE2_COMPAT_H */
