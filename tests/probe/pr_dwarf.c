// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Functions whose parameters probes name (src/probe/probe_dwarf.c): ints of
 * each size and sign, a string, a struct pointer with members of each kind,
 * built with the function tracer's flags and -g. noipa: the compiler keeps
 * each signature as written (no clones with parameters removed).
 */
#include "pr_dwarf.h"

__attribute__((noipa)) long pr_dw_ints(int a, long b, unsigned short c, signed char d,
				       unsigned long e, int f, long g)
{
	return a + b + c + d + (long)e + f + g;
}

__attribute__((noipa)) int pr_dw_str(const char *path, int n)
{
	return path[0] + n;
}

__attribute__((noipa)) long pr_dw_req(struct pr_req *req, int flags)
{
	return req->id + req->len + flags;
}

__attribute__((noipa)) void pr_dw_void(int x)
{
	__asm__ volatile("" : : "r"(x) : "memory");
}

__attribute__((noipa)) struct pr_req *pr_dw_ret(struct pr_req *r)
{
	return r->next;
}

__attribute__((noipa)) int pr_dw_none(void)
{
	return 7;
}

__attribute__((noipa)) int pr_dw_float(double x, int y)
{
	return (int)x + y;
}
