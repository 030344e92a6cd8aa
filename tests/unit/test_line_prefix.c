/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The `trace` line prefix (src/output/line_prefix.c), golden: each case's
 * context and the exact text, the kernel's trace_print_context() and
 * trace_print_lat_fmt() letters for every common_flags bit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "output/line_prefix.h"

#define LAT	TREV_PREFIX_LAT

struct prefix_case {
	struct trev_line_prefix lp;
	const char *want;
};

static const struct prefix_case cases[] = {
	/* "%16.16s-%-5d [%03d] %s %5llu.%06llu: ", microseconds rounded */
	{ { "bash", 1234, 0, 1, 0, 0, 5123456789ull, LAT },
	  "            bash-1234  [001] ....     5.123457: " },
	{ { "bash", 1234, 0, 1, 0, 0, 5123456499ull, LAT },
	  "            bash-1234  [001] ....     5.123456: " },
	{ { "a-very-long-thread-name", 7, 0, 12, 0, 0, 999999999500ull, LAT },
	  "a-very-long-thre-7     [012] ....  1000.000000: " },
	{ { "<...>", -1, 0, 0, 0, 0, 0, LAT },
	  "           <...>--1    [000] ....     0.000000: " },
	{ { "w", 1234567, 0, 1234, 0, 0, 123456789012345678ull, LAT },
	  "               w-1234567 [1234] .... 123456789.012346: " },
	/* The latency columns: irqs-off, need-resched, hardirq/softirq, preempt-depth */
	{ { "t", 1, 0, 0, TREV_FLAG_HARDIRQ, 1, 0, LAT },
	  "               t-1     [000] ..h1     0.000000: " },
	{ { "t", 1, 0, 0, TREV_FLAG_IRQS_OFF | TREV_FLAG_NEED_RESCHED | TREV_FLAG_SOFTIRQ,
	    0x1f, 0, LAT },
	  "               t-1     [000] dnsf     0.000000: " },
	{ { "t", 1, 0, 0, TREV_FLAG_IRQS_NOSUPPORT | TREV_FLAG_PREEMPT_RESCHED |
	    TREV_FLAG_HARDIRQ | TREV_FLAG_SOFTIRQ, 10, 0, LAT },
	  "               t-1     [000] XpHa     0.000000: " },
	{ { "t", 1, 0, 0, TREV_FLAG_IRQS_OFF | TREV_FLAG_IRQS_NOSUPPORT |
	    TREV_FLAG_NEED_RESCHED | TREV_FLAG_PREEMPT_RESCHED | TREV_FLAG_NMI, 0, 0, LAT },
	  "               t-1     [000] dNz.     0.000000: " },
	{ { "t", 1, 0, 0, TREV_FLAG_NMI | TREV_FLAG_HARDIRQ | TREV_FLAG_SOFTIRQ, 16, 0, LAT },
	  "               t-1     [000] ..Z.     0.000000: " },
	/* Without irq-info: no columns, two blanks; record-tgid; the counter clock */
	{ { "t", 1, 0, 3, TREV_FLAG_HARDIRQ, 1, 2000, 0 },
	  "               t-1     [003]      0.000002: " },
	{ { "t", 1, 4321, 3, 0, 0, 2000, LAT | TREV_PREFIX_TGID },
	  "               t-1     (   4321) [003] ....     0.000002: " },
	{ { "t", 1, 0, 3, 0, 0, 42, LAT | TREV_PREFIX_COUNTER },
	  "               t-1     [003] ....           42: " },
	{ { "t", 1, 0, 3, 0, 0, 18446744073709551615ull, TREV_PREFIX_COUNTER },
	  "               t-1     [003]  18446744073709551615: " },
};

static void test_prefix_golden(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[TREV_LINE_PREFIX_MAX + 1];
		size_t n = trev__line_prefix(buf, &cases[i].lp);

		assert_true(n <= TREV_LINE_PREFIX_MAX);
		buf[n] = '\0';
		if (strcmp(buf, cases[i].want))
			fail_msg("case %zu: '%s', want '%s'", i, buf, cases[i].want);
	}
}

/* The longest prefix there is fits in TREV_LINE_PREFIX_MAX. */
static void test_prefix_longest(void **state)
{
	const struct trev_line_prefix lp = {
		"0123456789abcdefXYZ", -2147483647 - 1, 2147483647, 4294967295u, 0xff, 0xff,
		18446744073709551615ull, LAT | TREV_PREFIX_TGID | TREV_PREFIX_COUNTER,
	};
	char buf[TREV_LINE_PREFIX_MAX];

	(void)state;
	assert_int_equal(trev__line_prefix(buf, &lp),
			 16 + 1 + 11 + 1 + 13 + 13 + 5 + 20 + 2);
	assert_memory_equal(buf, "0123456789abcdef--2147483648 (2147483647) [4294967295] dNZf ",
			    16 + 1 + 11 + 1 + 13 + 13 + 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix_golden),
		cmocka_unit_test(test_prefix_longest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
