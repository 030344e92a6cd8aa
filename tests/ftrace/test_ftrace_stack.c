// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The stack tracer (docs/function-tracer.md, "The stack tracer"): stack_trace,
 * stack_max_size, stack_trace_filter and stack_tracer_enabled. A recursion of
 * a known depth (st_funcs.c) must show as the deepest stack: its functions in
 * order, innermost first, each frame's depth and size consistent, and
 * stack_max_size at least the frames' arrays; a reset of stack_max_size
 * measures anew; the filter limits which functions are checked; a thread
 * is measured from its own stack's top; the tracer of the trace is not
 * changed by the stack tracer's patched functions; errors go to error_log.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <stdbool.h>

#include <cmocka.h>

#include <trev/trev.h>

#include "ft_read.h"
#include "st_funcs.h"

static char text[1 << 20];

static const char *rd(const char *path)
{
	return ft_read(text, sizeof(text), path);
}

/* One line of stack_trace. */
struct st_line {
	unsigned int depth, size;
	char loc[256];
};

#define ST_MAX_LINES	256

/* stack_trace's lines in @l (header checked). Return: how many. */
static int st_read(struct st_line *l)
{
	const char *t = rd("stack_trace"), *p;
	unsigned int want;
	int n = 0;

	if (sscanf(t, "        Depth    Size   Location    (%u entries)\n", &want) != 1)
		fail_msg("stack_trace header:\n%s", t);
	p = strstr(t, "        -----    ----   --------\n");
	assert_non_null(p);
	p = strchr(p, '\n') + 1;
	while (*p == '#')
		p = strchr(p, '\n') + 1;
	for (; *p; p = strchr(p, '\n') + 1) {
		unsigned int i;

		assert_true(n < ST_MAX_LINES);
		if (sscanf(p, "%u) %u %u %255s", &i, &l[n].depth, &l[n].size, l[n].loc) != 4)
			fail_msg("stack_trace line %d: %.80s", n, p);
		assert_int_equal(i, n);
		n++;
	}
	assert_int_equal(n, want);
	/* Depths fall from the outermost frame in; each size is the distance to the next. */
	for (int i = 0; i < n; i++) {
		if (i + 1 < n) {
			assert_true(l[i].depth > l[i + 1].depth);
			assert_int_equal(l[i].size, l[i].depth - l[i + 1].depth);
		} else {
			assert_int_equal(l[i].size, l[i].depth);
		}
	}
	return n;
}

static bool is_fn(const struct st_line *l, const char *fn)
{
	size_t len = strlen(fn);

	return !strncmp(l->loc, fn, len) && l->loc[len] == '+';
}

static unsigned long max_size(void)
{
	return strtoul(rd("stack_max_size"), NULL, 10);
}

/* Not traced (built without the flags): the recursion's caller, found on the stack. */
int st_caller(int n);
int st_caller_shallow(int x);

__attribute__((noinline)) int st_caller(int n)
{
	return st_recurse(n) + 1;
}

__attribute__((noinline)) int st_caller_shallow(int x)
{
	return st_shallow(x) + 1;
}

static int st_expect(int n)
{
	return n * (n + 1) + 2 + 1;
}

/* The deepest stack is @n frames of st_recurse() under st_leaf(), then st_caller(). */
static void assert_recursion(int n)
{
	static struct st_line l[ST_MAX_LINES];
	int nr = st_read(l);

	if (nr < n + 2)
		fail_msg("%d entries, want %d at least (%s)", nr, n + 2, text);
	if (!is_fn(&l[0], "st_leaf"))
		fail_msg("entry 0: %s\n%s", l[0].loc, text);
	for (int i = 1; i <= n; i++)
		if (!is_fn(&l[i], "st_recurse"))
			fail_msg("entry %d: %s\n%s", i, l[i].loc, text);
	if (!is_fn(&l[n + 1], "st_caller"))
		fail_msg("entry %d: %s\n%s", n + 1, l[n + 1].loc, text);
	/* Each recursion frame holds its array: its size is at least that. */
	for (int i = 1; i <= n; i++)
		if (l[i].size < ST_FRAME_BYTES)
			fail_msg("entry %d: %u bytes\n%s", i, l[i].size, text);
	assert_true(max_size() >= (unsigned long)n * ST_FRAME_BYTES);
	assert_int_equal(max_size(), l[0].depth);
}

static void reset(void)
{
	assert_int_equal(trev_write("stack_tracer_enabled", "0"), 0);
	assert_int_equal(trev_write("stack_trace_filter", ""), 0);
	assert_int_equal(trev_write("stack_max_size", "0"), 0);
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	assert_int_equal(trev_write("set_ftrace_filter", ""), 0);
	assert_int_equal(trev_write("error_log", ""), 0);
}

static void test_files(void **state)
{
	(void)state;
	reset();
	/* Off and never measured: the kernel's "disabled" text after the header. */
	rd("stack_trace");
	assert_non_null(strstr(text, "(0 entries)"));
	assert_non_null(strstr(text, "#  Stack tracer disabled\n"));
	assert_string_equal(rd("stack_tracer_enabled"), "0\n");
	assert_string_equal(rd("stack_max_size"), "0\n");
	assert_string_equal(rd("stack_trace_filter"), "#### all functions enabled ####\n");
	/* Off: nothing is measured. */
	assert_int_equal(st_caller(8), st_expect(8));
	assert_int_equal(max_size(), 0);
	assert_int_equal(trev_write("stack_tracer_enabled", "1"), 0);
	assert_string_equal(rd("stack_tracer_enabled"), "1\n");
	/* Only in the top instance, as the kernel's. */
	assert_int_equal(trev_mkdir("instances/st"), 0);
	assert_true(trev_read("instances/st/stack_trace", text, sizeof(text)) < 0);
	assert_int_equal(trev_rmdir("instances/st"), 0);
	reset();
}

static void test_deepest(void **state)
{
	(void)state;
	reset();
	assert_int_equal(trev_write("stack_tracer_enabled", "1"), 0);
	assert_int_equal(st_caller(8), st_expect(8));
	assert_recursion(8);
	/* A shallower stack changes nothing. */
	assert_int_equal(st_caller_shallow(1), 7);
	assert_int_equal(st_caller(3), st_expect(3));
	assert_recursion(8);
	/* A deeper one replaces it. */
	assert_int_equal(st_caller(12), st_expect(12));
	assert_recursion(12);
	reset();
}

static void test_reset(void **state)
{
	static struct st_line l[ST_MAX_LINES];
	unsigned long deep;
	int nr;

	(void)state;
	reset();
	assert_int_equal(trev_write("stack_tracer_enabled", "1"), 0);
	assert_int_equal(st_caller(10), st_expect(10));
	assert_recursion(10);
	deep = max_size();
	/* 0 measures anew: the frames stay until a stack replaces them, as in the kernel. */
	assert_int_equal(trev_write("stack_max_size", "0"), 0);
	assert_string_equal(rd("stack_max_size"), "0\n");
	assert_int_equal(st_caller_shallow(1), 7);
	nr = st_read(l);
	assert_true(nr >= 3);
	assert_true(is_fn(&l[0], "st_leaf"));
	assert_true(is_fn(&l[1], "st_shallow"));
	assert_true(is_fn(&l[2], "st_caller_shallow"));
	assert_true(max_size() < deep);
	assert_int_equal(max_size(), l[0].depth);
	/* Any value may be written: only deeper stacks are then taken. */
	assert_int_equal(trev_write("stack_max_size", "1000000"), 0);
	assert_int_equal(st_caller(12), st_expect(12));
	assert_int_equal(max_size(), 1000000);
	assert_true(st_read(l) >= 3);
	assert_true(is_fn(&l[1], "st_shallow"));
	reset();
}

static void test_filter(void **state)
{
	static struct st_line l[ST_MAX_LINES];
	int nr;

	(void)state;
	reset();
	/* Only st_shallow() is checked: the deeper recursion is not seen. */
	assert_int_equal(trev_write("stack_trace_filter", "st_shallow"), 0);
	assert_string_equal(rd("stack_trace_filter"), "st_shallow\n");
	assert_int_equal(trev_write("stack_tracer_enabled", "1"), 0);
	assert_int_equal(st_caller(8), st_expect(8));
	assert_int_equal(max_size(), 0);
	assert_int_equal(st_caller_shallow(2), 10);
	nr = st_read(l);
	assert_true(nr >= 2);
	assert_true(is_fn(&l[0], "st_shallow"));
	assert_true(is_fn(&l[1], "st_caller_shallow"));
	/* Globs and "!" as set_ftrace_filter's; changed while on. */
	assert_int_equal(trev_append("stack_trace_filter", "st_rec*"), 0);
	rd("stack_trace_filter");	/* in the functions' order in the object */
	assert_non_null(strstr(text, "st_recurse\n"));
	assert_non_null(strstr(text, "st_shallow\n"));
	assert_int_equal(strlen(text), strlen("st_recurse\nst_shallow\n"));
	assert_int_equal(trev_append("stack_trace_filter", "!st_shallow"), 0);
	assert_string_equal(rd("stack_trace_filter"), "st_recurse\n");
	assert_int_equal(trev_write("stack_max_size", "0"), 0);
	assert_int_equal(st_caller(6), st_expect(6));
	nr = st_read(l);
	/* Entry 0 is the innermost checked function: st_recurse, not st_leaf. */
	assert_true(nr >= 7);
	for (int i = 0; i < 6; i++)
		if (!is_fn(&l[i], "st_recurse"))
			fail_msg("entry %d: %s\n%s", i, l[i].loc, text);
	if (!is_fn(&l[6], "st_caller"))
		fail_msg("entry 6: %s\n%s", l[6].loc, text);
	reset();
}

static void *deep_thread(void *arg)
{
	return (void *)(long)st_caller((int)(long)arg);
}

/* A thread's depth is from its own stack's top. */
static void test_thread(void **state)
{
	pthread_t t;
	void *ret;

	(void)state;
	reset();
	assert_int_equal(trev_write("stack_tracer_enabled", "1"), 0);
	assert_int_equal(pthread_create(&t, NULL, deep_thread, (void *)14L), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_int_equal((long)ret, st_expect(14));
	assert_recursion(14);
	/* Well under its stack's size: the depth is not measured from another stack. */
	assert_true(max_size() < 64 * 1024);
	reset();
}

#define HAMMER_THREADS	4
#define HAMMER_CALLS	3000
#define HAMMER_ROUNDS	50

static atomic_int hammer_done, hammer_rounds;

/* Recursions of 1 to 10 frames, every result checked, until the main thread's rounds are done. */
static void *hammer_thread(void *arg)
{
	long bad = 0;

	(void)arg;
	for (int i = 0; i < HAMMER_CALLS || atomic_load(&hammer_rounds) < HAMMER_ROUNDS; i++) {
		int n = i % 10 + 1;

		bad += st_caller(n) != st_expect(n);
	}
	atomic_fetch_add(&hammer_done, 1);
	return (void *)bad;
}

/*
 * Threads recurse while the main thread resets stack_max_size, changes the
 * filter and switches the tracer: every stack_trace read is whole (st_read()
 * checks its depths and sizes), every result right; then, quiet, a known
 * recursion is the deepest again.
 */
static void test_hammer(void **state)
{
	static struct st_line l[ST_MAX_LINES];
	pthread_t t[HAMMER_THREADS];
	int rounds = 0;

	(void)state;
	reset();
	atomic_store(&hammer_done, 0);
	atomic_store(&hammer_rounds, 0);
	assert_int_equal(trev_write("stack_tracer_enabled", "1"), 0);
	for (int i = 0; i < HAMMER_THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, hammer_thread, NULL), 0);
	while (atomic_load(&hammer_done) < HAMMER_THREADS) {
		assert_int_equal(trev_write("stack_max_size", "0"), 0);
		st_read(l);
		assert_int_equal(trev_write("stack_trace_filter", rounds & 1 ? "st_leaf" : ""), 0);
		assert_int_equal(trev_write("stack_tracer_enabled", rounds % 3 ? "1" : "0"), 0);
		atomic_store(&hammer_rounds, ++rounds);
	}
	for (int i = 0; i < HAMMER_THREADS; i++) {
		void *bad;

		assert_int_equal(pthread_join(t[i], &bad), 0);
		assert_int_equal((long)bad, 0);
	}
	print_message("%d rounds of changes\n", rounds);
	assert_int_equal(trev_write("stack_trace_filter", ""), 0);
	assert_int_equal(trev_write("stack_tracer_enabled", "1"), 0);
	assert_int_equal(trev_write("stack_max_size", "0"), 0);
	assert_int_equal(st_caller(11), st_expect(11));
	assert_recursion(11);
	reset();
}

/* The stack tracer's functions are patched; the tracers record their own selection only. */
static void test_tracers_unchanged(void **state)
{
	const char *tracers[] = { "function", "function_graph" };

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		reset();
		assert_int_equal(trev_write("set_ftrace_filter", "st_shallow"), 0);
		assert_int_equal(trev_write("current_tracer", tracers[k]), 0);
		assert_int_equal(trev_write("stack_tracer_enabled", "1"), 0);
		assert_int_equal(trev_write("trace", ""), 0);
		assert_int_equal(st_caller(4), st_expect(4));
		assert_int_equal(st_caller_shallow(1), 7);
		assert_int_equal(trev_write("stack_tracer_enabled", "0"), 0);
		rd("trace");
		if (!strstr(text, "st_shallow") || strstr(text, "st_recurse") ||
		    strstr(text, "st_leaf"))
			fail_msg("%s with the stack tracer on:\n%s", tracers[k], text);
		/* The stack tracer saw them all. */
		assert_recursion(4);
	}
	reset();
}

static void test_errors(void **state)
{
	(void)state;
	reset();
	assert_int_equal(trev_write("stack_tracer_enabled", "x"), -EINVAL);
	assert_int_equal(trev_write("stack_max_size", "-"), -EINVAL);
	assert_int_equal(trev_write("stack_trace_filter", "st_shallow no_such_fn"), -EINVAL);
	/* All or nothing: the list stays empty. */
	assert_string_equal(rd("stack_trace_filter"), "#### all functions enabled ####\n");
	assert_int_equal(trev_write("stack_trace_filter", "st_shallow:traceoff"), -EINVAL);
	rd("error_log");
	assert_non_null(strstr(text, "stack_tracer_enabled: error: Invalid value\n"));
	assert_non_null(strstr(text, "stack_max_size: error: Invalid value\n"));
	assert_non_null(strstr(text, "stack_trace_filter: error: No such function\n"
				     "  Command: st_shallow no_such_fn\n"
				     "                      ^\n"));
	assert_non_null(strstr(text, "error: Function commands only work in set_ftrace_filter\n"));
	assert_string_equal(rd("stack_tracer_enabled"), "0\n");
	reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_deepest),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_thread),
		cmocka_unit_test(test_tracers_unchanged),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_hammer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
