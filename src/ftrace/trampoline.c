/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function tracer's trampoline: what a patched function entry calls
 * (src/patch/ writes the calls; docs/function-tracer.md).
 */
#include "ftrace/ftrace_internal.h"

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
	"	movq 8(%rbp), %rdi\n"
	"	subq $5, %rdi\n"
	"	movq 16(%rbp), %rsi\n"
	"	leaq 16(%rbp), %rdx\n"
	"	call trev__ft_entry\n"
	"	movaps 0(%rsp), %xmm0\n"
	"	movaps 16(%rsp), %xmm1\n"
	"	movaps 32(%rsp), %xmm2\n"
	"	movaps 48(%rsp), %xmm3\n"
	"	movaps 64(%rsp), %xmm4\n"
	"	movaps 80(%rsp), %xmm5\n"
	"	movaps 96(%rsp), %xmm6\n"
	"	movaps 112(%rsp), %xmm7\n"
	"	leaq -64(%rbp), %rsp\n"
	"	popq %r10\n"
	"	popq %r9\n"
	"	popq %r8\n"
	"	popq %rcx\n"
	"	popq %rdx\n"
	"	popq %rsi\n"
	"	popq %rdi\n"
	"	popq %rax\n"
	"	popq %rbp\n"
	"	.cfi_def_cfa %rsp, 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size trev__ft_trampoline, .-trev__ft_trampoline\n");
