/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stage 6: the event probe, registered on the tracepoint when the event is
 * enabled; @__data is the event's file (the event in one trace instance).
 *
 * A record of fixed size up to TREV_EVENT_STACK_MAX bytes is built on the
 * probe's stack and handed over whole: one call, which records it or drops
 * it (a filter that rejects it costs no time stamp and no reservation). Its
 * fields start zeroed, so padding carries no stack contents into the trace,
 * and a TP_fast_assign that reads a field before writing it (seed 004's
 * `__entry->count++`) finds 0, as in a fresh ring page. The common fields
 * are left alone: trev_event_write() fills them wherever they are read.
 * A record with dynamic fields is sized, reserved and filled in place.
 *
 *	static void trev_event_raw_event_<class>(void *__data, proto)
 *	{
 *		struct trev_event_data_offsets_<class> __data_offsets;
 *		struct trev_event_raw_<class> *entry;
 *		struct trev_event_buffer __fbuffer;
 *		unsigned int __data_size;
 *		char __stack_entry[on stack ? sizeof(*entry) : 1];
 *
 *		__data_size = trev_event_get_offsets_<class>(&__data_offsets, args);
 *		if (on stack) {					a compile-time constant
 *			entry = (void *)__stack_entry;
 *			memset(&entry->ent + 1, 0, sizeof(*entry) - sizeof(entry->ent));
 *		} else {
 *			entry = trev_event_buffer_reserve(&__fbuffer, __data,
 *							  sizeof(*entry) + __data_size);
 *			if (!entry)
 *				return;
 *		}
 *		entry->__data_loc_msg = __data_offsets.msg;	dynamic fields
 *		entry->__rel_loc_name = __data_offsets.name;	(both kinds)
 *		{ TP_fast_assign }
 *		if (on stack)
 *			trev_event_write(__data, entry, sizeof(*entry));
 *		else
 *			trev_event_buffer_commit(&__fbuffer);
 *	}
 */
#include <trev/stages/stage0_reset.h>

#undef __entry
#define __entry entry

#include <trev/stages/getters.h>

#undef __get_bitmask
#define __get_bitmask(field)	((unsigned long *)__get_dynamic_array(field))

#undef __assign_str
#define __assign_str(dst, ...)							\
	trev_assign_str(__get_str(dst), __data_offsets.dst##_ptr_,		\
			(unsigned int)__get_dynamic_array_len(dst))
#undef __assign_str_len
#define __assign_str_len(dst, src, len)	__assign_str(dst)
#undef __assign_bitmask
#define __assign_bitmask(dst, src, nr_bits)					\
	memcpy(__get_bitmask(dst), (src), trev_bitmask_size_in_bytes(nr_bits))

/* @src: the CPUs as unsigned longs (a cpu_set_t *), trev_nr_cpumask_bits() of them. */
#undef __get_cpumask
#define __get_cpumask(field)	((unsigned long *)__get_dynamic_array(field))
#undef __assign_cpumask
#define __assign_cpumask(dst, src)						\
	memcpy(__get_cpumask(dst), (src), (size_t)__get_dynamic_array_len(dst))

/* @va: a va_list *, as __vstring() measured it with; it is copied, not consumed. */
#undef __assign_vstr
#define __assign_vstr(dst, fmt, va)						\
	trev_assign_vstr(__get_str(dst), (unsigned int)__get_dynamic_array_len(dst), \
			 fmt, va)

#undef __assign_rel_str
#define __assign_rel_str(dst, ...)						\
	trev_assign_str(__get_rel_str(dst), __data_offsets.dst##_ptr_,		\
			(unsigned int)__get_rel_dynamic_array_len(dst))
#undef __assign_rel_str_len
#define __assign_rel_str_len(dst, src, len)	__assign_rel_str(dst)
#undef __get_rel_bitmask
#define __get_rel_bitmask(field)	((unsigned long *)__get_rel_dynamic_array(field))
#undef __assign_rel_bitmask
#define __assign_rel_bitmask(dst, src, nr_bits)					\
	memcpy(__get_rel_bitmask(dst), (src), trev_bitmask_size_in_bytes(nr_bits))
#undef __get_rel_cpumask
#define __get_rel_cpumask(field)	__get_rel_bitmask(field)
#undef __assign_rel_cpumask
#define __assign_rel_cpumask(dst, src)						\
	memcpy(__get_rel_cpumask(dst), (src), (size_t)__get_rel_dynamic_array_len(dst))

#undef __dynamic_array
#define __dynamic_array(type, item, len)					\
	__entry->__data_loc_##item = __data_offsets.item;
#undef __string
#define __string(item, src)		__dynamic_array(char, item, -1)
#undef __string_len
#define __string_len(item, src, len)	__dynamic_array(char, item, -1)
#undef __bitmask
#define __bitmask(item, nr_bits)	__dynamic_array(unsigned long, item, -1)
#undef __cpumask
#define __cpumask(item)			__dynamic_array(unsigned long, item, -1)
#undef __vstring
#define __vstring(item, fmt, ap)	__dynamic_array(char, item, -1)
#undef __rel_dynamic_array
#define __rel_dynamic_array(type, item, len)					\
	__entry->__rel_loc_##item = __data_offsets.item;
#undef __rel_string
#define __rel_string(item, src)		__rel_dynamic_array(char, item, -1)
#undef __rel_string_len
#define __rel_string_len(item, src, len) __rel_dynamic_array(char, item, -1)
#undef __rel_bitmask
#define __rel_bitmask(item, nr_bits)	__rel_dynamic_array(unsigned long, item, -1)
#undef __rel_cpumask
#define __rel_cpumask(item)		__rel_dynamic_array(unsigned long, item, -1)

/* Fixed size (no dynamic field: the offsets hold only their placeholder) and small. */
#undef __TREV_ON_STACK
#define __TREV_ON_STACK(call)							\
	(sizeof(struct trev_event_data_offsets_##call) == 1 &&			\
	 sizeof(struct trev_event_raw_##call) <= TREV_EVENT_STACK_MAX)

#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)		\
	static __attribute__((unused)) __trev_notrace void			\
	trev_event_raw_event_##call(void *__data, proto)			\
	{									\
		struct trev_event_data_offsets_##call __data_offsets;		\
		struct trev_event_raw_##call *entry;				\
		struct trev_event_buffer __fbuffer;				\
		unsigned int __data_size;					\
		char __stack_entry[__TREV_ON_STACK(call) ?			\
				   sizeof(struct trev_event_raw_##call) : 1]	\
			__attribute__((aligned(__alignof__(struct trev_event_raw_##call)))); \
										\
		__data_size = trev_event_get_offsets_##call(&__data_offsets, args); \
		if (__TREV_ON_STACK(call)) {					\
			entry = (struct trev_event_raw_##call *)(void *)__stack_entry; \
			memset(&entry->ent + 1, 0,				\
			       sizeof(*entry) - sizeof(entry->ent));		\
		} else {							\
			entry = (struct trev_event_raw_##call *)		\
				trev_event_buffer_reserve(&__fbuffer,		\
					(struct trev_event_file *)__data,	\
					(unsigned int)sizeof(*entry) + __data_size); \
			if (!entry)						\
				return;						\
		}								\
		tstruct								\
		{ assign; }							\
		if (__TREV_ON_STACK(call))					\
			trev_event_write((struct trev_event_file *)__data, entry, \
					 (unsigned int)sizeof(*entry));		\
		else								\
			trev_event_buffer_commit(&__fbuffer);			\
	}
