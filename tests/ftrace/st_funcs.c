// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The stack tracer's test functions (test_ftrace_stack.c), built with the
 * function tracer's flags: a recursion of a known depth whose frames each
 * hold an array of ST_FRAME_BYTES, so the deepest stack's functions, their
 * order and a lower bound of its size are known. Each call uses its callee's
 * result after the call, so none of them is a tail call.
 */
#include "st_funcs.h"

__attribute__((noinline)) int st_leaf(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

__attribute__((noinline)) int st_shallow(int x)
{
	return st_leaf(x) * 3;
}

__attribute__((noinline)) int st_recurse(int n)
{
	volatile char pad[ST_FRAME_BYTES];
	int r;

	pad[0] = (char)n;
	pad[ST_FRAME_BYTES - 1] = (char)n;
	r = n > 1 ? st_recurse(n - 1) : st_leaf(n);
	return r + pad[0] + pad[ST_FRAME_BYTES - 1];
}
