/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The writer's fast path, static inline for the ring buffer's API and for
 * the event layer: reserve and commit when the event fits on the tail page
 * on the same CPU without a time extend. Everything else falls back to the
 * cold trev__rb_*_slow() functions of ring_buffer.c. The protocol is in
 * rb_internal.h.
 */
#ifndef TREV_RB_API_H
#define TREV_RB_API_H

#include "ring_buffer/rb_internal.h"

/* What a reservation hands its commit: no second TLS lookup. */
struct rb_wr {
	struct rb_desc *d;	/* the writer's buffer */
	uint32_t n;		/* nesting level of the reservation, 0 = outermost */
};

/* Cold paths, in ring_buffer.c. */
struct rb_desc *trev__rb_writer_desc_slow(struct trev_rb *rb);
void *trev__rb_refused(struct rb_desc *d, uint32_t n);
void *trev__rb_reserve_slow(struct trev_rb *rb, struct rb_desc *d, uint32_t len, uint64_t ts,
			    uint32_t cpu, uint32_t n);
void trev__rb_leave_slow(struct trev_rb *rb, struct rb_desc *d, bool published, uint64_t seen);
uint32_t trev__rb_cpu_slow(void);

static inline _Atomic uint64_t *rb_commit_word(uint8_t *page)
{
	return (_Atomic uint64_t *)(void *)(page + 8);
}

/* The buffer's clock now. Context: a writer that passed the pause check. */
static inline uint64_t rb_now(struct trev_rb *rb)
{
#ifdef RB_HAVE_TSC
	if (trev_likely(atomic_load_explicit(&rb->tsc_clock, memory_order_relaxed)))
		return rb_tsc_ns();
#endif
	return trev__clock_slow((int)atomic_load_explicit(&rb->hdr->clock, memory_order_relaxed),
				&rb->hdr->counter);
}

/* The CPU the caller runs on; glibc's rseq area, else a system call. */
static inline uint32_t rb_cpu_now(void)
{
	int32_t cpu = *trev__rb_cpu_id;

	if (trev_likely(cpu >= 0))
		return (uint32_t)cpu;
	return trev__rb_cpu_slow();
}

/*
 * rb_reserve() - trev_rb_reserve(), and what its commit needs in @w
 * Context: any thread, async-signal-safe.
 */
static inline __attribute__((always_inline)) void *rb_reserve(struct trev_rb *rb, uint32_t len,
							       struct rb_wr *w)
{
	struct rb_tls *t = &trev__rb_tls[rb->set];
	struct rb_desc *d = t->desc;
	uint32_t n, off, size, cpu;
	uint64_t ts, delta;
	void *payload;

	if (trev_unlikely(!atomic_load_explicit(&rb->hdr->record_on, memory_order_relaxed)))
		return NULL;
	if (trev_unlikely(len - 1 >= TREV_RB_MAX_EVENT))
		return NULL;
	if (trev_unlikely(!d || t->set_gen != rb->set_gen)) {
		d = trev__rb_writer_desc_slow(rb);
		if (!d)
			return NULL;
	}
	n = atomic_load_explicit(&d->nesting, memory_order_relaxed);
	w->d = d;
	w->n = n;
	atomic_store_explicit(&d->nesting, n + 1 + RB_NEST_CLAIM, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	/* Pairs with membarrier() in rb_pause_all(). n >= RB_MAX_NEST also
	 * catches a CLAIM bit: we interrupted our own thread's claim. */
	if (trev_unlikely(atomic_load_explicit(&d->paused, memory_order_acquire) ||
			  n >= RB_MAX_NEST))
		return trev__rb_refused(d, n);
	ts = rb_now(rb);
	cpu = rb_cpu_now();
	size = rb_data_size(len);
	off = d->tail_off;
	delta = ts - d->last_ts;
	if (trev_unlikely(cpu != d->cpu || delta > RB_DELTA_MAX ||
			  off + size > atomic_load_explicit(&d->tail_limit, memory_order_relaxed)))
		return trev__rb_reserve_slow(rb, d, len, ts, cpu, n);
	d->resv_off[n] = off;
	d->tail_off = off + size;
	d->last_ts = ts;
	d->next_entry++;
	payload = rb_put_data_hdr(rb->pages + (uint64_t)d->tail_page * RB_PAGE_SIZE + RB_PAGE_HDR +
					  off,
				  len, (uint32_t)delta);
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&d->nesting, n + 1, memory_order_relaxed);
	return payload;
}

/*
 * rb_leave() - step out of level @n of @d; the outermost level publishes
 * Context: the writer, after a reservation at level @n.
 */
static inline __attribute__((always_inline)) void rb_leave(struct trev_rb *rb, struct rb_desc *d,
							    uint32_t n)
{
	uint64_t seen, word;

	if (trev_unlikely(n != 0)) {
		atomic_store_explicit(&d->nesting, n, memory_order_release);
		return;
	}
	/* Before the tail is read: a handler that commits after this load
	 * is seen by the re-check below. */
	seen = rb_load(&d->committed);
	atomic_signal_fence(memory_order_seq_cst);
	word = d->tail_off | d->tail_flags;
	if (trev_unlikely(word & RB_TAIL_PENDING)) {
		trev__rb_leave_slow(rb, d, false, seen);
		return;
	}
	atomic_store_explicit(rb_commit_word(rb->pages + (uint64_t)d->tail_page * RB_PAGE_SIZE),
			      word, memory_order_release);
	atomic_store_explicit(&d->nesting, 0, memory_order_release);
	atomic_signal_fence(memory_order_seq_cst);
	if (trev_unlikely(rb_load(&d->committed) != seen ||
			  atomic_load_explicit(&rb->hdr->waiters, memory_order_relaxed)))
		trev__rb_leave_slow(rb, d, true, seen);
}

/*
 * rb_commit() - trev_rb_commit() of the reservation @w describes
 * Context: the writer, async-signal-safe.
 */
static inline __attribute__((always_inline)) void rb_commit(struct trev_rb *rb,
							     const struct rb_wr *w)
{
	rb_local_add(&w->d->committed, 1);
	rb_leave(rb, w->d, w->n);
}

#endif /* TREV_RB_API_H */
