/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The functions test_ftrace_args traces (fa_funcs.c, built with the function
 * tracer's flags): arguments in all six registers, return values that print
 * as error codes and as hex.
 */
#ifndef FA_FUNCS_H
#define FA_FUNCS_H

/* The sum of its arguments. */
long fa_six(long a, long b, long c, long d, long e, long f);
/* -@x as an int: rax holds it zero-extended from eax. */
int fa_err(int x);
/* -@x as a long. */
long fa_lerr(long x);
/* 0x12345678abc. */
unsigned long fa_big(void);
/* fa_six(a, ..., f) + fa_err(22): a nested call with a leaf of each kind. */
long fa_nest(long a, long b, long c, long d, long e, long f);

#endif
