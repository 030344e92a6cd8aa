/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How an event probe records: trev_event_write() for a record the probe
 * built on its stack (fixed size, stage 6), reserve/commit for one that is
 * filled in place (dynamic fields). The common fields are filled here, on
 * the ring buffer's inline fast path (rb_api.h).
 *
 * An event with a filter, triggers or in soft-disabled mode leaves the
 * fast path at the one flags test each entry makes. Its record is built
 * before anything is reserved (the kernel's buffered event): on the
 * probe's stack, or for a record of dynamic size in a per-thread scratch
 * area. The triggers that need the record run, then the filter, and only
 * a record that is kept takes a time stamp, a reservation and a copy. A
 * rejected event so costs its TP_fast_assign and the filter, nothing more.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <trev/tracepoint.h>

#include "base/log.h"
#include "events/events_internal.h"
#include "filter/filter.h"
#include "filter/filter_run.h"
#include "output/line_prefix.h"
#include "ring_buffer/rb_api.h"
#include "write/write.h"
#include "write/write_api.h"

/* The common fields, and what the commit needs; fb->file and fb->rb are set. */
static inline __attribute__((always_inline)) void *
event_fill(struct trev_event_buffer *fb, struct trev_entry *ent, unsigned short type,
	   struct rb_desc *d, uint32_t n)
{
	entry_fill(ent, type, d, n);
	fb->entry = ent;
	fb->writer = d;
	fb->level = n;
	return ent;
}

/*
 * The ring's slow reservation, going on from where rb_reserve_fast() left
 * @w; on success @w describes it for the commit, and *@tsp (unless NULL)
 * holds the record's time stamp.
 */
static rb_cold void *event_rb_reserve_slow(struct trev_rb *rb, unsigned int len,
					   struct rb_wr *w, uint64_t *tsp)
{
	void *ent = trev__rb_reserve_slow(rb, len, w->d, w->n, tsp);

	if (ent) {
		w->d = trev__rb_tls[rb->set].desc;
		w->n = atomic_load_explicit(&w->d->nesting, memory_order_relaxed) - 1;
	}
	return ent;
}

static rb_cold void *event_reserve_slow(struct trev_event_buffer *fb, unsigned int len,
					struct rb_wr w)
{
	void *ent = event_rb_reserve_slow(fb->rb, len, &w, NULL);

	if (!ent) {
		trev_tsan_release(fb->file->tr);	/* done with rb: see trev__snapshot_free() */
		return NULL;
	}
	return event_fill(fb, ent, fb->file->call->id, w.d, w.n);
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
		return event_reserve_slow(fb, len, w);
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

/*
 * The common fields of a record built before its reservation. Its nesting
 * level (common_flags, common_preempt_count) is what the ring would give
 * it now; it costs a look-up, so it is left out when only a filter that
 * does not read it will see the record.
 */
static inline __attribute__((always_inline)) void
cond_fill(struct trev_entry *ent, const struct trev_event_file *file, bool level)
{
	unsigned int n = 0;

	if (trev_unlikely(level))
		n = trev__rb_level(__atomic_load_n(&file->tr, __ATOMIC_RELAXED)->rb);
	ent->type = file->call->id;
	ent->flags = n ? TREV_FLAG_HARDIRQ : 0;
	ent->preempt_count = (unsigned char)n;
	ent->pid = trev__gettid();
}

/*
 * The rest of @f from predicate @at (a CPU, COMM or string predicate), a
 * CPU predicate comparing the CPU the ring buffer would record. Out of
 * line, so that the look-up costs the callers' numeric paths no registers.
 */
static rb_cold __attribute__((noinline)) bool
event_filter_more(const struct trev_filter *f, const void *rec, unsigned int len, unsigned int at)
{
	return trev__filter_run_from(f, rec, len, trev__rb_this_cpu(), NULL, at);
}

/*
 * @file's filter on @rec: true when the record is kept (no filter, or it
 * matches).
 * Context: the event's probe (inside an RCU read section).
 */
static inline __attribute__((always_inline)) bool
event_filter_check(struct trev_event_file *file, const void *rec, unsigned int len)
{
	/* rcu_dereference(): pairs with the release store in trev__event_filter_set(). */
	const struct trev_filter *f = __atomic_load_n(&file->filter, __ATOMIC_ACQUIRE);
	enum flt_verdict v;
	unsigned int at;

	if (!f)
		return true;
	v = flt_run_num(f, rec, len, &at);
	if (trev_unlikely(v == FLT_MORE))
		return event_filter_more(f, rec, len, at);
	return v == FLT_KEEP;
}

/* Does @file's filter, if it is the only condition, read the nesting level? */
static inline bool filter_reads_level(const struct trev_event_file *file)
{
	const struct trev_filter *f = __atomic_load_n(&file->filter, __ATOMIC_ACQUIRE);

	return f && f->reads_level;
}

/* The instance's set_event_pid and tracing_cpumask, as the kernel's buffer reserve. */
static rb_cold __attribute__((noinline)) bool cond_inst_keeps(struct trev_event_file *file,
							       unsigned int flags)
{
	return !trev__inst_ignores(__atomic_load_n(&file->tr, __ATOMIC_RELAXED), flags,
				   trev__gettid(), trev__rb_this_cpu());
}

/* The part of a conditional event that needs no record: the triggers that
 * do not read it run now, as in the kernel's trace_trigger_soft_disabled().
 * Return: whether a record is still wanted. */
static inline __attribute__((always_inline)) bool cond_enter(struct trev_event_file *file,
							      unsigned int flags)
{
	if (!(flags & TREV_FILE_FL_TRIGGER_COND)) {
		if (flags & TREV_FILE_FL_TRIGGER_MODE)
			trev__event_triggers_call(file, NULL, 0);
		if (flags & TREV_FILE_FL_SOFT_DISABLED)
			return false;
	}
	if (trev_unlikely(flags & (TREV_FILE_FL_PID | TREV_FILE_FL_CPUMASK)))
		return cond_inst_keeps(file, flags);
	return true;
}

/* options/stacktrace: the stack of the thread after its event's record. */
static rb_cold __attribute__((noinline)) void event_stack(struct trev_event_file *file)
{
	trev__stack_record(__atomic_load_n(&file->tr, __ATOMIC_RELAXED),
			   &trev__event_rt(file->call)->stack_skip);
}

static void event_write_copy(struct trev_event_file *file, const struct trev_entry *rec,
			     unsigned int len);

/*
 * The record is built: the triggers that read it, the filter, then the copy.
 * Inlined into its two callers: one stack frame for the trigger dispatch.
 */
static inline __attribute__((always_inline)) void cond_record(struct trev_event_file *file, struct trev_entry *rec,
			unsigned int len, unsigned int flags)
{
	unsigned int tt = 0;

	if (flags & TREV_FILE_FL_TRIGGER_COND)
		tt = trev__event_triggers_call(file, rec, len);
	if (!(flags & TREV_FILE_FL_SOFT_DISABLED) &&
	    (!(flags & TREV_FILE_FL_FILTERED) || event_filter_check(file, rec, len))) {
		event_write_copy(file, rec, len);
		if (flags & TREV_FILE_FL_STACK)
			event_stack(file);
	}
	if (tt)
		trev__event_triggers_post_call(file, tt);
}

/*
 * Reserve for an event that has a filter, triggers or is soft-disabled.
 * fb->rb NULL tells commit that fb->entry is a scratch record.
 */
static rb_cold void *event_reserve_cond(struct trev_event_buffer *fb,
					struct trev_event_file *file, unsigned int len,
					unsigned int flags)
{
	struct trev_entry *ent;

	if (!cond_enter(file, flags))
		return NULL;
	/* With options/stacktrace, a scratch record too: its commit adds the stack. */
	if (!(flags & (TREV_FILE_FL_TRIGGER_COND | TREV_FILE_FL_FILTERED | TREV_FILE_FL_STACK)))
		return event_reserve(fb, file, len);
	ent = len <= SCRATCH_SIZE ? (struct trev_entry *)(void *)scratch_get() : NULL;
	if (trev_unlikely(!ent)) {
		/* Nested deeper than SCRATCH_LEVELS: kept unfiltered (docs/filters.md). */
		if (flags & TREV_FILE_FL_SOFT_DISABLED)
			return NULL;
		return event_reserve(fb, file, len);
	}
	cond_fill(ent, file, true);
	fb->file = file;
	fb->entry = ent;
	fb->rb = NULL;
	fb->level = len;
	return ent;
}

/*
 * The most common conditional event, one with only a filter, on a thread
 * that has its scratch area: kept short, because a rejected event should
 * cost less than a recorded one (docs/benchmarks.md: 116 instructions
 * against 167).
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
	cond_fill(ent, file, filter_reads_level(file));
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

	rb_commit(fb->rb, &w, fb->entry);
	/* For TSan: the RCU grace period orders this before a snapshot buffer is freed. */
	trev_tsan_release(fb->file->tr);
}

/* The rest of a ring write at level @w->n, out of line: fill, copy, commit. */
static rb_cold void event_write_rest(struct trev_event_file *file, struct trev_rb *rb,
				     const struct trev_entry *rec, unsigned int len,
				     struct trev_entry *ent, struct rb_wr w)
{
	entry_fill(ent, file->call->id, w.d, w.n);
	rec_copy(ent + 1, rec + 1, len - (unsigned int)sizeof(*rec));
	rb_commit(rb, &w, ent);
}

/* What event_write_ring() does when the fast reservation fails. */
static rb_cold void event_write_slow(struct trev_event_file *file, struct trev_rb *rb,
				     const struct trev_entry *rec, unsigned int len,
				     struct rb_wr w)
{
	struct trev_entry *ent = event_rb_reserve_slow(rb, len, &w, NULL);

	if (ent)
		event_write_rest(file, rb, rec, len, ent, w);
	trev_tsan_release(file->tr);	/* done with rb: see trev__snapshot_free() */
}

/* The rest of a ring write the fast path reserved at @ent: fill, copy, commit. */
static inline __attribute__((always_inline)) void
event_write_reserved(struct trev_event_file *file, struct trev_trace_array *tr,
		     struct trev_rb *rb, const struct trev_entry *rec, unsigned int len,
		     struct trev_entry *ent, struct rb_wr w)
{
	(void)tr;	/* TSan's annotation only */
	if (trev_unlikely(w.n)) {
		event_write_rest(file, rb, rec, len, ent, w);
	} else {
		entry_fill(ent, file->call->id, w.d, 0);
		rec_copy(ent + 1, rec + 1, len - (unsigned int)sizeof(*rec));
		rb_commit(rb, &(struct rb_wr){ w.d, 0 }, ent);
	}
	trev_tsan_release(tr);
}

/*
 * A built record into the ring; its common fields are the ring's. Nothing
 * here has its address taken, so the fast path keeps it all in registers.
 * A signal handler's write (a level above 0) goes on out of line, so that
 * the common case knows its level.
 */
static inline __attribute__((always_inline)) void
event_write_ring(struct trev_event_file *file, const struct trev_entry *rec, unsigned int len)
{
	/* As event_reserve(): the instance may be set late, the buffer swapped. */
	struct trev_trace_array *tr = __atomic_load_n(&file->tr, __ATOMIC_RELAXED);
	struct trev_rb *rb = __atomic_load_n(&tr->rb, __ATOMIC_ACQUIRE);
	struct rb_wr w;
	struct trev_entry *ent = rb_reserve_fast(rb, len, &w);

	if (trev_unlikely(!ent)) {
		event_write_slow(file, rb, rec, len, w);
		return;
	}
	event_write_reserved(file, tr, rb, rec, len, ent, w);
}

/*
 * A built record into the ring, out of line: the fast path of
 * trev_event_write(), and the copy of a record its triggers and filter kept.
 */
static __attribute__((noinline)) void event_write_copy(struct trev_event_file *file,
							const struct trev_entry *rec,
							unsigned int len)
{
	event_write_ring(file, rec, len);
}

/* Commit of a scratch record: triggers, filter, then the copy into the ring. */
static rb_cold void event_commit_cond(struct trev_event_buffer *fb, unsigned int flags)
{
	cond_record(fb->file, fb->entry, fb->level, flags);
	scratch_depth--;
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
	if (trev_unlikely(event_filter_check(file, fb->entry, fb->level)))
		event_write_copy(file, fb->entry, fb->level);
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

/* A built record of an event with triggers, or soft-disabled. */
static rb_cold void event_write_cond(struct trev_event_file *file, struct trev_entry *rec,
				     unsigned int len, unsigned int flags)
{
	if (!cond_enter(file, flags))
		return;
	if (flags & (TREV_FILE_FL_TRIGGER_COND | TREV_FILE_FL_FILTERED))
		cond_fill(rec, file, true);
	cond_record(file, rec, len, flags);
}

/* event_write_filtered() past its short path: any filter, and the copy. */
static rb_cold void event_write_filtered_slow(struct trev_event_file *file,
					      struct trev_entry *rec, unsigned int len)
{
	cond_fill(rec, file, filter_reads_level(file));
	if (event_filter_check(file, rec, len))
		event_write_copy(file, rec, len);
}

/* The rest of a filter from predicate @at, then the copy if it keeps @rec. */
static rb_cold void event_write_filtered_more(struct trev_event_file *file,
					      const struct trev_filter *f,
					      struct trev_entry *rec, unsigned int len,
					      unsigned int at)
{
	if (event_filter_more(f, rec, len, at))
		event_write_copy(file, rec, len);
}

/*
 * A built record of an event whose only condition is its filter. The
 * common case, a numeric filter that rejects the record, calls nothing,
 * so it needs no stack frame: type and pid are all the filter can read
 * of the common fields when it does not read the nesting level.
 */
static __attribute__((noinline)) void event_write_filtered(struct trev_event_file *file,
							    struct trev_entry *rec,
							    unsigned int len)
{
	/* rcu_dereference(): pairs with the release store in trev__event_filter_set(). */
	const struct trev_filter *f = __atomic_load_n(&file->filter, __ATOMIC_ACQUIRE);
	int tid = trev__rb_tid;
	unsigned int at;

	if (trev_unlikely(!f || !tid || f->reads_level)) {
		event_write_filtered_slow(file, rec, len);
		return;
	}
	rec->type = file->call->id;
	rec->pid = tid;
	switch (flt_run_num(f, rec, len, &at)) {
	case FLT_DROP:
		return;
	case FLT_KEEP:
		event_write_copy(file, rec, len);
		return;
	case FLT_MORE:
		event_write_filtered_more(file, f, rec, len, at);
		return;
	}
}

/*
 * Only the flags test, then a tail call: each path gets the stack frame
 * it needs, and a rejected event none.
 */
void trev_event_write(struct trev_event_file *file, void *entry, unsigned int len)
{
	unsigned int flags = atomic_load_explicit(&file->flags, memory_order_relaxed);

	if (trev_likely(!(flags & TREV_FILE_FL_SLOW)))
		event_write_copy(file, entry, len);
	else if ((flags & TREV_FILE_FL_SLOW) == TREV_FILE_FL_FILTERED)
		event_write_filtered(file, entry, len);
	else
		event_write_cond(file, entry, len, flags);
}

/*
 * event_write_stamped_words() past the ring's fast path (write_api.h): a record
 * that a filter or trigger reads before its reservation (@reserved false)
 * takes the clock read now; a fast reservation that failed (@ent NULL)
 * goes on where it stopped (@w), and the slow reservation gives the
 * record's time stamp; one a signal handler's write took at a level above
 * 0 (@ent, with @ts) is finished out of line.
 */
rb_cold uint64_t trev__event_write_stamped_slow(struct trev_event_file *file, struct trev_rb *rb,
						struct trev_entry *rec, unsigned int len,
						unsigned int stamp_off, bool reserved,
						struct rb_wr w, void *ent, uint64_t ts)
{
	if (!reserved) {
		ts = trev_rb_clock_now(rb);
		if (stamp_off)
			memcpy((uint8_t *)rec + stamp_off, &ts, sizeof(ts));
		trev_event_write(file, rec, len);
		return ts;
	}
	if (!ent)
		ent = event_rb_reserve_slow(rb, len, &w, &ts);
	if (ent) {
		if (stamp_off)
			memcpy((uint8_t *)rec + stamp_off, &ts, sizeof(ts));
		event_write_rest(file, rb, rec, len, ent, w);
	} else {
		ts = trev_rb_clock_now(rb);	/* refused: the time all the same */
	}
	trev_tsan_release(file->tr);	/* done with rb: see trev__snapshot_free() */
	return ts;
}
