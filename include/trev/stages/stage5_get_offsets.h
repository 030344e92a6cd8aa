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
 *		return __data_size;
 *	}
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

#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)		\
	static inline __attribute__((unused)) unsigned int			\
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
