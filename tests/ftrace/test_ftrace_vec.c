// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A traced function's vector arguments and return value come through the
 * trampolines whole, upper halves of ymm and zmm included
 * (src/ftrace/trampoline.c, docs/function-tracer.md "Registers"): under
 * function and function_graph, on the fast calls and on the full paths
 * (a thread's first call, a function command, max_graph_depth), from
 * several threads. ctest runs it twice: as the machine is, and with
 * glibc's string functions held to their AVX2 versions
 * (GLIBC_TUNABLES, tests/CMakeLists.txt), which end in vzeroupper: that
 * clears the upper halves of every ymm register, so a full path that ran
 * one between a function's entry and its body would hand it other
 * arguments. Skipped (77) on a CPU without AVX2.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <trev/trev.h>

#include "ft_read.h"
#include "ft_vec.h"

#define FT_VEC_THREADS	3
#define FT_VEC_CALLS	3000	/* per thread: records over several pages */

static bool have512;
static char text[1 << 22];

/* Calls of both functions with values that differ in every lane; returns the wrong results. */
static long vec_calls(int n, int seed)
{
	long bad = 0;

	for (int i = 0; i < n; i++) {
		double in[8][4], want[4] = { 0 }, out[4];

		for (int k = 0; k < 8; k++)
			for (int j = 0; j < 4; j++) {
				in[k][j] = seed * 1000.0 + i * 10.0 + k * 4 + j + 0.25;
				want[j] += in[k][j];
			}
		ft_vec256_sum((const double(*)[4])in, out);
		bad += memcmp(out, want, sizeof(out)) != 0;
		if (have512) {
			double a[8], b[8], want8[8], out8[8];

			for (int j = 0; j < 8; j++) {
				a[j] = seed + i + j * 0.5;
				b[j] = -j - 0.125;
				want8[j] = 2 * a[j] + b[j];
			}
			ft_vec512_sum(a, b, out8);
			bad += memcmp(out8, want8, sizeof(out8)) != 0;
		}
	}
	return bad;
}

static void *vec_thread(void *arg)
{
	return (void *)vec_calls(FT_VEC_CALLS, (int)(long)arg);
}

/* The calls from new threads (their first calls take the full paths) and this one. */
static void run_all(void)
{
	pthread_t t[FT_VEC_THREADS];
	long bad = vec_calls(FT_VEC_CALLS, 0);

	for (long i = 0; i < FT_VEC_THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, vec_thread, (void *)(i + 1)), 0);
	for (int i = 0; i < FT_VEC_THREADS; i++) {
		void *r;

		assert_int_equal(pthread_join(t[i], &r), 0);
		bad += (long)r;
	}
	assert_int_equal(bad, 0);
}

static void setup(const char *tracer, const char *filter_extra)
{
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	assert_int_equal(trev_write("trace", ""), 0);
	assert_int_equal(trev_write("max_graph_depth", "0"), 0);
	assert_int_equal(trev_write("set_ftrace_filter", "ft_vec256_add8 ft_vec512_fma"), 0);
	if (filter_extra)
		assert_int_equal(trev_append("set_ftrace_filter", filter_extra), 0);
	assert_int_equal(trev_write("current_tracer", tracer), 0);
}

/* The calls were traced: the function's records are in the trace. */
static void assert_traced(void)
{
	const char *t = ft_read(text, sizeof(text), "trace");

	if (!strstr(t, "ft_vec256_add8") || (have512 && !strstr(t, "ft_vec512_fma")))
		fail_msg("no records of the functions:\n%.2000s", t);
}

static void test_function(void **state)
{
	(void)state;
	setup("function", NULL);
	run_all();
	assert_traced();
}

static void test_graph(void **state)
{
	(void)state;
	setup("function_graph", NULL);
	run_all();
	assert_traced();
}

/*
 * A function command: every entry of the function takes the full path (the
 * count, which keeps the trace short, only stops the stack traces).
 */
static void test_command(void **state)
{
	(void)state;
	setup("function", "ft_vec256_add8:stacktrace:100");
	run_all();
	assert_traced();
	assert_non_null(strstr(text, "<stack trace>"));
	assert_int_equal(trev_write("set_ftrace_filter", ""), 0);
}

/* max_graph_depth: function_graph's entries and returns take the full paths. */
static void test_graph_full(void **state)
{
	(void)state;
	setup("function_graph", NULL);
	assert_int_equal(trev_write("max_graph_depth", "5"), 0);
	run_all();
	assert_traced();
	assert_int_equal(trev_write("max_graph_depth", "0"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_function),
		cmocka_unit_test(test_graph),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_graph_full),
	};
	int rc;

	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2")) {
		printf("SKIP: the CPU has no AVX2: no ymm registers to check\n");
		return 77;
	}
	have512 = __builtin_cpu_supports("avx512f");
	printf("# vectors checked: ymm%s; GLIBC_TUNABLES=%s\n", have512 ? " and zmm" : "",
	       getenv("GLIBC_TUNABLES") ? getenv("GLIBC_TUNABLES") : "(unset)");
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	return rc;
}
