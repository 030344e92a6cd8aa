/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The jump label tests' program event (tests/jump_label/): defined in the
 * test program, called there and from the dlopen()ed jl_mod.c (its key in
 * another object).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM jl_test

#if !defined(_TRACE_JL_TEST_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_JL_TEST_H

#include <trev/tracepoint.h>

TRACE_EVENT(jl_tick,
	TP_PROTO(int n),
	TP_ARGS(n),
	TP_STRUCT__entry(
		__field(int, n)
	),
	TP_fast_assign(
		__entry->n = n;
	),
	TP_printk("n=%d", __entry->n)
);

#endif /* _TRACE_JL_TEST_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE jl_events

#include <trev/define_trace.h>
