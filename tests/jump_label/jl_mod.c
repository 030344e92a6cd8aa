/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A module built with jump labels, for tests/jump_label/test_jump_label.c:
 * sites of its own event (jl_mod:jl_mod_ev) and of the program's
 * (jl_test:jl_tick, whose key is in the program).
 */
#define CREATE_TRACE_POINTS
#include "jl_mod_events.h"
#undef CREATE_TRACE_POINTS
#include "jl_events.h"

void jl_mod_fire(int n);

__attribute__((visibility("default"))) void jl_mod_fire(int n)
{
	for (int i = 0; i < n; i++) {
		trace_jl_tick(i);
		trace_jl_mod_ev(i);
	}
}
