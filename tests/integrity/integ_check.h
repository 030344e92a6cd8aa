/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The integrity harness's checker: takes events (parsed from ftrace-format
 * text lines, or decoded from pages) and lost-event counts, recomputes each
 * event's payload and check from (stream, seq), and keeps, per stream, which
 * seqs were read and the order each source gave them in.
 *
 * Text lines understood (anything else counts as "other"):
 *
 *   COMM-PID [CPU] [FLAGS] TS: integ_rec: stream=S seq=Q len=L check=X p=PAYLOAD
 *   CPU:N [LOST M EVENTS]              trev's trace_pipe and trace
 *   CPU:N [M EVENTS DROPPED]           trace-cmd report (the count anywhere on a line)
 *   [LOST EVENTS] / [EVENTS DROPPED]   a loss without its count: always an error
 *   # ...                              headers
 *
 * A line that names integ_rec but does not parse, or a "[corrupt record"
 * line, is bad. Safe to call from several threads (one lock).
 */
#ifndef INTEG_CHECK_H
#define INTEG_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define INTEG_SOURCES	16	/* per-source order: e.g. one per CPU reader */

struct integ_check;

struct integ_ev {
	uint32_t stream;
	uint64_t seq;
	uint32_t len;		/* the len field */
	uint32_t check;		/* the check field */
	const char *payload;
	uint32_t plen;		/* bytes of payload (a string: up to its NUL) */
	int pid;		/* -1: unknown */
	const char *comm;	/* NULL: unknown */
};

struct integ_check *integ_check_new(void);
void integ_check_free(struct integ_check *ic);

/* What was written: integ_check_expect() per stream, or a counts file (integ_writers_print()). */
void integ_check_expect(struct integ_check *ic, uint32_t stream, uint64_t written);
int integ_check_expect_file(struct integ_check *ic, const char *path);

/*
 * A reader that saw the writers stop at some point not known in advance (a
 * process killed while it wrote): @stream's events read must be exactly
 * seq 0 .. k - 1, none missing in between, with k >= @floor (what the
 * writer had written before the signal). integ_check_prefix_file() reads
 * the floors from a counts file.
 */
void integ_check_prefix(struct integ_check *ic, uint32_t stream, uint64_t floor);
int integ_check_prefix_file(struct integ_check *ic, const char *path);

/*
 * With floors, the oldest events may have been overwritten (overwrite
 * mode): @stream's events read must be exactly seq L .. k - 1, where L is
 * its thread's losses (its LOST lines), and k >= its floor. Right when
 * each thread writes one stream only.
 */
void integ_check_overwritten(struct integ_check *ic, int on);

/* Also verify each event's COMM is integ-w<thread> and one PID per thread. */
void integ_check_want_comm(struct integ_check *ic, int on);

void integ_check_event(struct integ_check *ic, unsigned int source, const struct integ_ev *ev);
void integ_check_lost(struct integ_check *ic, uint64_t n);

/* One text line (no newline needed). */
void integ_check_line(struct integ_check *ic, unsigned int source, const char *line);

/* Text as it comes from a read: whole lines are checked, a partial one is kept for the next call. */
void integ_check_feed(struct integ_check *ic, unsigned int source, const char *buf, size_t len);

/* Events of INTEG_END streams read so far (a reader's "everything came" condition). */
uint64_t integ_check_ends(struct integ_check *ic);
uint64_t integ_check_read(struct integ_check *ic);
uint64_t integ_check_lost_total(struct integ_check *ic);
/*
 * Attribute each loss to the thread of the next event its source gives (a
 * LOST line precedes the event of the buffer that lost), and require, per
 * thread, written == read + lost under INTEG_EXACT. Right for trace_pipe and
 * trace, whose losses are a buffer's, and buffers are per thread; not for
 * per-CPU readers, whose staging queues lose events of several threads.
 */
void integ_check_per_thread(struct integ_check *ic, int on);
/* Losses attributed to thread @idx (its LOST lines). */
uint64_t integ_check_thread_lost(struct integ_check *ic, unsigned int idx);

/* Events of @stream read so far. */
uint64_t integ_check_stream_read(struct integ_check *ic, uint32_t stream);
/* Bad, reordered and twice-read events so far. */
uint64_t integ_check_faults(struct integ_check *ic);

enum integ_relation {
	INTEG_EXACT,	/* written == read + lost, every INTEG_END read */
	INTEG_ATMOST,	/* read + lost <= written (a clear discarded some on purpose) */
};

/*
 * Print "NAME: written=W read=R lost=L bad=B reorder=O dup=D other=N" and
 * the first problems to @out. Return: 0 when every event is intact, no
 * stream is out of order or read twice, and @rel holds; else 1.
 */
int integ_check_verdict(struct integ_check *ic, const char *name, enum integ_relation rel,
			FILE *out);

#endif /* INTEG_CHECK_H */
