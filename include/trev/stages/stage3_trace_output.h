/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stage 3: the function that prints a record as its TP_printk says.
 *
 *	static int trev_raw_output_<class>(struct trev_trace_iter *iter,
 *					   struct trev_event_call *call)
 *	{
 *		struct trev_seq *s = &iter->seq;	the line
 *		struct trev_seq *p = &iter->tmp_seq;	for __print_*() helpers
 *		struct trev_event_raw_<class> *field = (...)iter->ent;
 *
 *		trev_event_output_prep(iter, call);	"te_test: "
 *		trev_seq_printf(s, "count=%d" "\n", field->count);
 *		return 0;
 *	}
 *
 * DEFINE_EVENT_PRINT() gets a function of its own, named after the event.
 */
#include <trev/stages/stage0_reset.h>

#undef __entry
#define __entry field

#include <trev/stages/getters.h>

#undef __get_bitmask
#define __get_bitmask(field)							\
	trev_print_bitmask_seq(p, __get_dynamic_array(field),			\
			       (unsigned int)__get_dynamic_array_len(field))
#undef __get_cpumask
#define __get_cpumask(field)	__get_bitmask(field)
#undef __get_rel_bitmask
#define __get_rel_bitmask(field)						\
	trev_print_bitmask_seq(p, __get_rel_dynamic_array(field),		\
			       (unsigned int)__get_rel_dynamic_array_len(field))
#undef __get_rel_cpumask
#define __get_rel_cpumask(field)	__get_rel_bitmask(field)

#undef __print_flags
#define __print_flags(flag, delim, flag_array...)				\
	({									\
		static const struct trev_print_flags __flags[] = {		\
			flag_array, { (unsigned long)-1, NULL } };		\
		trev_print_flags_seq(p, delim, flag, __flags);			\
	})
#undef __print_symbolic
#define __print_symbolic(value, symbol_array...)				\
	({									\
		static const struct trev_print_flags __symbols[] = {		\
			symbol_array, { (unsigned long)-1, NULL } };		\
		trev_print_symbols_seq(p, value, __symbols);			\
	})
#undef __print_flags_u64
#define __print_flags_u64(flag, delim, flag_array...)				\
	({									\
		static const struct trev_print_flags_u64 __flags[] = {		\
			flag_array, { (unsigned long long)-1, NULL } };		\
		trev_print_flags_seq_u64(p, delim, flag, __flags);		\
	})
#undef __print_symbolic_u64
#define __print_symbolic_u64(value, symbol_array...)				\
	({									\
		static const struct trev_print_flags_u64 __symbols[] = {	\
			symbol_array, { (unsigned long long)-1, NULL } };	\
		trev_print_symbols_seq_u64(p, value, __symbols);		\
	})
#undef __print_hex
#define __print_hex(buf, buf_len)						\
	trev_print_hex_seq(p, (const unsigned char *)(buf), buf_len, 0)
#undef __print_hex_str
#define __print_hex_str(buf, buf_len)						\
	trev_print_hex_seq(p, (const unsigned char *)(buf), buf_len, 1)
#undef __print_array
#define __print_array(array, count, el_size)					\
	({									\
		TREV_STATIC_ASSERT((el_size) == 1 || (el_size) == 2 ||		\
			       (el_size) == 4 || (el_size) == 8,		\
			       "__print_array: el_size must be 1, 2, 4 or 8");	\
		trev_print_array_seq(p, array, count, el_size);			\
	})
#undef __print_dynamic_array
#define __print_dynamic_array(array, el_size)					\
	__print_array(__get_dynamic_array(array),				\
		      __get_dynamic_array_len(array) / (el_size), el_size)

/* One output function: @name's, reading records laid out as @layout's. */
#undef __TREV_RAW_OUTPUT
#define __TREV_RAW_OUTPUT(name, layout, print)					\
	static __attribute__((unused)) __trev_notrace int			\
	trev_raw_output_##name(struct trev_trace_iter *iter,			\
			       struct trev_event_call *trev_call)		\
	{									\
		struct trev_seq *s = &iter->seq;				\
		struct trev_seq *p = &iter->tmp_seq;				\
		struct trev_event_raw_##layout *field =				\
			(struct trev_event_raw_##layout *)(void *)iter->ent;	\
										\
		(void)p;							\
		(void)field;							\
		trev_event_output_prep(iter, trev_call);			\
		trev_seq_printf(s, print);					\
		return trev_seq_putc(s, '\n');					\
	}

#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)		\
	__TREV_RAW_OUTPUT(call, call, PARAMS(print))

#undef DEFINE_EVENT_PRINT
#define DEFINE_EVENT_PRINT(template, call, proto, args, print)			\
	__TREV_RAW_OUTPUT(call, template, PARAMS(print))
