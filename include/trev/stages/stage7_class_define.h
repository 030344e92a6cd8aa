/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stage 7: the class and event descriptors, the print fmt text, and the
 * section entry through which the library finds each event.
 *
 *	static const char trev_print_fmt_<class>[] =
 *		"\"count=%d\", REC->count";		TP_printk, __entry spelt REC
 *	static const struct trev_event_class trev_event_class_<class> = {
 *		TREV_ABI_HDR(struct trev_event_class), "xhr_test", trev_event_raw_event_<class>,
 *		trev_event_define_fields_<class>, sizeof(struct trev_event_raw_<class>)
 *	};
 *	static struct trev_event_call trev_event_<event> = {
 *		TREV_ABI_HDR(struct trev_event_call), &trev_event_class_<class>, "te_test", &__tracepoint_te_test,
 *		trev_print_fmt_<class>, trev_raw_output_<class>, 0, 0, NULL
 *	};
 *	static struct trev_event_call *const trev_event_ptr_<event>
 *		__attribute__((used, section("__trev_events"))) = &trev_event_<event>;
 */
#include <trev/stages/stage0_reset.h>

/*
 * The print fmt is TP_printk's text as written, with __entry spelt REC and
 * the helpers (__get_str, __print_flags, ...) left for libtraceevent to
 * interpret: they are not macros in this stage.
 */
#undef __entry
#define __entry REC
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
#undef __print_flags
#undef __print_symbolic
/* As the kernel: on 64-bit, the _u64 forms are the plain ones in print fmt. */
#undef __print_flags_u64
#undef __print_symbolic_u64
#if __SIZEOF_LONG__ == 8
#define __print_flags_u64(flag, delim, flag_array...)	__print_flags(flag, delim, flag_array)
#define __print_symbolic_u64(value, symbol_array...)	__print_symbolic(value, symbol_array)
#endif
#undef __print_hex
#undef __print_hex_str
#undef __print_array
#undef __print_dynamic_array

#undef TP_printk
#define TP_printk(fmt, args...)	"\"" fmt "\", " __trev_stringify(args)

#undef TREV_SYSTEM_STRING
#define TREV_SYSTEM_STRING	__trev_stringify(TRACE_SYSTEM)

#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)		\
	static const char trev_print_fmt_##call[] = print;			\
	static const struct trev_event_class trev_event_class_##call = {	\
		TREV_ABI_HDR(struct trev_event_class),				\
		TREV_SYSTEM_STRING, (void *)trev_event_raw_event_##call,	\
		trev_event_define_fields_##call,				\
		(unsigned int)sizeof(struct trev_event_raw_##call)		\
	};

#undef DEFINE_EVENT
#define DEFINE_EVENT(template, call, proto, args)				\
	static struct trev_event_call trev_event_##call = {			\
		TREV_ABI_HDR(struct trev_event_call),				\
		&trev_event_class_##template, #call, &__tracepoint_##call,	\
		trev_print_fmt_##template, trev_raw_output_##template,		\
		0, 0, NULL							\
	};									\
	static struct trev_event_call *const trev_event_ptr_##call		\
		__attribute__((used, section("__trev_events"))) = &trev_event_##call;

#undef DEFINE_EVENT_PRINT
#define DEFINE_EVENT_PRINT(template, call, proto, args, print)			\
	static const char trev_print_fmt_##call[] = print;			\
	static struct trev_event_call trev_event_##call = {			\
		TREV_ABI_HDR(struct trev_event_call),				\
		&trev_event_class_##template, #call, &__tracepoint_##call,	\
		trev_print_fmt_##call, trev_raw_output_##call,			\
		0, 0, NULL							\
	};									\
	static struct trev_event_call *const trev_event_ptr_##call		\
		__attribute__((used, section("__trev_events"))) = &trev_event_##call;
