/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel ring-buffer page and record format (docs/formats.md,
 * "Ring-buffer pages"): constants, record encoding, a decoder and a walker
 * over a page's records (rb_page_for_each()), shared by the writer, the
 * readers, the trace.dat writer, the trev command and tests.
 *
 * Page (host byte order, commit is a 64-bit "long"):
 *
 *   OFFSET  SIZE  MEANING
 *   0       8     time_stamp: time of the first record (ns)
 *   8       8     commit: bits 0..26 data bytes used; bit 31 MISSED_EVENTS,
 *                 bit 30 MISSED_STORED (the lost count follows the data)
 *   16      4080  data: records, 4-byte aligned; then, if bit 30, a u64
 *                 lost-event count right after the last record
 *
 * Record header, one u32: type_len (5 bits, low) | time_delta (27 bits).
 *
 *   type_len  MEANING         LAYOUT
 *   1..28     data            header, type_len * 4 payload bytes
 *   0         data, long      header, u32 L = padded payload + 4, payload
 *   29        padding         header, u32 L = bytes after the header word
 *   30        time extend     header, u32 hi: delta = (hi << 27) + time_delta
 *   31        time stamp      header, u32 hi: ts = (hi << 27) + time_delta
 *
 * trev puts two kinds of padding records in its own pages; every kernel
 * reader skips them as padding:
 *   CPU marker   L = 12, u32 RB_MARK_CPU, u32 cpu: later records ran on cpu
 *   discarded    L >= 4, first u32 RB_MARK_DISCARD: an event discarded after
 *                a nested writer had already reserved behind it
 */
#ifndef TREV_RB_PAGE_H
#define TREV_RB_PAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <trev/ring_buffer.h>

#define RB_PAGE_SIZE		TREV_RB_PAGE_SIZE
#define RB_PAGE_HDR		16u
#define RB_DATA_SIZE		(RB_PAGE_SIZE - RB_PAGE_HDR)

#define RB_COMMIT_MASK		((1u << 27) - 1)
#define RB_MISSED_EVENTS	(1ull << 31)
#define RB_MISSED_STORED	(1ull << 30)

#define RB_TYPE_DATA_MAX	28u
#define RB_TYPE_PADDING		29u
#define RB_TYPE_TIME_EXTEND	30u
#define RB_TYPE_TIME_STAMP	31u

#define RB_DELTA_BITS		27u
#define RB_DELTA_MAX		((1u << RB_DELTA_BITS) - 1)
/* Payloads up to this size use the compact header (type_len = words). */
#define RB_SMALL_MAX		(RB_TYPE_DATA_MAX * 4u)

#define RB_MARK_CPU		0x55504374u	/* "tCPU" */
#define RB_MARK_DISCARD		0x43534474u	/* "tDSC" */
#define RB_CPU_MARK_SIZE	16u

/* Commit-word flags of a page that follows @lost lost events. */
static inline uint64_t rb_lost_flags(uint64_t lost)
{
	return lost ? RB_MISSED_EVENTS | RB_MISSED_STORED : 0;
}

static inline uint32_t rb_align4(uint32_t n)
{
	return (n + 3u) & ~3u;
}

/* Bytes a data record of @len payload bytes takes in a page. */
static inline uint32_t rb_data_size(uint32_t len)
{
	uint32_t padded = rb_align4(len);

	return padded <= RB_SMALL_MAX ? 4u + padded : 8u + padded;
}

static inline uint32_t rb_hdr_word(uint32_t type_len, uint32_t delta)
{
	return type_len | (delta << 5);
}

static inline void rb_put32(void *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static inline uint32_t rb_get32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline void rb_put64(void *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static inline uint64_t rb_get64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/*
 * Write the header of a data record at @rec; returns the payload pointer.
 * The caller has checked that rb_data_size(len) bytes are free.
 */
static inline void *rb_put_data_hdr(void *rec, uint32_t len, uint32_t delta)
{
	uint32_t padded = rb_align4(len);
	uint8_t *p = (uint8_t *)rec;

	if (padded <= RB_SMALL_MAX) {
		rb_put32(p, rb_hdr_word(padded / 4u, delta));
		return p + 4;
	}
	rb_put32(p, rb_hdr_word(0, delta));
	rb_put32(p + 4, padded + 4u);
	return p + 8;
}

/* Write a time-extend record carrying @delta (>= 2^27); 8 bytes. */
static inline void rb_put_time_extend(void *rec, uint64_t delta)
{
	rb_put32(rec, rb_hdr_word(RB_TYPE_TIME_EXTEND, (uint32_t)(delta & RB_DELTA_MAX)));
	rb_put32((uint8_t *)rec + 4, (uint32_t)(delta >> RB_DELTA_BITS));
}

/* Write an absolute time-stamp record; 8 bytes. */
static inline void rb_put_time_stamp(void *rec, uint64_t ts)
{
	rb_put32(rec, rb_hdr_word(RB_TYPE_TIME_STAMP, (uint32_t)(ts & RB_DELTA_MAX)));
	rb_put32((uint8_t *)rec + 4, (uint32_t)(ts >> RB_DELTA_BITS));
}

/* Write a CPU marker (a padding record with time_delta 0); 16 bytes. */
static inline void rb_put_cpu_mark(void *rec, uint32_t cpu)
{
	uint8_t *p = (uint8_t *)rec;

	rb_put32(p, rb_hdr_word(RB_TYPE_PADDING, 0));
	rb_put32(p + 4, 12);
	rb_put32(p + 8, RB_MARK_CPU);
	rb_put32(p + 12, cpu);
}

enum rb_rec_kind {
	RB_REC_END,		/* no more records (or a malformed page) */
	RB_REC_DATA,		/* an event */
	RB_REC_PADDING,		/* padding or discarded event: skip */
	RB_REC_DISCARD,		/* trev's discarded event: skip */
	RB_REC_CPU,		/* CPU marker: ->cpu is the new CPU */
	RB_REC_TIME,		/* time extend or time stamp: ->ts updated */
};

struct rb_rec {
	enum rb_rec_kind kind;
	uint32_t type_len;	/* raw type_len of the header */
	uint32_t off;		/* offset of the record in the data area */
	uint32_t size;		/* bytes the record takes, header included */
	uint32_t len;		/* payload bytes (data records) */
	uint32_t cpu;		/* CPU marker value */
	uint64_t ts;		/* time stamp after this record */
	const uint8_t *payload;	/* data records */
};

/*
 * rb_decode() - decode the record at @off of a page's data area
 * @data: the page's data area (page + RB_PAGE_HDR)
 * @size: committed bytes (commit & RB_COMMIT_MASK)
 * @ts: time stamp before the record (the page time stamp at offset 0)
 *
 * Never reads outside [data, data + size); a record that would is reported
 * as RB_REC_END, so a corrupt page ends early instead of crashing.
 */
static inline int rb_decode(const uint8_t *data, uint32_t size, uint32_t off, uint64_t ts,
			    struct rb_rec *r)
{
	uint32_t word, type_len, delta, len, left;

	r->kind = RB_REC_END;
	r->off = off;
	r->ts = ts;
	if (off > size || size - off < 4 || (off & 3))
		return RB_REC_END;
	left = size - off - 4;	/* bytes after the header word */
	word = rb_get32(data + off);
	type_len = word & 31u;
	delta = word >> 5;
	r->type_len = type_len;
	switch (type_len) {
	case RB_TYPE_PADDING:
		if (left < 4)
			return RB_REC_END;
		len = rb_get32(data + off + 4);
		if (len < 4 || len > left || (len & 3))
			return RB_REC_END;
		r->size = 4 + len;
		r->ts = ts + delta;
		r->kind = RB_REC_PADDING;
		if (len == 12 && rb_get32(data + off + 8) == RB_MARK_CPU) {
			r->kind = RB_REC_CPU;
			r->cpu = rb_get32(data + off + 12);
		} else if (len >= 8 && rb_get32(data + off + 8) == RB_MARK_DISCARD) {
			r->kind = RB_REC_DISCARD;
		}
		return (int)r->kind;
	case RB_TYPE_TIME_EXTEND:
		if (left < 4)
			return RB_REC_END;
		r->size = 8;
		r->ts = ts + (((uint64_t)rb_get32(data + off + 4) << RB_DELTA_BITS) | delta);
		r->kind = RB_REC_TIME;
		return RB_REC_TIME;
	case RB_TYPE_TIME_STAMP:
		if (left < 4)
			return RB_REC_END;
		r->size = 8;
		/* 59 bits are stored; the top 5 come from the current time. */
		r->ts = (ts & ~((1ull << 59) - 1)) |
			(((uint64_t)rb_get32(data + off + 4) << RB_DELTA_BITS) | delta);
		r->kind = RB_REC_TIME;
		return RB_REC_TIME;
	case 0:
		if (left < 4)
			return RB_REC_END;
		len = rb_get32(data + off + 4);
		if (len < 4 || len - 4 > left - 4 || rb_align4(len - 4) > left - 4)
			return RB_REC_END;
		r->len = rb_align4(len - 4);
		r->size = 8 + r->len;
		r->payload = data + off + 8;
		break;
	default:
		r->len = type_len * 4u;
		if (r->len > left)
			return RB_REC_END;
		r->size = 4 + r->len;
		r->payload = data + off + 4;
		break;
	}
	r->ts = ts + delta;
	r->kind = RB_REC_DATA;
	return RB_REC_DATA;
}

/*
 * A walk over the records of one page, from its first record to its commit
 * (rb_page_for_each()). Inside the loop's body @off and @ts are the
 * record's offset and the time before it; after the loop, @off is where
 * decoding stopped (@size when the records fill the commit exactly, less
 * on a malformed page) and @ts the time of the last record.
 */
struct rb_walk {
	const uint8_t *data;	/* the page's data area */
	uint64_t commit;	/* the page's commit word, flags included */
	uint32_t size;		/* committed bytes, at most RB_DATA_SIZE */
	uint32_t off;		/* offset of the record in the data area */
	uint64_t ts;		/* time stamp before the record */
};

/*
 * rb_walk_start() - set @w at the first record of @page (RB_PAGE_SIZE bytes)
 *
 * The commit word comes from the page, which may be another process's or
 * a file's: a size past the data area is cut to it, so the walk never
 * reads outside the page.
 */
static inline void rb_walk_start(struct rb_walk *w, const void *page)
{
	const uint8_t *p = (const uint8_t *)page;
	uint32_t size;

	w->commit = rb_get64(p + 8);
	size = (uint32_t)(w->commit & RB_COMMIT_MASK);
	w->size = size < RB_DATA_SIZE ? size : RB_DATA_SIZE;
	w->data = p + RB_PAGE_HDR;
	w->off = 0;
	w->ts = rb_get64(p);
}

/* Decode the record @w stands on into @r. Return: false at the end (rb_decode()). */
static inline bool rb_walk_decode(const struct rb_walk *w, struct rb_rec *r)
{
	return rb_decode(w->data, w->size, w->off, w->ts, r) != RB_REC_END;
}

/* Step @w past record @r. */
static inline void rb_walk_step(struct rb_walk *w, const struct rb_rec *r)
{
	w->off += r->size;
	w->ts = r->ts;
}

/*
 * rb_page_for_each() - each record of a page, in order
 * @w: struct rb_walk *, the walk (its state after the loop: struct rb_walk)
 * @page: the page, RB_PAGE_SIZE bytes (header included)
 * @r: struct rb_rec *, set to each record in turn
 *
 * Every kind of record comes out (r->kind): data, padding, discarded
 * events, CPU markers, time extends and stamps; r->ts is the record's
 * time with all of them applied. The lost-event count after the data is
 * not a record (rb_walk_lost()). `continue` steps to the next record;
 * after a `break` @w still stands on the record. The step comes last, as
 * in a hand-written `while (rb_decode(...)) { ...; off += r.size; }`, so
 * the loop compiles the same.
 */
#define rb_page_for_each(w, page, r) \
	for (rb_walk_start((w), (page)); rb_walk_decode((w), (r)); rb_walk_step((w), (r)))

/*
 * rb_walk_lost() - the lost-event count a page carries after its data
 * @w: a walk started on the page (rb_walk_start()); it need not have run
 * @lost: set to the count, or to 0
 * Return: true if the page carries a count (MISSED_STORED, and the count
 * fits inside the page). Without one the page may still be flagged
 * RB_MISSED_EVENTS in w->commit: events were lost, their number unknown.
 */
static inline bool rb_walk_lost(const struct rb_walk *w, uint64_t *lost)
{
	*lost = 0;
	if (!(w->commit & RB_MISSED_STORED) || w->size + 8 > RB_DATA_SIZE)
		return false;
	*lost = rb_get64(w->data + w->size);
	return true;
}

#endif /* TREV_RB_PAGE_H */
