/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libtrev_bench_lttng.so: lttng_ust_tracef(), LTTng's trace_printk(). Its
 * tracepoint (lttng_ust_tracef:event) is defined in liblttng-ust; this file
 * must not see LTTNG_UST_TRACEPOINT_DEFINE (trev_bench_lttng.c has it).
 */
#include <lttng/tracef.h>

#include "bench_lttng_so.h"

void trev_bench_tracef3(int a, int b, int c)
{
	lttng_ust_tracef("%d %d %d", a, b, c);
}

int trev_bench_tracef_enabled(void)
{
	return lttng_ust_tracepoint_enabled(lttng_ust_tracef, event) != 0;
}
