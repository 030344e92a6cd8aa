/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An event header whose file is not named after its system: it names
 * itself with TRACE_INCLUDE_FILE and no TRACE_INCLUDE_PATH, and is found as
 * <trace/events/TRACE_INCLUDE_FILE.h> (test_events_default_path.c).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM trev_dflt_sys

#if !defined(_TRACE_TREV_DFLT_FILE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TREV_DFLT_FILE_H

#include <trev/tracepoint.h>

TRACE_EVENT(dflt_named,
	TP_PROTO(const char *s),
	TP_ARGS(s),
	TP_STRUCT__entry(
		__string(s, s)
	),
	TP_fast_assign(
		__assign_str(s, s);
	),
	TP_printk("s=%s", __get_str(s))
);

#endif /* _TRACE_TREV_DFLT_FILE_H */

#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trev_dflt_file
#include <trev/define_trace.h>
