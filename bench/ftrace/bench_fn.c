// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The function bench_ftrace calls, built twice: once with the function
 * tracer's flags (bench_fn_traced) and once without (bench_fn_plain),
 * from this one source (BENCH_FN names it).
 */
#include <stdint.h>

uint64_t BENCH_FN(uint64_t x);

__attribute__((noinline)) uint64_t BENCH_FN(uint64_t x)
{
	return x * 0x9e3779b97f4a7c15ull;
}
