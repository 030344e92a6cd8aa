/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Include this at the bottom of an event header, outside its include guard,
 * as the kernel's <trace/define_trace.h>. In the one file that defines
 * CREATE_TRACE_POINTS it reads the header again once per stage
 * (include/trev/stages/) to define the tracepoints, the record layouts, the
 * probes, the output functions and the event descriptors; everywhere else it
 * does nothing.
 *
 * The header is found as TRACE_INCLUDE_PATH/TRACE_INCLUDE_FILE.h, the file
 * name defaulting to TRACE_SYSTEM and the header to
 * <trace/events/TRACE_INCLUDE_FILE.h>, as in the kernel: a program keeps its
 * event headers in a trace/events/ directory on its include path.
 *
 * No include guard: read once per event header.
 */
#ifdef CREATE_TRACE_POINTS

/* Prevent recursion */
#undef CREATE_TRACE_POINTS

/*
 * Everything the generated code needs is included here, before the event
 * header is read again. In C++ the first libstdc++ header of a file
 * (<stdlib.h>) #undefs min and max (bits/c++config.h);
 * a program that defined its own before including its event header keeps
 * them.
 */
#pragma push_macro("min")
#pragma push_macro("max")

/* The probe arrays are read under trev's RCU, inlined. */
#include <trev/rcu.h>
#include <stdlib.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <trev/trace_event.h>

#pragma pop_macro("max")
#pragma pop_macro("min")

/* Pass 1: define every tracepoint of the header. */
#undef TRACE_EVENT
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)			\
	DEFINE_TRACE_EVENT_FN(name, name, NULL, NULL, PARAMS(proto), PARAMS(args))
#undef TRACE_EVENT_CONDITION
#define TRACE_EVENT_CONDITION(name, proto, args, cond, tstruct, assign, print)	\
	TRACE_EVENT(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct),		\
		    PARAMS(assign), PARAMS(print))
#undef TRACE_EVENT_FN
#define TRACE_EVENT_FN(name, proto, args, tstruct, assign, print, reg, unreg)	\
	DEFINE_TRACE_EVENT_FN(name, name, reg, unreg, PARAMS(proto), PARAMS(args))
#undef TRACE_EVENT_FN_COND
#define TRACE_EVENT_FN_COND(name, proto, args, cond, tstruct, assign, print, reg, unreg) \
	DEFINE_TRACE_EVENT_FN(name, name, reg, unreg, PARAMS(proto), PARAMS(args))
#undef DEFINE_EVENT
#define DEFINE_EVENT(template, name, proto, args)				\
	DEFINE_TRACE_EVENT_FN(name, template, NULL, NULL, PARAMS(proto), PARAMS(args))
#undef DEFINE_EVENT_FN
#define DEFINE_EVENT_FN(template, name, proto, args, reg, unreg)		\
	DEFINE_TRACE_EVENT_FN(name, template, reg, unreg, PARAMS(proto), PARAMS(args))
#undef DEFINE_EVENT_PRINT
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)			\
	DEFINE_EVENT(template, name, PARAMS(proto), PARAMS(args))
#undef DEFINE_EVENT_CONDITION
#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond)		\
	DEFINE_EVENT(template, name, PARAMS(proto), PARAMS(args))
#undef DECLARE_TRACE
#define DECLARE_TRACE(name, proto, args)					\
	DEFINE_TRACE(name, PARAMS(proto), PARAMS(args))
#undef DECLARE_TRACE_CONDITION
#define DECLARE_TRACE_CONDITION(name, proto, args, cond)			\
	DEFINE_TRACE(name, PARAMS(proto), PARAMS(args))
/* The _NOP forms define nothing in any pass (their trace_<name>() is inline). */
#undef TRACE_EVENT_NOP
#define TRACE_EVENT_NOP(name, proto, args, tstruct, assign, print)
#undef DEFINE_EVENT_NOP
#define DEFINE_EVENT_NOP(template, name, proto, args)
#undef DECLARE_EVENT_NOP
#define DECLARE_EVENT_NOP(name, proto, args)
#undef DECLARE_EVENT_CLASS_NOP
#define DECLARE_EVENT_CLASS_NOP(name, proto, args, tstruct, assign, print)

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
# define __TRACE_INCLUDE(system) __trev_stringify(TRACE_INCLUDE_PATH/system.h)
#endif

# define TRACE_INCLUDE(system) __TRACE_INCLUDE(system)

/* Let the trace headers be reread */
#define TRACE_HEADER_MULTI_READ

#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

/* Open-coded DECLARE_TRACE()s have nothing more to generate. */
#undef DECLARE_TRACE
#define DECLARE_TRACE(name, proto, args)
#undef DECLARE_TRACE_CONDITION
#define DECLARE_TRACE_CONDITION(name, proto, args, cond)

/* The stages see every event form as a class plus its events. */
#undef TRACE_EVENT
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)			\
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args),			\
			    PARAMS(tstruct), PARAMS(assign), PARAMS(print))	\
	DEFINE_EVENT(name, name, PARAMS(proto), PARAMS(args))
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

/* Generated code names parameters it may not use (as the kernel's does). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

#include <trev/stages/stage1_struct_define.h>
#include <trev/stages/init.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)
#include <trev/stages/stage2_data_offsets.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)
#include <trev/stages/stage3_trace_output.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)
#include <trev/stages/stage4_event_fields.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)
#include <trev/stages/stage5_get_offsets.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)
#include <trev/stages/stage6_event_callback.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)
#include <trev/stages/stage7_class_define.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#pragma GCC diagnostic pop

/*
 * Once per file: tell the library about this object's events when it is
 * loaded and unloaded. The section bounds are this object's own (hidden),
 * so a program and each shared object it loads register separately.
 */
#ifndef TREV_MODULE_REGISTERED
#define TREV_MODULE_REGISTERED
TREV_EXTERN_C struct trev_event_call *const __start___trev_events[]
	__attribute__((weak, visibility("hidden")));
TREV_EXTERN_C struct trev_event_call *const __stop___trev_events[]
	__attribute__((weak, visibility("hidden")));
TREV_EXTERN_C struct trev_tracepoint *const __start___trev_tracepoints[]
	__attribute__((weak, visibility("hidden")));
TREV_EXTERN_C struct trev_tracepoint *const __stop___trev_tracepoints[]
	__attribute__((weak, visibility("hidden")));
TREV_EXTERN_C const struct trev_eval_map *const __start___trev_eval_map[]
	__attribute__((weak, visibility("hidden")));
TREV_EXTERN_C const struct trev_eval_map *const __stop___trev_eval_map[]
	__attribute__((weak, visibility("hidden")));

static const struct trev_module __trev_module = {
	TREV_ABI_HDR(struct trev_module),
	__start___trev_events, __stop___trev_events,
	__start___trev_tracepoints, __stop___trev_tracepoints,
	__start___trev_eval_map, __stop___trev_eval_map
};

static void __attribute__((constructor)) __trev_notrace trev_module_init(void)
{
	trev_module_register(&__trev_module);
}

static void __attribute__((destructor)) __trev_notrace trev_module_exit(void)
{
	trev_module_unregister(&__trev_module);
}
#endif /* TREV_MODULE_REGISTERED */

/* Every hook back to undefined; the next event header starts afresh. */
#include <trev/stages/stage0_reset.h>
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT
#undef DEFINE_EVENT_FN
#undef DEFINE_EVENT_CONDITION
#undef TRACE_EVENT
#undef TRACE_EVENT_FN
#undef TRACE_EVENT_FN_COND
#undef TRACE_EVENT_CONDITION
#undef DECLARE_TRACE
#undef DECLARE_TRACE_CONDITION
#undef TRACE_EVENT_NOP
#undef DEFINE_EVENT_NOP
#undef DECLARE_EVENT_NOP
#undef DECLARE_EVENT_CLASS_NOP
#undef __field
#undef __field_ext
#undef __field_struct
#undef __field_struct_ext
#undef __array
#undef __dynamic_array
#undef __string
#undef __string_len
#undef __bitmask
#undef __cpumask
#undef __vstring
#undef __rel_dynamic_array
#undef __rel_string
#undef __rel_string_len
#undef __rel_bitmask
#undef __rel_cpumask
#undef __entry
#undef __get_dynamic_array
#undef __get_dynamic_array_len
#undef __get_str
#undef __get_bitmask
#undef __get_cpumask
#undef __get_rel_dynamic_array
#undef __get_rel_dynamic_array_len
#undef __get_rel_str
#undef __get_rel_bitmask
#undef __get_rel_cpumask
#undef __print_flags_u64
#undef __print_symbolic_u64
#undef __assign_str
#undef __assign_str_len
#undef __assign_bitmask
#undef __assign_cpumask
#undef __assign_vstr
#undef __assign_rel_str
#undef __assign_rel_str_len
#undef __assign_rel_bitmask
#undef __assign_rel_cpumask
#undef TP_STRUCT__entry
#undef TP_fast_assign
#undef TP_printk
#undef TREV_SYSTEM_STRING
#undef __TREV_RAW_OUTPUT
#undef __TREV_ON_STACK
#undef __TREV_DEFINE_EVAL
#undef __TREV_DEFINE_EVAL_1
#undef TRACE_HEADER_MULTI_READ

/* Only undef what we defined in this file */
#ifdef UNDEF_TRACE_INCLUDE_FILE
# undef TRACE_INCLUDE_FILE
# undef UNDEF_TRACE_INCLUDE_FILE
#endif

#ifdef UNDEF_TRACE_INCLUDE_PATH
# undef TRACE_INCLUDE_PATH
# undef UNDEF_TRACE_INCLUDE_PATH
#endif

/* We may be processing more files */
#define CREATE_TRACE_POINTS

#endif /* CREATE_TRACE_POINTS */
