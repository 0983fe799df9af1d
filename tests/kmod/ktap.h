/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal KTAP output for test modules that run their cases from
 * module_init (the Debian kernel has no KUnit). Every line goes to the
 * kernel log with a "ktap: " prefix; the guest harness (tests/vm/guest/lib.sh)
 * strips the prefix and hands the lines on as the test file's KTAP.
 */
#ifndef _EXT4X_TEST_KTAP_H
#define _EXT4X_TEST_KTAP_H

#include <linux/printk.h>

/*
 * The names are those of tests/lib/ktap.sh, the shell side of the same
 * output: ktap_print_header, ktap_set_plan, ktap_test_pass/fail/skip (here
 * ktap_test_result with a verdict), ktap_print_msg.
 */
struct ktap {
	int planned;
	int run;
	int failed;
};

#define ktap_print(fmt, ...) pr_info("ktap: " fmt "\n", ##__VA_ARGS__)
#define ktap_print_msg(fmt, ...) ktap_print("# " fmt, ##__VA_ARGS__)

static inline void ktap_print_header(void)
{
	ktap_print("KTAP version 1");
}

static inline void ktap_set_plan(struct ktap *t, int planned)
{
	t->planned = planned;
	t->run = 0;
	t->failed = 0;
	ktap_print("1..%d", planned);
}

static inline void ktap_test_result(struct ktap *t, bool ok, const char *name)
{
	t->run++;
	if (!ok)
		t->failed++;
	ktap_print("%s %d - %s", ok ? "ok" : "not ok", t->run, name);
}

static inline void ktap_test_skip(struct ktap *t, const char *name,
				  const char *why)
{
	t->run++;
	ktap_print("ok %d - %s # SKIP %s", t->run, name, why);
}

/* Brackets a WARN the test provokes on purpose; see tests/vm/run-guest.sh. */
#define ktap_expect_warn_begin() ktap_print_msg("expect-warn begin")
#define ktap_expect_warn_end() ktap_print_msg("expect-warn end")

#endif /* _EXT4X_TEST_KTAP_H */
