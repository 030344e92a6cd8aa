/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A shared object with events of its own (dl_test:*), loaded and unloaded by
 * tests/unit/test_events_dlopen.c: its constructor registers the events, its
 * destructor withdraws them.
 */
#define CREATE_TRACE_POINTS
#include "dl_events.h"

__attribute__((visibility("default"))) void dl_module_fire(int n, const char *s)
{
	trace_dl_hello(n, s);
	trace_dl_value((unsigned long)n * 0x10001ul);
}
