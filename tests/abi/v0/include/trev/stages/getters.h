/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Accessors of a record's dynamic fields, for TP_fast_assign (stage 6) and
 * TP_printk (stage 3); __entry is the record in both. No include guard.
 */
#undef __get_dynamic_array
#define __get_dynamic_array(field)						\
	((void *)((char *)__entry + (__entry->__data_loc_##field & 0xffff)))
#undef __get_dynamic_array_len
#define __get_dynamic_array_len(field)						\
	((int)((__entry->__data_loc_##field >> 16) & 0xffff))
#undef __get_str
#define __get_str(field)	((char *)__get_dynamic_array(field))
/* A __rel_loc offset counts from the end of its own 4-byte word. */
#undef __get_rel_dynamic_array
#define __get_rel_dynamic_array(field)						\
	((void *)((char *)__entry +						\
		  offsetof(__typeof__(*__entry), __rel_loc_##field) +		\
		  sizeof(uint32_t) + (__entry->__rel_loc_##field & 0xffff)))
#undef __get_rel_dynamic_array_len
#define __get_rel_dynamic_array_len(field)					\
	((int)((__entry->__rel_loc_##field >> 16) & 0xffff))
#undef __get_rel_str
#define __get_rel_str(field)	((char *)__get_rel_dynamic_array(field))
