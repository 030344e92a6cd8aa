/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rb_page_for_each() on pages built by hand: every kind of record with its
 * decoded time, the lost-event count after the data, a commit word past the
 * page (run in the ASan tree: the page is an allocation of its exact size),
 * and an empty page.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ring_buffer/rb_page.h"

#define T0		1000000000ull	/* the pages' time stamp */
#define MAX_GOT		256

/* What the walk gave for one record. */
struct got {
	int kind;		/* enum rb_rec_kind */
	uint32_t type_len;
	uint32_t off;		/* r.off */
	uint32_t size;		/* r.size */
	uint32_t len;		/* data: payload bytes */
	uint32_t word;		/* data: the payload's first u32 */
	uint32_t cpu;		/* CPU marker */
	uint64_t ts;
};

static struct got got[MAX_GOT];

/*
 * An allocation of exactly one page, so ASan sees any read past it; the
 * data area is filled with a pattern that decodes as records (type_len 5),
 * so a walk that went past the commit would show.
 */
static uint8_t *new_page(uint64_t ts)
{
	uint8_t *page = malloc(RB_PAGE_SIZE);

	assert_non_null(page);
	memset(page, 0xa5, RB_PAGE_SIZE);
	rb_put64(page, ts);
	rb_put64(page + 8, 0);
	return page;
}

/* A data record of @len bytes, its first word @word, the rest 0x5a; returns its end. */
static uint8_t *put_data(uint8_t *at, uint32_t len, uint32_t delta, uint32_t word)
{
	uint8_t *payload = rb_put_data_hdr(at, len, delta);

	memset(payload, 0x5a, rb_align4(len));
	if (len >= 4)
		rb_put32(payload, word);
	return payload + rb_align4(len);
}

/* A padding record: @len bytes after the header word, the first u32 @mark. */
static uint8_t *put_padding(uint8_t *at, uint32_t len, uint32_t delta, uint32_t mark)
{
	rb_put32(at, rb_hdr_word(RB_TYPE_PADDING, delta));
	rb_put32(at + 4, len);
	memset(at + 8, 0, len - 4);
	if (len >= 8)
		rb_put32(at + 8, mark);
	return at + 4 + len;
}

static void set_commit(uint8_t *page, const uint8_t *end, uint64_t flags)
{
	rb_put64(page + 8, (uint64_t)(end - (page + RB_PAGE_HDR)) | flags);
}

/* Walk @page into got[]. Return: the records; *@w as the loop left it. */
static unsigned int walk(const uint8_t *page, struct rb_walk *w)
{
	uint64_t before = rb_get64(page);
	unsigned int n = 0;
	struct rb_rec r;

	rb_page_for_each(w, page, &r) {
		assert_true(n < MAX_GOT);
		/* Inside the body the walk stands on the record, at the time before it. */
		assert_int_equal(w->off, r.off);
		assert_int_equal(w->ts, before);
		before = r.ts;
		got[n] = (struct got){ .kind = r.kind, .type_len = r.type_len, .off = r.off,
				       .size = r.size, .ts = r.ts };
		if (r.kind == RB_REC_DATA) {
			got[n].len = r.len;
			got[n].word = r.len >= 4 ? rb_get32(r.payload) : 0;
		} else if (r.kind == RB_REC_CPU) {
			got[n].cpu = r.cpu;
		}
		n++;
	}
	return n;
}

/* Compact and long data records: offsets, sizes, payloads and times. */
static void test_walk_data(void **state)
{
	static const struct {
		uint32_t len, delta, type_len, size;
	} recs[] = {
		{ 8, 0, 2, 12 },
		{ 10, 5, 3, 16 },		/* padded to 12 */
		{ 200, 7, 0, 208 },		/* long: u32 L, then the payload */
		{ RB_SMALL_MAX, 1, RB_TYPE_DATA_MAX, 4 + RB_SMALL_MAX },
		{ RB_SMALL_MAX + 1, RB_DELTA_MAX, 0, 8 + RB_SMALL_MAX + 4 },
	};
	const size_t nr = sizeof(recs) / sizeof(recs[0]);
	uint8_t *page = new_page(T0), *end = page + RB_PAGE_HDR;
	uint32_t off = 0;
	uint64_t ts = T0;
	struct rb_walk w;
	unsigned int n;

	(void)state;
	for (size_t i = 0; i < nr; i++)
		end = put_data(end, recs[i].len, recs[i].delta, 0x1000 + (uint32_t)i);
	set_commit(page, end, 0);

	n = walk(page, &w);
	assert_int_equal(n, nr);
	for (size_t i = 0; i < nr; i++) {
		ts += recs[i].delta;
		assert_int_equal(got[i].kind, RB_REC_DATA);
		assert_int_equal(got[i].type_len, recs[i].type_len);
		assert_int_equal(got[i].off, off);
		assert_int_equal(got[i].size, recs[i].size);
		assert_int_equal(got[i].len, rb_align4(recs[i].len));
		assert_int_equal(got[i].word, 0x1000 + i);
		assert_int_equal(got[i].ts, ts);
		off += recs[i].size;
	}
	/* The records fill the commit exactly; the walk ends on the last time. */
	assert_int_equal(w.size, off);
	assert_int_equal(w.off, off);
	assert_int_equal(w.ts, ts);
	assert_ptr_equal(w.data, page + RB_PAGE_HDR);
	free(page);
}

/* A time extend adds its 59-bit delta; a time stamp sets the time. */
static void test_walk_time(void **state)
{
	const uint64_t extend = (5ull << RB_DELTA_BITS) + 9;	/* > RB_DELTA_MAX */
	const uint64_t stamp = 7000000000000ull;
	uint8_t *page = new_page(T0), *end = page + RB_PAGE_HDR;
	struct rb_walk w;
	unsigned int n;

	(void)state;
	end = put_data(end, 8, 3, 1);
	rb_put_time_extend(end, extend);
	end += 8;
	end = put_data(end, 8, 2, 2);
	rb_put_time_stamp(end, stamp);
	end += 8;
	end = put_data(end, 8, 4, 3);
	set_commit(page, end, 0);

	n = walk(page, &w);
	assert_int_equal(n, 5);
	assert_int_equal(got[0].kind, RB_REC_DATA);
	assert_int_equal(got[0].ts, T0 + 3);
	assert_int_equal(got[1].kind, RB_REC_TIME);
	assert_int_equal(got[1].type_len, RB_TYPE_TIME_EXTEND);
	assert_int_equal(got[1].size, 8);
	assert_int_equal(got[1].ts, T0 + 3 + extend);
	assert_int_equal(got[2].kind, RB_REC_DATA);
	assert_int_equal(got[2].word, 2);
	assert_int_equal(got[2].ts, T0 + 3 + extend + 2);
	assert_int_equal(got[3].kind, RB_REC_TIME);
	assert_int_equal(got[3].type_len, RB_TYPE_TIME_STAMP);
	assert_int_equal(got[3].ts, stamp);
	assert_int_equal(got[4].kind, RB_REC_DATA);
	assert_int_equal(got[4].word, 3);
	assert_int_equal(got[4].ts, stamp + 4);
	assert_int_equal(w.off, w.size);
	assert_int_equal(w.ts, stamp + 4);
	free(page);
}

/* Padding, trev's CPU marker and discarded event: skipped by kind, deltas kept. */
static void test_walk_padding(void **state)
{
	uint8_t *page = new_page(T0), *end = page + RB_PAGE_HDR;
	struct rb_walk w;
	unsigned int n;

	(void)state;
	end = put_data(end, 8, 1, 1);
	end = put_padding(end, 8, 6, 0);		/* plain padding, 12 bytes */
	rb_put_cpu_mark(end, 3);
	end += RB_CPU_MARK_SIZE;
	end = put_padding(end, 28, 2, RB_MARK_DISCARD);	/* a discarded 28-byte record */
	end = put_data(end, 8, 1, 2);
	set_commit(page, end, 0);

	n = walk(page, &w);
	assert_int_equal(n, 5);
	assert_int_equal(got[0].kind, RB_REC_DATA);
	assert_int_equal(got[0].ts, T0 + 1);
	assert_int_equal(got[1].kind, RB_REC_PADDING);
	assert_int_equal(got[1].type_len, RB_TYPE_PADDING);
	assert_int_equal(got[1].off, 12);
	assert_int_equal(got[1].size, 12);
	assert_int_equal(got[1].ts, T0 + 7);
	assert_int_equal(got[2].kind, RB_REC_CPU);
	assert_int_equal(got[2].cpu, 3);
	assert_int_equal(got[2].size, RB_CPU_MARK_SIZE);
	assert_int_equal(got[2].ts, T0 + 7);
	assert_int_equal(got[3].kind, RB_REC_DISCARD);
	assert_int_equal(got[3].size, 32);
	assert_int_equal(got[3].ts, T0 + 9);
	assert_int_equal(got[4].kind, RB_REC_DATA);
	assert_int_equal(got[4].word, 2);
	assert_int_equal(got[4].off, 12 + 12 + 16 + 32);
	assert_int_equal(got[4].ts, T0 + 10);
	assert_int_equal(w.off, w.size);
	free(page);
}

/* The lost count after the data is no record; rb_walk_lost() reads it. */
static void test_walk_lost(void **state)
{
	uint8_t *page = new_page(T0), *end = page + RB_PAGE_HDR;
	struct rb_walk w;
	uint64_t lost;
	unsigned int n;

	(void)state;
	end = put_data(end, 8, 1, 1);
	end = put_data(end, 16, 1, 2);
	/* A count that would decode as a data record if the walk read it. */
	rb_put64(end, 0x0000000500000042ull);
	set_commit(page, end, RB_MISSED_EVENTS | RB_MISSED_STORED);

	n = walk(page, &w);
	assert_int_equal(n, 2);
	assert_int_equal(got[1].word, 2);
	assert_int_equal(w.size, 12 + 20);
	assert_int_equal(w.off, w.size);
	assert_int_equal(w.commit, 32 | RB_MISSED_EVENTS | RB_MISSED_STORED);
	assert_true(rb_walk_lost(&w, &lost));
	assert_int_equal(lost, 0x0000000500000042ull);

	/* Events missed, no count: flagged, nothing read. */
	set_commit(page, end, RB_MISSED_EVENTS);
	assert_int_equal(walk(page, &w), 2);
	assert_false(rb_walk_lost(&w, &lost));
	assert_int_equal(lost, 0);
	assert_true(w.commit & RB_MISSED_EVENTS);

	/* No flags: no count, whatever follows the data. */
	set_commit(page, end, 0);
	assert_int_equal(walk(page, &w), 2);
	assert_false(rb_walk_lost(&w, &lost));
	assert_int_equal(lost, 0);

	/* A count on a page with no records: at offset 0. */
	rb_put64(page + RB_PAGE_HDR, 77);
	rb_put64(page + 8, RB_MISSED_EVENTS | RB_MISSED_STORED);
	assert_int_equal(walk(page, &w), 0);
	assert_true(rb_walk_lost(&w, &lost));
	assert_int_equal(lost, 77);

	/* A count flagged where the data leaves no room for it: not read. */
	end = page + RB_PAGE_HDR;
	for (unsigned int i = 0; i < RB_DATA_SIZE / 24 - 1; i++)
		end = put_data(end, 20, 0, 0);
	end = put_data(end, 16, 0, 9);			/* to 4 bytes before the end */
	assert_ptr_equal(end, page + RB_PAGE_SIZE - 4);
	set_commit(page, end, RB_MISSED_EVENTS | RB_MISSED_STORED);
	n = walk(page, &w);
	assert_int_equal(got[n - 1].word, 9);
	assert_int_equal(w.off, RB_DATA_SIZE - 4);
	assert_false(rb_walk_lost(&w, &lost));
	assert_int_equal(lost, 0);
	free(page);
}

/*
 * A commit word past the page: the walk stops at the page's end. Records
 * fill the data area exactly, then one whose length runs past the end.
 */
static void test_walk_commit_past_page(void **state)
{
	static const uint64_t commits[] = {
		RB_DATA_SIZE + 4, RB_PAGE_SIZE, RB_COMMIT_MASK,
		RB_COMMIT_MASK | RB_MISSED_EVENTS | RB_MISSED_STORED,
	};
	const unsigned int per_page = RB_DATA_SIZE / 24;	/* 24-byte records: 170 */
	uint8_t *page = new_page(T0), *end = page + RB_PAGE_HDR;
	struct rb_walk w;
	uint64_t lost;
	unsigned int n;

	(void)state;
	assert_int_equal(per_page * 24, RB_DATA_SIZE);
	for (unsigned int i = 0; i < per_page; i++)
		end = put_data(end, 20, 1, i);
	assert_ptr_equal(end, page + RB_PAGE_SIZE);
	for (size_t c = 0; c < sizeof(commits) / sizeof(commits[0]); c++) {
		rb_put64(page + 8, commits[c]);
		n = walk(page, &w);
		assert_int_equal(n, per_page);
		assert_int_equal(got[n - 1].word, per_page - 1);
		assert_int_equal(got[n - 1].ts, T0 + per_page);
		assert_int_equal(w.size, RB_DATA_SIZE);
		assert_int_equal(w.off, RB_DATA_SIZE);
		/* No room for a count inside the page: none read. */
		assert_false(rb_walk_lost(&w, &lost));
	}

	/* The last 24 bytes: a long record that claims 96 bytes. */
	end = page + RB_PAGE_SIZE - 24;
	rb_put32(end, rb_hdr_word(0, 1));
	rb_put32(end + 4, 96 + 4);
	rb_put64(page + 8, RB_COMMIT_MASK);
	n = walk(page, &w);
	assert_int_equal(n, per_page - 1);
	assert_int_equal(w.off, RB_DATA_SIZE - 24);
	assert_int_equal(w.ts, T0 + per_page - 1);

	/* And a compact one whose words run past it (type_len 7: 28 bytes). */
	rb_put32(end, rb_hdr_word(7, 1));
	n = walk(page, &w);
	assert_int_equal(n, per_page - 1);
	assert_int_equal(w.off, RB_DATA_SIZE - 24);
	free(page);
}

/* An empty page: no record, the page's own time, and the rest never read. */
static void test_walk_empty(void **state)
{
	uint8_t *page = new_page(T0);
	struct rb_walk w;
	uint64_t lost;

	(void)state;
	assert_int_equal(walk(page, &w), 0);
	assert_int_equal(w.size, 0);
	assert_int_equal(w.off, 0);
	assert_int_equal(w.ts, T0);
	assert_int_equal(w.commit, 0);
	assert_false(rb_walk_lost(&w, &lost));

	/* A zeroed page too (what a reader gets for nothing written). */
	memset(page, 0, RB_PAGE_SIZE);
	assert_int_equal(walk(page, &w), 0);
	assert_int_equal(w.ts, 0);
	assert_int_equal(w.off, 0);
	free(page);
}

/* `break` leaves the walk on the record it stopped on; a new loop starts over. */
static void test_walk_break(void **state)
{
	uint8_t *page = new_page(T0), *end = page + RB_PAGE_HDR;
	struct rb_walk w;
	struct rb_rec r;
	unsigned int n = 0;

	(void)state;
	for (uint32_t i = 0; i < 4; i++)
		end = put_data(end, 8, 10, i);
	set_commit(page, end, 0);
	rb_page_for_each(&w, page, &r) {
		if (rb_get32(r.payload) == 1)
			break;
	}
	assert_int_equal(r.off, 12);
	assert_int_equal(r.ts, T0 + 20);
	assert_int_equal(w.off, 12);
	assert_int_equal(w.ts, T0 + 10);
	rb_page_for_each(&w, page, &r) {
		if (rb_get32(r.payload) % 2)
			continue;
		n++;
	}
	assert_int_equal(n, 2);
	assert_int_equal(w.off, 48);
	free(page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_data),
		cmocka_unit_test(test_walk_time),
		cmocka_unit_test(test_walk_padding),
		cmocka_unit_test(test_walk_lost),
		cmocka_unit_test(test_walk_commit_past_page),
		cmocka_unit_test(test_walk_empty),
		cmocka_unit_test(test_walk_break),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
