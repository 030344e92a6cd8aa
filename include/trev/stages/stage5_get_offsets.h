/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stage 5: the size of the dynamic part of one record, and where each
 * dynamic field goes in it.
 *
 *	static unsigned int trev_event_get_offsets_<class>(
 *		struct trev_event_data_offsets_<class> *__data_offsets, proto)
 *	{
 *		unsigned int __data_size = 0, __item_length;
 *		struct trev_event_raw_<class> *entry;
 *
 *		__item_length = strlen(src ? src : "(null)") + 1;	__string(msg, src)
 *		__data_offsets->msg = (__item_length << 16) |
 *			(__data_size + offsetof(..., __data));
 *		__data_size += __item_length;
 *		__data_offsets->msg_ptr_ = src;
 *		...					__rel_string(name, src): the same,
 *		__data_offsets->name = (__item_length << 16) |	counted from the
 *			(__data_size + offsetof(..., __data) -	end of its word
 *			 offsetof(..., __rel_loc_name) - 4);
 *		return __data_size;
 *	}
 *
 * A __vstring is measured by formatting it (vsnprintf into nothing), at
 * most TREV_EVENT_STR_MAX bytes; a __cpumask holds trev_nr_cpumask_bits().
 */
#include <trev/stages/stage0_reset.h>

#undef __dynamic_array
#define __dynamic_array(type, item, len)					\
	__item_length = (unsigned int)((len) * sizeof(type));			\
	__data_offsets->item = __data_size +					\
		(unsigned int)offsetof(__typeof__(*entry), __data);		\
	__data_offsets->item |= (__item_length & 0xffff) << 16;			\
	__data_size += __item_length;
#undef __string
#define __string(item, src)							\
	__dynamic_array(char, item,						\
			strlen((src) ? (const char *)(src) : "(null)") + 1)	\
	__data_offsets->item##_ptr_ = (const void *)(src);
#undef __string_len
#define __string_len(item, src, len)						\
	__dynamic_array(char, item, (len) + 1)					\
	__data_offsets->item##_ptr_ = (const void *)(src);
#undef __bitmask
#define __bitmask(item, nr_bits)						\
	__dynamic_array(unsigned long, item, trev_bitmask_size_in_longs(nr_bits))
#undef __cpumask
#define __cpumask(item)		__bitmask(item, trev_nr_cpumask_bits())
#undef __vstring
#define __vstring(item, fmt, ap)						\
	__dynamic_array(char, item, trev_event_vstr_len(fmt, ap))

#undef __rel_dynamic_array
#define __rel_dynamic_array(type, item, len)					\
	__item_length = (unsigned int)((len) * sizeof(type));			\
	__data_offsets->item = __data_size +					\
		(unsigned int)offsetof(__typeof__(*entry), __data) -		\
		(unsigned int)offsetof(__typeof__(*entry), __rel_loc_##item) -	\
		(unsigned int)sizeof(uint32_t);					\
	__data_offsets->item |= (__item_length & 0xffff) << 16;			\
	__data_size += __item_length;
#undef __rel_string
#define __rel_string(item, src)							\
	__rel_dynamic_array(char, item,						\
			    strlen((src) ? (const char *)(src) : "(null)") + 1)	\
	__data_offsets->item##_ptr_ = (const void *)(src);
#undef __rel_string_len
#define __rel_string_len(item, src, len)					\
	__rel_dynamic_array(char, item, (len) + 1)				\
	__data_offsets->item##_ptr_ = (const void *)(src);
#undef __rel_bitmask
#define __rel_bitmask(item, nr_bits)						\
	__rel_dynamic_array(unsigned long, item, trev_bitmask_size_in_longs(nr_bits))
#undef __rel_cpumask
#define __rel_cpumask(item)	__rel_bitmask(item, trev_nr_cpumask_bits())

#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)		\
	static inline __attribute__((unused)) __trev_notrace unsigned int	\
	trev_event_get_offsets_##call(						\
		struct trev_event_data_offsets_##call *__data_offsets, proto)	\
	{									\
		unsigned int __data_size = 0, __item_length;			\
		struct trev_event_raw_##call *entry;				\
										\
		(void)__item_length;						\
		(void)entry;							\
		(void)__data_offsets;						\
		tstruct								\
		return __data_size;						\
	}
