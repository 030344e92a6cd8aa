/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function tracer's parts inside src/ftrace/: the trampoline
 * (trampoline.c) and the text patcher (src/patch/) under the names
 * ftrace.c and its tests use.
 */
#ifndef TREV_FTRACE_INTERNAL_H
#define TREV_FTRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "patch/text_patch.h"

struct trev_ft_cs;

#define FT_SITE_SIZE	TEXT_SITE_SIZE

/* One site's change: its address and the 5 bytes it gets. */
#define trev_ft_patch	trev_text_patch

#define trev__ft_nop5	trev__text_nop5

/* The trampolines (trampoline.c, assembly) and the C functions they call. */
void trev__ft_trampoline(void);		/* sites call it */
void trev__fg_trampoline(void);		/* sites jump to it through their stub, r11 = the site */
/* @slot: where @parent_ip is on the stack (function_graph replaces it) */
/* @cs: the callee-saved registers the trampoline pushed (struct trev_ft_cs, ftrace.h) */
void trev__ft_entry(unsigned long ip, unsigned long parent_ip, unsigned long *slot,
		    const struct trev_ft_cs *cs);
/* Its common case, calling nothing out of line; TREV_FT_FULL (ft_fast.h): call trev__ft_entry(). */
int trev__ft_entry_fast(unsigned long ip, unsigned long parent_ip);
/*
 * After its TREV_FT_PROBE: the probe layer's fast call (ftrace.h's
 * trev_ft_probe_fast_fn, set before any probe is on); TREV_FT_FULL: call
 * trev__ft_entry().
 */
extern int (*trev__ft_probe_fast_fn)(unsigned long ip, unsigned long *slot);
/* The same; not 0: a graph frame was pushed, the trampoline calls the body. */
int trev__ft_entry_jmp(unsigned long ip, unsigned long parent_ip, unsigned long *slot,
		       const struct trev_ft_cs *cs);
/* Its plain case, calling nothing out of line; TREV_FT_FULL: call trev__ft_entry_jmp(). */
int trev__ft_entry_jmp_fast(unsigned long ip, unsigned long *slot);

/* Context: holds ft_lock (ftrace.c), then text_lock. */
#define trev__ft_patch_batch(p, n, blocker)	trev__text_patch_batch(p, n, blocker)
/* How many int3s of a batch the SIGTRAP handler finished (for tests). */
#define trev__ft_traps()			trev__text_traps()
/* For tests: called after steps 2 and 3 of every batch (patch/text_patch.h). */
#define trev__ft_step_hook			trev__text_step_hook
/* Write a site before any thread can run it (registration). Return: 0 or -errno. */
#define trev__ft_text_init(addr, bytes)		trev__text_init(addr, bytes)

/* The 5 bytes of "call @target" at @site. */
static inline void trev__ft_make_call(uint8_t out[FT_SITE_SIZE], uintptr_t site,
				      uintptr_t target)
{
	trev__text_make_rel32(out, TREV_TEXT_CALL, site, target);
}

/*
 * trev__ft_stub_get() - what sites in [@lo, @hi] call: the trampoline when a
 * rel32 reaches it, else a new stub page mapped within reach that jumps to it
 * (trev__text_stub_get()).
 */
static inline int trev__ft_stub_get(uintptr_t lo, uintptr_t hi, uintptr_t *target, void **stub)
{
	return trev__text_stub_get(lo, hi, (uintptr_t)trev__ft_trampoline, target, stub);
}
#define trev__ft_stub_put(stub)			trev__text_stub_put(stub)

#endif /* TREV_FTRACE_INTERNAL_H */
