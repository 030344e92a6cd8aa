// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * jl_tick's sites from C++ with jump labels (tests/jump_label/): the
 * public headers compile as C++ with the macro on, and the sites work.
 */
#include "jl_events.h"

extern "C" void jl_fire_cxx(int n);

extern "C" void jl_fire_cxx(int n)
{
	for (int i = 0; i < n; i++)
		trace_jl_tick(i);
}
