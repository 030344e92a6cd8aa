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

void *trev_event_buffer_reserve(struct trev_event_buffer *fb, struct trev_event_file *file,
				unsigned int len)
{
	struct trev_rb *rb = file->tr->rb;
	struct trev_entry *ent;
	struct rb_wr w;

	if (trev_unlikely(atomic_load_explicit(&file->flags, memory_order_relaxed) &
			  TREV_FILE_FL_SOFT_DISABLED))
		return NULL;
	ent = rb_reserve(rb, len, &w);
	if (trev_unlikely(!ent))
		return NULL;
	/* The nesting level is our signal-handler depth. */
	ent->type = file->call->id;
	ent->flags = w.n ? TREV_FLAG_HARDIRQ : 0;
	ent->preempt_count = (unsigned char)w.n;
	ent->pid = w.d->tid;
	fb->file = file;
	fb->entry = ent;
	fb->rb = rb;
	fb->writer = w.d;
	fb->level = w.n;
	return ent;
}

void trev_event_buffer_commit(struct trev_event_buffer *fb)
{
	struct rb_wr w = { .d = fb->writer, .n = fb->level };

	rb_commit(fb->rb, &w);
}
