/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Jump labels for tracepoint guards (docs/jump-labels.md): with
 * -DTREV_JUMP_LABEL=1, trace_<name>()'s disabled path is a 5-byte nop that
 * libtrev patches to a jmp while the tracepoint has trev probes. Opt-in per
 * translation unit; without it, or where asm goto is missing, the guard is
 * the load and branch of <trev/tracepoint.h>.
 */
#ifndef TREV_JUMP_LABEL_H
#define TREV_JUMP_LABEL_H

#include <stdbool.h>
#include <stdint.h>

#include <trev/common.h>

/* asm goto: gcc 4.5 and clang 9 on; x86-64 ELF only (the site is an x86 nop5). */
#if defined(__clang__)
#define __TREV_HAVE_ASM_GOTO	(__clang_major__ >= 9)
#elif defined(__GNUC__)
#define __TREV_HAVE_ASM_GOTO	(__GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ >= 5))
#else
#define __TREV_HAVE_ASM_GOTO	0
#endif

#if defined(TREV_JUMP_LABEL) && defined(__x86_64__) && defined(__ELF__)
#if TREV_JUMP_LABEL && __TREV_HAVE_ASM_GOTO
#define TREV_JUMP_LABEL_ON	1	/* this translation unit's guards are jump labels */
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

struct trev_tracepoint;

/*
 * One jump label site, in section __trev_jump_table of the object that
 * holds the site:
 *
 *	OFFSET	SIZE	MEANING
 *	0	4	the site (5 bytes: nop5 or jmp rel32), relative to this field
 *	4	4	the enabled block (the jmp's target), relative to this field
 *	8	8	the tracepoint, absolute: relocated by ld.so, so that it may
 *			live in another object (a program's event called from a
 *			library it dlopen()s)
 */
struct trev_jump_entry {
	int32_t code;			/* site - &code */
	int32_t target;			/* enabled block - &target */
	struct trev_tracepoint *tp;	/* whose probes turn the site on */
};

/*
 * trev_jump_label_register() - an object's jump label sites: set each to its
 * tracepoint's state now (a plain write: no thread runs them yet), and keep
 * them for patching when the tracepoint's probes go from none to some and
 * back. Called by the object's constructor (below); again for the same
 * @start, nothing.
 * Context: a constructor, before the object's code runs in any thread.
 */
TREV_API void trev_jump_label_register(const struct trev_jump_entry *start,
				       const struct trev_jump_entry *stop);
/* trev_jump_label_unregister() - forget them (the object's destructor, at dlclose). */
TREV_API void trev_jump_label_unregister(const struct trev_jump_entry *start);

#ifdef TREV_JUMP_LABEL_ON

/*
 * __TREV_JUMP_LABEL() - the guard of trace_<name>() (tracepoint.h):
 *
 *	static inline always_inline bool __trev_jl_foo(void)
 *	{
 *		asm goto("1: nopl 0x0(%rax,%rax,1)"	(0f 1f 44 00 00)
 *			 .pushsection __trev_jump_table
 *			 .long 1b - ., %l[on] - .; .quad __tracepoint_foo
 *			 .popsection : : : : on);
 *		return false;
 *	on:
 *		return true;
 *	}
 *
 * The tracepoint is named in the assembly, not passed with an "i" operand:
 * that constraint is refused with -fPIC for a symbol of default visibility
 * (it might be another object's); a .quad in a writable section gets a
 * dynamic relocation instead.
 */
#define __TREV_JUMP_LABEL(name)							\
	static inline __attribute__((always_inline)) bool __trev_jl_##name(void)	\
	{									\
		__asm__ goto("1:	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"	\
			     "	.pushsection __trev_jump_table, \"aw\"\n"	\
			     "	.balign 8\n"					\
			     "	.long 1b - ., %l[__trev_on] - .\n"		\
			     "	.quad __tracepoint_" #name "\n"			\
			     "	.popsection\n"					\
			     : : : : __trev_on);				\
		return false;							\
	__trev_on:								\
		return true;							\
	}

extern const struct trev_jump_entry __start___trev_jump_table[]
	__attribute__((weak, visibility("hidden")));
extern const struct trev_jump_entry __stop___trev_jump_table[]
	__attribute__((weak, visibility("hidden")));

/*
 * Every translation unit with jump labels registers its object's whole
 * table (the linker's __start_/__stop_ of this object): the first call
 * does, the others find it there.
 */
static __attribute__((constructor(101), used)) __trev_notrace void
trev_jump_label_register_(void)
{
	if (__start___trev_jump_table)
		trev_jump_label_register(__start___trev_jump_table, __stop___trev_jump_table);
}

static __attribute__((destructor(101), used)) __trev_notrace void
trev_jump_label_unregister_(void)
{
	if (__start___trev_jump_table)
		trev_jump_label_unregister(__start___trev_jump_table);
}

#endif /* TREV_JUMP_LABEL_ON */

#ifdef __cplusplus
}
#endif

#endif /* TREV_JUMP_LABEL_H */
