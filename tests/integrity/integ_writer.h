/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The integrity harness's writers: N threads write integ:integ_rec events
 * (stream = thread index), a sender thread sends them SIGUSR1 whose handler
 * writes on a stream of its own (index | INTEG_SIG), and each thread ends
 * with INTEG_END events, one on each CPU, written after the readers drained
 * (so that every loss, a buffer's or a per-CPU staging queue's, has a later
 * event to be reported with). Every call is
 * counted per stream: the caller enables the event and keeps tracing on,
 * so "written" is exactly the number of trace_integ_rec() calls.
 *
 *	integ_writers_start()	threads write; signals fly
 *	integ_writers_quiesce()	all written, sender stopped, signals blocked
 *	(the caller drains its readers)
 *	integ_writers_finish()	each thread writes its INTEG_END event and exits
 */
#ifndef INTEG_WRITER_H
#define INTEG_WRITER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "integ_payload.h"

/* The in-process runs' size, scaled to the tree (TSan runs 5-10x slower). */
#define INTEG_NR_THREADS	3
#ifdef TREV_TSAN
#define INTEG_NR_EVENTS		2500	/* per thread */
#define INTEG_NR_SIGNALS	300
#elif defined(__SANITIZE_ADDRESS__)
#define INTEG_NR_EVENTS		8000
#define INTEG_NR_SIGNALS	1000
#else
#define INTEG_NR_EVENTS		20000
#define INTEG_NR_SIGNALS	2500
#endif
#define INTEG_SMALL_KB		16	/* four pages: overwrite overruns, discard drops */
#define INTEG_BIG_KB		4096	/* holds all a thread writes: the only losses are
					 * signals refused */

struct integ_wcfg {
	unsigned int threads;		/* writer threads, 1 .. INTEG_MAX_THREADS */
	unsigned int events;		/* events per thread (their own stream) */
	unsigned int max_signals;	/* signals the sender sends at most; 0: no sender */
	unsigned int pause_us;		/* a writer sleeps this long after each event; 0: none */
};

struct integ_writers;

struct integ_wthread {
	struct integ_writers *ws;
	pthread_t thread;
	unsigned int idx;
	pid_t tid;
	uint64_t seq;		/* the thread's own stream: events written */
	uint64_t sig_seq;	/* its handler's stream (only the handler touches it) */
	uint64_t end;		/* its INTEG_END events: one per CPU it may run on */
};

struct integ_writers {
	struct integ_wcfg cfg;
	struct integ_wthread w[INTEG_MAX_THREADS];
	pthread_barrier_t bar;		/* writers + the caller */
	pthread_t sender;
	atomic_int stop;		/* the sender stops */
	atomic_ulong signals;		/* signals sent */
	int write_end;			/* integ_writers_finish()'s choice */
};

/* Writes one event of (@stream, @seq). Context: any thread, signal-safe. */
void integ_write(uint32_t stream, uint64_t seq);

/* Start the writers (and the sender). Return: 0 or a negative errno. */
int integ_writers_start(struct integ_writers *ws, const struct integ_wcfg *cfg);

/* Wait until every thread wrote its events and no signal handler can run any more. */
void integ_writers_quiesce(struct integ_writers *ws);

/* Let each thread write its INTEG_END events (if @write_end) and exit; join them. */
void integ_writers_finish(struct integ_writers *ws, int write_end);

/* Total events written, over every stream; and of the INTEG_END streams. */
uint64_t integ_writers_total(const struct integ_writers *ws);
uint64_t integ_writers_ends(const struct integ_writers *ws);

/*
 * Write the counts in the form integ_check reads: one line
 * "stream S written N" per stream with events, then "total written=W".
 */
void integ_writers_print(const struct integ_writers *ws, FILE *out);

struct integ_check;
/* Tell @ic what each stream wrote. */
void integ_writers_expect(const struct integ_writers *ws, struct integ_check *ic);

#endif /* INTEG_WRITER_H */
