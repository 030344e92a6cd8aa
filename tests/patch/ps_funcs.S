/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Functions for the probe-site tests (test_probe_site.c), written in
 * assembly so that their first bytes are known; built without trev's
 * function flags, into a shared library (their .dynsym entries give
 * dladdr1 their sizes).
 */
	.text

/* long ps_push_rbp(long a, long b): a + b, behind the usual frame (1 + 3 + 4 bytes). */
	.globl ps_push_rbp
	.type ps_push_rbp, @function
	.p2align 4
ps_push_rbp:
	pushq %rbp
	movq %rsp, %rbp
	leaq (%rdi,%rsi), %rax
	popq %rbp
	ret
	.size ps_push_rbp, .-ps_push_rbp

/* long ps_rip_load(long a): ps_data + a; the load is RIP-relative, 7 bytes. */
	.globl ps_rip_load
	.type ps_rip_load, @function
	.p2align 4
ps_rip_load:
	movq ps_data(%rip), %rax
	addq %rdi, %rax
	ret
	.size ps_rip_load, .-ps_rip_load

/* long ps_short(long a): 0, in 3 bytes: too short for a jmp. */
	.globl ps_short
	.type ps_short, @function
	.p2align 4
ps_short:
	xorl %eax, %eax
	ret
	.size ps_short, .-ps_short

/* long ps_jump_back(long n, long b): n * b (n > 0) by a loop back to byte 2. */
	.globl ps_jump_back
	.type ps_jump_back, @function
	.p2align 4
ps_jump_back:
	xorl %eax, %eax
1:	addq %rsi, %rax
	decq %rdi
	jnz 1b
	ret
	.size ps_jump_back, .-ps_jump_back

/* long ps_call_first(long a): ps_seven() + a, the call in the first 5 bytes. */
	.globl ps_call_first
	.type ps_call_first, @function
	.p2align 4
ps_call_first:
	call ps_seven
	addq %rdi, %rax
	ret
	.size ps_call_first, .-ps_call_first

	.hidden ps_seven
	.type ps_seven, @function
ps_seven:
	movl $7, %eax
	ret
	.size ps_seven, .-ps_seven

/* long ps_jcc_first(long a): a, or -1 for 0, a rel8 jcc in the first 5 bytes. */
	.globl ps_jcc_first
	.type ps_jcc_first, @function
	.p2align 4
ps_jcc_first:
	testq %rdi, %rdi
	jz 1f
	movq %rdi, %rax
	ret
1:	movq $-1, %rax
	ret
	.size ps_jcc_first, .-ps_jcc_first

/*
 * long ps_flags(long a, long b): 1 if a < b, else 2; probed at ps_flags_mid,
 * between the cmp and the jl that reads its flags.
 */
	.globl ps_flags
	.type ps_flags, @function
	.p2align 4
ps_flags:
	cmpq %rsi, %rdi
ps_flags_mid:
	movl $1, %eax
	jl 1f
	movl $2, %eax
1:	ret
	.size ps_flags, .-ps_flags

/* double ps_fadd(double a, double b): a + b through xmm2; probed at its 2nd instruction. */
	.globl ps_fadd
	.type ps_fadd, @function
	.p2align 4
ps_fadd:
	movapd %xmm0, %xmm2
ps_fadd_mid:
	addsd %xmm1, %xmm2
	movapd %xmm2, %xmm0
	ret
	.size ps_fadd, .-ps_fadd

/*
 * void ps_ymm_add(double *out4, const double *a4, const double *b4): out = a + b
 * with ymm0 and ymm1 live across the probed instruction (ps_ymm_mid).
 */
	.globl ps_ymm_add
	.type ps_ymm_add, @function
	.p2align 4
ps_ymm_add:
	vmovupd (%rsi), %ymm0
	vmovupd (%rdx), %ymm1
ps_ymm_mid:
	vaddpd %ymm1, %ymm0, %ymm0
	vmovupd %ymm0, (%rdi)
	vzeroupper
	ret
	.size ps_ymm_add, .-ps_ymm_add

	.section .rodata
	.globl ps_offsets
	.type ps_offsets, @object
	.p2align 3
/* ps_flags_mid, ps_fadd_mid, ps_ymm_mid: their offsets in their functions. */
ps_offsets:
	.quad ps_flags_mid - ps_flags
	.quad ps_fadd_mid - ps_fadd
	.quad ps_ymm_mid - ps_ymm_add
	.size ps_offsets, .-ps_offsets

	.data
	.p2align 3
ps_data:
	.quad 1000

	.section .note.GNU-stack,"",@progbits
