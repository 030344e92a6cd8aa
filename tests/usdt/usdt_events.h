/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The events of usdt_app (tests/scripts/usdt_*.sh): arguments of every
 * size and signedness, a string, a struct passed by value, an event class.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM usdt_test

#if !defined(_TRACE_USDT_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_USDT_EVENTS_H

#include <stdbool.h>
#include <trev/tracepoint.h>

#ifndef USDT_PAIR_DEFINED
#define USDT_PAIR_DEFINED
struct usdt_pair {
	int a, b;
};
#endif

TRACE_EVENT(usdt_ints,
	TP_PROTO(int neg, unsigned int big, long lneg, unsigned long umax,
		 unsigned char uc, short s),
	TP_ARGS(neg, big, lneg, umax, uc, s),
	TP_STRUCT__entry(
		__field(int, neg)
		__field(unsigned int, big)
		__field(long, lneg)
		__field(unsigned long, umax)
		__field(unsigned char, uc)
		__field(short, s)
	),
	TP_fast_assign(
		__entry->neg = neg;
		__entry->big = big;
		__entry->lneg = lneg;
		__entry->umax = umax;
		__entry->uc = uc;
		__entry->s = s;
	),
	TP_printk("neg=%d big=%u lneg=%ld umax=%lu uc=%u s=%d", __entry->neg, __entry->big,
		  __entry->lneg, __entry->umax, __entry->uc, __entry->s)
);

TRACE_EVENT(usdt_str,
	TP_PROTO(const char *name, int id),
	TP_ARGS(name, id),
	TP_STRUCT__entry(
		__string(name, name)
		__field(int, id)
	),
	TP_fast_assign(
		__assign_str(name, name);
		__entry->id = id;
	),
	TP_printk("name=%s id=%d", __get_str(name), __entry->id)
);

DECLARE_EVENT_CLASS(usdt_pair_class,
	TP_PROTO(struct usdt_pair p, int after),
	TP_ARGS(p, after),
	TP_STRUCT__entry(
		__field(int, a)
		__field(int, after)
	),
	TP_fast_assign(
		__entry->a = p.a;
		__entry->after = after;
	),
	TP_printk("a=%d after=%d", __entry->a, __entry->after)
);

DEFINE_EVENT(usdt_pair_class, usdt_pair,
	TP_PROTO(struct usdt_pair p, int after),
	TP_ARGS(p, after));

/* Called from C++ (usdt_app_cxx.cpp). */
TRACE_EVENT(usdt_cxx,
	TP_PROTO(int neg, bool flag, const char *s, unsigned long long u),
	TP_ARGS(neg, flag, s, u),
	TP_STRUCT__entry(
		__field(int, neg)
		__field(bool, flag)
		__string(s, s)
		__field(unsigned long long, u)
	),
	TP_fast_assign(
		__entry->neg = neg;
		__entry->flag = flag;
		__assign_str(s, s);
		__entry->u = u;
	),
	TP_printk("neg=%d flag=%d s=%s u=%llu", __entry->neg, __entry->flag, __get_str(s),
		  __entry->u)
);

#endif /* _TRACE_USDT_EVENTS_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE usdt_events

#include <trev/define_trace.h>
