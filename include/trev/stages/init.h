/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stage init: the names TRACE_DEFINE_ENUM() and TRACE_DEFINE_SIZEOF() ask to
 * be replaced by their values in the print fmt of the header's events (the
 * kernel's include/trace/stages/init.h). Read during stage 1's pass.
 *
 *	TRACE_DEFINE_ENUM(XHR_OPEN);
 *	static const struct trev_eval_map __trev_eval_7 =
 *		{ TREV_ABI_HDR(struct trev_eval_map), "xhr", "XHR_OPEN",
 *		  (unsigned long)(XHR_OPEN) };
 *	static const struct trev_eval_map *const __trev_eval_ptr_7
 *		__attribute__((used, section("__trev_eval_map"))) = &__trev_eval_7;
 *
 *	TRACE_DEFINE_SIZEOF(struct xhr_req);
 *		... { "xhr", "sizeof(struct xhr_req)", sizeof(struct xhr_req) } ...
 *
 * The library finds them through the section when the object registers, and
 * rewrites the print fmt of the object's events of the same TRACE_SYSTEM
 * (src/events/eval_map.c). The names carry __COUNTER__, not the argument, so
 * that "struct xhr_req" makes a valid one.
 *
 * No include guard: read once per event header; stage0_reset.h empties them.
 */
#undef TRACE_DEFINE_ENUM
#define TRACE_DEFINE_ENUM(a)							\
	__TREV_DEFINE_EVAL(__COUNTER__, #a, (unsigned long)(a))
#undef TRACE_DEFINE_SIZEOF
#define TRACE_DEFINE_SIZEOF(a)							\
	__TREV_DEFINE_EVAL(__COUNTER__, "sizeof(" #a ")", (unsigned long)sizeof(a))

/* Another level, so that __COUNTER__ is one number in both names. */
#undef __TREV_DEFINE_EVAL
#define __TREV_DEFINE_EVAL(n, str, value)	__TREV_DEFINE_EVAL_1(n, str, value)
#undef __TREV_DEFINE_EVAL_1
#define __TREV_DEFINE_EVAL_1(n, str, value)					\
	static const struct trev_eval_map __trev_eval_##n = {			\
		TREV_ABI_HDR(struct trev_eval_map),				\
		__trev_stringify(TRACE_SYSTEM), str, value			\
	};									\
	static const struct trev_eval_map *const __trev_eval_ptr_##n		\
		__attribute__((used, section("__trev_eval_map"))) = &__trev_eval_##n
