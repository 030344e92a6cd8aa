/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-CPU views of per-thread buffers: the staging queues behind
 * per_cpu/cpuN/{trace,trace_pipe,trace_pipe_raw,stats}.
 *
 * ## Why staging
 *
 * The kernel has one buffer per CPU, so a per-CPU reader reads one buffer.
 * trev has one buffer per thread, and a thread's events are on whatever CPU
 * it ran on (rb_internal.h: CPU markers). A consuming reader of CPU N
 * therefore takes the globally oldest unread event over all buffers, as
 * trev_rb_consume() does (same merge, same wait for writes in flight):
 *
 *   event of CPU N   -> returned (or put in the page being built)
 *   event of CPU M   -> copied into staging[M], the reader goes on
 *
 * Reading CPU M later drains staging[M] first. Events leave the buffers
 * globally oldest first, so every staged event is older than every event
 * still in a buffer, and each CPU's stream (staging[M], then the buffers)
 * stays in time order. All readers see staged events: trev_rb_consume()
 * merges staging heads with buffer heads by time stamp (a staged event wins
 * a tie: it left the buffers first), trev_rb_read_page() hands out a staged
 * page when its first event is the oldest, the iterator merges a copy of
 * the queues, and stats count staged events as entries.
 *
 * ## Layout (process-private memory, under rb->read_lock)
 *
 *   rb->stage[M]:  head -> [rb_spage] -> [rb_spage] -> ... -> tail
 *
 *   rb_spage:  page[4096]   kernel-format page of CPU M's events
 *                           (docs/formats.md, "Ring-buffer pages"), no CPU
 *                           markers, no padding;
 *                           time extends where deltas need them
 *              meta[i]      tid, buffer id and CPU of the i-th event: what
 *                           the page cannot hold (the time stamp, payload
 *                           and length are in the page)
 *              rd, rd_off   the consumed prefix (trace_pipe reads events
 *                           off the head page one at a time)
 *              lost         events lost before the first unread event
 *
 * A page is handed out (trace_pipe_raw) by copying its unread records
 * behind a header whose time stamp is the one before them, with the
 * MISSED_EVENTS | MISSED_STORED flags and the count after the data when
 * lost != 0. Every staged page keeps 8 bytes free for that count, so a
 * count moved onto a page later (overwrite, below) always fits.
 *
 * A new page is started when the event does not fit, when the event comes
 * with a lost count (the kernel format has one count per page, before its
 * first event), or when its time stamp is older than the page's last one
 * (a write that stalled longer than the readers wait; the page header then
 * carries the older time and no delta goes negative).
 *
 * ## Bound and losses
 *
 * A queue holds at most size_pages pages: the per-thread buffer size
 * (buffer_size_kb), the amount a kernel per-CPU buffer of that size holds.
 * When a new page is needed and the queue is full:
 *
 *   overwrite mode  the head page is dropped: its unread events count as
 *                   overrun of CPU M, and they and the head's own lost
 *                   count are added to the next page's lost count
 *   discard mode    the new event is dropped: counted as dropped of CPU M
 *                   and, with the lost count it carried, kept in pending
 *
 * pending holds losses no page holds yet: the next event of CPU M carries
 * them, whether it is staged (it starts a new page with lost = pending) or
 * taken straight from a buffer by any consuming reader (ev.lost, or the
 * page's lost count). So a loss is reported exactly once: in ev.lost for
 * trev_rb_consume{,_cpu}(), in the page for trev_rb_read_page{,_cpu}(), and
 * always in trev_rb_cpu_stats().
 *
 * Staging consumes events from the per-thread buffers: they count there as
 * read (trev_rb_buffer_stats()), and the buffer's own losses (overrun,
 * drops) travel with the next event of that buffer, to whichever CPU that
 * event belongs. This is a userspace adaptation of the kernel's per-CPU
 * buffers, not a copy of them: the kernel never moves an event.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ring_buffer/rb_internal.h"

/* Pages kept for reuse after they are read; more are freed. */
#define RB_STAGE_KEEP	16u

static struct rb_spage *rb_spage_alloc(struct trev_rb *rb)
{
	struct rb_spage *p = rb->stage_free;

	if (p) {
		rb->stage_free = p->next;
		rb->stage_nr_free--;
		return p;
	}
	return malloc(sizeof(*p));
}

static void rb_spage_release(struct trev_rb *rb, struct rb_spage *p, bool may_free)
{
	if (may_free && rb->stage_nr_free >= RB_STAGE_KEEP) {
		free(p);
		return;
	}
	p->next = rb->stage_free;
	rb->stage_free = p;
	rb->stage_nr_free++;
}

/* Remove the head page of @s. */
static void rb_stage_unlink_head(struct trev_rb *rb, struct rb_stage *s)
{
	struct rb_spage *h = s->head;

	s->head = h->next;
	if (!s->head)
		s->tail = NULL;
	s->nr_pages--;
	rb_spage_release(rb, h, true);
}

int trev__rb_stage_init(struct trev_rb *rb)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	/* More CPUs share views (rb_view()): the region has pages for RB_VIEWS. */
	rb->nr_cpus = n < 1 ? 1 : n > (long)RB_VIEWS ? (int)RB_VIEWS : (int)n;
	rb->stage = calloc((size_t)rb->nr_cpus, sizeof(*rb->stage));
	if (!rb->stage)
		return -ENOMEM;
	return 0;
}

void trev__rb_stage_fini(struct trev_rb *rb)
{
	if (rb->stage)
		trev__rb_stage_clear(rb, true);
	while (rb->stage_free) {
		struct rb_spage *p = rb->stage_free;

		rb->stage_free = p->next;
		free(p);
	}
	rb->stage_nr_free = 0;
	free(rb->stage);
	rb->stage = NULL;
}

/*
 * Empty every queue and zero the per-CPU counters (the writers' refusals
 * in the region: trev__rb_views_reset()). @may_free is false in the child
 * after fork(), which must not call free(): pages go to the free list.
 */
void trev__rb_stage_clear(struct trev_rb *rb, bool may_free)
{
	for (int i = 0; i < rb->nr_cpus; i++) {
		struct rb_stage *s = &rb->stage[i];
		while (s->head) {
			struct rb_spage *h = s->head;

			s->head = h->next;
			rb_spage_release(rb, h, may_free);
		}
		memset(s, 0, sizeof(*s));
		rb_pub_touch(rb, i);
	}
}

/* Make room for a new page of @s; false if the event must be dropped. */
static bool rb_stage_make_room(struct trev_rb *rb, struct rb_stage *s, uint64_t *lost)
{
	uint32_t bound = atomic_load_explicit(&rb->hdr->size_pages, memory_order_relaxed);

	if (bound < RB_MIN_PAGES)
		bound = RB_MIN_PAGES;
	if (s->nr_pages < bound)
		return true;
	if (!atomic_load_explicit(&rb->hdr->overwrite, memory_order_relaxed))
		return false;
	while (s->nr_pages >= bound) {
		struct rb_spage *h = s->head;
		uint64_t unread = h->nr - h->rd, carry = h->lost + unread;

		s->overrun += unread;
		s->entries -= unread;
		s->bytes -= h->ev_bytes;
		rb_stage_unlink_head(rb, s);
		if (s->head)
			s->head->lost += carry;
		else
			*lost += carry;
	}
	return true;
}

/*
 * trev__rb_stage_push() - stage one event taken from a buffer
 * @r: the data record (payload, padded length, time stamp)
 * @lost: events of its buffer lost just before it
 * @cpu: the CPU it ran on; the queue is rb_view(@cpu)
 */
void trev__rb_stage_push(struct trev_rb *rb, const struct rb_rec *r, uint64_t lost,
			 uint32_t cpu, uint32_t buffer, int32_t tid)
{
	struct rb_stage *s = &rb->stage[rb_view(rb, cpu)];
	struct rb_spage *t = s->tail;
	uint32_t size = rb_data_size(r->len), extra = 0;
	uint64_t delta = 0;
	uint8_t *data, *payload;
	bool fresh;

	rb_pub_touch(rb, rb_view(rb, cpu));
	lost += s->pending;
	fresh = !t || lost || r->ts < t->last_ts || t->nr == RB_STAGE_MAX_EVENTS;
	if (!fresh) {
		delta = r->ts - t->last_ts;
		if (delta > RB_DELTA_MAX)
			extra = 8;
		fresh = t->size + extra + size > RB_STAGE_LIMIT;
	}
	if (fresh) {
		struct rb_spage *p = NULL;

		if (rb_stage_make_room(rb, s, &lost))
			p = rb_spage_alloc(rb);
		if (!p) {
			/* Discard mode (or no memory): the new event goes. */
			s->dropped++;
			s->pending = lost + 1;
			return;
		}
		p->next = NULL;
		p->size = 0;
		p->nr = 0;
		p->rd = 0;
		p->rd_off = 0;
		p->ev_bytes = 0;
		p->rd_ts = r->ts;
		p->last_ts = r->ts;
		p->lost = lost;
		rb_put64(p->page, r->ts);
		if (s->tail)
			s->tail->next = p;
		else
			s->head = p;
		s->tail = p;
		s->nr_pages++;
		t = p;
		delta = 0;
		extra = 0;
	}
	data = t->page + RB_PAGE_HDR;
	if (extra) {
		rb_put_time_extend(data + t->size, delta);
		t->size += 8;
		delta = 0;
	}
	payload = rb_put_data_hdr(data + t->size, r->len, (uint32_t)delta);
	memcpy(payload, r->payload, r->len);
	t->size += size;
	t->meta[t->nr].tid = tid;
	t->meta[t->nr].buffer = (uint16_t)buffer;
	t->meta[t->nr].cpu = (uint16_t)cpu;
	t->nr++;
	t->last_ts = r->ts;
	t->ev_bytes += rb_data_size(r->len);
	s->bytes += rb_data_size(r->len);
	s->entries++;
	s->pending = 0;
}

/* The next unread event of a staged page; time records are stepped over. */
static bool rb_spage_next(struct rb_spage *p, struct rb_rec *r)
{
	for (;;) {
		switch (rb_decode(p->page + RB_PAGE_HDR, p->size, p->rd_off, p->rd_ts, r)) {
		case RB_REC_DATA:
			return true;
		case RB_REC_END:
			return false;	/* cannot happen while rd < nr */
		default:
			p->rd_off += r->size;
			p->rd_ts = r->ts;
			break;
		}
	}
}

/* Fill @ev from the record @r at the read position of @p, and step over it. */
static void rb_spage_take(struct rb_spage *p, const struct rb_rec *r, struct trev_rb_event *ev)
{
	const struct rb_smeta *m = &p->meta[p->rd];

	ev->ts = r->ts;
	ev->lost = p->lost;
	ev->data = r->payload;
	ev->len = r->len;
	ev->cpu = m->cpu;
	ev->tid = m->tid;
	ev->buffer = m->buffer;
	p->lost = 0;
	p->rd++;
	p->rd_off += r->size;
	p->rd_ts = r->ts;
}

bool trev__rb_stage_peek(struct trev_rb *rb, int view, struct rb_rec *r)
{
	struct rb_spage *h = rb->stage[view].head;

	return h && rb_spage_next(h, r);
}

/* Consume the oldest staged event of @view; its payload is copied to @out. */
void trev__rb_stage_pop(struct trev_rb *rb, int view, struct trev_rb_event *ev, uint8_t *out)
{
	struct rb_stage *s = &rb->stage[view];
	struct rb_spage *h = s->head;
	struct rb_rec r;

	if (!rb_spage_next(h, &r))
		return;
	rb_spage_take(h, &r, ev);
	memcpy(out, r.payload, r.len);
	ev->data = out;
	s->entries--;
	s->read_events++;
	h->ev_bytes -= rb_data_size(r.len);
	s->bytes -= rb_data_size(r.len);
	rb_pub_touch(rb, view);
	if (h->rd == h->nr)
		rb_stage_unlink_head(rb, s);
}

/*
 * Is the head page of @view full: will no event of its CPU be added to it?
 * So when a newer page follows it (an event did not fit, came with a lost
 * count or went back in time), or when not even the smallest record fits.
 * A full-page read (TREV_RB_READ_FULL) hands out only such a page.
 */
bool trev__rb_stage_head_full(struct trev_rb *rb, int view)
{
	const struct rb_stage *s = &rb->stage[view];
	const struct rb_spage *h = s->head;

	return h && (h != s->tail || h->nr == RB_STAGE_MAX_EVENTS ||
		     h->size + rb_data_size(1) > RB_STAGE_LIMIT);
}

/*
 * Hand out the head page of @view: its unread records behind a fresh
 * header, with the lost flags and count; the page leaves the queue.
 */
void trev__rb_stage_take_page(struct trev_rb *rb, int view, uint8_t *page)
{
	struct rb_stage *s = &rb->stage[view];
	struct rb_spage *h = s->head;
	uint32_t len = h->size - h->rd_off;
	uint64_t commit = len;

	rb_put64(page, h->rd_ts);
	memcpy(page + RB_PAGE_HDR, h->page + RB_PAGE_HDR + h->rd_off, len);
	memset(page + RB_PAGE_HDR + len, 0, RB_DATA_SIZE - len);
	if (h->lost) {
		commit |= RB_MISSED_EVENTS | RB_MISSED_STORED;
		rb_put64(page + RB_PAGE_HDR + len, h->lost);
	}
	rb_put64(page + 8, commit);
	s->entries -= h->nr - h->rd;
	s->read_events += h->nr - h->rd;
	s->bytes -= h->ev_bytes;
	rb_pub_touch(rb, view);
	rb_stage_unlink_head(rb, s);
}

/* ------------------------------------------------------------------ */
/* Copies for the iterator                                              */

int trev__rb_stage_snap(struct trev_rb *rb, int view, struct rb_stage_snap *snap)
{
	struct rb_spage **link = &snap->head;

	snap->head = NULL;
	snap->view = view;
	for (struct rb_spage *p = rb->stage[view].head; p; p = p->next) {
		struct rb_spage *c = malloc(sizeof(*c));

		if (!c) {
			trev__rb_stage_snap_free(snap);
			return -ENOMEM;
		}
		memcpy(c, p, offsetof(struct rb_spage, meta) + p->nr * sizeof(p->meta[0]));
		memcpy(c->page, p->page, RB_PAGE_HDR + p->size);
		c->next = NULL;
		*link = c;
		link = &c->next;
	}
	return 0;
}

bool trev__rb_stage_snap_peek(struct rb_stage_snap *snap, struct rb_rec *r)
{
	/* Pages are freed here, not when their last event is taken: that
	 * event's payload stays valid until the next call. */
	while (snap->head && snap->head->rd == snap->head->nr) {
		struct rb_spage *h = snap->head;

		snap->head = h->next;
		free(h);
	}
	return snap->head && rb_spage_next(snap->head, r);
}

void trev__rb_stage_snap_next(struct rb_stage_snap *snap, struct trev_rb_event *ev)
{
	struct rb_rec r;

	if (trev__rb_stage_snap_peek(snap, &r))
		rb_spage_take(snap->head, &r, ev);
}

void trev__rb_stage_snap_free(struct rb_stage_snap *snap)
{
	while (snap->head) {
		struct rb_spage *h = snap->head;

		snap->head = h->next;
		free(h);
	}
}

/* ------------------------------------------------------------------ */
/* Handing staged events back to the lender                            */

/*
 * A borrower of the consuming position (rb_shm.c) that reads one CPU stages
 * the other CPUs' events in its own memory. Before it gives the position
 * back it hands them to the lender, whose readers then find them staged as
 * if they had staged them themselves (the events are older than any still
 * in the buffers, and newer than the lender's own staged ones). One
 * message is a run of records, each:
 *
 *	OFFSET	SIZE		MEANING
 *	0	4		view: the CPU view (< the lender's CPU count)
 *	4	4		nr: events on the page; 0: a lost count alone
 *	8	8		lost: events lost before the first of them
 *	16	8 * nr		per event: u32 tid, u16 buffer id, u16 CPU it ran on
 *	16+8nr	4096		when nr > 0, the page: time stamp before the
 *				first record, commit = data bytes (no flags),
 *				then data records and time extends only
 */
#define RB_BACK_HDR	16u

struct rb_back_meta {
	uint32_t tid;
	uint16_t buffer;
	uint16_t cpu;
};

_Static_assert(sizeof(struct rb_back_meta) == 8, "the wire's per-event entry");

static void rb_back_hdr(uint8_t *p, uint32_t view, uint32_t nr, uint64_t lost)
{
	rb_put32(p, view);
	rb_put32(p + 4, nr);
	rb_put64(p + 8, lost);
}

ssize_t trev_rb_stage_export(struct trev_rb *rb, void *buf, size_t size)
{
	uint8_t *out = buf;
	size_t len = 0;

	if (!rb || !buf)
		return -EINVAL;
	pthread_mutex_lock(&rb->read_lock);
	if (!rb->attached && !atomic_load(&rb->lent)) {
		pthread_mutex_unlock(&rb->read_lock);
		return -EINVAL;	/* the lender's staging goes to its borrower only */
	}
	for (int v = 0; v < rb->nr_cpus; v++) {
		struct rb_stage *s = &rb->stage[v];

		while (s->head) {
			struct rb_spage *h = s->head;
			uint32_t nr = h->nr - h->rd, data = h->size - h->rd_off;
			size_t need = RB_BACK_HDR + (size_t)nr * 8 + RB_PAGE_SIZE;
			uint8_t *page;

			if (size - len < need)
				goto out;
			rb_back_hdr(out + len, (uint32_t)v, nr, h->lost);
			for (uint32_t i = 0; i < nr; i++) {
				const struct rb_smeta *m = &h->meta[h->rd + i];
				struct rb_back_meta bm = { (uint32_t)m->tid, m->buffer, m->cpu };

				memcpy(out + len + RB_BACK_HDR + (size_t)i * 8, &bm, 8);
			}
			page = out + len + RB_BACK_HDR + (size_t)nr * 8;
			rb_put64(page, h->rd_ts);
			rb_put64(page + 8, data);
			memcpy(page + RB_PAGE_HDR, h->page + RB_PAGE_HDR + h->rd_off, data);
			memset(page + RB_PAGE_HDR + data, 0, RB_DATA_SIZE - data);
			len += need;
			s->entries -= nr;
			s->bytes -= h->ev_bytes;
			rb_pub_touch(rb, v);
			if (!rb->attached) {
				s->out_staged += nr;
				s->out_lost += h->lost;
			}
			rb_stage_unlink_head(rb, s);
		}
		if (s->pending) {
			if (size - len < RB_BACK_HDR)
				goto out;
			rb_back_hdr(out + len, (uint32_t)v, 0, s->pending);
			len += RB_BACK_HDR;
			rb_pub_touch(rb, v);
			if (!rb->attached)
				s->out_lost += s->pending;
			s->pending = 0;
		}
	}
	if (!rb->attached)
		trev__rb_sync(rb);
	pthread_mutex_unlock(&rb->read_lock);
	return (ssize_t)len;
out:
	/* @buf is full: the rest goes in the next call. */
	if (!rb->attached)
		trev__rb_sync(rb);
	pthread_mutex_unlock(&rb->read_lock);
	return len ? (ssize_t)len : -ENOSPC;
}

/*
 * Check one record at @p (@left bytes): its length, or 0 if it is not
 * well formed. @nr_cpus: the lender's views.
 */
static size_t rb_back_check(const uint8_t *p, size_t left, int nr_cpus)
{
	uint32_t view, nr, count = 0;
	struct rb_walk w;
	struct rb_rec r;
	size_t need;

	if (left < RB_BACK_HDR)
		return 0;
	view = rb_get32(p);
	nr = rb_get32(p + 4);
	if (view >= (uint32_t)nr_cpus || nr > RB_STAGE_MAX_EVENTS)
		return 0;
	if (nr == 0)
		return RB_BACK_HDR;
	need = RB_BACK_HDR + (size_t)nr * 8 + RB_PAGE_SIZE;
	if (left < need)
		return 0;
	for (uint32_t i = 0; i < nr; i++) {
		struct rb_back_meta m;

		memcpy(&m, p + RB_BACK_HDR + (size_t)i * 8, 8);
		if (m.buffer >= RB_MAX_BUFFERS || (uint32_t)m.cpu % (uint32_t)nr_cpus != view)
			return 0;
	}
	p += RB_BACK_HDR + (size_t)nr * 8;
	/* No flags, and no more data than a staged page holds. */
	if (rb_get64(p + 8) > RB_STAGE_LIMIT)
		return 0;
	rb_page_for_each(&w, p, &r) {
		if (r.kind == RB_REC_DATA)
			count++;
		else if (r.kind != RB_REC_TIME)
			return 0;
	}
	return w.off == w.size && count == nr ? need : 0;
}

int trev_rb_stage_import(struct trev_rb *rb, const void *buf, size_t len)
{
	const uint8_t *in = buf;
	size_t off, n;
	int ret = 0;

	if (!rb || (!buf && len))
		return -EINVAL;
	pthread_mutex_lock(&rb->read_lock);
	if (!rb->attached && !atomic_load(&rb->lent)) {
		ret = -EINVAL;	/* only a borrower has staged events to give */
		goto out_unlock;
	}
	/* All of it is checked before any of it is taken. */
	for (off = 0; off < len; off += n) {
		n = rb_back_check(in + off, len - off, rb->nr_cpus);
		if (!n) {
			ret = -EBADMSG;
			goto out_unlock;
		}
	}
	for (off = 0; off < len; off += n) {
		const uint8_t *p = in + off;
		uint32_t view = rb_get32(p), nr = rb_get32(p + 4), i = 0;
		uint64_t lost = rb_get64(p + 8);
		struct rb_stage *s = &rb->stage[view];
		struct rb_walk w;
		struct rb_rec r;

		n = rb_back_check(p, len - off, rb->nr_cpus);
		s->back_lost += lost;
		if (nr == 0) {
			s->pending += lost;
			rb_pub_touch(rb, (int)view);
			continue;
		}
		rb_page_for_each(&w, p + RB_BACK_HDR + (size_t)nr * 8, &r) {
			struct rb_back_meta m;

			if (r.kind != RB_REC_DATA)
				continue;
			memcpy(&m, p + RB_BACK_HDR + (size_t)i * 8, 8);
			trev__rb_stage_push(rb, &r, i == 0 ? lost : 0, m.cpu, m.buffer,
					    (int32_t)m.tid);
			i++;
		}
		s->back_staged += nr;
	}
	/* A borrower tells the lender it has them; a lender publishes its views. */
	trev__rb_sync(rb);
out_unlock:
	pthread_mutex_unlock(&rb->read_lock);
	return ret;
}
