/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_events' loops over be_ints3 with jump labels: this file alone is
 * built with -DTREV_JUMP_LABEL=1 (bench/CMakeLists.txt), so one run
 * measures both guards (docs/jump-labels.md, "Measurements").
 */
#include <stdint.h>

#include "bench_events_trace.h"

#ifndef TREV_JUMP_LABEL_ON
#error "bench_jl.c is built with -DTREV_JUMP_LABEL=1"
#endif

void run_ints3_jl(uint64_t n);

__attribute__((noinline)) void run_ints3_jl(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		trace_be_ints3((int)i, (int)(i * 3), (int)~i);
}
