/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel page format, byte for byte: rb_page.h encoders against golden
 * bytes (docs/formats.md, "Ring-buffer pages"), rb_decode() on corrupt input,
 * and pages and lost-event flags as the real buffer produces them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <trev/ring_buffer.h>

#include "ring_buffer/rb_page.h"

#define EV_LEN		24	/* payload of the events the real buffer gets */
#define EV_SIZE		28	/* the record: header word + 24 bytes */

/* ------------------------------------------------------------------ */
/* Helpers                                                              */

/*
 * A heap buffer of exactly @n bytes, so ASan catches any read past it: the
 * first @have bytes from @src, zeros after them.
 */
static uint8_t *exact_buf(const void *src, size_t have, size_t n)
{
	uint8_t *p = calloc(1, n ? n : 1);

	assert_non_null(p);
	memcpy(p, src, have < n ? have : n);
	return p;
}

static uint8_t *exact_copy(const void *src, size_t n)
{
	return exact_buf(src, n, n);
}

/* The payload of event @i: a counter, then bytes that depend on it. */
static void fill_event(uint8_t *buf, uint32_t i)
{
	rb_put32(buf, i);
	for (uint32_t k = 4; k < EV_LEN; k++)
		buf[k] = (uint8_t)(i * 13 + k);
}

/* Pin the calling thread to the CPU it is on; return the old mask. */
static void pin_to_this_cpu(cpu_set_t *old)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	assert_true(cpu >= 0);
	assert_int_equal(sched_getaffinity(0, sizeof(*old), old), 0);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
}

static void unpin(const cpu_set_t *old)
{
	assert_int_equal(sched_setaffinity(0, sizeof(*old), old), 0);
}

static struct trev_rb *make_rb(unsigned int size_kb, int overwrite)
{
	struct trev_rb_options opts = {
		.size_kb = size_kb,
		.overwrite = overwrite,
		.clock = TREV_CLOCK_COUNTER,
	};
	struct trev_rb *rb = NULL;

	assert_int_equal(trev_rb_create(&rb, &opts), 0);
	assert_non_null(rb);
	return rb;
}

/* The page's lost count: 0, -1 (unknown) or the stored count. */
static int64_t page_lost(const uint8_t *page)
{
	struct rb_walk w;
	uint64_t lost;

	rb_walk_start(&w, page);
	if (!(w.commit & RB_MISSED_EVENTS))
		return 0;
	return rb_walk_lost(&w, &lost) ? (int64_t)lost : -1;
}

/*
 * Walk a page with rb_page_for_each(); check every data record is one of
 * our 24-byte events and store the counters in @ids. Return: events found.
 */
static uint32_t page_events(const uint8_t *page, uint32_t *ids, uint32_t max)
{
	struct rb_walk w;
	struct rb_rec r;
	uint32_t n = 0;

	assert_true((rb_get64(page + 8) & RB_COMMIT_MASK) <= RB_DATA_SIZE);
	rb_page_for_each(&w, page, &r) {
		if (r.kind == RB_REC_DATA) {
			uint8_t want[EV_LEN];

			assert_int_equal(r.len, EV_LEN);
			assert_true(n < max);
			ids[n] = rb_get32(r.payload);
			fill_event(want, ids[n]);
			assert_memory_equal(r.payload, want, EV_LEN);
			n++;
		}
	}
	assert_int_equal(w.off, w.size);	/* the records fill the commit exactly */
	return n;
}

/* ------------------------------------------------------------------ */
/* a. Encoders: golden bytes, then decoded back                         */

struct data_case {
	uint32_t len;		/* payload bytes */
	uint32_t delta;		/* time delta */
	uint8_t hdr[8];		/* expected header bytes */
	uint32_t hdr_size;	/* 4 (compact) or 8 (long) */
	uint32_t type_len;	/* expected type_len */
	uint32_t padded;	/* payload rounded up to 4 */
};

static const struct data_case data_cases[] = {
	/* smallest: one word of payload */
	{ 1, 0, { 0x01, 0x00, 0x00, 0x00 }, 4, 1, 4 },
	/* 24 bytes, delta 1000: type_len 6 | 1000 << 5 */
	{ 24, 1000, { 0x06, 0x7d, 0x00, 0x00 }, 4, 6, 24 },
	/* the largest compact record, with the largest delta */
	{ 112, RB_DELTA_MAX, { 0xfc, 0xff, 0xff, 0xff }, 4, 28, 112 },
	/* one byte more: long form, L = 116 + 4 */
	{ 113, 1, { 0x20, 0x00, 0x00, 0x00, 0x78, 0x00, 0x00, 0x00 }, 8, 0, 116 },
	/* docs/formats.md, "A worked page", offset 156: 184 bytes, L = 188 */
	{ 184, 1000, { 0x00, 0x7d, 0x00, 0x00, 0xbc, 0x00, 0x00, 0x00 }, 8, 0, 184 },
	/* the largest event: L = 4064 + 4 */
	{ TREV_RB_MAX_EVENT, 0, { 0x00, 0x00, 0x00, 0x00, 0xe4, 0x0f, 0x00, 0x00 }, 8, 0,
	  TREV_RB_MAX_EVENT },
};

static void test_encode_data_records(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(data_cases) / sizeof(data_cases[0]); i++) {
		const struct data_case *c = &data_cases[i];
		uint32_t size = c->hdr_size + c->padded;
		uint8_t *rec, *payload;
		struct rb_rec r;

		assert_int_equal(rb_data_size(c->len), size);
		rec = calloc(1, size);
		assert_non_null(rec);
		payload = rb_put_data_hdr(rec, c->len, c->delta);
		assert_ptr_equal(payload, rec + c->hdr_size);
		assert_memory_equal(rec, c->hdr, c->hdr_size);
		for (uint32_t k = 0; k < c->len; k++)
			payload[k] = (uint8_t)(k + i);

		/* Exactly the record's bytes: the decoder must not need more. */
		assert_int_equal(rb_decode(rec, size, 0, 5000, &r), RB_REC_DATA);
		assert_int_equal(r.kind, RB_REC_DATA);
		assert_int_equal(r.type_len, c->type_len);
		assert_int_equal(r.off, 0);
		assert_int_equal(r.size, size);
		assert_int_equal(r.len, c->padded);
		assert_int_equal(r.ts, 5000 + (uint64_t)c->delta);
		assert_ptr_equal(r.payload, rec + c->hdr_size);
		/* The long form's length word is padded payload + 4. */
		if (c->type_len == 0)
			assert_int_equal(rb_get32(rec + 4), c->padded + 4);
		free(rec);
	}
}

static void test_encode_time_extend(void **state)
{
	/* docs/formats.md, "A worked page", offset 392 */
	static const uint8_t want[8] = { 0x1e, 0xbd, 0xbe, 0x40, 0x25, 0x00, 0x00, 0x00 };
	/* the smallest delta that needs an extend: 2^27 */
	static const uint8_t want_min[8] = { 0x1e, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00 };
	uint8_t buf[8];
	uint8_t *rec;
	struct rb_rec r;

	(void)state;
	memset(buf, 0xaa, sizeof(buf));
	rb_put_time_extend(buf, 5000001000ull);
	assert_memory_equal(buf, want, 8);
	rec = exact_copy(buf, 8);
	assert_int_equal(rb_decode(rec, 8, 0, 1000000000000ull, &r), RB_REC_TIME);
	assert_int_equal(r.type_len, RB_TYPE_TIME_EXTEND);
	assert_int_equal(r.size, 8);
	assert_int_equal(r.ts, 1000000000000ull + 5000001000ull);
	free(rec);

	rb_put_time_extend(buf, 1ull << 27);
	assert_memory_equal(buf, want_min, 8);
	rec = exact_copy(buf, 8);
	assert_int_equal(rb_decode(rec, 8, 0, 7, &r), RB_REC_TIME);
	assert_int_equal(r.ts, 7 + (1ull << 27));
	free(rec);
}

static void test_encode_time_stamp(void **state)
{
	/* docs/formats.md, "A worked page", offset 420 */
	static const uint8_t want[8] = { 0x1f, 0x70, 0x4c, 0xd7, 0x3f, 0x1d, 0x00, 0x00 };
	const uint64_t top = 0xf8ull << 56;	/* the 5 bits a time stamp does not store */
	uint8_t buf[8];
	uint8_t *rec;
	struct rb_rec r;

	(void)state;
	memset(buf, 0xaa, sizeof(buf));
	rb_put_time_stamp(buf, 1005001008000ull);
	assert_memory_equal(buf, want, 8);
	rec = exact_copy(buf, 8);

	/* Absolute: the previous time does not matter, below bit 59. */
	assert_int_equal(rb_decode(rec, 8, 0, 0, &r), RB_REC_TIME);
	assert_int_equal(r.type_len, RB_TYPE_TIME_STAMP);
	assert_int_equal(r.size, 8);
	assert_int_equal(r.ts, 1005001008000ull);
	assert_int_equal(rb_decode(rec, 8, 0, 2000000000000ull, &r), RB_REC_TIME);
	assert_int_equal(r.ts, 1005001008000ull);
	/* The top 5 bits come from the current time (libtraceevent 1.6+). */
	assert_int_equal(rb_decode(rec, 8, 0, top | 12345, &r), RB_REC_TIME);
	assert_int_equal(r.ts, top | 1005001008000ull);
	free(rec);
}

static void test_encode_cpu_mark(void **state)
{
	static const uint8_t want[16] = {
		0x1d, 0x00, 0x00, 0x00,	/* type_len 29, delta 0 */
		0x0c, 0x00, 0x00, 0x00,	/* L = 12 */
		0x74, 0x43, 0x50, 0x55,	/* "tCPU" */
		0x05, 0x00, 0x00, 0x00,	/* cpu 5 */
	};
	uint8_t buf[16];
	uint8_t *rec;
	struct rb_rec r;

	(void)state;
	assert_int_equal(RB_CPU_MARK_SIZE, 16);
	memset(buf, 0xaa, sizeof(buf));
	rb_put_cpu_mark(buf, 5);
	assert_memory_equal(buf, want, 16);
	rec = exact_copy(buf, 16);
	assert_int_equal(rb_decode(rec, 16, 0, 777, &r), RB_REC_CPU);
	assert_int_equal(r.type_len, RB_TYPE_PADDING);
	assert_int_equal(r.size, 16);
	assert_int_equal(r.cpu, 5);
	assert_int_equal(r.ts, 777);
	free(rec);
}

/* Plain padding, and trev's discarded event, which keeps its delta. */
static void test_decode_padding(void **state)
{
	static const uint8_t pad[24] = { 0x1d, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00 };
	static const uint8_t disc[12] = {
		0xfd, 0x00, 0x00, 0x00,	/* type_len 29, delta 7 */
		0x08, 0x00, 0x00, 0x00,	/* L = 8 */
		0x74, 0x44, 0x53, 0x43,	/* "tDSC" */
	};
	uint8_t *rec;
	struct rb_rec r;

	(void)state;
	rec = exact_copy(pad, sizeof(pad));
	assert_int_equal(rb_decode(rec, sizeof(pad), 0, 100, &r), RB_REC_PADDING);
	assert_int_equal(r.size, 24);	/* 4 + L */
	assert_int_equal(r.ts, 100);
	free(rec);

	rec = exact_copy(disc, sizeof(disc));
	assert_int_equal(rb_decode(rec, sizeof(disc), 0, 100, &r), RB_REC_DISCARD);
	assert_int_equal(r.size, 12);
	/* libtraceevent adds a padding record's delta; so must we. */
	assert_int_equal(r.ts, 107);
	free(rec);
}

/*
 * docs/formats.md, "A worked page", built with the encoders: the bytes at
 * every offset the spec lists, and the times a reader walks through.
 */
static void test_worked_page(void **state)
{
	static const uint8_t want_hdr[16] = {
		0x00, 0x10, 0xa5, 0xd4, 0xe8, 0x00, 0x00, 0x00,
		0xd8, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	static const struct {
		uint32_t off;		/* from the page start */
		uint8_t bytes[8];
		uint32_t n;
	} want[] = {
		{ 16, { 0x04, 0x00, 0x00, 0x00 }, 4 },
		{ 36, { 0x04, 0x7d, 0x00, 0x00 }, 4 },
		{ 156, { 0x00, 0x7d, 0x00, 0x00, 0xbc, 0x00, 0x00, 0x00 }, 8 },
		{ 348, { 0x1d, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00 }, 8 },
		{ 392, { 0x1e, 0xbd, 0xbe, 0x40, 0x25, 0x00, 0x00, 0x00 }, 8 },
		{ 400, { 0x04, 0x00, 0x00, 0x00 }, 4 },
		{ 420, { 0x1f, 0x70, 0x4c, 0xd7, 0x3f, 0x1d, 0x00, 0x00 }, 8 },
	};
	const uint64_t t0 = 1000000000000ull;
	uint8_t *page = calloc(1, RB_PAGE_SIZE), *data = page + RB_PAGE_HDR, *end;
	uint32_t n = 0, size, kinds[RB_REC_TIME + 1] = { 0 };
	uint64_t expect_ts[16];
	struct rb_walk w;
	struct rb_rec r;

	(void)state;
	assert_non_null(page);
	end = data;
	/* 16: first event, delta 0; 36..136: six more, 1000 ns apart */
	end = (uint8_t *)rb_put_data_hdr(end, 16, 0) + 16;
	expect_ts[n++] = t0;
	for (int i = 0; i < 6; i++) {
		end = (uint8_t *)rb_put_data_hdr(end, 16, 1000) + 16;
		expect_ts[n] = expect_ts[n - 1] + 1000;
		n++;
	}
	/* 156: the long record */
	end = (uint8_t *)rb_put_data_hdr(end, 184, 1000) + 184;
	expect_ts[n] = expect_ts[n - 1] + 1000;
	n++;
	/* 348: a discarded event, 24 bytes, delta 0 */
	rb_put32(end, rb_hdr_word(RB_TYPE_PADDING, 0));
	rb_put32(end + 4, 20);
	end += 24;
	/* 372: one more event */
	end = (uint8_t *)rb_put_data_hdr(end, 16, 1000) + 16;
	expect_ts[n] = expect_ts[n - 1] + 1000;
	n++;
	/* 392: a 5 s gap */
	rb_put_time_extend(end, 5000001000ull);
	end += 8;
	end = (uint8_t *)rb_put_data_hdr(end, 16, 0) + 16;
	expect_ts[n] = expect_ts[n - 1] + 5000001000ull;
	n++;
	/* 420: an absolute time, then three events to fill the commit */
	rb_put_time_stamp(end, 1005001008000ull);
	end += 8;
	for (int i = 0; i < 3; i++) {
		end = (uint8_t *)rb_put_data_hdr(end, 16, i == 0 ? 0 : 1000) + 16;
		expect_ts[n] = i == 0 ? 1005001008000ull : expect_ts[n - 1] + 1000;
		n++;
	}
	size = (uint32_t)(end - data);
	rb_put64(page, t0);
	rb_put64(page + 8, size);

	assert_memory_equal(page, want_hdr, 16);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_memory_equal(page + want[i].off, want[i].bytes, want[i].n);

	n = 0;
	rb_page_for_each(&w, page, &r) {
		if (r.kind == RB_REC_DATA) {
			assert_true(n < 13);
			assert_int_equal(r.ts, expect_ts[n++]);
		}
		kinds[r.kind]++;
	}
	assert_int_equal(w.off, size);
	assert_int_equal(n, 13);
	assert_int_equal(kinds[RB_REC_PADDING], 1);
	assert_int_equal(kinds[RB_REC_TIME], 2);
	assert_int_equal(w.ts, 1005001008000ull + 2000);
	free(page);
}

/* ------------------------------------------------------------------ */
/* b. rb_decode() on truncated and corrupt records                      */

struct bad_case {
	const char *what;
	uint8_t bytes[16];
	uint32_t size;		/* bytes given to the decoder (heap size too) */
	uint32_t off;
};

static const struct bad_case bad_cases[] = {
	{ "empty", { 0 }, 0, 0 },
	{ "half a header", { 0x06, 0x00 }, 2, 0 },
	{ "compact: 20 of 24 bytes", { 0x06, 0x00, 0x00, 0x00 }, 4 + 20, 0 },
	{ "compact 28 words, header only", { 0x1c, 0x00, 0x00, 0x00 }, 4, 0 },
	{ "long: no length word", { 0x00, 0x00, 0x00, 0x00 }, 4, 0 },
	{ "long: L = 188, 8 bytes", { 0x00, 0x00, 0x00, 0x00, 0xbc, 0x00, 0x00, 0x00 }, 8, 0 },
	{ "long: L = 188, 16 bytes", { 0x00, 0x00, 0x00, 0x00, 0xbc }, 16, 0 },
	{ "long: L = 0", { 0x00 }, 16, 0 },
	{ "long: L = 3", { 0x00, 0x00, 0x00, 0x00, 0x03 }, 16, 0 },
	{ "long: L = 2^32 - 1", { 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff }, 16, 0 },
	{ "long: L = 2^31 + 4", { 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x80 }, 16, 0 },
	{ "padding: no length word", { 0x1d, 0x00, 0x00, 0x00 }, 4, 0 },
	{ "padding: L = 100", { 0x1d, 0x00, 0x00, 0x00, 0x64 }, 16, 0 },
	{ "padding: L = 13 > 12", { 0x1d, 0x00, 0x00, 0x00, 0x0d }, 16, 0 },
	{ "padding: L = 0", { 0x1d }, 16, 0 },
	{ "padding: L = 2^32 - 4", { 0x1d, 0x00, 0x00, 0x00, 0xfc, 0xff, 0xff, 0xff }, 8, 0 },
	{ "time extend: 4 bytes", { 0x1e, 0x00, 0x00, 0x00 }, 4, 0 },
	{ "time stamp: 4 bytes", { 0x1f, 0x00, 0x00, 0x00 }, 4, 0 },
	{ "second record cut", { 0x01, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0x02 }, 12, 8 },
	{ "offset at the end", { 0x01 }, 8, 8 },
	{ "offset past the end", { 0x01 }, 8, 12 },
	{ "offset 1", { 0x01, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0x01 }, 16, 1 },
	{ "offset 2", { 0x01, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0x01 }, 16, 2 },
	{ "offset 3", { 0x01, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0x01 }, 16, 3 },
	{ "offset 6", { 0x01, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0x01 }, 16, 6 },
};

static void test_decode_corrupt(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		uint8_t *buf = exact_buf(c->bytes, sizeof(c->bytes), c->size);
		struct rb_rec r;

		memset(&r, 0x5a, sizeof(r));
		print_message("  %s\n", c->what);
		assert_int_equal(rb_decode(buf, c->size, c->off, 42, &r), RB_REC_END);
		assert_int_equal(r.kind, RB_REC_END);
		free(buf);
	}
}

/* The same bytes decode at an aligned offset: the cases above are not vacuous. */
static void test_decode_control(void **state)
{
	static const uint8_t two[16] = { 0x01, 0x00, 0x00, 0x00, 0, 0, 0, 0,
					 0x21, 0x00, 0x00, 0x00, 9, 9, 9, 9 };
	uint8_t *buf = exact_copy(two, sizeof(two));
	struct rb_rec r;

	(void)state;
	assert_int_equal(rb_decode(buf, 16, 0, 42, &r), RB_REC_DATA);
	assert_int_equal(r.size, 8);
	assert_int_equal(rb_decode(buf, 16, 8, 42, &r), RB_REC_DATA);
	assert_int_equal(r.ts, 43);
	assert_int_equal(rb_get32(r.payload), 0x09090909);
	free(buf);
}

/* Offsets near 2^32 must not wrap the bounds check. */
static void test_decode_huge_offset(void **state)
{
	static const uint8_t rec[8] = { 0x01 };
	static const uint32_t offs[] = { UINT32_MAX - 3, UINT32_MAX - 7, 0x80000000u };
	uint8_t *buf = exact_copy(rec, sizeof(rec));
	struct rb_rec r;

	(void)state;
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		assert_int_equal(rb_decode(buf, sizeof(rec), offs[i], 0, &r), RB_REC_END);
	free(buf);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Random record streams in exact-size buffers: every record the decoder
 * accepts lies inside the buffer, and a walk always ends.
 */
static void test_decode_random(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (int iter = 0; iter < 20000; iter++) {
		uint32_t size = (uint32_t)(xorshift(&seed) % 96), off = 0, steps = 0;
		uint8_t *buf = malloc(size ? size : 1);
		struct rb_rec r;
		uint64_t ts = 0;
		int kind;

		assert_non_null(buf);
		for (uint32_t k = 0; k + 4 <= size; k += 4) {
			uint64_t x = xorshift(&seed);
			uint32_t w;

			/* Mostly small length words, so records often nearly fit. */
			if (x & 1)
				w = rb_hdr_word((uint32_t)(x >> 8) & 31, (uint32_t)(x >> 16) & 7);
			else if (x & 2)
				w = (uint32_t)(x >> 8) & 127;
			else
				w = (uint32_t)(x >> 32);
			rb_put32(buf + k, w);
		}
		for (uint32_t k = size & ~3u; k < size; k++)
			buf[k] = (uint8_t)xorshift(&seed);

		while ((kind = rb_decode(buf, size, off, ts, &r)) != RB_REC_END) {
			assert_int_equal(r.off, off);
			assert_true(r.size >= 8);
			assert_true(r.size <= size - off);
			if (kind == RB_REC_DATA) {
				assert_true(r.payload >= buf + off);
				assert_true(r.payload + r.len <= buf + size);
			}
			ts = r.ts;
			off += r.size;
			assert_true(++steps <= size / 8);
		}
		free(buf);
	}
}

/* ------------------------------------------------------------------ */
/* c. A page written by the real buffer                                 */

static void test_real_page(void **state)
{
	uint8_t *page = malloc(RB_PAGE_SIZE);
	uint8_t ev[3][EV_LEN];
	struct trev_rb *rb;
	unsigned int id = 999, ids[2];
	uint64_t t0;
	cpu_set_t old;

	(void)state;
	assert_non_null(page);
	pin_to_this_cpu(&old);
	rb = make_rb(16, 0);
	for (uint32_t i = 0; i < 3; i++) {
		fill_event(ev[i], 100 + i);
		assert_int_equal(trev_rb_write(rb, ev[i], EV_LEN), 0);
	}
	assert_int_equal(trev_rb_buffers(rb, ids, 2), 1);

	memset(page, 0xa5, RB_PAGE_SIZE);
	assert_int_equal(trev_rb_read_page(rb, page, &id), 1);
	assert_int_equal(id, ids[0]);

	/* Header: the first event's time; 3 records, no flags. */
	t0 = rb_get64(page);
	assert_int_equal(rb_get64(page + 8), 3 * EV_SIZE);
	/* The counter clock was read once per event and not since. */
	assert_int_equal(trev_rb_clock_now(rb), t0 + 3);

	for (uint32_t i = 0; i < 3; i++) {
		const uint8_t *rec = page + RB_PAGE_HDR + i * EV_SIZE;
		struct rb_rec r;

		/* type_len 6; delta 0 for the first, then one counter tick */
		assert_int_equal(rb_get32(rec), rb_hdr_word(6, i == 0 ? 0 : 1));
		assert_memory_equal(rec + 4, ev[i], EV_LEN);
		assert_int_equal(rb_decode(page + RB_PAGE_HDR, 3 * EV_SIZE, i * EV_SIZE,
					   t0 + (i ? i - 1 : 0), &r), RB_REC_DATA);
		assert_int_equal(r.ts, t0 + i);
		assert_int_equal(r.len, EV_LEN);
	}
	/* The rest of the page is zero. */
	for (uint32_t k = RB_PAGE_HDR + 3 * EV_SIZE; k < RB_PAGE_SIZE; k++)
		assert_int_equal(page[k], 0);

	assert_int_equal(trev_rb_read_page(rb, page, NULL), 0);
	trev_rb_destroy(rb);
	unpin(&old);
	free(page);
}

/* Long and odd-sized records in a real page: type_len 0, padding to 4. */
static void test_real_page_sizes(void **state)
{
	static const uint32_t lens[] = { 184, 5, 112, 113, 1 };
	static const uint8_t want_hdr[][8] = {
		{ 0x00, 0x00, 0x00, 0x00, 0xbc, 0x00, 0x00, 0x00 },	/* L = 188 */
		{ 0x22, 0x00, 0x00, 0x00 },				/* 2 words */
		{ 0x3c, 0x00, 0x00, 0x00 },				/* 28 words */
		{ 0x20, 0x00, 0x00, 0x00, 0x78, 0x00, 0x00, 0x00 },	/* L = 120 */
		{ 0x21, 0x00, 0x00, 0x00 },				/* 1 word */
	};
	uint8_t *page = malloc(RB_PAGE_SIZE), buf[184];
	uint32_t off = 0, total = 0;
	struct trev_rb *rb;
	cpu_set_t old;

	(void)state;
	assert_non_null(page);
	pin_to_this_cpu(&old);
	rb = make_rb(16, 0);
	for (size_t i = 0; i < 5; i++) {
		memset(buf, 0x30 + (int)i, lens[i]);
		assert_int_equal(trev_rb_write(rb, buf, lens[i]), 0);
		total += rb_data_size(lens[i]);
	}
	assert_int_equal(trev_rb_read_page(rb, page, NULL), 1);
	assert_int_equal(rb_get64(page + 8), total);
	for (size_t i = 0; i < 5; i++) {
		uint32_t hdr = lens[i] > RB_SMALL_MAX ? 8 : 4;
		struct rb_rec r;

		memset(buf, 0x30 + (int)i, lens[i]);
		assert_memory_equal(page + RB_PAGE_HDR + off, want_hdr[i], hdr);
		assert_memory_equal(page + RB_PAGE_HDR + off + hdr, buf, lens[i]);
		assert_int_equal(rb_decode(page + RB_PAGE_HDR, total, off, 0, &r), RB_REC_DATA);
		assert_int_equal(r.len, rb_align4(lens[i]));
		off += r.size;
	}
	assert_int_equal(off, total);
	trev_rb_destroy(rb);
	unpin(&old);
	free(page);
}

/* ------------------------------------------------------------------ */
/* d. Lost-event flags                                                  */

/* Discard mode: refused writes are counted on the next page written. */
static void test_lost_discard_mode(void **state)
{
	uint8_t *page = malloc(RB_PAGE_SIZE), ev[EV_LEN];
	static uint32_t ids[RB_DATA_SIZE / EV_SIZE];
	uint32_t written = 0, refused = 0, read = 0, n;
	struct trev_rb *rb;
	cpu_set_t old;

	(void)state;
	assert_non_null(page);
	pin_to_this_cpu(&old);
	rb = make_rb(8, 0);	/* two pages */
	for (;;) {
		fill_event(ev, written);
		if (trev_rb_write(rb, ev, EV_LEN) == -ENOSPC)
			break;
		written++;
		assert_true(written < 10000);
	}
	refused = 1;
	/* Full: every further write is refused too. */
	for (int i = 0; i < 4; i++) {
		fill_event(ev, 1000000 + i);
		assert_int_equal(trev_rb_write(rb, ev, EV_LEN), -ENOSPC);
		refused++;
	}
	/* Two pages of 28-byte records: 145 a page. */
	assert_int_equal(written, 2 * (RB_DATA_SIZE / EV_SIZE));

	/* Everything written is readable, in order, without a lost count. */
	while (trev_rb_read_page(rb, page, NULL) == 1) {
		assert_int_equal(page_lost(page), 0);
		n = page_events(page, ids, RB_DATA_SIZE / EV_SIZE);
		for (uint32_t i = 0; i < n; i++)
			assert_int_equal(ids[i], read + i);
		read += n;
	}
	assert_int_equal(read, written);

	/* The next event's page carries the count, right after the record. */
	fill_event(ev, 4242);
	assert_int_equal(trev_rb_write(rb, ev, EV_LEN), 0);
	memset(page, 0xa5, RB_PAGE_SIZE);
	assert_int_equal(trev_rb_read_page(rb, page, NULL), 1);
	assert_int_equal(rb_get64(page + 8), EV_SIZE | RB_MISSED_EVENTS | RB_MISSED_STORED);
	assert_int_equal(rb_get64(page + RB_PAGE_HDR + EV_SIZE), refused);
	assert_int_equal(page_lost(page), refused);
	assert_int_equal(rb_get32(page + RB_PAGE_HDR), rb_hdr_word(6, 0));
	assert_memory_equal(page + RB_PAGE_HDR + 4, ev, EV_LEN);
	assert_int_equal(trev_rb_read_page(rb, page, NULL), 0);

	/* Reported once: the page after it is clean. */
	fill_event(ev, 4243);
	assert_int_equal(trev_rb_write(rb, ev, EV_LEN), 0);
	assert_int_equal(trev_rb_read_page(rb, page, NULL), 1);
	assert_int_equal(rb_get64(page + 8), EV_SIZE);

	trev_rb_destroy(rb);
	unpin(&old);
	free(page);
}

/* Overwrite mode: what was overwritten is the first page's lost count. */
static void test_lost_overwrite_mode(void **state)
{
	const uint32_t written = 2000;
	uint8_t *page = malloc(RB_PAGE_SIZE), ev[EV_LEN];
	static uint32_t ids[RB_DATA_SIZE / EV_SIZE];
	uint64_t total = 0, lost_sum = 0, first_lost = 0;
	uint32_t next = 0, pages = 0, n;
	struct trev_rb *rb;
	cpu_set_t old;

	(void)state;
	assert_non_null(page);
	pin_to_this_cpu(&old);
	rb = make_rb(8, 1);
	for (uint32_t i = 0; i < written; i++) {
		fill_event(ev, i);
		assert_int_equal(trev_rb_write(rb, ev, EV_LEN), 0);
	}
	while (trev_rb_read_page(rb, page, NULL) == 1) {
		int64_t lost = page_lost(page);

		assert_true(lost >= 0);
		if (pages == 0) {
			assert_true((rb_get64(page + 8) & (RB_MISSED_EVENTS | RB_MISSED_STORED)) ==
				    (RB_MISSED_EVENTS | RB_MISSED_STORED));
			first_lost = (uint64_t)lost;
			next = (uint32_t)lost;	/* the survivors are the newest */
		} else {
			assert_int_equal(lost, 0);
		}
		lost_sum += (uint64_t)lost;
		n = page_events(page, ids, RB_DATA_SIZE / EV_SIZE);
		for (uint32_t i = 0; i < n; i++)
			assert_int_equal(ids[i], next + i);
		next += n;
		total += n;
		pages++;
	}
	assert_true(pages >= 2);
	assert_true(total > 0 && total <= 2 * (RB_DATA_SIZE / EV_SIZE));
	assert_int_equal(first_lost, written - total);
	assert_int_equal(total + lost_sum, written);
	assert_int_equal(next, written);

	trev_rb_destroy(rb);
	unpin(&old);
	free(page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_data_records),
		cmocka_unit_test(test_encode_time_extend),
		cmocka_unit_test(test_encode_time_stamp),
		cmocka_unit_test(test_encode_cpu_mark),
		cmocka_unit_test(test_decode_padding),
		cmocka_unit_test(test_worked_page),
		cmocka_unit_test(test_decode_corrupt),
		cmocka_unit_test(test_decode_control),
		cmocka_unit_test(test_decode_huge_offset),
		cmocka_unit_test(test_decode_random),
		cmocka_unit_test(test_real_page),
		cmocka_unit_test(test_real_page_sizes),
		cmocka_unit_test(test_lost_discard_mode),
		cmocka_unit_test(test_lost_overwrite_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
