// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Functions whose parameters probes name (src/probe/probe_dwarf.c): ints of
 * each size and sign, a string, a struct pointer with members of each kind,
 * built with the function tracer's flags and -g; PR_NOIPA (pr_dwarf.h): each
 * signature as written.
 */
#include "pr_dwarf.h"

PR_NOIPA long pr_dw_ints(int a, long b, unsigned short c, signed char d,
			  unsigned long e, int f, long g)
{
	return a + b + c + d + (long)e + f + g;
}

PR_NOIPA int pr_dw_str(const char *path, int n)
{
	return path[0] + n;
}

PR_NOIPA long pr_dw_req(struct pr_req *req, int flags)
{
	return req->id + req->len + flags;
}

PR_NOIPA void pr_dw_void(int x)
{
	__asm__ volatile("" : : "r"(x) : "memory");
}

PR_NOIPA struct pr_req *pr_dw_ret(struct pr_req *r)
{
	return r->next;
}

PR_NOIPA int pr_dw_none(void)
{
	return 7;
}

PR_NOIPA int pr_dw_float(double x, int y)
{
	return (int)x + y;
}
