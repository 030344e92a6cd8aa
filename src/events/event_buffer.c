/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The top trace instance, and the reserve/commit every event probe calls:
 * the record's common fields are filled here.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/core_internal.h"
#include "events/events_internal.h"
#include "ring_buffer/rb_api.h"

static struct trev_trace_array top = { .name = "", .trace_flags = TREV_ITER_DEFAULT };
static struct trev_trace_array *_Atomic top_made;
static pthread_mutex_t top_lock = PTHREAD_MUTEX_INITIALIZER;

struct trev_trace_array *trev__top_instance_if_made(void)
{
	return atomic_load_explicit(&top_made, memory_order_acquire);
}

struct trev_trace_array *trev__top_instance(void)
{
	struct trev_trace_array *tr = trev__top_instance_if_made();
	struct trev_rb_options opts = { .overwrite = 1, .clock = -1 };
	const char *kb;
	int ret;

	if (tr)
		return tr;
	pthread_mutex_lock(&top_lock);
	if (!atomic_load_explicit(&top_made, memory_order_relaxed)) {
		kb = getenv("TREV_BUFFER_KB");
		if (kb && *kb)
			opts.size_kb = (unsigned int)strtoul(kb, NULL, 10);
		ret = trev_rb_create(&top.rb, &opts);
		if (ret)
			trev__log(TREV_LOG_ERR, "cannot make the trace buffer: %s\n", strerror(-ret));
		else
			atomic_store_explicit(&top_made, &top, memory_order_release);
	}
	pthread_mutex_unlock(&top_lock);
	return trev__top_instance_if_made();
}

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

	if (!ent)
		return NULL;
	d = trev__rb_tls[rb->set].desc;
	n = atomic_load_explicit(&d->nesting, memory_order_relaxed) - 1;
	return event_fill(fb, ent, fb->file->call->id, d, n);
}

void *trev_event_buffer_reserve(struct trev_event_buffer *fb, struct trev_event_file *file,
				unsigned int len)
{
	struct trev_rb *rb = file->tr->rb;
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
}
