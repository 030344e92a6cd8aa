// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The internal hooks on function_graph's frames (src/ftrace/fgraph.h,
 * struct trev_fg_hooks), that the function profiler and the latency
 * tracer are to be built on: every entry and exit of the traced calls
 * reaches them with the function, its depth and its times; a declined
 * entry gets no exit; set_graph_notrace's frames reach neither; only one
 * user at a time. Also the count of stale frames dropped. The static
 * library, for the internal API.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <trev/trev.h>

#include "fg_check.h"
#include "fg_funcs.h"
#include "ftrace/fgraph.h"

struct counts {
	int entries, exits, depth_sum;
	unsigned long long time;
	bool bad;
};

static struct counts leaf, mid, top;
static bool decline_mid;

static struct counts *of(unsigned long func)
{
	if (func == fg_ip((const void *)fg_leaf))
		return &leaf;
	if (func == fg_ip((const void *)fg_mid))
		return &mid;
	if (func == fg_ip((const void *)fg_top))
		return &top;
	return NULL;
}

static bool on_entry(unsigned long func, unsigned int depth, unsigned long long calltime)
{
	struct counts *c = of(func);

	if (!c || !calltime)
		return true;
	c->entries++;
	c->depth_sum += (int)depth;
	return !(decline_mid && c == &mid);
}

static void on_exit_(unsigned long func, unsigned int depth, unsigned long long calltime,
		     unsigned long long rettime)
{
	struct counts *c = of(func);

	if (!c)
		return;
	c->exits++;
	if (rettime < calltime || depth > 2)
		c->bad = true;
	c->time += rettime - calltime;
}

static const struct trev_fg_hooks hooks = { on_entry, on_exit_, NULL };
static const struct trev_fg_hooks other = { NULL, NULL, NULL };

static void reset(void)
{
	memset(&leaf, 0, sizeof(leaf));
	memset(&mid, 0, sizeof(mid));
	memset(&top, 0, sizeof(top));
}

static void test_hooks(void **state)
{
	(void)state;
	assert_int_equal(trev_write("set_ftrace_filter", "fg_*"), 0);
	assert_int_equal(trev__fg_hooks_set(&hooks), 0);
	assert_int_equal(trev__fg_hooks_set(&other), -EBUSY);
	assert_int_equal(trev_write("current_tracer", "function_graph"), 0);
	reset();
	for (int i = 0; i < 10; i++)
		assert_int_equal(fg_top(i), 3 * i + 3);
	assert_int_equal(top.entries, 10);
	assert_int_equal(top.exits, 10);
	assert_int_equal(mid.entries, 10);
	assert_int_equal(mid.exits, 10);
	assert_int_equal(leaf.entries, 20);
	assert_int_equal(leaf.exits, 20);
	/* fg_leaf at depth 2 under fg_mid and at depth 1 under fg_top. */
	assert_int_equal(top.depth_sum, 0);
	assert_int_equal(mid.depth_sum, 10);
	assert_int_equal(leaf.depth_sum, 30);
	assert_false(top.bad || mid.bad || leaf.bad);
	/* A caller's time holds its callees'. */
	assert_true(top.time >= mid.time);

	/* Declined: no exit for it, the others go on; the records still have it. */
	reset();
	decline_mid = true;
	assert_int_equal(trev_write("trace", ""), 0);
	assert_int_equal(fg_top(1), 6);
	decline_mid = false;
	assert_int_equal(mid.entries, 1);
	assert_int_equal(mid.exits, 0);
	assert_int_equal(leaf.exits, 2);
	assert_int_equal(top.exits, 1);
	{
		static struct fg_rec recs[64];
		static char text[512];
		size_t n;

		fg_name_add((const void *)fg_leaf, "fg_leaf");
		fg_name_add((const void *)fg_mid, "fg_mid");
		fg_name_add((const void *)fg_top, "fg_top");
		n = fg_collect(0, recs, 64);
		assert_null(fg_render(recs, n, text, sizeof(text)));
		assert_string_equal(text, "fg_top{fg_mid{fg_leaf{}}fg_leaf{}}");
	}

	/* set_graph_notrace: neither hook sees the hidden calls. */
	reset();
	assert_int_equal(trev_write("set_graph_notrace", "fg_mid"), 0);
	assert_int_equal(fg_top(1), 6);
	assert_int_equal(mid.entries + mid.exits, 0);
	assert_int_equal(leaf.entries, 1);
	assert_int_equal(leaf.exits, 1);
	assert_int_equal(trev_write("set_graph_notrace", ""), 0);

	/* Removed: nothing more reaches them. */
	assert_int_equal(trev__fg_hooks_set(NULL), 0);
	reset();
	assert_int_equal(fg_top(1), 6);
	assert_int_equal(top.entries + top.exits + leaf.entries, 0);
	assert_int_equal(trev__fg_hooks_set(&other), 0);
	assert_int_equal(trev__fg_hooks_set(NULL), 0);
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
}

/* Frames left by longjmp are counted when dropped (trev__fg_dropped()). */
static void test_dropped(void **state)
{
	static jmp_buf jb;
	unsigned long before;

	(void)state;
	assert_int_equal(trev_write("set_ftrace_filter", "fg_*"), 0);
	assert_int_equal(trev_write("current_tracer", "function_graph"), 0);
	before = trev__fg_dropped();
	if (!setjmp(jb))
		fg_jump(&jb, 3);
	assert_int_equal(trev__fg_dropped() - before, 0);	/* not yet seen */
	assert_int_equal(fg_leaf(1), 2);
	assert_int_equal(trev__fg_dropped() - before, 4);
	assert_int_equal(fg_leaf(1), 2);
	assert_int_equal(trev__fg_dropped() - before, 4);
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hooks),
		cmocka_unit_test(test_dropped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
