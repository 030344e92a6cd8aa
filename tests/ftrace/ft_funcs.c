// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Functions the function-tracer tests trace: built with the flags of
 * `pkg-config --variable=function_cflags trev`. Each computes something
 * its caller checks, with integer and floating-point arguments, so a
 * trampoline that lost a register would show in a result.
 */
#include <time.h>

#include "ft_funcs.h"

__attribute__((noinline)) int ft_add(int a, int b)
{
	return a + b;
}

__attribute__((noinline)) long ft_mix(long a, long b, long c, long d, long e, long f)
{
	return a * 3 + b * 5 + c * 7 + d * 11 + e * 13 + f * 17;
}

__attribute__((noinline)) double ft_fma(double a, double b, double c, double d, double e,
					double f, double g, double h)
{
	return a * b + c * d + e * f + g * h;
}

__attribute__((noinline)) int ft_outer(int x)
{
	return ft_add(x, 1) * 2;
}

__attribute__((noinline)) int ft_spin(int x)
{
	return x ^ 0x5a5a;
}

__attribute__((noinline)) int ft_quiet(int x)
{
	return x + 7;
}

__attribute__((noinline)) int ft_nap(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts))
		;
	return ms;
}
