/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The reserve/commit every event probe calls: the record's common fields
 * are filled here.
 */
#include <errno.h>
#include <stdlib.h>

#include <trev/tracepoint.h>

#include "core/core_internal.h"
#include "events/events_internal.h"
#include "ring_buffer/rb_internal.h"

void *trev_event_buffer_reserve(struct trev_event_buffer *fb, struct trev_event_file *file,
				unsigned int len)
{
	/* trace_printk sets the top file's instance on first use, maybe racing. */
	struct trev_trace_array *tr = __atomic_load_n(&file->tr, __ATOMIC_RELAXED);
	/* A snapshot may swap the buffer; commit goes where reserve went. */
	struct trev_rb *rb = __atomic_load_n(&tr->rb, __ATOMIC_ACQUIRE);
	struct trev_entry *ent;
	struct rb_desc *d;
	unsigned int depth;

	if (trev_unlikely(atomic_load_explicit(&file->flags, memory_order_relaxed) &
			  TREV_FILE_FL_SOFT_DISABLED))
		return NULL;
	ent = trev_rb_reserve(rb, len);
	if (trev_unlikely(!ent)) {
		trev_tsan_release(tr);	/* done with rb: see trev__snapshot_free() */
		return NULL;
	}
	/*
	 * The reservation succeeded, so this thread's buffer exists: it holds
	 * the thread id, and its nesting count is our signal-handler depth + 1.
	 */
	d = trev__rb_tls[rb->set].desc;
	depth = atomic_load_explicit(&d->nesting, memory_order_relaxed) - 1;
	ent->type = file->call->id;
	ent->flags = depth ? TREV_FLAG_HARDIRQ : 0;
	ent->preempt_count = (unsigned char)depth;
	ent->pid = d->tid;
	fb->file = file;
	fb->rb = rb;
	fb->entry = ent;
	return ent;
}

void trev_event_buffer_commit(struct trev_event_buffer *fb)
{
	trev_rb_commit(fb->rb, fb->entry);
	/* For TSan: the RCU grace period orders this before a snapshot buffer is freed. */
	trev_tsan_release(fb->file->tr);
}
