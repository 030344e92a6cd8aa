/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Events of the shared object tests/events/dl_module.c, which the dlopen test
 * loads and unloads: two events of system dl_test and the function that fires them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM dl_test

#if !defined(_TRACE_DL_TEST_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_DL_TEST_H

#include <trev/tracepoint.h>

#ifndef _TRACE_DL_TEST_DEF
#define _TRACE_DL_TEST_DEF
/* Exported by the module (looked up with dlsym): fires dl_hello and dl_value. */
void dl_module_fire(int n, const char *s);
enum dl_mode { DL_MODE_LAZY = 1, DL_MODE_NOW = 2 };
#endif

/* Replaced by their values in dl_mode's print fmt when the module registers. */
TRACE_DEFINE_ENUM(DL_MODE_LAZY);
TRACE_DEFINE_ENUM(DL_MODE_NOW);

TRACE_EVENT(dl_hello,
	TP_PROTO(int n, const char *s),
	TP_ARGS(n, s),
	TP_STRUCT__entry(
		__field(int, n)
		__string(s, s)
	),
	TP_fast_assign(
		__entry->n = n;
		__assign_str(s);
	),
	TP_printk("n=%d s=%s", __entry->n, __get_str(s))
);

TRACE_EVENT(dl_value,
	TP_PROTO(unsigned long v),
	TP_ARGS(v),
	TP_STRUCT__entry(
		__field(unsigned long, v)
	),
	TP_fast_assign(
		__entry->v = v;
	),
	TP_printk("v=0x%lx", __entry->v)
);

/* Not fired: its format file is what the dlopen test reads. */
TRACE_EVENT(dl_mode,
	TP_PROTO(int mode),
	TP_ARGS(mode),
	TP_STRUCT__entry(
		__field(int, mode)
	),
	TP_fast_assign(
		__entry->mode = mode;
	),
	TP_printk("mode=%s", __print_symbolic(__entry->mode, { DL_MODE_LAZY, "lazy" },
					      { DL_MODE_NOW, "now" }))
);

#endif /* _TRACE_DL_TEST_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE dl_events

#include <trev/define_trace.h>
