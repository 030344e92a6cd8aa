/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What every benchmark shares: clocks, the median, and the floor — a
 * hand-written per-thread ring write of a 24-byte record with an rdtsc time
 * stamp, which each benchmark measures in its own run (docs/benchmarks.md). Everything
 * is static inline: each benchmark uses what it needs.
 */
#ifndef TREV_BENCH_COMMON_H
#define TREV_BENCH_COMMON_H

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#define REC_LEN			24u		/* payload: 3 x u64 */
#define REC_SIZE		(4u + REC_LEN)	/* with its header word */
#define DELTA_MAX		((1u << 27) - 1)
#define FLOOR_RING_SIZE		(1u << 20)

#define noinline		__attribute__((noinline))

static __thread volatile uint64_t sink;	/* per thread: no data race */

static inline void die(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
		strerror(err < 0 ? -err : err));
	exit(1);
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CPU time of the calling thread: shows when a run was not on a CPU. */
static inline uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t bench_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	return now_ns();
#endif
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of @v[0..n); sorts @v. */
static inline double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ------------------------------------------------------------------ */
/* The floor: a hand-written per-thread ring write                      */

static __thread uint8_t *floor_ring;
static __thread uint32_t floor_off;
static __thread uint64_t floor_last_tsc;
static __thread _Atomic uint32_t floor_commit;	/* what a reader would load */

static inline void floor_write(const uint64_t v[3])
{
	uint64_t tsc = bench_tsc();
	uint64_t delta = tsc - floor_last_tsc;
	uint32_t off = floor_off, hdr;

	if (delta > DELTA_MAX)
		delta = DELTA_MAX;
	floor_last_tsc = tsc;
	hdr = (REC_LEN / 4) | ((uint32_t)delta << 5);
	if (off + REC_SIZE > FLOOR_RING_SIZE)
		off = 0;
	memcpy(floor_ring + off, &hdr, 4);
	memcpy(floor_ring + off + 4, v, REC_LEN);
	off += REC_SIZE;
	floor_off = off;
	atomic_store_explicit(&floor_commit, off, memory_order_release);
}

static __attribute__((unused)) noinline uint64_t floor_loop(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v[3] = { i, i * 3, ~i };

		floor_write(v);
	}
	return 0;
}

static inline void floor_setup(void)
{
	floor_ring = malloc(FLOOR_RING_SIZE);
	if (!floor_ring)
		die("malloc", ENOMEM);
	memset(floor_ring, 0, FLOOR_RING_SIZE);
	floor_off = 0;
	floor_last_tsc = bench_tsc();
}

/* Read the ring back through a volatile sink, so no store is dead. */
static inline void floor_teardown(void)
{
	uint64_t sum = atomic_load_explicit(&floor_commit, memory_order_acquire), w;

	for (uint32_t off = 0; off < FLOOR_RING_SIZE; off += 64) {
		memcpy(&w, floor_ring + off, 8);
		sum += w;
	}
	sink += sum;
	free(floor_ring);
	floor_ring = NULL;
}

/* ------------------------------------------------------------------ */
/* Timing a case against its reference                                  */

#define BENCH_RUNS	5	/* runs of each case; the median is reported */

typedef void (*bench_fn)(uint64_t n);

/* Run in the timing thread before each timed run, when set (bench_events: BENCH_FAKE_CPU). */
static void (*bench_before_run)(void);

/* A case and its ratio to its reference. */
struct result {
	double ns;	/* median ns per event (or call) */
	double ratio;	/* median of (case / reference) over runs made next to each other */
};

/* ns per event of one timed run of @fn(@n) on this thread, the floor's ring set up around it. */
static __attribute__((unused)) double time_run(bench_fn fn, uint64_t n)
{
	uint64_t t0, t1;

	if (bench_before_run)
		bench_before_run();
	floor_setup();
	fn(n / 10);		/* warm up */
	t0 = now_ns();
	fn(n);
	t1 = now_ns();
	floor_teardown();
	return (double)(t1 - t0) / (double)n;
}

/*
 * @fn, each run right after a run of @ref: the CPU this VM gives us
 * changes speed over seconds (its sibling thread's load), so each ratio
 * compares two runs made within milliseconds of each other.
 */
static __attribute__((unused)) struct result measure_vs(bench_fn fn, bench_fn ref, uint64_t n)
{
	double ns[BENCH_RUNS], ratio[BENCH_RUNS];

	for (int r = 0; r < BENCH_RUNS; r++) {
		double f = time_run(ref, n);

		ns[r] = time_run(fn, n);
		ratio[r] = ns[r] / f;
	}
	return (struct result){ median(ns, BENCH_RUNS), median(ratio, BENCH_RUNS) };
}

#endif /* TREV_BENCH_COMMON_H */
