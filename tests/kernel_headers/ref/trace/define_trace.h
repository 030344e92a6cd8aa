/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The reference side's <trace/define_trace.h> (ours): in the one file that defines
 * CREATE_TRACE_POINTS, read the event header again through the kernel's own stage headers
 * (include/trace/stages/ from linux-source-6.1, extracted at test time) to get what the
 * kernel's `format` files are made of:
 *
 *	init.h		TRACE_SYSTEM_STRING and the TRACE_DEFINE_ENUM/SIZEOF maps
 *	stage 1		struct trace_event_raw_<class> (checks the stand-ins; maps defined here)
 *	stage 4		static struct trace_event_fields trace_event_fields_<class>[]
 *	stage 7		static char print_fmt_<class>[] (TP_printk stringified, __entry = REC)
 *
 * The kernel's include/trace/trace_events.h does the same with every stage; the descriptor
 * glue below (kh_ref_class, kh_ref_event, the kh_ref_events section) is ours, and only carries
 * the stages' output to ref_main.c, which prints it as kernel/trace/trace_events.c does.
 */
#ifdef CREATE_TRACE_POINTS
#undef CREATE_TRACE_POINTS

#include <linux/trace_events.h>

#undef TRACE_INCLUDE
#undef __TRACE_INCLUDE
#ifndef TRACE_INCLUDE_FILE
# define TRACE_INCLUDE_FILE TRACE_SYSTEM
# define UNDEF_TRACE_INCLUDE_FILE
#endif
#ifndef TRACE_INCLUDE_PATH
# define __TRACE_INCLUDE(system) <trace/events/system.h>
# define UNDEF_TRACE_INCLUDE_PATH
#else
# define __TRACE_INCLUDE(system) __stringify(TRACE_INCLUDE_PATH/system.h)
#endif
#define TRACE_INCLUDE(system) __TRACE_INCLUDE(system)

#define TRACE_HEADER_MULTI_READ

/* Every event form as a class and its events, as the kernel's define_trace.h and trace_events.h. */
#undef TRACE_EVENT
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)			\
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct),	\
			    PARAMS(assign), PARAMS(print))			\
	DEFINE_EVENT(name, name, PARAMS(proto), PARAMS(args))
#undef TRACE_EVENT_CONDITION
#define TRACE_EVENT_CONDITION(name, proto, args, cond, tstruct, assign, print)	\
	TRACE_EVENT(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct),		\
		    PARAMS(assign), PARAMS(print))
#undef TRACE_EVENT_FN
#define TRACE_EVENT_FN(name, proto, args, tstruct, assign, print, reg, unreg)	\
	TRACE_EVENT(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct),		\
		    PARAMS(assign), PARAMS(print))
#undef TRACE_EVENT_FN_COND
#define TRACE_EVENT_FN_COND(name, proto, args, cond, tstruct, assign, print, reg, unreg) \
	TRACE_EVENT(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct),		\
		    PARAMS(assign), PARAMS(print))
#undef DEFINE_EVENT_FN
#define DEFINE_EVENT_FN(template, name, proto, args, reg, unreg)		\
	DEFINE_EVENT(template, name, PARAMS(proto), PARAMS(args))
#undef DEFINE_EVENT_CONDITION
#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond)		\
	DEFINE_EVENT(template, name, PARAMS(proto), PARAMS(args))
#undef TRACE_EVENT_NOP
#define TRACE_EVENT_NOP(name, proto, args, tstruct, assign, print)
#undef DEFINE_EVENT_NOP
#define DEFINE_EVENT_NOP(template, name, proto, args)
#undef DECLARE_EVENT_CLASS_NOP
#define DECLARE_EVENT_CLASS_NOP(name, proto, args, tstruct, assign, print)
#undef DECLARE_TRACE
#define DECLARE_TRACE(name, proto, args)
#undef DECLARE_TRACE_CONDITION
#define DECLARE_TRACE_CONDITION(name, proto, args, cond)
#undef TRACE_EVENT_FLAGS
#define TRACE_EVENT_FLAGS(name, value)
#undef TRACE_EVENT_PERF_PERM
#define TRACE_EVENT_PERF_PERM(name, expr...)

#ifndef TRACE_SYSTEM_VAR
#define TRACE_SYSTEM_VAR TRACE_SYSTEM
#endif

#include <trace/stages/init.h>

/* Stage 1: the record, and (init.h's TRACE_DEFINE_ENUM) the eval maps. */
#include <trace/stages/stage1_struct_define.h>
#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)		\
	struct trace_event_raw_##name {						\
		struct trace_entry ent;						\
		tstruct								\
		char __data[];							\
	};
#undef DEFINE_EVENT
#define DEFINE_EVENT(template, name, proto, args)
#undef DEFINE_EVENT_PRINT
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

/* The maps are made once (the kernel's stage 2 does this). */
#undef TRACE_DEFINE_ENUM
#define TRACE_DEFINE_ENUM(a)
#undef TRACE_DEFINE_SIZEOF
#define TRACE_DEFINE_SIZEOF(a)

/* Stage 4: the field list. */
#include <trace/stages/stage4_event_fields.h>
#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)		\
	static struct trace_event_fields trace_event_fields_##call[] = {	\
		tstruct								\
		{} };
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

/* Stage 7: the print fmt, and our descriptors. */
#include <trace/stages/stage7_class_define.h>
#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)		\
	static char print_fmt_##call[] = print;					\
	static struct kh_ref_class event_class_##call = {			\
		TRACE_SYSTEM_STRING, trace_event_fields_##call			\
	};
#undef DEFINE_EVENT
#define DEFINE_EVENT(template, call, proto, args)				\
	static struct kh_ref_event event_##call = {				\
		&event_class_##template, #call, print_fmt_##template		\
	};									\
	static struct kh_ref_event *__kh_ref_event_##call			\
		__attribute__((used, section("kh_ref_events"))) = &event_##call;
#undef DEFINE_EVENT_PRINT
#define DEFINE_EVENT_PRINT(template, call, proto, args, print)			\
	static char print_fmt_##call[] = print;					\
	static struct kh_ref_event event_##call = {				\
		&event_class_##template, #call, print_fmt_##call		\
	};									\
	static struct kh_ref_event *__kh_ref_event_##call			\
		__attribute__((used, section("kh_ref_events"))) = &event_##call;
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#undef TRACE_EVENT
#undef TRACE_EVENT_FN
#undef TRACE_EVENT_FN_COND
#undef TRACE_EVENT_CONDITION
#undef TRACE_EVENT_NOP
#undef DEFINE_EVENT_NOP
#undef DECLARE_EVENT_CLASS_NOP
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_FN
#undef DEFINE_EVENT_PRINT
#undef DEFINE_EVENT_CONDITION
#undef DECLARE_TRACE
#undef DECLARE_TRACE_CONDITION
#undef TRACE_EVENT_FLAGS
#undef TRACE_EVENT_PERF_PERM
#undef TRACE_DEFINE_ENUM
#undef TRACE_DEFINE_SIZEOF
#undef TRACE_HEADER_MULTI_READ
#undef TRACE_SYSTEM_VAR

#ifdef UNDEF_TRACE_INCLUDE_FILE
# undef TRACE_INCLUDE_FILE
# undef UNDEF_TRACE_INCLUDE_FILE
#endif
#ifdef UNDEF_TRACE_INCLUDE_PATH
# undef TRACE_INCLUDE_PATH
# undef UNDEF_TRACE_INCLUDE_PATH
#endif

#define CREATE_TRACE_POINTS
#endif /* CREATE_TRACE_POINTS */
