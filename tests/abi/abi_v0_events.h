/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Events of test_abi_v0 (tests/abi/test_abi_v0.c), which is compiled against
 * the frozen headers of trev 0.1.0 (tests/abi/v0/include, ABI 0) and linked
 * with today's libtrev: one of each descriptor kind that ABI had.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM abi_v0

#if !defined(_TRACE_ABI_V0_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_ABI_V0_H

#include <trev/tracepoint.h>

#ifndef _TRACE_ABI_V0_DEF
#define _TRACE_ABI_V0_DEF
enum abi_v0_mode { ABI_V0_SLOW = 3, ABI_V0_FAST = 7 };
int abi_v0_reg(void);
void abi_v0_unreg(void);
#endif

/* An eval map: replaced by its value in abi_v0_mode's print fmt. */
TRACE_DEFINE_ENUM(ABI_V0_FAST);

TRACE_EVENT(abi_v0_ints,
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

TRACE_EVENT(abi_v0_str,
	TP_PROTO(const char *s, unsigned long v),
	TP_ARGS(s, v),
	TP_STRUCT__entry(
		__string(s, s)
		__array(char, tag, 4)
		__field(unsigned long, v)
	),
	TP_fast_assign(
		__assign_str(s);
		memcpy(__entry->tag, "v0!", 4);
		__entry->v = v;
	),
	TP_printk("s=%s tag=%s v=0x%lx", __get_str(s), __entry->tag, __entry->v)
);

DECLARE_EVENT_CLASS(abi_v0_class,
	TP_PROTO(int mode),
	TP_ARGS(mode),
	TP_STRUCT__entry(
		__field(int, mode)
	),
	TP_fast_assign(
		__entry->mode = mode;
	),
	TP_printk("mode=%s", __print_symbolic(__entry->mode,
		{ ABI_V0_SLOW, "slow" }, { ABI_V0_FAST, "fast" }))
);

DEFINE_EVENT(abi_v0_class, abi_v0_mode,
	TP_PROTO(int mode),
	TP_ARGS(mode));

DEFINE_EVENT_PRINT(abi_v0_class, abi_v0_mode_raw,
	TP_PROTO(int mode),
	TP_ARGS(mode),
	TP_printk("raw=%d", __entry->mode));

TRACE_EVENT_FN(abi_v0_fn,
	TP_PROTO(int n),
	TP_ARGS(n),
	TP_STRUCT__entry(
		__field(int, n)
	),
	TP_fast_assign(
		__entry->n = n;
	),
	TP_printk("n=%d", __entry->n),
	abi_v0_reg, abi_v0_unreg
);

#endif /* _TRACE_ABI_V0_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE abi_v0_events
#include <trev/define_trace.h>
