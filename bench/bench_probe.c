// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a probe site's hit costs (src/patch/probe_site.c, docs/probes.md):
 * a call of a 5-instruction function unprobed, with a relocated-prologue
 * probe and with an int3 probe, each with an empty handler. Prints ns per
 * call; bench/instructions.sh counts the relocated hit's instructions with
 * callgrind (run_calls). BENCH_PROBE_N calls (default 1000000, the int3
 * path a tenth of that), BENCH_PROBE_ONLY=plain|relocated|int3.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "patch/probe_site.h"

long bench_probe_fn(long a, long b);
long bench_probe_short(long a, long b);
extern const uint64_t bench_probe_sizes[2];

static unsigned long hits;

static void empty_handler(struct trev_regs *regs, void *data)
{
	(void)regs;
	(void)data;
}

static void counting_handler(struct trev_regs *regs, void *data)
{
	(void)regs;
	(void)data;
	hits++;
}

/* The loop callgrind counts: @n calls of @fn. */
__attribute__((noinline)) long run_calls(long (*volatile fn)(long, long), long n);
__attribute__((noinline)) long run_calls(long (*volatile fn)(long, long), long n)
{
	long sum = 0;

	for (long i = 0; i < n; i++)
		sum += fn(i, 1);
	return sum;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int one(const char *name, long (*fn)(long, long), size_t size, int probe, long n)
{
	struct trev_site *s = NULL;
	const char *why = NULL;
	long warm = n / 10, want;
	double t0, t1;

	if (probe) {
		int ret = trev__site_attach_in((uintptr_t)fn, (uintptr_t)fn, size, empty_handler,
					       NULL, &s, &why);

		if (ret) {
			fprintf(stderr, "bench_probe: %s: attach: %d %s\n", name, ret, why ? why : "");
			return 1;
		}
		if (strcmp(name, trev__site_kind(s) == TREV_SITE_RELOCATED ? "relocated" : "int3")) {
			fprintf(stderr, "bench_probe: %s took the other path (%s)\n", name,
				why ? why : "");
			return 1;
		}
	}
	run_calls(fn, warm);
	t0 = now_ns();
	want = run_calls(fn, n);
	t1 = now_ns();
	if (want != n * (n - 1) / 2 + n) {
		fprintf(stderr, "bench_probe: %s: wrong results\n", name);
		return 1;
	}
	printf("%-10s %8.1f ns/call\n", name, (t1 - t0) / (double)n);
	if (s)
		trev__site_detach(s);
	return 0;
}

int main(void)
{
	const char *only = getenv("BENCH_PROBE_ONLY");
	long n = getenv("BENCH_PROBE_N") ? atol(getenv("BENCH_PROBE_N")) : 1000000;
	int ret = 0;
	struct trev_site *s;
	const char *why;

	/* The handler is called once per call: checked once, outside the timed loops. */
	if (trev__site_attach_in((uintptr_t)bench_probe_fn, (uintptr_t)bench_probe_fn,
				 bench_probe_sizes[0], counting_handler, NULL, &s, &why) ||
	    run_calls(bench_probe_fn, 1000) != 1000 * 999 / 2 + 1000 || hits != 1000 ||
	    trev__site_detach(s)) {
		fprintf(stderr, "bench_probe: the handler was not called once per call\n");
		return 1;
	}
	if (!only || !strcmp(only, "plain"))
		ret |= one("plain", bench_probe_fn, bench_probe_sizes[0], 0, n);
	if (!only || !strcmp(only, "relocated"))
		ret |= one("relocated", bench_probe_fn, bench_probe_sizes[0], 1, n);
	if (!only || !strcmp(only, "int3"))
		ret |= one("int3", bench_probe_short, bench_probe_sizes[1], 1, n / 10 ? n / 10 : 1);
	return ret;
}
