/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The benchmark's events: the same shapes as LTTng's trev_bench provider. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM bench

#if !defined(_TRACE_BENCH_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_BENCH_H

#include <trev/tracepoint.h>

TRACE_EVENT(be_ints3,
	TP_PROTO(int a, int b, int c),
	TP_ARGS(a, b, c),
	TP_STRUCT__entry(
		__field(int, a)
		__field(int, b)
		__field(int, c)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		__entry->c = c;
	),
	TP_printk("a=%d b=%d c=%d", __entry->a, __entry->b, __entry->c)
);

TRACE_EVENT(be_str,
	TP_PROTO(const char *s),
	TP_ARGS(s),
	TP_STRUCT__entry(
		__string(s, s)
	),
	TP_fast_assign(
		__assign_str(s);
	),
	TP_printk("s=%s", __get_str(s))
);

#endif /* _TRACE_BENCH_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE bench_events_trace

#include <trev/define_trace.h>
