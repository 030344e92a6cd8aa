/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Ring buffer readers: the consuming merged read (trace_pipe), blocking
 * waits, whole-page reads (trace_pipe_raw), the non-consuming iterator
 * (trace) and per-buffer statistics.
 *
 * Every reader works on private copies of pages, taken with the slot
 * seqlock (rb_internal.h), so writers never wait for a reader. The per-CPU
 * readers (per_cpu/cpuN/) move other CPUs' events into staging queues as
 * they go; rb_stage.c has that design.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ring_buffer/rb_internal.h"

/* ------------------------------------------------------------------ */
/* Page copies                                                          */

/*
 * Bring the copy of page @seq of @d up to date: the whole page if it is a
 * new one, else only the bytes committed since the last copy.
 * Return: 0, or -ESTALE when the page is not (or no longer) in the buffer.
 */
static int rb_copy_page(struct trev_rb *rb, struct rb_desc *d, struct rb_cursor *c, uint64_t seq)
{
	uint32_t page, size, from;
	struct rb_slot *slot;
	const uint8_t *src;
	uint64_t commit, cs;
	struct rb_slot meta;
	uint32_t moves = rb_run_begin(d);
	bool dead;

	if (rb_reader_page(rb, d, seq, &page) < 0)
		return -ESTALE;
	slot = rb_slot_of(rb, page);
	src = rb_page_ptr(rb, page);
	if (!c->copy) {
		c->copy = malloc(RB_PAGE_SIZE);
		if (!c->copy)
			return -ENOMEM;
	}
	/* A dead buffer's pages are all final: its thread writes no more
	 * (rb_thread_exit() let go of it before marking it dead, and the
	 * acquire makes every commit before that visible). */
	dead = atomic_load_explicit(&d->state, memory_order_acquire) == RB_DESC_DEAD;
	cs = atomic_load_explicit(&d->commit_seq, memory_order_acquire);
	if (atomic_load_explicit(&slot->seq, memory_order_acquire) != seq)
		return -ESTALE;
	commit = atomic_load_explicit((_Atomic uint64_t *)(void *)(src + 8), memory_order_acquire);
	size = (uint32_t)(commit & RB_COMMIT_MASK);
	if (size > RB_DATA_SIZE)
		return -ESTALE;
	rb_copy_racy((uint8_t *)&meta, (const uint8_t *)slot, sizeof(meta));
	from = c->copy_seq == seq ? c->copy_size : 0;
	if (size > from)
		rb_copy_racy(c->copy + RB_PAGE_HDR + from, src + RB_PAGE_HDR + from, size - from);
	if (from == 0)
		rb_copy_racy(c->copy, src, 8);
	if (rb_seq_recheck(&slot->seq) != seq || !rb_run_same(d, moves)) {
		c->copy_seq = RB_SEQ_NONE;
		return -ESTALE;
	}
	if (size < from)	/* cannot shrink: a reset raced with us */
		return -ESTALE;
	/* The pages of a freed buffer may go to another one, whose page
	 * numbers start again at 0; the free bumps gen first (rb_shm.c). */
	if (rb->attached && atomic_load_explicit(&d->gen, memory_order_relaxed) != c->gen) {
		c->copy_seq = RB_SEQ_NONE;
		return -ESTALE;
	}
	rb_put64(c->copy + 8, commit);
	c->copy_seq = seq;
	c->copy_size = size;
	c->copy_final = seq < cs || dead;
	c->meta = meta;
	return 0;
}

/* Slot metadata of page @seq, validated like a page copy. */
static int rb_read_meta(struct trev_rb *rb, struct rb_desc *d, uint64_t seq, struct rb_slot *out)
{
	uint32_t moves = rb_run_begin(d);
	struct rb_slot *slot;
	uint32_t page;

	if (rb_reader_page(rb, d, seq, &page) < 0)
		return -ESTALE;
	slot = rb_slot_of(rb, page);
	if (atomic_load_explicit(&slot->seq, memory_order_acquire) != seq)
		return -ESTALE;
	rb_copy_racy((uint8_t *)out, (const uint8_t *)slot, sizeof(*out));
	return rb_seq_recheck(&slot->seq) == seq && rb_run_same(d, moves) ? 0 : -ESTALE;
}

/*
 * A consumed event's payload is copied, under read_lock, into memory of the
 * calling thread, and ev->data points there: the page copies belong to the
 * buffer's one consuming cursor, which the next reader of any CPU refreshes,
 * so a payload left in them could change under a reader that is still
 * formatting it. Valid until the thread's next consume; freed at its exit.
 */
static pthread_key_t rb_out_key;
static pthread_once_t rb_out_once = PTHREAD_ONCE_INIT;
static RB_TLS uint8_t *rb_out;

/* At thread exit; a later destructor that consumes gets a new copy. */
static void rb_out_free(void *out)
{
	free(out);
	rb_out = NULL;
}

static void rb_out_init(void)
{
	(void)pthread_key_create(&rb_out_key, rb_out_free);
}

static __attribute__((noinline)) uint8_t *rb_reader_out_alloc(void)
{
	pthread_once(&rb_out_once, rb_out_init);
	rb_out = malloc(RB_PAGE_SIZE);
	if (rb_out)
		(void)pthread_setspecific(rb_out_key, rb_out);
	return rb_out;
}

static inline uint8_t *rb_reader_out(void)
{
	return rb_out ? rb_out : rb_reader_out_alloc();
}

/* ------------------------------------------------------------------ */
/* Damage                                                               */

/* Nothing writes to @rb's region any more: what cannot be read now never can. */
static bool rb_static(struct trev_rb *rb)
{
	return rb->attached && atomic_load_explicit(&rb->writers_gone, memory_order_relaxed);
}

/* Why page @seq of @d cannot be read, into @what; *@page its region page or UINT32_MAX. */
static void rb_describe(struct trev_rb *rb, struct rb_desc *d, uint64_t seq, uint32_t *page,
			char *what, size_t n)
{
	uint32_t first, nr;
	uint64_t held, size;

	rb_run_load(d, &first, &nr);
	*page = UINT32_MAX;
	if (rb_reader_page(rb, d, seq, page) < 0) {
		*page = UINT32_MAX;
		snprintf(what, n, "its run of %u pages from page %u is not in the region's %u pages",
			 nr, first, rb->nr_pages);
		return;
	}
	held = atomic_load_explicit(&rb_slot_of(rb, *page)->seq, memory_order_acquire);
	size = atomic_load_explicit((_Atomic uint64_t *)(void *)(rb_page_ptr(rb, *page) + 8),
				    memory_order_acquire) & RB_COMMIT_MASK;
	if (held == RB_SEQ_NONE)
		snprintf(what, n, "its slot holds no page");
	else if (held == RB_SEQ_BUSY)
		snprintf(what, n, "its slot is marked as being rewritten");
	else if (held != seq)
		snprintf(what, n, "its slot holds page %llu", (unsigned long long)held);
	else if (size > RB_DATA_SIZE)
		snprintf(what, n, "its commit word says %llu bytes, a page holds %u",
			 (unsigned long long)size, RB_DATA_SIZE);
	else
		snprintf(what, n, "its buffer's generation changed");
}

/*
 * rb_damage_set() - a read of @rb cannot get past page @seq, offset @off, of @d
 * @cpu: the CPU the reader's position there is on
 * @fmt: what is wrong, printf-style
 *
 * Only for a region nothing writes to any more (rb_static()): the first
 * damage is kept for trev_rb_damaged(), and every read of @rb fails from
 * now on. Under read_lock. Return: -EUCLEAN.
 */
static __attribute__((format(printf, 6, 7))) int
rb_damage_set(struct trev_rb *rb, struct rb_desc *d, uint64_t seq, uint32_t off, uint32_t cpu,
	      const char *fmt, ...)
{
	struct trev_rb_damage *dm = &rb->damage;
	va_list ap;

	if (rb->damaged)
		return -EUCLEAN;
	rb->damaged = true;
	dm->buffer = (unsigned int)(d - rb->descs);
	dm->tid = __atomic_load_n(&d->tid, __ATOMIC_RELAXED);
	dm->cpu = rb_view(rb, cpu);
	dm->seq = seq;
	dm->off = off;
	if (rb_reader_page(rb, d, seq, &dm->page) < 0)
		dm->page = UINT32_MAX;
	va_start(ap, fmt);
	vsnprintf(dm->what, sizeof(dm->what), fmt, ap);
	va_end(ap);
	return -EUCLEAN;
}

int trev_rb_damaged(struct trev_rb *rb, struct trev_rb_damage *out)
{
	int ret = 0;

	if (!rb || !out)
		return 0;
	pthread_mutex_lock(&rb->read_lock);
	if (rb->damaged) {
		*out = rb->damage;
		ret = 1;
	}
	pthread_mutex_unlock(&rb->read_lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Positions                                                            */

/*
 * rb_pos_catch_up() - if the page at @p is gone (overwritten, or cut off
 * by a resize), move @p to the oldest page still there
 * @skipped: the entries skipped are added to it
 *
 * Return: 0; for another process's buffer whose oldest page is not in its
 * slot, -EAGAIN after a bounded look while its writers may still be moving
 * on, -EUCLEAN (rb_damage_set()) once they are gone. The writer moves
 * first_seq past a page before it rewrites the page's slot
 * (rb_next_page()), so nothing but damage leaves the oldest page missing.
 */
static int rb_pos_catch_up(struct trev_rb *rb, struct rb_desc *d, struct rb_pos *p,
			   uint64_t *skipped)
{
	for (unsigned int tries = 0;; tries++) {
		uint64_t tail = atomic_load_explicit(&d->tail_seq, memory_order_acquire);
		uint32_t nr = __atomic_load_n(&d->nr_pages, __ATOMIC_RELAXED);
		uint64_t oldest, first, n;
		struct rb_slot meta;

		if (tail == RB_SEQ_NONE || nr == 0)
			return 0;
		oldest = first = atomic_load_explicit(&d->first_seq, memory_order_acquire);
		if (tail + 1 >= nr && oldest < tail + 1 - nr)
			oldest = tail + 1 - nr;
		if (p->seq >= oldest)
			return 0;
		if (rb_read_meta(rb, d, oldest, &meta) < 0) {
			char what[96];
			uint32_t page;

			if (!rb->attached)
				continue;	/* overwritten again meanwhile */
			if (!rb_static(rb)) {
				/* its writer may be past it already, or stopped */
				if (tries < RB_ATTACHED_MAX_STALLS)
					continue;
				return -EAGAIN;
			}
			rb_describe(rb, d, oldest, &page, what, sizeof(what));
			return rb_damage_set(rb, d, oldest, 0, p->cpu,
					  "its oldest page (the last is %llu, the first %llu, of %u): %s",
					  (unsigned long long)tail, (unsigned long long)first, nr,
					  what);
		}
		n = meta.first_entry > p->entry ? meta.first_entry - p->entry : 0;
		p->seq = oldest;
		p->off = 0;
		p->entry = meta.first_entry;
		p->lost += n;
		p->entered = false;
		*skipped += n;
		return 0;
	}
}

/*
 * rb_pos_peek() - find the next event at or after @p
 * @end_seq, @end_off: stop there (the iterator's snapshot), or RB_SEQ_NONE;
 *                    with losses pending (@p->lost), go on to the event
 *                    that reports them
 *
 * Walks over markers, time records and padding, updating @p; stops at a
 * data record without consuming it. On another process's buffer every
 * step moves @p or ends the walk: a page it cannot copy is looked at a
 * bounded number of times while writers may be rewriting it, and is damage
 * once they are gone (rb_damage_set()).
 * Return: 1 with @r set, 0 when there is nothing (yet), -EUCLEAN for a
 * damaged region, -errno on another error.
 */
static int rb_pos_peek(struct trev_rb *rb, struct rb_desc *d, struct rb_cursor *c,
		       struct rb_pos *p, struct rb_rec *r, uint64_t end_seq, uint32_t end_off,
		       uint64_t *skipped)
{
	for (uint32_t steps = 0, stalls = 0;; steps++) {
		uint64_t seq = p->seq;
		int err;

		if (rb->damaged)
			return -EUCLEAN;
		/* Another process's buffer may hold anything, its writer may be
		 * dead halfway through a page: a bounded walk, then "nothing". */
		if (rb->attached && steps > RB_ATTACHED_MAX_STEPS)
			return 0;

		/* At the end, unless losses are pending: then the event after
		 * them, past the end, reports them (a writer lapped the walk). */
		if (end_seq != RB_SEQ_NONE && !p->lost &&
		    (p->seq > end_seq || (p->seq == end_seq && p->off >= end_off)))
			return 0;
		err = rb_pos_catch_up(rb, d, p, skipped);
		if (err == -EAGAIN)
			return 0;
		if (err < 0)
			return err;
		if (c->copy_seq != p->seq || (!c->copy_final && p->off >= c->copy_size)) {
			err = rb_copy_page(rb, d, c, p->seq);
			if (err == -ESTALE) {
				uint64_t tail = atomic_load_explicit(&d->tail_seq,
								     memory_order_acquire);
				char what[96];
				uint32_t page;

				if (tail == RB_SEQ_NONE || p->seq > tail) {
					/* Not written yet; a reader is never past the
					 * page after the writer's. */
					if (rb_static(rb) && tail != RB_SEQ_NONE && p->seq - 1 > tail)
						return rb_damage_set(rb, d, p->seq, p->off, p->cpu,
								  "the reader's position is past the "
								  "writer's last page, %llu",
								  (unsigned long long)tail);
					return 0;
				}
				if (!rb->attached || p->seq != seq)
					continue;	/* overwritten: catch up */
				/* Neither there nor overwritten: a writer between
				 * its stores, or damage. */
				if (!rb_static(rb)) {
					if (++stalls >= RB_ATTACHED_MAX_STALLS)
						return 0;
					continue;
				}
				rb_describe(rb, d, p->seq, &page, what, sizeof(what));
				return rb_damage_set(rb, d, p->seq, p->off, p->cpu, "%s", what);
			}
			if (err < 0)
				return err;
		}
		if (!p->entered) {
			p->entered = true;
			p->consumed = p->off != 0;
			if (p->off == 0) {
				p->ts = rb_get64(c->copy);
				p->cpu = c->meta.cpu;
				/* Drops before this page, including those noted on
				 * pages that were overwritten before being read. */
				if (c->meta.lost_cum > p->drops_seen)
					p->lost += c->meta.lost_cum - p->drops_seen;
				p->drops_seen = c->meta.lost_cum;
				if (c->meta.first_entry > p->entry)
					p->entry = c->meta.first_entry;
			}
		}
		switch (rb_decode(c->copy + RB_PAGE_HDR, c->copy_size, p->off, p->ts, r)) {
		case RB_REC_DATA:
			return 1;
		case RB_REC_CPU:
			p->cpu = r->cpu;
			break;
		case RB_REC_TIME:
			break;
		case RB_REC_PADDING:
		case RB_REC_DISCARD:
			p->entry++;
			break;
		case RB_REC_END:
		default:
			if (!c->copy_final)
				return 0;	/* the tail page: wait for more */
			p->seq++;
			p->off = 0;
			p->entered = false;
			continue;
		}
		p->ts = r->ts;
		p->off += r->size;
	}
}

static void rb_pos_advance(struct rb_pos *p, const struct rb_rec *r)
{
	p->ts = r->ts;
	p->off += r->size;
	p->entry++;
	p->lost = 0;
	p->consumed = true;
}

static void rb_fill_event(struct trev_rb_event *ev, const struct rb_desc *d, unsigned int id,
			  const struct rb_pos *p, const struct rb_rec *r)
{
	ev->ts = r->ts;
	ev->lost = p->lost;
	ev->data = r->payload;
	ev->len = r->len;
	ev->cpu = (int)p->cpu;
	ev->tid = d->tid;
	ev->buffer = id;
}

/* Reset the consuming cursor of a buffer that was reused or cleared. */
void trev__rb_cursor_sync(struct trev_rb *rb, struct rb_desc *d, struct rb_cursor *c)
{
	uint64_t gen = atomic_load_explicit(&d->gen, memory_order_acquire);

	(void)rb;
	if (c->gen == gen)
		return;
	memset(&c->pos, 0, sizeof(c->pos));
	c->copy_seq = RB_SEQ_NONE;
	c->copy_size = 0;
	c->copy_final = false;
	c->gen = gen;
}

static bool rb_desc_in_use(const struct rb_desc *d)
{
	return atomic_load_explicit(&d->state, memory_order_acquire) != RB_DESC_FREE;
}

/*
 * Publish the consuming position: the writer may now reuse older pages.
 * A reader of another process's buffer also hands the whole position
 * back, so that the process's own readers go on from it (rb_shm.c).
 */
static void rb_publish_read(struct trev_rb *rb, struct rb_desc *d, struct rb_cursor *c)
{
	if (atomic_load_explicit(&d->read_seq, memory_order_relaxed) != c->pos.seq)
		atomic_store_explicit(&d->read_seq, c->pos.seq, memory_order_release);
	(void)rb;
	c->handoff_dirty = true;	/* published at the call's end (trev__rb_sync()) */
	rb->pos_dirty = true;
}

/*
 * Does the thread owning @d hold a time stamp it has not claimed bytes for?
 * Another process's busy words are read from its busy area when the reader
 * has it (trev_rb_attach_busy()); without it, only a write that has claimed
 * its bytes is seen in flight (its nesting).
 */
static bool rb_writer_busy(struct trev_rb *rb, const struct rb_desc *d)
{
	uint32_t ix = __atomic_load_n(&d->busy_ix, __ATOMIC_RELAXED);

	if (!ix)
		return false;
	if (!rb->attached)
		return atomic_load_explicit(trev__rb_busy_word(ix), memory_order_acquire) != 0;
	if (!rb->busy_map || ix > rb->busy_words)
		return false;
	return __atomic_load_n((const uint32_t *)(const void *)(rb->busy_map +
								(size_t)ix * RB_BUSY_STRIDE),
			       __ATOMIC_ACQUIRE) != 0;
}

/*
 * Could a writer that is between its time stamp and its commit still add an
 * event at or before @ts to another buffer (its busy word or its nesting is
 * set: rb_internal.h)? If so, *write_id names that
 * write (never 0; its top 16 bits are the buffer's index + 1,
 * rb_write_buffer()); else it is 0. A write the reader already waited for in
 * vain (a thread stopped in it, by a debugger or SIGSTOP, or one that died in
 * it) is not named again, so that a reader pays rb_settle_ms once per stuck
 * write, not once per event, and still waits for the other writers. Whatever it has not published
 * yet is no older than the last event it did publish, which is where the
 * consuming cursor of that buffer stands when it has nothing unread
 * (a signal handler's event can be published together with an older one of
 * the write it interrupted, so the writer's last_ts is no bound). The kernel
 * avoids all this by disabling preemption around a write; userspace cannot,
 * so readers wait a little instead (rb_settle_ms).
 */
#define RB_WRITE_ID_MASK	((1ull << 48) - 1)

/* The buffer a write id of rb_in_flight_before() belongs to. */
static uint32_t rb_write_buffer(uint64_t write_id)
{
	return (uint32_t)(write_id >> 48) - 1;
}

static void rb_in_flight_before(struct trev_rb *rb, uint64_t ts, int except, uint64_t *write_id)
{
	uint32_t hwm = trev__rb_hwm(rb);
	int self = trev__gettid();

	*write_id = 0;
	/* A dead process's writes never end: whatever it claimed is all there is. */
	if (rb->attached && atomic_load_explicit(&rb->writers_gone, memory_order_relaxed))
		return;
	for (uint32_t i = 0; i < hwm; i++) {
		struct rb_desc *d = &rb->descs[i];

		if ((int)i == except || atomic_load(&d->state) != RB_DESC_LIVE || d->tid == self)
			continue;
		/* Busy before nesting: the writer clears busy after it sets nesting. */
		if (!rb_writer_busy(rb, d) &&
		    atomic_load_explicit(&d->nesting, memory_order_acquire) == 0)
			continue;
		if (rb->cursor[i].gen != atomic_load(&d->gen) || rb->cursor[i].pos.ts <= ts) {
			uint64_t next;

			uint64_t id;

			/* Names this write: buffer, events committed and reserved. */
			rb_copy_racy((uint8_t *)&next, (const uint8_t *)&d->next_entry,
				     sizeof(next));
			id = rb_load(&d->committed) ^ (rb_load(&d->lost_total) << 24) ^
			     (next << 32);
			id = ((uint64_t)(i + 1) << 48) | (id & RB_WRITE_ID_MASK) | 1;
			if (id == rb->cursor[i].stuck_write)
				continue;
			*write_id = id;
			return;
		}
	}
}

/* The longest a reader waits for one write in flight before going on. */
static const int64_t rb_settle_ms = 20;

/*
 * The longest one read call waits for writes in flight, all of them
 * together: another process that keeps changing what names its write
 * (next_entry, lost_total) would otherwise be waited for anew each time.
 */
static const int64_t rb_settle_call_ms = 5 * rb_settle_ms;

/*
 * Peek buffer @i; 1 with its next event in @r. Catches the position up
 * and publishes it, so the writer may reuse what was read.
 */
static int rb_peek_buffer(struct trev_rb *rb, uint32_t i, struct rb_rec *r)
{
	struct rb_desc *d = &rb->descs[i];
	struct rb_cursor *c = &rb->cursor[i];
	uint64_t skipped = 0;
	int ret;

	if (!rb_desc_in_use(d))
		return 0;
	trev__rb_cursor_sync(rb, d, c);
	ret = rb_pos_peek(rb, d, c, &c->pos, r, RB_SEQ_NONE, 0, &skipped);
	if (skipped) {
		rb_local_add(&d->overrun, skipped);
		/* Per CPU: the CPU of the first event after the hole. */
		rb->stage[rb_view(rb, c->pos.cpu)].buf_overrun += skipped;
		rb_pub_touch(rb, rb_view(rb, c->pos.cpu));
	}
	rb_publish_read(rb, d, c);
	return ret;
}

/*
 * rb_peek_unread() - the next unread event of buffer @i, for statistics
 * @lc: receives a private cursor at the consumer's position, caught up
 * @copy: RB_PAGE_SIZE bytes for its page copy
 * @skipped: receives the events overwritten since the consumer's position
 *           that no reader has counted yet
 *
 * A pure read: the consuming cursor, its page copy and the published read
 * position stay as they are, so no reader is disturbed. Under read_lock.
 * Return: 1 with @r set, 0 when nothing is unread, -errno on error.
 */
static int rb_peek_unread(struct trev_rb *rb, uint32_t i, struct rb_cursor *lc, uint8_t *copy,
			  struct rb_rec *r, uint64_t *skipped)
{
	struct rb_desc *d = &rb->descs[i];

	*skipped = 0;
	trev__rb_consumer_pos(rb, i, lc);
	lc->copy = copy;
	lc->copy_seq = RB_SEQ_NONE;
	trev__rb_cursor_sync(rb, d, lc);
	if (!rb_desc_in_use(d))
		return 0;
	return rb_pos_peek(rb, d, lc, &lc->pos, r, RB_SEQ_NONE, 0, skipped);
}

/*
 * The staging queue whose head event is oldest (ties: the lower CPU), or
 * -1 when every queue is empty; under read_lock.
 */
static int rb_oldest_staged(struct trev_rb *rb, struct rb_rec *r)
{
	int best = -1;
	struct rb_rec sr;

	for (int i = 0; i < rb->nr_cpus; i++) {
		if (trev__rb_stage_peek(rb, i, &sr) && (best < 0 || sr.ts < r->ts)) {
			best = i;
			*r = sr;
		}
	}
	return best;
}

/*
 * The buffer whose next event is oldest; under read_lock.
 *
 * The scan is not atomic: while it runs (the reader may even be preempted)
 * a buffer found empty can commit an event older than the one chosen. So
 * once a candidate at time T is chosen: first, writers in the middle of a
 * write that may be older than T are waited for (the caller does that when
 * *in_flight, which names the write, is not 0); then the buffers that were empty are looked at again. An
 * event older than T that is neither in flight during the first step nor
 * visible in the second cannot exist: its time stamp would postdate the
 * scan, and T was committed before it.
 */
/*
 * Losses no buffer carries (struct rb_cpu_lost's orphans) that no consumer
 * took yet go to their views' pending losses, reported with the view's next
 * event or page. Only a consumer calls this, under read_lock; the look at
 * the views is skipped while their sum has not moved.
 */
static void rb_take_orphans(struct trev_rb *rb)
{
	uint64_t all = atomic_load_explicit(&rb->hdr->orphans, memory_order_acquire);

	if (all == rb->orphans_seen)
		return;
	rb->orphans_seen = all;
	for (int v = 0; v < rb->nr_cpus; v++) {
		struct rb_cpu_lost *cl = &rb->cpu_lost[v];
		uint64_t o = atomic_load_explicit(&cl->orphan, memory_order_relaxed);
		uint64_t t = atomic_load_explicit(&cl->orphan_taken, memory_order_relaxed);

		if (o == t)
			continue;
		atomic_store_explicit(&cl->orphan_taken, o, memory_order_relaxed);
		rb->stage[v].pending += o - t;
		rb_pub_touch(rb, v);
	}
}

static int rb_peek_oldest(struct trev_rb *rb, struct rb_rec *best_rec, int *best_id,
			  uint64_t *in_flight)
{
	uint32_t hwm = trev__rb_hwm(rb);
	uint64_t empty[RB_MAX_BUFFERS / 64] = { 0 };
	uint64_t best_ts = UINT64_MAX;
	struct rb_rec r;

	*best_id = -1;
	if (atomic_load_explicit(&rb->lent, memory_order_relaxed))
		return -EBUSY;	/* another process consumes (rb_shm.c) */
	rb_take_orphans(rb);
	for (uint32_t i = 0; i < hwm; i++) {
		int ret = rb_peek_buffer(rb, i, &r);

		if (ret < 0)
			return ret;
		if (ret == 0)
			empty[i / 64] |= 1ull << (i % 64);
		else if (r.ts < best_ts) {
			best_ts = r.ts;
			*best_rec = r;
			*best_id = (int)i;
		}
	}
	if (*best_id < 0)
		return 0;
	rb_in_flight_before(rb, best_ts, *best_id, in_flight);
	for (uint32_t i = 0; i < hwm; i++) {
		if (!(empty[i / 64] & (1ull << (i % 64))))
			continue;
		if (rb_peek_buffer(rb, i, &r) == 1 && r.ts < best_ts) {
			best_ts = r.ts;
			*best_rec = r;
			*best_id = (int)i;
		}
	}
	return 1;
}

/* ------------------------------------------------------------------ */
/* Waiting                                                              */

static int64_t rb_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Is there something for a reader of @cpu (-1: any CPU) to look at? */
static bool rb_has_data(struct trev_rb *rb, int cpu)
{
	struct rb_rec r;
	uint64_t in_flight;
	int id;

	if (cpu >= 0 ? rb->stage[cpu].head != NULL : rb_oldest_staged(rb, &r) >= 0)
		return true;
	return rb_peek_oldest(rb, &r, &id, &in_flight) != 0;
}

/*
 * Sleep until a writer commits, a reader stages events, @deadline_ms passes
 * (-1: never) or the readers are woken. @cpu: the view the caller reads,
 * -1 for all. Return: 0 to look again, -ETIMEDOUT, -EINTR.
 *
 * Writers wake sleepers through hdr->waiters (rb_internal.h). A reader that
 * stages events wakes them through rb->sleepers: a sleeper counts itself
 * before it looks at the queues under read_lock, and a stager looks at the
 * count after it unlocked, so either the sleeper saw the staged events or
 * the stager sees the sleeper and bumps wake_seq, which makes the futex
 * wait return.
 */
static int rb_sleep(struct trev_rb *rb, int cpu, int64_t deadline_ms, uint32_t wake_all)
{
	struct rb_region *hdr = rb->hdr;
	uint32_t seq = atomic_load_explicit(&hdr->wake_seq, memory_order_acquire);
	struct timespec rel, *tsp = NULL;
	int ret = 0;
	bool data;

	atomic_fetch_add(&rb->sleepers, 1);
	atomic_store_explicit(&hdr->waiters, 1, memory_order_relaxed);
	/* Pairs with the waiters check after the writers' commit stores. */
	trev__membarrier();
	pthread_mutex_lock(&rb->read_lock);
	data = rb_has_data(rb, cpu);
	trev__rb_sync(rb);	/* the look may have moved positions past overwritten pages */
	pthread_mutex_unlock(&rb->read_lock);
	if (data)
		goto out;
	ret = -EINTR;
	if (atomic_load(&rb->wake_all) != wake_all)
		goto out;
	if (deadline_ms >= 0) {
		int64_t left = deadline_ms - rb_now_ms();

		ret = -ETIMEDOUT;
		if (left <= 0)
			goto out;
		rel.tv_sec = left / 1000;
		rel.tv_nsec = (left % 1000) * 1000000;
		tsp = &rel;
	}
	syscall(SYS_futex, &hdr->wake_seq, FUTEX_WAIT, seq, tsp, NULL, 0);
	ret = atomic_load(&rb->wake_all) != wake_all ? -EINTR : 0;
out:
	atomic_fetch_sub(&rb->sleepers, 1);
	return ret;
}

/* After staging: wake sleeping readers, one of them may read those events. */
static void rb_wake_sleepers(struct trev_rb *rb)
{
	if (atomic_load(&rb->sleepers)) {
		atomic_fetch_add_explicit(&rb->hdr->wake_seq, 1, memory_order_release);
		syscall(SYS_futex, &rb->hdr->wake_seq, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
	}
}

void trev_rb_wake_readers(struct trev_rb *rb)
{
	atomic_fetch_add(&rb->wake_all, 1);
	atomic_fetch_add_explicit(&rb->hdr->wake_seq, 1, memory_order_release);
	syscall(SYS_futex, &rb->hdr->wake_seq, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

int trev_rb_wait(struct trev_rb *rb, int timeout_ms)
{
	int64_t deadline = timeout_ms < 0 ? -1 : rb_now_ms() + timeout_ms;
	uint32_t wake_all = atomic_load(&rb->wake_all);

	for (;;) {
		bool data;
		int ret;

		pthread_mutex_lock(&rb->read_lock);
		data = rb_has_data(rb, -1);
		trev__rb_sync(rb);
		pthread_mutex_unlock(&rb->read_lock);
		if (data)
			return 1;
		if (timeout_ms == 0)
			return 0;
		ret = rb_sleep(rb, -1, deadline, wake_all);
		if (ret == -ETIMEDOUT)
			return 0;
		if (ret < 0)
			return ret;
	}
}

/* ------------------------------------------------------------------ */
/* Consuming reads                                                      */

/* Waiting for a write in flight that may be older than the chosen event; one per call. */
struct rb_settle {
	int64_t until;		/* give up waiting for this write then (ms) */
	int64_t call_until;	/* wait for no write after then (ms); 0 before the first */
	uint64_t waited_for;	/* the write waited for, 0 for none */
	bool yield;		/* RB_PULL_AGAIN: yield before looking again */
};

/*
 * Should the caller let write @in_flight commit before it takes an event?
 * Once it has waited rb_settle_ms, the write is marked stuck on its
 * buffer's cursor and no reader waits for it again. A call waits
 * rb_settle_call_ms at most in all, from its first wait, however the writes
 * it meets change. Under read_lock.
 */
static bool rb_settle_wait(struct trev_rb *rb, struct rb_settle *s, uint64_t in_flight)
{
	int64_t now;

	if (!in_flight)
		return false;
	now = rb_now_ms();
	if (!s->call_until)
		s->call_until = now + rb_settle_call_ms;
	if (in_flight != s->waited_for) {
		s->waited_for = in_flight;
		s->until = now + rb_settle_ms;
		if (s->until > s->call_until)
			s->until = s->call_until;
	}
	if (now < s->until)
		return true;
	rb->cursor[rb_write_buffer(in_flight)].stuck_write = in_flight;
	rb->stuck_writes++;
	return false;
}

/*
 * Consume the head event of buffer @id, peeked into @r: fill @ev (payload
 * copied to @out) and count it read, for the buffer and its CPU.
 * Losses still pending in its CPU's staging queue go with it.
 */
static void rb_take_event(struct trev_rb *rb, int id, const struct rb_rec *r,
			  struct trev_rb_event *ev, uint8_t *out)
{
	struct rb_desc *d = &rb->descs[id];
	struct rb_cursor *c = &rb->cursor[id];
	struct rb_stage *s = &rb->stage[rb_view(rb, c->pos.cpu)];

	rb_fill_event(ev, d, (unsigned int)id, &c->pos, r);
	memcpy(out, r->payload, r->len);
	ev->data = out;
	ev->lost += s->pending;
	s->pending = 0;
	s->read_events++;
	rb_pub_touch(rb, rb_view(rb, c->pos.cpu));
	rb_pos_advance(&c->pos, r);
	rb_local_add(&d->read_events, 1);
	c->handoff_dirty = true;
	rb->pos_dirty = true;
}

/* Move the head event of buffer @id, peeked into @r, to its CPU's queue. */
static void rb_stage_event(struct trev_rb *rb, int id, const struct rb_rec *r)
{
	struct rb_desc *d = &rb->descs[id];
	struct rb_cursor *c = &rb->cursor[id];

	trev__rb_stage_push(rb, r, c->pos.lost, c->pos.cpu, (uint32_t)id, d->tid);
	rb_pos_advance(&c->pos, r);
	rb_local_add(&d->read_events, 1);
	c->handoff_dirty = true;
	rb->pos_dirty = true;
}

int trev_rb_consume(struct trev_rb *rb, struct trev_rb_event *ev, int timeout_ms)
{
	int64_t deadline = timeout_ms < 0 ? -1 : rb_now_ms() + timeout_ms;
	uint32_t wake_all = atomic_load(&rb->wake_all);
	struct rb_settle settle = { 0 };
	uint8_t *out = rb_reader_out();

	if (!out)
		return -ENOMEM;
	for (;;) {
		struct rb_rec r, sr;
		uint64_t in_flight = 0;
		int id, view, ret;

		pthread_mutex_lock(&rb->read_lock);
		ret = rb_peek_oldest(rb, &r, &id, &in_flight);
		view = ret >= 0 ? rb_oldest_staged(rb, &sr) : -1;
		if (view >= 0 && (ret == 0 || sr.ts <= r.ts)) {
			/* Staged events left the buffers before any event still
			 * there: no write in flight can be older. */
			trev__rb_stage_pop(rb, view, ev, out);
			ret = 1;
		} else if (ret == 1) {
			if (rb_settle_wait(rb, &settle, in_flight)) {
				pthread_mutex_unlock(&rb->read_lock);
				sched_yield();
				continue;
			}
			rb_take_event(rb, id, &r, ev, out);
		}
		trev__rb_sync(rb);
		pthread_mutex_unlock(&rb->read_lock);
		if (ret != 0 || timeout_ms == 0)
			return ret;
		ret = rb_sleep(rb, -1, deadline, wake_all);
		if (ret == -ETIMEDOUT)
			return 0;
		if (ret < 0)
			return ret;
	}
}

/* ------------------------------------------------------------------ */
/* Per-CPU consuming reads                                              */

enum {
	RB_PULL_NONE,		/* no event of the CPU anywhere */
	RB_PULL_STAGED,		/* the CPU's staging queue has what is asked */
	RB_PULL_BUFFER,		/* the CPU's next event heads a buffer */
	RB_PULL_AGAIN,		/* drop read_lock and call again */
};

/* What rb_pull() brings to the front of a CPU view. */
enum rb_want {
	RB_WANT_EVENT,		/* the next event, staged or heading a buffer */
	RB_WANT_PAGE,		/* a staged page: full, or the last one when the
				 * buffers have no more (trace_pipe_raw) */
	RB_WANT_FULL_PAGE,	/* a full staged page only (TREV_RB_READ_FULL) */
};

/* Events staged in one hold of read_lock, so other readers get a turn. */
#define RB_PULL_BATCH	256u

/*
 * rb_pull() - bring what @want asks of CPU view @cpu to the front
 * @want: RB_WANT_*; for pages, @cpu's own events are staged too, until its
 *        head page is full (trev__rb_stage_head_full())
 * @r, @id: with RB_PULL_BUFFER, the event and its buffer
 * @staged: set when events were staged (the caller wakes sleepers)
 *
 * Takes the globally oldest events, as trev_rb_consume() does, and stages
 * those of other CPUs. Under read_lock.
 * Return: RB_PULL_* or a negative errno.
 */
static int rb_pull(struct trev_rb *rb, int cpu, enum rb_want want, struct rb_rec *r, int *id,
		   struct rb_settle *settle, bool *staged)
{
	struct rb_stage *s = &rb->stage[cpu];

	for (unsigned int n = 0;; n++) {
		uint64_t in_flight = 0;
		int ret;

		if (s->head && (want == RB_WANT_EVENT || trev__rb_stage_head_full(rb, cpu)))
			return RB_PULL_STAGED;
		if (n == RB_PULL_BATCH) {
			settle->yield = false;
			return RB_PULL_AGAIN;
		}
		ret = rb_peek_oldest(rb, r, id, &in_flight);
		if (ret < 0)
			return ret;
		if (ret == 0)	/* a partial page stays staged for a full-page read */
			return s->head && want != RB_WANT_FULL_PAGE ? RB_PULL_STAGED : RB_PULL_NONE;
		if (rb_settle_wait(rb, settle, in_flight)) {
			settle->yield = true;
			return RB_PULL_AGAIN;
		}
		if (want == RB_WANT_EVENT && rb_view(rb, rb->cursor[*id].pos.cpu) == cpu)
			return RB_PULL_BUFFER;
		rb_stage_event(rb, *id, r);
		*staged = true;
	}
}

static bool rb_cpu_ok(const struct trev_rb *rb, int cpu)
{
	return rb && cpu >= 0 && cpu < rb->nr_cpus;
}

int trev_rb_nr_cpus(const struct trev_rb *rb)
{
	return rb ? rb->nr_cpus : -EINVAL;
}

/* Events committed to all buffers so far: moves while writers write. */
static uint64_t rb_committed_all(struct trev_rb *rb)
{
	uint32_t hwm = trev__rb_hwm(rb);
	uint64_t sum = 0;

	for (uint32_t i = 0; i < hwm; i++)
		sum += rb_load(&rb->descs[i].committed);
	return sum;
}

/*
 * A per-CPU reader that stages other CPUs' events may never get to its own
 * while writers elsewhere write faster than it stages. After this long,
 * with writers still writing, it gives up for now: trev_rb_read_page_cpu()
 * returns -EAGAIN, a consume or wait whose time-out has passed returns 0.
 */
static const int64_t rb_read_cpu_max_ms = 20;

/*
 * Another process's buffer gives up after this long whether its committed
 * counts move or not: a process that changes a buffer's gen (the reader
 * starts that buffer again) or its counts without committing could
 * otherwise keep a reader staging for ever.
 */
static const int64_t rb_read_attached_max_ms = 5 * rb_read_cpu_max_ms;

/* Timed from a call's first RB_PULL_AGAIN, so that short calls read no clock. */
struct rb_flood {
	int64_t start;		/* ms; 0 before the first */
	uint64_t committed;	/* rb_committed_all() then */
};

/* At RB_PULL_AGAIN: has the reader staged long enough while writers wrote? */
static bool rb_flooded(struct trev_rb *rb, struct rb_flood *f, int64_t deadline)
{
	int64_t now = rb_now_ms();

	if (!f->start) {
		f->start = now;
		f->committed = rb_committed_all(rb);
		return false;
	}
	if (now - f->start < rb_read_cpu_max_ms || (deadline >= 0 && now < deadline))
		return false;
	if (rb->attached && !rb_static(rb) && now - f->start >= rb_read_attached_max_ms)
		return true;
	return rb_committed_all(rb) != f->committed;
}

int trev_rb_consume_cpu(struct trev_rb *rb, int cpu, struct trev_rb_event *ev, int timeout_ms)
{
	int64_t deadline;
	uint32_t wake_all;
	struct rb_settle settle = { 0 };
	struct rb_flood flood = { 0 };
	uint8_t *out;

	if (!rb_cpu_ok(rb, cpu) || !ev)
		return -EINVAL;
	out = rb_reader_out();
	if (!out)
		return -ENOMEM;
	deadline = timeout_ms < 0 ? -1 : rb_now_ms() + timeout_ms;
	wake_all = atomic_load(&rb->wake_all);
	for (;;) {
		bool staged = false;
		struct rb_rec r;
		int id, ret;

		pthread_mutex_lock(&rb->read_lock);
		ret = rb_pull(rb, cpu, RB_WANT_EVENT, &r, &id, &settle, &staged);
		if (ret == RB_PULL_STAGED) {
			trev__rb_stage_pop(rb, cpu, ev, out);
			ret = 1;
		} else if (ret == RB_PULL_BUFFER) {
			rb_take_event(rb, id, &r, ev, out);
			ret = 1;
		}
		trev__rb_sync(rb);
		pthread_mutex_unlock(&rb->read_lock);
		if (staged)
			rb_wake_sleepers(rb);
		if (ret == RB_PULL_AGAIN) {
			if (timeout_ms >= 0 && !settle.yield && rb_flooded(rb, &flood, deadline))
				return 0;
			if (settle.yield)
				sched_yield();
			continue;
		}
		if (ret != 0 || timeout_ms == 0)
			return ret;
		ret = rb_sleep(rb, cpu, deadline, wake_all);
		if (ret == -ETIMEDOUT)
			return 0;
		if (ret < 0)
			return ret;
	}
}

int trev_rb_wait_cpu(struct trev_rb *rb, int cpu, int timeout_ms)
{
	int64_t deadline;
	uint32_t wake_all;
	struct rb_settle settle = { 0 };
	struct rb_flood flood = { 0 };

	if (!rb_cpu_ok(rb, cpu))
		return -EINVAL;
	deadline = timeout_ms < 0 ? -1 : rb_now_ms() + timeout_ms;
	wake_all = atomic_load(&rb->wake_all);
	for (;;) {
		bool staged = false;
		struct rb_rec r;
		int id, ret;

		pthread_mutex_lock(&rb->read_lock);
		ret = rb_pull(rb, cpu, RB_WANT_EVENT, &r, &id, &settle, &staged);
		trev__rb_sync(rb);
		pthread_mutex_unlock(&rb->read_lock);
		if (staged)
			rb_wake_sleepers(rb);
		if (ret == RB_PULL_AGAIN) {
			if (timeout_ms >= 0 && !settle.yield && rb_flooded(rb, &flood, deadline))
				return 0;
			if (settle.yield)
				sched_yield();
			continue;
		}
		if (ret < 0)
			return ret;
		if (ret != RB_PULL_NONE)
			return 1;
		if (timeout_ms == 0)
			return 0;
		ret = rb_sleep(rb, cpu, deadline, wake_all);
		if (ret == -ETIMEDOUT)
			return 0;
		if (ret < 0)
			return ret;
	}
}

int trev_rb_read_page_cpu_flags(struct trev_rb *rb, int cpu, void *page, unsigned int flags)
{
	enum rb_want want = flags & TREV_RB_READ_FULL ? RB_WANT_FULL_PAGE : RB_WANT_PAGE;
	struct rb_settle settle = { 0 };
	struct rb_flood flood = { 0 };

	if (!rb_cpu_ok(rb, cpu) || !page || (flags & ~TREV_RB_READ_FULL))
		return -EINVAL;
	for (;;) {
		bool staged = false;
		struct rb_rec r;
		int id, ret;

		pthread_mutex_lock(&rb->read_lock);
		ret = rb_pull(rb, cpu, want, &r, &id, &settle, &staged);
		if (ret == RB_PULL_STAGED) {
			trev__rb_stage_take_page(rb, cpu, page);
			ret = 1;
		}
		trev__rb_sync(rb);
		pthread_mutex_unlock(&rb->read_lock);
		if (staged)
			rb_wake_sleepers(rb);
		if (ret != RB_PULL_AGAIN)
			return ret;
		if (!settle.yield && rb_flooded(rb, &flood, -1))
			return -EAGAIN;
		if (settle.yield)
			sched_yield();
	}
}

int trev_rb_read_page_cpu(struct trev_rb *rb, int cpu, void *page)
{
	return trev_rb_read_page_cpu_flags(rb, cpu, page, 0);
}

/*
 * Build a page from the records left on the cursor's copy, starting at the
 * position: its time stamp is the position's, so every copied record keeps
 * its delta. A CPU marker first if the CPU changed since the page start
 * (and no lost count must go first); lost events go in the commit flags
 * and after the data.
 */
static void rb_build_page(struct trev_rb *rb, struct rb_cursor *c, struct rb_desc *d, uint8_t *out)
{
	struct rb_pos *p = &c->pos;
	uint32_t limit = RB_DATA_SIZE - (p->lost ? 8u : 0u), len = 0;
	uint8_t *data = out + RB_PAGE_HDR;
	uint64_t commit;

	memset(out, 0, RB_PAGE_SIZE);
	rb_put64(out, p->ts);
	/* kbuffer reports a lost count only if the first record is at offset 0,
	 * so a page that carries one cannot start with a marker. */
	if (p->cpu != c->meta.cpu && !p->lost) {
		rb_put_cpu_mark(data, p->cpu);
		len = RB_CPU_MARK_SIZE;
	}
	for (;;) {
		struct rb_rec r;
		int kind = rb_decode(c->copy + RB_PAGE_HDR, c->copy_size, p->off, p->ts, &r);

		if (kind == RB_REC_END || len + r.size > limit)
			break;
		memcpy(data + len, c->copy + RB_PAGE_HDR + p->off, r.size);
		len += r.size;
		if (kind == RB_REC_DATA) {
			rb_local_add(&d->read_events, 1);
			rb->stage[rb_view(rb, p->cpu)].read_events++;
			p->entry++;
		} else if (kind == RB_REC_PADDING || kind == RB_REC_DISCARD) {
			p->entry++;
		} else if (kind == RB_REC_CPU) {
			p->cpu = r.cpu;
		}
		p->ts = r.ts;
		p->off += r.size;
	}
	p->consumed = true;
	commit = len;
	if (p->lost) {
		commit |= RB_MISSED_EVENTS | RB_MISSED_STORED;
		rb_put64(data + len, p->lost);
		p->lost = 0;
	}
	rb_put64(out + 8, commit);
}

/* Account for a page taken whole: its events are read, per CPU too. */
static void rb_count_page(struct trev_rb *rb, struct rb_cursor *c, struct rb_desc *d)
{
	uint32_t cpu = c->meta.cpu;
	struct rb_walk w;
	struct rb_rec r;

	c->pos.entry = c->meta.first_entry + c->meta.entries;
	rb_local_add(&d->read_events, c->meta.entries - c->meta.padded);
	if (!c->meta.cpu_marks) {	/* one CPU: no need to walk the page */
		rb->stage[rb_view(rb, cpu)].read_events += c->meta.entries - c->meta.padded;
		return;
	}
	rb_page_for_each(&w, c->copy, &r) {
		if (r.kind == RB_REC_DATA)
			rb->stage[rb_view(rb, cpu)].read_events++;
		else if (r.kind == RB_REC_CPU)
			cpu = r.cpu;
	}
}

/* The cursor stands on a complete page nothing was read from, lost count as noted. */
static bool rb_page_untouched(const struct rb_cursor *c)
{
	return c->copy_final && c->copy_seq == c->pos.seq && !c->pos.consumed &&
	       c->pos.lost == c->meta.lost;
}

/* Hand out that page as it is, and move the cursor past it. */
static void rb_take_whole_page(struct trev_rb *rb, struct rb_cursor *c, struct rb_desc *d,
			       uint8_t *page)
{
	uint32_t extra = c->meta.lost ? 8u : 0u;

	memcpy(page, c->copy, RB_PAGE_HDR + c->copy_size + extra);
	memset(page + RB_PAGE_HDR + c->copy_size + extra, 0, RB_DATA_SIZE - c->copy_size - extra);
	if (c->meta.lost)
		rb_put64(page + RB_PAGE_HDR + c->copy_size, c->meta.lost);
	rb_count_page(rb, c, d);
	c->pos.seq++;
	c->pos.off = 0;
	c->pos.lost = 0;
	c->pos.entered = false;
}

int trev_rb_read_page_flags(struct trev_rb *rb, void *page, unsigned int *buffer,
			    unsigned int flags)
{
	bool full = flags & TREV_RB_READ_FULL;
	struct rb_cursor *c;
	struct rb_desc *d;
	struct rb_rec r, sr;
	uint64_t in_flight, pending = 0;
	int id, view, ret;

	if (!rb || !page || (flags & ~TREV_RB_READ_FULL))
		return -EINVAL;
	pthread_mutex_lock(&rb->read_lock);
	ret = rb_peek_oldest(rb, &r, &id, &in_flight);
	if (ret < 0)
		goto out_unlock;
	view = rb_oldest_staged(rb, &sr);
	if (view >= 0 && (ret == 0 || sr.ts <= r.ts)) {
		/* The oldest data is on a partial page: nothing, for a full read. */
		if (full && !trev__rb_stage_head_full(rb, view)) {
			ret = 0;
			goto out_unlock;
		}
		trev__rb_stage_take_page(rb, view, page);
		if (buffer)
			*buffer = TREV_RB_STAGED;
		ret = 1;
		goto out_unlock;
	}
	if (ret != 1)
		goto out_unlock;
	d = &rb->descs[id];
	c = &rb->cursor[id];
	/*
	 * Full: the writer has left the page (the kernel's test, reader page
	 * != commit page). The copy is refreshed first, since the peek keeps
	 * an older one while it has unread records on it.
	 */
	if (full && !c->copy_final &&
	    (rb_copy_page(rb, d, c, c->pos.seq) < 0 || !c->copy_final)) {
		ret = 0;
		goto out_unlock;
	}
	if (buffer)
		*buffer = (unsigned int)id;
	/* Losses of staging queues not reported yet: this page carries them. */
	for (int i = 0; i < rb->nr_cpus; i++) {
		pending += rb->stage[i].pending;
		rb->stage[i].pending = 0;
	}
	c->pos.lost += pending;
	/* A complete page nothing was read from goes out as it is. */
	if (rb_page_untouched(c))
		rb_take_whole_page(rb, c, d, page);
	else
		rb_build_page(rb, c, d, page);
	rb_publish_read(rb, d, c);
out_unlock:
	trev__rb_sync(rb);
	pthread_mutex_unlock(&rb->read_lock);
	return ret;
}

int trev_rb_read_page(struct trev_rb *rb, void *page, unsigned int *buffer)
{
	return trev_rb_read_page_flags(rb, page, buffer, 0);
}

/* rb_whole_page_for_cpu()'s answers */
enum rb_whole {
	RB_WHOLE_NO,		/* stage its events */
	RB_WHOLE_NOW,		/* take the page whole */
	RB_WHOLE_AFTER_STAGED,	/* its view's staged (partial) page first, then whole */
	RB_WHOLE_BUILD,		/* copy its records behind a lost count it does not
				 * carry itself (rb_build_page()): all of them, or
				 * all but the last few where the count needs room */
};

/* The cursor stands at the start of a complete page: nothing of it was read. */
static bool rb_page_from_start(const struct rb_cursor *c)
{
	return c->copy_final && c->copy_seq == c->pos.seq && !c->pos.consumed;
}

/*
 * Can buffer @id's head page go whole into one CPU's stream? Nothing of it
 * was read, every record on it ran on one CPU (no marker, no discard), and
 * no event that could belong to that CPU is older than the page's last
 * one: no other buffer's head, no write in flight. If the view has events
 * staged, they are all older than the page (@id's head is the oldest event
 * there is): they go out first, as a partial page. Without that, staging
 * that began at a migration would never end, as the staged pages and the
 * buffer's pages fill at different offsets. A loss the page does not carry
 * itself (an overrun this reader met, the view's pending losses) goes in
 * front of its records as the count of a built page, not one staged event
 * at a time: a writer that laps the reader on every page would otherwise
 * keep it staging for ever. Under read_lock. Return: an rb_whole, *@view
 * set unless RB_WHOLE_NO.
 */
static enum rb_whole rb_whole_page_for_cpu(struct trev_rb *rb, uint32_t id, int *view)
{
	struct rb_cursor *c = &rb->cursor[id];
	uint64_t last_ts, in_flight;
	struct rb_walk w;
	struct rb_rec r;
	uint32_t hwm;
	int v;

	if (!rb_page_from_start(c) || c->meta.cpu_marks || c->meta.padded)
		return RB_WHOLE_NO;
	v = rb_view(rb, c->meta.cpu);
	/* The time of its last record. */
	rb_page_for_each(&w, c->copy, &r)
		;
	last_ts = w.ts;
	hwm = trev__rb_hwm(rb);
	for (uint32_t i = 0; i < hwm; i++)
		if (i != id && rb_peek_buffer(rb, i, &r) == 1 && r.ts < last_ts)
			return RB_WHOLE_NO;
	rb_in_flight_before(rb, last_ts, (int)id, &in_flight);
	if (in_flight)
		return RB_WHOLE_NO;
	*view = v;
	if (rb->stage[v].head)
		return RB_WHOLE_AFTER_STAGED;
	if (c->pos.lost != c->meta.lost || rb->stage[v].pending)
		return RB_WHOLE_BUILD;
	return RB_WHOLE_NOW;
}

/* Does a buffer other than @id head a page its writer has left (as last peeked)? */
static bool rb_others_final(struct trev_rb *rb, uint32_t id)
{
	for (uint32_t i = 0, hwm = trev__rb_hwm(rb); i < hwm; i++) {
		const struct rb_cursor *c = &rb->cursor[i];

		if (i != id && c->copy_seq == c->pos.seq && c->copy_final &&
		    rb_desc_in_use(&rb->descs[i]))
			return true;
	}
	return false;
}

/* The view whose head staged page is the oldest, full ones only with @full; or -1. */
static int rb_staged_page_ready(struct trev_rb *rb, bool full)
{
	uint64_t best = UINT64_MAX;
	int view = -1;

	for (int v = 0; v < rb->nr_cpus; v++) {
		struct rb_spage *h = rb->stage[v].head;

		if (!h || (full && !trev__rb_stage_head_full(rb, v)))
			continue;
		if (h->rd_ts < best) {
			best = h->rd_ts;
			view = v;
		}
	}
	return view;
}

/*
 * The end of a drain: losses pending for a view that no later event of it
 * carries go out on a page of no events, the count after its (empty) data,
 * so that a recorder's file counts them too. Return: the view, or -1 when
 * none has losses pending.
 */
static int rb_lost_page(struct trev_rb *rb, uint8_t *page)
{
	for (int v = 0; v < rb->nr_cpus; v++) {
		struct rb_stage *s = &rb->stage[v];

		if (!s->pending)
			continue;
		memset(page, 0, RB_PAGE_SIZE);
		rb_put64(page, trev_rb_clock_now(rb));
		rb_put64(page + 8, RB_MISSED_EVENTS | RB_MISSED_STORED);
		rb_put64(page + RB_PAGE_HDR, s->pending);
		s->pending = 0;
		rb_pub_touch(rb, v);
		return v;
	}
	return -1;
}

/*
 * One step of trev_rb_read_page_any(), under read_lock: a ready staged
 * page, else a buffer's page whole, else stage the oldest events until a
 * staged page is ready. Return: 1 with @page and *@cpu set, 0 when there
 * is nothing (more, with @full: nothing full), RB_PULL_AGAIN, or -errno.
 */
static int rb_any_step(struct trev_rb *rb, bool full, uint8_t *page, int *cpu,
		       struct rb_settle *settle, bool *staged)
{
	for (unsigned int n = 0;; n++) {
		uint64_t in_flight = 0;
		struct rb_cursor *c;
		struct rb_desc *d;
		struct rb_rec r;
		int id, view, ret;

		view = rb_staged_page_ready(rb, true);
		if (view >= 0) {
			trev__rb_stage_take_page(rb, view, page);
			*cpu = view;
			return 1;
		}
		if (n == RB_PULL_BATCH) {
			settle->yield = false;
			return RB_PULL_AGAIN;
		}
		ret = rb_peek_oldest(rb, &r, &id, &in_flight);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			/* Drained: the partial staged pages, unless only full ones
			 * are asked; then the losses no event is left to carry. */
			view = full ? -1 : rb_staged_page_ready(rb, false);
			if (view < 0 && !full && (view = rb_lost_page(rb, page)) >= 0) {
				*cpu = view;
				return 1;
			}
			if (view < 0)
				return 0;
			trev__rb_stage_take_page(rb, view, page);
			*cpu = view;
			return 1;
		}
		if (rb_settle_wait(rb, settle, in_flight)) {
			settle->yield = true;
			return RB_PULL_AGAIN;
		}
		c = &rb->cursor[id];
		d = &rb->descs[id];
		/* The peek keeps an older copy while it has unread records on it. */
		if (!c->copy_final && rb_copy_page(rb, d, c, c->pos.seq) < 0)
			continue;
		switch (rb_whole_page_for_cpu(rb, (uint32_t)id, &view)) {
		case RB_WHOLE_NOW:
			rb_take_whole_page(rb, c, d, page);
			rb_publish_read(rb, d, c);
			*cpu = view;
			return 1;
		case RB_WHOLE_AFTER_STAGED:
			/* partial even with @full: the page goes whole at the next step */
			trev__rb_stage_take_page(rb, view, page);
			*cpu = view;
			return 1;
		case RB_WHOLE_BUILD:
			c->pos.lost += rb->stage[view].pending;
			rb->stage[view].pending = 0;
			rb_build_page(rb, c, d, page);
			rb_publish_read(rb, d, c);
			*cpu = view;
			return 1;
		case RB_WHOLE_NO:
			break;
		}
		/*
		 * Full pages only, and the oldest event is on a page its writer
		 * is still filling: staging it now builds nothing sooner, unless
		 * pages of other buffers wait behind it.
		 */
		if (full && !c->copy_final && !rb_others_final(rb, (uint32_t)id))
			return 0;
		rb_stage_event(rb, id, &r);
		*staged = true;
	}
}

int trev_rb_read_page_any(struct trev_rb *rb, void *page, int *cpu, unsigned int flags)
{
	struct rb_settle settle = { 0 };
	struct rb_flood flood = { 0 };

	if (!rb || !page || !cpu || (flags & ~TREV_RB_READ_FULL))
		return -EINVAL;
	for (;;) {
		bool staged = false;
		int ret;

		pthread_mutex_lock(&rb->read_lock);
		ret = rb_any_step(rb, flags & TREV_RB_READ_FULL, page, cpu, &settle, &staged);
		trev__rb_sync(rb);
		pthread_mutex_unlock(&rb->read_lock);
		if (staged)
			rb_wake_sleepers(rb);
		if (ret != RB_PULL_AGAIN)
			return ret;
		if (!settle.yield && rb_flooded(rb, &flood, -1))
			return -EAGAIN;
		if (settle.yield)
			sched_yield();
	}
}

/* ------------------------------------------------------------------ */
/* The non-consuming iterator                                           */

struct rb_iter_buf {
	uint32_t id;		/* descriptor index */
	uint64_t gen;		/* descriptor gen at start */
	uint64_t end_seq;	/* stop at (end_seq, end_off): the snapshot */
	uint32_t end_off;
	bool done;		/* nothing (more) to show */
	struct rb_cursor c;	/* own position and page copy */
};

struct trev_rb_iter {
	struct trev_rb *rb;
	int cpu;		/* the CPU view shown, -1 for all */
	int nsnap;		/* staging queue copies */
	struct rb_stage_snap *snap; /* [nsnap] */
	uint32_t n;
	struct rb_iter_buf bufs[];
};

/* Where the committed data of @d ends now. Return: false if it has none. */
static bool rb_commit_end(struct trev_rb *rb, struct rb_desc *d, uint64_t *seq, uint32_t *off)
{
	for (int tries = 0; tries < 100; tries++) {
		uint64_t cs = atomic_load_explicit(&d->commit_seq, memory_order_acquire);
		uint32_t moves = rb_run_begin(d), page;
		struct rb_slot *slot;
		uint64_t commit;

		if (atomic_load_explicit(&d->tail_seq, memory_order_acquire) == RB_SEQ_NONE ||
		    rb_reader_page(rb, d, cs, &page) < 0)
			return false;
		slot = rb_slot_of(rb, page);
		if (atomic_load_explicit(&slot->seq, memory_order_acquire) != cs)
			continue;
		commit = atomic_load_explicit((_Atomic uint64_t *)(void *)(rb_page_ptr(rb, page) + 8),
					      memory_order_acquire);
		if (rb_seq_recheck(&slot->seq) != cs || !rb_run_same(d, moves))
			continue;
		*seq = cs;
		*off = (uint32_t)(commit & RB_COMMIT_MASK);
		if (*off > RB_DATA_SIZE)
			*off = RB_DATA_SIZE;
		return true;
	}
	return false;
}

struct trev_rb_iter *trev_rb_iter_start_cpu(struct trev_rb *rb, int cpu)
{
	struct trev_rb_iter *it;

	if (!rb || cpu < -1 || cpu >= rb->nr_cpus) {
		errno = EINVAL;
		return NULL;
	}
	it = calloc(1, sizeof(*it) + RB_MAX_BUFFERS * sizeof(struct rb_iter_buf));
	if (!it)
		return NULL;
	it->rb = rb;
	it->cpu = cpu;
	it->snap = calloc(cpu < 0 ? (size_t)rb->nr_cpus : 1, sizeof(*it->snap));
	if (!it->snap) {
		free(it);
		return NULL;
	}
	pthread_mutex_lock(&rb->read_lock);
	/* Staged events and buffer positions in one hold of the lock: an
	 * event is in exactly one of the two. */
	for (int v = cpu < 0 ? 0 : cpu; v < (cpu < 0 ? rb->nr_cpus : cpu + 1); v++) {
		if (trev__rb_stage_snap(rb, v, &it->snap[it->nsnap]) < 0) {
			pthread_mutex_unlock(&rb->read_lock);
			trev_rb_iter_finish(it);
			errno = ENOMEM;
			return NULL;
		}
		it->nsnap++;
	}
	for (uint32_t i = 0, hwm = trev__rb_hwm(rb); i < hwm; i++) {
		struct rb_desc *d = &rb->descs[i];
		struct rb_iter_buf *b = &it->bufs[it->n];

		struct rb_cursor c;

		if (!rb_desc_in_use(d))
			continue;
		trev__rb_consumer_pos(rb, i, &c);
		trev__rb_cursor_sync(rb, d, &c);	/* a copy: the consumer's stays */
		if (!rb_commit_end(rb, d, &b->end_seq, &b->end_off))
			continue;
		b->id = i;
		b->gen = c.gen;
		b->c.gen = c.gen;	/* rb_copy_page() checks it on an attached buffer */
		b->c.pos = c.pos;
		b->c.copy_seq = RB_SEQ_NONE;
		it->n++;
	}
	pthread_mutex_unlock(&rb->read_lock);
	return it;
}

struct trev_rb_iter *trev_rb_iter_start(struct trev_rb *rb)
{
	return trev_rb_iter_start_cpu(rb, -1);
}

/* The next event of buffer @b the iterator shows; 1 with @r. */
static int rb_iter_peek(struct trev_rb_iter *it, struct rb_iter_buf *b, struct rb_rec *r)
{
	struct trev_rb *rb = it->rb;
	struct rb_desc *d = &rb->descs[b->id];

	for (;;) {
		uint64_t skipped = 0;
		int got;

		if (atomic_load_explicit(&d->gen, memory_order_acquire) != b->gen) {
			b->done = true;	/* reset or reused meanwhile */
			return 0;
		}
		got = rb_pos_peek(rb, d, &b->c, &b->c.pos, r, b->end_seq, b->end_off, &skipped);
		if (got == 0)
			b->done = true;
		if (got != 1 || it->cpu < 0 || rb_view(rb, b->c.pos.cpu) == it->cpu)
			return got;
		rb_pos_advance(&b->c.pos, r);	/* another CPU's event */
	}
}

int trev_rb_iter_next(struct trev_rb_iter *it, struct trev_rb_event *ev)
{
	struct trev_rb *rb = it->rb;
	struct rb_iter_buf *best = NULL;
	struct rb_rec best_rec = { 0 }, r;
	int best_snap = -1, ret = 0;

	pthread_mutex_lock(&rb->read_lock);
	for (uint32_t k = 0; k < it->n; k++) {
		struct rb_iter_buf *b = &it->bufs[k];
		int got;

		if (b->done)
			continue;
		got = rb_iter_peek(it, b, &r);
		if (got < 0) {
			ret = got;
			goto out_unlock;
		}
		if (got == 1 && (!best || r.ts < best_rec.ts)) {
			best = b;
			best_rec = r;
		}
	}
	/* Staged events left the buffers first: they win a tie. */
	for (int k = 0; k < it->nsnap; k++) {
		if (!trev__rb_stage_snap_peek(&it->snap[k], &r))
			continue;
		if ((!best && best_snap < 0) || r.ts <= best_rec.ts) {
			best_snap = k;
			best_rec = r;
		}
	}
	if (best_snap >= 0) {
		trev__rb_stage_snap_next(&it->snap[best_snap], ev);
		ret = 1;
	} else if (best) {
		rb_fill_event(ev, &rb->descs[best->id], best->id, &best->c.pos, &best_rec);
		rb_pos_advance(&best->c.pos, &best_rec);
		ret = 1;
	}
out_unlock:
	pthread_mutex_unlock(&rb->read_lock);
	return ret;
}

void trev_rb_iter_finish(struct trev_rb_iter *it)
{
	if (!it)
		return;
	for (uint32_t k = 0; k < it->n; k++)
		free(it->bufs[k].c.copy);
	for (int k = 0; k < it->nsnap; k++)
		trev__rb_stage_snap_free(&it->snap[k]);
	free(it->snap);
	free(it);
}

/* ------------------------------------------------------------------ */
/* Statistics                                                           */

int trev_rb_buffers(struct trev_rb *rb, unsigned int *ids, int max)
{
	int n = 0;

	for (uint32_t i = 0; i < RB_MAX_BUFFERS; i++) {
		if (!rb_desc_in_use(&rb->descs[i]))
			continue;
		if (n < max)
			ids[n] = i;
		n++;
	}
	return n;
}

int trev_rb_buffer_comm(struct trev_rb *rb, unsigned int id, char comm[16])
{
	struct rb_desc *d;
	int alive;

	if (!rb || id >= RB_MAX_BUFFERS)
		return -ENOENT;
	d = &rb->descs[id];
	/* Under read_lock a buffer in use cannot be freed and given to another
	 * thread (rb_reclaim() holds it too), so the name is the owner's. */
	pthread_mutex_lock(&rb->read_lock);
	if (!rb_desc_in_use(d)) {
		pthread_mutex_unlock(&rb->read_lock);
		return -ENOENT;
	}
	/* The state first: a dead buffer's name was stored before it died. */
	alive = atomic_load(&d->state) == RB_DESC_LIVE;
	rb_comm_load(d, comm);
	pthread_mutex_unlock(&rb->read_lock);
	return alive;
}

int trev_rb_buffer_stats(struct trev_rb *rb, unsigned int id, struct trev_rb_stats *st)
{
	uint8_t copy[RB_PAGE_SIZE];
	struct rb_cursor lc;
	struct rb_desc *d;
	struct rb_rec r;
	uint64_t w, done, end_seq, skipped;
	uint32_t end_off;
	int got;

	if (id >= RB_MAX_BUFFERS)
		return -ENOENT;
	d = &rb->descs[id];
	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&rb->read_lock);
	if (!rb_desc_in_use(d)) {
		pthread_mutex_unlock(&rb->read_lock);
		return -ENOENT;
	}
	got = rb_peek_unread(rb, id, &lc, copy, &r, &skipped);
	if (got == 1)
		st->oldest_event_ts = r.ts;

	w = rb_load(&d->committed);
	st->written = w;
	st->read_events = rb_load(&d->read_events);
	st->overrun = rb_load(&d->overrun) + skipped;
	done = st->read_events + st->overrun;
	st->entries = w > done ? w - done : 0;
	if (got != 1)
		st->entries = 0;
	st->commit_overrun = rb_load(&d->commit_overrun);
	st->dropped_events = rb_load(&d->lost_total) - st->commit_overrun;
	if (rb_commit_end(rb, d, &end_seq, &end_off) && end_seq >= lc.pos.seq) {
		uint64_t bytes = (end_seq - lc.pos.seq) * RB_DATA_SIZE + end_off;

		st->bytes = bytes > lc.pos.off ? bytes - lc.pos.off : 0;
	}
	st->now_ts = trev_rb_clock_now(rb);
	st->tid = d->tid;
	st->alive = atomic_load(&d->state) == RB_DESC_LIVE;
	st->size_kb = d->nr_pages * (RB_PAGE_SIZE / 1024);
	rb_comm_load(d, st->comm);
	pthread_mutex_unlock(&rb->read_lock);
	return 0;
}

int trev_rb_cpu_stats(struct trev_rb *rb, int cpu, struct trev_rb_stats *st)
{
	uint8_t copy[RB_PAGE_SIZE];
	struct trev_rb_iter *it;
	struct trev_rb_event ev;
	struct rb_cursor lc;
	struct rb_stage *s;
	struct rb_rec r;
	uint64_t overrun = 0, sdropped;
	int ret;

	if (!rb_cpu_ok(rb, cpu) || !st)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	/* Another process's buffer read for its statistics only: its
	 * positions and staging are what it published, not what a borrower
	 * holds now (the borrower's share is not in the region). */
	if (rb->attached && !rb->borrower && atomic_load(&rb->hdr->lent))
		return -EBUSY;
	/* Overruns no consumer has met yet: attributed as a consumer will
	 * attribute them (rb_peek_buffer()), without moving its cursor. */
	pthread_mutex_lock(&rb->read_lock);
	for (uint32_t i = 0, hwm = trev__rb_hwm(rb); i < hwm; i++) {
		uint64_t skipped;

		ret = rb_peek_unread(rb, i, &lc, copy, &r, &skipped);
		if (ret < 0) {
			pthread_mutex_unlock(&rb->read_lock);
			return ret;
		}
		if (skipped && rb_view(rb, lc.pos.cpu) == cpu)
			overrun += skipped;
	}
	pthread_mutex_unlock(&rb->read_lock);

	it = trev_rb_iter_start_cpu(rb, cpu);
	if (!it)
		return -errno;
	while ((ret = trev_rb_iter_next(it, &ev)) == 1) {
		if (st->entries++ == 0)
			st->oldest_event_ts = ev.ts;
		st->bytes += rb_data_size(ev.len);
	}
	trev_rb_iter_finish(it);
	if (ret < 0)
		return ret;

	pthread_mutex_lock(&rb->read_lock);
	s = &rb->stage[cpu];
	st->read_events = s->read_events;
	st->overrun = s->buf_overrun + s->overrun + overrun;
	sdropped = s->dropped;
	if (!rb->attached && atomic_load_explicit(&rb->lent, memory_order_relaxed) &&
	    cpu < (int)RB_LENT_CPUS) {
		/* The borrower's counts, and the events it holds staged. */
		struct rb_lent_cpu *l = rb_lent(rb, (uint32_t)cpu);

		st->read_events += atomic_load(&l->read_events);
		st->overrun += atomic_load(&l->buf_overrun) + atomic_load(&l->overrun);
		sdropped += atomic_load(&l->dropped);
		st->entries += trev__rb_lent_entries(rb, cpu);
	}
	if (rb->attached) {
		/* The lender's own staging and counts, as it published them. */
		struct rb_view_pub *p = rb_pub(rb, (uint32_t)cpu);
		uint64_t staged = atomic_load(&p->entries);

		uint64_t oldest = atomic_load(&p->oldest_ts);

		if (staged && (st->entries == 0 || oldest < st->oldest_event_ts))
			st->oldest_event_ts = oldest;
		st->entries += staged;
		st->bytes += atomic_load(&p->bytes);
		st->read_events += atomic_load(&p->read_events);
		st->overrun += atomic_load(&p->overrun);
		sdropped += atomic_load(&p->dropped);
	}
	/* Unread events of recycled buffers: overwritten, in effect. */
	st->overrun += atomic_load_explicit(&rb->cpu_lost[cpu].recycled, memory_order_relaxed);
	st->commit_overrun = atomic_load_explicit(&rb->cpu_lost[cpu].commit_overrun,
						  memory_order_relaxed);
	st->dropped_events = atomic_load_explicit(&rb->cpu_lost[cpu].dropped,
						  memory_order_relaxed) + sdropped;
	st->written = st->entries + st->read_events + st->overrun + sdropped;
	pthread_mutex_unlock(&rb->read_lock);
	st->now_ts = trev_rb_clock_now(rb);
	return 0;
}
