/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Trace clocks. `local` reads the TSC and scales it to nanoseconds on the
 * CLOCK_MONOTONIC time line (calibrated once per process); the others are
 * the kernel's clock_gettime() clocks and a counter.
 */
#ifndef TREV_RB_CLOCK_H
#define TREV_RB_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>

#include <trev/ring_buffer.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define RB_HAVE_TSC 1
#endif

/*
 * ns = ns0 + ((tsc - tsc0) * mult) >> 32, computed as (tsc * mult) >> 32
 * + offset: the subtraction folds into the offset (the two differ by
 * under 1 ns, the same for every reading), and the shifted product fits
 * 64 bits while tsc < 2^60 (mult < 2^36 is checked at calibration).
 */
struct rb_tsc_calib {
	uint64_t mult;		/* ns per tick, 32.32 fixed point */
	uint64_t offset;	/* ns0 - (tsc0 * mult) >> 32, modulo 2^64 */
	uint64_t tsc0;		/* TSC at calibration */
	uint64_t ns0;		/* CLOCK_MONOTONIC at calibration */
	int usable;		/* invariant TSC, calibrated */
};

/* Hidden on the declaration too, so that rb_tsc_ns() reads it RIP-relative. */
extern struct rb_tsc_calib trev__tsc __attribute__((visibility("hidden")));

/* Calibrate once per process; safe to call again. */
void trev__clock_init(void);
/* Every clock but a usable `local`. */
uint64_t trev__clock_slow(int clock, _Atomic uint64_t *counter);

#ifdef RB_HAVE_TSC
/* `local` when trev__tsc.usable. */
static inline uint64_t rb_tsc_ns(void)
{
	return (uint64_t)(((unsigned __int128)__rdtsc() * trev__tsc.mult) >> 32) + trev__tsc.offset;
}
#endif

static inline uint64_t rb_clock_read(int clock, _Atomic uint64_t *counter)
{
#ifdef RB_HAVE_TSC
	if (trev_likely(clock == TREV_CLOCK_LOCAL && trev__tsc.usable))
		return rb_tsc_ns();
#endif
	return trev__clock_slow(clock, counter);
}

#endif /* TREV_RB_CLOCK_H */
