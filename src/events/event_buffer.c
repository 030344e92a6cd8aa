/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The reserve/commit every event probe calls: the record's common fields
 * are filled here, on the ring buffer's inline fast path (rb_api.h).
 */
#include <errno.h>
#include <stdlib.h>

#include <trev/tracepoint.h>

#include "core/core_internal.h"
#include "events/events_internal.h"
#include "ring_buffer/rb_api.h"

/* The common fields, and what the commit needs; fb->file and fb->rb are set. */
static inline __attribute__((always_inline)) void *
event_fill(struct trev_event_buffer *fb, struct trev_entry *ent, unsigned short type,
	   struct rb_desc *d, uint32_t n)
{
	/* The nesting level is our signal-handler depth. */
	ent->type = type;
	ent->flags = n ? TREV_FLAG_HARDIRQ : 0;
	ent->preempt_count = (unsigned char)n;
	ent->pid = d->tid;
	fb->entry = ent;
	fb->writer = d;
	fb->level = n;
	return ent;
}

static rb_cold void *event_reserve_slow(struct trev_event_buffer *fb, unsigned int len,
					struct rb_desc *d, uint32_t n)
{
	struct trev_rb *rb = fb->rb;
	void *ent = trev__rb_reserve_slow(rb, len, d, n);

	if (!ent) {
		trev_tsan_release(fb->file->tr);	/* done with rb: see trev__snapshot_free() */
		return NULL;
	}
	d = trev__rb_tls[rb->set].desc;
	n = atomic_load_explicit(&d->nesting, memory_order_relaxed) - 1;
	return event_fill(fb, ent, fb->file->call->id, d, n);
}

void *trev_event_buffer_reserve(struct trev_event_buffer *fb, struct trev_event_file *file,
				unsigned int len)
{
	/* trace_printk sets the top file's instance on first use, maybe racing. */
	struct trev_trace_array *tr = __atomic_load_n(&file->tr, __ATOMIC_RELAXED);
	/* A snapshot may swap the buffer; commit goes where reserve went. */
	struct trev_rb *rb = __atomic_load_n(&tr->rb, __ATOMIC_ACQUIRE);
	struct trev_entry *ent;
	struct rb_wr w;

	if (trev_unlikely(atomic_load_explicit(&file->flags, memory_order_relaxed) &
			  TREV_FILE_FL_SOFT_DISABLED))
		return NULL;
	fb->file = file;
	fb->rb = rb;
	ent = rb_reserve_fast(rb, len, &w);
	if (trev_unlikely(!ent))
		return event_reserve_slow(fb, len, w.d, w.n);
	return event_fill(fb, ent, file->call->id, w.d, w.n);
}

void trev_event_buffer_commit(struct trev_event_buffer *fb)
{
	struct rb_wr w = { .d = fb->writer, .n = fb->level };

	rb_commit(fb->rb, &w);
	/* For TSan: the RCU grace period orders this before a snapshot buffer is freed. */
	trev_tsan_release(fb->file->tr);
}
