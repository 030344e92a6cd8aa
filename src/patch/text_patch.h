/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The text patcher (text_patch.c): 5-byte sites of the program's text
 * changed between a nop and a call or jmp while other threads run them.
 */
#ifndef TREV_TEXT_PATCH_H
#define TREV_TEXT_PATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TEXT_SITE_SIZE	5

/* One site's change: its address and the 5 bytes it gets. */
struct trev_text_patch {
	uintptr_t addr;			/* the site's first byte */
	uint8_t bytes[TEXT_SITE_SIZE];	/* nop5, call rel32 or jmp rel32 */
};

/* 0f 1f 44 00 00: nopl 0x0(%rax,%rax,1) */
extern const uint8_t trev__text_nop5[TEXT_SITE_SIZE];

/*
 * trev__text_patch_batch() - change @n sites with the int3 protocol
 * @p: the sites and their new bytes (sorted here)
 * @blocker: set to a thread that blocks SIGTRAP when that refused the batch
 * Context: any thread but a signal handler; takes text_lock.
 * Return: 0; -EBUSY (@blocker), -ENOSYS (no membarrier SYNC_CORE), or the
 * errno of a failed write.
 */
int trev__text_patch_batch(struct trev_text_patch *p, size_t n, pid_t *blocker);

/*
 * For sites whose old or new bytes are more than one instruction (the
 * relocated prologues of probe_site.c): set with a batch, read by the
 * SIGTRAP handler.
 * @trap_to: where a thread that traps on byte 0 of a site during the batch
 *   goes when the new bytes are neither a call nor a jmp (the site's original
 *   instructions, out of line); 0: the handler refuses the trap.
 * @move: where a thread that stopped inside bytes 1-4 of a site (at a
 *   boundary of the old instructions) goes before those bytes change; 0:
 *   it stays. Called in each other thread, from a signal (async-signal-safe).
 */
struct trev_text_moves {
	uintptr_t (*trap_to)(uintptr_t site);
	uintptr_t (*move)(uintptr_t ip);
};

/*
 * trev__text_patch_batch_moves() - trev__text_patch_batch() for sites whose
 * old bytes are several instructions: after step 2 (int3s written) every
 * other thread is signalled (the highest real-time signal the program leaves
 * at its default, SI_QUEUE from the process itself) and
 * its ip moved by @mv->move before bytes 1-4 change, so none resumes inside
 * a rewritten instruction.
 * Context: as trev__text_patch_batch(). Return: as it, or -EIO when a thread
 * did not take the signal (the batch is not applied then).
 */
int trev__text_patch_batch_moves(struct trev_text_patch *p, size_t n,
				 const struct trev_text_moves *mv, pid_t *blocker);

/*
 * trev__text_poke() - write @len bytes at @addr of text, then sync_core:
 * one byte over a running instruction (an int3 and back), or code no thread
 * runs yet (a new trampoline). With @trap, the SIGTRAP handler is installed
 * first and a thread blocking SIGTRAP refuses the write (-EBUSY, @blocker).
 * Context: any thread but a signal handler; takes text_lock.
 * Return: 0 or -errno.
 */
int trev__text_poke(uintptr_t addr, const void *bytes, size_t len, int trap, pid_t *blocker);

/* How many int3s of a batch the SIGTRAP handler finished (for tests). */
unsigned long trev__text_traps(void);
/*
 * For tests: called by the patching thread after step 2 (int3s written) and
 * step 3 (bytes 1-4 written) of every batch, under text_lock; a call of a
 * site being changed then meets the int3 deterministically.
 */
extern void (*trev__text_step_hook)(int step);

/*
 * Write a site with a plain write, before any thread can run it (an
 * object's registration, from its constructor). Return: 0 or -errno.
 */
int trev__text_init(uintptr_t addr, const uint8_t *bytes);

enum trev_text_insn {
	TREV_TEXT_CALL,		/* e8 rel32 */
	TREV_TEXT_JMP,		/* e9 rel32 */
};

/* The 5 bytes of "call @target" or "jmp @target" at @site (within ±2 GB). */
void trev__text_make_rel32(uint8_t out[TEXT_SITE_SIZE], enum trev_text_insn insn,
			   uintptr_t site, uintptr_t target);

/*
 * trev__text_stub_get() - what sites in [@lo, @hi] call to reach @tramp:
 * @tramp itself when a rel32 reaches it, else a new stub page mapped within
 * reach that jumps to it
 * @target: set to the address to call
 * @stub: set to the page to give back with trev__text_stub_put(), or NULL
 * Return: 0 or -ENOMEM (no free address space within reach).
 */
int trev__text_stub_get(uintptr_t lo, uintptr_t hi, uintptr_t tramp, uintptr_t *target,
			void **stub);
void trev__text_stub_put(void *stub);

/*
 * trev__text_near_map() - @size bytes of new read-write memory within a
 * rel32's reach of every address in [@lo, @hi]: below the object, else
 * above it. The caller fills it, mprotect()s it executable and unmaps it.
 * Return: the mapping, or NULL (no free address space within reach).
 */
void *trev__text_near_map(uintptr_t lo, uintptr_t hi, size_t size);

#endif /* TREV_TEXT_PATCH_H */
