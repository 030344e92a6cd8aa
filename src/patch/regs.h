/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The registers a probe hit hands its handler (issue 32): the
 * kernel's x86-64 struct pt_regs, field for field and by the same names,
 * so that a probe definition's %di, %sp, %ip read what the kernel's would.
 * Filled by whatever stopped the thread at the probed address (a function
 * entry's trampoline, a relocated prologue's trampoline, an int3); @ip is
 * the probed address, @sp the stack pointer the probed code had there.
 */
#ifndef TREV_PATCH_REGS_H
#define TREV_PATCH_REGS_H

struct trev_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10;
	unsigned long r9, r8, ax, cx, dx, si, di, orig_ax;
	unsigned long ip, cs, flags, sp, ss;
};

#endif /* TREV_PATCH_REGS_H */
