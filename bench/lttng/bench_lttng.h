/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * LTTng-UST in the benchmark process, for comparison with trev's events
 * (bench_lttng_loader.c has the how and why).
 *
 *	char err[256];
 *	unsigned long long rec, disc;
 *
 *	if (lttng_bench_start(err, sizeof(err)) < 0) {
 *		printf("lttng: n/a (%s)\n", err);
 *	} else {
 *		for (i = 0; i < n; i++)
 *			lttng_bench_ints3(i, i * 3, ~i);	// timed
 *		lttng_bench_stop(&rec, &disc);
 *	}
 *
 * The emitters are no-ops before lttng_bench_start() and after
 * lttng_bench_stop(). Start works once per process (liblttng-ust cannot be
 * unloaded and registers only from its constructor) and takes about 0.3 s;
 * stop about 0.2 s (discard mode: seconds, babeltrace2 counts the trace).
 *
 * Buffers. trev's benchmark writes into its ring buffer with no reader in
 * overwrite mode, so the default here is LTTng's equivalent: a snapshot
 * (flight-recorder) session, overwrite mode, per-UID buffers (LTTng's
 * default, one set per CPU shared by the user's processes; trev's are per
 * thread), 4 x 256 KiB per CPU, close to trev's default 1408 KiB per
 * thread; the consumer daemon reads nothing until the snapshot at stop.
 * The discard mode is there to account for every event: the consumer
 * drains to disk meanwhile (in another process, on another CPU if there is
 * one), and recorded + discarded equals the events emitted (about 23 bytes
 * of trace per ints3 event; mind the disk space).
 *
 * Environment:
 *   BENCH_LTTNG_MODE	   "snapshot" (default): flight-recorder session,
 *			   overwrite mode, nothing read while tracing;
 *			   "discard": a normal session, discard mode, the
 *			   consumer daemon writing the trace to a temp dir
 *   BENCH_LTTNG_SUBBUF	   sub-buffer size (lttng syntax, default "256K")
 *   BENCH_LTTNG_NUM_SUBBUF sub-buffers per CPU (default 4)
 *   BENCH_LTTNG_KEEP	   set: leave the temp dir (trace, sessiond.log)
 */
#ifndef TREV_BENCH_LTTNG_H
#define TREV_BENCH_LTTNG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What lttng_bench_stop() reports when it could not count. */
#define LTTNG_BENCH_UNKNOWN	(~0ull)

/*
 * Start a private lttng-sessiond (under a mkdtemp() directory; as root in a
 * private mount namespace), create and start a session with the trev_bench
 * events (ints3_rej and ints3_acc with their filters) and lttng_ust_tracef:*
 * enabled, per-UID buffers, then load the
 * LTTng-UST side into this process and check that its tracepoints are on.
 * Returns 0, or -1 with the reason in @err (LTTng is then unavailable and
 * everything started is undone).
 */
int lttng_bench_start(char *err, size_t errlen);

/* One event each, out of line. */
void lttng_bench_ints3(int a, int b, int c);
void lttng_bench_str(const char *s);
void lttng_bench_tracef3(int a, int b, int c);	/* lttng_ust_tracef("%d %d %d") */
/* ints3 with an LTTng filter: a < 0 (rejects a >= 0); a >= 0 && b >= 0 && c != 1. */
void lttng_bench_ints3_rej(int a, int b, int c);
void lttng_bench_ints3_acc(int a, int b, int c);

/* Mode and buffers in use, for a header line: "snapshot, overwrite, ..." */
const char *lttng_bench_config(void);

/*
 * Stop tracing, count what LTTng kept, destroy the session, stop the
 * session daemon and remove the temp dir. @recorded: the events in the
 * trace (snapshot mode: the snapshot taken at stop, i.e. what the buffers
 * held; discard mode: everything written), counted with babeltrace2;
 * @discarded: lttng's discarded-events count for the channel. Either is
 * LTTNG_BENCH_UNKNOWN if it could not be obtained (no babeltrace2, say).
 * Returns 0, or -1 if something failed on the way (the daemons are stopped
 * and the temp dir removed anyway).
 */
int lttng_bench_stop(unsigned long long *recorded, unsigned long long *discarded);

/*
 * How long the last lttng_bench_stop()'s `lttng stop` took, in seconds, or
 * -1: in discard mode, until the consumer daemon had written out what the
 * buffers still held (lttng stop waits for it).
 */
double lttng_bench_stop_seconds(void);

/* The size of the last trace lttng_bench_stop() counted (every file), or -1. */
long long lttng_bench_trace_bytes(void);

#ifdef __cplusplus
}
#endif

#endif /* TREV_BENCH_LTTNG_H */
