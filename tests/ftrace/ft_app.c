// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A program for the function tracer's scripts (tests/scripts/ftrace_*.sh):
 * calls the traced functions of ft_funcs.c in a fixed order and checks
 * their results; the scripts turn the tracer on (TREV_WRITE) and record.
 */
#include <stdio.h>

#include "ft_funcs.h"

int main(void)
{
	long sum = 0;

	for (int i = 0; i < 3; i++)
		sum += ft_outer(i);			/* 2 + 4 + 6 */
	sum += ft_mix(1, 1, 1, 1, 1, 1);		/* 56 */
	sum += (long)ft_fma(1, 1, 1, 1, 1, 1, 1, 1);	/* 4 */
	sum += ft_spin(0) == 0x5a5a;			/* 1 */
	if (sum != 73) {
		fprintf(stderr, "ft_app: sum %ld, not 73\n", sum);
		return 1;
	}
	return 0;
}
