/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Events for the filter tests: one with every kind of field a filter
 * compares (each integer size and signedness, a char array, a __string, a
 * char pointer, an int array), one with eight ints a..h for precedence
 * and short-circuit cases, and one whose TP_fast_assign calls a test hook
 * while its record is reserved in the ring.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ftest

#if !defined(_TRACE_FTEST_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_FTEST_H

#include <trev/tracepoint.h>

/* Called by ft_hook's TP_fast_assign, if set (weak: every program that
 * includes this header has the variable, whether or not it sets it). */
__attribute__((weak)) void (*ft_assign_hook)(void);

TRACE_EVENT(ft_all,
	TP_PROTO(unsigned char u8, signed char s8, unsigned short u16, short s16,
		 unsigned int u32, int s32, unsigned long long u64, long long s64,
		 const char *name, const char *str, const char *ptr),
	TP_ARGS(u8, s8, u16, s16, u32, s32, u64, s64, name, str, ptr),
	TP_STRUCT__entry(
		__field(unsigned char, u8)
		__field(signed char, s8)
		__field(unsigned short, u16)
		__field(short, s16)
		__field(unsigned int, u32)
		__field(int, s32)
		__field(unsigned long long, u64)
		__field(long long, s64)
		__array(char, name, 16)
		__string(str, str)
		__field(const char *, ptr)
		__array(int, arr, 3)
	),
	TP_fast_assign(
		__entry->u8 = u8;
		__entry->s8 = s8;
		__entry->u16 = u16;
		__entry->s16 = s16;
		__entry->u32 = u32;
		__entry->s32 = s32;
		__entry->u64 = u64;
		__entry->s64 = s64;
		memset(__entry->name, 0, sizeof(__entry->name));
		memcpy(__entry->name, name, strnlen(name, sizeof(__entry->name)));
		__assign_str(str, str);
		__entry->ptr = ptr;
		memset(__entry->arr, 0, sizeof(__entry->arr));
	),
	TP_printk("u8=%u s8=%d u16=%u s16=%d u32=%u s32=%d u64=%llu s64=%lld name=%.16s str=%s",
		  __entry->u8, __entry->s8, __entry->u16, __entry->s16, __entry->u32,
		  __entry->s32, __entry->u64, __entry->s64, __entry->name, __get_str(str))
);

TRACE_EVENT(ft_eight,
	TP_PROTO(int a, int b, int c, int d, int e, int f, int g, int h),
	TP_ARGS(a, b, c, d, e, f, g, h),
	TP_STRUCT__entry(
		__field(int, a)
		__field(int, b)
		__field(int, c)
		__field(int, d)
		__field(int, e)
		__field(int, f)
		__field(int, g)
		__field(int, h)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		__entry->c = c;
		__entry->d = d;
		__entry->e = e;
		__entry->f = f;
		__entry->g = g;
		__entry->h = h;
	),
	TP_printk("a=%d b=%d c=%d d=%d e=%d f=%d g=%d h=%d", __entry->a, __entry->b,
		  __entry->c, __entry->d, __entry->e, __entry->f, __entry->g, __entry->h)
);

TRACE_EVENT(ft_hook,
	TP_PROTO(const char *s),
	TP_ARGS(s),
	TP_STRUCT__entry(
		__string(s, s)
	),
	TP_fast_assign(
		__assign_str(s, s);
		if (ft_assign_hook)
			ft_assign_hook();
	),
	TP_printk("s=%s", __get_str(s))
);

#endif /* _TRACE_FTEST_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE filter_test_events

#include <trev/define_trace.h>
