/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The traced functions of tests/ftrace/ (ft_funcs.c, built with the function tracer's flags). */
#ifndef FT_FUNCS_H
#define FT_FUNCS_H

int ft_add(int a, int b);
long ft_mix(long a, long b, long c, long d, long e, long f);
double ft_fma(double a, double b, double c, double d, double e, double f, double g, double h);
int ft_outer(int x);
int ft_spin(int x);
int ft_quiet(int x);
/* Sleeps @ms milliseconds at least (the profiler's time); returns @ms. */
int ft_nap(int ms);

#endif
