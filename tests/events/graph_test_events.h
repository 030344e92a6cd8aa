/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event of the function_graph text test (tests/unit/test_graph_output.c):
 * a record of another event inside the graph, shown as a comment.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM trev_graph

#if !defined(_TRACE_TREV_GRAPH_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TREV_GRAPH_H

#include <trev/tracepoint.h>

TRACE_EVENT(gt_tick,
	TP_PROTO(unsigned int n),
	TP_ARGS(n),
	TP_STRUCT__entry(
		__field(unsigned int, n)
	),
	TP_fast_assign(
		__entry->n = n;
	),
	TP_printk("n=%u", __entry->n)
);

#endif /* _TRACE_TREV_GRAPH_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE graph_test_events

#include <trev/define_trace.h>
