/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Every event read is the event written (issue 15), for the non-consuming
 * readers: `trace` and `snapshot`. Writer threads and their signal handlers
 * write integ:integ_rec (integ_writer.h) with nobody consuming, while a
 * disturber reads per_cpu/cpuN/stats, per_thread_stats and the head of
 * `trace` (its events checked), and in the overwrite run resizes the buffer.
 *
 * `trace` consumes nothing; it prints each buffer's losses as LOST lines
 * before the next event of that buffer, so a loss with no later event in
 * its buffer (discard mode, buffer full to the end) is in no line. The
 * exact relation is therefore taken with per_thread_stats, once the writers
 * have exited (docs/tracefs.md: for a thread whose events nobody consumed,
 * ENTRIES + OVERRUN + DROPPED is exactly what it wrote). For every writer
 * thread T:
 *
 *   events of T in trace == ENTRIES(T),  READ(T) == 0
 *   written(T) == ENTRIES(T) + OVERRUN(T) + DROPPED(T)
 *   LOST lines before T's events == OVERRUN(T) + DROPPED(T) when T's final
 *   events are in trace (every loss of T precedes them), <= otherwise
 *
 * and every event intact, each stream in order, none twice. Then
 * `echo 1 > snapshot` swaps the buffers: `snapshot` must show exactly the
 * event lines `trace` showed, and `trace` none. A second pass swaps while
 * the writers write: each snapshot's events intact and in order, and no
 * event in two snapshots or in a snapshot and the final trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <trev/trev.h>

#include "integ_check.h"
#include "integ_writer.h"


static atomic_int stop_disturber, disturb_resize, disturb_snap;
static atomic_ulong rounds, swaps;
static atomic_int nerr;
static char err[512];
static struct integ_check *snap_ic;	/* the swaps' snapshots, one source each */

static void run_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void run_error(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&nerr, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(err, sizeof(err), fmt, ap);
	va_end(ap);
}

static void wr(const char *path, const char *text)
{
	int ret = trev_write(path, text);

	if (ret)
		fail_msg("trev_write(%s, %s): %s", path, text, strerror(-ret));
}

/* The whole of @path (a generated text file), malloc'd and NUL-terminated. */
static char *read_all(const char *path, size_t *len)
{
	struct trev_file *f;
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	ssize_t r;

	if (!buf || trev_file_open(path, O_RDONLY, &f))
		abort();
	for (;;) {
		if (cap - n < 65536) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		r = trev_file_read(f, buf + n, cap - n - 1);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	trev_file_close(f);
	if (r < 0)
		fail_msg("read %s: %s", path, strerror((int)-r));
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The text without its '#' lines. */
static char *event_lines(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p + 1) : strlen(p);

		if (*p != '#') {
			memcpy(o, p, l);
			o += l;
		}
		p += l;
	}
	*o = '\0';
	return out;
}

static void *disturber_main(void *arg)
{
	int nr_cpus = trev_rb_nr_cpus(trev_trace_buffer());
	static char buf[16384];
	char path[64];

	(void)arg;
	for (unsigned long r = 0; !atomic_load(&stop_disturber); r++) {
		struct timespec pace = { 0, 200000 };

		snprintf(path, sizeof(path), "per_cpu/cpu%lu/stats", r % (unsigned long)nr_cpus);
		if (trev_read(path, buf, sizeof(buf)) < 0 || strncmp(buf, "entries: ", 9))
			run_error("%s: %.60s", path, buf);
		if (trev_read("per_thread_stats", buf, sizeof(buf)) < 0)
			run_error("per_thread_stats unreadable");
		if (r % 4 == 0) {
			struct integ_check *ic = integ_check_new();
			ssize_t n = trev_read("trace", buf, sizeof(buf));
			char *nl;

			/* trev_read() returns the whole length; keep the whole lines that fit. */
			if (n > 0 && (nl = strrchr(buf, '\n')))
				integ_check_feed(ic, 0, buf, (size_t)(nl - buf + 1));
			if (integ_check_faults(ic)) {
				integ_check_verdict(ic, "trace head", INTEG_ATMOST, stdout);
				run_error("the head of trace has bad events (above)");
			}
			integ_check_free(ic);
		}
		if (atomic_load(&disturb_resize) && r % 8 == 0 &&
		    trev_write("buffer_size_kb", r % 16 ? "16" : "32"))
			run_error("buffer_size_kb refused");
		if (atomic_load(&disturb_snap) && r % 4 == 0) {
			size_t len;
			char *text;

			if (trev_write("snapshot", "1")) {
				run_error("snapshot=1 refused");
			} else {
				atomic_fetch_add(&swaps, 1);

				text = read_all("snapshot", &len);
				integ_check_feed(snap_ic, 0, text, len);	/* swaps are in time order */
				free(text);
			}
		}
		atomic_fetch_add(&rounds, 1);
		nanosleep(&pace, NULL);		/* pacing: the writers share two CPUs with us */
	}
	return NULL;
}

struct pts_line {
	unsigned long long entries, read, overrun, dropped;
	int found;
};

/* per_thread_stats lines of @tid: "TID COMM ENTRIES READ OVERRUN DROPPED". */
static struct pts_line pts_of(const char *text, pid_t tid)
{
	struct pts_line l = { 0 }, cur;

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		char comm[64];
		int t;

		if (*p == '#' || sscanf(p, "%d %63s %llu %llu %llu %llu", &t, comm, &cur.entries,
					&cur.read, &cur.overrun, &cur.dropped) != 6 || t != tid)
			continue;
		if (l.found)
			fail_msg("two per_thread_stats lines for tid %d (two buffers for one thread):\n%s",
				 (int)tid, text);
		l = cur;
		l.found = 1;
	}
	return l;
}

static void start(struct integ_writers *ws, pthread_t *dist, int overwrite, unsigned int size_kb)
{
	struct integ_wcfg wcfg = { INTEG_NR_THREADS, INTEG_NR_EVENTS, INTEG_NR_SIGNALS, 0 };
	char kb[32];

	wr("tracing_on", "0");
	wr("snapshot", "0");
	wr("options/overwrite", overwrite ? "1" : "0");
	snprintf(kb, sizeof(kb), "%u", size_kb);
	wr("buffer_size_kb", kb);
	wr("trace", "");
	wr("events/integ/integ_rec/enable", "1");
	wr("tracing_on", "1");
	atomic_store(&stop_disturber, 0);
	atomic_store(&nerr, 0);
	atomic_store(&rounds, 0);
	atomic_store(&swaps, 0);
	assert_int_equal(pthread_create(dist, NULL, disturber_main, NULL), 0);
	assert_int_equal(integ_writers_start(ws, &wcfg), 0);
}

static void run_trace(const char *name, int overwrite, unsigned int size_kb, int resize)
{
	static struct integ_writers ws;
	struct integ_check *ic = integ_check_new();
	unsigned long long stats_lost = 0;
	char *trace, *pts, *snap, *t_ev, *s_ev, *after;
	size_t len;
	pthread_t dist;
	int fails;

	atomic_store(&disturb_resize, resize);
	atomic_store(&disturb_snap, 0);
	start(&ws, &dist, overwrite, size_kb);
	integ_writers_quiesce(&ws);
	integ_writers_finish(&ws, 1);
	atomic_store(&stop_disturber, 1);
	pthread_join(dist, NULL);
	wr("events/integ/integ_rec/enable", "0");

	pts = read_all("per_thread_stats", &len);
	trace = read_all("trace", &len);
	integ_check_want_comm(ic, 1);
	integ_check_feed(ic, 0, trace, len);
	integ_writers_expect(&ws, ic);
	for (int i = 0; i < INTEG_NR_THREADS; i++) {
		struct pts_line l = pts_of(pts, ws.w[i].tid);
		uint64_t written = ws.w[i].seq + ws.w[i].sig_seq + ws.w[i].end;
		uint64_t seen = integ_check_stream_read(ic, (uint32_t)i) +
				integ_check_stream_read(ic, (uint32_t)i | INTEG_SIG) +
				integ_check_stream_read(ic, (uint32_t)i | INTEG_END);
		uint64_t lost = integ_check_thread_lost(ic, (unsigned int)i);
		int end_seen = integ_check_stream_read(ic, (uint32_t)i | INTEG_END) == ws.w[i].end;

		print_message("  %s thread %d (tid %d): written %llu, in trace %llu events and %llu "
			      "lost%s | entries %llu read %llu overrun %llu dropped %llu\n", name, i,
			      (int)ws.w[i].tid, (unsigned long long)written, (unsigned long long)seen,
			      (unsigned long long)lost, end_seen ? "" : " (its final events not all in trace)",
			      l.entries, l.read, l.overrun, l.dropped);
		if (!l.found)
			fail_msg("%s: no per_thread_stats line for tid %d:\n%s", name, (int)ws.w[i].tid,
				 pts);
		if (seen != l.entries || l.read != 0 || written != l.entries + l.overrun + l.dropped)
			fail_msg("%s: thread %d: trace has %llu of its events, per_thread_stats says "
				 "entries %llu read %llu overrun %llu dropped %llu, written %llu", name,
				 i, (unsigned long long)seen, l.entries, l.read, l.overrun, l.dropped,
				 (unsigned long long)written);
		if (end_seen ? lost != l.overrun + l.dropped : lost > l.overrun + l.dropped)
			fail_msg("%s: thread %d: trace's LOST lines say %llu, per_thread_stats %llu",
				 name, i, (unsigned long long)lost, l.overrun + l.dropped);
		stats_lost += l.overrun + l.dropped;
	}
	fails = integ_check_verdict(ic, name, INTEG_ATMOST, stdout);
	assert_int_equal(trev_rb_nobuf_dropped(trev_trace_buffer()), 0);
	if (atomic_load(&nerr))
		fail_msg("%s: %d errors, first: %s", name, atomic_load(&nerr), err);
	if (fails)
		fail_msg("%s: the checker failed (above)", name);
	if (size_kb == INTEG_SMALL_KB)
		assert_true(stats_lost > 0);

	/* The snapshot holds what trace held, and trace nothing. */
	wr("snapshot", "1");
	snap = read_all("snapshot", &len);
	after = read_all("trace", &len);
	t_ev = event_lines(trace);
	s_ev = event_lines(snap);
	if (strcmp(t_ev, s_ev))
		fail_msg("%s: snapshot's %zu bytes of events differ from trace's %zu", name,
			 strlen(s_ev), strlen(t_ev));
	free(s_ev);
	s_ev = event_lines(after);
	if (*s_ev)
		fail_msg("%s: trace after the swap still shows events: %.200s", name, s_ev);
	wr("snapshot", "0");
	free(s_ev);
	free(t_ev);
	free(after);
	free(snap);
	free(trace);
	free(pts);
	integ_check_free(ic);
}

static void trace_overwrite_small(void **state)
{
	(void)state;
	run_trace("trace_overwrite_small", 1, INTEG_SMALL_KB, 1);
}

static void trace_discard_small(void **state)
{
	(void)state;
	run_trace("trace_discard_small", 0, INTEG_SMALL_KB, 0);
}

static void trace_discard_big(void **state)
{
	(void)state;
	run_trace("trace_discard_big", 0, INTEG_BIG_KB, 0);
}

/* Swaps while the writers write: what each snapshot and the last trace show is intact. */
static void snapshot_swaps(void **state)
{
	static struct integ_writers ws;
	uint64_t read;
	pthread_t dist;
	size_t len;
	char *trace;
	int fails;

	(void)state;
	snap_ic = integ_check_new();
	integ_check_want_comm(snap_ic, 1);
	atomic_store(&disturb_resize, 0);
	atomic_store(&disturb_snap, 1);
	start(&ws, &dist, 1, INTEG_SMALL_KB);
	integ_writers_quiesce(&ws);
	integ_writers_finish(&ws, 1);
	atomic_store(&stop_disturber, 1);
	pthread_join(dist, NULL);
	wr("events/integ/integ_rec/enable", "0");
	/*
	 * How many swaps land while the writers write depends on the machine;
	 * one more now, so that every run checks at least one snapshot.
	 */
	print_message("  snapshot_swaps: %lu swaps while writing\n", atomic_load(&swaps));
	wr("snapshot", "1");
	trace = read_all("snapshot", &len);
	integ_check_feed(snap_ic, 0, trace, len);
	free(trace);
	trace = read_all("trace", &len);
	integ_check_feed(snap_ic, 0, trace, len);
	integ_writers_expect(&ws, snap_ic);
	fails = integ_check_verdict(snap_ic, "snapshot_swaps", INTEG_ATMOST, stdout);
	read = integ_check_read(snap_ic);
	wr("snapshot", "0");
	free(trace);
	integ_check_free(snap_ic);
	if (atomic_load(&nerr))
		fail_msg("snapshot_swaps: %d errors, first: %s", atomic_load(&nerr), err);
	if (fails)
		fail_msg("snapshot_swaps: the checker failed (above)");
	assert_true(read > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(trace_overwrite_small),
		cmocka_unit_test(trace_discard_small),
		cmocka_unit_test(trace_discard_big),
		cmocka_unit_test(snapshot_swaps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
