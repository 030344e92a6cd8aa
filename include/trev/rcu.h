/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev's RCU read side: what every trace_<name>() call and the function
 * tracers run around the probes they call (docs/rcu.md). A read section
 * is one increment of a counter of the calling thread and one decrement;
 * the updater's grace period (src/base/rcu.c) makes the memory barriers
 * with membarrier(2), so the reader makes none.
 *
 *	struct trev_rcu_section s = trev_rcu_read_lock();
 *	p = __atomic_load_n(&shared, __ATOMIC_ACQUIRE);	(rcu_dereference())
 *	... use *p ...
 *	trev_rcu_read_unlock(s);
 *
 * Sections nest (a signal handler that traces while its thread is inside
 * one). Inside a section nothing may wait for a grace period.
 */
#ifndef TREV_RCU_H
#define TREV_RCU_H

#include <trev/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One thread's reader: a count of its sections per index of the grace
 * period (trev__rcu_idx). Only the thread (and its signal handlers) write
 * it; the updater reads it. One cache line, so that threads do not share.
 */
struct trev_rcu_reader {
	unsigned int cnt[2];
	int owner;			/* thread id; 0: free */
	unsigned int pad[13];
};

/* The calling thread's reader; NULL until its first section. */
extern TREV_API __thread struct trev_rcu_reader *trev__rcu_me __attribute__((tls_model("initial-exec")));
/* The index new sections count under: 0 or 1, flipped by each grace period. */
extern TREV_API unsigned int trev__rcu_idx;

/*
 * A section's handle: the counter it incremented, or NULL when the section
 * is one of liburcu-bp's (a thread that could not have a reader of its own:
 * no membarrier(2) on this kernel, no memory; docs/rcu.md).
 */
struct trev_rcu_section {
	unsigned int *cnt;
};

/* The first section of a thread, and liburcu-bp's when there is no reader. */
TREV_API struct trev_rcu_section trev__rcu_read_lock_slow(void);
TREV_API void trev__rcu_read_unlock_slow(void);

/*
 * ThreadSanitizer sees the counters as atomics, which it understands, and
 * the decrement as a release that the grace period's scan acquires.
 */
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define __trev_rcu_inc(p)	__asm__ __volatile__("addl $1, %0" : "+m"(*(p)) : : "memory")
#define __trev_rcu_dec(p)	__asm__ __volatile__("subl $1, %0" : "+m"(*(p)) : : "memory")
#else
/* Load and store, not an atomic add: a signal handler between the two
 * leaves the counter as it found it. */
#define __trev_rcu_inc(p)							\
	do {									\
		__atomic_store_n((p), __atomic_load_n((p), __ATOMIC_RELAXED) + 1, \
				 __ATOMIC_RELAXED);				\
		__atomic_signal_fence(__ATOMIC_SEQ_CST);			\
	} while (0)
#define __trev_rcu_dec(p)							\
	__atomic_store_n((p), __atomic_load_n((p), __ATOMIC_RELAXED) - 1, __ATOMIC_RELEASE)
#endif

/*
 * trev_rcu_read_lock() - enter a read section.
 * Return: the handle trev_rcu_read_unlock() takes.
 * Context: any thread, async-signal-safe; never blocks.
 */
static inline __attribute__((always_inline)) struct trev_rcu_section trev_rcu_read_lock(void)
{
	struct trev_rcu_reader *r = trev__rcu_me;
	struct trev_rcu_section s;

	if (trev_unlikely(!r))
		return trev__rcu_read_lock_slow();
	s.cnt = &r->cnt[__atomic_load_n(&trev__rcu_idx, __ATOMIC_RELAXED)];
	__trev_rcu_inc(s.cnt);
	return s;
}

/* trev_rcu_read_unlock() - leave the section @s entered. */
static inline __attribute__((always_inline)) void trev_rcu_read_unlock(struct trev_rcu_section s)
{
	if (trev_likely(s.cnt != 0))
		__trev_rcu_dec(s.cnt);
	else
		trev__rcu_read_unlock_slow();
}

#ifdef __cplusplus
}
#endif

#endif /* TREV_RCU_H */
