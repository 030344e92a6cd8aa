/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Without TRACE_INCLUDE_PATH, <trev/define_trace.h> reads an event header
 * again as <trace/events/TRACE_INCLUDE_FILE.h>, TRACE_INCLUDE_FILE
 * defaulting to TRACE_SYSTEM, as the kernel's define_trace.h does; two
 * headers found that way define their events in one file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <trev/trev.h>

#define CREATE_TRACE_POINTS
#include <trace/events/trev_dflt.h>

/* define_trace.h leaves nothing it defaulted behind it (the kernel's UNDEF_*). */
#ifdef TRACE_INCLUDE_FILE
#error "TRACE_INCLUDE_FILE left defined"
#endif
#ifdef TRACE_INCLUDE_PATH
#error "TRACE_INCLUDE_PATH left defined"
#endif

#include <trace/events/trev_dflt_file.h>

static void test_default_path(void **state)
{
	char *buf = NULL, *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(trev_event_format("trev_dflt", "dflt_plain", &text), 0);
	free(text);
	assert_int_equal(trev_event_format("trev_dflt_sys", "dflt_named", &text), 0);
	free(text);
	assert_int_equal(trev_set_event("trev_dflt:*,trev_dflt_sys:*"), 0);
	trace_dflt_plain(11);
	trace_dflt_named("found");
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(trev_trace_print(f), 0);
	fclose(f);
	assert_non_null(strstr(buf, ": dflt_plain: v=11\n"));
	assert_non_null(strstr(buf, ": dflt_named: s=found\n"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
