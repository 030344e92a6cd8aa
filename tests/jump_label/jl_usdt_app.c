/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * jl_usdt_app: jl_tick built with jump labels, for tests/scripts/usdt_jump_label.sh. Calls
 * trace_jl_tick(n) with n = 0, 1, 2 while the event is off, 10, 11, 12 while it is on, and
 * 20, 21, 22 after it is off again, then prints "jl_usdt_app: done" and its records' n.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trev/trev.h>

#define CREATE_TRACE_POINTS
#include "jl_events.h"

#ifndef TREV_JUMP_LABEL_ON
#error "built without jump labels: tests/CMakeLists.txt passes -DTREV_JUMP_LABEL=1"
#endif

static void ticks(int from)
{
	for (int n = from; n < from + 3; n++)
		trace_jl_tick(n);
}

int main(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	ticks(0);
	if (trev_write("events/jl_test/jl_tick/enable", "1"))
		return 1;
	ticks(10);
	if (trev_write("events/jl_test/jl_tick/enable", "0"))
		return 1;
	ticks(20);
	printf("jl_usdt_app: done\n");
	f = open_memstream(&text, &len);
	if (!f || trev_trace_print(f) || fclose(f))
		return 1;
	for (const char *p = text; (p = strstr(p, " jl_tick: n=")); p++)
		printf("record %d\n", atoi(p + strlen(" jl_tick: n=")));
	return 0;
}
