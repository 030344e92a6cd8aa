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

/*
 * The calling thread's TLS entry of @rb: with static TLS its distance from
 * the thread pointer is the same in every thread, so x86-64 reads it
 * through %fs at rb->tls_off (the sanitizers do not follow %fs).
 */
#if defined(__x86_64__) && defined(__SEG_FS) && !defined(TREV_TSAN) && \
	!defined(__SANITIZE_ADDRESS__)
#define RB_TLS_AT(rb, off)	((const struct rb_tls __seg_fs *)(off))
#else
#define RB_TLS_AT(rb, off)	((void)(off), &trev__rb_tls[(rb)->set])
#endif

/*
 * The calling thread's busy word (rb_internal.h), taken on its first slow
 * write; until then a shared word no reader looks at (ring_buffer.c), so
 * the fast path need not test it. trev__rb_busy_word() finds any thread's.
 */
extern __thread _Atomic uint32_t *trev__rb_busy __attribute__((tls_model("initial-exec")));

/* Cold paths, in ring_buffer.c. */
/* @tsp: NULL, or where the record's time stamp goes when it is reserved. */
void *trev__rb_reserve_slow(struct trev_rb *rb, uint32_t len, struct rb_desc *d, uint32_t n,
			    uint64_t *tsp);
void trev__rb_leave_slow(struct trev_rb *rb, struct rb_desc *d, bool published, uint64_t seen);

/*
 * trev__rb_level() - the nesting level a record reserved now by the
 * calling thread would have in @rb: its writes in progress there.
 * Context: any thread, async-signal-safe.
 */
unsigned int trev__rb_level(struct trev_rb *rb);

/*
 * The busy word's increment at a time stamp and its decrement once the
 * claim shows the write: one instruction each on x86, which a signal
 * cannot split, and a handler leaves the word as it found it, so the
 * decrement restores the value the increment found. The decrement is a
 * release: everything before it is visible to a reader that sees it.
 */
static inline __attribute__((always_inline)) void rb_busy_inc(_Atomic uint32_t *busy)
{
#if defined(__x86_64__) && !defined(TREV_TSAN)
	__asm__ __volatile__("addl $1, %0" : "+m"(*(uint32_t *)busy));
#else
	atomic_store_explicit(busy, atomic_load_explicit(busy, memory_order_relaxed) + 1,
			      memory_order_relaxed);
#endif
}

static inline __attribute__((always_inline)) void rb_busy_dec(_Atomic uint32_t *busy)
{
#if defined(__x86_64__) && !defined(TREV_TSAN)
	__asm__ __volatile__("subl $1, %0" : "+m"(*(uint32_t *)busy) : : "memory");
#else
	atomic_store_explicit(busy, atomic_load_explicit(busy, memory_order_relaxed) - 1,
			      memory_order_release);
#endif
}

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

/*
 * rb_claim_fast() - claim @len bytes on the tail page at @ts on @cpu
 * Return: the payload, or NULL when rb_claim_slow() must do it: another
 * CPU, a time extend, no room.
 * Context: inside the claim (nesting holds @n + 1 + RB_NEST_CLAIM); @len
 * is 1..RB_SMALL_MAX (a compact record).
 */
static inline __attribute__((always_inline)) void *rb_claim_fast(struct trev_rb *rb,
								  struct rb_desc *d, uint32_t len,
								  uint64_t ts, uint32_t cpu,
								  uint32_t n)
{
	uint32_t words = (len + 3) / 4, off = d->tail_off;
	uint64_t delta = ts - d->last_ts;
	uint8_t *rec;

	/* A CPU of -1 (no rseq) never matches: d->cpu is a real CPU. The
	 * caller has checked 1 <= len <= RB_SMALL_MAX. */
	if (trev_unlikely(cpu != d->cpu || delta > RB_DELTA_MAX ||
			  off + 4 + words * 4 >
				  atomic_load_explicit(&d->tail_limit, memory_order_relaxed)))
		return NULL;
	d->resv_off[n] = off;
	d->tail_off = off + 4 + words * 4;
	d->last_ts = ts;
	d->next_entry++;
	rec = rb->pages + (uint64_t)d->tail_page * RB_PAGE_SIZE + RB_PAGE_HDR + off;
	rb_put32(rec, rb_hdr_word(words, (uint32_t)delta));
	return rec + 4;
}

/*
 * rb_reserve_fast_at() - the common case of trev_rb_reserve()
 * @tls_off, @fast_gen: rb->tls_off and rb->fast_gen, which a caller may
 *	keep nearer at hand than @rb
 * @tsp: NULL, or where the record's time stamp goes when it is reserved
 *	(a constant NULL costs nothing: the function is always inlined)
 *
 * Return: the payload, with what the commit needs in @w; or NULL, and the
 * caller returns trev__rb_reserve_slow(rb, len, w->d, w->n, ...), which goes on
 * from where this stopped (w->d NULL: from the start; else nesting holds
 * w->n + 1 + RB_NEST_CLAIM). Nothing here calls out of line, so callers
 * need no stack frame.
 * Context: any thread, async-signal-safe.
 */
static inline __attribute__((always_inline)) void *
rb_reserve_fast_at(struct trev_rb *rb, uintptr_t tls_off, uint64_t fast_gen, uint32_t len,
		   struct rb_wr *w, uint64_t *tsp)
{
	_Atomic uint32_t *busy = trev__rb_busy;
	struct rb_desc *d;
	uint32_t n;
	uint64_t ts;
	void *payload;

	w->d = NULL;
	w->n = 0;
	/* Long records (and len 0, which wraps) go the slow way; so do a
	 * thread without a buffer here and any write while tracing is off,
	 * without a time stamp. A predicted branch does not hold up the
	 * TSC read below. */
	d = RB_TLS_AT(rb, tls_off)->desc;
	if (trev_unlikely(len - 1 >= RB_SMALL_MAX || RB_TLS_AT(rb, tls_off)->set_gen != fast_gen))
		return NULL;
	/* The stamp first (rb_internal.h), made visible by the busy word. */
	rb_busy_inc(busy);
	atomic_signal_fence(memory_order_seq_cst);
#ifdef RB_HAVE_TSC
	ts = rb_tsc_ns();	/* other clocks set RB_GATE_CLOCK: not used then */
#endif
	n = atomic_load_explicit(&d->nesting, memory_order_relaxed);
	w->d = d;
	w->n = n;
	atomic_store_explicit(&d->nesting, n + 1 + RB_NEST_CLAIM, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	/* Pairs with membarrier() in rb_pause_all(). n >= RB_MAX_NEST also
	 * catches a CLAIM bit: we interrupted our own thread's claim. */
	if (trev_unlikely((atomic_load_explicit(&d->gate, memory_order_acquire) | n) >=
			  RB_MAX_NEST))
		goto out_unbusy;
#ifndef RB_HAVE_TSC
	ts = rb_now(rb);
#endif
	payload = rb_claim_fast(rb, d, len, ts, (uint32_t)*trev__rb_cpu_id, n);
	if (trev_unlikely(!payload))
		goto out_unbusy;
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&d->nesting, n + 1, memory_order_relaxed);
	/* Nesting shows the write from here on: a reader that sees busy
	 * back where it was sees it too. */
	rb_busy_dec(busy);
	if (tsp)
		*tsp = ts;
	return payload;

out_unbusy:
	/* The slow path stamps again, inside the claim. */
	rb_busy_dec(busy);
	return NULL;
}

/*
 * rb_reserve_fast_undo() - give back a reservation that rb_reserve_fast_at()
 * refused (@w as it left it), instead of going on in trev__rb_reserve_slow():
 * for a caller that writes its record another way. No bytes were claimed,
 * so the level steps out as a refusal does (n + 1 + CLAIM -> n), counting
 * nothing. Nothing is left for the level to publish: a handler that
 * wrote before the claim did so at a level of its own (published by it or
 * by the outermost level, as always), one inside the claim was refused.
 * Context: the writer, right after the refused rb_reserve_fast_at().
 */
static inline __attribute__((always_inline)) void rb_reserve_fast_undo(const struct rb_wr *w)
{
	if (w->d) {
		atomic_signal_fence(memory_order_seq_cst);
		atomic_store_explicit(&w->d->nesting, w->n, memory_order_release);
	}
}

static inline __attribute__((always_inline)) void *rb_reserve_fast(struct trev_rb *rb,
								    uint32_t len,
								    struct rb_wr *w)
{
	return rb_reserve_fast_at(rb, rb->tls_off,
				  atomic_load_explicit(&rb->fast_gen, memory_order_relaxed), len, w,
				  NULL);
}

/* rb_reserve_fast(), and the time stamp the record got in *@tsp. */
static inline __attribute__((always_inline)) void *rb_reserve_fast_ts(struct trev_rb *rb,
								       uint32_t len,
								       struct rb_wr *w,
								       uint64_t *tsp)
{
	return rb_reserve_fast_at(rb, rb->tls_off,
				  atomic_load_explicit(&rb->fast_gen, memory_order_relaxed), len, w,
				  tsp);
}

/*
 * What a commit calls when its level is not the only thing to publish. A
 * file whose code must leave the vector registers alone defines it, before
 * its includes, as a wrapper that saves them (ftrace/ft_fast.h).
 */
#ifndef RB_LEAVE_SLOW
#define RB_LEAVE_SLOW trev__rb_leave_slow
#endif

/*
 * rb_leave() - step out of level @n of @d; the outermost level publishes
 * @payload: the payload of the level's record
 *
 * Without RB_TAIL_PENDING no page was left since the last publish, which
 * came before this level's claim (only the outermost level publishes): the
 * tail page is the one @payload lies in, and pages are RB_PAGE_SIZE-aligned.
 * Context: the writer, after a reservation at level @n.
 */
static inline __attribute__((always_inline)) void rb_leave(struct trev_rb *rb, struct rb_desc *d,
							    uint32_t n, const void *payload)
{
	uint64_t seen, word;
	uint8_t *page = (uint8_t *)((uintptr_t)payload & ~(uintptr_t)(RB_PAGE_SIZE - 1));

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
		RB_LEAVE_SLOW(rb, d, false, seen);
		return;
	}
	atomic_store_explicit(rb_commit_word(page), word, memory_order_release);
	atomic_store_explicit(&d->nesting, 0, memory_order_release);
	atomic_signal_fence(memory_order_seq_cst);
	if (trev_unlikely(rb_load(&d->committed) != seen ||
			  atomic_load_explicit(&rb->hdr->waiters, memory_order_relaxed)))
		RB_LEAVE_SLOW(rb, d, true, seen);
}

/*
 * rb_commit() - trev_rb_commit() of the reservation @w describes, whose
 * payload is @payload
 * Context: the writer, async-signal-safe.
 */
static inline __attribute__((always_inline)) void rb_commit(struct trev_rb *rb,
							     const struct rb_wr *w,
							     const void *payload)
{
	rb_local_add(&w->d->committed, 1);
	rb_leave(rb, w->d, w->n, payload);
}

#endif /* TREV_RB_API_H */
