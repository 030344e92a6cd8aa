/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_lttng_try: shows that the LTTng-UST side of the benchmarks works.
 * Starts LTTng (bench_lttng.h), emits TRY_LTTNG_RUNS (default 3) timed runs
 * of TRY_LTTNG_EVENTS (default 1000000) events of each kind, timing each
 * run with clock_gettime(), stops, and prints the median ns/event and what
 * LTTng recorded and discarded. For scale, the same loop over a floor: a
 * hand-written per-thread ring write (bench_common.h) with an rdtsc time stamp,
 * called out of line like the LTTng emitters; and over clock_gettime()
 * alone, which LTTng-UST calls for every event's time stamp.
 *
 * BENCH_LTTNG_MODE=discard (see bench_lttng.h) streams everything to disk,
 * so that recorded + discarded must equal the events emitted.
 *
 * Prints n/a and exits 0 when LTTng is unavailable.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"
#include "bench_lttng.h"

#define WARM_EVENTS		10000ull
#define MAX_RUNS		15

static const char str_arg[] = "trev benchmark";	/* 14 characters */

/* The floor (bench_common.h), called out of line like the LTTng emitters. */
static noinline void floor_ints3(int a, int b, int c)
{
	uint64_t v[3] = { (uint64_t)a, (uint64_t)b, (uint64_t)c };

	floor_write(v);
}

/* ---- timing --------------------------------------------------------------- */

enum ev { EV_FLOOR, EV_CLOCK, EV_INTS3, EV_STR, EV_TRACEF };

static noinline void emit(enum ev ev, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		int a = (int)i, b = (int)(i * 3), c = (int)~i;

		switch (ev) {
		case EV_FLOOR:
			floor_ints3(a, b, c);
			break;
		case EV_CLOCK:	/* what LTTng-UST's time stamps cost */
			sink = now_ns();
			break;
		case EV_INTS3:
			lttng_bench_ints3(a, b, c);
			break;
		case EV_STR:
			lttng_bench_str(str_arg);
			break;
		case EV_TRACEF:
			lttng_bench_tracef3(a, b, c);
			break;
		}
	}
}

struct try_result {
	const char *name;
	double ns, cpu_ns;	/* medians */
	double min_ns, max_ns;
};

/* @runs timed runs of @n events after a warm-up; medians. */
static struct try_result time_one(const char *name, enum ev ev, uint64_t n, int runs)
{
	double ns[MAX_RUNS], cpu[MAX_RUNS];
	struct try_result r = { .name = name };

	emit(ev, WARM_EVENTS);
	for (int i = 0; i < runs; i++) {
		uint64_t t0, t1, c0, c1;

		t0 = now_ns();
		c0 = cpu_ns();
		emit(ev, n);
		c1 = cpu_ns();
		t1 = now_ns();
		ns[i] = (double)(t1 - t0) / (double)n;
		cpu[i] = (double)(c1 - c0) / (double)n;
	}
	r.ns = median(ns, runs);
	r.min_ns = ns[0];
	r.max_ns = ns[runs - 1];
	r.cpu_ns = median(cpu, runs);
	return r;
}

static void print_header(void)
{
	printf("%-40s %9s %9s %8s  %s\n", "case", "ns/event", "cpu ns", "x floor",
	       "min-max ns");
}

static void print_result(const struct try_result *r, double floor_ns)
{
	printf("%-40s %9.1f %9.1f %7.1fx  %.1f-%.1f\n", r->name, r->ns, r->cpu_ns,
	       floor_ns > 0 ? r->ns / floor_ns : 0, r->min_ns, r->max_ns);
}

static void print_count(const char *what, unsigned long long v)
{
	if (v == LTTNG_BENCH_UNKNOWN)
		printf("%-10s unknown\n", what);
	else
		printf("%-10s %llu\n", what, v);
}

int main(void)
{
	const char *env = getenv("TRY_LTTNG_EVENTS"), *renv = getenv("TRY_LTTNG_RUNS");
	uint64_t n = env && *env ? strtoull(env, NULL, 0) : 1000000ull;
	int runs = renv && *renv ? atoi(renv) : 3;
	unsigned long long recorded, discarded, emitted;
	struct try_result floor, clk, r[3];
	char err[512];
	uint64_t t0;
	int ret;

	if (!n)
		n = 1;
	if (runs < 1 || runs > MAX_RUNS)
		runs = 3;
	floor_setup();
	floor = time_one("floor: per-thread ring, 3 ints + rdtsc", EV_FLOOR, n, runs);
	floor_teardown();
	clk = time_one("clock_gettime(CLOCK_MONOTONIC) alone", EV_CLOCK, n, runs);

	t0 = now_ns();
	ret = lttng_bench_start(err, sizeof(err));
	printf("# bench_lttng_try: %d runs x %llu events per case (+%llu warm-up), median\n",
	       runs, (unsigned long long)n, WARM_EVENTS);
	if (ret < 0) {
		print_header();
		print_result(&floor, floor.ns);
		print_result(&clk, floor.ns);
		printf("%-40s %9s  (%s)\n", "lttng", "n/a", err);
		return 0;
	}
	printf("# lttng: %s; start %.0f ms\n", lttng_bench_config(),
	       (double)(now_ns() - t0) / 1e6);

	r[0] = time_one("lttng-ust trev_bench:ints3", EV_INTS3, n, runs);
	r[1] = time_one("lttng-ust trev_bench:str (14 chars)", EV_STR, n, runs);
	r[2] = time_one("lttng_ust_tracef(\"%d %d %d\")", EV_TRACEF, n, runs);
	emitted = 3 * ((unsigned long long)n * (unsigned long long)runs + WARM_EVENTS);

	t0 = now_ns();
	ret = lttng_bench_stop(&recorded, &discarded);

	print_header();
	print_result(&floor, floor.ns);
	print_result(&clk, floor.ns);
	for (int i = 0; i < 3; i++)
		print_result(&r[i], floor.ns);
	printf("# lttng stop %.0f ms%s\n", (double)(now_ns() - t0) / 1e6,
	       ret ? " (with errors)" : "");
	print_count("emitted", emitted);
	print_count("recorded", recorded);
	print_count("discarded", discarded);
	if (recorded != LTTNG_BENCH_UNKNOWN && discarded != LTTNG_BENCH_UNKNOWN &&
	    recorded + discarded != emitted)
		printf("# recorded + discarded != emitted%s\n",
		       strstr(lttng_bench_config(), "overwrite") ?
		       " (expected in overwrite mode: the snapshot holds the last buffers' worth)" :
		       "");
	return 0;
}
