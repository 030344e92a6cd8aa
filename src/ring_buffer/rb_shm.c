/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A trace buffer read from another process: the region's geometry, mapping
 * a region handed over as a memfd (trev_rb_attach()), and the consuming
 * position lent from the traced process to that reader and back.
 *
 * ## Who consumes
 *
 * A buffer has one consuming position (docs/ring-buffer.md). When a
 * recorder in another process maps the region to consume it, the traced
 * process lends it that position:
 *
 *   traced process                       recorder (trev_rb_attach())
 *   trev_rb_lend_consumer():
 *     read_lock; every cursor's position
 *     → its descriptor's handoff; lent++   cursors ← handoff positions
 *     (local consumers now get -EBUSY)     consumes: pages, merge, staging
 *                                           as in process; after every
 *                                           event and page: handoff ← pos,
 *                                           its counts → rb_lent_cpu
 *   trev_rb_return_consumer():
 *     read_lock; cursors ← handoff; lent--;
 *     the borrower's counts taken in; what
 *     it held and did not give back: lost
 *
 * The staging queues go with the position (rb_stage.c, "Handing staged
 * events back"): a per-CPU borrower takes the lender's staged events
 * before it reads and gives its own back before it lets go; the control
 * socket carries them (UNSTAGE, RESTAGE).
 *
 * When not lent, the process publishes its own positions in the same
 * handoffs, and its staging state per CPU view (struct rb_view_pub), after
 * every consuming call (trev__rb_sync()): a reader of the mapping computes
 * the statistics from them without asking the process anything.
 *
 * The handoff is a seqlock written by the one recorder (odd while it
 * writes). The traced process takes it back when the recorder's connection
 * closes, whether the recorder finished or died: a recorder killed in the
 * middle of a handoff write leaves it odd, and the buffer's cursor then
 * starts again at the page the recorder had published (read_seq), so the
 * rest of that page may be read twice. Events the recorder had taken but
 * not written out die with it, as pages in a killed trace-cmd's pipe do.
 *
 * ## Trusting nothing
 *
 * The recorder reads memory that the traced process can change at any
 * time. trev_rb_attach() checks the header against the file's size once
 * and keeps the geometry privately; the memfd must be sealed against
 * shrinking (no SIGBUS). Every descriptor field a reader uses is bounds-
 * checked where it is used (rb_reader_page(), rb_view()), page copies are
 * validated before decoding (rb_decode() never reads past a copy), and
 * every walk is bounded (RB_ATTACHED_MAX_STEPS), so a hostile or dead
 * writer yields wrong events at worst, never a crash or a hang; once its
 * writers are gone, a value a reader cannot get past is damage: -EUCLEAN,
 * and trev_rb_damaged() says where (rb_read.c, rb_damage_set()). The busy
 * words' area (trev_rb_attach_busy()) is checked the same way and mapped
 * read-only; a descriptor's index past its word count reads as idle, and a
 * word stuck busy costs a reader 20 ms per write and 100 ms per call at
 * most (rb_read.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ring_buffer/rb_internal.h"

_Static_assert(sizeof(struct rb_region) <= RB_PAGE_SIZE, "the region header is one page");

static uint64_t rb_round_page(uint64_t n)
{
	return (n + RB_PAGE_SIZE - 1) & ~(uint64_t)(RB_PAGE_SIZE - 1);
}

/*
 * trev__rb_geometry() - where the parts of a region of @nr_pages pages lie
 * @desc_off, @slot_off, @page_off: receive the offsets (each may be NULL)
 *
 * Return: the region's size in bytes.
 */
size_t trev__rb_geometry(uint32_t nr_pages, uint64_t *desc_off, uint64_t *slot_off,
			 uint64_t *page_off)
{
	uint64_t desc = RB_PAGE_SIZE + rb_round_page(trev__rb_views_size());
	uint64_t slot = desc + rb_round_page((uint64_t)RB_MAX_BUFFERS * sizeof(struct rb_desc));
	uint64_t page = slot + rb_round_page((uint64_t)nr_pages * sizeof(struct rb_slot));

	if (desc_off)
		*desc_off = desc;
	if (slot_off)
		*slot_off = slot;
	if (page_off)
		*page_off = page;
	return (size_t)(page + (uint64_t)nr_pages * RB_PAGE_SIZE);
}

_Static_assert(sizeof(struct rb_lent_cpu) == 64 && sizeof(struct rb_view_pub) == 64 &&
	       sizeof(struct rb_cpu_lost) == 64, "the views' pages: 64 bytes a view each");

/* Bytes of the per-CPU views' pages: the lent counts, the published state, the refusals. */
size_t trev__rb_views_size(void)
{
	return (size_t)RB_VIEWS * (sizeof(struct rb_lent_cpu) + sizeof(struct rb_view_pub) +
				   sizeof(struct rb_cpu_lost));
}

/* Descriptors a reader looks at: [0, hwm). */
uint32_t trev__rb_hwm(struct trev_rb *rb)
{
	uint32_t hwm;

	if (!rb->attached)
		return atomic_load_explicit(&rb->desc_hwm, memory_order_acquire);
	hwm = atomic_load_explicit(&rb->hdr->desc_hwm, memory_order_acquire);
	return hwm < RB_MAX_BUFFERS ? hwm : RB_MAX_BUFFERS;
}

/* ------------------------------------------------------------------ */
/* The hand-over position                                               */

static void rb_pos_to_shared(struct rb_pos_shared *o, const struct rb_pos *p)
{
	o->seq = p->seq;
	o->ts = p->ts;
	o->entry = p->entry;
	o->lost = p->lost;
	o->drops_seen = p->drops_seen;
	o->off = p->off;
	o->cpu = p->cpu;
	o->entered = p->entered;
	o->consumed = p->consumed;
}

/*
 * Publish the consuming position of @c in @d's handoff. Context: the one
 * consumer of @d (under its read_lock).
 */
void trev__rb_handoff_put(struct rb_desc *d, const struct rb_cursor *c)
{
	uint32_t seq = atomic_load_explicit(&d->handoff_seq, memory_order_relaxed);

	/* Odd before the fields: the acquire half keeps their stores after it
	 * (as the writer's slot seqlock does; a fence ThreadSanitizer cannot see). */
	atomic_exchange_explicit(&d->handoff_seq, seq | 1u, memory_order_acq_rel);
	d->handoff.valid = 1;
	d->handoff.gen = c->gen;
	rb_pos_to_shared(&d->handoff.pos, &c->pos);
	atomic_store_explicit(&d->handoff_seq, (seq | 1u) + 1, memory_order_release);
}

/* No position in @d's handoff any more. */
static void rb_handoff_clear(struct rb_desc *d)
{
	uint32_t seq = atomic_load_explicit(&d->handoff_seq, memory_order_relaxed);

	atomic_exchange_explicit(&d->handoff_seq, seq | 1u, memory_order_acq_rel);
	d->handoff.valid = 0;
	atomic_store_explicit(&d->handoff_seq, (seq | 1u) + 1, memory_order_release);
}

/*
 * Read @d's handoff into @pos and @gen, validated: an odd or changing
 * sequence, no position, or one for another gen of the buffer gives false.
 */
static bool rb_handoff_get(struct rb_desc *d, struct rb_pos *pos, uint64_t *gen)
{
	uint32_t s1 = atomic_load_explicit(&d->handoff_seq, memory_order_acquire);
	struct rb_handoff h;

	if (s1 & 1u)
		return false;
	rb_copy_racy((uint8_t *)&h, (const uint8_t *)&d->handoff, sizeof(h));
	if (rb_seq_recheck32(&d->handoff_seq) != s1 || h.valid != 1 ||
	    h.gen != atomic_load_explicit(&d->gen, memory_order_acquire))
		return false;
	*gen = h.gen;
	*pos = (struct rb_pos){
		.seq = h.pos.seq,
		.off = h.pos.off,
		.cpu = h.pos.cpu,
		.ts = h.pos.ts,
		.entry = h.pos.entry,
		.lost = h.pos.lost,
		.drops_seen = h.pos.drops_seen,
		.entered = h.pos.entered != 0,
		.consumed = h.pos.consumed != 0,
	};
	return true;
}

/*
 * trev__rb_consumer_pos() - a copy of buffer @i's consuming cursor, for a
 * pure reader (statistics, iterators): while the position is lent, the
 * borrower's latest handoff. The copy has no page copy of its own.
 * Under read_lock.
 */
void trev__rb_consumer_pos(struct trev_rb *rb, uint32_t i, struct rb_cursor *out)
{
	struct rb_pos pos;
	uint64_t gen;

	*out = rb->cursor[i];
	if (atomic_load_explicit(&rb->lent, memory_order_relaxed) &&
	    rb_handoff_get(&rb->descs[i], &pos, &gen)) {
		out->pos = pos;
		out->gen = gen;
		out->copy_seq = RB_SEQ_NONE;
	}
}

/* Drop the page copy of cursor @c: its position may have moved elsewhere. */
static void rb_cursor_forget_copy(struct rb_cursor *c)
{
	c->copy_seq = RB_SEQ_NONE;
	c->copy_size = 0;
	c->copy_final = false;
}

/*
 * At the end of a consuming call on an attached buffer: the positions that
 * moved, and the per-CPU counts, into the region, for the lender's
 * statistics and for when it takes its position back. Context: the
 * attached buffer's consumer, under read_lock.
 */
void trev__rb_lent_sync(struct trev_rb *rb)
{
	for (uint32_t i = 0, hwm = trev__rb_hwm(rb); i < hwm; i++) {
		if (!rb->cursor[i].handoff_dirty)
			continue;
		rb->cursor[i].handoff_dirty = false;
		trev__rb_handoff_put(&rb->descs[i], &rb->cursor[i]);
	}
	for (int v = 0; v < rb->nr_cpus && v < (int)RB_LENT_CPUS; v++) {
		struct rb_lent_cpu *l = rb_lent(rb, (uint32_t)v);
		const struct rb_stage *s = &rb->stage[v];
		uint64_t unreported = s->pending;

		for (const struct rb_spage *p = s->head; p; p = p->next)
			unreported += p->lost;
		atomic_store_explicit(&l->read_events, s->read_events, memory_order_relaxed);
		atomic_store_explicit(&l->buf_overrun, s->buf_overrun, memory_order_relaxed);
		atomic_store_explicit(&l->overrun, s->overrun, memory_order_relaxed);
		atomic_store_explicit(&l->dropped, s->dropped, memory_order_relaxed);
		atomic_store_explicit(&l->staged, s->entries, memory_order_relaxed);
		atomic_store_explicit(&l->unreported, unreported, memory_order_relaxed);
		atomic_store_explicit(&l->took, s->back_staged, memory_order_relaxed);
		atomic_store_explicit(&l->took_lost, s->back_lost, memory_order_relaxed);
	}
}

/* The oldest unread staged event of CPU view @v, or 0. */
static uint64_t rb_stage_oldest(struct trev_rb *rb, int v)
{
	struct rb_rec r;

	return trev__rb_stage_peek(rb, v, &r) ? r.ts : 0;
}

/*
 * trev__rb_sync() - at the end of a consuming call: publish what moved.
 * An attached buffer hands its positions and counts back to the lender
 * (trev__rb_lent_sync()); the process's own buffer publishes its consuming
 * positions (each descriptor's handoff, unless lent: then the borrower's
 * are there) and the state of the CPU views that changed (struct
 * rb_view_pub), so that a reader of the mapping computes the statistics
 * this process would. Under read_lock.
 */
void trev__rb_sync(struct trev_rb *rb)
{
	if (rb->attached) {
		rb->borrower = true;
		trev__rb_lent_sync(rb);
		return;
	}
	if (rb->pos_dirty && !atomic_load_explicit(&rb->lent, memory_order_relaxed)) {
		rb->pos_dirty = false;
		for (uint32_t i = 0, hwm = trev__rb_hwm(rb); i < hwm; i++) {
			struct rb_cursor *c = &rb->cursor[i];

			if (!c->handoff_dirty)
				continue;
			c->handoff_dirty = false;
			if (c->gen != UINT64_MAX)
				trev__rb_handoff_put(&rb->descs[i], c);
		}
	}
	for (uint32_t w = 0; w < RB_VIEWS / 64; w++) {
		while (rb->pub_dirty[w]) {
			int v = (int)(w * 64 + (uint32_t)__builtin_ctzll(rb->pub_dirty[w]));
			struct rb_view_pub *p = rb_pub(rb, (uint32_t)v);
			const struct rb_stage *st = &rb->stage[v];

			rb->pub_dirty[w] &= rb->pub_dirty[w] - 1;
			if (v >= rb->nr_cpus)
				continue;
			atomic_store_explicit(&p->entries, st->entries, memory_order_relaxed);
			atomic_store_explicit(&p->bytes, st->bytes, memory_order_relaxed);
			atomic_store_explicit(&p->oldest_ts, rb_stage_oldest(rb, v),
					      memory_order_relaxed);
			atomic_store_explicit(&p->read_events, st->read_events, memory_order_relaxed);
			atomic_store_explicit(&p->overrun, st->buf_overrun + st->overrun,
					      memory_order_relaxed);
			atomic_store_explicit(&p->dropped, st->dropped, memory_order_relaxed);
		}
	}
}

/*
 * trev__rb_views_reset() - zero the writers' refusals and the published
 * state of every CPU view (a reset of the buffer). Under read_lock.
 */
void trev__rb_views_reset(struct trev_rb *rb)
{
	for (int v = 0; v < rb->nr_cpus; v++) {
		atomic_store_explicit(&rb->cpu_lost[v].dropped, 0, memory_order_relaxed);
		atomic_store_explicit(&rb->cpu_lost[v].commit_overrun, 0, memory_order_relaxed);
		atomic_store_explicit(&rb->cpu_lost[v].recycled, 0, memory_order_relaxed);
		atomic_store_explicit(&rb->cpu_lost[v].orphan, 0, memory_order_relaxed);
		atomic_store_explicit(&rb->cpu_lost[v].orphan_taken, 0, memory_order_relaxed);
		rb_pub_touch(rb, v);
	}
	trev__rb_sync(rb);
}

/* Zero one view's borrower counts (atomically: a borrower may still be writing them). */
static void rb_lent_zero(struct rb_lent_cpu *l)
{
	atomic_store(&l->read_events, 0);
	atomic_store(&l->buf_overrun, 0);
	atomic_store(&l->overrun, 0);
	atomic_store(&l->dropped, 0);
	atomic_store(&l->staged, 0);
	atomic_store(&l->unreported, 0);
	atomic_store(&l->took, 0);
	atomic_store(&l->took_lost, 0);
}

/* Clear the borrower's counts of every CPU view. */
static void rb_lent_clear(struct trev_rb *rb)
{
	for (int v = 0; v < rb->nr_cpus; v++)
		rb_lent_zero(rb_lent(rb, (uint32_t)v));
	for (int v = 0; v < rb->nr_cpus; v++) {
		rb->stage[v].back_staged = 0;
		rb->stage[v].back_lost = 0;
		rb->stage[v].out_staged = 0;
		rb->stage[v].out_lost = 0;
	}
}

/*
 * The borrower's share of CPU view @v's events and losses: what it
 * staged, with what this process handed it (even before it said it took
 * them: it may die first), less what it handed back. Under read_lock.
 */
static void rb_lent_held(struct trev_rb *rb, int v, uint64_t *events, uint64_t *lost)
{
	struct rb_lent_cpu *l = rb_lent(rb, (uint32_t)v);
	const struct rb_stage *s = &rb->stage[v];
	uint64_t e = atomic_load_explicit(&l->staged, memory_order_relaxed) + s->out_staged;
	uint64_t u = atomic_load_explicit(&l->unreported, memory_order_relaxed) + s->out_lost;
	uint64_t te = atomic_load_explicit(&l->took, memory_order_relaxed) + s->back_staged;
	uint64_t tu = atomic_load_explicit(&l->took_lost, memory_order_relaxed) + s->back_lost;

	*events = e > te ? e - te : 0;
	*lost = u > tu ? u - tu : 0;
}

/*
 * Take the borrower's counts of CPU view @v into its staging counters, at
 * the return: what it consumed and dropped, and what it staged but did not
 * hand back (it died, or could not send them): those events are lost, as
 * overrun of the CPU, and reported with its next event. Under read_lock.
 */
static void rb_lent_take(struct trev_rb *rb, int v)
{
	struct rb_lent_cpu *l = rb_lent(rb, (uint32_t)v);
	struct rb_stage *s = &rb->stage[v];
	uint64_t gone, owed;

	rb_lent_held(rb, v, &gone, &owed);
	s->read_events += atomic_load(&l->read_events);
	s->buf_overrun += atomic_load(&l->buf_overrun);
	s->overrun += atomic_load(&l->overrun) + gone;
	s->dropped += atomic_load(&l->dropped);
	s->pending += gone + owed;
	rb_lent_zero(l);
	s->back_staged = s->back_lost = s->out_staged = s->out_lost = 0;
}

/*
 * trev__rb_lent_entries() - the borrower's staged events of CPU view @v
 * that it has not handed back yet: entries of the CPU that no cursor of
 * this process covers. Under read_lock, while lent.
 */
uint64_t trev__rb_lent_entries(struct trev_rb *rb, int v)
{
	uint64_t events, lost;

	if (v >= (int)RB_LENT_CPUS)
		return 0;
	rb_lent_held(rb, v, &events, &lost);
	return events;
}

int trev_rb_lend_consumer(struct trev_rb *rb)
{
	if (rb->attached)
		return -EPERM;
	pthread_mutex_lock(&rb->read_lock);
	if (atomic_load(&rb->lent)) {
		pthread_mutex_unlock(&rb->read_lock);
		return -EBUSY;	/* one consumer: two would split the events */
	}
	rb_lent_clear(rb);
	for (uint32_t i = 0, hwm = trev__rb_hwm(rb); i < hwm; i++) {
		struct rb_desc *d = &rb->descs[i];

		if (atomic_load(&d->state) == RB_DESC_FREE)
			continue;
		trev__rb_cursor_sync(rb, d, &rb->cursor[i]);
		trev__rb_handoff_put(d, &rb->cursor[i]);
	}
	atomic_fetch_add(&rb->lent, 1);
	atomic_store(&rb->hdr->lent, 1);
	pthread_mutex_unlock(&rb->read_lock);
	return 0;
}

bool trev_rb_consumer_lent(const struct trev_rb *rb)
{
	return atomic_load(&rb->hdr->lent) != 0;
}

int trev_rb_return_consumer(struct trev_rb *rb)
{
	if (rb->attached)
		return -EPERM;
	pthread_mutex_lock(&rb->read_lock);
	if (atomic_load(&rb->lent) == 0) {
		pthread_mutex_unlock(&rb->read_lock);
		return -EINVAL;
	}
	for (uint32_t i = 0, hwm = trev__rb_hwm(rb); i < hwm; i++) {
		struct rb_desc *d = &rb->descs[i];
		struct rb_cursor *c = &rb->cursor[i];
		struct rb_pos pos;
		uint64_t gen;

		if (atomic_load(&d->state) == RB_DESC_FREE)
			continue;
		rb_cursor_forget_copy(c);
		if (rb_handoff_get(d, &pos, &gen)) {
			c->pos = pos;
			c->gen = gen;
		} else if (c->gen == atomic_load(&d->gen)) {
			/* Torn by a recorder that died writing it: the page it
			 * published, from its start. */
			uint64_t seq = atomic_load(&d->read_seq);

			if (seq > c->pos.seq)
				c->pos = (struct rb_pos){ .seq = seq, .entry = c->pos.entry,
							  .drops_seen = c->pos.drops_seen };
		}
		/* The process's own position, published again (trev__rb_sync()). */
		if (c->gen == atomic_load(&d->gen))
			trev__rb_handoff_put(d, c);
		else
			rb_handoff_clear(d);
		c->handoff_dirty = false;
	}
	/* What the borrowers counted per CPU is this buffer's history now. */
	for (int v = 0; v < rb->nr_cpus && v < (int)RB_LENT_CPUS; v++) {
		rb_lent_take(rb, v);
		rb_pub_touch(rb, v);
	}
	atomic_fetch_sub(&rb->lent, 1);
	atomic_store(&rb->hdr->lent, 0);
	trev__rb_sync(rb);
	pthread_mutex_unlock(&rb->read_lock);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Attaching                                                            */

/* Check the header of a region of @size bytes. Return: its page count, or 0. */
static uint32_t rb_region_check(const struct rb_region *h, uint64_t size)
{
	uint64_t desc, slot, page;

	if (h->magic != RB_MAGIC || h->version != RB_VERSION || h->page_size != RB_PAGE_SIZE ||
	    h->nr_pages < RB_MIN_PAGES || h->nr_pages > size / RB_PAGE_SIZE)
		return 0;
	if (trev__rb_geometry(h->nr_pages, &desc, &slot, &page) > size || h->desc_off != desc ||
	    h->slot_off != slot || h->page_off != page)
		return 0;
	return h->nr_pages;
}

/*
 * A file another process handed over, before it is mapped: a regular file
 * of at least @min bytes, sealed against shrinking (unsealed, that process
 * could shrink it under the mapping: SIGBUS), whose first @len bytes go to
 * @head. Return: its size, -EINVAL, -EPERM (not sealed) or -errno.
 */
static int64_t rb_sealed_head(int memfd, uint64_t min, void *head, size_t len)
{
	struct stat st;
	int seals;

	if (fstat(memfd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < 0 || (uint64_t)st.st_size < min)
		return -EINVAL;
	seals = fcntl(memfd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK))
		return -EPERM;
	if (pread(memfd, head, len, 0) != (ssize_t)len)
		return -EINVAL;
	return (int64_t)st.st_size;
}

int trev_rb_attach(struct trev_rb **out, int memfd)
{
	struct rb_region head;
	struct trev_rb *rb;
	uint64_t desc_off;
	uint32_t nr_pages;
	int64_t size;
	int err;
	void *p;

	trev__rb_global_init();	/* the clocks, for statistics' "now" */
	size = rb_sealed_head(memfd, 1, &head, sizeof(head));
	if (size < 0)
		return (int)size;
	nr_pages = rb_region_check(&head, (uint64_t)size);
	if (!nr_pages)
		return -EPROTO;

	rb = calloc(1, sizeof(*rb));
	if (!rb)
		return -ENOMEM;
	rb->attached = true;
	rb->region_size = trev__rb_geometry(nr_pages, &desc_off, &rb->slot_off, &rb->page_off);
	rb->nr_pages = nr_pages;
	err = trev__rb_stage_init(rb);
	if (err < 0)
		goto out_free_rb;
	rb->memfd = fcntl(memfd, F_DUPFD_CLOEXEC, 0);
	if (rb->memfd < 0) {
		err = -errno;
		goto out_free_stage;
	}
	p = mmap(NULL, rb->region_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
		 rb->memfd, 0);
	if (p == MAP_FAILED) {
		err = -errno;
		goto out_close;
	}
	rb->hdr = p;
	rb->base = p;
	rb->descs = (struct rb_desc *)(void *)(rb->base + desc_off);
	rb->pages = rb->base + rb->page_off;
	rb->cpu_lost = rb_region_cpu_lost(rb->base);
	/* Nothing of this process writes here: every write is refused. */
	atomic_store(&rb->fast_gen, RB_GEN_OFF);
	pthread_mutex_init(&rb->read_lock, NULL);
	for (uint32_t i = 0; i < RB_MAX_BUFFERS; i++) {
		struct rb_cursor *c = &rb->cursor[i];

		c->gen = UINT64_MAX;
		c->copy_seq = RB_SEQ_NONE;
		if (rb_handoff_get(&rb->descs[i], &c->pos, &c->gen))
			continue;
		c->gen = UINT64_MAX;
	}
	*out = rb;
	return 0;

out_close:
	close(rb->memfd);
out_free_stage:
	trev__rb_stage_fini(rb);
out_free_rb:
	free(rb);
	return err;
}

int trev_rb_attach_busy(struct trev_rb *rb, int memfd)
{
	struct rb_busy_head head;
	uint64_t words;
	int64_t size;
	void *p;

	if (!rb || !rb->attached || rb->busy_map)
		return -EINVAL;
	size = rb_sealed_head(memfd, 2 * RB_BUSY_STRIDE, &head, sizeof(head));
	if (size < 0)
		return (int)size;
	words = (uint64_t)size / RB_BUSY_STRIDE - 1;
	if (head.magic != RB_BUSY_MAGIC || head.version != RB_BUSY_VERSION || !head.words ||
	    head.words > words)
		return -EPROTO;
	/* Read only: a reader never changes another process's words. */
	p = mmap(NULL, ((size_t)head.words + 1) * RB_BUSY_STRIDE, PROT_READ,
		 MAP_SHARED | MAP_NORESERVE, memfd, 0);
	if (p == MAP_FAILED)
		return -errno;
	rb->busy_words = head.words;
	rb->busy_map = p;
	return 0;
}

void trev_rb_writers_gone(struct trev_rb *rb)
{
	if (rb && rb->attached)
		atomic_store_explicit(&rb->writers_gone, true, memory_order_relaxed);
}

/* trev_rb_destroy() of an attached buffer. */
void trev__rb_detach(struct trev_rb *rb)
{
	if (rb->busy_map)
		munmap((void *)rb->busy_map, ((size_t)rb->busy_words + 1) * RB_BUSY_STRIDE);
	for (uint32_t i = 0; i < RB_MAX_BUFFERS; i++)
		free(rb->cursor[i].copy);
	trev__rb_stage_fini(rb);
	pthread_mutex_destroy(&rb->read_lock);
	munmap(rb->base, rb->region_size);
	close(rb->memfd);
	free(rb);
}
