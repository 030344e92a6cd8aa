/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An event header that names no TRACE_INCLUDE_PATH or TRACE_INCLUDE_FILE:
 * define_trace.h finds it as <trace/events/TRACE_SYSTEM.h>, the kernel's
 * default (test_events_default_path.c).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM trev_dflt

#if !defined(_TRACE_TREV_DFLT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TREV_DFLT_H

#include <trev/tracepoint.h>

TRACE_EVENT(dflt_plain,
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

#endif /* _TRACE_TREV_DFLT_H */

#include <trev/define_trace.h>
