/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test events: every field kind and print helper, a class with a plain and
 * a DEFINE_EVENT_PRINT event, a condition, TRACE_EVENT_FN hooks, the _NOP
 * forms, perf's argument markers, cpumasks, __vstring and the __rel_* family.
 * Used by the golden, C++ and libtraceevent tests.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM trev_test

#if !defined(_TRACE_TREV_TEST_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TREV_TEST_H

#include <trev/tracepoint.h>

/* Types are read once, not once per stage (the kernel's _DEF guard idiom). */
#ifndef _TRACE_TREV_TEST_DEF
#define _TRACE_TREV_TEST_DEF
#include <stdarg.h>
#include <stdbool.h>
struct tt_pair {
	int a;
	int b;
};

int tt_reg(void);
void tt_unreg(void);
#endif

TRACE_EVENT(tt_ints,
	TP_PROTO(int a, unsigned int b, long long c),
	TP_ARGS(a, b, c),
	TP_STRUCT__entry(
		__field(int, a)
		__field(unsigned int, b)
		__field(long long, c)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		__entry->c = c;
	),
	TP_printk("a=%d b=%u c=%lld", __entry->a, __entry->b, __entry->c)
);

TRACE_EVENT(tt_types,
	TP_PROTO(char c, short s, unsigned char uc, unsigned long ul, void *p, bool flag,
		 struct tt_pair pair),
	TP_ARGS(c, s, uc, ul, p, flag, pair),
	TP_STRUCT__entry(
		__field(char, c)
		__field(short, s)
		__field(unsigned char, uc)
		__field(unsigned long, ul)
		__field(void *, p)
		__field(bool, flag)
		__field_struct(struct tt_pair, pair)
	),
	TP_fast_assign(
		__entry->c = c;
		__entry->s = s;
		__entry->uc = uc;
		__entry->ul = ul;
		__entry->p = p;
		__entry->flag = flag;
		__entry->pair = pair;
	),
	TP_printk("c=%d s=%d uc=%u ul=%lu p=%p flag=%d pair=%d/%d", __entry->c, __entry->s,
		  __entry->uc, __entry->ul, __entry->p, __entry->flag, __entry->pair.a,
		  __entry->pair.b)
);

TRACE_EVENT(tt_strings,
	TP_PROTO(const char *name, const char *msg, int msg_len, const char *tag),
	TP_ARGS(name, msg, msg_len, tag),
	TP_STRUCT__entry(
		__string(name, name)
		__string_len(msg, msg, msg_len)
		__array(char, tag, 8)
	),
	TP_fast_assign(
		__assign_str(name, name);
		__assign_str(msg);
		memset(__entry->tag, 0, 8);
		strncpy(__entry->tag, tag, 7);
	),
	TP_printk("name=%s msg=%s tag=%s", __get_str(name), __get_str(msg), __entry->tag)
);

TRACE_EVENT(tt_arrays,
	TP_PROTO(const unsigned short *v, int n, const unsigned char *bytes, int nb),
	TP_ARGS(v, n, bytes, nb),
	TP_STRUCT__entry(
		__array(int, fixed, 3)
		__dynamic_array(unsigned short, v, n)
		__dynamic_array(unsigned char, bytes, nb)
	),
	TP_fast_assign(
		__entry->fixed[0] = n;
		__entry->fixed[1] = nb;
		__entry->fixed[2] = -1;
		memcpy(__get_dynamic_array(v), v, n * sizeof(*v));
		memcpy(__get_dynamic_array(bytes), bytes, nb);
	),
	TP_printk("fixed=%s v=%s n=%d hex=%s hexstr=%s",
		  __print_array(__entry->fixed, 3, 4),
		  __print_array(__get_dynamic_array(v), __get_dynamic_array_len(v) / 2, 2),
		  __get_dynamic_array_len(v) / 2,
		  __print_hex(__get_dynamic_array(bytes), __get_dynamic_array_len(bytes)),
		  __print_hex_str(__get_dynamic_array(bytes), __get_dynamic_array_len(bytes)))
);

TRACE_EVENT(tt_flags,
	TP_PROTO(unsigned long flags, int state, unsigned long long big, const unsigned long *mask,
		 int nr_bits),
	TP_ARGS(flags, state, big, mask, nr_bits),
	TP_STRUCT__entry(
		__field(unsigned long, flags)
		__field(int, state)
		__field(unsigned long long, big)
		__bitmask(mask, nr_bits)
	),
	TP_fast_assign(
		__entry->flags = flags;
		__entry->state = state;
		__entry->big = big;
		__assign_bitmask(mask, mask, nr_bits);
	),
	TP_printk("flags=%s state=%s big=%s mask=%s",
		  __print_flags(__entry->flags, "|", { 0x1, "READ" }, { 0x2, "WRITE" },
				{ 0x4, "EXEC" }),
		  __print_symbolic(__entry->state, { 0, "IDLE" }, { 1, "RUNNING" },
				   { 2, "BLOCKED" }),
		  __print_flags_u64(__entry->big, ",", { 0x100000000ULL, "HIGH" }, { 0x1ULL, "LOW" }),
		  __get_bitmask(mask))
);

DECLARE_EVENT_CLASS(tt_class,
	TP_PROTO(int id, const char *what),
	TP_ARGS(id, what),
	TP_STRUCT__entry(
		__field(int, id)
		__string(what, what)
	),
	TP_fast_assign(
		__entry->id = id;
		__assign_str(what);
	),
	TP_printk("id=%d what=%s", __entry->id, __get_str(what))
);

DEFINE_EVENT(tt_class, tt_open,
	TP_PROTO(int id, const char *what),
	TP_ARGS(id, what));

DEFINE_EVENT_PRINT(tt_class, tt_close,
	TP_PROTO(int id, const char *what),
	TP_ARGS(id, what),
	TP_printk("closed %s (%d)", __get_str(what), __entry->id));

DEFINE_EVENT_CONDITION(tt_class, tt_odd,
	TP_PROTO(int id, const char *what),
	TP_ARGS(id, what),
	TP_CONDITION(id & 1));

TRACE_EVENT_CONDITION(tt_positive,
	TP_PROTO(int v),
	TP_ARGS(v),
	TP_CONDITION(v > 0),
	TP_STRUCT__entry(
		__field(int, v)
	),
	TP_fast_assign(
		__entry->v = v;
	),
	TP_printk("v=%d", __entry->v)
);

TRACE_EVENT_FN(tt_hooked,
	TP_PROTO(int v),
	TP_ARGS(v),
	TP_STRUCT__entry(
		__field(int, v)
	),
	TP_fast_assign(
		__entry->v = v;
	),
	TP_printk("v=%d", __entry->v),
	tt_reg, tt_unreg
);

/* sched.h without CONFIG_SCHEDSTATS: no event, trace_<name>() does nothing. */
TRACE_EVENT_NOP(tt_nop,
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

DECLARE_EVENT_CLASS_NOP(tt_nop_class,
	TP_PROTO(int v, const char *s),
	TP_ARGS(v, s),
	TP_STRUCT__entry(
		__field(int, v)
		__string(s, s)
	),
	TP_fast_assign(
		__entry->v = v;
		__assign_str(s, s);
	),
	TP_printk("v=%d s=%s", __entry->v, __get_str(s))
);

DEFINE_EVENT_NOP(tt_nop_class, tt_nop_ev,
	TP_PROTO(int v, const char *s),
	TP_ARGS(v, s));

/* sched.h's perf markers in a class's TP_ARGS and in a TRACE_EVENT's. */
DECLARE_EVENT_CLASS(tt_perf_class,
	TP_PROTO(const void *task, unsigned long long delay, unsigned long addr),
	TP_ARGS(__perf_task(task), __perf_count(delay), __perf_addr(addr)),
	TP_STRUCT__entry(
		__field(const void *, task)
		__field(unsigned long long, delay)
		__field(unsigned long, addr)
	),
	TP_fast_assign(
		__entry->task = task;
		__entry->delay = delay;
		__entry->addr = addr;
	),
	TP_printk("task=%p delay=%llu addr=0x%lx", __entry->task, __entry->delay,
		  __entry->addr)
);

DEFINE_EVENT(tt_perf_class, tt_perf,
	TP_PROTO(const void *task, unsigned long long delay, unsigned long addr),
	TP_ARGS(task, delay, addr));

TRACE_EVENT(tt_perf_count,
	TP_PROTO(unsigned long long runtime, int cpu),
	TP_ARGS(__perf_count(runtime), cpu),
	TP_STRUCT__entry(
		__field(unsigned long long, runtime)
		__field(int, cpu)
	),
	TP_fast_assign(
		__entry->runtime = runtime;
		__entry->cpu = cpu;
	),
	TP_printk("runtime=%llu cpu=%d", __entry->runtime, __entry->cpu)
);

/* @cpus: trev_nr_cpumask_bits() bits as unsigned longs (a cpu_set_t holds them). */
TRACE_EVENT(tt_cpumask,
	TP_PROTO(int id, const unsigned long *cpus),
	TP_ARGS(id, cpus),
	TP_STRUCT__entry(
		__field(int, id)
		__cpumask(cpus)
	),
	TP_fast_assign(
		__entry->id = id;
		__assign_cpumask(cpus, cpus);
	),
	TP_printk("id=%d cpus=%s", __entry->id, __get_cpumask(cpus))
);

/* @va points at the caller's va_list (the kernel's struct va_format idiom). */
TRACE_EVENT(tt_vstr,
	TP_PROTO(int level, const char *fmt, va_list *va),
	TP_ARGS(level, fmt, va),
	TP_STRUCT__entry(
		__field(int, level)
		__vstring(msg, fmt, va)
	),
	TP_fast_assign(
		__entry->level = level;
		__assign_vstr(msg, fmt, va);
	),
	TP_printk("level=%d msg=%s", __entry->level, __get_str(msg))
);

TRACE_EVENT(tt_rel,
	TP_PROTO(const char *name, const char *tag, int tag_len, const int *vals, int n,
		 const unsigned long *bits, int nr_bits, const unsigned long *cpus),
	TP_ARGS(name, tag, tag_len, vals, n, bits, nr_bits, cpus),
	TP_STRUCT__entry(
		__field(int, n)
		__rel_string(name, name)
		__rel_string_len(tag, tag, tag_len)
		__rel_dynamic_array(int, vals, n)
		__rel_bitmask(bits, nr_bits)
		__rel_cpumask(cpus)
	),
	TP_fast_assign(
		__entry->n = n;
		__assign_rel_str(name, name);
		__assign_rel_str_len(tag, tag, tag_len);
		memcpy(__get_rel_dynamic_array(vals), vals, n * sizeof(int));
		__assign_rel_bitmask(bits, bits, nr_bits);
		__assign_rel_cpumask(cpus, cpus);
	),
	TP_printk("name=%s tag=%s n=%d vals=%s bits=%s cpus=%s", __get_rel_str(name),
		  __get_rel_str(tag), __get_rel_dynamic_array_len(vals) / 4,
		  __print_array(__get_rel_dynamic_array(vals),
				__get_rel_dynamic_array_len(vals) / 4, 4),
		  __get_rel_bitmask(bits), __get_rel_cpumask(cpus))
);

TRACE_EVENT(tt_dynprint,
	TP_PROTO(const unsigned int *vals, int n),
	TP_ARGS(vals, n),
	TP_STRUCT__entry(
		__dynamic_array(unsigned int, vals, n)
	),
	TP_fast_assign(
		memcpy(__get_dynamic_array(vals), vals, n * sizeof(*vals));
	),
	TP_printk("vals=%s", __print_dynamic_array(vals, sizeof(unsigned int)))
);

DECLARE_TRACE(tt_bare,
	TP_PROTO(int v, const char *s),
	TP_ARGS(v, s));

#endif /* _TRACE_TREV_TEST_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE trev_test_events

#include <trev/define_trace.h>
