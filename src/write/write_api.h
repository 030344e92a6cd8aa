/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The inline fast path of a built record's write into the ring: the common
 * fields (entry_fill), the copy (rec_copy), and event_write_stamped_words()
 * for records of a few words whose length is known where they are written
 * (the function tracer's and function_graph's).
 */
#ifndef TREV_WRITE_API_H
#define TREV_WRITE_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <trev/tracepoint.h>

#include "events/events_internal.h"
#include "output/line_prefix.h"	/* TREV_FLAG_HARDIRQ */
#include "ring_buffer/rb_api.h"

/* The common fields of a record in the ring, at nesting level @n of @d. */
static inline __attribute__((always_inline)) void
entry_fill(struct trev_entry *ent, unsigned short type, const struct rb_desc *d, uint32_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* One store, not four: type, flags, preempt_count, pid. */
	uint64_t w = type | (uint64_t)(uint32_t)d->tid << 32;

	_Static_assert(sizeof(*ent) == 8 && offsetof(struct trev_entry, flags) == 2 &&
			       offsetof(struct trev_entry, preempt_count) == 3 &&
			       offsetof(struct trev_entry, pid) == 4,
		       "struct trev_entry layout");
	/* The nesting level is our signal-handler depth. */
	if (trev_unlikely(n))
		w |= (uint32_t)TREV_FLAG_HARDIRQ << 16 | n << 24;
	memcpy(ent, &w, sizeof(w));
#else
	ent->type = type;
	ent->flags = n ? TREV_FLAG_HARDIRQ : 0;
	ent->preempt_count = (unsigned char)n;
	ent->pid = d->tid;
#endif
}

/*
 * Copy @n bytes of a record, @n a multiple of 4: up to 16 bytes as two
 * overlapping loads and stores, up to 32 as four, without a call.
 */
static inline __attribute__((always_inline)) void rec_copy(void *dst, const void *src,
							    unsigned int n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	if (n >= 8 && n <= 16) {
		uint64_t a, b;

		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n > 16 && n <= 32) {
		uint64_t a, b, c, e;

		memcpy(&a, s, 8);
		memcpy(&b, s + 8, 8);
		memcpy(&c, s + n - 16, 8);
		memcpy(&e, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + 8, &b, 8);
		memcpy(d + n - 16, &c, 8);
		memcpy(d + n - 8, &e, 8);
	} else if (n == 4) {
		memcpy(d, s, 4);
	} else if (n) {
		memcpy(d, s, n);
	}
}

/* event_write_stamped_words() off its fast path (event_buffer.c). */
uint64_t trev__event_write_stamped_slow(struct trev_event_file *file, struct trev_rb *rb,
					struct trev_entry *rec, unsigned int len,
					unsigned int stamp_off, bool reserved, struct rb_wr w,
					void *ent, uint64_t ts);

/*
 * The rest of a record of @nw payload words @w (and, with @stamp, its time
 * stamp @ts) that the ring's fast path reserved at @ent for @wr: the
 * common fields, the words, the commit.
 */
static inline __attribute__((always_inline)) void
words_commit(struct trev_event_file *file, struct trev_trace_array *tr, struct trev_rb *rb,
	     struct trev_entry *ent, const struct rb_wr *wr, const uint64_t *w, unsigned int nw,
	     bool stamp, uint64_t ts)
{
	uint8_t *p = (uint8_t *)(ent + 1);

	(void)tr;	/* TSan's annotation only */
	entry_fill(ent, file->call->id, wr->d, wr->n);
	for (unsigned int i = 0; i < nw; i++)
		memcpy(p + 8 * i, &w[i], 8);
	if (stamp)
		memcpy(p + 8 * nw, &ts, 8);
	rb_commit(rb, wr, ent);
	trev_tsan_release(tr);	/* done with rb: see trev__snapshot_free() */
}

/*
 * event_write_stamped_words() - trev_event_write() of a record whose payload
 * is @nw 64-bit words (at most 7), @w (a constant @nw keeps them in registers), then,
 * with @stamp, one more word that is the record's own time: it gets the time
 * stamp the ring gives the record, so the clock is read once and the field
 * and the record's time agree (function_graph's calltime and rettime). The
 * words go straight into the reservation, not through a record on the
 * stack, and the stamp after them: through a record it would hold up the
 * copy until the clock read is done. Where the ring's fast path does not
 * take the record (a filter or trigger, a new page, another CPU, a signal
 * handler's nested write, tracing off, a clock other than `local`) the
 * instance's clock read just before the write stands for it.
 * Return: that time, also when the record was refused or filtered out.
 * Context: as trev_event_write(): inside an RCU read section, any thread,
 * async-signal-safe.
 */
static inline __attribute__((always_inline)) uint64_t
event_write_stamped_words(struct trev_event_file *file, const uint64_t *w, unsigned int nw,
			  bool stamp)
{
	unsigned int len = (unsigned int)(sizeof(struct trev_entry) + 8 * (nw + (stamp ? 1 : 0)));
	unsigned int flags = atomic_load_explicit(&file->flags, memory_order_relaxed);
	/* As event_write_ring(): the instance may be set late, the buffer swapped. */
	struct trev_trace_array *tr = __atomic_load_n(&file->tr, __ATOMIC_RELAXED);
	struct trev_rb *rb = __atomic_load_n(&tr->rb, __ATOMIC_ACQUIRE);
	struct trev_entry *ent = NULL;
	struct rb_wr w0 = { NULL, 0 };
	uint64_t ts = 0;
	bool reserved = false;

	if (trev_likely(!(flags & TREV_FILE_FL_SLOW))) {
		reserved = true;
		ent = rb_reserve_fast_ts(rb, len, &w0, &ts);
		if (trev_likely(ent && !w0.n)) {
			/* The level a constant: entry_fill() drops its test. */
			words_commit(file, tr, rb, ent, &(struct rb_wr){ w0.d, 0 }, w, nw, stamp, ts);
			return ts;
		}
	}
	{
		/* Off the fast path: the record built whole. */
		uint64_t rec[1 + 8];

		rec[0] = 0;	/* the common fields: the write fills them in */
		memcpy(&rec[1], w, 8 * nw);
		rec[1 + nw] = 0;
		return trev__event_write_stamped_slow(file, rb, (struct trev_entry *)(void *)rec,
						      len, stamp ? 8 * (1 + nw) : 0, reserved, w0,
						      ent, ts);
	}
}

/* What event_write_words_try() did. */
struct words_try {
	uint64_t ts;	/* the record's time stamp, when @done */
	bool done;	/* written; else nothing was */
};

/*
 * event_write_words_try() - event_write_stamped_words() when the ring's
 * fast path takes the record (a signal handler's nested write included),
 * else nothing: a reservation begun is given back (rb_reserve_fast_undo())
 * and the caller writes the record another way. For code that must call
 * nothing out of line but the commit's RB_LEAVE_SLOW (the trampolines'
 * fast calls: ftrace/trampoline.c).
 * Context: as event_write_stamped_words().
 */
static inline __attribute__((always_inline)) struct words_try
event_write_words_try(struct trev_event_file *file, const uint64_t *w, unsigned int nw, bool stamp)
{
	unsigned int len = (unsigned int)(sizeof(struct trev_entry) + 8 * (nw + (stamp ? 1 : 0)));
	unsigned int flags = atomic_load_explicit(&file->flags, memory_order_relaxed);
	struct trev_trace_array *tr = __atomic_load_n(&file->tr, __ATOMIC_RELAXED);
	struct trev_rb *rb = __atomic_load_n(&tr->rb, __ATOMIC_ACQUIRE);
	struct trev_entry *ent;
	struct rb_wr w0;
	uint64_t ts;

	if (trev_unlikely(flags & TREV_FILE_FL_SLOW))
		return (struct words_try){ 0, false };
	ent = rb_reserve_fast_ts(rb, len, &w0, &ts);
	if (trev_unlikely(!ent)) {
		rb_reserve_fast_undo(&w0);
		trev_tsan_release(tr);	/* done with rb: see trev__snapshot_free() */
		return (struct words_try){ 0, false };
	}
	if (trev_likely(!w0.n))	/* the level a constant: entry_fill() drops its test */
		words_commit(file, tr, rb, ent, &(struct rb_wr){ w0.d, 0 }, w, nw, stamp, ts);
	else
		words_commit(file, tr, rb, ent, &w0, w, nw, stamp, ts);
	return (struct words_try){ ts, true };
}

#endif /* TREV_WRITE_API_H */
