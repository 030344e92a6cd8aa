/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-CPU views of the per-thread buffers (per_cpu/cpuN/): writers pinned to
 * CPU 0, CPU 1 and one migrating between them; per-CPU consume, pages and
 * iterators against a snapshot of everything written; staging overflow in
 * both modes; reset; stats; and a hammer where one reader per CPU drains
 * while writers write, written == read + lost exactly.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <trev/ring_buffer.h>

#include "ring_buffer/rb_internal.h"
#include "wait_blocked.h"

#define EV_LEN		16
#define MAX_EVENTS	20000

/*
 * Payload:
 *   OFFSET  SIZE  MEANING
 *   0       4     writer id
 *   4       4     sequence number of the writer
 *   8       4     CPU the writer was pinned to
 *   12      4     ~(writer ^ seq): a check word
 */
struct payload {
	uint32_t writer, seq, cpu, check;
};

/* One event as a reader saw it. */
struct seen {
	uint32_t writer, seq, cpu;
	uint64_t ts, lost;
	pid_t tid;
};

static struct seen snap[MAX_EVENTS];
static unsigned int nsnap;
static pid_t writer_tid[8];

/* ------------------------------------------------------------------ */
/* Helpers                                                              */

static void skip_unless_two_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0 || !CPU_ISSET(0, &set) ||
	    !CPU_ISSET(1, &set)) {
		print_message("  skipped: CPUs 0 and 1 are not both usable\n");
		skip();
	}
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		return -1;
	return sched_getcpu() == cpu ? 0 : -1;
}

static struct trev_rb *make_rb(unsigned int size_kb, int overwrite, int clock)
{
	struct trev_rb_options opts = { .size_kb = size_kb, .overwrite = overwrite, .clock = clock };
	struct trev_rb *rb = NULL;

	assert_int_equal(trev_rb_create(&rb, &opts), 0);
	assert_true(trev_rb_nr_cpus(rb) >= 2);
	return rb;
}

static int write_one(struct trev_rb *rb, uint32_t writer, uint32_t seq, uint32_t cpu)
{
	struct payload p = { writer, seq, cpu, ~(writer ^ seq) };

	return trev_rb_write(rb, &p, sizeof(p));
}

static void check_payload(const struct trev_rb_event *ev, struct seen *s)
{
	struct payload p;

	assert_int_equal(ev->len, EV_LEN);
	memcpy(&p, ev->data, sizeof(p));
	assert_int_equal(p.check, ~(p.writer ^ p.seq));
	s->writer = p.writer;
	s->seq = p.seq;
	s->cpu = p.cpu;
	s->ts = ev->ts;
	s->lost = ev->lost;
	s->tid = ev->tid;
	/* The CPU the event ran on is the one its writer was pinned to. */
	assert_int_equal(ev->cpu, (int)p.cpu);
}

/* A writer with a script: (cpu, count) segments, re-pinned between them. */
struct script {
	struct trev_rb *rb;
	uint32_t id;
	int segs;
	int cpu[4];
	unsigned int count[4];
	unsigned int written[2];	/* per CPU, accepted */
	int err;
};

static void *script_main(void *arg)
{
	struct script *sc = arg;
	uint32_t seq = 0;

	writer_tid[sc->id] = (pid_t)syscall(SYS_gettid);
	for (int s = 0; s < sc->segs; s++) {
		if (pin(sc->cpu[s]) < 0) {
			sc->err = 1;
			return NULL;
		}
		for (unsigned int i = 0; i < sc->count[s]; i++)
			if (write_one(sc->rb, sc->id, seq++, (uint32_t)sc->cpu[s]) == 0)
				sc->written[sc->cpu[s]]++;
	}
	return NULL;
}

/*
 * Writer 0 on CPU 0, writer 1 on CPU 1, writer 2 migrating 0 -> 1 -> 0 -> 1,
 * all at once; then the snapshot of everything through the all-CPU iterator.
 */
static void write_mix(struct trev_rb *rb, unsigned int n, unsigned int written[2])
{
	struct script sc[3] = {
		{ rb, 0, 1, { 0 }, { n }, { 0 }, 0 },
		{ rb, 1, 1, { 1 }, { n }, { 0 }, 0 },
		{ rb, 2, 4, { 0, 1, 0, 1 }, { n / 4, n / 4, n / 4, n / 4 }, { 0 }, 0 },
	};
	pthread_t t[3];
	struct trev_rb_iter *it;
	struct trev_rb_event ev;

	for (int i = 0; i < 3; i++)
		assert_int_equal(pthread_create(&t[i], NULL, script_main, &sc[i]), 0);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	written[0] = written[1] = 0;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(sc[i].err, 0);
		written[0] += sc[i].written[0];
		written[1] += sc[i].written[1];
	}
	nsnap = 0;
	it = trev_rb_iter_start(rb);
	assert_non_null(it);
	while (trev_rb_iter_next(it, &ev) == 1) {
		assert_true(nsnap < MAX_EVENTS);
		check_payload(&ev, &snap[nsnap]);
		assert_int_equal(ev.tid, writer_tid[snap[nsnap].writer]);
		if (nsnap)	/* the counter clock: a strict total order */
			assert_true(ev.ts > snap[nsnap - 1].ts);
		nsnap++;
	}
	trev_rb_iter_finish(it);
	assert_int_equal(nsnap, written[0] + written[1]);
}

static bool same(const struct seen *a, const struct seen *b)
{
	return a->writer == b->writer && a->seq == b->seq && a->cpu == b->cpu && a->ts == b->ts &&
	       a->tid == b->tid;
}

/* Position in the snapshot of the next event of @cpu (-1: any) at or after @i. */
static unsigned int snap_next(unsigned int i, int cpu, const bool *taken)
{
	while (i < nsnap && ((cpu >= 0 && snap[i].cpu != (uint32_t)cpu) || (taken && taken[i])))
		i++;
	return i;
}

static unsigned int snap_find(const struct seen *s)
{
	for (unsigned int i = 0; i < nsnap; i++)
		if (snap[i].writer == s->writer && snap[i].seq == s->seq)
			return i;
	fail_msg("event w%u seq %u not in the snapshot", s->writer, s->seq);
	return 0;
}

/*
 * Decode a page with rb_page_for_each(), no assertions (reader threads use
 * it): payloads and time stamps to @out, the lost count to *@lost (-1: flag
 * without a count). Return: events, or -1 if the page is malformed or, with
 * @one_cpu, holds a CPU marker.
 */
static int page_decode(const uint8_t *page, struct seen *out, bool one_cpu, int64_t *lost)
{
	struct rb_walk w;
	struct rb_rec r;
	uint64_t count;
	int n = 0;

	if ((rb_get64(page + 8) & RB_COMMIT_MASK) > RB_DATA_SIZE)
		return -1;
	rb_page_for_each(&w, page, &r) {
		if (r.kind == RB_REC_DATA) {
			struct payload p;

			if (r.len != EV_LEN)
				return -1;
			memcpy(&p, r.payload, sizeof(p));
			if (p.check != ~(p.writer ^ p.seq))
				return -1;
			out[n++] = (struct seen){ .writer = p.writer, .seq = p.seq, .cpu = p.cpu,
						  .ts = r.ts, .tid = writer_tid[p.writer % 8] };
		} else if (r.kind == RB_REC_CPU && one_cpu) {
			return -1;
		}
	}
	*lost = !(w.commit & RB_MISSED_EVENTS) ? 0 :
		rb_walk_lost(&w, &count) ? (int64_t)count : -1;
	return w.off == w.size ? n : -1;
}

/* The same, asserting; with @cpu >= 0 every event must be of that CPU. */
static unsigned int page_events(const uint8_t *page, struct seen *out, int cpu, int64_t *lost)
{
	int n = page_decode(page, out, cpu >= 0, lost);

	assert_true(n >= 0);
	for (int i = 0; i < n; i++)
		if (cpu >= 0)
			assert_int_equal(out[i].cpu, (uint32_t)cpu);
	return (unsigned int)n;
}

/* ------------------------------------------------------------------ */
/* Consuming per CPU                                                    */

static void test_consume_cpu(void **state)
{
	struct trev_rb *rb;
	struct trev_rb_event ev;
	struct trev_rb_stats st;
	unsigned int written[2], i;

	(void)state;
	skip_unless_two_cpus();
	rb = make_rb(256, 0, TREV_CLOCK_COUNTER);
	write_mix(rb, 2000, written);
	assert_true(written[0] > 0 && written[1] > 0);

	assert_int_equal(trev_rb_consume_cpu(rb, 2 + trev_rb_nr_cpus(rb), &ev, 0), -EINVAL);
	assert_int_equal(trev_rb_consume_cpu(rb, -1, &ev, 0), -EINVAL);

	for (int cpu = 0; cpu < 2; cpu++) {
		unsigned int n = 0;

		i = 0;
		while (trev_rb_consume_cpu(rb, cpu, &ev, 0) == 1) {
			struct seen s;

			check_payload(&ev, &s);
			i = snap_next(i, cpu, NULL);
			assert_true(i < nsnap);
			assert_true(same(&s, &snap[i]));
			assert_int_equal(ev.lost, 0);
			i++;
			n++;
		}
		assert_int_equal(n, written[cpu]);
		if (cpu == 0) {
			/* CPU 1's events now sit in its staging queue. */
			assert_int_equal(trev_rb_cpu_stats(rb, 1, &st), 0);
			assert_int_equal(st.entries, written[1]);
			assert_int_equal(st.bytes, (uint64_t)written[1] * (4 + EV_LEN));
			assert_int_equal(st.oldest_event_ts, snap[snap_next(0, 1, NULL)].ts);
			assert_int_equal(trev_rb_cpu_stats(rb, 0, &st), 0);
			assert_int_equal(st.entries, 0);
			assert_int_equal(st.read_events, written[0]);
			assert_int_equal(trev_rb_wait_cpu(rb, 0, 0), 0);
			assert_int_equal(trev_rb_wait_cpu(rb, 1, 0), 1);
		}
	}
	assert_int_equal(trev_rb_consume(rb, &ev, 0), 0);
	for (int cpu = 0; cpu < 2; cpu++) {
		assert_int_equal(trev_rb_cpu_stats(rb, cpu, &st), 0);
		assert_int_equal(st.entries, 0);
		assert_int_equal(st.read_events, written[cpu]);
		assert_int_equal(st.overrun + st.dropped_events + st.commit_overrun, 0);
		assert_int_equal(st.written, written[cpu]);
	}
	trev_rb_destroy(rb);
}

static void test_interleaved(void **state)
{
	struct trev_rb *rb;
	struct trev_rb_event ev;
	unsigned int written[2], pos[2] = { 0, 0 }, n[2] = { 0, 0 }, k = 1;
	bool more[2] = { true, true };

	(void)state;
	skip_unless_two_cpus();
	rb = make_rb(256, 0, TREV_CLOCK_COUNTER);
	write_mix(rb, 2000, written);
	while (more[0] || more[1]) {
		for (int cpu = 0; cpu < 2; cpu++) {
			for (unsigned int j = 0; j < k && more[cpu]; j++) {
				struct seen s;

				if (trev_rb_consume_cpu(rb, cpu, &ev, 0) != 1) {
					more[cpu] = false;
					break;
				}
				check_payload(&ev, &s);
				pos[cpu] = snap_next(pos[cpu], cpu, NULL);
				assert_true(same(&s, &snap[pos[cpu]]));
				pos[cpu]++;
				n[cpu]++;
			}
		}
		k = k * 3 % 17 + 1;	/* 1, 4, 13, 6, ... */
	}
	assert_int_equal(n[0], written[0]);
	assert_int_equal(n[1], written[1]);
	trev_rb_destroy(rb);
}

static void test_read_page_cpu(void **state)
{
	static struct seen got[MAX_EVENTS];
	uint8_t page[TREV_RB_PAGE_SIZE];
	struct trev_rb *rb;
	struct trev_rb_event ev;
	unsigned int written[2], first1 = 0;
	int64_t lost;

	(void)state;
	skip_unless_two_cpus();
	rb = make_rb(256, 0, TREV_CLOCK_COUNTER);
	write_mix(rb, 3000, written);
	assert_int_equal(trev_rb_read_page_cpu(rb, 5 + trev_rb_nr_cpus(rb), page), -EINVAL);
	/* Some of CPU 1 by events first: CPU 0's events get staged. */
	for (unsigned int j = 0; j < 10; j++) {
		assert_int_equal(trev_rb_consume_cpu(rb, 1, &ev, 0), 1);
		first1++;
	}
	for (int cpu = 0; cpu < 2; cpu++) {
		unsigned int n = 0, i = 0, pages = 0;

		while (trev_rb_read_page_cpu(rb, cpu, page) == 1) {
			unsigned int m = page_events(page, got + n, cpu, &lost);

			assert_true(m > 0);
			assert_int_equal(lost, 0);
			n += m;
			pages++;
		}
		assert_int_equal(n + (cpu == 1 ? first1 : 0), written[cpu]);
		/* Pages are full but for the last one. */
		assert_true(pages <= n * (4 + EV_LEN) / (RB_DATA_SIZE - 8) + 1);
		if (cpu == 1)	/* the first ones were consumed above */
			for (unsigned int k = 0; k < first1; k++)
				i = snap_next(i, 1, NULL) + 1;
		for (unsigned int j = 0; j < n; j++) {
			i = snap_next(i, cpu, NULL);
			assert_true(i < nsnap);
			assert_true(same(&got[j], &snap[i]));
			i++;
		}
	}
	assert_int_equal(trev_rb_read_page(rb, page, NULL), 0);
	trev_rb_destroy(rb);
}

/* A writer on CPU @cpu that writes until told to stop (or 2^31 events, a hang guard). */
struct flooder {
	struct trev_rb *rb;
	uint32_t id;		/* writer id, 3..7 */
	int cpu;
	atomic_int stop;
	atomic_int capped;	/* it hit the guard, not the stop */
	atomic_uint written;
	int err;
};

static void *flooder_main(void *arg)
{
	struct flooder *fl = arg;

	writer_tid[fl->id] = (pid_t)syscall(SYS_gettid);
	if (pin(fl->cpu) != 0) {
		fl->err = -1;
		return NULL;
	}
	for (uint32_t n = 0; !atomic_load_explicit(&fl->stop, memory_order_relaxed);) {
		if (n == 1u << 31) {
			atomic_store(&fl->capped, 1);
			break;
		}
		if (write_one(fl->rb, fl->id, n, (uint32_t)fl->cpu) == 0)
			atomic_store_explicit(&fl->written, ++n, memory_order_relaxed);
	}
	return NULL;
}

/*
 * trace_pipe_raw of CPU 0 while a writer floods CPU 1: the call comes back
 * (a page, nothing, or -EAGAIN) while the writer still writes, instead of
 * staging for as long as it does; afterwards every event is read or
 * counted lost, exactly.
 */
static void test_read_page_cpu_flood(void **state)
{
	static struct seen got[RB_DATA_SIZE / (4 + EV_LEN) + 1];
	uint8_t page[TREV_RB_PAGE_SIZE];
	struct flooder fl = { .id = 3, .cpu = 1 };
	uint64_t read = 0, lost = 0;
	cpu_set_t was;
	pthread_t t;
	int64_t pl;
	int ret;

	(void)state;
	skip_unless_two_cpus();
	assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof(was), &was), 0);
	assert_int_equal(pin(0), 0);
	fl.rb = make_rb(1408, 1, -1);
	assert_int_equal(pthread_create(&t, NULL, flooder_main, &fl), 0);
	while (atomic_load(&fl.written) == 0 && fl.err == 0)
		sched_yield();
	for (int i = 0; i < 3; i++) {
		ret = trev_rb_read_page_cpu(fl.rb, 0, page);
		assert_true(ret == 0 || ret == -EAGAIN);
	}
	assert_int_equal(atomic_load(&fl.capped), 0);
	atomic_store(&fl.stop, 1);
	pthread_join(t, NULL);
	assert_int_equal(fl.err, 0);
	for (int cpu = 1; cpu >= 0; cpu--) {
		while ((ret = trev_rb_read_page_cpu(fl.rb, cpu, page)) == 1) {
			read += page_events(page, got, cpu, &pl);
			assert_true(pl >= 0);
			lost += (uint64_t)pl;
		}
		assert_int_equal(ret, 0);
	}
	print_message("  written %u: read %llu, lost %llu\n", atomic_load(&fl.written),
		      (unsigned long long)read, (unsigned long long)lost);
	assert_int_equal(atomic_load(&fl.written), read + lost);
	trev_rb_destroy(fl.rb);
	pthread_setaffinity_np(pthread_self(), sizeof(was), &was);
}

static unsigned int flood(struct trev_rb *rb, int cpu, int threads, unsigned int n, uint32_t id0);

/* A page from a full read: no more events of EV_LEN fit on it. */
static void assert_page_full(const uint8_t *page)
{
	uint32_t size = (uint32_t)(rb_get64(page + 8) & RB_COMMIT_MASK);

	assert_true(size + 4 + EV_LEN > RB_DATA_SIZE - 8);
}

/*
 * Full-page reads of one CPU (TREV_RB_READ_FULL): nothing while its events
 * do not fill a page, and they stay unread in its view; the page once they
 * do; the partial rest only from a read without the flag.
 */
static void test_read_page_cpu_full(void **state)
{
	static struct seen got[RB_STAGE_MAX_EVENTS];
	const unsigned int per_page = RB_STAGE_LIMIT / (4 + EV_LEN);
	uint8_t page[TREV_RB_PAGE_SIZE];
	struct trev_rb_stats st;
	struct trev_rb *rb;
	unsigned int w1 = 0, w0, m;
	int64_t lost;

	(void)state;
	skip_unless_two_cpus();
	rb = make_rb(256, 0, TREV_CLOCK_COUNTER);
	assert_int_equal(trev_rb_read_page_cpu_flags(rb, 1, page, 0x2), -EINVAL);
	/* Half a page of CPU 1, a few events of CPU 0: no page is full. */
	w1 += flood(rb, 1, 1, per_page / 2, 1);
	w0 = flood(rb, 0, 1, 5, 2);
	for (int cpu = 0; cpu < 2; cpu++)
		assert_int_equal(trev_rb_read_page_cpu_flags(rb, cpu, page, TREV_RB_READ_FULL), 0);
	assert_int_equal(trev_rb_cpu_stats(rb, 1, &st), 0);
	assert_int_equal(st.entries, w1);
	assert_int_equal(st.read_events, 0);
	/* A page's worth: 12 bytes are left, where a smaller event would fit. */
	w1 += flood(rb, 1, 1, per_page - w1, 3);
	assert_int_equal(trev_rb_read_page_cpu_flags(rb, 1, page, TREV_RB_READ_FULL), 0);
	/* A page and a half more: the next event did not fit, so that page is
	 * full, and so is the next; the last half page is not. */
	w1 += flood(rb, 1, 1, per_page + per_page / 2, 4);
	assert_int_equal(trev_rb_read_page_cpu_flags(rb, 1, page, TREV_RB_READ_FULL), 1);
	m = page_events(page, got, 1, &lost);
	assert_int_equal(m, per_page);
	assert_int_equal(lost, 0);
	assert_page_full(page);
	assert_true(got[0].writer == 1 && got[0].seq == 0);
	assert_true(got[m - 1].writer == 3 && got[m - 1].seq == per_page - per_page / 2 - 1);
	assert_int_equal(trev_rb_read_page_cpu_flags(rb, 1, page, TREV_RB_READ_FULL), 1);
	assert_int_equal(page_events(page, got, 1, &lost), per_page);
	assert_page_full(page);
	assert_true(got[0].writer == 4 && got[0].seq == 0);
	assert_int_equal(trev_rb_read_page_cpu_flags(rb, 1, page, TREV_RB_READ_FULL), 0);
	assert_int_equal(trev_rb_cpu_stats(rb, 1, &st), 0);
	assert_int_equal(st.entries, per_page / 2);
	assert_int_equal(st.read_events, 2 * per_page);
	assert_int_equal(trev_rb_read_page_cpu_flags(rb, 1, page, 0), 1);
	m = page_events(page, got, 1, &lost);
	assert_int_equal(m, per_page / 2);
	assert_true(got[m - 1].writer == 4 && got[m - 1].seq == per_page + per_page / 2 - 1);
	assert_int_equal(trev_rb_read_page_cpu_flags(rb, 1, page, 0), 0);
	/* CPU 0's few events: only a read without the flag takes them. */
	assert_int_equal(trev_rb_read_page_cpu_flags(rb, 0, page, TREV_RB_READ_FULL), 0);
	assert_int_equal(trev_rb_read_page_cpu(rb, 0, page), 1);
	assert_int_equal(page_events(page, got, 0, &lost), w0);
	assert_int_equal(trev_rb_read_page_cpu(rb, 0, page), 0);
	assert_int_equal(w1, 2 * per_page + per_page / 2);
	trev_rb_destroy(rb);
}

/*
 * Full-page reads of trev_rb_read_page(): a buffer's page once its writer
 * has moved on; a staged page once a newer one follows it; a partial page
 * with the oldest data holds back the rest; a read without the flag takes it.
 */
static void test_read_page_full(void **state)
{
	static struct seen got[RB_STAGE_MAX_EVENTS];
	const unsigned int per_page = RB_STAGE_LIMIT / (4 + EV_LEN);	/* staged */
	uint8_t page[TREV_RB_PAGE_SIZE];
	struct trev_rb_event ev;
	struct trev_rb *rb;
	unsigned int buffer, seq = 0, m;
	cpu_set_t was;
	int64_t lost;

	(void)state;
	skip_unless_two_cpus();
	assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof(was), &was), 0);
	assert_int_equal(pin(0), 0);	/* one CPU: no CPU markers on the pages */
	writer_tid[0] = (pid_t)syscall(SYS_gettid);
	rb = make_rb(256, 0, TREV_CLOCK_COUNTER);
	assert_int_equal(trev_rb_read_page_flags(rb, page, NULL, 0x2), -EINVAL);
	/* From the buffer: 100 events, then 200 more (the writer moves to a second page). */
	for (; seq < 100; seq++)
		assert_int_equal(write_one(rb, 0, seq, 0), 0);
	assert_int_equal(trev_rb_read_page_flags(rb, page, NULL, TREV_RB_READ_FULL), 0);
	for (; seq < 300; seq++)
		assert_int_equal(write_one(rb, 0, seq, 0), 0);
	assert_int_equal(trev_rb_read_page_flags(rb, page, &buffer, TREV_RB_READ_FULL), 1);
	assert_int_not_equal(buffer, TREV_RB_STAGED);
	m = page_events(page, got, 0, &lost);
	assert_true(m > 200 && m < 300);
	assert_true(got[0].seq == 0 && got[m - 1].seq == m - 1);
	assert_page_full(page);
	assert_int_equal(trev_rb_read_page_flags(rb, page, NULL, TREV_RB_READ_FULL), 0);
	assert_int_equal(trev_rb_read_page_flags(rb, page, NULL, 0), 1);
	assert_int_equal(page_events(page, got, 0, &lost), 300 - m);
	assert_int_equal(got[0].seq, m);
	assert_int_equal(trev_rb_read_page(rb, page, NULL), 0);
	/* Staged (a reader of CPU 1 moves CPU 0's events to its queue): 100 events... */
	for (seq = 0; seq < 100; seq++)
		assert_int_equal(write_one(rb, 0, seq, 0), 0);
	assert_int_equal(trev_rb_consume_cpu(rb, 1, &ev, 0), 0);
	assert_int_equal(trev_rb_read_page_flags(rb, page, NULL, TREV_RB_READ_FULL), 0);
	/* ...and 200 in the buffer, whose first page is now full: the staged
	 * partial page has older data and holds it back. */
	for (; seq < 300; seq++)
		assert_int_equal(write_one(rb, 0, seq, 0), 0);
	assert_int_equal(trev_rb_read_page_flags(rb, page, NULL, TREV_RB_READ_FULL), 0);
	/* Staged too: the first staged page fills and a second follows it. */
	assert_int_equal(trev_rb_consume_cpu(rb, 1, &ev, 0), 0);
	assert_int_equal(trev_rb_read_page_flags(rb, page, &buffer, TREV_RB_READ_FULL), 1);
	assert_int_equal(buffer, TREV_RB_STAGED);
	assert_int_equal(page_events(page, got, 0, &lost), per_page);
	assert_page_full(page);
	assert_int_equal(trev_rb_read_page_flags(rb, page, NULL, TREV_RB_READ_FULL), 0);
	assert_int_equal(trev_rb_read_page_flags(rb, page, &buffer, 0), 1);
	assert_int_equal(buffer, TREV_RB_STAGED);
	assert_int_equal(page_events(page, got, 0, &lost), 300 - per_page);
	assert_int_equal(got[299 - per_page].seq, 299);
	assert_int_equal(trev_rb_read_page(rb, page, NULL), 0);
	trev_rb_destroy(rb);
	pthread_setaffinity_np(pthread_self(), sizeof(was), &was);
}

/*
 * Full-page reads of both CPUs while writers pinned to CPU 0 and CPU 1 flood
 * small overwrite buffers (their staging queues overflow too), then reads
 * without the flag for the partial pages: written == read + lost, exactly
 * (overwrite mode keeps the newest events, and each loss is reported with
 * the next of them).
 */
static void test_read_page_cpu_full_losses(void **state)
{
	static struct seen got[RB_STAGE_MAX_EVENTS];
	uint8_t page[TREV_RB_PAGE_SIZE];
	struct flooder fl[2] = { { .id = 3, .cpu = 0 }, { .id = 4, .cpu = 1 } };
	uint64_t read = 0, lost = 0, full = 0, written;
	struct trev_rb *rb;
	pthread_t t[2];
	int64_t pl;
	int ret;

	(void)state;
	skip_unless_two_cpus();
	rb = make_rb(16, 1, -1);
	for (int i = 0; i < 2; i++) {
		fl[i].rb = rb;
		assert_int_equal(pthread_create(&t[i], NULL, flooder_main, &fl[i]), 0);
	}
	/* Until both have written many times what their buffers and queues hold. */
	for (int round = 0; round < 200 || atomic_load(&fl[0].written) < 100000 ||
			    atomic_load(&fl[1].written) < 100000; round++) {
		assert_int_equal(fl[0].err + fl[1].err, 0);
		for (int cpu = 0; cpu < 2; cpu++) {
			ret = trev_rb_read_page_cpu_flags(rb, cpu, page, TREV_RB_READ_FULL);
			assert_true(ret == 1 || ret == 0 || ret == -EAGAIN);
			if (ret != 1)
				continue;
			read += page_events(page, got, cpu, &pl);
			assert_true(pl >= 0);
			lost += (uint64_t)pl;
			full++;
		}
	}
	for (int i = 0; i < 2; i++) {
		atomic_store(&fl[i].stop, 1);
		pthread_join(t[i], NULL);
		assert_int_equal(fl[i].err, 0);
		assert_int_equal(atomic_load(&fl[i].capped), 0);
	}
	for (int cpu = 0; cpu < 2; cpu++) {
		while ((ret = trev_rb_read_page_cpu_flags(rb, cpu, page, TREV_RB_READ_FULL)) == 1) {
			read += page_events(page, got, cpu, &pl);
			lost += (uint64_t)pl;
			full++;
		}
		assert_int_equal(ret, 0);
		while ((ret = trev_rb_read_page_cpu(rb, cpu, page)) == 1) {
			read += page_events(page, got, cpu, &pl);
			assert_true(pl >= 0);
			lost += (uint64_t)pl;
		}
		assert_int_equal(ret, 0);
	}
	written = (uint64_t)atomic_load(&fl[0].written) + atomic_load(&fl[1].written);
	print_message("  written %llu: read %llu (%llu full pages), lost %llu\n",
		      (unsigned long long)written, (unsigned long long)read,
		      (unsigned long long)full, (unsigned long long)lost);
	assert_true(full > 0 && lost > 0);
	assert_int_equal(written, read + lost);
	trev_rb_destroy(rb);
}

/* All-CPU consume and read_page after partial per-CPU reads. */
static void test_all_after_partial(void **state)
{
	static bool taken[MAX_EVENTS];
	static struct seen got[MAX_EVENTS];
	uint8_t page[TREV_RB_PAGE_SIZE];
	struct trev_rb_event ev;
	struct trev_rb *rb;
	unsigned int written[2], i = 0, staged_pages = 0;

	(void)state;
	skip_unless_two_cpus();
	for (int pass = 0; pass < 2; pass++) {
		unsigned int n = 0, rest;

		rb = make_rb(256, 0, TREV_CLOCK_COUNTER);
		write_mix(rb, 2000, written);
		memset(taken, 0, sizeof(taken));
		/*
		 * CPU 0 is read at least until writer 2's third segment (CPU 0
		 * again): its second segment, 500 CPU 1 events, must then sit in
		 * CPU 1's staging queue, however the writers were scheduled.
		 * Reading 300 of CPU 1 leaves at least 200 of them staged.
		 */
		for (int cpu = 0; cpu < 2; cpu++) {
			bool past_seg2 = cpu == 1;

			for (unsigned int j = 0; j < (cpu ? 300u : 500u) || !past_seg2; j++) {
				struct seen s;

				assert_int_equal(trev_rb_consume_cpu(rb, cpu, &ev, 0), 1);
				check_payload(&ev, &s);
				taken[snap_find(&s)] = true;
				if (s.writer == 2 && s.seq >= 1000)
					past_seg2 = true;
				n++;
			}
		}
		rest = nsnap - n;
		if (pass == 0) {
			/* trev_rb_consume: the rest, in time order. */
			i = 0;
			while (trev_rb_consume(rb, &ev, 0) == 1) {
				struct seen s;

				check_payload(&ev, &s);
				i = snap_next(i, -1, taken);
				assert_true(i < nsnap);
				assert_true(same(&s, &snap[i]));
				i++;
				rest--;
			}
			assert_int_equal(rest, 0);
		} else {
			/* trev_rb_read_page: the rest, each once, staged pages too. */
			unsigned int m = 0;
			int64_t lost;

			for (;;) {
				unsigned int buf = 0;

				if (trev_rb_read_page(rb, page, &buf) != 1)
					break;
				if (buf == TREV_RB_STAGED)
					staged_pages++;
				m += page_events(page, got + m, -1, &lost);
				assert_int_equal(lost, 0);
			}
			assert_int_equal(m, rest);
			for (unsigned int j = 0; j < m; j++) {
				unsigned int k = snap_find(&got[j]);

				assert_false(taken[k]);
				taken[k] = true;
				assert_int_equal(got[j].ts, snap[k].ts);
			}
			assert_true(staged_pages > 0);
		}
		trev_rb_destroy(rb);
	}
}

static void test_iter_cpu(void **state)
{
	struct trev_rb_event ev;
	struct trev_rb *rb;
	struct trev_rb_iter *it;
	unsigned int written[2], consumed0 = 400, left[2];

	(void)state;
	skip_unless_two_cpus();
	rb = make_rb(256, 0, TREV_CLOCK_COUNTER);
	write_mix(rb, 2000, written);
	assert_null(trev_rb_iter_start_cpu(rb, trev_rb_nr_cpus(rb)));
	assert_int_equal(errno, EINVAL);
	/* CPU 0 partly read: CPU 1's older events are staged now. */
	for (unsigned int j = 0; j < consumed0; j++)
		assert_int_equal(trev_rb_consume_cpu(rb, 0, &ev, 0), 1);
	left[0] = written[0] - consumed0;
	left[1] = written[1];
	for (int round = 0; round < 2; round++) {
		for (int cpu = -1; cpu < 2; cpu++) {
			unsigned int i = 0, n = 0, skip0 = 0;

			it = trev_rb_iter_start_cpu(rb, cpu);
			assert_non_null(it);
			while (trev_rb_iter_next(it, &ev) == 1) {
				struct seen s;

				check_payload(&ev, &s);
				/* The first consumed0 events of CPU 0 are gone. */
				for (;;) {
					i = snap_next(i, cpu, NULL);
					assert_true(i < nsnap);
					if (snap[i].cpu != 0 || skip0 == consumed0)
						break;
					skip0++;
					i++;
				}
				assert_true(same(&s, &snap[i]));
				i++;
				n++;
			}
			trev_rb_iter_finish(it);
			assert_int_equal(n, cpu < 0 ? left[0] + left[1] : left[cpu]);
		}
	}
	/* Not consumed by the iterators. */
	for (int cpu = 0; cpu < 2; cpu++) {
		unsigned int n = 0;

		while (trev_rb_consume_cpu(rb, cpu, &ev, 0) == 1)
			n++;
		assert_int_equal(n, left[cpu]);
	}
	trev_rb_destroy(rb);
}

/* ------------------------------------------------------------------ */
/* Staging overflow, reset, stats                                       */

struct flood {
	struct trev_rb *rb;
	uint32_t id;
	int cpu;
	unsigned int n, written;
};

static void *flood_main(void *arg)
{
	struct flood *f = arg;

	writer_tid[f->id] = (pid_t)syscall(SYS_gettid);
	if (pin(f->cpu) < 0)
		return NULL;
	for (unsigned int i = 0; i < f->n; i++)
		if (write_one(f->rb, f->id, i, (uint32_t)f->cpu) == 0)
			f->written++;
	return NULL;
}

/* @threads writers on @cpu, @n events each, one after the other. */
static unsigned int flood(struct trev_rb *rb, int cpu, int threads, unsigned int n, uint32_t id0)
{
	unsigned int total = 0;

	for (int t = 0; t < threads; t++) {
		struct flood f = { rb, id0 + (uint32_t)t, cpu, n, 0 };
		pthread_t th;

		assert_int_equal(pthread_create(&th, NULL, flood_main, &f), 0);
		pthread_join(th, NULL);
		total += f.written;
	}
	return total;
}

/*
 * Three threads fill three 16 KB buffers with CPU 1's events; reading CPU 0
 * moves them all to CPU 1's queue, which holds 4 pages: the rest is lost
 * there (oldest in overwrite mode, newest in discard mode) and reported.
 */
static void staging_overflow(int overwrite, bool by_page)
{
	uint8_t page[TREV_RB_PAGE_SIZE];
	struct trev_rb *rb = make_rb(16, overwrite, TREV_CLOCK_COUNTER);
	struct trev_rb_event ev;
	struct trev_rb_stats st;
	unsigned int w1, w0, read = 0, per_page = (RB_DATA_SIZE - 8) / (4 + EV_LEN);
	uint64_t lost = 0, first_seq_w1 = UINT64_MAX;
	unsigned int kept;

	/* 3 x 400 events of 20 bytes: 2 pages per buffer, 6 for CPU 1. */
	w1 = flood(rb, 1, 3, 400, 1);
	assert_int_equal(w1, 1200);
	w0 = flood(rb, 0, 1, 10, 4);
	assert_int_equal(trev_rb_consume_cpu(rb, 0, &ev, 0), 1);	/* stages CPU 1 */
	while (trev_rb_consume_cpu(rb, 0, &ev, 0) == 1)
		;
	/* Overwrite: whole head pages go; discard: the queue stays at 4 pages. */
	kept = overwrite ? w1 - ((w1 + per_page - 1) / per_page - 4) * per_page : per_page * 4;
	assert_int_equal(trev_rb_cpu_stats(rb, 1, &st), 0);
	assert_int_equal(st.entries, kept);
	if (overwrite) {
		assert_int_equal(st.overrun, w1 - kept);
		assert_int_equal(st.dropped_events, 0);
	} else {
		assert_int_equal(st.dropped_events, w1 - kept);
		assert_int_equal(st.overrun, 0);
	}
	/* A later event of CPU 1 carries pending losses (discard mode). */
	w1 += flood(rb, 1, 1, 1, 5);
	if (by_page) {
		int64_t pl;
		struct seen got[RB_STAGE_MAX_EVENTS];

		while (trev_rb_read_page_cpu(rb, 1, page) == 1) {
			unsigned int m = page_events(page, got, 1, &pl);

			assert_true(pl >= 0);
			lost += (uint64_t)pl;
			for (unsigned int j = 0; j < m; j++) {
				if (got[j].writer == 1 && got[j].seq < first_seq_w1)
					first_seq_w1 = got[j].seq;
			}
			if (pl && overwrite)	/* the loss heads the stream */
				assert_int_equal(read, 0);
			read += m;
		}
	} else {
		while (trev_rb_consume_cpu(rb, 1, &ev, 0) == 1) {
			struct seen s;

			check_payload(&ev, &s);
			if (ev.lost && overwrite)
				assert_int_equal(read, 0);
			if (s.writer == 1 && s.seq < first_seq_w1)
				first_seq_w1 = s.seq;
			lost += ev.lost;
			read++;
		}
	}
	assert_int_equal(read + lost, w1);
	assert_int_equal(read, kept + 1);
	if (overwrite)
		assert_int_equal(first_seq_w1, UINT64_MAX);	/* the oldest went */
	else
		assert_int_equal(first_seq_w1, 0);		/* the newest went */
	assert_int_equal(trev_rb_cpu_stats(rb, 1, &st), 0);
	assert_int_equal(st.entries, 0);
	assert_int_equal(st.read_events, read);
	assert_int_equal(st.overrun + st.dropped_events, lost);
	assert_int_equal(st.written, w1);
	assert_int_equal(trev_rb_cpu_stats(rb, 0, &st), 0);
	assert_int_equal(st.read_events, w0);
	trev_rb_destroy(rb);
}

static void test_staging_overflow_overwrite(void **state)
{
	(void)state;
	skip_unless_two_cpus();
	staging_overflow(1, false);
	staging_overflow(1, true);
}

static void test_staging_overflow_discard(void **state)
{
	(void)state;
	skip_unless_two_cpus();
	staging_overflow(0, false);
	staging_overflow(0, true);
}

static void test_reset_clears_staging(void **state)
{
	struct trev_rb *rb;
	struct trev_rb_event ev;
	struct trev_rb_stats st;
	struct trev_rb_iter *it;
	unsigned int written[2];

	(void)state;
	skip_unless_two_cpus();
	rb = make_rb(256, 0, TREV_CLOCK_COUNTER);
	write_mix(rb, 1000, written);
	assert_int_equal(trev_rb_consume_cpu(rb, 0, &ev, 0), 1);
	while (trev_rb_consume_cpu(rb, 0, &ev, 0) == 1)
		;
	assert_int_equal(trev_rb_cpu_stats(rb, 1, &st), 0);
	assert_int_equal(st.entries, written[1]);
	assert_int_equal(trev_rb_reset(rb), 0);
	for (int cpu = 0; cpu < 2; cpu++) {
		assert_int_equal(trev_rb_cpu_stats(rb, cpu, &st), 0);
		assert_int_equal(st.entries + st.read_events + st.overrun + st.dropped_events +
					 st.written + st.bytes,
				 0);
		assert_int_equal(trev_rb_consume_cpu(rb, cpu, &ev, 0), 0);
		assert_int_equal(trev_rb_wait_cpu(rb, cpu, 0), 0);
	}
	assert_int_equal(trev_rb_consume(rb, &ev, 0), 0);
	it = trev_rb_iter_start(rb);
	assert_int_equal(trev_rb_iter_next(it, &ev), 0);
	trev_rb_iter_finish(it);
	/* Usable after the reset. */
	assert_int_equal(flood(rb, 1, 1, 5, 0), 5);
	assert_int_equal(trev_rb_cpu_stats(rb, 1, &st), 0);
	assert_int_equal(st.entries, 5);
	trev_rb_destroy(rb);
}

/* Writer refusals are counted for the CPU the writer was on. */
static void test_stats_refusals(void **state)
{
	struct trev_rb *rb;
	struct trev_rb_stats st0, st1;
	unsigned int w;

	(void)state;
	skip_unless_two_cpus();
	rb = make_rb(8, 0, TREV_CLOCK_COUNTER);	/* 2 pages, discard mode */
	w = flood(rb, 1, 1, 1000, 0);
	assert_true(w < 1000);
	assert_int_equal(trev_rb_cpu_stats(rb, 0, &st0), 0);
	assert_int_equal(trev_rb_cpu_stats(rb, 1, &st1), 0);
	assert_int_equal(st1.dropped_events, 1000 - w);
	assert_int_equal(st0.dropped_events, 0);
	assert_int_equal(st1.entries, w);
	assert_int_equal(st0.entries, 0);
	assert_true(st1.now_ts >= st1.oldest_event_ts);
	trev_rb_destroy(rb);
}

/* ------------------------------------------------------------------ */
/* Blocking                                                             */

struct blocked {
	struct trev_rb *rb;
	int cpu;
	int ret;
	struct trev_rb_event ev;
	_Atomic pid_t tid;	/* set once the reader is about to block */
};

static void *blocked_main(void *arg)
{
	struct blocked *b = arg;

	/*
	 * The first consume sets up the thread's copy buffer (pthread_once,
	 * malloc: may sleep in futex), here on the empty buffer, so that once
	 * tid is set the only futex sleep is the blocking read's.
	 */
	b->ret = trev_rb_consume_cpu(b->rb, b->cpu, &b->ev, 0);
	if (b->ret != 0) {
		atomic_store(&b->tid, -1);
		return NULL;
	}
	atomic_store(&b->tid, gettid());
	b->ret = trev_rb_consume_cpu(b->rb, b->cpu, &b->ev, -1);
	return NULL;
}

/* Wait until reader @b sleeps in its blocking read (wait_blocked.h), not for a time. */
static void blocked_wait(struct blocked *b)
{
	pid_t tid;

	while (!(tid = atomic_load(&b->tid)))
		sched_yield();
	if (tid < 0)
		fail_msg("the reader of CPU %d found the buffer not empty: %d", b->cpu, b->ret);
	if (wait_blocked(tid) < 0)
		fail_msg("the reader of CPU %d did not block in futex(2) (or /proc cannot tell)",
			 b->cpu);
}

static void test_blocking(void **state)
{
	struct trev_rb *rb;
	struct blocked b0, b1;
	pthread_t t0, t1;

	(void)state;
	skip_unless_two_cpus();
	rb = make_rb(64, 0, -1);
	b0 = (struct blocked){ .rb = rb, .cpu = 0 };
	b1 = (struct blocked){ .rb = rb, .cpu = 1 };
	assert_int_equal(pthread_create(&t0, NULL, blocked_main, &b0), 0);
	assert_int_equal(pthread_create(&t1, NULL, blocked_main, &b1), 0);
	blocked_wait(&b0);
	blocked_wait(&b1);
	/* An event on CPU 1 wakes CPU 1's reader, not CPU 0's. */
	assert_int_equal(flood(rb, 1, 1, 1, 0), 1);
	pthread_join(t1, NULL);
	assert_int_equal(b1.ret, 1);
	assert_int_equal(b1.ev.cpu, 1);
	/* CPU 0's reader, if the commit woke it, looked and went back to sleep. */
	blocked_wait(&b0);
	assert_int_equal(trev_rb_wait_cpu(rb, 0, 10), 0);
	trev_rb_wake_readers(rb);
	pthread_join(t0, NULL);
	assert_int_equal(b0.ret, -EINTR);
	trev_rb_destroy(rb);
}

/* ------------------------------------------------------------------ */
/* The hammer                                                           */

#ifdef TREV_TSAN
#define HAMMER_EVENTS	4000
#else
#define HAMMER_EVENTS	30000
#endif

struct hammer {
	struct trev_rb *rb;
	atomic_int writers_done;
	atomic_uint progress;
	pthread_barrier_t sentinel;	/* writers + main */
	uint64_t attempted[3];
	uint64_t read[2], lost[2];
	atomic_int err;
	char msg[200];		/* the first error, by whoever counted it */
};

static void hammer_error(struct hammer *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void hammer_error(struct hammer *h, const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&h->err, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(h->msg, sizeof(h->msg), fmt, ap);
	va_end(ap);
}

struct hwriter {
	struct hammer *h;
	uint32_t id;
};

static void *hammer_writer(void *arg)
{
	struct hwriter *w = arg;
	struct hammer *h = w->h;
	int cpu = (int)(w->id % 2);
	uint32_t seq = 0;

	writer_tid[w->id] = (pid_t)syscall(SYS_gettid);
	if (pin(cpu) < 0)
		hammer_error(h, "writer %u: cannot pin to CPU %d", w->id, cpu);
	for (unsigned int i = 0; i < HAMMER_EVENTS; i++) {
		if (w->id == 2 && i % 500 == 0) {	/* migrates */
			cpu = (int)((i / 500) % 2);
			if (pin(cpu) < 0)
				hammer_error(h, "writer 2: cannot pin to CPU %d", cpu);
		}
		write_one(h->rb, w->id, seq++, (uint32_t)cpu);
		h->attempted[w->id]++;
		atomic_fetch_add_explicit(&h->progress, 1, memory_order_relaxed);
	}
	pthread_barrier_wait(&h->sentinel);	/* readers are done */
	write_one(h->rb, w->id, seq++, (uint32_t)cpu);
	h->attempted[w->id]++;
	return NULL;
}

struct hreader {
	struct hammer *h;
	int cpu;
	bool slow;
	uint32_t last_seq[3];
	uint64_t last_ts;
	uint64_t order;		/* events older than the one before them */
};

static void hreader_take(struct hammer *h, struct hreader *r, const struct trev_rb_event *ev)
{
	struct payload p;

	memcpy(&p, ev->data, sizeof(p));
	if (ev->len != EV_LEN || p.check != ~(p.writer ^ p.seq) || p.writer > 2 ||
	    ev->cpu != r->cpu || p.cpu != (uint32_t)r->cpu ||
	    (r->last_seq[p.writer] != UINT32_MAX && p.seq <= r->last_seq[p.writer]))
		hammer_error(h, "cpu %d reader: w%u seq %u (last %u) cpu %d/%u", r->cpu, p.writer,
			     p.seq, r->last_seq[p.writer % 3], ev->cpu, p.cpu);
	/* Only a write stalled longer than readers wait (20 ms) comes late. */
	if (ev->ts < r->last_ts)
		r->order++;
	else
		r->last_ts = ev->ts;
	r->last_seq[p.writer % 3] = p.seq;
	h->read[r->cpu]++;
	h->lost[r->cpu] += ev->lost;
}

static void *hammer_reader(void *arg)
{
	struct hreader *r = arg;
	struct hammer *h = r->h;
	struct trev_rb_event ev;
	uint8_t page[TREV_RB_PAGE_SIZE];
	struct seen got[RB_STAGE_MAX_EVENTS];
	unsigned int n = 0;
	int ret;

	for (;;) {
		bool done = atomic_load(&h->writers_done);

		if (r->slow) {
			/* Let the other reader fill this CPU's staging queue. */
			while (!done && atomic_load_explicit(&h->progress, memory_order_relaxed) <
						HAMMER_EVENTS / 2)
				sched_yield(), done = atomic_load(&h->writers_done);
		}
		if (n++ % 4 == 3) {
			int64_t pl;

			ret = trev_rb_read_page_cpu(h->rb, r->cpu, page);
			/* Writers outpaced the staging for a while: look again. */
			if (ret == -EAGAIN)
				continue;
			if (ret == 1) {
				int m = page_decode(page, got, true, &pl);

				if (m <= 0 || pl < 0)
					hammer_error(h, "cpu %d: bad page (%d events, lost %lld)",
						     r->cpu, m, (long long)pl);
				for (int j = 0; j < m; j++) {
					struct payload p = { got[j].writer, got[j].seq, got[j].cpu,
							     ~(got[j].writer ^ got[j].seq) };
					struct trev_rb_event e = { .ts = got[j].ts, .data = &p,
								   .len = EV_LEN, .cpu = r->cpu,
								   .lost = j ? 0 : (uint64_t)pl };

					hreader_take(h, r, &e);
				}
			}
		} else {
			ret = trev_rb_consume_cpu(h->rb, r->cpu, &ev, done ? 0 : 5);
			if (ret == 1)
				hreader_take(h, r, &ev);
		}
		if (ret < 0)
			hammer_error(h, "cpu %d reader: %d", r->cpu, ret);
		if (ret == 0 && done)
			break;
	}
	return NULL;
}

static void hammer(int overwrite)
{
	struct hammer h = { 0 };
	struct hwriter w[3];
	struct hreader r[2];
	pthread_t wt[3], rt[2];
	struct trev_rb_event ev;
	struct trev_rb_stats st;
	uint64_t attempted = 0, read, lost, st_read = 0, st_lost = 0;
	uint64_t stage_lost = 0;
	int ret;

	h.rb = make_rb(16, overwrite, -1);
	assert_int_equal(pthread_barrier_init(&h.sentinel, NULL, 4), 0);
	for (int i = 0; i < 2; i++) {
		r[i] = (struct hreader){ .h = &h, .cpu = i, .slow = i == 1 };
		memset(r[i].last_seq, 0xff, sizeof(r[i].last_seq));
		assert_int_equal(pthread_create(&rt[i], NULL, hammer_reader, &r[i]), 0);
	}
	for (uint32_t i = 0; i < 3; i++) {
		w[i] = (struct hwriter){ &h, i };
		assert_int_equal(pthread_create(&wt[i], NULL, hammer_writer, &w[i]), 0);
	}
	/* Writers write; then the readers drain and stop. */
	while (atomic_load(&h.progress) < 3u * HAMMER_EVENTS)
		sched_yield();
	atomic_store(&h.writers_done, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(rt[i], NULL);
	pthread_mutex_lock(&h.rb->read_lock);
	stage_lost = h.rb->stage[0].overrun + h.rb->stage[0].dropped + h.rb->stage[1].overrun +
		     h.rb->stage[1].dropped;
	pthread_mutex_unlock(&h.rb->read_lock);
	/* One sentinel per writer, then all-CPU consume reports what is left. */
	pthread_barrier_wait(&h.sentinel);
	for (int i = 0; i < 3; i++)
		pthread_join(wt[i], NULL);
	read = h.read[0] + h.read[1];
	lost = h.lost[0] + h.lost[1];
	while ((ret = trev_rb_consume(h.rb, &ev, 0)) == 1) {
		read++;
		lost += ev.lost;
	}
	assert_int_equal(ret, 0);
	for (int i = 0; i < 3; i++)
		attempted += h.attempted[i];
	for (int cpu = 0; cpu < trev_rb_nr_cpus(h.rb); cpu++) {
		assert_int_equal(trev_rb_cpu_stats(h.rb, cpu, &st), 0);
		assert_int_equal(st.entries, 0);
		st_read += st.read_events;
		st_lost += st.overrun + st.dropped_events + st.commit_overrun;
	}
	print_message("  %s: attempted %llu, read %llu (cpu0 %llu, cpu1 %llu), lost %llu, "
		      "of which in staging before the sentinels %llu; late events %llu/%llu\n",
		      overwrite ? "overwrite" : "discard", (unsigned long long)attempted,
		      (unsigned long long)read, (unsigned long long)h.read[0],
		      (unsigned long long)h.read[1], (unsigned long long)lost,
		      (unsigned long long)stage_lost, (unsigned long long)r[0].order,
		      (unsigned long long)r[1].order);
	if (h.err)
		fail_msg("%d errors, first: %s", atomic_load(&h.err), h.msg);
	assert_int_equal(trev_rb_nobuf_dropped(h.rb), 0);
	assert_int_equal(attempted, read + lost);
	assert_int_equal(st_read, read);
	assert_int_equal(st_lost, lost);
	assert_true(h.read[0] > 0 && h.read[1] > 0);
	pthread_barrier_destroy(&h.sentinel);
	trev_rb_destroy(h.rb);
}

static void test_hammer_overwrite(void **state)
{
	(void)state;
	skip_unless_two_cpus();
	hammer(1);
}

static void test_hammer_discard(void **state)
{
	(void)state;
	skip_unless_two_cpus();
	hammer(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_consume_cpu),
		cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_read_page_cpu),
		cmocka_unit_test(test_read_page_cpu_flood),
		cmocka_unit_test(test_read_page_cpu_full),
		cmocka_unit_test(test_read_page_full),
		cmocka_unit_test(test_read_page_cpu_full_losses),
		cmocka_unit_test(test_all_after_partial),
		cmocka_unit_test(test_iter_cpu),
		cmocka_unit_test(test_staging_overflow_overwrite),
		cmocka_unit_test(test_staging_overflow_discard),
		cmocka_unit_test(test_reset_clears_staging),
		cmocka_unit_test(test_stats_refusals),
		cmocka_unit_test(test_blocking),
		cmocka_unit_test(test_hammer_overwrite),
		cmocka_unit_test(test_hammer_discard),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
