/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stage reset: every hook an event header uses, defined empty. Each stage
 * includes this first and then defines only the hooks it expands; what it
 * does not define stays empty for its pass over the event header.
 *
 * No include guard: read once per stage.
 */
#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#undef DEFINE_EVENT
#define DEFINE_EVENT(template, name, proto, args)
#undef DEFINE_EVENT_PRINT
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)

#undef __field
#define __field(type, item)
#undef __field_ext
#define __field_ext(type, item, filter_type)
#undef __field_struct
#define __field_struct(type, item)
#undef __field_struct_ext
#define __field_struct_ext(type, item, filter_type)
#undef __array
#define __array(type, item, len)
#undef __dynamic_array
#define __dynamic_array(type, item, len)
#undef __string
#define __string(item, src)
#undef __string_len
#define __string_len(item, src, len)
#undef __bitmask
#define __bitmask(item, nr_bits)
#undef __cpumask
#define __cpumask(item)
#undef __vstring
#define __vstring(item, fmt, ap)
#undef __rel_dynamic_array
#define __rel_dynamic_array(type, item, len)
#undef __rel_string
#define __rel_string(item, src)
#undef __rel_string_len
#define __rel_string_len(item, src, len)
#undef __rel_bitmask
#define __rel_bitmask(item, nr_bits)
#undef __rel_cpumask
#define __rel_cpumask(item)

/* Only stage init (init.h) emits them. */
#undef TRACE_DEFINE_ENUM
#define TRACE_DEFINE_ENUM(a)
#undef TRACE_DEFINE_SIZEOF
#define TRACE_DEFINE_SIZEOF(a)

#undef TP_STRUCT__entry
#define TP_STRUCT__entry(args...)	args
#undef TP_fast_assign
#define TP_fast_assign(args...)		args
#undef TP_printk
#define TP_printk(fmt, args...)		fmt, ##args
