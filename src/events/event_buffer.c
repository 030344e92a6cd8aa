/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The reserve/commit every event probe calls: the record's common fields
 * are filled here, on the ring buffer's inline fast path (rb_api.h).
 *
 * An event with a filter, triggers or in soft-disabled mode leaves the
 * fast path at the one flags test reserve already makes. Its record is
 * built first in a per-thread scratch area (the kernel's buffered event):
 * commit runs the triggers that need the record, then the filter, and only
 * a record that is kept takes a time stamp, a reservation and a copy. A
 * rejected event so costs its TP_fast_assign and the filter, nothing more.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <trev/tracepoint.h>

#include "core/core_internal.h"
#include "events/events_internal.h"
#include "filter/filter.h"
#include "filter/filter_run.h"
#include "ring_buffer/rb_api.h"
#include "trigger/trigger.h"

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

/* The reservation itself, in @file's instance's current buffer. */
static inline __attribute__((always_inline)) void *
event_reserve(struct trev_event_buffer *fb, struct trev_event_file *file, unsigned int len)
{
	/* trace_printk sets the top file's instance on first use, maybe racing. */
	struct trev_trace_array *tr = __atomic_load_n(&file->tr, __ATOMIC_RELAXED);
	/* A snapshot may swap the buffer; commit goes where reserve went. */
	struct trev_rb *rb = __atomic_load_n(&tr->rb, __ATOMIC_ACQUIRE);
	struct trev_entry *ent;
	struct rb_wr w;

	fb->file = file;
	fb->rb = rb;
	ent = rb_reserve_fast(rb, len, &w);
	if (trev_unlikely(!ent))
		return event_reserve_slow(fb, len, w.d, w.n);
	return event_fill(fb, ent, file->call->id, w.d, w.n);
}

/* ------------------------------------------------------------------ */
/* The scratch record of filtered and triggered events                  */

#define SCRATCH_SIZE	TREV_RB_PAGE_SIZE	/* no record is larger */
#define SCRATCH_LEVELS	4u			/* nested signal handlers */

/* Per thread: SCRATCH_LEVELS records, mapped on the thread's first use. */
static __thread uint8_t *scratch_area __attribute__((tls_model("initial-exec")));
static __thread unsigned int scratch_depth __attribute__((tls_model("initial-exec")));
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_unmap(void *area)
{
	munmap(area, SCRATCH_SIZE * SCRATCH_LEVELS);
}

static void scratch_key_make(void)
{
	pthread_key_create(&scratch_key, scratch_unmap);
}

/* A scratch record for the calling thread, or NULL (no memory, nested too deep). */
static uint8_t *scratch_get(void)
{
	/* mmap, not malloc: the first event of a thread may come from a signal handler. */
	if (trev_unlikely(!scratch_area)) {
		void *area = mmap(NULL, SCRATCH_SIZE * SCRATCH_LEVELS, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (area == MAP_FAILED)
			return NULL;
		pthread_once(&scratch_once, scratch_key_make);
		pthread_setspecific(scratch_key, area);
		scratch_area = area;
	}
	if (scratch_depth >= SCRATCH_LEVELS)
		return NULL;
	return scratch_area + SCRATCH_SIZE * scratch_depth++;
}

/* The common fields of a scratch record at nesting @depth. */
static inline __attribute__((always_inline)) void
scratch_fill(struct trev_entry *ent, const struct trev_event_file *file, unsigned int depth)
{
	ent->type = file->call->id;
	ent->flags = depth ? TREV_FLAG_HARDIRQ : 0;
	ent->preempt_count = (unsigned char)depth;
	ent->pid = trev__gettid();
}

/*
 * An event that has a filter, triggers or is soft-disabled (the kernel's
 * trace_trigger_soft_disabled() and buffered event). fb->rb NULL tells
 * commit that fb->entry is a scratch record.
 */
static rb_cold void *event_reserve_cond(struct trev_event_buffer *fb,
					struct trev_event_file *file, unsigned int len,
					unsigned int flags)
{
	struct trev_entry *ent;

	if (!(flags & TREV_FILE_FL_TRIGGER_COND)) {
		/* No trigger needs the record: run them now, before it exists. */
		if (flags & TREV_FILE_FL_TRIGGER_MODE)
			trev__triggers_call(file, NULL, 0);
		/* Soft-disabled: nothing to record, so nothing to filter either. */
		if (flags & TREV_FILE_FL_SOFT_DISABLED)
			return NULL;
		if (!(flags & TREV_FILE_FL_FILTERED))
			return event_reserve(fb, file, len);
	}
	ent = len <= SCRATCH_SIZE ? (struct trev_entry *)(void *)scratch_get() : NULL;
	if (trev_unlikely(!ent)) {
		/* Nested deeper than SCRATCH_LEVELS: kept unfiltered (docs/filters.md). */
		if (flags & TREV_FILE_FL_SOFT_DISABLED)
			return NULL;
		return event_reserve(fb, file, len);
	}
	scratch_fill(ent, file, scratch_depth - 1);
	fb->file = file;
	fb->entry = ent;
	fb->rb = NULL;
	fb->level = len;
	return ent;
}

/*
 * The most common conditional event, one with only a filter, on a thread
 * that has its scratch area: kept short, because a rejected event should
 * cost less than a recorded one (DESIGN.md: half the floor).
 */
static __attribute__((noinline)) void *
event_reserve_filtered(struct trev_event_buffer *fb, struct trev_event_file *file,
		       unsigned int len)
{
	uint8_t *area = scratch_area;
	unsigned int depth = scratch_depth;
	struct trev_entry *ent;

	if (trev_unlikely(!area || depth >= SCRATCH_LEVELS || len > SCRATCH_SIZE))
		return event_reserve_cond(fb, file, len, TREV_FILE_FL_FILTERED);
	ent = (struct trev_entry *)(void *)(area + SCRATCH_SIZE * depth);
	scratch_depth = depth + 1;
	scratch_fill(ent, file, depth);
	fb->file = file;
	fb->entry = ent;
	fb->rb = NULL;
	fb->level = len;
	return ent;
}

void *trev_event_buffer_reserve(struct trev_event_buffer *fb, struct trev_event_file *file,
				unsigned int len)
{
	unsigned int flags = atomic_load_explicit(&file->flags, memory_order_relaxed);

	if (trev_unlikely(flags & TREV_FILE_FL_SLOW)) {
		if ((flags & TREV_FILE_FL_SLOW) == TREV_FILE_FL_FILTERED)
			return event_reserve_filtered(fb, file, len);
		return event_reserve_cond(fb, file, len, flags);
	}
	return event_reserve(fb, file, len);
}

/* The fast path's commit: the record is in the ring. */
static inline __attribute__((always_inline)) void event_commit(struct trev_event_buffer *fb)
{
	struct rb_wr w = { .d = fb->writer, .n = fb->level };

	rb_commit(fb->rb, &w);
	/* For TSan: the RCU grace period orders this before a snapshot buffer is freed. */
	trev_tsan_release(fb->file->tr);
}

/* A scratch record that is kept: into the ring, then the scratch level is free. */
static rb_cold void event_commit_copy(struct trev_event_buffer *fb)
{
	struct trev_entry *rec = fb->entry;
	unsigned int len = fb->level;
	struct trev_entry *ent = event_reserve(fb, fb->file, len);

	if (ent) {
		/* The common fields are the ring's; the rest is the record. */
		memcpy(ent + 1, rec + 1, len - sizeof(*rec));
		event_commit(fb);
	}
	scratch_depth--;
}

/* Commit of a scratch record: triggers, filter, then the copy into the ring. */
static rb_cold void event_commit_cond(struct trev_event_buffer *fb, unsigned int flags)
{
	struct trev_event_file *file = fb->file;
	struct trev_entry *rec = fb->entry;
	unsigned int len = fb->level, tt = 0;

	if (flags & TREV_FILE_FL_TRIGGER_COND)
		tt = trev__triggers_call(file, rec, len);
	if (!(flags & TREV_FILE_FL_SOFT_DISABLED) &&
	    (!(flags & TREV_FILE_FL_FILTERED) || trev__event_filter_check(file, rec, len)))
		event_commit_copy(fb);
	else
		scratch_depth--;
	if (tt)
		trev__triggers_post_call(file, tt);
}

/* Commit of a scratch record whose event has only a filter: reject, or copy. */
static __attribute__((noinline)) void event_commit_scratch(struct trev_event_buffer *fb)
{
	struct trev_event_file *file = fb->file;
	unsigned int flags = atomic_load_explicit(&file->flags, memory_order_relaxed);

	if (trev_unlikely((flags & TREV_FILE_FL_SLOW) != TREV_FILE_FL_FILTERED)) {
		event_commit_cond(fb, flags);
		return;
	}
	if (trev_unlikely(trev__event_filter_check(file, fb->entry, fb->level)))
		event_commit_copy(fb);
	else
		scratch_depth--;
}

void trev_event_buffer_commit(struct trev_event_buffer *fb)
{
	if (trev_unlikely(!fb->rb)) {
		event_commit_scratch(fb);
		return;
	}
	event_commit(fb);
}
