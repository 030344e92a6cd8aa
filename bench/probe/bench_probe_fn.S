/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The probed functions of bench_probe.c, with known first bytes. */
	.text
/* long bench_probe_fn(long a, long b): a + b behind the usual frame: relocated. */
	.globl bench_probe_fn
	.type bench_probe_fn, @function
	.p2align 4
bench_probe_fn:
	pushq %rbp
	movq %rsp, %rbp
	leaq (%rdi,%rsi), %rax
	popq %rbp
	ret
	.size bench_probe_fn, .-bench_probe_fn

/* long bench_probe_short(long a, long b): a + b in 32 bits, 4 bytes: too short, int3. */
	.globl bench_probe_short
	.type bench_probe_short, @function
	.p2align 4
bench_probe_short:
	leal (%rdi,%rsi), %eax
	ret
	.size bench_probe_short, .-bench_probe_short

	.section .rodata
	.globl bench_probe_sizes
	.p2align 3
bench_probe_sizes:
	.quad bench_probe_short - bench_probe_fn
	.quad 4

	.section .note.GNU-stack,"",@progbits
