// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uft_target N: calls bench_fn_uft() (bench/ftrace/bench_fn.c built with
 * -fpatchable-function-entry=5 and nothing of trev) N times after a warm-up
 * of N/10, and prints the nanoseconds per call of the timed loop. bench_ftrace
 * runs it plain and under `uftrace record -P bench_fn_uft` (bench_uftrace.h):
 * uftrace traces the same function, built the same way, as trev does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

uint64_t bench_fn_uft(uint64_t x);

static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static __attribute__((noinline)) void run(uint64_t n)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < n; i++)
		s += bench_fn_uft(i);
	sink += s;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 0, t0, t1;

	if (n < 1000) {
		fprintf(stderr, "usage: uft_target CALLS (at least 1000)\n");
		return 2;
	}
	run(n / 10);
	t0 = now_ns();
	run(n);
	t1 = now_ns();
	printf("%.3f\n", (double)(t1 - t0) / (double)n);
	return 0;
}
