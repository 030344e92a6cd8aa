/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stage 4: the field list of each class, for the format file and filters.
 *
 *	static int trev_event_define_fields_<class>(struct trev_event_call *event_call)
 *	{
 *		struct trev_event_raw_<class> field;
 *		int ret = 0;
 *
 *		ret = trev_event_define_field(event_call, "int", "count",
 *			offsetof(struct trev_event_raw_<class>, count),
 *			sizeof(field.count), trev_is_signed_type(int), TREV_FILTER_OTHER);
 *		if (ret)
 *			return ret;
 *		...
 *		return ret;
 *	}
 *
 * Arrays are described as "type[len]", dynamic fields as "__data_loc type[]"
 * or "__rel_loc type[]", cpumasks as "__data_loc cpumask_t" or
 * "__rel_loc cpumask_t" (unsigned), as the kernel's stage 4 names them.
 */
#include <trev/stages/stage0_reset.h>

#undef __field_ext
#define __field_ext(_type, _item, _filter_type)					\
	ret = trev_event_define_field(event_call, #_type, #_item,		\
				      (int)offsetof(__typeof__(field), _item),	\
				      (int)sizeof(field._item),			\
				      trev_is_signed_type(_type), _filter_type);	\
	if (ret)								\
		return ret;
/* Each macro stringifies its own arguments: forwarding would expand them (bool -> _Bool). */
#undef __field
#define __field(_type, _item)							\
	ret = trev_event_define_field(event_call, #_type, #_item,		\
				      (int)offsetof(__typeof__(field), _item),	\
				      (int)sizeof(field._item),			\
				      trev_is_signed_type(_type), TREV_FILTER_OTHER); \
	if (ret)								\
		return ret;
#undef __field_struct_ext
#define __field_struct_ext(_type, _item, _filter_type)				\
	ret = trev_event_define_field(event_call, #_type, #_item,		\
				      (int)offsetof(__typeof__(field), _item),	\
				      (int)sizeof(field._item), 0, _filter_type);	\
	if (ret)								\
		return ret;
#undef __field_struct
#define __field_struct(_type, _item)						\
	ret = trev_event_define_field(event_call, #_type, #_item,		\
				      (int)offsetof(__typeof__(field), _item),	\
				      (int)sizeof(field._item), 0, TREV_FILTER_OTHER); \
	if (ret)								\
		return ret;
#undef __array
#define __array(_type, _item, _len)						\
	ret = trev_event_define_array(event_call, #_type, #_item,		\
				      (int)offsetof(__typeof__(field), _item),	\
				      (int)sizeof(field._item),			\
				      (int)sizeof(field._item[0]),		\
				      trev_is_signed_type(_type));		\
	if (ret)								\
		return ret;
#undef __dynamic_array
#define __dynamic_array(_type, _item, _len)					\
	ret = trev_event_define_field(event_call, "__data_loc " #_type "[]", #_item, \
				      (int)offsetof(__typeof__(field), __data_loc_##_item), \
				      4, trev_is_signed_type(_type), TREV_FILTER_OTHER); \
	if (ret)								\
		return ret;
#undef __string
#define __string(item, src)		__dynamic_array(char, item, -1)
#undef __string_len
#define __string_len(item, src, len)	__dynamic_array(char, item, -1)
#undef __bitmask
#define __bitmask(item, nr_bits)	__dynamic_array(unsigned long, item, -1)
#undef __vstring
#define __vstring(item, fmt, ap)	__dynamic_array(char, item, -1)
#undef __cpumask
#define __cpumask(_item)							\
	ret = trev_event_define_field(event_call, "__data_loc cpumask_t", #_item, \
				      (int)offsetof(__typeof__(field), __data_loc_##_item), \
				      4, 0, TREV_FILTER_OTHER);			\
	if (ret)								\
		return ret;
#undef __rel_dynamic_array
#define __rel_dynamic_array(_type, _item, _len)					\
	ret = trev_event_define_field(event_call, "__rel_loc " #_type "[]", #_item, \
				      (int)offsetof(__typeof__(field), __rel_loc_##_item), \
				      4, trev_is_signed_type(_type), TREV_FILTER_OTHER); \
	if (ret)								\
		return ret;
#undef __rel_string
#define __rel_string(item, src)		__rel_dynamic_array(char, item, -1)
#undef __rel_string_len
#define __rel_string_len(item, src, len) __rel_dynamic_array(char, item, -1)
#undef __rel_bitmask
#define __rel_bitmask(item, nr_bits)	__rel_dynamic_array(unsigned long, item, -1)
#undef __rel_cpumask
#define __rel_cpumask(_item)							\
	ret = trev_event_define_field(event_call, "__rel_loc cpumask_t", #_item, \
				      (int)offsetof(__typeof__(field), __rel_loc_##_item), \
				      4, 0, TREV_FILTER_OTHER);			\
	if (ret)								\
		return ret;

#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)		\
	static __attribute__((unused)) __trev_notrace int			\
	trev_event_define_fields_##call(struct trev_event_call *event_call)	\
	{									\
		struct trev_event_raw_##call field;				\
		int ret = 0;							\
										\
		(void)field;							\
		tstruct								\
		return ret;							\
	}
