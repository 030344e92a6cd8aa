/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Events of the demo program: strings, arrays, flags, symbolic values, a
 * bitmask, and a class shared by two events.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM demo

#if !defined(_TRACE_DEMO_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_DEMO_H

#include <trev/tracepoint.h>

#define DEMO_GET	0
#define DEMO_PUT	1
#define DEMO_DELETE	2

#define REQ_CACHED	0x1
#define REQ_SYNC	0x2
#define REQ_RETRY	0x4

TRACE_EVENT(demo_request,
	TP_PROTO(const char *path, int method, unsigned int flags, int status,
		 const unsigned char *digest),
	TP_ARGS(path, method, flags, status, digest),
	TP_STRUCT__entry(
		__string(path, path)
		__field(int, method)
		__field(unsigned int, flags)
		__field(int, status)
		__array(unsigned char, digest, 4)
	),
	TP_fast_assign(
		__assign_str(path);
		__entry->method = method;
		__entry->flags = flags;
		__entry->status = status;
		memcpy(__entry->digest, digest, 4);
	),
	TP_printk("%s path=%s flags=%s status=%d digest=%s",
		  __print_symbolic(__entry->method,
				   { DEMO_GET, "GET" },
				   { DEMO_PUT, "PUT" },
				   { DEMO_DELETE, "DELETE" }),
		  __get_str(path),
		  __print_flags(__entry->flags, "|",
				{ REQ_CACHED, "CACHED" },
				{ REQ_SYNC, "SYNC" },
				{ REQ_RETRY, "RETRY" }),
		  __entry->status, __print_hex(__entry->digest, 4))
);

TRACE_EVENT(demo_batch,
	TP_PROTO(const int *lat, int n, const unsigned long *cpus, int nr_cpus),
	TP_ARGS(lat, n, cpus, nr_cpus),
	TP_STRUCT__entry(
		__field(int, n)
		__dynamic_array(int, lat, n)
		__bitmask(cpus, nr_cpus)
	),
	TP_fast_assign(
		__entry->n = n;
		memcpy(__get_dynamic_array(lat), lat, n * sizeof(int));
		__assign_bitmask(cpus, cpus, nr_cpus);
	),
	TP_printk("n=%d lat=%s cpus=%s", __entry->n,
		  __print_array(__get_dynamic_array(lat), __get_dynamic_array_len(lat) / 4, 4),
		  __get_bitmask(cpus))
);

DECLARE_EVENT_CLASS(demo_worker,
	TP_PROTO(const char *name, int id),
	TP_ARGS(name, id),
	TP_STRUCT__entry(
		__array(char, name, 16)
		__field(int, id)
	),
	TP_fast_assign(
		snprintf(__entry->name, sizeof(__entry->name), "%s", name);
		__entry->id = id;
	),
	TP_printk("name=%s id=%d", __entry->name, __entry->id)
);

DEFINE_EVENT(demo_worker, demo_worker_start,
	TP_PROTO(const char *name, int id),
	TP_ARGS(name, id));

DEFINE_EVENT_PRINT(demo_worker, demo_worker_stop,
	TP_PROTO(const char *name, int id),
	TP_ARGS(name, id),
	TP_printk("worker %s (%d) done", __entry->name, __entry->id));

#endif /* _TRACE_DEMO_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE demo_trace

#include <trev/define_trace.h>
