/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * USDT probes on every tracepoint: a SystemTap SDT note (.note.stapsdt,
 * version 3) at each trace_<name>() call site, whose semaphore is the upper
 * half of the tracepoint's key word, so that perf, bpftrace and SystemTap see
 * the program's events as sdt_<system>:<event> (docs/usdt.md).
 *
 * The note is written here, not with <sys/sdt.h>: that header names a
 * semaphore <provider>_<name>_semaphore, and only when every includer of it
 * defines _SDT_HAS_SEMAPHORES, while ours is a place inside the tracepoint.
 * x86-64 only; elsewhere, or with TREV_NO_USDT defined, there is no note and
 * trace_<name>() is what it was.
 */
#ifndef TREV_USDT_H
#define TREV_USDT_H

#include <trev/jump_label.h>

/*
 * The key word of a tracepoint (struct trev_static_key.enabled), on a
 * little-endian machine:
 *
 *	OFFSET	SIZE	MEANING
 *	0	2	trev's probes: their number, at most 0x7fff (libtrev writes it)
 *	2	2	the USDT semaphore: consumers attached (the kernel's uprobes
 *			add 1 for each, at the address the note gives)
 *
 * The word is > 0 when either half is: the guard of trace_<name>() loads it
 * once, as it always did, and only inside its unlikely branch asks which.
 */
#define TREV_KEY_PROBES_MASK	0xffff
#define TREV_KEY_USDT_SHIFT	16

#if defined(__x86_64__) && !defined(TREV_NO_USDT)
#define TREV_USDT	1
#endif

#ifdef TREV_USDT

/*
 * The SDT argument of @x: "SIZE@OPERAND" with SIZE -8 (signed) or 8
 * (unsigned, and pointers). Every argument is passed as a 64-bit word, so a
 * consumer reads the same value whatever the size of its type; an argument
 * that is not a scalar (a struct or union passed by value) is passed as 0.
 */
#ifdef __cplusplus
extern "C++" {
template <typename T, bool scalar = !__is_class(T) && !__is_union(T)>
struct __trev_usdt_t {
	static const bool is_signed = false;
	static __trev_notrace unsigned long val(const T &) { return 0; }
};
template <typename T> struct __trev_usdt_t<T, true> {
	static const bool is_signed = (T)-1 < (T)1;
	static __trev_notrace unsigned long val(T x) { return (unsigned long)x; }
};
template <typename T> struct __trev_usdt_t<T *, true> {
	static const bool is_signed = false;
	static __trev_notrace unsigned long val(T *x) { return (unsigned long)x; }
};
}
#define __trev_usdt_signed(x)	(__trev_usdt_t<__typeof__(x)>::is_signed)
#define __trev_usdt_val(x)	(__trev_usdt_t<__typeof__(x)>::val(x))
#else
/* __builtin_classify_type(): 1-4 integers, enums, bools; 5 pointers; 8-9 reals. */
#define __trev_usdt_scalar(x)	(__builtin_classify_type(x) <= 9)
#define __trev_usdt_signed(x)							\
	((__typeof__(__builtin_choose_expr(__trev_usdt_scalar(x) &&		\
					   __builtin_classify_type(x) != 5,	\
					   (x), 0UL)))-1 < 1)
#define __trev_usdt_val(x)							\
	((unsigned long)__builtin_choose_expr(__trev_usdt_scalar(x), (x), 0UL))
#endif

#define __trev_usdt_op(i, x)							\
	, [__trev_s##i] "n" (__trev_usdt_signed(x) ? -8 : 8),			\
	  [__trev_a##i] "r" (__trev_usdt_val(x))
#define __trev_usdt_arg(i)	"%c[__trev_s" #i "]@%[__trev_a" #i "]"

#define __trev_usdt_ops1(a)	__trev_usdt_op(1, a)
#define __trev_usdt_ops2(a, b)	__trev_usdt_ops1(a) __trev_usdt_op(2, b)
#define __trev_usdt_ops3(a, b, c)	__trev_usdt_ops2(a, b) __trev_usdt_op(3, c)
#define __trev_usdt_ops4(a, b, c, d)	__trev_usdt_ops3(a, b, c) __trev_usdt_op(4, d)
#define __trev_usdt_ops5(a, b, c, d, e)	__trev_usdt_ops4(a, b, c, d) __trev_usdt_op(5, e)
#define __trev_usdt_ops6(a, b, c, d, e, f)					\
	__trev_usdt_ops5(a, b, c, d, e) __trev_usdt_op(6, f)
#define __trev_usdt_ops7(a, b, c, d, e, f, g)					\
	__trev_usdt_ops6(a, b, c, d, e, f) __trev_usdt_op(7, g)
#define __trev_usdt_ops8(a, b, c, d, e, f, g, h)				\
	__trev_usdt_ops7(a, b, c, d, e, f, g) __trev_usdt_op(8, h)
#define __trev_usdt_ops9(a, b, c, d, e, f, g, h, i)				\
	__trev_usdt_ops8(a, b, c, d, e, f, g, h) __trev_usdt_op(9, i)
#define __trev_usdt_ops10(a, b, c, d, e, f, g, h, i, j)				\
	__trev_usdt_ops9(a, b, c, d, e, f, g, h, i) __trev_usdt_op(10, j)
#define __trev_usdt_ops11(a, b, c, d, e, f, g, h, i, j, k)			\
	__trev_usdt_ops10(a, b, c, d, e, f, g, h, i, j) __trev_usdt_op(11, k)
#define __trev_usdt_ops12(a, b, c, d, e, f, g, h, i, j, k, l)			\
	__trev_usdt_ops11(a, b, c, d, e, f, g, h, i, j, k) __trev_usdt_op(12, l)

#define __trev_usdt_tpl1	__trev_usdt_arg(1)
#define __trev_usdt_tpl2	__trev_usdt_tpl1 " " __trev_usdt_arg(2)
#define __trev_usdt_tpl3	__trev_usdt_tpl2 " " __trev_usdt_arg(3)
#define __trev_usdt_tpl4	__trev_usdt_tpl3 " " __trev_usdt_arg(4)
#define __trev_usdt_tpl5	__trev_usdt_tpl4 " " __trev_usdt_arg(5)
#define __trev_usdt_tpl6	__trev_usdt_tpl5 " " __trev_usdt_arg(6)
#define __trev_usdt_tpl7	__trev_usdt_tpl6 " " __trev_usdt_arg(7)
#define __trev_usdt_tpl8	__trev_usdt_tpl7 " " __trev_usdt_arg(8)
#define __trev_usdt_tpl9	__trev_usdt_tpl8 " " __trev_usdt_arg(9)
#define __trev_usdt_tpl10	__trev_usdt_tpl9 " " __trev_usdt_arg(10)
#define __trev_usdt_tpl11	__trev_usdt_tpl10 " " __trev_usdt_arg(11)
#define __trev_usdt_tpl12	__trev_usdt_tpl11 " " __trev_usdt_arg(12)

/* The number of its arguments, 1 to 12 (SDT consumers read at most 12). */
#define __trev_usdt_narg(...)							\
	__trev_usdt_narg_1(__VA_ARGS__, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define __trev_usdt_narg_1(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, n, ...) n
#define __trev_usdt_cat_1(a, b)	a##b
#define __trev_usdt_cat(a, b)	__trev_usdt_cat_1(a, b)

/*
 * The note's semaphore. With jump labels (trev/jump_label.h) none: a
 * consumer cannot turn a nop into a jmp by counting in memory, so the probe
 * sits in the enabled block and fires while trev's probes are on.
 */
#ifdef TREV_JUMP_LABEL_ON
#define __trev_usdt_sem_ref(name)	"	.8byte 0\n"
#else
#define __trev_usdt_sem_ref(name)						\
		"	.weak __trev_usdt_sem_" #name "\n"			\
		"	.hidden __trev_usdt_sem_" #name "\n"			\
		"	.8byte __trev_usdt_sem_" #name "\n"
#endif

/*
 * __trev_usdt_probe() - the probe site of tracepoint @name, provider @provider
 * (a string), with the arguments @args...
 *
 *	990:	nop				(the probe: uprobes put int3 here)
 *		.pushsection .note.stapsdt
 *		namesz 8, descsz, type 3, "stapsdt"
 *		pc 990b, _.stapsdt.base, semaphore __trev_usdt_sem_<name>
 *		"<provider>" "<name>" "-8@%rdi 8@%rsi ..."
 *		.popsection
 *	and once per object, .stapsdt.base: one byte whose link-time address
 *	lets a consumer tell how far the object was moved after linking.
 */
#define __trev_usdt_probe(provider, name, args...)				\
	__asm__ __volatile__(							\
		"990:	nop\n"							\
		"	.pushsection .note.stapsdt,\"?\",\"note\"\n"		\
		"	.balign 4\n"						\
		"	.4byte 992f-991f, 994f-993f, 3\n"			\
		"991:	.asciz \"stapsdt\"\n"					\
		"992:	.balign 4\n"						\
		"993:	.8byte 990b\n"						\
		"	.8byte _.stapsdt.base\n"				\
		__trev_usdt_sem_ref(name)					\
		"	.asciz \"" provider "\"\n"				\
		"	.asciz \"" #name "\"\n"					\
		"	.asciz \""						\
		__trev_usdt_cat(__trev_usdt_tpl, __trev_usdt_narg(args)) "\"\n"	\
		"994:	.balign 4\n"						\
		"	.popsection\n"						\
		"	.ifndef _.stapsdt.base\n"				\
		"	.pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
		"	.weak _.stapsdt.base\n"					\
		"	.hidden _.stapsdt.base\n"				\
		"_.stapsdt.base:\n"						\
		"	.space 1\n"						\
		"	.size _.stapsdt.base, 1\n"				\
		"	.popsection\n"						\
		"	.endif\n"						\
		: : "i" (0)	/* so that every argument can start with a comma */ \
		__trev_usdt_cat(__trev_usdt_ops, __trev_usdt_narg(args))(args))

/*
 * __trev_usdt_sem() - in the CREATE_TRACE_POINTS file, the semaphore of
 * tracepoint @name: __trev_usdt_sem_<name>, a hidden alias of the upper half
 * of its key word. Call sites name it weakly: in the object that defines the
 * tracepoint it is that address; in another one (a program calling a
 * shared library's tracepoint) it is 0, "no semaphore", so that no consumer
 * is ever told to count in memory that is not the key.
 */
#define __trev_usdt_sem(name)							\
	TREV_STATIC_ASSERT(__builtin_offsetof(struct trev_tracepoint, key) == 16,	\
			   "the USDT semaphore is __tracepoint_<name> + 18");	\
	__asm__("	.weak __trev_usdt_sem_" #name "\n"				\
		"	.hidden __trev_usdt_sem_" #name "\n"				\
		"	.set __trev_usdt_sem_" #name ", __tracepoint_" #name " + 18\n");

#endif /* TREV_USDT */

#endif /* TREV_USDT_H */
