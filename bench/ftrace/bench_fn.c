// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The function bench_ftrace calls, built twice: once with the function
 * tracer's flags (bench_fn_traced) and once without (bench_fn_plain),
 * from this one source (BENCH_FN names it).
 */
#include <stdint.h>

uint64_t BENCH_FN(uint64_t x);

#ifdef BENCH_FN_PAGE
/*
 * The kernel uprobe's target (bench_uprobe.h): on a text page of its own.
 * trev's patches write through /proc/self/mem, which gives the process its
 * own copy of the page; the kernel then does not put its breakpoint there.
 */
__attribute__((noinline, aligned(4096), section(".text.bench_fn_page")))
#else
__attribute__((noinline))
#endif
uint64_t BENCH_FN(uint64_t x)
{
	return x * 0x9e3779b97f4a7c15ull;
}
#ifdef BENCH_FN_PAGE
__asm__(".pushsection .text.bench_fn_page,\"ax\",@progbits\n.p2align 12\n.popsection");
#endif
