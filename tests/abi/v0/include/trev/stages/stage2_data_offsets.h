/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stage 2: where the dynamic fields of one record go, computed before the
 * record is reserved.
 *
 *	struct trev_event_data_offsets_<class> {
 *		uint32_t msg;				(length << 16) | offset
 *		const void *msg_ptr_;			__string's source, for __assign_str
 *	};
 *
 * The word is the record's __data_loc or __rel_loc word, ready to store.
 */
#include <trev/stages/stage0_reset.h>

#undef __dynamic_array
#define __dynamic_array(type, item, len)	uint32_t item;
#undef __string
#define __string(item, src)			uint32_t item; const void *item##_ptr_;
#undef __string_len
#define __string_len(item, src, len)		uint32_t item; const void *item##_ptr_;
#undef __bitmask
#define __bitmask(item, nr_bits)		uint32_t item;
#undef __cpumask
#define __cpumask(item)				uint32_t item;
#undef __vstring
#define __vstring(item, fmt, ap)		uint32_t item;
#undef __rel_dynamic_array
#define __rel_dynamic_array(type, item, len)	uint32_t item;
#undef __rel_string
#define __rel_string(item, src)			uint32_t item; const void *item##_ptr_;
#undef __rel_string_len
#define __rel_string_len(item, src, len)	uint32_t item; const void *item##_ptr_;
#undef __rel_bitmask
#define __rel_bitmask(item, nr_bits)		uint32_t item;
#undef __rel_cpumask
#define __rel_cpumask(item)			uint32_t item;

#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)		\
	struct trev_event_data_offsets_##name {					\
		tstruct								\
		char __trev_unused;						\
	};
