/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The integrity checker must fail when it should: a changed payload byte,
 * check or length, a seq out of order or read twice, a stream that was never
 * written, a wrong COMM or PID, unparseable lines, losses that do not add
 * up, a prefix (integ_check_prefix()) with a hole or too short; and pass on
 * intact text, with lost lines in both trev's and trace-cmd's forms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "integ_check.h"
#include "integ_payload.h"

/* The line trev's trace_pipe prints for (@stream, @seq), by thread @comm. */
static void line_of(char *out, size_t size, const char *comm, int pid, uint32_t stream, uint64_t seq)
{
	char p[INTEG_MAX_LEN + 1];
	uint32_t len = integ_payload(stream, seq, p);

	snprintf(out, size, "        %s-%d   [001] ....  2540.133141: integ_rec: stream=%u seq=%llu "
		 "len=%u check=%08x p=%s", comm, pid, stream, (unsigned long long)seq, len,
		 integ_check_value(stream, seq, p, len), p);
}

static struct integ_check *two_streams(void)
{
	struct integ_check *ic = integ_check_new();

	integ_check_want_comm(ic, 1);
	integ_check_expect(ic, 0, 4);
	integ_check_expect(ic, 0 | INTEG_END, 1);
	return ic;
}

static int verdict(struct integ_check *ic, enum integ_relation rel)
{
	int ret = integ_check_verdict(ic, "unit", rel, stdout);

	integ_check_free(ic);
	return ret;
}

static void test_intact_with_losses(void **state)
{
	struct integ_check *ic = two_streams();
	char l[1024];

	(void)state;
	line_of(l, sizeof(l), "integ-w0", 77, 0, 0);
	integ_check_line(ic, 0, l);
	integ_check_line(ic, 0, "CPU:1 [LOST 2 EVENTS]");
	line_of(l, sizeof(l), "integ-w0", 77, 0, 3);
	strcat(l, "\n# a header line\n");
	integ_check_feed(ic, 0, l, 10);		/* a line cut in two reads */
	integ_check_feed(ic, 0, l + 10, strlen(l) - 10);
	line_of(l, sizeof(l), "integ-w0", 77, INTEG_END, 0);
	integ_check_line(ic, 0, l);
	assert_int_equal(integ_check_ends(ic), 1);
	assert_int_equal(verdict(ic, INTEG_EXACT), 0);

	/* trace-cmd report's form, no flags column, and its drop line. */
	ic = two_streams();
	integ_check_line(ic, 0, "CPU:0 [3 EVENTS DROPPED]");
	snprintf(l, sizeof(l), "%s", "x");
	line_of(l, sizeof(l), "integ-w0", 77, 0, 3);
	memmove(strstr(l, "[001]") + 5, strstr(l, "[001]") + 10, strlen(strstr(l, "[001]") + 10) + 1);
	integ_check_line(ic, 0, l);
	line_of(l, sizeof(l), "integ-w0", 77, INTEG_END, 0);
	integ_check_line(ic, 0, l);
	assert_int_equal(verdict(ic, INTEG_EXACT), 0);
}

static void test_each_fault_fails(void **state)
{
	static const char *const faults[] = {
		"payload", "check", "len", "reorder", "dup", "stream", "comm", "pid", "corrupt",
		"unknown-loss", "partial",
	};
	char l[1024];

	(void)state;
	for (size_t f = 0; f < sizeof(faults) / sizeof(faults[0]); f++) {
		struct integ_check *ic = two_streams();
		const char *what = faults[f];
		char *p;

		print_message("fault: %s\n", what);
		for (uint64_t s = 0; s < 4; s++) {
			line_of(l, sizeof(l), "integ-w0", 77, 0, s);
			if (s == 2 && !strcmp(what, "payload")) {
				p = strstr(l, " p=") + 3;
				p[0] = p[0] == 'a' ? 'b' : 'a';
			} else if (s == 2 && !strcmp(what, "check")) {
				p = strstr(l, "check=") + 6;
				p[7] = p[7] == '0' ? '1' : '0';
			} else if (s == 2 && !strcmp(what, "len")) {
				line_of(l, sizeof(l), "integ-w0", 77, 0, 2);
				p = strstr(l, " p=") + 3;
				p[strlen(p) - 1] = '\0';
			} else if (s == 2 && !strcmp(what, "reorder")) {
				line_of(l, sizeof(l), "integ-w0", 77, 0, 3);
				integ_check_line(ic, 0, l);
				line_of(l, sizeof(l), "integ-w0", 77, 0, 2);
				integ_check_line(ic, 0, l);
				break;
			} else if (s == 2 && !strcmp(what, "dup")) {
				line_of(l, sizeof(l), "integ-w0", 77, 0, 1);
				integ_check_line(ic, 1, l);	/* another source: not an order fault */
				integ_check_line(ic, 0, "CPU:0 [LOST 1 EVENTS]");
				continue;
			} else if (s == 2 && !strcmp(what, "stream")) {
				line_of(l, sizeof(l), "integ-w0", 77, 1, 0);
				integ_check_line(ic, 0, "CPU:0 [LOST 1 EVENTS]");
			} else if (s == 2 && !strcmp(what, "comm")) {
				line_of(l, sizeof(l), "<...>", 77, 0, 2);
			} else if (s == 2 && !strcmp(what, "pid")) {
				line_of(l, sizeof(l), "integ-w0", 78, 0, 2);
			} else if (s == 2 && !strcmp(what, "corrupt")) {
				snprintf(l, sizeof(l), "integ-w0-77 [001] .... 1.0: [corrupt record of integ:integ_rec]");
				integ_check_line(ic, 0, "CPU:0 [LOST 1 EVENTS]");
			} else if (s == 2 && !strcmp(what, "unknown-loss")) {
				integ_check_line(ic, 0, "CPU:0 [LOST EVENTS]");
				continue;
			}
			integ_check_line(ic, 0, l);
		}
		line_of(l, sizeof(l), "integ-w0", 77, INTEG_END, 0);
		integ_check_line(ic, 0, l);
		if (!strcmp(what, "partial"))
			integ_check_feed(ic, 0, "integ-w0-77 [001]", 17);
		assert_int_equal(verdict(ic, INTEG_EXACT), 1);
	}
}

static void test_accounting(void **state)
{
	struct integ_check *ic;
	char l[1024];

	(void)state;
	/* One event silently missing: exact fails, at-most passes. */
	for (int rel = INTEG_EXACT; rel <= INTEG_ATMOST; rel++) {
		ic = two_streams();
		for (uint64_t s = 0; s < 3; s++) {
			line_of(l, sizeof(l), "integ-w0", 77, 0, s);
			integ_check_line(ic, 0, l);
		}
		line_of(l, sizeof(l), "integ-w0", 77, INTEG_END, 0);
		integ_check_line(ic, 0, l);
		assert_int_equal(verdict(ic, (enum integ_relation)rel), rel == INTEG_EXACT);
	}
	/* One loss too many fails both; a missing final event fails exact. */
	ic = two_streams();
	integ_check_lost(ic, 6);
	assert_int_equal(verdict(ic, INTEG_ATMOST), 1);
	ic = two_streams();
	integ_check_lost(ic, 6);
	assert_int_equal(verdict(ic, INTEG_EXACT), 1);
	ic = two_streams();
	integ_check_lost(ic, 4);
	line_of(l, sizeof(l), "integ-w0", 77, INTEG_END, 0);
	integ_check_line(ic, 0, l);
	assert_int_equal(verdict(ic, INTEG_EXACT), 0);
	ic = two_streams();
	integ_check_lost(ic, 5);
	assert_int_equal(verdict(ic, INTEG_EXACT), 1);
}

/* The writers were stopped at an unknown point: each stream read as 0 .. k - 1, k >= the floor. */
static void test_prefix(void **state)
{
	static const struct {
		uint64_t seqs[4];
		int n;
		uint64_t floor;
		int fails;
	} cases[] = {
		{ { 0, 1, 2 }, 3, 2, 0 },	/* k = 3 >= 2 */
		{ { 0, 1 }, 2, 2, 0 },		/* k = the floor */
		{ { 0 }, 1, 2, 1 },		/* too short */
		{ { 0, 2, 3 }, 3, 2, 1 },	/* seq 1 missing */
		{ { 1, 2 }, 2, 1, 1 },		/* seq 0 missing */
		{ { 0 }, 0, 0, 0 },		/* nothing, nothing required */
	};
	char l[1024];

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct integ_check *ic = integ_check_new();

		integ_check_expect(ic, 0, 4);	/* an upper bound: writes begun */
		integ_check_prefix(ic, 0, cases[c].floor);
		for (int i = 0; i < cases[c].n; i++) {
			line_of(l, sizeof(l), "integ-w0", 77, 0, cases[c].seqs[i]);
			integ_check_line(ic, 0, l);
		}
		assert_int_equal(verdict(ic, INTEG_ATMOST), cases[c].fails);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intact_with_losses),
		cmocka_unit_test(test_each_fault_fails),
		cmocka_unit_test(test_accounting),
		cmocka_unit_test(test_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
