// SPDX-License-Identifier: LGPL-2.1-or-later
/* See ft_vec.h. Built with -mavx2 and the function tracer's flags. */
#include <immintrin.h>

#include "ft_vec.h"

/* Eight __m256d arguments: all of ymm0-7, their upper halves included. */
__m256d ft_vec256_add8(__m256d a, __m256d b, __m256d c, __m256d d, __m256d e, __m256d f,
		       __m256d g, __m256d h);

__attribute__((noinline)) __m256d ft_vec256_add8(__m256d a, __m256d b, __m256d c, __m256d d,
						  __m256d e, __m256d f, __m256d g, __m256d h)
{
	return _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(a, b), _mm256_add_pd(c, d)),
			     _mm256_add_pd(_mm256_add_pd(e, f), _mm256_add_pd(g, h)));
}

__attribute__((noinline)) void ft_vec256_sum(const double in[8][4], double out[4])
{
	__m256d v[8];

	for (int k = 0; k < 8; k++)
		v[k] = _mm256_loadu_pd(in[k]);
	_mm256_storeu_pd(out, ft_vec256_add8(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]));
}
