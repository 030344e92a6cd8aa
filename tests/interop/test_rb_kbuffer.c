/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pages from trev_rb_read_page() read by libtraceevent's kbuffer: the same
 * events, times and lost counts as rb_page_for_each() sees, and as were written.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <traceevent/kbuffer.h>

#include <trev/ring_buffer.h>

#include "ring_buffer/rb_page.h"

#define NR_WRITERS	2
#define BUF_KB		32		/* 8 pages per writer */
#define MAX_SEQ		1024
#define SEQ_A		28		/* mixed events before the overflow */
#define SEQ_B		20		/* mixed events after it */
#define FILL_LEN	1000		/* event size used to fill the buffer */
#define EXTRA_REFUSED	4		/* writes tried after the first refusal */
#define GAP_NS		(1ull << 27)	/* a longer delta needs a time extend */
#define MOVE_SEQ	12		/* writer 0 changes CPU after this event */
#define OUTER_LEN	40		/* discarded around a nested write */
#define TAG_DISCARD	0x80000000u	/* in the payload of discarded events */

/* Payload sizes, 4..3000; over 112 bytes takes the long record form. */
static const uint32_t sizes[] = {
	4, 24, 112, 113, 3000, 8, 184, 500, 60, 1000, 116, 5, 2048, 36, 2999, 7,
};

enum { EV_NONE, EV_COMMITTED, EV_REFUSED };

/* What one event of one writer became. */
struct expect {
	uint64_t before;	/* clock before the write */
	uint64_t after;		/* clock after it */
	uint32_t len;		/* payload bytes */
	uint8_t state;		/* EV_* */
};

struct writer {
	unsigned int idx;
	pthread_t thread;
	struct expect ev[MAX_SEQ];
	uint32_t next_seq;	/* next sequence number to write */
	uint32_t refused;	/* writes refused when the buffer was full */
	uint32_t first_after_loss; /* first sequence number of phase B */
	uint32_t nested;	/* discards with a nested write behind them */
	int moved_to;		/* CPU writer 0 moved to, or -1 */
	int errors;		/* unexpected results; the main thread asserts */
};

/* One page as trev_rb_read_page() returned it. */
struct page {
	uint8_t data[RB_PAGE_SIZE];
	unsigned int buffer;
};

static struct trev_rb *rb;
static pthread_barrier_t phase;
static struct writer writers[NR_WRITERS];
static struct page *pages;
static size_t nr_pages, cap_pages;

/* ------------------------------------------------------------------ */
/* Writers                                                              */

static uint32_t tag_of(unsigned int w, uint32_t seq)
{
	return (uint32_t)w << 24 | seq;
}

static uint8_t pattern(unsigned int w, uint32_t seq, uint32_t k)
{
	return (uint8_t)(seq * 7 + k * 13 + w * 101);
}

static void fill(uint8_t *p, uint32_t tag, unsigned int w, uint32_t seq, uint32_t len)
{
	rb_put32(p, tag);
	for (uint32_t k = 4; k < len; k++)
		p[k] = pattern(w, seq, k);
}

/* Write the writer's next event; return trev_rb_write()'s result. */
static int write_next(struct writer *w, uint32_t len)
{
	static __thread uint8_t buf[TREV_RB_MAX_EVENT];
	uint32_t seq = w->next_seq++;
	struct expect *e = &w->ev[seq];
	int ret;

	if (seq >= MAX_SEQ) {
		w->errors++;
		return -E2BIG;
	}
	fill(buf, tag_of(w->idx, seq), w->idx, seq, len);
	e->len = len;
	e->before = trev_rb_clock_now(rb);
	ret = trev_rb_write(rb, buf, len);
	e->after = trev_rb_clock_now(rb);
	e->state = ret == 0 ? EV_COMMITTED : EV_REFUSED;
	return ret;
}

/* Reserve and discard, with nothing behind it: the space is taken back. */
static void discard_alone(struct writer *w, uint32_t len)
{
	uint8_t *p = trev_rb_reserve(rb, len);

	if (!p) {
		w->errors++;
		return;
	}
	fill(p, TAG_DISCARD | tag_of(w->idx, w->next_seq), w->idx, 0, len);
	trev_rb_discard(rb, p);
}

/* Discard a reservation a nested write went behind: it becomes padding. */
static void discard_around(struct writer *w, uint32_t len)
{
	uint8_t *outer = trev_rb_reserve(rb, OUTER_LEN);

	if (!outer) {
		w->errors++;
		return;
	}
	fill(outer, TAG_DISCARD | tag_of(w->idx, w->next_seq), w->idx, 0, OUTER_LEN);
	if (write_next(w, len) != 0)
		w->errors++;
	trev_rb_discard(rb, outer);
	w->nested++;
}

/* One mixed event: plain, after a discard, or inside a discarded one. */
static void mixed(struct writer *w, uint32_t i)
{
	uint32_t len = sizes[(i + 5 * w->idx) % (sizeof(sizes) / sizeof(sizes[0]))];

	if (i % 9 == 4)
		discard_alone(w, len);
	if (i % 11 == 7)
		discard_around(w, len);
	else if (write_next(w, len) != 0)
		w->errors++;
}

/*
 * Wait until the buffer's own clock is more than GAP_NS past this writer's
 * last write, so that its next event needs a time extend: a condition on
 * the clock the time stamps come from, not a sleep of a fixed length.
 */
static void gap(struct writer *w)
{
	uint64_t last = w->ev[w->next_seq - 1].after;

	while (trev_rb_clock_now(rb) - last <= GAP_NS)
		usleep(10000);
}

/* Move to another CPU we may run on, so the writer logs a CPU marker. */
/* Stay on the CPU the caller runs on now. */
static void pin_here(void)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	if (cpu < 0)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
}

static int move_cpu(void)
{
	int cur = sched_getcpu();
	cpu_set_t set, one;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (cpu == cur || !CPU_ISSET(cpu, &set))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) != 0)
			return -1;
		return cpu;
	}
	return -1;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	uint32_t i;

	/* Phase A: mixed events, then fill the buffer until it refuses. */
	w->moved_to = -1;
	/* Writer 0 stays on one CPU until its move: else a migration of its own
	 * just before move_cpu() looks could make the "move" a move to where
	 * its last event already ran, which needs no marker. */
	if (w->idx == 0)
		pin_here();
	if (write_next(w, sizes[0]) != 0)
		w->errors++;
	gap(w);
	for (i = 1; i < SEQ_A; i++) {
		mixed(w, i);
		if (w->idx == 0 && i == MOVE_SEQ)
			w->moved_to = move_cpu();
	}
	while (write_next(w, FILL_LEN) == 0)
		if (w->next_seq >= MAX_SEQ / 2)
			break;
	w->refused = 1;
	for (i = 0; i < EXTRA_REFUSED; i++) {
		if (write_next(w, 4 + i) != -ENOSPC)
			w->errors++;
		w->refused++;
	}

	pthread_barrier_wait(&phase);	/* the main thread reads everything */
	pthread_barrier_wait(&phase);

	/* Phase B: the first page written now carries the lost count. */
	w->first_after_loss = w->next_seq;
	if (write_next(w, 24) != 0)
		w->errors++;
	for (i = 1; i < SEQ_B; i++) {
		if (i == 6)
			gap(w);
		mixed(w, i);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Reading                                                              */

static void read_all_pages(void)
{
	for (;;) {
		int ret;

		if (nr_pages == cap_pages) {
			cap_pages = cap_pages ? cap_pages * 2 : 64;
			pages = realloc(pages, cap_pages * sizeof(*pages));
			assert_non_null(pages);
		}
		memset(pages[nr_pages].data, 0xa5, RB_PAGE_SIZE);
		ret = trev_rb_read_page(rb, pages[nr_pages].data, &pages[nr_pages].buffer);
		assert_true(ret >= 0);
		if (ret == 0)
			return;
		nr_pages++;
	}
}

/* An event as a decoder saw it. */
struct seen {
	uint64_t ts;
	const uint8_t *payload;
	uint32_t len;
	int kind_before;	/* record just before it on the page, or RB_REC_END */
	uint32_t mark_cpu;	/* the CPU marker's value if kind_before is RB_REC_CPU */
};

static struct {
	uint32_t extends;	/* time extend records */
	uint32_t stamps;	/* time stamp records */
	uint32_t marks;		/* CPU markers */
	uint32_t discards;	/* discarded-event padding */
	uint32_t longs;		/* type_len 0 data records */
} counts;

/* Decode a page with kbuffer. Return: events, and the page's missed count. */
static uint32_t decode_kbuffer(struct kbuffer *kb, uint8_t *page, struct seen *out, uint32_t max,
			       int *missed)
{
	unsigned long long ts = 0;
	uint32_t n = 0;
	void *data;

	assert_int_equal(kbuffer_load_subbuffer(kb, page), 0);
	*missed = kbuffer_missed_events(kb);
	for (data = kbuffer_read_event(kb, &ts); data; data = kbuffer_next_event(kb, &ts)) {
		assert_true(n < max);
		assert_int_equal(kbuffer_timestamp(kb), ts);
		out[n].ts = ts;
		out[n].payload = data;
		out[n].len = (uint32_t)kbuffer_event_size(kb);
		n++;
	}
	return n;
}

/* Decode a page with rb_page_for_each(). Return: events, and the page's lost count. */
static uint32_t decode_rb(const uint8_t *page, struct seen *out, uint32_t max, int64_t *lost)
{
	uint32_t n = 0, mark_cpu = 0;
	int before = RB_REC_END;
	struct rb_walk w;
	struct rb_rec r;
	uint64_t count;

	assert_true((rb_get64(page + 8) & RB_COMMIT_MASK) <= RB_DATA_SIZE);
	rb_page_for_each(&w, page, &r) {
		switch (r.kind) {
		case RB_REC_DATA:
			assert_true(n < max);
			out[n].ts = r.ts;
			out[n].payload = r.payload;
			out[n].len = r.len;
			out[n].kind_before = before;
			out[n].mark_cpu = mark_cpu;
			if (r.type_len == 0)
				counts.longs++;
			n++;
			break;
		case RB_REC_TIME:
			if (r.type_len == RB_TYPE_TIME_EXTEND)
				counts.extends++;
			else
				counts.stamps++;
			break;
		case RB_REC_CPU:
			counts.marks++;
			mark_cpu = r.cpu;
			break;
		case RB_REC_DISCARD:
			counts.discards++;
			break;
		default:
			break;
		}
		before = r.kind;
	}
	/* The records fill the commit exactly: nothing is left undecoded. */
	assert_int_equal(w.off, w.size);
	*lost = 0;
	if (w.commit & RB_MISSED_EVENTS)
		*lost = rb_walk_lost(&w, &count) ? (int64_t)count : -1;
	return n;
}

/* ------------------------------------------------------------------ */
/* The test                                                             */

/* Per writer: where the check of its events has got to. */
struct progress {
	int buffer;		/* its buffer id, -1 until seen */
	uint32_t seq;		/* expected events below this were seen */
	uint64_t last_ts;
	uint32_t events;
	uint32_t lost_pages;
	int64_t lost;
	int moved_checked;
};

static uint32_t next_committed(const struct writer *w, uint32_t seq)
{
	while (seq < w->next_seq && w->ev[seq].state != EV_COMMITTED)
		seq++;
	return seq;
}

/* Check one event against what its writer wrote. */
static void check_event(struct progress *prog, const struct seen *s, bool first_on_page,
			int64_t page_lost, unsigned int buffer)
{
	uint32_t tag = rb_get32(s->payload), seq;
	unsigned int wi;
	struct writer *w;
	struct progress *p;
	const struct expect *e;

	assert_int_equal(tag & TAG_DISCARD, 0);	/* discarded events never show */
	wi = tag >> 24;
	assert_true(wi < NR_WRITERS);
	w = &writers[wi];
	p = &prog[wi];
	/* A buffer holds one writer's events, and a writer has one buffer. */
	if (p->buffer < 0)
		p->buffer = (int)buffer;
	assert_int_equal(p->buffer, buffer);

	/* Exactly the committed events, each once, in order. */
	seq = tag & 0xffffff;
	p->seq = next_committed(w, p->seq);
	assert_int_equal(seq, p->seq);
	e = &w->ev[seq];
	p->seq++;
	p->events++;

	assert_int_equal(s->len, rb_align4(e->len));
	for (uint32_t k = 4; k < e->len; k++)
		assert_int_equal(s->payload[k], pattern(wi, seq, k));
	/* Written between the two clock reads around the write. */
	assert_true(s->ts >= e->before);
	assert_true(s->ts <= e->after);
	assert_true(s->ts >= p->last_ts);
	p->last_ts = s->ts;

	/* Only the first page of phase B says events were lost, how many. */
	if (first_on_page && page_lost != 0) {
		assert_int_equal(seq, w->first_after_loss);
		p->lost_pages++;
		p->lost = page_lost;
	}
	/* After the move the writer noted its new CPU, unless a page began. */
	if (wi == 0 && w->moved_to >= 0 && !p->moved_checked &&
	    seq > MOVE_SEQ && seq == next_committed(w, MOVE_SEQ + 1)) {
		p->moved_checked = 1;
		if (s->kind_before == RB_REC_CPU)
			assert_int_equal(s->mark_cpu, w->moved_to);
		else
			assert_true(first_on_page && s->kind_before == RB_REC_END);
	}
}

static void test_kbuffer_reads_pages(void **state)
{
	struct trev_rb_options opts = { .size_kb = BUF_KB, .overwrite = 0, .clock = -1 };
	struct progress prog[NR_WRITERS];
	static struct seen kseen[RB_DATA_SIZE / 8], rseen[RB_DATA_SIZE / 8];
	struct kbuffer *kb;
	uint32_t nested = 0, events = 0;

	(void)state;
	assert_int_equal(trev_rb_create(&rb, &opts), 0);
	assert_int_equal(pthread_barrier_init(&phase, NULL, NR_WRITERS + 1), 0);
	for (unsigned int i = 0; i < NR_WRITERS; i++) {
		writers[i].idx = i;
		assert_int_equal(pthread_create(&writers[i].thread, NULL, writer_main,
						&writers[i]), 0);
	}
	pthread_barrier_wait(&phase);
	read_all_pages();
	pthread_barrier_wait(&phase);
	for (unsigned int i = 0; i < NR_WRITERS; i++)
		assert_int_equal(pthread_join(writers[i].thread, NULL), 0);
	read_all_pages();

	for (unsigned int i = 0; i < NR_WRITERS; i++) {
		assert_int_equal(writers[i].errors, 0);
		assert_int_equal(writers[i].refused, 1 + EXTRA_REFUSED);
		nested += writers[i].nested;
		prog[i] = (struct progress){ .buffer = -1 };
	}

	kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	assert_non_null(kb);
	for (size_t pg = 0; pg < nr_pages; pg++) {
		uint8_t *page = pages[pg].data;
		uint32_t nk, nr;
		int64_t lost;
		int missed;

		nk = decode_kbuffer(kb, page, kseen, RB_DATA_SIZE / 8, &missed);
		nr = decode_rb(page, rseen, RB_DATA_SIZE / 8, &lost);
		/* The two decoders agree record for record. */
		assert_true(nr > 0);
		assert_int_equal(nk, nr);
		assert_int_equal(missed, lost);
		for (uint32_t k = 0; k < nr; k++) {
			assert_int_equal(kseen[k].ts, rseen[k].ts);
			assert_ptr_equal(kseen[k].payload, rseen[k].payload);
			assert_int_equal(kseen[k].len, rseen[k].len);
		}
		for (uint32_t k = 0; k < nr; k++)
			check_event(prog, &rseen[k], k == 0, lost, pages[pg].buffer);
		events += nr;
	}
	kbuffer_free(kb);

	for (unsigned int i = 0; i < NR_WRITERS; i++) {
		struct writer *w = &writers[i];
		uint32_t committed = 0;

		for (uint32_t s = 0; s < w->next_seq; s++)
			committed += w->ev[s].state == EV_COMMITTED;
		assert_int_equal(next_committed(w, prog[i].seq), w->next_seq);
		assert_int_equal(prog[i].events, committed);
		assert_int_equal(prog[i].lost_pages, 1);
		assert_int_equal(prog[i].lost, w->refused);
		if (w->moved_to >= 0)
			assert_true(prog[i].moved_checked);
	}
	assert_int_not_equal(prog[0].buffer, prog[1].buffer);
	print_message("  %zu pages, %u events, %u extends, %u long records, %u CPU markers, "
		      "%u discarded\n", nr_pages, events, counts.extends, counts.longs,
		      counts.marks, counts.discards);
	/* Each writer's first gap falls inside its first page. */
	assert_true(counts.extends >= NR_WRITERS);
	assert_true(counts.longs > 0);
	assert_int_equal(counts.discards, nested);

	pthread_barrier_destroy(&phase);
	trev_rb_destroy(rb);
	free(pages);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kbuffer_reads_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
