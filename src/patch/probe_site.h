/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Probe sites (probe_site.c): a handler called at any instruction of any
 * loaded ELF object, built with or without trev's flags (docs/probes.md,
 * "Probe sites"). The probe events sit on top of this.
 *
 * Which path a site takes (trev_site_kind):
 *
 *   TREV_SITE_RELOCATED  the instructions covering the 5 bytes at @addr are
 *                        copied, relocated, into a trampoline near the
 *                        object and a `jmp` to it replaces them. Taken when
 *                        all of these hold: the ELF symbol around @addr is
 *                        known (dladdr1: .dynsym) and @addr + 5 lies inside
 *                        it; @addr is an instruction boundary of its body;
 *                        no relative branch of the body targets the bytes
 *                        after @addr's first instruction (addr, addr + len);
 *                        no call among them returns inside them; and every
 *                        instruction can be relocated (RIP-relative operands
 *                        and rel8/rel32 jumps, jcc and calls can; loop, jrcxz,
 *                        xbegin and an int3 cannot).
 *   TREV_SITE_INT3       otherwise: 0xcc at @addr; the SIGTRAP handler
 *                        (text_patch.c) calls the handler and runs the one
 *                        instruction out of line. A hit costs a signal.
 *
 * A jump table (an indirect jmp) into the patched bytes cannot be seen by
 * the scan: the relocated path trusts that functions do not do that.
 */
#ifndef TREV_PATCH_PROBE_SITE_H
#define TREV_PATCH_PROBE_SITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "patch/regs.h"

struct trev_site;

enum trev_site_kind {
	TREV_SITE_RELOCATED,	/* jmp to a trampoline with the relocated instructions */
	TREV_SITE_INT3,		/* int3 and the SIGTRAP handler */
};

/*
 * A site's handler: @regs as they were at the probed address (ip = the
 * address, sp as the probed code had it; orig_ax = -1, cs and ss 0).
 * Changes to the general registers and flags are what the probed code then
 * runs with (not ip, sp). Runs on the probing thread, perhaps in a signal
 * handler (the int3 path, or a probed call inside the program's own
 * handler): it must be async-signal-safe. A probed call made inside a
 * handler is not probed (counted in trev__site_missed()).
 */
typedef void (*trev_site_handler)(struct trev_regs *regs, void *data);

/* Where the relocator stops: the most bytes one relocation may produce. */
#define TREV_SITE_RELOC_MAX	160

/* What trev__site_relocate() did. */
struct trev_site_reloc {
	size_t in_len;			/* the original bytes covered (>= min_len) */
	size_t out_len;			/* bytes written to @out */
	uint8_t nr_insns;		/* instructions relocated */
	uint8_t in_off[8];		/* each one's offset at the site */
	uint8_t out_off[8];		/* and in @out */
};

/*
 * trev__site_relocate() - relocate the instructions at @code (found at
 * @addr) that cover @min_len bytes, to run at @dest: RIP-relative operands
 * and relative branches re-aimed, rel8 jumps made rel32, a call made a push
 * of its return address and a jmp; then a jmp back to @addr + in_len, then
 * the data those pushes read.
 * @code: the bytes; @code_len: how many may be read
 * @out: TREV_SITE_RELOC_MAX bytes, to be placed at @dest
 * @why: set to the reason when refused
 * Context: any thread (takes the decoder's lock). No allocation of the
 * caller's; decoding allocates.
 * Return: 0, or -EINVAL (an instruction it cannot relocate, or code that
 * ends before @min_len), -ERANGE (a target out of a rel32's reach of @dest).
 */
int trev__site_relocate(const uint8_t *code, size_t code_len, uintptr_t addr, size_t min_len,
			uintptr_t dest, uint8_t *out, struct trev_site_reloc *r, const char **why);

/*
 * trev__site_attach() - call @h at @addr from now on
 * @addr: an instruction's first byte in a loaded object's text
 * @h, @data: the handler and its argument
 * @out: set to the site
 * @why: set to the reason when refused, or to why a site took the int3
 *   path (NULL when relocated)
 * Context: any thread but a signal handler or a site's handler; takes
 * site_lock, then text_lock.
 * Return: 0; -EEXIST (a site at @addr is attached), -EINVAL (@addr is not an
 * instruction boundary of its function, or its instruction cannot run out
 * of line), -ENOMEM, -EBUSY (a thread blocks SIGTRAP), or the errno of the
 * text write.
 */
int trev__site_attach(uintptr_t addr, trev_site_handler h, void *data, struct trev_site **out,
		      const char **why);

/*
 * trev__site_attach_in() - trev__site_attach() where the caller knows the
 * function around @addr (from .symtab, which dladdr1 does not read):
 * [@func, @func + @size).
 */
int trev__site_attach_in(uintptr_t addr, uintptr_t func, size_t size, trev_site_handler h,
			 void *data, struct trev_site **out, const char **why);

/*
 * trev__site_detach() - put @s's original bytes back (exactly) and wait
 * until no thread runs its handler. Threads that are inside the trampoline
 * leave it through the original instructions; the trampoline stays mapped
 * (and is used again by the next site at the same address).
 * Context: as trev__site_attach(); never from @s's handler.
 * Return: 0 or -errno (the site is still attached).
 */
int trev__site_detach(struct trev_site *s);

/*
 * trev__site_boundary() - whether @addr is the first byte of an instruction
 * of the function [@func, @func + @size) (decoded from its start), as an
 * attach there would check it; @size 0: not known, taken as one.
 * Context: any thread but a site's handler; reads the function's code.
 * Return: 0; -EINVAL with @why (not a boundary, or outside the function).
 */
int trev__site_boundary(uintptr_t addr, uintptr_t func, size_t size, const char **why);

enum trev_site_kind trev__site_kind(const struct trev_site *s);

/* Hits that nested inside a handler on the same thread and were not handled. */
unsigned long trev__site_missed(const struct trev_site *s);

/*
 * trev__site_object_gone() - forget the sites in [@lo, @hi) without writing
 * text: the object that held them is being unmapped (dlclose()). The
 * caller (who learns of the unload) calls it before or after the unmap;
 * the handlers are off when it returns.
 * Context: as trev__site_attach().
 */
void trev__site_object_gone(uintptr_t lo, uintptr_t hi);

/*
 * trev__site_trap() - the probe sites' part of the SIGTRAP handler: an int3
 * at @site that is a probe's. Calls its handler and sends the thread to the
 * instruction's copy. Context: SIGTRAP; async-signal-safe.
 * Return: true when it was a probe's.
 */
bool trev__site_trap(ucontext_t *uc, uintptr_t site);

#endif /* TREV_PATCH_PROBE_SITE_H */
