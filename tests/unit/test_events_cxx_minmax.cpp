/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A C++ program's own min and max survive its event header: they are
 * defined before anything is included, as a program may do, and used after
 * <trev/define_trace.h> has pulled in liburcu, whose <stdlib.h> is the
 * first libstdc++ header here (bits/c++config.h #undefs min and max).
 */
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))

#define CREATE_TRACE_POINTS
#include "trev_test_events.h"

#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <csetjmp>

extern "C" {
#include <cmocka.h>
}

#include <trev/trev.h>

#ifndef min
#error "the event header removed min()"
#endif
#ifndef max
#error "the event header removed max()"
#endif

int tt_reg(void)
{
	return 0;
}

void tt_unreg(void)
{
}

static void test_minmax_kept(void **state)
{
	char *buf = nullptr;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(min(3, 9), 3);
	assert_int_equal(max(3, 9), 9);
	/* And the events of the same file record as usual. */
	assert_int_equal(trev_set_event("trev_test:tt_ints"), 0);
	trace_tt_ints(min(-4, 2), (unsigned int)max(7, 1), 5);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(trev_trace_print(f), 0);
	fclose(f);
	assert_non_null(strstr(buf, ": tt_ints: a=-4 b=7 c=5\n"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minmax_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
