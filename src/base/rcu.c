/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev's RCU (docs/rcu.md): readers count their sections in a per-thread
 * reader, under one of two indices; a grace period waits for the readers
 * of the index that was current, after it made new sections count under
 * the other one, and makes the memory barriers the readers do not make
 * with membarrier(2).
 *
 * Why not liburcu here: its cheap read sides (urcu-memb, urcu-qsbr) need
 * every thread registered by the program and do not survive fork(); the
 * flavour a library can use, urcu-bp, costs about 20 instructions a
 * section, more than a tenth of an event. liburcu-bp stays: a thread that
 * cannot have a reader of its own (no membarrier(2), no memory) reads
 * under it, programs built against trev's first ABI read the probe arrays
 * under it, and every grace period here ends with one of its own.
 *
 * The grace period, as SRCU in the kernel does it with per-CPU counters:
 *
 *	updater (holds rcu_gp_lock)		reader
 *	publish the new pointer			i = trev__rcu_idx
 *	membarrier: every thread fences	cnt[i]++
 *	wait until no reader counts under !idx	p = load the pointer ... use p
 *	trev__rcu_idx = !idx			cnt[i]--
 *	wait until no reader counts under idx
 *	membarrier
 *
 * A reader that loaded the old pointer did so before its thread's fence
 * in the first membarrier, so its increment (which comes before the load)
 * is visible once that membarrier returns, under the index it read: the
 * current one, or, for a reader that read the index before the last grace
 * period's flip and was held up since, the other one. The two waits cover
 * both. A reader whose increment is not yet visible then loads the new
 * pointer. New sections count under the new index, so neither wait can be
 * kept going by them.
 */
#define _LGPL_SOURCE
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <urcu/urcu-bp.h>

#include <trev/rcu.h>

#include "base/log.h"
#include "base/rcu.h"

#define RCU_CHUNK	1024u			/* readers a chunk, 64 KiB */
#define RCU_CHUNKS	256u			/* up to 262,144 threads at once */

_Static_assert(sizeof(struct trev_rcu_reader) == 64, "one reader a cache line");

__thread struct trev_rcu_reader *trev__rcu_me __attribute__((tls_model("initial-exec")));
unsigned int trev__rcu_idx;

/* How the grace period makes the readers' barriers; RCU_MB_NONE: no reader of ours. */
enum rcu_mb { RCU_MB_UNKNOWN, RCU_MB_PRIVATE, RCU_MB_GLOBAL, RCU_MB_NONE };

static _Atomic int rcu_mb_mode;
static struct trev_rcu_reader *_Atomic rcu_chunks[RCU_CHUNKS];
static _Atomic uint32_t rcu_next;	/* readers ever handed out */
static _Atomic uint32_t rcu_hwm;	/* every reader below it is in a chunk */
static pthread_mutex_t rcu_gp_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic pid_t rcu_mb_registered;	/* the process that registered for PRIVATE */
static pthread_key_t rcu_key;
static bool rcu_key_ok;
static __thread bool rcu_registering __attribute__((tls_model("initial-exec")));
static _Atomic unsigned long rcu_waits;	/* readers a grace period found inside (tests) */

static long rcu_membarrier(int cmd)
{
	return syscall(SYS_membarrier, cmd, 0, 0);
}

/* Once, async-signal-safe: can this process have readers of its own? */
static int rcu_mode(void)
{
	int m = atomic_load_explicit(&rcu_mb_mode, memory_order_acquire);
	long q;

	if (trev_likely(m != RCU_MB_UNKNOWN))
		return m;
	/* TREV_RCU=bp: every section is liburcu-bp's (the fallback's test). */
	{
		const char *env = getenv("TREV_RCU");

		if (env && strcmp(env, "bp") == 0) {
			atomic_store(&rcu_mb_mode, RCU_MB_NONE);
			return RCU_MB_NONE;
		}
	}
	q = rcu_membarrier(MEMBARRIER_CMD_QUERY);
	if (q >= 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		m = RCU_MB_PRIVATE;
	else if (q >= 0 && (q & MEMBARRIER_CMD_GLOBAL))
		m = RCU_MB_GLOBAL;
	else
		m = RCU_MB_NONE;
	atomic_store_explicit(&rcu_mb_mode, m, memory_order_release);
	return m;
}

static struct trev_rcu_reader *rcu_reader(uint32_t i)
{
	struct trev_rcu_reader *chunk =
		atomic_load_explicit(&rcu_chunks[i / RCU_CHUNK], memory_order_acquire);

	return chunk ? &chunk[i % RCU_CHUNK] : NULL;
}

/* The chunk of reader @i, mapped by whichever thread gets there first. */
static struct trev_rcu_reader *rcu_chunk_get(uint32_t i)
{
	struct trev_rcu_reader *_Atomic *slot = &rcu_chunks[i / RCU_CHUNK];
	struct trev_rcu_reader *chunk = atomic_load(slot), *expected = NULL;
	void *p;

	if (chunk)
		return chunk;
	p = mmap(NULL, RCU_CHUNK * sizeof(*chunk), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (atomic_compare_exchange_strong(slot, &expected, (struct trev_rcu_reader *)p))
		return p;
	munmap(p, RCU_CHUNK * sizeof(*chunk));
	return expected;
}

/*
 * A reader for the calling thread: a free one, or a new one. Lock-free and
 * async-signal-safe; the reader is visible to grace periods (below
 * rcu_hwm) before the thread counts a section in it.
 */
static struct trev_rcu_reader *rcu_reader_get(void)
{
	int tid = (int)syscall(SYS_gettid);

	for (;;) {
		uint32_t hwm = atomic_load(&rcu_hwm), i;
		struct trev_rcu_reader *r;
		int free_owner = 0;

		for (i = 0; i < hwm; i++) {
			r = rcu_reader(i);
			free_owner = 0;
			if (r && atomic_load_explicit((_Atomic int *)&r->owner,
						      memory_order_relaxed) == 0 &&
			    atomic_compare_exchange_strong((_Atomic int *)&r->owner, &free_owner, tid))
				return r;
		}
		i = atomic_fetch_add(&rcu_next, 1);
		if (i >= RCU_CHUNK * RCU_CHUNKS || !rcu_chunk_get(i))
			return NULL;
		hwm = atomic_load(&rcu_hwm);
		while (hwm < i + 1 && !atomic_compare_exchange_weak(&rcu_hwm, &hwm, i + 1))
			;
		/* Below rcu_hwm now, where another thread may have taken it first. */
		r = rcu_reader(i);
		free_owner = 0;
		if (atomic_compare_exchange_strong((_Atomic int *)&r->owner, &free_owner, tid))
			return r;
	}
}

/* Thread exit (its key's destructor): the reader is free again. */
static void rcu_reader_put(void *p)
{
	struct trev_rcu_reader *r = p;

	trev__rcu_me = NULL;
	/* A thread that ends inside a section (pthread_exit() from a probe)
	 * holds nothing any more. */
	atomic_store_explicit((_Atomic unsigned int *)&r->cnt[0], 0, memory_order_release);
	atomic_store_explicit((_Atomic unsigned int *)&r->cnt[1], 0, memory_order_release);
	atomic_store_explicit((_Atomic int *)&r->owner, 0, memory_order_release);
}

struct trev_rcu_section trev__rcu_read_lock_slow(void)
{
	struct trev_rcu_reader *r = NULL;
	struct trev_rcu_section s;

	/* A handler that interrupted this thread's own registration reads under liburcu-bp. */
	if (rcu_mode() != RCU_MB_NONE && rcu_key_ok && !rcu_registering) {
		rcu_registering = true;
		r = rcu_reader_get();
		if (r) {
			trev__rcu_me = r;
			/* glibc's keys below 32 are a store in the thread's block. */
			(void)pthread_setspecific(rcu_key, r);
		}
		rcu_registering = false;
	}
	if (!r) {
		urcu_bp_read_lock();
		s.cnt = NULL;
		return s;
	}
	s.cnt = &r->cnt[__atomic_load_n(&trev__rcu_idx, __ATOMIC_RELAXED)];
	__trev_rcu_inc(s.cnt);
	return s;
}

/*
 * ThreadSanitizer does not see liburcu-bp's grace periods: a section's end
 * releases this word and trev__rcu_synchronize() acquires it, as the
 * tracepoints' own annotation does (<trev/tracepoint.h>).
 */
#if defined(__SANITIZE_THREAD__)
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
static int rcu_bp_tsan;
#define rcu_bp_tsan_release()	__tsan_release(&rcu_bp_tsan)
#define rcu_bp_tsan_acquire()	__tsan_acquire(&rcu_bp_tsan)
#else
#define rcu_bp_tsan_release()	do { } while (0)
#define rcu_bp_tsan_acquire()	do { } while (0)
#endif

void trev__rcu_read_unlock_slow(void)
{
	rcu_bp_tsan_release();
	urcu_bp_read_unlock();
}

/* Every thread of the process makes a full memory barrier. */
static void rcu_barrier_all(void)
{
	if (rcu_mode() == RCU_MB_PRIVATE) {
		pid_t pid = getpid();

		if (atomic_load(&rcu_mb_registered) != pid &&
		    rcu_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0)
			atomic_store(&rcu_mb_registered, pid);
		if (rcu_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0)
			return;
	}
	if (rcu_membarrier(MEMBARRIER_CMD_GLOBAL) == 0)
		return;
	/* It answered the query: readers count on it. As liburcu does, stop. */
	trev__log(TREV_LOG_ERR, "trev: membarrier() failed (%s): cannot end a grace period",
		  strerror(errno));
	abort();
}

/* Until no reader counts a section under @idx. */
static void rcu_wait_idx(unsigned int idx)
{
	uint32_t hwm = atomic_load(&rcu_hwm);

	for (uint32_t i = 0; i < hwm; i++) {
		struct trev_rcu_reader *r = rcu_reader(i);
		unsigned int spins = 0;

		if (!r)
			continue;
		while (atomic_load_explicit((_Atomic unsigned int *)&r->cnt[idx],
					    memory_order_acquire) != 0) {
			if (!spins)
				atomic_fetch_add_explicit(&rcu_waits, 1, memory_order_relaxed);
			/* A reader runs a few hundred nanoseconds; one held off the
			 * CPU needs it: spin briefly, then give it ours, then sleep. */
			if (++spins < 100) {
#if defined(__x86_64__) || defined(__i386__)
				__builtin_ia32_pause();
#endif
			} else if (spins < 1000) {
				sched_yield();
			} else {
				nanosleep(&(struct timespec){ 0, 100000 }, NULL);
			}
		}
	}
}

/* The grace period of trev's readers (the file's comment). Under rcu_gp_lock. */
static void rcu_gp(void)
{
	unsigned int idx = __atomic_load_n(&trev__rcu_idx, __ATOMIC_RELAXED);

	/* The barrier before rcu_hwm is read: a reader whose registration it
	 * does not show loads the new pointer. */
	rcu_barrier_all();
	if (!atomic_load(&rcu_hwm))
		return;
	rcu_wait_idx(idx ^ 1);
	__atomic_store_n(&trev__rcu_idx, idx ^ 1, __ATOMIC_SEQ_CST);
	rcu_wait_idx(idx);
	rcu_barrier_all();
}

void trev__rcu_synchronize(void)
{
	struct trev_rcu_reader *me = trev__rcu_me;

	if (me && (atomic_load((_Atomic unsigned int *)&me->cnt[0]) |
		   atomic_load((_Atomic unsigned int *)&me->cnt[1]))) {
		/* It would wait for itself for ever. */
		trev__log(TREV_LOG_ERR, "trev: a grace period was asked for inside a read section");
		abort();
	}
	pthread_mutex_lock(&rcu_gp_lock);
	if (rcu_mode() != RCU_MB_NONE)
		rcu_gp();
	pthread_mutex_unlock(&rcu_gp_lock);
	/* Readers of trev's first ABI, and threads without a reader of ours. */
	urcu_bp_synchronize_rcu();
	rcu_bp_tsan_acquire();
}

unsigned long trev__rcu_waits(void)
{
	return atomic_load(&rcu_waits);
}

unsigned int trev__rcu_readers_held(void)
{
	uint32_t hwm = atomic_load(&rcu_hwm);
	unsigned int n = 0;

	for (uint32_t i = 0; i < hwm; i++) {
		struct trev_rcu_reader *r = rcu_reader(i);

		n += r && atomic_load((_Atomic int *)&r->owner) != 0;
	}
	return n;
}

bool trev__rcu_own_readers(void)
{
	return rcu_mode() != RCU_MB_NONE;
}

static void rcu_atfork_prepare(void)
{
	pthread_mutex_lock(&rcu_gp_lock);
}

static void rcu_atfork_parent(void)
{
	pthread_mutex_unlock(&rcu_gp_lock);
}

/* The child's one thread keeps its reader; the others' were copied, not run. */
static void rcu_atfork_child(void)
{
	uint32_t hwm = atomic_load(&rcu_hwm);

	for (uint32_t i = 0; i < hwm; i++) {
		struct trev_rcu_reader *r = rcu_reader(i);

		if (!r)
			continue;
		if (r == trev__rcu_me) {
			atomic_store((_Atomic int *)&r->owner, (int)syscall(SYS_gettid));
			continue;
		}
		atomic_store((_Atomic unsigned int *)&r->cnt[0], 0);
		atomic_store((_Atomic unsigned int *)&r->cnt[1], 0);
		atomic_store((_Atomic int *)&r->owner, 0);
	}
	pthread_mutex_init(&rcu_gp_lock, NULL);
}

/*
 * Before any section: the key that frees a thread's reader, and the fork
 * handlers, ours and liburcu-bp's (its registry must not keep the parent's
 * other threads in the child, where its grace periods would wait for them).
 */
__attribute__((constructor(101))) static void rcu_init(void)
{
	rcu_key_ok = pthread_key_create(&rcu_key, rcu_reader_put) == 0;
	pthread_atfork(urcu_bp_before_fork, urcu_bp_after_fork_parent, urcu_bp_after_fork_child);
	pthread_atfork(rcu_atfork_prepare, rcu_atfork_parent, rcu_atfork_child);
}
