/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Events of tests/ftrace/ft_user.c, a program built wholly with the function
 * tracer's flags, the file with CREATE_TRACE_POINTS too: a class with two
 * events (strings, a dynamic array, __print_symbolic, __print_flags) and a
 * condition, so that every function the event macros generate is there.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ft_user

#if !defined(_TRACE_FT_USER_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_FT_USER_H

#include <trev/tracepoint.h>

#ifndef _TRACE_FT_USER_DEF
#define _TRACE_FT_USER_DEF
enum ft_user_state { FT_USER_IDLE = 0, FT_USER_BUSY = 1, FT_USER_DONE = 2 };
#define FT_USER_F_READ		0x1
#define FT_USER_F_WRITE		0x2
#define FT_USER_F_SYNC		0x4
#endif

TRACE_DEFINE_ENUM(FT_USER_IDLE);
TRACE_DEFINE_ENUM(FT_USER_BUSY);
TRACE_DEFINE_ENUM(FT_USER_DONE);

DECLARE_EVENT_CLASS(ft_user_class,
	TP_PROTO(int n, const char *s, unsigned int state, unsigned long flags),
	TP_ARGS(n, s, state, flags),
	TP_STRUCT__entry(
		__field(int, n)
		__string(s, s)
		__dynamic_array(int, v, n + 1)
		__field(unsigned int, state)
		__field(unsigned long, flags)
	),
	TP_fast_assign(
		__entry->n = n;
		__assign_str(s);
		for (int i = 0; i <= n; i++)
			((int *)__get_dynamic_array(v))[i] = i;
		__entry->state = state;
		__entry->flags = flags;
	),
	TP_printk("n=%d s=%s state=%s flags=%s", __entry->n, __get_str(s),
		  __print_symbolic(__entry->state,
				   { FT_USER_IDLE, "IDLE" },
				   { FT_USER_BUSY, "BUSY" },
				   { FT_USER_DONE, "DONE" }),
		  __print_flags(__entry->flags, "|",
				{ FT_USER_F_READ, "READ" },
				{ FT_USER_F_WRITE, "WRITE" },
				{ FT_USER_F_SYNC, "SYNC" }))
);

DEFINE_EVENT(ft_user_class, ft_user_step,
	TP_PROTO(int n, const char *s, unsigned int state, unsigned long flags),
	TP_ARGS(n, s, state, flags));

DEFINE_EVENT_CONDITION(ft_user_class, ft_user_odd,
	TP_PROTO(int n, const char *s, unsigned int state, unsigned long flags),
	TP_ARGS(n, s, state, flags),
	TP_CONDITION(n & 1));

#endif /* _TRACE_FT_USER_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ft_user_events
#include <trev/define_trace.h>
