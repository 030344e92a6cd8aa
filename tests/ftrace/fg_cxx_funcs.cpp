// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * C++ functions the function_graph tests trace (built with the function
 * tracer's flags): exceptions thrown through traced frames, caught in a
 * traced frame or outside any, rethrown, and destructors that must run on
 * the way.
 */
#include <stdexcept>

#include <pthread.h>
#include <unistd.h>

#include "fg_cxx_funcs.h"

namespace {

struct guard {
	int *n;
	~guard() { ++*n; }
};

}  // namespace

extern "C" __attribute__((noinline)) int cx_leaf(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 2;
}

extern "C" __attribute__((noinline)) int cx_throw(int x)
{
	if (x > 0)
		throw std::runtime_error("cx_throw");
	return cx_leaf(x);
}

extern "C" __attribute__((noinline)) int cx_middle(int x, int *dtors)
{
	guard g{ dtors };
	int r = cx_throw(x);

	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

extern "C" __attribute__((noinline)) int cx_catch(int x, int *dtors)
{
	try {
		return cx_middle(x, dtors);
	} catch (const std::runtime_error &) {
		return cx_leaf(-1);
	}
}

extern "C" __attribute__((noinline)) int cx_rethrow(int x, int *dtors)
{
	try {
		return cx_middle(x, dtors);
	} catch (...) {
		++*dtors;
		throw;
	}
}

extern "C" __attribute__((noinline)) int cx_wait(int *dtors)
{
	guard g{ dtors };

	for (;;)
		pause();	/* a cancellation point */
	return 0;
}

extern "C" __attribute__((noinline)) int cx_wait_outer(int *dtors)
{
	guard g{ dtors };
	int r = cx_wait(dtors);

	__asm__ volatile("" : "+r"(r));
	return r;
}
