/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one well-formed event of tests/abi/abi_future_mod.c. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM abi_future

#if !defined(_TRACE_ABI_FUTURE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_ABI_FUTURE_H

#include <trev/tracepoint.h>

TRACE_EVENT(fut_ok,
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

#endif /* _TRACE_ABI_FUTURE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE abi_future_events
#include <trev/define_trace.h>
