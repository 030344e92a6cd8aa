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
 * arguments. And the other way round: a function of SSE code (ft_fma())
 * that enters with the upper state clean leaves it clean through the full
 * paths (XINUSE, where the CPU reports it). Skipped (77) on a CPU without
 * AVX2.
 */
#include <cpuid.h>
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

#include "ft_funcs.h"
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

/* @fn's records are in the trace. */
static void assert_traced_fn(const char *fn)
{
	if (!strstr(ft_read(text, sizeof(text), "trace"), fn))
		fail_msg("no records of %s:\n%.2000s", fn, text);
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

/* The register state in use (XINUSE: xgetbv with ecx 1), or 0 when the CPU cannot say. */
static bool have_xinuse;

static unsigned long long xinuse(void)
{
	unsigned int lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
	return lo | (unsigned long long)hi << 32;
}

/* The upper halves of ymm0-15 (bit 2) and of zmm0-15 (bit 6). */
#define XINUSE_UPPER	0x44ull

/*
 * An SSE function's full paths (a command at its entry; max_graph_depth at
 * its entry and return) leave the upper state as they found it: clean.
 */
static void test_clean_upper(void **state)
{
	static const char *const modes[][3] = {
		{ "function", "ft_fma:stacktrace:1", "0" },
		{ "function_graph", NULL, "5" },
	};

	(void)state;
	if (!have_xinuse)
		skip();
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		unsigned long long before, after;
		double r;

		assert_int_equal(trev_write("current_tracer", "nop"), 0);
		assert_int_equal(trev_write("set_ftrace_filter", "ft_fma"), 0);
		if (modes[m][1])
			assert_int_equal(trev_append("set_ftrace_filter", modes[m][1]), 0);
		assert_int_equal(trev_write("max_graph_depth", modes[m][2]), 0);
		assert_int_equal(trev_write("current_tracer", modes[m][0]), 0);
		r = ft_fma(1, 2, 3, 4, 5, 6, 7, 8);	/* the thread's first graph frame */
		__asm__ volatile("vzeroupper");
		before = xinuse();
		r += ft_fma(1.5, 2, 3, 4, 5, 6, 7, 8);
		after = xinuse();
		assert_true(r == 100 + 101);
		if ((before & XINUSE_UPPER) || (after & XINUSE_UPPER))
			fail_msg("%s: XINUSE %#llx before the call, %#llx after", modes[m][0], before,
				 after);
	}
	assert_int_equal(trev_write("set_ftrace_filter", ""), 0);
	assert_int_equal(trev_write("max_graph_depth", "0"), 0);
	assert_traced_fn("ft_fma");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_function),
		cmocka_unit_test(test_graph),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_graph_full),
		cmocka_unit_test(test_clean_upper),
	};
	unsigned int a, b, c, d;
	int rc;

	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2")) {
		printf("SKIP: the CPU has no AVX2: no ymm registers to check\n");
		return 77;
	}
	have512 = __builtin_cpu_supports("avx512f");
	have_xinuse = __get_cpuid_count(0xd, 1, &a, &b, &c, &d) && (a & 4);
	printf("# vectors checked: ymm%s; GLIBC_TUNABLES=%s\n", have512 ? " and zmm" : "",
	       getenv("GLIBC_TUNABLES") ? getenv("GLIBC_TUNABLES") : "(unset)");
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	return rc;
}
