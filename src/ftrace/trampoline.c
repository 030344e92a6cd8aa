/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function tracer's trampoline: what a patched function entry calls
 * (src/patch/ writes the calls; docs/function-tracer.md).
 */
#include "ftrace/ftrace_internal.h"

/*
 * Saving and restoring what carries a function's arguments at its entry,
 * for both entry trampolines, with %rbp their frame: trev_args_save pushes
 * rax, rdi, rsi, rdx, rcx, r8, r9 and r10 below whatever the trampoline
 * pushed first, aligns the stack and stores xmm0-7 (movaps);
 * trev_args_restore takes @above, how far below %rbp the last of those
 * pushes lies (64, and 8 more for each word the trampoline pushed before
 * them), and restores all in reverse, leaving %rsp where the save found it.
 * The restore leaves the flags alone (movaps, lea, pop), so a test made
 * before it holds after it.
 */
__asm__(".macro trev_args_save\n"
	"	pushq %rax\n"
	"	pushq %rdi\n"
	"	pushq %rsi\n"
	"	pushq %rdx\n"
	"	pushq %rcx\n"
	"	pushq %r8\n"
	"	pushq %r9\n"
	"	pushq %r10\n"
	"	andq $-16, %rsp\n"
	"	subq $128, %rsp\n"
	"	movaps %xmm0, 0(%rsp)\n"
	"	movaps %xmm1, 16(%rsp)\n"
	"	movaps %xmm2, 32(%rsp)\n"
	"	movaps %xmm3, 48(%rsp)\n"
	"	movaps %xmm4, 64(%rsp)\n"
	"	movaps %xmm5, 80(%rsp)\n"
	"	movaps %xmm6, 96(%rsp)\n"
	"	movaps %xmm7, 112(%rsp)\n"
	".endm\n"
	".macro trev_args_restore above\n"
	"	movaps 0(%rsp), %xmm0\n"
	"	movaps 16(%rsp), %xmm1\n"
	"	movaps 32(%rsp), %xmm2\n"
	"	movaps 48(%rsp), %xmm3\n"
	"	movaps 64(%rsp), %xmm4\n"
	"	movaps 80(%rsp), %xmm5\n"
	"	movaps 96(%rsp), %xmm6\n"
	"	movaps 112(%rsp), %xmm7\n"
	"	leaq -\\above(%rbp), %rsp\n"
	"	popq %r10\n"
	"	popq %r9\n"
	"	popq %r8\n"
	"	popq %rcx\n"
	"	popq %rdx\n"
	"	popq %rsi\n"
	"	popq %rdi\n"
	"	popq %rax\n"
	".endm\n");

/*
 * Entered by the call at a site (directly, or through a stub's jmp), so
 *   0(%rsp)  the site + 5: where the traced function goes on
 *   8(%rsp)  the return address into the traced function's caller
 * At a function's entry every argument register is live: rdi, rsi, rdx,
 * rcx, r8, r9, rax (the vector count of a variadic call), r10 (a nested
 * function's static chain) and xmm0-7. They are saved and put back; r11 is
 * scratch at a call. The stack need not be 16-byte aligned here: gcc does
 * not keep the ABI's alignment for calls to local functions that do not
 * need it, so the frame is aligned by hand before movaps and the C call.
 * Upper halves of ymm/zmm registers are not saved (the handler runs no AVX
 * code of its own).
 */
__asm__(".text\n"
	".globl trev__ft_trampoline\n"
	".hidden trev__ft_trampoline\n"
	".type trev__ft_trampoline, @function\n"
	".p2align 4\n"
	"trev__ft_trampoline:\n"
	"	.cfi_startproc\n"
	"	pushq %rbp\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbp, -16\n"
	"	movq %rsp, %rbp\n"
	"	.cfi_def_cfa_register %rbp\n"
	"	trev_args_save\n"
	"	movq 8(%rbp), %rdi\n"
	"	subq $5, %rdi\n"
	"	movq 16(%rbp), %rsi\n"
	"	leaq 16(%rbp), %rdx\n"
	"	call trev__ft_entry\n"
	"	trev_args_restore 64\n"
	"	popq %rbp\n"
	"	.cfi_def_cfa %rsp, 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size trev__ft_trampoline, .-trev__ft_trampoline\n");

/*
 * The graph trampoline: what a site jumps to under function_graph,
 * through the site's own stub (ftrace.c), which puts the site in r11. As it
 * is entered by a jmp,
 *   0(%rsp)  the return address into the traced function's caller: the
 *            return slot
 * It saves what trev__ft_trampoline saves and calls trev__ft_entry_jmp().
 * When that pushed a graph frame (it returns non-zero: the frame keeps the
 * return address, the slot holds trev__fg_return), the return address is
 * taken off the stack and the function's body is called from here: the
 * call writes trev__fg_return into the slot again and onto the CPU's
 * return stack, so the body's `ret` into trev__fg_return is predicted, and
 * so is trev__fg_return's own `ret` to the caller, which the caller's call
 * put there. (Through trev__ft_trampoline, the body's `ret` goes where the
 * return stack does not expect: a mispredicted return a call.) Otherwise
 * it jumps into the body with the stack as it came.
 * The flags of `test` live through the restores: mov, movaps, lea and pop
 * leave them alone. For an unwinder (backtrace() in a function command's
 * `stacktrace`), the frame is a signal frame that interrupted the traced
 * function at its site: its caller is the function, at the site's exact
 * address (r11, then its stack copy), with the stack pointer it had there.
 */
__asm__(".text\n"
	".globl trev__fg_trampoline\n"
	".hidden trev__fg_trampoline\n"
	".type trev__fg_trampoline, @function\n"
	".p2align 4\n"
	"trev__fg_trampoline:\n"
	"	.cfi_startproc\n"
	"	.cfi_signal_frame\n"
	"	.cfi_def_cfa %rsp, 0\n"
	"	.cfi_register %rip, %r11\n"
	"	pushq %rbp\n"
	"	.cfi_def_cfa_offset 8\n"
	"	.cfi_offset %rbp, -8\n"
	"	movq %rsp, %rbp\n"
	"	.cfi_def_cfa_register %rbp\n"
	"	pushq %r11\n"
	"	.cfi_offset %rip, -16\n"
	"	trev_args_save\n"
	"	movq -8(%rbp), %rdi\n"
	"	movq 8(%rbp), %rsi\n"
	"	leaq 8(%rbp), %rdx\n"
	"	call trev__ft_entry_jmp\n"
	"	testl %eax, %eax\n"
	"	trev_args_restore 72\n"
	"	popq %r11\n"
	"	leaq 5(%r11), %r11\n"		/* the body: past the site's 5 bytes */
	"	popq %rbp\n"
	"	.cfi_def_cfa %rsp, 0\n"
	"	.cfi_register %rip, %r11\n"
	"	jnz 1f\n"
	"	jmp *%r11\n"
	"1:	leaq 8(%rsp), %rsp\n"		/* the return address is in the frame */
	"	.cfi_undefined rip\n"
	"	call *%r11\n"
	"	.cfi_endproc\n"
	".size trev__fg_trampoline, .-trev__fg_trampoline\n"
	/*
	 * The return trampoline: a hooked function's `ret` lands here with
	 * %rsp one word above its return slot (right after the call above, or
	 * from a slot trev__fg_entry() hooked for trev__ft_trampoline's
	 * sites). Saves what a function returns in (rax, rdx, xmm0, xmm1;
	 * st(0) is left alone, the C path uses no x87), aligns the stack,
	 * calls trev__fg_exit(slot) and goes where it says with %rsp as the
	 * function's `ret` left it: by `ret` when the graph trampoline called
	 * the body (the return stack holds the caller's address), else by an
	 * indirect jmp (a `ret` would take the return stack's next entry and
	 * leave it one off). It is never unmapped: a frame pushed before the
	 * tracer went off still returns through it.
	 */
	".globl trev__fg_return\n"
	".hidden trev__fg_return\n"
	".type trev__fg_return, @function\n"
	"trev__fg_return:\n"
	"	subq $8, %rsp\n"		/* rsp = the slot, which keeps our address */
	"	pushq %rbp\n"
	"	movq %rsp, %rbp\n"		/* rbp = the slot - 8 */
	"	pushq %rax\n"
	"	pushq %rdx\n"
	"	andq $-16, %rsp\n"
	"	subq $32, %rsp\n"
	"	movaps %xmm0, 0(%rsp)\n"
	"	movaps %xmm1, 16(%rsp)\n"
	"	leaq 8(%rbp), %rdi\n"
	"	call trev__fg_exit\n"
	"	movq %rax, %r11\n"
	"	testq %rdx, %rdx\n"
	"	movaps 0(%rsp), %xmm0\n"
	"	movaps 16(%rsp), %xmm1\n"
	"	movq -8(%rbp), %rax\n"
	"	movq -16(%rbp), %rdx\n"
	"	movq %rbp, %rsp\n"
	"	popq %rbp\n"
	"	leaq 8(%rsp), %rsp\n"		/* as the function's ret left it */
	"	jz 2f\n"
	"	pushq %r11\n"
	"	ret\n"
	"2:	jmp *%r11\n"
	".size trev__fg_return, .-trev__fg_return\n");
