/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench_report's events: a request with ints and strings, three ints, a name and flags. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM benchrep

#if !defined(_TRACE_BENCHREP_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_BENCHREP_H

#include <trev/tracepoint.h>

TRACE_EVENT(br_request,
	TP_PROTO(int id, int status, long long lat, const char *path),
	TP_ARGS(id, status, lat, path),
	TP_STRUCT__entry(
		__field(int, id)
		__field(int, status)
		__field(long long, lat)
		__string(path, path)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->status = status;
		__entry->lat = lat;
		__assign_str(path);
	),
	TP_printk("id=%d status=%d lat=%lld path=%s", __entry->id, __entry->status,
		  __entry->lat, __get_str(path))
);

TRACE_EVENT(br_ints,
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

TRACE_EVENT(br_state,
	TP_PROTO(const char *name, unsigned int flags),
	TP_ARGS(name, flags),
	TP_STRUCT__entry(
		__array(char, name, 16)
		__field(unsigned int, flags)
	),
	TP_fast_assign(
		strncpy(__entry->name, name, 16);
		__entry->flags = flags;
	),
	TP_printk("name=%s flags=%s", __entry->name,
		  __print_flags(__entry->flags, "|", { 1, "READ" }, { 2, "WRITE" },
				{ 4, "SYNC" }))
);

#endif /* _TRACE_BENCHREP_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE bench_report_trace

#include <trev/define_trace.h>
