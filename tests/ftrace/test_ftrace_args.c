// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Arguments and return values of the function tracers (docs/function-tracer.md,
 * "Arguments and return values"): the options func-args, funcgraph-args,
 * funcgraph-retval and funcgraph-retval-hex, the text of each (golden: leaf
 * and nested calls, error codes, hex), the records' fields, func-args per
 * instance, and a hammer: 4 threads call a traced function with arguments
 * that check each other while the options are switched, and every record
 * holds the arguments of its own call (and, under function_graph, its own
 * return value), none lost.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include <trev/trev.h>

#include "fa_funcs.h"
#include "fg_check.h"
#include "ft_read.h"

static char text[1 << 21];

static const char *body(const char *path)
{
	return ft_skip_header(ft_read(text, sizeof(text), path));
}

static void wr(const char *path, const char *value)
{
	if (trev_write(path, value))
		fail_msg("write %s '%s' refused", path, value);
}

static void reset(void)
{
	static const char *const opts[] = { "func-args", "funcgraph-args", "funcgraph-retval",
					    "funcgraph-retval-hex" };

	wr("current_tracer", "nop");
	wr("tracing_on", "1");
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		char path[64];

		snprintf(path, sizeof(path), "options/%s", opts[i]);
		wr(path, "0");
	}
	wr("set_ftrace_filter", "fa_*");
	wr("trace", "");
	assert_int_equal(trev_trace_option("nocontext-info"), 0);
}

/* The line of @text that starts with @prefix, up to its newline (static). */
static char *line_of(const char *t, const char *prefix)
{
	static char line[512];
	size_t n = strlen(prefix);

	for (const char *p = t; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, prefix, n)) {
			size_t len = strcspn(p, "\n");

			snprintf(line, sizeof(line), "%.*s", (int)len, p);
			return line;
		}
	}
	fail_msg("no line starting with '%s' in:\n%s", prefix, t);
	return NULL;
}

/* A function tracer's line without its " <-parent". */
static const char *call_of(char *line)
{
	char *p = strstr(line, " <-");

	if (p)
		*p = '\0';
	return line;
}

/* ------------------------------------------------------------------ */

/* The options are listed, off by default, and take 0/1. */
static void test_options(void **state)
{
	(void)state;
	reset();
	assert_string_equal(ft_read(text, sizeof(text), "options/func-args"), "0\n");
	assert_string_equal(ft_read(text, sizeof(text), "options/funcgraph-args"), "0\n");
	assert_string_equal(ft_read(text, sizeof(text), "options/funcgraph-retval"), "0\n");
	assert_string_equal(ft_read(text, sizeof(text), "options/funcgraph-retval-hex"), "0\n");
	ft_read(text, sizeof(text), "trace_options");
	assert_non_null(strstr(text, "\nnofunc-args\n"));
	assert_non_null(strstr(text, "\nnofuncgraph-args\n"));
	assert_non_null(strstr(text, "\nnofuncgraph-retval\n"));
	assert_non_null(strstr(text, "\nnofuncgraph-retval-hex\n"));
	assert_int_equal(trev_write("trace_options", "func-args"), 0);
	assert_string_equal(ft_read(text, sizeof(text), "options/func-args"), "1\n");
	reset();
}

/* func-args: "func(0x1, ...) <-parent"; off, the record has no args and the line none. */
static void test_func_args(void **state)
{
	const char *t;

	(void)state;
	reset();
	wr("current_tracer", "function");
	wr("options/func-args", "1");
	assert_int_equal(fa_six(1, 2, 3, 4, 5, -1), 14);
	wr("options/func-args", "0");
	assert_int_equal(fa_six(7, 0, 0, 0, 0, 0x7fffffff00ff), 0x7fffffff0106);
	wr("tracing_on", "0");	/* a change of tracer would clear the buffer */
	t = body("trace");
	assert_string_equal(call_of(line_of(t, "fa_six(")),
			    "fa_six(0x1, 0x2, 0x3, 0x4, 0x5, 0xffffffffffffffff)");
	/* The second call: no args (the record is 24 bytes), the kernel's line. */
	assert_non_null(strstr(t, "\nfa_six <-"));
	assert_null(strstr(strstr(t, "\nfa_six <-"), "fa_six("));
	reset();
}

/*
 * funcgraph-retval, -retval-hex and funcgraph-args: the kernel's lines
 * (print_graph_entry_leaf(), print_graph_return(), print_graph_retval()).
 */
static void test_graph_retval(void **state)
{
	const char *t;

	(void)state;
	reset();
	wr("current_tracer", "function_graph");
	assert_int_equal(fa_nest(1, 2, 3, 4, 5, 6), -1);
	assert_int_equal(fa_lerr(4096), -4096);
	assert_int_equal(fa_lerr(4095), -4095);
	assert_int_equal(fa_big(), 0x12345678abcul);
	wr("tracing_on", "0");

	/* Off: the lines as before (the records hold retval all the same). */
	assert_string_equal(body("trace"),
			    "fa_nest() {\n"
			    "  fa_six();\n"
			    "  fa_err();\n"
			    "}\n"
			    "fa_lerr();\n"
			    "fa_lerr();\n"
			    "fa_big();\n");
	/* On: error codes (-1 .. -4095, also an int's in eax) in decimal, the rest in hex. */
	wr("options/funcgraph-retval", "1");
	assert_string_equal(body("trace"),
			    "fa_nest() {\n"
			    "  fa_six(); /* ret=0x15 */\n"
			    "  fa_err(); /* ret=-22 */\n"
			    "} /* fa_nest ret=-1 */\n"
			    "fa_lerr(); /* ret=0xfffffffffffff000 */\n"
			    "fa_lerr(); /* ret=-4095 */\n"
			    "fa_big(); /* ret=0x12345678abc */\n");
	wr("options/funcgraph-retval-hex", "1");
	assert_string_equal(body("trace"),
			    "fa_nest() {\n"
			    "  fa_six(); /* ret=0x15 */\n"
			    "  fa_err(); /* ret=0xffffffea */\n"
			    "} /* fa_nest ret=0xffffffffffffffff */\n"
			    "fa_lerr(); /* ret=0xfffffffffffff000 */\n"
			    "fa_lerr(); /* ret=0xfffffffffffff001 */\n"
			    "fa_big(); /* ret=0x12345678abc */\n");
	/* retval-hex alone prints nothing. */
	wr("options/funcgraph-retval", "0");
	assert_string_equal(line_of(body("trace"), "}"), "}");
	reset();

	/* funcgraph-args: the entries' six registers, nested and leaf. */
	wr("current_tracer", "function_graph");
	wr("options/funcgraph-args", "1");
	assert_int_equal(fa_nest(1, 2, 3, 4, 5, 6), -1);
	wr("options/funcgraph-args", "0");
	assert_int_equal(fa_big(), 0x12345678abcul);
	wr("tracing_on", "0");
	wr("options/funcgraph-retval", "1");
	t = body("trace");
	assert_string_equal(line_of(t, "fa_nest("), "fa_nest(0x1, 0x2, 0x3, 0x4, 0x5, 0x6) {");
	assert_string_equal(line_of(t, "  fa_six("),
			    "  fa_six(0x1, 0x2, 0x3, 0x4, 0x5, 0x6); /* ret=0x15 */");
	/* fa_err(int): rdi is 22; the other registers are what fa_nest left there. */
	assert_true(!strncmp(line_of(t, "  fa_err("), "  fa_err(0x16, ", 15));
	assert_non_null(strstr(line_of(t, "  fa_err("), "); /* ret=-22 */"));
	assert_string_equal(line_of(t, "} "), "} /* fa_nest ret=-1 */");
	/* The option off: the records after it have no args. */
	assert_string_equal(line_of(t, "fa_big"), "fa_big(); /* ret=0x12345678abc */");
	reset();
}

/* The records' fields: args[] of funcgraph_entry, retval of funcgraph_exit. */
static void test_graph_records(void **state)
{
	static struct fg_rec recs[64];
	size_t n;

	(void)state;
	reset();
	fg_name_add((const void *)fa_nest, "fa_nest");
	fg_name_add((const void *)fa_six, "fa_six");
	fg_name_add((const void *)fa_err, "fa_err");
	wr("current_tracer", "function_graph");
	wr("options/funcgraph-args", "1");
	assert_int_equal(fa_nest(10, 20, 30, 40, 50, 60), 210 - 22);
	wr("tracing_on", "0");
	wr("options/funcgraph-args", "0");
	n = fg_collect(0, recs, 64);
	assert_int_equal(n, 6);
	assert_int_equal(recs[0].type, FG_TYPE_ENT);
	assert_int_equal(recs[0].nr_args, 6);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(recs[0].args[i], 10 * (i + 1));
		assert_int_equal(recs[1].args[i], 10 * (i + 1));	/* fa_six */
	}
	assert_int_equal(recs[2].type, FG_TYPE_RET);
	assert_int_equal(recs[2].retval, 210);
	assert_int_equal(recs[3].args[0], 22);			/* fa_err */
	assert_int_equal(recs[4].retval, 0xffffffea);		/* eax, zero-extended */
	assert_int_equal(recs[5].retval, (unsigned long)(210 - 22));
	reset();
}

/* func-args of an instance: its records have the args, the top's (option off) not. */
static void test_instance(void **state)
{
	const char *t;

	(void)state;
	reset();
	assert_int_equal(trev_mkdir("instances/fa"), 0);
	wr("instances/fa/trace_options", "nocontext-info");
	wr("instances/fa/set_ftrace_filter", "fa_six");
	wr("instances/fa/current_tracer", "function");
	wr("instances/fa/options/func-args", "1");
	wr("set_ftrace_filter", "fa_six");
	wr("current_tracer", "function");
	assert_int_equal(fa_six(1, 2, 3, 4, 5, 6), 21);
	wr("tracing_on", "0");
	wr("instances/fa/tracing_on", "0");
	assert_string_equal(call_of(line_of(body("instances/fa/trace"), "fa_six")),
			    "fa_six(0x1, 0x2, 0x3, 0x4, 0x5, 0x6)");
	t = body("trace");
	assert_true(!strncmp(line_of(t, "fa_six"), "fa_six <-", 9));
	/* The top's func-args does not reach the instance's records once it is off there. */
	wr("instances/fa/options/func-args", "0");
	wr("options/func-args", "1");
	wr("instances/fa/trace", "");
	wr("trace", "");
	wr("instances/fa/tracing_on", "1");
	wr("tracing_on", "1");
	assert_int_equal(fa_six(6, 5, 4, 3, 2, 1), 21);
	wr("tracing_on", "0");
	wr("instances/fa/tracing_on", "0");
	assert_true(!strncmp(line_of(body("instances/fa/trace"), "fa_six"), "fa_six <-", 9));
	assert_string_equal(call_of(line_of(body("trace"), "fa_six")),
			    "fa_six(0x6, 0x5, 0x4, 0x3, 0x2, 0x1)");
	wr("instances/fa/current_tracer", "nop");
	assert_int_equal(trev_rmdir("instances/fa"), 0);
	reset();
}

/* ------------------------------------------------------------------ */
/* The hammer                                                           */

#define HAM_THREADS	4
#define HAM_CALLS	3000	/* a thread's calls per round */
#define HAM_ROUNDS	4
#define HAM_MAGIC	0x5a5a00000000a5a5ul

static char ham_text[8 << 20];
static atomic_int ham_round;		/* the round the threads may run */
static atomic_bool ham_stop;
static atomic_int ham_done[HAM_THREADS];	/* the last round each thread finished */
static atomic_int ham_calls[HAM_THREADS];	/* calls made in the current round */
static pid_t ham_tid[HAM_THREADS];
static struct fg_rec ham_recs[2 * HAM_CALLS + 1];
/*
 * The option's switches in the current round. The threads' first calls are
 * made before the first switch, in the round's first state (even rounds
 * off, odd on: both states are seen, however the threads run); halfway
 * through its calls a thread waits for the first switch, so that every
 * round switches while the threads call.
 */
static atomic_int ham_switched;

/* Thread @t's call @i: arguments that say whose call they are and check each other. */
static long ham_call(unsigned long t, unsigned long i)
{
	return fa_six((long)t, (long)i, (long)(i + 1), (long)(2 * i), (long)~i,
		      (long)(HAM_MAGIC ^ (t << 32 | i)));
}

static bool ham_args_ok(const unsigned long *a)
{
	return a[0] < HAM_THREADS && a[2] == a[1] + 1 && a[3] == 2 * a[1] && a[4] == ~a[1] &&
	       a[5] == (HAM_MAGIC ^ (a[0] << 32 | a[1]));
}

static void *ham_thread(void *arg)
{
	unsigned long t = (unsigned long)(uintptr_t)arg;

	ham_tid[t] = (pid_t)syscall(SYS_gettid);
	for (int r = 0;; r++) {
		while (atomic_load(&ham_round) < r && !atomic_load(&ham_stop))
			sched_yield();
		if (atomic_load(&ham_stop))
			return NULL;
		for (unsigned long i = 0; i < HAM_CALLS; i++) {
			unsigned long x = (unsigned long)r * HAM_CALLS + i;
			unsigned long sum = t + x + (x + 1) + 2 * x + ~x + (HAM_MAGIC ^ (t << 32 | x));

			while (i == HAM_CALLS / 2 && !atomic_load(&ham_switched))
				sched_yield();
			if ((unsigned long)ham_call(t, x) != sum)
				abort();
			atomic_store(&ham_calls[t], (int)i + 1);
		}
		atomic_store(&ham_done[t], r);
	}
}

/* Parse "0x.., 0x.." (six values) at @p. Return: how many. */
static int ham_parse(const char *p, unsigned long *a)
{
	int n = 0;

	while (n < 6 && sscanf(p, "%lx", &a[n]) == 1) {
		n++;
		p = strchr(p, ',');
		if (!p)
			break;
		p += 2;
	}
	return n;
}

/*
 * function: check one round's text: every fa_six line holds its own call's
 * args, and there are HAM_THREADS * HAM_CALLS of them. @with, @without:
 * counts of lines with and without arguments, added to.
 */
static void ham_check_text(const char *t, int *with, int *without)
{
	int lines = 0;

	for (const char *p = t; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned long a[6];

		if (strncmp(p, "fa_six", 6))
			continue;
		lines++;
		if (!strncmp(p, "fa_six(0x", 9)) {
			if (ham_parse(p + 7, a) != 6 || !ham_args_ok(a))
				fail_msg("torn or wrong args: %.*s", (int)strcspn(p, "\n"), p);
			(*with)++;
		} else if (!strncmp(p, "fa_six <-", 9)) {
			(*without)++;
		} else {
			fail_msg("unexpected line: %.*s", (int)strcspn(p, "\n"), p);
		}
	}
	if (lines != HAM_THREADS * HAM_CALLS)
		fail_msg("%d fa_six lines, not %d", lines, HAM_THREADS * HAM_CALLS);
}

/*
 * function_graph: check round @r's records, thread by thread (the text
 * shows a leaf as "func() {" when another thread's records come between
 * its entry and its return by thousands): call i's entry, with or without
 * args (they are call i's when there), then its exit with call i's sum as
 * retval; every call there, nothing else.
 */
static void ham_check_records(int r, int *with, int *without)
{
	for (unsigned long t = 0; t < HAM_THREADS; t++) {
		size_t n = fg_collect(ham_tid[t], ham_recs, 2 * HAM_CALLS + 1);

		if (n != 2 * HAM_CALLS || fg_lost)
			fail_msg("thread %lu: %zu records (%llu lost), not %d", t, n, fg_lost,
				 2 * HAM_CALLS);
		for (unsigned long i = 0; i < HAM_CALLS; i++) {
			const struct fg_rec *e = &ham_recs[2 * i], *x = &ham_recs[2 * i + 1];
			unsigned long c = (unsigned long)r * HAM_CALLS + i;
			unsigned long want[6] = { t, c, c + 1, 2 * c, ~c, HAM_MAGIC ^ (t << 32 | c) };
			unsigned long sum = want[0] + want[1] + want[2] + want[3] + want[4] + want[5];

			if (e->type != FG_TYPE_ENT || x->type != FG_TYPE_RET || e->depth || x->depth)
				fail_msg("thread %lu call %lu: not an entry and its exit", t, i);
			if (e->nr_args) {
				if (memcmp(e->args, want, sizeof(want)))
					fail_msg("thread %lu call %lu: args %lx %lx %lx %lx %lx %lx",
						 t, i, e->args[0], e->args[1], e->args[2],
						 e->args[3], e->args[4], e->args[5]);
				(*with)++;
			} else {
				(*without)++;
			}
			if (x->retval != sum)
				fail_msg("thread %lu call %lu: retval %#lx, not %#lx", t, i,
					 x->retval, sum);
		}
	}
}

/*
 * Every thread made @calls calls of round @r (or finished it). The bound
 * only ends a test that already hangs.
 */
static bool ham_reached(int r, int calls)
{
	for (int t = 0; t < HAM_THREADS; t++)
		if (atomic_load(&ham_done[t]) < r && atomic_load(&ham_calls[t]) < calls)
			return false;
	return true;
}

static void ham_run(bool graph)
{
	const char *opt = graph ? "options/funcgraph-args" : "options/func-args";
	pthread_t th[HAM_THREADS];
	int with = 0, without = 0, switches = 0;
	char size_kb[32];

	reset();
	ft_read(size_kb, sizeof(size_kb), "buffer_size_kb");
	wr("buffer_size_kb", "4096");
	wr("set_ftrace_filter", "fa_six");
	wr("current_tracer", graph ? "function_graph" : "function");
	atomic_store(&ham_round, -1);
	atomic_store(&ham_stop, false);
	for (int t = 0; t < HAM_THREADS; t++) {
		atomic_store(&ham_done[t], -1);
		atomic_store(&ham_calls[t], 0);
		assert_int_equal(pthread_create(&th[t], NULL, ham_thread, (void *)(uintptr_t)t), 0);
	}
	for (int r = 0; r < HAM_ROUNDS; r++) {
		bool on = r % 2;
		long spins = 0;

		wr(opt, on ? "1" : "0");
		for (int t = 0; t < HAM_THREADS; t++)
			atomic_store(&ham_calls[t], 0);
		atomic_store(&ham_switched, 0);
		atomic_store(&ham_round, r);
		while (!ham_reached(r, 1))
			sched_yield();
		/* Switch for as long as the threads call. */
		while (!ham_reached(r, HAM_CALLS)) {
			on = !on;
			wr(opt, on ? "1" : "0");
			atomic_store(&ham_switched, 1);
			switches++;
			if (++spins > 100000000L)
				fail_msg("round %d: the threads made no progress", r);
		}
		wr("tracing_on", "0");
		if (graph)
			ham_check_records(r, &with, &without);
		else
			ham_check_text(ft_skip_header(ft_read(ham_text, sizeof(ham_text), "trace")),
				       &with, &without);
		wr("trace", "");
		wr("tracing_on", "1");
	}
	atomic_store(&ham_stop, true);
	for (int t = 0; t < HAM_THREADS; t++)
		pthread_join(th[t], NULL);
	printf("%s: %d calls with arguments, %d without, %d switches\n",
	       graph ? "function_graph" : "function", with, without, switches);
	assert_true(with > 0 && without > 0);
	wr("buffer_size_kb", size_kb);
	reset();
}

static void test_hammer_function(void **state)
{
	(void)state;
	ham_run(false);
}

static void test_hammer_graph(void **state)
{
	(void)state;
	ham_run(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_func_args),
		cmocka_unit_test(test_graph_retval),
		cmocka_unit_test(test_graph_records),
		cmocka_unit_test(test_instance),
		cmocka_unit_test(test_hammer_function),
		cmocka_unit_test(test_hammer_graph),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
