/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The functions the function_graph tests trace (fg_funcs.c, built with the function flags). */
#ifndef FG_FUNCS_H
#define FG_FUNCS_H

#include <setjmp.h>
#include <stdatomic.h>

#ifdef __cplusplus
extern "C" {
#endif

struct fg_pair {
	long a, b;
};

int fg_leaf(int x);
int fg_mid(int x);
int fg_top(int x);
int fg_rec(int n);
int fg_tail(int x);
int fg_hidden(int x);
void fg_jump(jmp_buf *jb, int depth);
int fg_call(int (*fn)(int), int x);
double fg_dret(double a, double b);
struct fg_pair fg_pair(long a);
long double fg_ldret(long double x);
int fg_park(atomic_int *release);
int fg_slow(int ms);

#ifdef __cplusplus
}
#endif

#endif
