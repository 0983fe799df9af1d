/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmark modules share: their output (kernel log lines with a
 * "bench: " prefix, which tests/vm/guest/lib.sh run_kmod_bench collects into a
 * table) and the summary of one measurement repeated over interleaved
 * rounds (median, min, max). A benchmark reports; it never fails.
 */
#ifndef _EXT4X_TEST_BENCH_H
#define _EXT4X_TEST_BENCH_H

#include <linux/math64.h>
#include <linux/printk.h>
#include <linux/sort.h>
#include <linux/types.h>

#define bench_print(fmt, ...) pr_info("bench: " fmt "\n", ##__VA_ARGS__)

#define BENCH_MAX_ROUNDS 31

/* One measurement over the rounds; med/min/max valid after bench_summarise */
struct bench_series {
	u64 v[BENCH_MAX_ROUNDS];
	u64 med, min, max;
};

static inline int bench_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Sorts the first @n values of @s and sets its median, min and max. */
static inline void bench_summarise(struct bench_series *s, unsigned int n)
{
	sort(s->v, n, sizeof(s->v[0]), bench_cmp_u64, NULL);
	s->min = s->v[0];
	s->max = s->v[n - 1];
	s->med = n % 2 ? s->v[n / 2] : (s->v[n / 2 - 1] + s->v[n / 2]) / 2;
}

/*
 * Formats @a / @b with two decimals into @buf (24 bytes); returns @buf.
 * A failed measurement (@b 0) gives 0.00, not a huge ratio.
 */
static inline const char *bench_ratio(char *buf, u64 a, u64 b)
{
	u64 r = b ? div64_u64(a * 100, b) : 0;
	u32 frac;
	u64 whole = div_u64_rem(r, 100, &frac);

	snprintf(buf, 24, "%llu.%02u", whole, frac);
	return buf;
}

/* Formats @ps picoseconds as nanoseconds with two decimals into @buf (24 bytes) */
static inline const char *bench_ns(char *buf, u64 ps)
{
	u32 frac;
	u64 whole = div_u64_rem(ps, 1000, &frac);

	snprintf(buf, 24, "%llu.%02u", whole, frac / 10);
	return buf;
}

#endif /* _EXT4X_TEST_BENCH_H */
