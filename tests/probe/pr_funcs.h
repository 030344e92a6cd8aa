/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The probed functions of tests/probe/ (pr_funcs.c, built with the function tracer's flags). */
#ifndef PR_FUNCS_H
#define PR_FUNCS_H

long pr_args(long a, long b, long c, long d, long e, long f, long g, long h);
int pr_str(const char *s, int n);
int pr_ptr(const int *p);

#endif
