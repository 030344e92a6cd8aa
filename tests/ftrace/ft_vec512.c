// SPDX-License-Identifier: LGPL-2.1-or-later
/* See ft_vec.h. Built with -mavx512f and the function tracer's flags. */
#include <immintrin.h>

#include "ft_vec.h"

/* Two __m512d arguments in zmm0 and zmm1, the result in zmm0. */
__m512d ft_vec512_fma(__m512d a, __m512d b);

__attribute__((noinline)) __m512d ft_vec512_fma(__m512d a, __m512d b)
{
	return _mm512_add_pd(_mm512_add_pd(a, a), b);
}

__attribute__((noinline)) void ft_vec512_sum(const double a[8], const double b[8], double out[8])
{
	_mm512_storeu_pd(out, ft_vec512_fma(_mm512_loadu_pd(a), _mm512_loadu_pd(b)));
}
