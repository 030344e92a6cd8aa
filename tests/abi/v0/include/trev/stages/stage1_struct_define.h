/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stage 1: the record layout of each event class.
 *
 *	struct trev_event_raw_<class> {
 *		struct trev_entry ent;
 *		int count;				__field(int, count)
 *		char tag[16];				__array(char, tag, 16)
 *		uint32_t __data_loc_msg;		__string(msg, src)
 *		uint32_t __rel_loc_name;		__rel_string(name, src)
 *		char __data[];				dynamic fields go here
 *	};
 *
 * A __data_loc word holds (length << 16) | offset from the record start; a
 * __rel_loc word (length << 16) | offset from the end of the word itself.
 * __string, __vstring, __bitmask and __cpumask are __data_loc arrays.
 */
#include <trev/stages/stage0_reset.h>

#undef __field
#define __field(type, item)			type item;
#undef __field_ext
#define __field_ext(type, item, filter_type)	type item;
#undef __field_struct
#define __field_struct(type, item)		type item;
#undef __field_struct_ext
#define __field_struct_ext(type, item, filter_type) type item;
#undef __array
#define __array(type, item, len)		type item[len];
#undef __dynamic_array
#define __dynamic_array(type, item, len)	uint32_t __data_loc_##item;
#undef __string
#define __string(item, src)			__dynamic_array(char, item, -1)
#undef __string_len
#define __string_len(item, src, len)		__dynamic_array(char, item, -1)
#undef __bitmask
#define __bitmask(item, nr_bits)		__dynamic_array(unsigned long, item, -1)
#undef __cpumask
#define __cpumask(item)				__dynamic_array(unsigned long, item, -1)
#undef __vstring
#define __vstring(item, fmt, ap)		__dynamic_array(char, item, -1)
#undef __rel_dynamic_array
#define __rel_dynamic_array(type, item, len)	uint32_t __rel_loc_##item;
#undef __rel_string
#define __rel_string(item, src)			__rel_dynamic_array(char, item, -1)
#undef __rel_string_len
#define __rel_string_len(item, src, len)	__rel_dynamic_array(char, item, -1)
#undef __rel_bitmask
#define __rel_bitmask(item, nr_bits)		__rel_dynamic_array(unsigned long, item, -1)
#undef __rel_cpumask
#define __rel_cpumask(item)			__rel_dynamic_array(unsigned long, item, -1)

#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)		\
	struct trev_event_raw_##name {						\
		struct trev_entry ent;						\
		tstruct								\
		char __data[];							\
	};
