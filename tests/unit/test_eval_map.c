// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * TRACE_DEFINE_ENUM / TRACE_DEFINE_SIZEOF: the kernel's update_event_printk()
 * rules on print fmt strings (a table of edge cases), then the events of
 * kprint_events.h: their format files show numbers, their trace text the
 * names that the compiled TP_printk prints.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <trev/trev.h>

#include "events/events_internal.h"

#define CREATE_TRACE_POINTS
#include "kprint_events.h"

/* ------------------------------------------------------------------ */
/* The substitution on strings                                          */

struct eval_case {
	const char *fmt;	/* print fmt before */
	const char *name;	/* the eval string */
	long value;
	const char *want;	/* print fmt after */
	int ret;		/* trev__eval_update_printk() */
};

static const struct eval_case eval_cases[] = {
	/* Plain uses, nested parentheses, several in a row. */
	{ "\"s=%s\", __print_symbolic(REC->s, { FOO, \"foo\" }, { BAR, \"bar\" })", "FOO", 1,
	  "\"s=%s\", __print_symbolic(REC->s, { 1, \"foo\" }, { BAR, \"bar\" })", 0 },
	{ "\"%d\", ((FOO))", "FOO", 3, "\"%d\", ((3))", 0 },
	{ "\"%d\", f(g(FOO),FOO)", "FOO", 3, "\"%d\", f(g(3),3)", 0 },
	{ "\"%d\", FOO+FOO", "FOO", 3, "\"%d\", 3+3", 0 },
	{ "FOO", "FOO", 3, "3", 0 },
	{ "(FOO)", "FOO", 1234, "(FOO)", -ENOSPC },
	/* Inside the quoted format, escaped quotes included. */
	{ "\"FOO=%d\", FOO", "FOO", 9, "\"FOO=%d\", 9", 0 },
	{ "\"a\\\"FOO\\\" %d\", FOO", "FOO", 9, "\"a\\\"FOO\\\" %d\", 9", 0 },
	/* Part of another identifier: prefix, suffix, underscore. */
	{ "\"\", FOO_BAR, FOOD, XFOO, _FOO, FOO1, FOO", "FOO", 2,
	  "\"\", FOO_BAR, FOOD, XFOO, _FOO, FOO1, 2", 0 },
	/* Field accesses: after "->" or '.', and what follows them. */
	{ "\"\", REC->FOO, a.FOO, REC->a.FOO, FOO", "FOO", 2,
	  "\"\", REC->FOO, a.FOO, REC->a.FOO, 2", 0 },
	/* "REC->x" and then a name: the character after the access is skipped. */
	{ "\"\", REC->x==FOO", "FOO", 2, "\"\", REC->x==2", 0 },
	/* Spaces between: ". FOO" is no field access for the scan. */
	{ "\"\", a . FOO", "FOO", 2, "\"\", a . 2", 0 },
	/* Numbers are skipped with their suffix letters. */
	{ "\"\", 0x10FOO, 10ULL FOO, 1,FOO", "FOO", 2, "\"\", 0x10FOO, 10ULL 2, 1,2", 0 },
	/* A backslash outside quotes hides the next character. */
	{ "\"\", \\FOO, \\ FOO", "FOO", 2, "\"\", \\FOO, \\ 2", 0 },
	/*
	 * The kernel's quirk: the character after an identifier is skipped,
	 * so a '"' there opens no string and the name after it is replaced.
	 */
	{ "\"\", x\"FOO\"", "FOO", 2, "\"\", x\"2\"", 0 },
	/* Negative values print as the kernel's "%ld"; too long ones stay names. */
	{ "\"\", NEG", "NEG", -3, "\"\", -3", 0 },
	{ "\"\", A, B", "A", 10, "\"\", A, B", -ENOSPC },
	{ "\"\", AB", "AB", 10, "\"\", 10", 0 },
	/* TRACE_DEFINE_SIZEOF's name. */
	{ "\"%zu\", REC->len / sizeof(struct kp_req)", "sizeof(struct kp_req)", 24,
	  "\"%zu\", REC->len / 24", 0 },
	{ "\"%zu\", xsizeof(struct kp_req), sizeof(struct kp_req)_, sizeof(struct kp_reqs)",
	  "sizeof(struct kp_req)", 24,
	  "\"%zu\", xsizeof(struct kp_req), sizeof(struct kp_req)_, sizeof(struct kp_reqs)", 0 },
	/* An unterminated quote or a trailing backslash ends the scan. */
	{ "\"FOO, FOO", "FOO", 1, "\"FOO, FOO", 0 },
	{ "\"\", FOO\\", "FOO", 1, "\"\", 1\\", 0 },
	/* Latin-1 letters count as letters (the kernel's ctype). */
	{ "\"\", \xc3\xa9" "FOO, FOO\xc3\xa9, FOO", "FOO", 1,
	  "\"\", \xc3\xa9" "1, FOO\xc3\xa9, 1", 0 },
	{ "", "FOO", 1, "", 0 },
};

static void test_eval_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(eval_cases) / sizeof(eval_cases[0]); i++) {
		const struct eval_case *c = &eval_cases[i];
		char *buf = strdup(c->fmt);
		int ret;

		assert_non_null(buf);
		ret = trev__eval_update_printk(buf, c->name, (unsigned long)c->value);
		if (ret != c->ret || strcmp(buf, c->want) != 0)
			fail_msg("case %zu: '%s' with %s=%ld: got '%s' (%d), want '%s' (%d)", i,
				 c->fmt, c->name, c->value, buf, ret, c->want, c->ret);
		free(buf);
	}
}

/* Maps apply in order, only those of the event's system. */
static void test_eval_maps_of_system(void **state)
{
	static const struct trev_eval_map a = { TREV_ABI_HDR(struct trev_eval_map), "sys", "FOO", 1 };
	static const struct trev_eval_map b = { TREV_ABI_HDR(struct trev_eval_map), "other", "BAR", 2 };
	static const struct trev_eval_map c = { TREV_ABI_HDR(struct trev_eval_map), "sys", "sizeof(FOO)", 8 };
	static const struct trev_eval_map d = { TREV_ABI_HDR(struct trev_eval_map), "sys", "BAR", 3 };
	static const struct trev_eval_map *const maps[] = { &c, &a, &b, &d, NULL };
	static const struct trev_event_class klass = { TREV_ABI_HDR(struct trev_event_class), "sys", NULL, NULL, 8 };
	struct trev_event_call call = { .klass = &klass, .name = "ev" };
	char *out;

	(void)state;
	call.print_fmt = "\"%d %d %d\", FOO, BAR, sizeof(FOO)";
	assert_int_equal(trev__eval_print_fmt(&call, maps, maps + 5, &out), 0);
	assert_non_null(out);
	assert_string_equal(out, "\"%d %d %d\", 1, 3, 8");
	free(out);

	/* "sizeof(FOO)" after "FOO": the enum is replaced inside it first. */
	{
		static const struct trev_eval_map *const rev[] = { &a, &c };

		assert_int_equal(trev__eval_print_fmt(&call, rev, rev + 2, &out), 0);
		assert_string_equal(out, "\"%d %d %d\", 1, BAR, sizeof(1)");
		free(out);
	}
	/* Nothing to replace: no copy. */
	call.print_fmt = "\"%d\", REC->x";
	assert_int_equal(trev__eval_print_fmt(&call, maps, maps + 5, &out), 0);
	assert_null(out);
	assert_int_equal(trev__eval_print_fmt(&call, NULL, NULL, &out), 0);
	assert_null(out);
}

/* ------------------------------------------------------------------ */
/* Events                                                               */

static char *format_of(const char *event)
{
	char *text = NULL;

	assert_int_equal(trev_event_format("kprint", event, &text), 0);
	assert_non_null(text);
	return text;
}

static void test_event_format_numbers(void **state)
{
	char *text = format_of("kp_state");

	(void)state;
	assert_non_null(strstr(text,
		"\nprint fmt: \"KP_IDLE state=%s reqs=%zu busy=%d neg=%d\", "
		"__print_symbolic(REC->state, { 0, \"idle\" }, { 5, \"running\" }, "
		"{ 42, \"blocked\" }), REC->bytes / 24, "
		"(REC->state == 5 || REC->state == 42), REC->state == -3\n"));
	free(text);
}

/* The trace text comes from the compiled TP_printk: the names, as before. */
static void test_event_trace_names(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(trev_trace_reset(), 0);
	assert_int_equal(trev_set_event("kprint:kp_state"), 0);
	trace_kp_state(KP_RUNNING, 48);
	trace_kp_state(KP_NEGATIVE, 24);
	trace_kp_state(7, 0);
	/* Negative values in the pairs (test_events_cxx checks the same text from C++). */
	assert_int_equal(trev_set_event("kprint:kp_neg"), 0);
	trace_kp_neg(-1, ~0ul - 2, -2);
	trace_kp_neg(KP_NEGATIVE, 1, 1);
	trace_kp_neg(0, ~0ul - 3, 3);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(trev_trace_print(f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "kp_state: KP_IDLE state=running reqs=2 busy=1 neg=0\n"));
	assert_non_null(strstr(buf, "kp_state: KP_IDLE state=0xfffffffffffffffd reqs=1 busy=0 neg=1\n"));
	assert_non_null(strstr(buf, "kp_state: KP_IDLE state=0x7 reqs=0 busy=0 neg=0\n"));
	assert_non_null(strstr(buf, ": kp_neg: act=NEG flags=ONE|HIGH big=NEG2\n"));
	assert_non_null(strstr(buf, ": kp_neg: act=KPNEG flags=ONE big=ONE\n"));
	assert_non_null(strstr(buf, ": kp_neg: act=ZERO flags=HIGH big=0x3\n"));
	free(buf);
	trev_set_event("!kprint:*");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eval_table),
		cmocka_unit_test(test_eval_maps_of_system),
		cmocka_unit_test(test_event_format_numbers),
		cmocka_unit_test(test_event_trace_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
