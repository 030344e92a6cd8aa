/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function tracer's parts inside src/ftrace/: the text patcher
 * (patch.c) as ftrace.c uses it.
 */
#ifndef TREV_FTRACE_INTERNAL_H
#define TREV_FTRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FT_SITE_SIZE	5

/* One site's change: its address and the 5 bytes it gets. */
struct trev_ft_patch {
	uintptr_t addr;
	uint8_t bytes[FT_SITE_SIZE];
};

extern const uint8_t trev__ft_nop5[FT_SITE_SIZE];

/* The trampoline (patch.c, assembly) and the C function it calls. */
void trev__ft_trampoline(void);
/* @slot: where @parent_ip is on the stack (function_graph replaces it) */
void trev__ft_entry(unsigned long ip, unsigned long parent_ip, unsigned long *slot);

/*
 * trev__ft_patch_batch() - change @n sites with the int3 protocol
 * @p: the sites and their new bytes (sorted here)
 * @blocker: set to a thread that blocks SIGTRAP when that refused the batch
 * Context: holds ft_lock (ftrace.c); not from a signal handler.
 * Return: 0; -EBUSY (@blocker), -ENOSYS (no membarrier SYNC_CORE), or the
 * errno of a failed write.
 */
int trev__ft_patch_batch(struct trev_ft_patch *p, size_t n, pid_t *blocker);

/* How many int3s of a batch the SIGTRAP handler finished (for tests). */
unsigned long trev__ft_traps(void);
/*
 * For tests: called by the patching thread after step 2 (int3s written) and
 * step 3 (bytes 1-4 written) of every batch, under the patch lock; a call
 * of a function being changed then meets the int3 deterministically.
 */
extern void (*trev__ft_step_hook)(int step);

/* Write a site before any thread can run it (registration). Return: 0 or -errno. */
int trev__ft_text_init(uintptr_t addr, const uint8_t *bytes);

/* The 5 bytes of "call @target" at @site. */
void trev__ft_make_call(uint8_t out[FT_SITE_SIZE], uintptr_t site, uintptr_t target);

/*
 * trev__ft_stub_get() - what sites in [@lo, @hi] call: the trampoline when a
 * rel32 reaches it, else a new stub page mapped within reach that jumps to it
 * @target: set to the address to call
 * @stub: set to the page to give back with trev__ft_stub_put(), or NULL
 * Return: 0 or -ENOMEM (no free address space within reach).
 */
int trev__ft_stub_get(uintptr_t lo, uintptr_t hi, uintptr_t *target, void **stub);
void trev__ft_stub_put(void *stub);

#endif /* TREV_FTRACE_INTERNAL_H */
