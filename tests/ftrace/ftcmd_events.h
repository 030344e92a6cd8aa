/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The event the function commands enable_event and disable_event switch (test_ftrace_cmds.c). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ftcmd

#if !defined(_TRACE_FTCMD_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_FTCMD_H

#include <trev/tracepoint.h>

TRACE_EVENT(ftcmd_sample,
	TP_PROTO(int v),
	TP_ARGS(v),
	TP_STRUCT__entry(
		__field(int, v)
	),
	TP_fast_assign(
		__entry->v = v;
	),
	TP_printk("v=%d", __entry->v)
);

#endif /* _TRACE_FTCMD_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE ftcmd_events

#include <trev/define_trace.h>
