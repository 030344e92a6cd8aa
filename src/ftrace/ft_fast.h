/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the trampolines' fast calls share (trampoline.c says what those
 * are), included first by the files whose code runs in them (ftrace.c,
 * fgraph.c): there the ring's commit calls its slow publish through
 * trev__rb_leave_slow_vsave(), which keeps the traced function's vector
 * registers whole around it.
 */
#ifndef TREV_FT_FAST_H
#define TREV_FT_FAST_H

#ifdef TREV_RB_API_H
#error "ftrace/ft_fast.h must come before ring_buffer/rb_api.h"
#endif
/*
 * The fast calls may write only the low 128 bits of a vector register (SSE
 * code): an AVX instruction would clear the upper bits of a traced
 * function's arguments. CMakeLists.txt builds these files with -mno-avx
 * whatever CFLAGS ask for.
 */
#ifdef __AVX__
#error "ftrace/ft_fast.h: the fast calls' files must be built without AVX (-mno-avx)"
#endif
/*
 * TREV_FT_GPR_ONLY (CMakeLists.txt, outside the sanitizer and fuzz trees):
 * these files are built with -mgeneral-regs-only, so the fast calls touch
 * no vector register at all and the trampolines keep none around them.
 */
#if defined(TREV_FT_GPR_ONLY) && defined(__SSE__) && !defined(TREV_FT_TRAMPOLINES)
#error "ftrace/ft_fast.h: TREV_FT_GPR_ONLY needs -mgeneral-regs-only"
#endif

#include <stdbool.h>
#include <stdint.h>

#include "base/rcu.h"

/* What a fast call returns when it did nothing and the trampoline must make the full call. */
#define TREV_FT_FULL	2
/*
 * What trev__ft_entry_fast() returns when the site's only business is a
 * probe (the tracer nop, no instance traces functions): the trampoline
 * makes the probes' fast call, trev__ft_probe_fast(), before any full one.
 */
#define TREV_FT_PROBE	3

/* The thread has its RCU reader: its read sections call nothing (trev__rcu_lock_known()). */
static inline bool ft_rcu_ready(void)
{
	return trev__rcu_me != 0;
}

struct trev_rb;
struct rb_desc;

/* trev__rb_leave_slow() with xmm/ymm/zmm 0-7 saved around it (trampoline.c). */
void trev__rb_leave_slow_vsave(struct trev_rb *rb, struct rb_desc *d, bool published,
			       uint64_t seen);
#define RB_LEAVE_SLOW trev__rb_leave_slow_vsave

/*
 * What the trampolines save on their full paths: 0 xmm0-7, 1 ymm0-7, 2
 * zmm0-7, the widest the CPU and the kernel have on. Set by
 * trev__vec_kind_init() before each batch that patches sites (ftrace.c,
 * under ft_lock), so before any site reaches a trampoline.
 */
extern unsigned char trev__vec_kind;
void trev__vec_kind_init(void);

#endif /* TREV_FT_FAST_H */
