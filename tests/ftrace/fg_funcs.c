// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Functions the function_graph tests trace, built with the function
 * tracer's flags: a small call tree, recursion, longjmp out of traced
 * frames, a callback (signal handlers, fork), return values in rax, rdx,
 * xmm0 and st(0), a function that does not return until told, and one
 * that sleeps.
 */
#include <time.h>

#include "fg_funcs.h"

/* Keeps a call a call: no tail call, no folding into the caller. */
#define FG_KEEP(x) __asm__ volatile("" : "+r"(x))

__attribute__((noinline)) int fg_leaf(int x)
{
	FG_KEEP(x);
	return x + 1;
}

__attribute__((noinline)) int fg_mid(int x)
{
	int r = fg_leaf(x) * 2;

	FG_KEEP(r);
	return r;
}

__attribute__((noinline)) int fg_top(int x)
{
	int r = fg_mid(x);

	r += fg_leaf(x);
	FG_KEEP(r);
	return r;
}

/* At -O2 a tail call: fg_leaf returns into trev__fg_return, which then returns for fg_tail. */
__attribute__((noinline)) int fg_tail(int x)
{
	return fg_leaf(x + 1);
}

__attribute__((noinline)) int fg_rec(int n)
{
	int r = n ? fg_rec(n - 1) + 1 : 0;

	FG_KEEP(r);
	return r;
}

/* set_graph_notrace's subject: its callees must not show. */
__attribute__((noinline)) int fg_hidden(int x)
{
	int r = fg_leaf(x) + fg_leaf(x + 1);

	FG_KEEP(r);
	return r;
}

/* Never returns: every path ends in longjmp(), which the compiler calls infinite recursion. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winfinite-recursion"
__attribute__((noinline)) void fg_jump(jmp_buf *jb, int depth)
{
	FG_KEEP(depth);
	if (depth > 0)
		fg_jump(jb, depth - 1);
	longjmp(*jb, 1);
}
#pragma GCC diagnostic pop

__attribute__((noinline)) int fg_call(int (*fn)(int), int x)
{
	int r = fn(x);

	FG_KEEP(r);
	return r;
}

__attribute__((noinline)) double fg_dret(double a, double b)
{
	return a * 2.5 + b;
}

__attribute__((noinline)) struct fg_pair fg_pair(long a)
{
	struct fg_pair p = { a * 3, a * 7 };

	FG_KEEP(p.a);
	return p;
}

__attribute__((noinline)) long double fg_ldret(long double x)
{
	return x * 3 + 0.25L;
}

/* Does not return until *@release is set: a thread parked in a traced function. */
__attribute__((noinline)) int fg_park(atomic_int *release)
{
	int spins = 0;

	while (!atomic_load(release)) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
		spins++;
	}
	FG_KEEP(spins);
	return 42;
}

/* Lasts at least @ms milliseconds (tracing_thresh). */
__attribute__((noinline)) int fg_slow(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts))
		;
	return ms;
}
