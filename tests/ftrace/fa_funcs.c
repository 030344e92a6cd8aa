// SPDX-License-Identifier: LGPL-2.1-or-later
/* The functions test_ftrace_args traces (fa_funcs.h), built with the function tracer's flags. */
#include "fa_funcs.h"

/* noinline and an empty asm: each stays a call the tracer sees, with its arguments in registers. */
__attribute__((noinline)) long fa_six(long a, long b, long c, long d, long e, long f)
{
	__asm__ volatile("" ::: "memory");
	return a + b + c + d + e + f;
}

__attribute__((noinline)) int fa_err(int x)
{
	__asm__ volatile("" ::: "memory");
	return -x;
}

__attribute__((noinline)) long fa_lerr(long x)
{
	__asm__ volatile("" ::: "memory");
	return -x;
}

__attribute__((noinline)) unsigned long fa_big(void)
{
	__asm__ volatile("" ::: "memory");
	return 0x12345678abcul;
}

__attribute__((noinline)) long fa_nest(long a, long b, long c, long d, long e, long f)
{
	long s = fa_six(a, b, c, d, e, f);

	__asm__ volatile("" ::: "memory");
	return s + fa_err(22);
}
