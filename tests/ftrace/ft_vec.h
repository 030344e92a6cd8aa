/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Traced functions that take and return vectors in ymm and zmm registers
 * (ft_vec256.c built with -mavx2, ft_vec512.c with -mavx512f, both with the
 * function tracer's flags), for test_ftrace_vec.c. The vectors are passed
 * as four or eight doubles in memory to and from the callers, which are
 * built without AVX: ft_vec*_sum() load them, make the call whose
 * arguments and return value live in the vector registers, and store the
 * result.
 */
#ifndef FT_VEC_H
#define FT_VEC_H

/* out[i] = the sum of in[k][i] over the 8 inputs; i < 4. Through ft_vec256_add8(). */
void ft_vec256_sum(const double in[8][4], double out[4]);
/* out[i] = 2 * a[i] + b[i]; i < 8. Through ft_vec512_fma(). */
void ft_vec512_sum(const double a[8], const double b[8], double out[8]);

#endif
