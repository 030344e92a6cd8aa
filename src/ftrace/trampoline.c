/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function tracer's trampolines: what a patched function entry calls
 * or jumps to, and where a hooked return lands (src/patch/ writes the
 * sites; docs/function-tracer.md, "The mechanism (x86-64)").
 *
 * The traced function's registers must come out as they went in, vector
 * registers at their full width: a function built with -mavx takes __m256
 * arguments in ymm0-7 and returns them in ymm0. Each trampoline makes a
 * fast call first (trev__ft_entry_fast(), trev__ft_entry_jmp_fast(),
 * trev__fg_exit_fast()): C code that calls nothing out of line but the
 * commit's slow publish, which keeps them itself
 * (trev__rb_leave_slow_vsave()), and is built with general registers only
 * (TREV_FT_GPR_ONLY, CMakeLists.txt): it writes no vector register, and
 * the trampoline keeps none around it. In the sanitizer and fuzz trees,
 * whose runtime calls inside the fast call may use SSE registers, it is
 * built without AVX only, which leaves the upper bits alone, and the
 * trampoline keeps xmm0-7 (xmm0-1 at a return) around it with SSE moves.
 * When the fast call cannot finish it changes nothing and returns
 * TREV_FT_FULL; the full path (trev__ft_entry(), trev__ft_entry_jmp(),
 * trev__fg_exit()) may reach any code, glibc's AVX2 string functions
 * among it, which end in vzeroupper and so clear the upper halves of every
 * ymm and zmm register: around it the trampoline keeps the registers at
 * the width the CPU has (trev__vec_kind: zmm, ymm or xmm).
 */
#define TREV_FT_TRAMPOLINES	/* ft_fast.h: no C code of the fast calls here */
#include "ftrace/ft_fast.h"
#include "ftrace/fgraph.h"
#include "ftrace/ftrace_internal.h"

#define FT_STR(x)	#x
#define FT_XSTR(x)	FT_STR(x)
#define FT_FULL_STR	FT_XSTR(TREV_FT_FULL)

unsigned char trev__vec_kind;

void trev__vec_kind_init(void)
{
	/* libgcc's answers include the kernel's: XCR0 enables the state. */
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		trev__vec_kind = 2;
	else if (__builtin_cpu_supports("avx"))
		trev__vec_kind = 1;
}

/*
 * trev_rbp_frame: the usual %rbp frame, with its CFI, at a called
 * function's entry. Saving and restoring, with %rbp the trampoline's frame:
 * - trev_gprs_save pushes rax, rdi, rsi, rdx, rcx, r8, r9 and r10 (what
 *   carries a function's arguments besides the vector registers) below
 *   whatever the trampoline pushed first and aligns the stack;
 *   trev_gprs_restore takes @above, how far below %rbp the last of those
 *   pushes lies (64, and 8 more for each word the trampoline pushed before
 *   them), and pops them, leaving %rsp where the save found it;
 * - trev_xmms_save and trev_xmms_restore keep xmm0-7 (movaps, the aligned
 *   stack) around a fast call where it may touch them (without
 *   TREV_FT_GPR_ONLY; with it they are empty);
 * - trev_vecs_save and trev_vecs_restore keep vector registers 0-7 at
 *   the width trev__vec_kind says (zmm, ymm or xmm), in 64 bytes each,
 *   around a full call (trev__vecs_store(), trev__vecs_load()); they use
 *   rdi, which the full call's arguments are loaded into after the save.
 * - trev_cs_save pushes, on a full call's path only, what a probe's
 *   registers need besides the argument registers (docs/probes.md): the
 *   callee-saved rbx, the function's rbp (its copy at 0(%rbp)), r12-r15,
 *   as struct trev_ft_cs (ftrace.h), 48 bytes that keep the alignment, and
 *   passes their address in rcx, the full call's fourth argument;
 *   trev_cs_drop takes them off (lea: the flags stay).
 * The pops and moves leave the flags alone; the addq and the others'
 * calls do not: test after them.
 */
__asm__(".macro trev_rbp_frame\n"		/* at a called function's entry: the usual frame */
	"	pushq %rbp\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbp, -16\n"
	"	movq %rsp, %rbp\n"
	"	.cfi_def_cfa_register %rbp\n"
	".endm\n"
	".macro trev_gprs_save\n"
	"	pushq %rax\n"
	"	pushq %rdi\n"
	"	pushq %rsi\n"
	"	pushq %rdx\n"
	"	pushq %rcx\n"
	"	pushq %r8\n"
	"	pushq %r9\n"
	"	pushq %r10\n"
	"	andq $-16, %rsp\n"
	".endm\n"
	".macro trev_gprs_restore above\n"
	"	leaq -\\above(%rbp), %rsp\n"
	"	popq %r10\n"
	"	popq %r9\n"
	"	popq %r8\n"
	"	popq %rcx\n"
	"	popq %rdx\n"
	"	popq %rsi\n"
	"	popq %rdi\n"
	"	popq %rax\n"
	".endm\n"
#ifdef TREV_FT_GPR_ONLY
	".macro trev_xmms_save\n"
	".endm\n"
	".macro trev_xmms_restore\n"
	".endm\n"
#else
	".macro trev_xmms_save\n"
	"	subq $128, %rsp\n"
	"	.irp i,0,1,2,3,4,5,6,7\n"
	"	movaps %xmm\\i, 16*\\i(%rsp)\n"
	"	.endr\n"
	".endm\n"
	".macro trev_xmms_restore\n"
	"	.irp i,0,1,2,3,4,5,6,7\n"
	"	movaps 16*\\i(%rsp), %xmm\\i\n"
	"	.endr\n"
	"	addq $128, %rsp\n"
	".endm\n"
#endif
	".macro trev_vecs_save\n"
	"	subq $512, %rsp\n"
	"	movq %rsp, %rdi\n"
	"	call trev__vecs_store\n"
	".endm\n"
	".macro trev_cs_save\n"
	"	pushq %r15\n"
	"	pushq %r14\n"
	"	pushq %r13\n"
	"	pushq %r12\n"
	"	pushq 0(%rbp)\n"
	"	pushq %rbx\n"
	"	movq %rsp, %rcx\n"
	".endm\n"
	".macro trev_cs_drop\n"
	"	leaq 48(%rsp), %rsp\n"
	".endm\n"
	".macro trev_vecs_restore\n"
	"	movq %rsp, %rdi\n"
	"	call trev__vecs_load\n"
	"	addq $512, %rsp\n"
	".endm\n");

/*
 * trev__vecs_store() and trev__vecs_load(): vector registers 0-7 to and
 * from the 512 bytes at %rdi, 64 bytes each, at the width trev__vec_kind
 * says. When every upper half saved is 0 (code that does not use them:
 * SSE code, or AVX code after its vzeroupper), the load zeroes them with
 * vzeroupper and moves the low 128 bits with SSE moves, which leaves the
 * CPU's upper state clean, as the function had it: restored by AVX loads
 * it would be dirty, and on Intel CPUs SSE code runs slower then, until
 * the next vzeroupper. Besides the flags the load changes ymm8 (not an
 * argument or result register, the caller's to lose at a call) and
 * nothing else; rdi is kept.
 */
__asm__(".text\n"
	".globl trev__vecs_store\n"
	".hidden trev__vecs_store\n"
	".type trev__vecs_store, @function\n"
	".p2align 4\n"
	"trev__vecs_store:\n"
	"	.cfi_startproc\n"
	"	cmpb $1, trev__vec_kind(%rip)\n"
	"	jb 2f\n"
	"	je 1f\n"
	"	.irp i,0,1,2,3,4,5,6,7\n"
	"	vmovdqu64 %zmm\\i, 64*\\i(%rdi)\n"
	"	.endr\n"
	"	ret\n"
	"1:	.irp i,0,1,2,3,4,5,6,7\n"
	"	vmovdqu %ymm\\i, 64*\\i(%rdi)\n"
	"	.endr\n"
	"	ret\n"
	"2:	.irp i,0,1,2,3,4,5,6,7\n"
	"	movups %xmm\\i, 64*\\i(%rdi)\n"
	"	.endr\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size trev__vecs_store, .-trev__vecs_store\n"
	".globl trev__vecs_load\n"
	".hidden trev__vecs_load\n"
	".type trev__vecs_load, @function\n"
	".p2align 4\n"
	"trev__vecs_load:\n"
	"	.cfi_startproc\n"
	"	cmpb $1, trev__vec_kind(%rip)\n"
	"	jb 3f\n"
	/* ymm8: the OR of the upper bits saved, bytes 16-31 of each slot, and 32-63 for zmm. */
	"	vmovdqu 16(%rdi), %xmm8\n"
	"	.irp i,1,2,3,4,5,6,7\n"
	"	vpor 64*\\i+16(%rdi), %xmm8, %xmm8\n"
	"	.endr\n"
	"	cmpb $1, trev__vec_kind(%rip)\n"
	"	je 1f\n"
	"	.irp i,0,1,2,3,4,5,6,7\n"
	"	vpor 64*\\i+32(%rdi), %ymm8, %ymm8\n"
	"	.endr\n"
	"1:	vptest %ymm8, %ymm8\n"
	"	jnz 2f\n"
	"	vzeroupper\n"			/* every upper half was 0: clean, as before */
	"3:	.irp i,0,1,2,3,4,5,6,7\n"
	"	movups 64*\\i(%rdi), %xmm\\i\n"
	"	.endr\n"
	"	ret\n"
	"2:	cmpb $1, trev__vec_kind(%rip)\n"
	"	je 4f\n"
	"	.irp i,0,1,2,3,4,5,6,7\n"
	"	vmovdqu64 64*\\i(%rdi), %zmm\\i\n"
	"	.endr\n"
	"	ret\n"
	"4:	.irp i,0,1,2,3,4,5,6,7\n"
	"	vmovdqu 64*\\i(%rdi), %ymm\\i\n"
	"	.endr\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size trev__vecs_load, .-trev__vecs_load\n");

/*
 * Entered by the call at a site (directly, or through a stub's jmp), so
 *   0(%rsp)  the site + 5: where the traced function goes on
 *   8(%rsp)  the return address into the traced function's caller
 * At a function's entry every argument register is live: rdi, rsi, rdx,
 * rcx, r8, r9, rax (the vector count of a variadic call), r10 (a nested
 * function's static chain) and the vector registers 0-7. They are saved
 * and put back (above); r11 is scratch at a call. The stack need not be
 * 16-byte aligned here: gcc does not keep the ABI's alignment for calls to
 * local functions that do not need it, so the frame is aligned by hand
 * before movaps and the C calls.
 */
__asm__(".text\n"
	".globl trev__ft_trampoline\n"
	".hidden trev__ft_trampoline\n"
	".type trev__ft_trampoline, @function\n"
	".p2align 4\n"
	"trev__ft_trampoline:\n"
	"	.cfi_startproc\n"
	"	trev_rbp_frame\n"
	"	trev_gprs_save\n"
	"	trev_xmms_save\n"
	"	movq 8(%rbp), %rdi\n"
	"	subq $5, %rdi\n"
	"	movq 16(%rbp), %rsi\n"
	"	call trev__ft_entry_fast\n"
	"	trev_xmms_restore\n"
	"	cmpl $" FT_FULL_STR ", %eax\n"
	"	jb 1f\n"			/* 0: done */
	"	je 2f\n"
	"	trev_xmms_save\n"		/* TREV_FT_PROBE: the probes' fast call */
	"	movq 8(%rbp), %rdi\n"
	"	subq $5, %rdi\n"
	"	leaq 16(%rbp), %rsi\n"
	"	call *trev__ft_probe_fast_fn(%rip)\n"
	"	trev_xmms_restore\n"
	"	cmpl $" FT_FULL_STR ", %eax\n"
	"	jne 1f\n"
	"2:	trev_vecs_save\n"
	"	trev_cs_save\n"
	"	movq 8(%rbp), %rdi\n"
	"	subq $5, %rdi\n"
	"	movq 16(%rbp), %rsi\n"
	"	leaq 16(%rbp), %rdx\n"
	"	call trev__ft_entry\n"	/* called from here: the stack traces' skip point */
	"	trev_cs_drop\n"
	"	trev_vecs_restore\n"
	"1:	trev_gprs_restore 64\n"
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
 * It saves what trev__ft_trampoline saves and calls
 * trev__ft_entry_jmp_fast(), else trev__ft_entry_jmp(). When a graph
 * frame was pushed (they return 1: the frame keeps the return address, the
 * slot holds trev__fg_return), the return address is taken off the stack
 * and the function's body is called from here: the call writes
 * trev__fg_return into the slot again and onto the CPU's return stack, so
 * the body's `ret` into trev__fg_return is predicted, and so is
 * trev__fg_return's own `ret` to the caller, which the caller's call put
 * there. (Through trev__ft_trampoline, the body's `ret` goes where the
 * return stack does not expect: a mispredicted return a call.) Otherwise
 * it jumps into the body with the stack as it came.
 * The flags of `test` live through the restores: mov, lea and pop leave
 * them alone. For an unwinder (backtrace() in a function command's
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
	"	trev_gprs_save\n"
	"	trev_xmms_save\n"
	"	movq -8(%rbp), %rdi\n"
	"	leaq 8(%rbp), %rsi\n"
	"	call trev__ft_entry_jmp_fast\n"
	"	trev_xmms_restore\n"
	"	cmpl $" FT_FULL_STR ", %eax\n"
	"	jne 2f\n"
	"	trev_vecs_save\n"
	"	trev_cs_save\n"
	"	movq -8(%rbp), %rdi\n"
	"	movq 8(%rbp), %rsi\n"
	"	leaq 8(%rbp), %rdx\n"
	"	call trev__ft_entry_jmp\n"	/* as trev__ft_entry from trev__ft_trampoline */
	"	trev_cs_drop\n"
	"	trev_vecs_restore\n"
	"2:	testl %eax, %eax\n"
	"	trev_gprs_restore 72\n"
	"	popq %r11\n"
	"	leaq 5(%r11), %r11\n"		/* the body: past the site's 5 bytes */
	"	popq %rbp\n"
	"	.cfi_def_cfa %rsp, 0\n"
	"	.cfi_register %rip, %r11\n"
	"	jnz 1f\n"
	"	jmp *%r11\n"
	"1:	leaq 8(%rsp), %rsp\n"		/* the return address is in the frame */
	"	.cfi_undefined rip\n"
	"	call *%r11\n"		/* returns into trev__fg_return, next */
	"	.cfi_endproc\n"
	".size trev__fg_trampoline, .-trev__fg_trampoline\n"
	/*
	 * The return trampoline: a hooked function's `ret` lands here with
	 * %rsp one word above its return slot (right after the call above, or
	 * from a slot trev__fg_entry() hooked for trev__ft_trampoline's
	 * sites). Saves what a function returns in (rax, rdx, vector
	 * registers 0 and 1 as the entries save theirs; st(0) is left alone,
	 * the C path uses no x87), aligns the stack, calls
	 * trev__fg_exit_fast(slot), else trev__fg_exit(slot), and goes where
	 * it says with %rsp as the function's `ret` left it: by `ret` when the
	 * graph trampoline called the body (the return stack holds the
	 * caller's address), else by an indirect jmp (a `ret` would take the
	 * return stack's next entry and leave it one off). It is never
	 * unmapped: a frame pushed before the tracer went off still returns
	 * through it.
	 */
	".globl trev__fg_return\n"
	".hidden trev__fg_return\n"
	".type trev__fg_return, @function\n"
	"trev__fg_return:\n"
	"	subq $8, %rsp\n"		/* rsp = the slot, which keeps our address */
	"	pushq %rbp\n"
	"	movq %rsp, %rbp\n"		/* rbp = the slot - 8 */
	"	pushq %rax\n"			/* slot[-2]: fgraph.c's FG_RETVAL() reads it */
	"	pushq %rdx\n"
	"	andq $-16, %rsp\n"
#ifndef TREV_FT_GPR_ONLY
	"	subq $32, %rsp\n"
	"	movaps %xmm0, 0(%rsp)\n"
	"	movaps %xmm1, 16(%rsp)\n"
#endif
	"	leaq 8(%rbp), %rdi\n"
	"	call trev__fg_exit_fast\n"
#ifndef TREV_FT_GPR_ONLY
	"	movaps 0(%rsp), %xmm0\n"
	"	movaps 16(%rsp), %xmm1\n"
	"	addq $32, %rsp\n"
#endif
	"	testq %rax, %rax\n"		/* .to 0: the full path */
	"	jz 3f\n"
	"1:	movq %rax, %r11\n"
	"	testq %rdx, %rdx\n"
	"	movq -8(%rbp), %rax\n"
	"	movq -16(%rbp), %rdx\n"
	"	movq %rbp, %rsp\n"
	"	popq %rbp\n"
	"	leaq 8(%rsp), %rsp\n"		/* as the function's ret left it */
	"	jz 2f\n"
	"	pushq %r11\n"
	"	ret\n"
	"2:	jmp *%r11\n"
	"3:	trev_vecs_save\n"
	"	leaq 8(%rbp), %rdi\n"
	"	call trev__fg_exit\n"
	"	trev_vecs_restore\n"		/* rax and rdx kept */
	"	jmp 1b\n"
	".size trev__fg_return, .-trev__fg_return\n");

/*
 * trev__rb_leave_slow_vsave() - trev__rb_leave_slow() with vector registers
 * 0-7 kept at their full width: the one out-of-line call of the fast calls
 * (ft_fast.h's RB_LEAVE_SLOW). The arguments pass through in their
 * registers (rdi by way of r11: the save uses it).
 */
__asm__(".text\n"
	".globl trev__rb_leave_slow_vsave\n"
	".hidden trev__rb_leave_slow_vsave\n"
	".type trev__rb_leave_slow_vsave, @function\n"
	".p2align 4\n"
	"trev__rb_leave_slow_vsave:\n"
	"	.cfi_startproc\n"
	"	trev_rbp_frame\n"
	"	andq $-16, %rsp\n"
	"	movq %rdi, %r11\n"
	"	trev_vecs_save\n"
	"	movq %r11, %rdi\n"
	"	call trev__rb_leave_slow\n"
	"	trev_vecs_restore\n"
	"	leave\n"
	"	.cfi_def_cfa %rsp, 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size trev__rb_leave_slow_vsave, .-trev__rb_leave_slow_vsave\n");
