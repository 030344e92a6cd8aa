/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Trace clocks: TSC calibration for `local`, clock_gettime() for the rest,
 * and the names tracefs shows in trace_clock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ring_buffer/rb_clock.h"

struct rb_tsc_calib trev__tsc;

static const char *const clock_names[TREV_CLOCK__COUNT] = {
	[TREV_CLOCK_LOCAL] = "local",
	[TREV_CLOCK_MONO] = "mono",
	[TREV_CLOCK_MONO_RAW] = "mono_raw",
	[TREV_CLOCK_BOOT] = "boot",
	[TREV_CLOCK_COUNTER] = "counter",
};

const char *trev_clock_name(int clock)
{
	if (clock < 0 || clock >= TREV_CLOCK__COUNT)
		return NULL;
	return clock_names[clock];
}

int trev_clock_from_name(const char *name)
{
	for (int i = 0; i < TREV_CLOCK__COUNT; i++)
		if (strcmp(name, clock_names[i]) == 0)
			return i;
	return -EINVAL;
}

static uint64_t ts_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#ifdef RB_HAVE_TSC
/* Both flags mean the TSC ticks at one rate in every P- and C-state. */
static int tsc_invariant(void)
{
	char line[4096];
	int constant = 0, nonstop = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(f);
	return constant && nonstop;
}

/* A (tsc, ns) pair taken as close together as the machine allows. */
static void tsc_sample(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t t0 = __rdtsc();
		uint64_t n = ts_ns(CLOCK_MONOTONIC);
		uint64_t t1 = __rdtsc();

		if (t1 - t0 < best) {
			best = t1 - t0;
			*tsc = t0 + (t1 - t0) / 2;
			*ns = n;
		}
	}
}

/*
 * TREV_TSC=MULT:OFFSET (decimal): the conversion another process made, so
 * that every process of a recording maps the TSC onto one time line (`trev
 * record -- COMMAND` passes its own: docs/sessions.md, "Clocks"). Taken
 * when it is plausible (a mult of 1/64 to 64 ns per tick) and it tells the
 * time: it gives CLOCK_MONOTONIC within a second (a few ppm of drift over
 * a day is well inside; a value from another boot is not).
 * Return: true when trev__tsc is set from it.
 */
static bool tsc_from_env(void)
{
	const char *env = getenv("TREV_TSC");
	unsigned long long mult, offset;
	uint64_t tsc, ns, conv;
	char tail;

	if (!env || sscanf(env, "%llu:%llu%c", &mult, &offset, &tail) != 2)
		return false;
	if (mult < (1ull << 26) || mult >= (1ull << 38))
		return false;
	tsc_sample(&tsc, &ns);
	conv = (uint64_t)(((unsigned __int128)tsc * mult) >> 32) + offset;
	if (conv - ns + 1000000000ull > 2000000000ull)
		return false;
	trev__tsc.tsc0 = tsc;
	trev__tsc.ns0 = conv;
	trev__tsc.mult = mult;
	trev__tsc.offset = offset;
	trev__tsc.usable = mult < (1ull << 36);
	return trev__tsc.usable;
}

static void tsc_calibrate(void)
{
	uint64_t tsc0, ns0, tsc1, ns1;

	if (getenv("TREV_NO_TSC") || !tsc_invariant())
		return;
	if (tsc_from_env())
		return;
	tsc_sample(&tsc0, &ns0);
	do
		tsc_sample(&tsc1, &ns1);
	while (ns1 - ns0 < 2000000);	/* 2 ms keeps the error to a few ppm */
	if (tsc1 <= tsc0)
		return;
	trev__tsc.tsc0 = tsc0;
	trev__tsc.ns0 = ns0;
	trev__tsc.mult = (uint64_t)((((unsigned __int128)(ns1 - ns0)) << 32) / (tsc1 - tsc0));
	trev__tsc.offset = ns0 - (uint64_t)(((unsigned __int128)tsc0 * trev__tsc.mult) >> 32);
	/* (tsc * mult) >> 32 fits 64 bits while tsc < 2^60 (decades at GHz rates) */
	trev__tsc.usable = trev__tsc.mult != 0 && trev__tsc.mult < (1ull << 36);
}
#endif

static pthread_once_t clock_once = PTHREAD_ONCE_INIT;

static void clock_init_once(void)
{
#ifdef RB_HAVE_TSC
	tsc_calibrate();
#endif
}

void trev__clock_init(void)
{
	pthread_once(&clock_once, clock_init_once);
}

uint64_t trev__clock_slow(int clock, _Atomic uint64_t *counter)
{
	switch (clock) {
	case TREV_CLOCK_MONO_RAW:
		return ts_ns(CLOCK_MONOTONIC_RAW);
	case TREV_CLOCK_BOOT:
		return ts_ns(CLOCK_BOOTTIME);
	case TREV_CLOCK_COUNTER:
		return atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
	case TREV_CLOCK_LOCAL:	/* no usable TSC: local is mono */
	case TREV_CLOCK_MONO:
	default:
		return ts_ns(CLOCK_MONOTONIC);
	}
}
