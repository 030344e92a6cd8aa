// SPDX-License-Identifier: LGPL-2.1-or-later
/* A library the function tracer tests dlopen(): built with the tracer's flags. */

int ft_mod_twice(int x);
double ft_mod_scale(double x, double k);

__attribute__((visibility("default"), noinline)) int ft_mod_twice(int x)
{
	return 2 * x;
}

__attribute__((visibility("default"), noinline)) double ft_mod_scale(double x, double k)
{
	return x * k;
}
