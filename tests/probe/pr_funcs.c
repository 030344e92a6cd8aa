// SPDX-License-Identifier: LGPL-2.1-or-later
/* The probed functions of tests/probe/: built with the function tracer's flags. */
#include "pr_funcs.h"

__attribute__((noinline)) long pr_args(long a, long b, long c, long d, long e, long f, long g,
				       long h)
{
	__asm__ volatile("" ::: "memory");
	return a + b + c + d + e + f + g + h;
}

__attribute__((noinline)) int pr_str(const char *s, int n)
{
	__asm__ volatile("" ::: "memory");
	return s[0] + n;
}

__attribute__((noinline)) int pr_ptr(const int *p)
{
	__asm__ volatile("" ::: "memory");
	return p ? 1 : 0;
}
