/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Ring buffer writers and lifecycle: the region, the page pool, per-thread
 * buffers, reserve/commit/discard, pausing, reset, resize and fork.
 * The protocol is described in rb_internal.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ring_buffer/rb_api.h"

__thread struct rb_tls trev__rb_tls[RB_MAX_SETS] __attribute__((tls_model("initial-exec")));
__thread const volatile int32_t *trev__rb_cpu_id __attribute__((tls_model("initial-exec")));
__thread int trev__rb_tid __attribute__((tls_model("initial-exec")));

static pthread_mutex_t sets_lock = PTHREAD_MUTEX_INITIALIZER;
static struct trev_rb *sets[RB_MAX_SETS];
static uint64_t sets_gen;
static pthread_key_t exit_key;
static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static int membarrier_ok;
/* Odd while a dying process's trace is read (trev__rb_crash_stop()): no buffer is made. */
static _Atomic uint32_t crash_gen;

/* ------------------------------------------------------------------ */
/* Small system helpers                                                */

int trev__gettid_slow(void)
{
	trev__rb_tid = (int)syscall(SYS_gettid);
	return trev__rb_tid;
}

void trev__membarrier(void)
{
	if (membarrier_ok &&
	    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
		return;
	/* Slow but correct: a barrier on every CPU of the system. */
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) != 0)
		atomic_thread_fence(memory_order_seq_cst);
}

/* Where rb_cpu_now() reads the CPU: glibc's rseq area, if registered. */
static void rb_cpu_id_init(void)
{
	static const int32_t no_cpu_id = -1;

#if defined(__x86_64__) || defined(__aarch64__)
	if (__rseq_size > 0) {
		const struct rseq *rs =
			(const struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);

		trev__rb_cpu_id = (const volatile int32_t *)&rs->cpu_id;
		return;
	}
#endif
	trev__rb_cpu_id = &no_cpu_id;
}

/* The CPU the caller runs on; glibc's rseq area, else a system call. */
static inline uint32_t rb_cpu_now(void)
{
	int32_t cpu = *trev__rb_cpu_id;

	if (trev_likely(cpu >= 0))
		return (uint32_t)cpu;
	return (uint32_t)sched_getcpu();
}

/* ------------------------------------------------------------------ */
/* The pool lock: a spin lock that knows its owner, so a signal handler */
/* of the owning thread gives up instead of deadlocking.               */

int trev__rb_pool_lock(struct trev_rb *rb, bool may_wait)
{
	int self = trev__gettid(), expected = 0;

	while (!atomic_compare_exchange_weak_explicit(&rb->pool_lock, &expected, self,
						      memory_order_acquire, memory_order_relaxed)) {
		if (expected == self || !may_wait)
			return -EDEADLK;
		expected = 0;
		sched_yield();
	}
	return 0;
}

void trev__rb_pool_unlock(struct trev_rb *rb)
{
	atomic_store_explicit(&rb->pool_lock, 0, memory_order_release);
}

/* Take pages [@first, @first + @nr). */
static void rb_take_pages(struct trev_rb *rb, uint32_t first, uint32_t nr)
{
	memset(rb->page_map + first, 1, nr);
	atomic_fetch_add(&rb->hdr->used_pages, nr);
}

/*
 * A run of @nr free pages: the first that fits. For a dead buffer's kept
 * pages (rb_shrink_dead(), @dead) the end of the smallest free stretch
 * that fits, even past the cap for a moment: they fill the gaps between
 * whole buffers, and do not split the free space whole buffers need.
 */
static int rb_alloc_pages(struct trev_rb *rb, uint32_t nr, uint32_t *first, bool dead)
{
	struct rb_region *hdr = rb->hdr;
	uint32_t total = hdr->nr_pages, run = 0, best = UINT32_MAX, best_end = 0;

	if (!dead && atomic_load(&hdr->used_pages) + nr > atomic_load(&hdr->cap_pages))
		return -ENOMEM;
	for (uint32_t i = 0; i <= total; i++) {
		if (i < total && !rb->page_map[i]) {
			run++;
			if (!dead && run == nr) {
				*first = i + 1 - nr;
				rb_take_pages(rb, *first, nr);
				return 0;
			}
			continue;
		}
		if (run >= nr && run < best) {
			best = run;
			best_end = i;
		}
		run = 0;
	}
	if (best == UINT32_MAX)
		return -ENOMEM;
	*first = best_end - nr;
	rb_take_pages(rb, *first, nr);
	return 0;
}

int trev__rb_alloc_run(struct trev_rb *rb, uint32_t nr, uint32_t *first)
{
	return rb_alloc_pages(rb, nr, first, false);
}

void trev__rb_free_run(struct trev_rb *rb, uint32_t first, uint32_t nr)
{
	memset(rb->page_map + first, 0, nr);
	atomic_fetch_sub(&rb->hdr->used_pages, nr);
	/* Give the memory back; the pages read as zero next time. */
	madvise(rb_page_ptr(rb, first), (size_t)nr * RB_PAGE_SIZE, MADV_REMOVE);
	atomic_fetch_add_explicit(&rb->free_gen, 1, memory_order_release);
}

/* ------------------------------------------------------------------ */
/* Descriptors                                                          */

/* The gate bit of a buffer whose clock the fast path cannot read. */
static uint32_t rb_gate_clock(struct trev_rb *rb)
{
#ifdef RB_HAVE_TSC
	return atomic_load(&rb->tsc_clock) ? 0 : RB_GATE_CLOCK;
#else
	(void)rb;
	return 0;
#endif
}

/* Empty a buffer: no pages, no data, counters zero. Caller has paused it. */
void trev__rb_desc_clear(struct trev_rb *rb, struct rb_desc *d)
{
	for (uint32_t i = 0; i < d->nr_pages; i++)
		atomic_store_explicit(&rb_slot_of(rb, d->first_page + i)->seq, RB_SEQ_NONE,
				      memory_order_relaxed);
	atomic_store_explicit(&d->tail_seq, RB_SEQ_NONE, memory_order_relaxed);
	atomic_store_explicit(&d->first_seq, 0, memory_order_relaxed);
	d->tail_page = d->first_page;
	d->tail_off = 0;
	atomic_store_explicit(&d->tail_limit, 0, memory_order_relaxed);
	d->tail_flags = 0;
	d->cpu = UINT32_MAX;
	d->last_ts = 0;
	d->next_entry = 0;
	d->lost_seen = 0;
	atomic_store_explicit(&d->lost_total, 0, memory_order_relaxed);
	atomic_store_explicit(&d->committed, 0, memory_order_relaxed);
	atomic_store_explicit(&d->commit_overrun, 0, memory_order_relaxed);
	atomic_store_explicit(&d->commit_seq, 0, memory_order_relaxed);
	atomic_store_explicit(&d->read_seq, 0, memory_order_relaxed);
	atomic_store_explicit(&d->overrun, 0, memory_order_relaxed);
	atomic_store_explicit(&d->read_events, 0, memory_order_relaxed);
	atomic_fetch_add_explicit(&d->gen, 1, memory_order_release);
}

/* Under the pool lock. */
void trev__rb_free_desc(struct trev_rb *rb, struct rb_desc *d)
{
	trev__rb_free_run(rb, d->first_page, d->nr_pages);
	atomic_fetch_add_explicit(&d->gen, 1, memory_order_relaxed);
	atomic_store_explicit(&d->state, RB_DESC_FREE, memory_order_release);
}

/*
 * Events a dead buffer still holds: committed, and neither read (staged
 * events count as read) nor counted as overrun by a reader. Exact for a
 * dead buffer whose consuming position is not lent: its counters move
 * only under the reader lock then, which the caller holds.
 */
static uint64_t rb_unread(struct rb_desc *d)
{
	uint64_t w = rb_load(&d->committed), r = rb_load(&d->read_events) + rb_load(&d->overrun);

	return w > r ? w - r : 0;
}

/*
 * Free dead buffer @d, whose unread events (@unread) are lost with it:
 * they, and the losses its consuming cursor was yet to report with its
 * next event (its pending count, the drops noted on pages it had not
 * entered), become orphans of the CPU of its last event, which the
 * consuming reader reports with a later event of that CPU. The drops of
 * its last writes no page carries went to the orphans at the thread's exit
 * (rb_thread_exit()). Under the reader lock and the pool lock, not lent.
 */
static void rb_free_dead(struct trev_rb *rb, struct rb_desc *d, uint64_t unread)
{
	struct rb_cursor *c = &rb->cursor[d - rb->descs];
	int v = rb_view(rb, d->cpu == UINT32_MAX ? 0 : d->cpu);
	uint64_t owed = unread;

	if (c->gen == atomic_load(&d->gen))
		owed += c->pos.lost + (d->lost_seen > c->pos.drops_seen ?
				       d->lost_seen - c->pos.drops_seen : 0);
	else
		owed += d->lost_seen;
	if (unread) {
		atomic_fetch_add(&rb->hdr->reclaimed_lost, unread);
		atomic_fetch_add_explicit(&rb->cpu_lost[v].recycled, unread, memory_order_relaxed);
	}
	rb_orphan_add(rb, v, owed);
	trev__rb_free_desc(rb, d);
}

static void rb_move_pages(struct trev_rb *rb, struct rb_desc *d, uint32_t first, uint32_t nr);

/*
 * rb_shrink_dead() - move dead buffer @d's unread pages into a run of
 * their own, and free the rest of its run
 * @lent: another process holds the consuming position
 *
 * A dead buffer's pages are final, and a reader needs only those from the
 * consuming position's page on: a thread that wrote one event keeps one
 * page, not buffer_size_kb. The position is the cursor's (not lent), or
 * the page the borrower published (read_seq), which it never moves back
 * from; pages before it are read. Their sequence numbers stay, so every
 * position into the buffer stays valid, and a borrower reading meanwhile
 * reads the same bytes in either run (rb_run_begin()). The new run may
 * take the region past the cap for a moment: it is freed at once and
 * more than makes up for it. Under the reader lock and the pool lock.
 * Return: true if pages were freed.
 */
static bool rb_shrink_dead(struct trev_rb *rb, struct rb_desc *d, bool lent)
{
	uint64_t tail = atomic_load_explicit(&d->tail_seq, memory_order_relaxed);
	uint64_t from = atomic_load_explicit(&d->first_seq, memory_order_relaxed), read;
	struct rb_cursor *c = &rb->cursor[d - rb->descs];
	uint32_t first;

	if (tail == RB_SEQ_NONE)
		return false;
	if (tail + 1 >= d->nr_pages && from < tail + 1 - d->nr_pages)
		from = tail + 1 - d->nr_pages;
	read = atomic_load_explicit(&d->read_seq, memory_order_acquire);
	if (!lent && c->gen == atomic_load(&d->gen) && c->pos.seq < read)
		read = c->pos.seq;
	if (read > from)
		from = read;
	if (from > tail)
		from = tail;
	if (tail - from + 1 >= d->nr_pages)
		return false;
	/* Elsewhere, in a gap (rb_alloc_pages()): the whole run comes free
	 * for a new buffer. */
	if (rb_alloc_pages(rb, (uint32_t)(tail - from + 1), &first, true) == 0) {
		rb_move_pages(rb, d, first, (uint32_t)(tail - from + 1));
		return true;
	}
	if (from == tail) {
		/* No page free (a region of whole runs): one page stays where
		 * it is, as a run of its own; the next ones move next to it. */
		uint32_t old_first = d->first_page, old_nr = d->nr_pages;

		first = rb_page_of_seq(d, tail);
		atomic_store_explicit(&d->first_seq, tail, memory_order_release);
		rb_run_store(d, first, 1);
		atomic_fetch_add_explicit(&d->moves, 1, memory_order_release);
		if (first > old_first)
			trev__rb_free_run(rb, old_first, first - old_first);
		if (first + 1 < old_first + old_nr)
			trev__rb_free_run(rb, first + 1, old_first + old_nr - first - 1);
		return true;
	}
	return false;
}

/*
 * Make room for a new buffer under the cap: free the dead buffers that are
 * read; else shrink the dead buffers to the pages they still need
 * (rb_shrink_dead()); else, in overwrite mode, recycle the dead buffer
 * with the oldest data, its unread events counted (rb_free_dead()). Not
 * while another process holds the consuming position: its reads of a dead
 * buffer are not under our lock, so what it has read is not known
 * exactly; a thread that then finds no room has its events refused and
 * counted. Under the reader lock and the pool lock.
 * Return: true if something was freed.
 */
static bool rb_reclaim(struct trev_rb *rb)
{
	struct rb_desc *descs = rb->descs, *oldest = NULL;
	bool lent = atomic_load_explicit(&rb->lent, memory_order_relaxed), freed = false;

	for (uint32_t i = 0; i < RB_MAX_BUFFERS; i++) {
		struct rb_desc *d = &descs[i];

		if (atomic_load_explicit(&d->state, memory_order_acquire) != RB_DESC_DEAD)
			continue;
		if (rb_unread(d) == 0) {
			if (lent)
				trev__rb_free_desc(rb, d);
			else
				rb_free_dead(rb, d, 0);
			freed = true;
			continue;
		}
		if (!oldest || d->last_ts < oldest->last_ts)
			oldest = d;
	}
	if (!freed && oldest) {
		/* All of them: each costs a copy of the pages it keeps. */
		for (uint32_t i = 0; i < RB_MAX_BUFFERS; i++)
			if (atomic_load_explicit(&descs[i].state, memory_order_acquire) ==
				    RB_DESC_DEAD &&
			    rb_shrink_dead(rb, &descs[i], lent))
				freed = true;
	}
	if (!freed && oldest && !lent && atomic_load(&rb->hdr->overwrite)) {
		rb_free_dead(rb, oldest, rb_unread(oldest));
		freed = true;
	}
	return freed;
}

/* A free descriptor and a run of pages for it; under the pool lock. */
static struct rb_desc *rb_desc_take(struct trev_rb *rb, uint32_t nr, uint32_t *first)
{
	for (uint32_t i = 0; i < RB_MAX_BUFFERS; i++) {
		struct rb_desc *d = &rb->descs[i];

		if (atomic_load_explicit(&d->state, memory_order_acquire) != RB_DESC_FREE)
			continue;
		return trev__rb_alloc_run(rb, nr, first) < 0 ? NULL : d;
	}
	return NULL;
}

/*
 * Recycling or shrinking a dead buffer changes what readers look at, so it
 * needs the reader lock too. A writer cannot block on it for good (it may
 * be a signal handler of a thread that holds it), so it tries a while,
 * then waits at most 200 ms (a reader or the control thread serving a
 * recorder holds it briefly; a sanitizer's build is slow), and then gives
 * up: the caller counts the event as refused.
 */
static bool rb_reader_trylock(struct trev_rb *rb)
{
	struct timespec until;

	for (int i = 0; i < 100; i++) {
		if (pthread_mutex_trylock(&rb->read_lock) == 0)
			return true;
		sched_yield();
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 200 * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	return pthread_mutex_timedlock(&rb->read_lock, &until) == 0;
}

/* ------------------------------------------------------------------ */
/* Busy words: one per thread, in a memfd a recorder may map too         */

/*
 * The busy area (a memfd, sealed at its size, mapped MAP_SHARED; docs/ring-
 * buffer.md "Busy words"): entry 0 is a header, entry i the busy word of
 * the thread holding index i (a descriptor's busy_ix). A reader in another
 * process maps it (trev_rb_attach_busy()) so that it sees a writer between
 * its time stamp and its claim, as the process's own readers do.
 *
 *   OFFSET      SIZE   MEANING
 *   0           4      RB_BUSY_MAGIC
 *   4           4      RB_BUSY_VERSION
 *   8           4      words: RB_BUSY_MAX
 *   64 * i      4      word i: the thread's time stamps not yet claimed
 *   64 * i + 4  4      owner i: thread id, 0 when free (ours only)
 */
struct rb_busy {
	alignas(64) _Atomic uint32_t word;	/* the thread's time stamps not yet claimed */
	_Atomic int owner;			/* thread id, 0 when free */
};
_Static_assert(sizeof(struct rb_busy) == RB_BUSY_STRIDE, "one busy word a cache line");
_Static_assert(sizeof(struct rb_busy_head) <= sizeof(struct rb_busy), "the header is entry 0");

static struct rb_busy *rb_busy_area;	/* RB_BUSY_MAX + 1 entries; NULL: none */
static int rb_busy_fd = -1;		/* its memfd, -1 when private or none */
static _Atomic uint32_t rb_busy_hwm;	/* no index above it was ever taken */
/*
 * Where trev__rb_busy points while the thread has no word of its own: any
 * thread may count on it, no reader looks at it. Such a thread has no
 * buffer (its TLS entries send it to the slow path), or a buffer whose
 * gate has RB_GATE_NOBUSY, so no write of it takes the fast path.
 */
static _Atomic uint32_t rb_busy_none;
__thread _Atomic uint32_t *trev__rb_busy __attribute__((tls_model("initial-exec"))) =
	&rb_busy_none;
static __thread uint32_t rb_busy_ix __attribute__((tls_model("initial-exec")));
/* Set when no word could be had: the thread then never gets one, so that
 * none of its buffers lacks the word its fast path would use. */
static __thread bool rb_busy_failed __attribute__((tls_model("initial-exec")));

static size_t rb_busy_size(void)
{
	return (size_t)(RB_BUSY_MAX + 1) * sizeof(struct rb_busy);
}

/*
 * Map a fresh busy area at @addr (NULL: anywhere): a sealed memfd, or
 * private memory when no memfd can be had (nobody else then sees the
 * words). Sets rb_busy_area and rb_busy_fd; on failure, leaves them.
 */
static int rb_busy_map(void *addr)
{
	int fd = memfd_create("trev-busy", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	int flags = MAP_SHARED | MAP_NORESERVE | (addr ? MAP_FIXED : 0);
	struct rb_busy *p;

	if (fd >= 0 && (ftruncate(fd, (off_t)rb_busy_size()) < 0 ||
			fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)) {
		close(fd);
		fd = -1;
	}
	p = mmap(addr, rb_busy_size(), PROT_READ | PROT_WRITE,
		 fd >= 0 ? flags : flags ^ MAP_SHARED ^ MAP_PRIVATE ^ MAP_ANONYMOUS, fd, 0);
	if (p == MAP_FAILED) {
		int err = -errno;

		if (fd >= 0)
			close(fd);
		return err;
	}
	*(struct rb_busy_head *)(void *)p = (struct rb_busy_head){
		.magic = RB_BUSY_MAGIC, .version = RB_BUSY_VERSION, .words = RB_BUSY_MAX };
	rb_busy_area = p;
	rb_busy_fd = fd;
	return 0;
}

static struct rb_busy *rb_busy_slot(uint32_t busy_ix)
{
	return &rb_busy_area[busy_ix];
}

_Atomic uint32_t *trev__rb_busy_word(uint32_t busy_ix)
{
	return &rb_busy_slot(busy_ix)->word;
}

int trev_rb_busy_memfd(void)
{
	return rb_busy_fd;
}

/*
 * The calling thread's busy word, taken on its first slow write: lock-free
 * and async-signal-safe (the area exists from the first trev_rb_create()).
 * Return: its index (>= 1), or 0 when there is none (the buffer's gate
 * then has RB_GATE_NOBUSY: every write takes the slow path, which needs
 * none).
 */
static uint32_t rb_busy_get(void)
{
	int tid = trev__gettid();

	if (rb_busy_ix || rb_busy_failed)
		return rb_busy_ix;
	for (uint32_t i = 1; rb_busy_area && i <= RB_BUSY_MAX; i++) {
		struct rb_busy *b = &rb_busy_area[i];
		uint32_t hwm = atomic_load_explicit(&rb_busy_hwm, memory_order_relaxed);
		int free_owner = 0;

		if (atomic_load_explicit(&b->owner, memory_order_relaxed) != 0 ||
		    !atomic_compare_exchange_strong(&b->owner, &free_owner, tid))
			continue;
		atomic_store_explicit(&b->word, 0, memory_order_relaxed);
		while (hwm < i && !atomic_compare_exchange_weak(&rb_busy_hwm, &hwm, i))
			;
		rb_busy_ix = i;
		trev__rb_busy = &b->word;
		return rb_busy_ix;
	}
	rb_busy_failed = true;
	return 0;
}

/* Thread exit, after its buffers are marked dead: the word is free again. */
static void rb_busy_put(void)
{
	uint32_t ix = rb_busy_ix;

	if (!ix)
		return;
	trev__rb_busy = &rb_busy_none;
	rb_busy_ix = 0;
	atomic_store_explicit(&rb_busy_slot(ix)->owner, 0, memory_order_release);
}

unsigned int trev__rb_busy_taken(void)
{
	uint32_t hwm = atomic_load(&rb_busy_hwm);
	unsigned int n = 0;

	for (uint32_t i = 1; rb_busy_area && i <= hwm; i++)
		n += atomic_load(&rb_busy_area[i].owner) != 0;
	return n;
}

/*
 * In the child after fork(): a fresh area at the same address, which the
 * parent does not share (its threads' words would be the child's too);
 * the one thread keeps its index, idle.
 */
static void rb_busy_child(void)
{
	int parent_fd = rb_busy_fd;

	if (!rb_busy_area)
		return;
	if (rb_busy_map(rb_busy_area) < 0)
		abort();	/* the old mapping is still there, shared: unsafe to go on */
	if (parent_fd >= 0)
		close(parent_fd);
	atomic_store(&rb_busy_hwm, rb_busy_ix);
	if (rb_busy_ix)
		atomic_store(&rb_busy_slot(rb_busy_ix)->owner, trev__gettid());
}

static rb_cold struct rb_desc *rb_desc_new(struct trev_rb *rb)
{
	uint32_t nr = atomic_load(&rb->hdr->size_pages), first = 0;
	struct rb_desc *d;

	if (trev__rb_pool_lock(rb, true) < 0)
		return NULL;
	/* A dying process's trace is read: no buffer made, none recycled under it. */
	if (atomic_load(&crash_gen) & 1) {
		trev__rb_pool_unlock(rb);
		return NULL;
	}
	d = rb_desc_take(rb, nr, &first);
	/* The reader lock is often held by another new thread that makes
	 * room (rb_reclaim(), a bounded job): look again for what it freed
	 * for as long as it does; for any other holder, a few times. */
	for (int tries = 0; !d && tries < 10;) {
		trev__rb_pool_unlock(rb);
		if (!rb_reader_trylock(rb)) {
			if (!atomic_load_explicit(&rb->reclaiming, memory_order_relaxed))
				tries++;
			if (trev__rb_pool_lock(rb, true) < 0)
				return NULL;
			d = rb_desc_take(rb, nr, &first);
			continue;
		}
		if (trev__rb_pool_lock(rb, true) < 0) {
			pthread_mutex_unlock(&rb->read_lock);
			return NULL;
		}
		atomic_store_explicit(&rb->reclaiming, true, memory_order_relaxed);
		/* Another thread may have made room meanwhile: recycle nothing
		 * then. Several may be needed: a run of nr pages must come free. */
		d = rb_desc_take(rb, nr, &first);
		while (!d && rb_reclaim(rb))
			d = rb_desc_take(rb, nr, &first);
		atomic_store_explicit(&rb->reclaiming, false, memory_order_relaxed);
		pthread_mutex_unlock(&rb->read_lock);
		break;
	}
	if (!d) {
		trev__rb_pool_unlock(rb);
		return NULL;
	}
	if (d - rb->descs >= (long)atomic_load(&rb->desc_hwm)) {
		atomic_store_explicit(&rb->desc_hwm, (uint32_t)(d - rb->descs) + 1, memory_order_release);
		atomic_store_explicit(&rb->hdr->desc_hwm, (uint32_t)(d - rb->descs) + 1,
				      memory_order_release);
	}
	rb_run_store(d, first, nr);
	d->tid = trev__gettid();
	d->busy_ix = rb_busy_get();
	{
		char name[16] = "";

		prctl(PR_GET_NAME, name);
		rb_comm_store(d, name);
	}
	atomic_store_explicit(&d->nesting, 0, memory_order_relaxed);
	atomic_store_explicit(&d->gate, rb_gate_clock(rb) | (d->busy_ix ? 0 : RB_GATE_NOBUSY),
			      memory_order_relaxed);
	trev__rb_desc_clear(rb, d);
	atomic_store_explicit(&d->state, RB_DESC_LIVE, memory_order_release);
	trev__rb_pool_unlock(rb);
	pthread_setspecific(exit_key, (void *)1);
	return d;
}

/*
 * Thread exit: the thread's buffers stay, marked dead, until read or reused,
 * with the name the thread had last (a reader shows it for them).
 */
static void rb_thread_exit(void *unused)
{
	char name[16] = "";

	(void)unused;
	prctl(PR_GET_NAME, name);
	pthread_mutex_lock(&sets_lock);
	for (unsigned int i = 0; i < RB_MAX_SETS; i++) {
		struct rb_tls *t = &trev__rb_tls[i];
		struct trev_rb *rb = sets[i];

		struct rb_desc *d = t->desc;
		uint64_t set_gen = t->set_gen;

		if (!d)
			continue;
		/* No more writes to it, not even from a signal handler: readers
		 * take a dead buffer's last page as final. */
		t->desc = NULL;
		t->set_gen = 0;
		atomic_signal_fence(memory_order_seq_cst);
		if (rb && rb->set_gen == set_gen) {
			uint64_t lost = rb_load(&d->lost_total);

			trev__rb_pool_lock(rb, true);
			/* The name the thread ends with (it may have been set after
			 * its first event), published by the release store of DEAD. */
			rb_comm_store(d, name);
			/* Drops of its last writes: no page of it will carry them. */
			if (lost > d->lost_seen)
				rb_orphan_add(rb, rb_view(rb, rb_cpu_now()), lost - d->lost_seen);
			atomic_store_explicit(&d->state, RB_DESC_DEAD, memory_order_release);
			trev__rb_pool_unlock(rb);
		}
	}
	rb_busy_put();
	pthread_mutex_unlock(&sets_lock);
}

/* ------------------------------------------------------------------ */
/* Writer: pages                                                        */

/* Leave the current page: its final size, and the lost count behind it. */
static void rb_finish_page(struct trev_rb *rb, struct rb_desc *d)
{
	struct rb_slot *slot = rb_slot_of(rb, d->tail_page);

	slot->write_size = d->tail_off;
	slot->entries = (uint32_t)(d->next_entry - slot->first_entry);
	if (slot->lost)
		rb_put64(rb_page_ptr(rb, d->tail_page) + RB_PAGE_HDR + d->tail_off, slot->lost);
}

/*
 * Move the writer to a fresh page that starts at @ts on @cpu.
 * Return: 0, or -ENOSPC (buffer full in discard mode) or -EBUSY (the page
 * to reuse still holds an uncommitted event of an interrupted writer).
 */
static int rb_next_page(struct trev_rb *rb, struct rb_desc *d, uint64_t ts, uint32_t cpu)
{
	uint64_t cur = atomic_load_explicit(&d->tail_seq, memory_order_relaxed);
	uint64_t next = cur == RB_SEQ_NONE ? 0 : cur + 1, lost, lost_total;
	uint32_t page;
	struct rb_slot *slot;
	uint8_t *pg;

	if (next >= d->nr_pages) {
		uint64_t victim = next - d->nr_pages;

		if (victim >= atomic_load_explicit(&d->commit_seq, memory_order_relaxed))
			return -EBUSY;
		if (!atomic_load_explicit(&rb->hdr->overwrite, memory_order_relaxed) &&
		    victim >= atomic_load_explicit(&d->read_seq, memory_order_acquire))
			return -ENOSPC;
	}
	if (cur != RB_SEQ_NONE)
		rb_finish_page(rb, d);
	if (next >= d->nr_pages &&
	    atomic_load_explicit(&d->first_seq, memory_order_relaxed) <= next - d->nr_pages)
		atomic_store_explicit(&d->first_seq, next - d->nr_pages + 1, memory_order_relaxed);

	page = rb_page_of_seq(d, next);
	slot = rb_slot_of(rb, page);
	pg = rb_page_ptr(rb, page);
	lost_total = rb_load(&d->lost_total);
	lost = lost_total - d->lost_seen;

	/* Seqlock write side: readers of the old page see BUSY or a new seq.
	 * The acquire half keeps the page stores below after the BUSY store. */
	atomic_exchange_explicit(&slot->seq, RB_SEQ_BUSY, memory_order_acq_rel);
	rb_put64(pg, ts);
	atomic_store_explicit(rb_commit_word(pg), rb_lost_flags(lost),
			      memory_order_relaxed);
	slot->first_entry = d->next_entry;
	slot->lost = lost;
	slot->lost_cum = lost_total;
	slot->write_size = 0;
	slot->entries = 0;
	slot->padded = 0;
	slot->cpu_marks = 0;
	slot->cpu = cpu;
	atomic_store_explicit(&slot->seq, next, memory_order_release);

	d->lost_seen = lost_total;
	d->tail_page = page;
	d->tail_off = 0;
	atomic_store_explicit(&d->tail_limit, RB_DATA_SIZE - (lost ? 8u : 0u), memory_order_relaxed);
	/* The pages before it get their final commit from the next publish. */
	d->tail_flags = rb_lost_flags(lost) |
			(atomic_load_explicit(&d->commit_seq, memory_order_relaxed) != next ?
				 RB_TAIL_PENDING : 0);
	d->last_ts = ts;
	d->cpu = cpu;
	atomic_store_explicit(&d->tail_seq, next, memory_order_relaxed);
	return 0;
}

/*
 * Count a refused event: in the buffer, and for the CPU the writer is on
 * (per_cpu/cpuN/stats); the next event takes the slow path and a new page.
 * The per-CPU counters are shared by every thread that runs there, so they
 * take a locked add; refusals are the slow path.
 */
static rb_cold void rb_refuse(struct trev_rb *rb, struct rb_desc *d, int why)
{
	uint32_t cpu = trev__rb_cpu_id ? rb_cpu_now() : (uint32_t)sched_getcpu();
	struct rb_cpu_lost *cl = &rb->cpu_lost[rb_view(rb, cpu)];

	if (why == -EBUSY) {
		rb_local_add(&d->commit_overrun, 1);
		atomic_fetch_add_explicit(&cl->commit_overrun, 1, memory_order_relaxed);
	} else {
		atomic_fetch_add_explicit(&cl->dropped, 1, memory_order_relaxed);
	}
	rb_local_add(&d->lost_total, 1);
	atomic_store_explicit(&d->tail_limit, 0, memory_order_relaxed);
}

/*
 * Everything the fast path does not handle: first page, page switch after
 * losses, CPU change, time going backwards, deltas of 2^27 ns or more.
 * Runs inside the claim (nesting has RB_NEST_CLAIM).
 */
static void *rb_claim_slow(struct trev_rb *rb, struct rb_desc *d, uint32_t len, uint64_t ts,
			   uint32_t cpu, uint32_t n)
{
	uint32_t size = rb_data_size(len), extra = 0, off;
	uint8_t *data;
	uint64_t delta;
	bool new_page = atomic_load_explicit(&d->tail_seq, memory_order_relaxed) == RB_SEQ_NONE ||
			rb_load(&d->lost_total) != d->lost_seen;

	if ((int64_t)(ts - d->last_ts) < 0)
		ts = d->last_ts;	/* never backwards within a buffer */
	if (!new_page) {
		if (cpu != d->cpu)
			extra += RB_CPU_MARK_SIZE;
		if (ts - d->last_ts > RB_DELTA_MAX)
			extra += 8;
		new_page = d->tail_off + extra + size > d->tail_limit;
	}
	if (new_page) {
		int err = rb_next_page(rb, d, ts, cpu);

		if (err < 0) {
			rb_refuse(rb, d, err);
			return NULL;
		}
	}
	data = rb_page_ptr(rb, d->tail_page) + RB_PAGE_HDR;
	off = d->tail_off;
	if (cpu != d->cpu) {
		rb_put_cpu_mark(data + off, cpu);
		off += RB_CPU_MARK_SIZE;
		d->cpu = cpu;
		rb_slot_of(rb, d->tail_page)->cpu_marks++;
	}
	delta = ts - d->last_ts;
	if (delta > RB_DELTA_MAX) {
		rb_put_time_extend(data + off, delta);
		off += 8;
		delta = 0;
	}
	d->resv_off[n] = off;
	d->tail_off = off + size;
	d->last_ts = ts;
	d->next_entry++;
	return rb_put_data_hdr(data + off, len, (uint32_t)delta);
}

/* ------------------------------------------------------------------ */
/* Writer: reserve / commit / discard                                   */

/*
 * Events a signal handler refused while this thread made its buffer go in
 * the buffer's lost count, as a refusal of the buffer's own would: the first
 * page carries them, and every reader reports them.
 */
static rb_cold void rb_report_refused_making(struct trev_rb *rb, struct rb_desc *d,
					     uint64_t refused)
{
	uint32_t cpu = rb_cpu_now();

	atomic_fetch_add_explicit(&rb->cpu_lost[rb_view(rb, cpu)].dropped, refused,
				  memory_order_relaxed);
	rb_local_add(&d->lost_total, refused);
	atomic_store_explicit(&d->tail_limit, 0, memory_order_relaxed);
}

/*
 * First event of this thread, or making a buffer failed before.
 *
 * A signal handler of the thread that writes while the thread is in here
 * must not make a buffer of its own (the thread would end up with two, one
 * of them orphaned) nor count its event as refused for want of memory: it is
 * refused, and the buffer that the interrupted call makes reports it lost.
 * The TLS entry is valid before `making` is cleared, so a handler sees one
 * or the other.
 */
static rb_cold struct rb_desc *rb_writer_desc_slow(struct trev_rb *rb)
{
	struct rb_tls *t = &trev__rb_tls[rb->set];
	uint32_t making = (uint32_t)rb->set_gen + 1;
	uint64_t free_gen, refused;
	struct rb_desc *d = NULL;

	if (atomic_load_explicit(&t->making, memory_order_relaxed) == making) {
		atomic_fetch_add_explicit(&t->refused_making, 1, memory_order_relaxed);
		return NULL;
	}
	atomic_store_explicit(&t->making, making, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	if (!trev__rb_cpu_id)
		rb_cpu_id_init();
	free_gen = atomic_load_explicit(&rb->free_gen, memory_order_acquire);
	if (t->set_gen == rb->set_gen && t->desc) {
		d = t->desc;	/* a handler that came before the mark made it */
	} else if (t->fail_set != rb->set_gen || t->fail_gen != free_gen) {
		/* (Failed before and nothing was freed since: do not scan again.) */
		uint32_t stop = atomic_load(&crash_gen);

		d = rb_desc_new(rb);
		/* Refused while a dying process's trace was read is no failure. */
		if (!d && !(stop & 1) && atomic_load(&crash_gen) == stop) {
			t->fail_set = rb->set_gen;
			t->fail_gen = free_gen;
		}
	}
	/* The fast path trusts desc whenever set_gen matches. */
	t->desc = d;
	atomic_signal_fence(memory_order_seq_cst);
	t->set_gen = d ? rb->set_gen : 0;
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&t->making, 0, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	refused = atomic_exchange_explicit(&t->refused_making, 0, memory_order_relaxed);
	if (d) {
		if (refused)
			rb_report_refused_making(rb, d, refused);
		return d;
	}
	atomic_fetch_add_explicit(&rb->hdr->nobuf_dropped, 1 + refused, memory_order_relaxed);
	/* Dropped on this CPU, and no buffer reports them: orphans. */
	{
		int v = rb_view(rb, rb_cpu_now());

		atomic_fetch_add_explicit(&rb->cpu_lost[v].dropped, 1 + refused,
					  memory_order_relaxed);
		rb_orphan_add(rb, v, 1 + refused);
	}
	return NULL;
}

/* Publish the final commits of pages the writer left since the last publish. */
static void rb_publish_pages(struct trev_rb *rb, struct rb_desc *d, uint64_t cs, uint64_t tail)
{
	for (; cs < tail; cs++) {
		uint32_t page = rb_page_of_seq(d, cs);
		struct rb_slot *slot = rb_slot_of(rb, page);

		atomic_store_explicit(rb_commit_word(rb_page_ptr(rb, page)),
				      slot->write_size | rb_lost_flags(slot->lost),
				      memory_order_release);
		atomic_store_explicit(&d->commit_seq, cs + 1, memory_order_release);
	}
}

/*
 * Publish every page commit up to the writer's tail; outermost level only.
 * RB_TAIL_PENDING goes first: a handler that leaves a page after that sets
 * it again, for the next publish.
 */
static void rb_publish(struct trev_rb *rb, struct rb_desc *d)
{
	uint64_t tail, cs;

	rb_local_clear(&d->tail_flags, RB_TAIL_PENDING);
	atomic_signal_fence(memory_order_seq_cst);
	tail = atomic_load_explicit(&d->tail_seq, memory_order_relaxed);
	if (tail == RB_SEQ_NONE)
		return;
	cs = atomic_load_explicit(&d->commit_seq, memory_order_relaxed);
	if (cs != tail)
		rb_publish_pages(rb, d, cs, tail);
	atomic_store_explicit(rb_commit_word(rb_page_ptr(rb, d->tail_page)),
			      d->tail_off | (d->tail_flags & ~RB_TAIL_PENDING),
			      memory_order_release);
}

/*
 * The outermost level's leave when rb_leave() cannot finish it: pages to
 * publish (@published false: nesting is still 1), or a handler committed
 * after our publish (@published: nesting is 0 and committed moved from
 * @seen), or a reader waits. A handler that writes between a publish and
 * the nesting store is caught by the re-check of committed; publishing
 * again means entering again, with the pause check of a reserve.
 */
rb_cold void trev__rb_leave_slow(struct trev_rb *rb, struct rb_desc *d, bool published,
				 uint64_t seen)
{
	for (;;) {
		if (published) {
			if (rb_load(&d->committed) == seen)
				break;
			atomic_store_explicit(&d->nesting, 1, memory_order_relaxed);
			atomic_signal_fence(memory_order_seq_cst);
			/* Paused: the handler's event goes out with the next outermost
			 * commit after the control operation. Pairs with membarrier(). */
			if (atomic_load_explicit(&d->gate, memory_order_acquire) & RB_GATE_REFUSE) {
				atomic_store_explicit(&d->nesting, 0, memory_order_release);
				break;
			}
			seen = rb_load(&d->committed);
			atomic_signal_fence(memory_order_seq_cst);
		}
		rb_publish(rb, d);
		atomic_store_explicit(&d->nesting, 0, memory_order_release);
		atomic_signal_fence(memory_order_seq_cst);
		published = true;
	}
	if (trev_unlikely(atomic_load_explicit(&rb->hdr->waiters, memory_order_relaxed)))
		trev__rb_wake(rb);
}

/*
 * Everything rb_reserve_fast() does not do, from where it stopped: from
 * the start when @d is NULL, else after its nesting store (nesting holds
 * @n + 1 + RB_NEST_CLAIM). On a refusal at the outermost level, publish
 * what a handler may have written since the last publish: only the
 * outermost level publishes. We were not paused when we looked, so a
 * pausing thread is still waiting for our nesting to drop.
 */
rb_cold void *trev__rb_reserve_slow(struct trev_rb *rb, uint32_t len, struct rb_desc *d, uint32_t n,
				    uint64_t *tsp)
{
	uint32_t cpu;
	uint64_t ts;
	void *payload;

	if (!d) {
		if ((atomic_load_explicit(&rb->fast_gen, memory_order_relaxed) & RB_GEN_OFF) ||
		    len == 0 || len > TREV_RB_MAX_EVENT)
			return NULL;
		d = trev__rb_tls[rb->set].desc;
		if (trev__rb_tls[rb->set].set_gen != rb->set_gen)
			d = rb_writer_desc_slow(rb);
		if (!d)
			return NULL;
		n = atomic_load_explicit(&d->nesting, memory_order_relaxed);
		atomic_store_explicit(&d->nesting, n + 1 + RB_NEST_CLAIM, memory_order_relaxed);
		atomic_signal_fence(memory_order_seq_cst);
	}
	/* Pairs with membarrier() in rb_pause_all(). */
	if ((atomic_load_explicit(&d->gate, memory_order_acquire) & RB_GATE_REFUSE) ||
	    n >= RB_MAX_NEST) {
		/* Paused: the pausing thread may already be rewriting the tail, so
		 * only step out; anything a handler committed meanwhile is in the
		 * tail and goes out with the next outermost commit. */
		rb_refuse(rb, d, -ENOSPC);
		atomic_store_explicit(&d->nesting, n, memory_order_release);
		return NULL;
	}
	ts = rb_now(rb);
	cpu = rb_cpu_now();
	payload = len <= RB_SMALL_MAX ? rb_claim_fast(rb, d, len, ts, cpu, n) : NULL;
	if (!payload)
		payload = rb_claim_slow(rb, d, len, ts, cpu, n);
	/* A handler refused during the claim may have zeroed tail_limit
	 * before the claim set it: keep the invariant of rb_internal.h. */
	atomic_signal_fence(memory_order_seq_cst);
	if (rb_load(&d->lost_total) != d->lost_seen)
		atomic_store_explicit(&d->tail_limit, 0, memory_order_relaxed);
	/* Still inside the claim, where no handler writes: the record's time. */
	if (payload && tsp)
		*tsp = d->last_ts;
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&d->nesting, n + 1, memory_order_relaxed);
	if (trev_unlikely(!payload)) {
		if (n == 0)
			trev__rb_leave_slow(rb, d, false, rb_load(&d->committed));
		else
			atomic_store_explicit(&d->nesting, n, memory_order_release);
	}
	return payload;
}

unsigned int trev__rb_level(struct trev_rb *rb)
{
	const struct rb_tls *t = &trev__rb_tls[rb->set];

	if (t->set_gen != rb->set_gen || !t->desc)
		return 0;
	return atomic_load_explicit(&t->desc->nesting, memory_order_relaxed) & (RB_NEST_CLAIM - 1);
}

void *trev_rb_reserve(struct trev_rb *rb, uint32_t len)
{
	struct rb_wr w;
	void *payload = rb_reserve_fast(rb, len, &w);

	if (trev_unlikely(!payload))
		return trev__rb_reserve_slow(rb, len, w.d, w.n, NULL);
	return payload;
}

void trev_rb_commit(struct trev_rb *rb, void *data)
{
	struct rb_wr w;

	w.d = trev__rb_tls[rb->set].desc;
	w.n = atomic_load_explicit(&w.d->nesting, memory_order_relaxed) - 1;
	rb_commit(rb, &w, data);
}

/*
 * The record of the innermost reservation lies in the page @data points
 * into, at resv_off[level]; its header gives its size and time delta.
 */
void trev_rb_discard(struct trev_rb *rb, void *data)
{
	struct rb_desc *d = trev__rb_tls[rb->set].desc;
	uint32_t n = atomic_load_explicit(&d->nesting, memory_order_relaxed) - 1;
	uint32_t page = (uint32_t)(((uint8_t *)data - rb->pages) / RB_PAGE_SIZE);
	uint32_t off = d->resv_off[n], word, size;
	uint8_t *rec = rb_page_ptr(rb, page) + RB_PAGE_HDR + off;

	word = rb_get32(rec);
	size = (word & 31u) ? 4u + (word & 31u) * 4u : 4u + rb_get32(rec + 4);
	atomic_store_explicit(&d->nesting, n + 1 + RB_NEST_CLAIM, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	if (d->tail_page == page && d->tail_off == off + size) {
		/* Nothing behind it: take the space back. */
		d->tail_off = off;
		d->last_ts -= word >> 5;
		d->next_entry--;
	} else {
		/* A nested writer wrote behind it: turn it into padding. */
		rb_put32(rec, rb_hdr_word(RB_TYPE_PADDING, word >> 5));
		rb_put32(rec + 4, size - 4);
		if (size >= 12)
			rb_put32(rec + 8, RB_MARK_DISCARD);
		/* Not yet published: the outermost level has not committed. */
		rb_slot_of(rb, page)->padded++;
	}
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&d->nesting, n + 1, memory_order_relaxed);
	rb_leave(rb, d, n, data);
}

int trev_rb_write(struct trev_rb *rb, const void *data, uint32_t len)
{
	struct rb_wr w;
	void *p = rb_reserve_fast(rb, len, &w);

	if (trev_unlikely(!p)) {
		p = trev__rb_reserve_slow(rb, len, w.d, w.n, NULL);
		if (!p)
			return -ENOSPC;
		w.d = trev__rb_tls[rb->set].desc;
		w.n = atomic_load_explicit(&w.d->nesting, memory_order_relaxed) - 1;
	}
	memcpy(p, data, len);
	rb_commit(rb, &w, p);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Wake-ups                                                             */

rb_cold void trev__rb_wake(struct trev_rb *rb)
{
	struct rb_region *hdr = rb->hdr;

	if (atomic_exchange_explicit(&hdr->waiters, 0, memory_order_relaxed)) {
		atomic_fetch_add_explicit(&hdr->wake_seq, 1, memory_order_release);
		syscall(SYS_futex, &hdr->wake_seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	}
}

/* ------------------------------------------------------------------ */
/* Control: pause, reset, resize, settings                              */

static void rb_resume(struct rb_desc *d)
{
	atomic_fetch_and_explicit(&d->gate, ~RB_GATE_PAUSED, memory_order_release);
}

/*
 * tracing_on lives in fast_gen, one atomic word, so that racing calls
 * (a traceoff trigger against a write to tracing_on) leave no mixed
 * state; the region's record_on is a copy for readers of the region.
 */
static void rb_record_set(struct trev_rb *rb, bool on)
{
	if (on)
		atomic_fetch_and_explicit(&rb->fast_gen, ~RB_GEN_OFF, memory_order_relaxed);
	else
		atomic_fetch_or_explicit(&rb->fast_gen, RB_GEN_OFF, memory_order_relaxed);
	atomic_store_explicit(&rb->hdr->record_on, on, memory_order_relaxed);
}

void trev_rb_record_on(struct trev_rb *rb)
{
	if (!rb->attached)
		rb_record_set(rb, true);
}

void trev_rb_record_off(struct trev_rb *rb)
{
	if (!rb->attached)
		rb_record_set(rb, false);
}

int trev_rb_record_is_on(const struct trev_rb *rb)
{
	return !(atomic_load_explicit(&rb->fast_gen, memory_order_relaxed) & RB_GEN_OFF);
}

/*
 * Pause every buffer in use (under read_lock and the pool lock): set
 * paused, membarrier(), then wait until no writer is inside; see the
 * asymmetric Dekker in rb_internal.h.
 */
static void rb_pause_all(struct trev_rb *rb)
{
	for (uint32_t i = 0; i < RB_MAX_BUFFERS; i++)
		if (atomic_load(&rb->descs[i].state) != RB_DESC_FREE)
			atomic_fetch_or_explicit(&rb->descs[i].gate, RB_GATE_PAUSED,
						 memory_order_release);
	trev__membarrier();
	/* Only live threads write; one that died inside a write never leaves. */
	for (uint32_t i = 0; i < RB_MAX_BUFFERS; i++)
		if (atomic_load(&rb->descs[i].state) == RB_DESC_LIVE)
			while (atomic_load_explicit(&rb->descs[i].nesting, memory_order_acquire))
				sched_yield();
}

static void rb_resume_all(struct trev_rb *rb)
{
	for (uint32_t i = 0; i < RB_MAX_BUFFERS; i++)
		if (atomic_load(&rb->descs[i].state) != RB_DESC_FREE)
			rb_resume(&rb->descs[i]);
}

static void rb_control_lock(struct trev_rb *rb)
{
	pthread_mutex_lock(&rb->read_lock);
	trev__rb_pool_lock(rb, true);
}

static void rb_control_unlock(struct trev_rb *rb)
{
	trev__rb_pool_unlock(rb);
	pthread_mutex_unlock(&rb->read_lock);
}

int trev_rb_reset(struct trev_rb *rb)
{
	if (rb->attached)
		return -EPERM;
	rb_control_lock(rb);
	rb_pause_all(rb);
	for (uint32_t i = 0; i < RB_MAX_BUFFERS; i++) {
		struct rb_desc *d = &rb->descs[i];
		uint32_t state = atomic_load(&d->state);

		if (state == RB_DESC_DEAD)
			trev__rb_free_desc(rb, d);
		else if (state == RB_DESC_LIVE)
			trev__rb_desc_clear(rb, d);
	}
	atomic_store(&rb->hdr->nobuf_dropped, 0);
	atomic_store(&rb->hdr->reclaimed_lost, 0);
	atomic_store(&rb->hdr->orphans, 0);
	rb->orphans_seen = 0;
	trev__rb_stage_clear(rb, true);
	trev__rb_views_reset(rb);
	rb_resume_all(rb);
	rb_control_unlock(rb);
	return 0;
}

/* Move a paused buffer's newest pages into a run of @nr pages at @first. */
static void rb_move_pages(struct trev_rb *rb, struct rb_desc *d, uint32_t first, uint32_t nr)
{
	uint64_t tail = atomic_load_explicit(&d->tail_seq, memory_order_relaxed);
	struct rb_desc moved = { .first_page = first, .nr_pages = nr };
	uint32_t old_first, old_nr;

	for (uint32_t i = 0; i < nr; i++)
		atomic_store_explicit(&rb_slot_of(rb, first + i)->seq, RB_SEQ_NONE,
				      memory_order_relaxed);
	if (tail != RB_SEQ_NONE) {
		uint64_t oldest = atomic_load_explicit(&d->first_seq, memory_order_relaxed);
		uint64_t from = tail + 1 >= nr ? tail + 1 - nr : 0;

		if (tail + 1 >= d->nr_pages && oldest < tail + 1 - d->nr_pages)
			oldest = tail + 1 - d->nr_pages;
		if (from < oldest)
			from = oldest;
		atomic_store_explicit(&d->first_seq, from, memory_order_release);
		for (uint64_t s = from; s <= tail; s++) {
			uint32_t src = rb_page_of_seq(d, s), dst = rb_page_of_seq(&moved, s);
			struct rb_slot *ss = rb_slot_of(rb, src), *ds = rb_slot_of(rb, dst);

			memcpy(rb_page_ptr(rb, dst), rb_page_ptr(rb, src), RB_PAGE_SIZE);
			ds->first_entry = ss->first_entry;
			ds->lost = ss->lost;
			ds->lost_cum = ss->lost_cum;
			ds->write_size = ss->write_size;
			ds->cpu = ss->cpu;
			ds->entries = ss->entries;
			ds->padded = ss->padded;
			ds->cpu_marks = ss->cpu_marks;
			atomic_store_explicit(&ds->seq, s, memory_order_release);
		}
		d->tail_page = rb_page_of_seq(&moved, tail);
	}
	/* A reader of another process may be on the old run: it sees the new
	 * one whole, or drops a copy it took from the old one once that is
	 * freed (rb_run_begin()). */
	old_first = d->first_page;
	old_nr = d->nr_pages;
	rb_run_store(d, first, nr);
	atomic_fetch_add_explicit(&d->moves, 1, memory_order_release);
	trev__rb_free_run(rb, old_first, old_nr);
}

/*
 * Whether a resize to @nr pages moves @d: a live buffer of another size; a
 * dead one only to cut it, since it gets no more events and may have
 * shrunk to its unread pages (rb_shrink_dead()).
 */
static bool rb_resize_moves(struct rb_desc *d, uint32_t nr)
{
	uint32_t state = atomic_load(&d->state);

	return state == RB_DESC_LIVE ? d->nr_pages != nr :
				       state == RB_DESC_DEAD && d->nr_pages > nr;
}

int trev_rb_resize(struct trev_rb *rb, unsigned int size_kb)
{
	uint32_t nr = (uint32_t)(((uint64_t)size_kb * 1024 + RB_PAGE_SIZE - 1) / RB_PAGE_SIZE);
	uint32_t firsts[RB_MAX_BUFFERS];
	uint32_t old_pages = 0, new_pages = 0, cap;
	int err = 0;

	if (rb->attached)
		return -EPERM;
	if (size_kb == 0 || nr < RB_MIN_PAGES || nr > rb->nr_pages)
		return -EINVAL;
	rb_control_lock(rb);
	/* Allocate every new run first, so a failure changes nothing. The cap
	 * counts the old runs as gone; the region must hold both for a moment. */
	for (uint32_t i = 0; i < RB_MAX_BUFFERS; i++) {
		struct rb_desc *d = &rb->descs[i];

		firsts[i] = UINT32_MAX;
		if (rb_resize_moves(d, nr)) {
			old_pages += d->nr_pages;
			new_pages += nr;
		}
	}
	cap = atomic_load(&rb->hdr->cap_pages);
	if (atomic_load(&rb->hdr->used_pages) - old_pages + new_pages > cap) {
		rb_control_unlock(rb);
		return -ENOMEM;
	}
	atomic_store(&rb->hdr->cap_pages, UINT32_MAX);
	for (uint32_t i = 0; i < RB_MAX_BUFFERS && err == 0; i++) {
		struct rb_desc *d = &rb->descs[i];

		if (rb_resize_moves(d, nr))
			err = trev__rb_alloc_run(rb, nr, &firsts[i]);
	}
	atomic_store(&rb->hdr->cap_pages, cap);
	if (err < 0) {
		for (uint32_t i = 0; i < RB_MAX_BUFFERS; i++)
			if (firsts[i] != UINT32_MAX)
				trev__rb_free_run(rb, firsts[i], nr);
		rb_control_unlock(rb);
		return err;
	}
	rb_pause_all(rb);
	for (uint32_t i = 0; i < RB_MAX_BUFFERS; i++)
		if (firsts[i] != UINT32_MAX)
			rb_move_pages(rb, &rb->descs[i], firsts[i], nr);
	atomic_store(&rb->hdr->size_pages, nr);
	rb_resume_all(rb);
	rb_control_unlock(rb);
	return 0;
}

unsigned int trev_rb_size_kb(const struct trev_rb *rb)
{
	return atomic_load(&rb->hdr->size_pages) * (RB_PAGE_SIZE / 1024);
}

int trev_rb_set_cap(struct trev_rb *rb, unsigned int cap_kb)
{
	uint64_t pages = (uint64_t)cap_kb * 1024 / RB_PAGE_SIZE;

	if (rb->attached)
		return -EPERM;
	if (pages < RB_MIN_PAGES || pages > rb->nr_pages)
		return -EINVAL;
	atomic_store(&rb->hdr->cap_pages, (uint32_t)pages);
	return 0;
}

unsigned int trev_rb_cap_kb(const struct trev_rb *rb)
{
	return atomic_load(&rb->hdr->cap_pages) * (RB_PAGE_SIZE / 1024);
}

int trev_rb_set_overwrite(struct trev_rb *rb, int overwrite)
{
	if (rb->attached)
		return -EPERM;
	if (overwrite != 0 && overwrite != 1)
		return -EINVAL;
	atomic_store(&rb->hdr->overwrite, (uint32_t)overwrite);
	return 0;
}

int trev_rb_overwrite(const struct trev_rb *rb)
{
	return (int)atomic_load(&rb->hdr->overwrite);
}

int trev_rb_set_clock(struct trev_rb *rb, int clock)
{
	if (rb->attached)
		return -EPERM;
	if (clock < 0 || clock >= TREV_CLOCK__COUNT)
		return -EINVAL;
	if ((int)atomic_load(&rb->hdr->clock) == clock)
		return 0;
	/* Time stamps of two clocks do not mix: clear, as the kernel does. */
	rb_control_lock(rb);
	rb_pause_all(rb);
	atomic_store(&rb->hdr->clock, (uint32_t)clock);
	atomic_store(&rb->tsc_clock, clock == TREV_CLOCK_LOCAL && trev__tsc.usable);
	for (uint32_t i = 0; i < RB_MAX_BUFFERS; i++) {
		struct rb_desc *d = &rb->descs[i];

		if (atomic_load(&d->state) != RB_DESC_FREE)
			atomic_store(&d->gate, (atomic_load(&d->gate) & ~RB_GATE_CLOCK) |
						       rb_gate_clock(rb));
	}
	rb_control_unlock(rb);
	trev_rb_reset(rb);
	return 0;
}

int trev_rb_clock(const struct trev_rb *rb)
{
	return (int)atomic_load(&rb->hdr->clock);
}

uint64_t trev_rb_clock_now(struct trev_rb *rb)
{
	return rb_clock_read((int)atomic_load(&rb->hdr->clock), &rb->hdr->counter);
}

uint64_t trev_rb_nobuf_dropped(const struct trev_rb *rb)
{
	return atomic_load(&rb->hdr->nobuf_dropped);
}

uint64_t trev_rb_recycled_lost(const struct trev_rb *rb)
{
	return atomic_load(&rb->hdr->reclaimed_lost);
}

uint64_t trev_rb_orphan_lost(const struct trev_rb *rb)
{
	return atomic_load(&rb->hdr->orphans);
}

int trev_rb_memfd(const struct trev_rb *rb)
{
	return rb->memfd;
}

/* ------------------------------------------------------------------ */
/* Creation, destruction, fork                                          */

/*
 * Map a fresh, zeroed region of rb->region_size at @addr (or anywhere): in
 * a new memfd, or in @file (>= 0: a new, empty file of the caller's, the
 * flight recorder's), which becomes rb->memfd on success.
 */
static int rb_map_region(struct trev_rb *rb, void *addr, int file)
{
	int fd = file >= 0 ? file
			   : memfd_create("trev-ring-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	void *p;

	if (fd < 0)
		return -errno;
	/* Sealed at its size: a process that maps it (trev_rb_attach()) must
	 * not meet SIGBUS because the file shrank under it. A file of a
	 * filesystem cannot be sealed; trev_rb_attach() refuses it. */
	if (ftruncate(fd, (off_t)rb->region_size) < 0 ||
	    (file < 0 && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)) {
		int err = -errno;

		if (file < 0)
			close(fd);
		return err;
	}
	p = mmap(addr, rb->region_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_NORESERVE | (addr ? MAP_FIXED : 0), fd, 0);
	if (p == MAP_FAILED) {
		int err = -errno;

		if (file < 0)
			close(fd);
		return err;
	}
	/* A child of fork() must not share the pages; it maps its own. */
	madvise(p, rb->region_size, MADV_DONTFORK);
	rb->memfd = fd;
	rb->hdr = p;
	rb->base = p;
	return 0;
}

static void rb_init_region(struct trev_rb *rb, uint32_t nr_pages, uint32_t size_pages,
			   uint32_t cap_pages, int overwrite, int clock)
{
	struct rb_region *hdr = rb->hdr;

	hdr->magic = RB_MAGIC;
	hdr->version = RB_VERSION;
	hdr->page_size = RB_PAGE_SIZE;
	hdr->nr_pages = nr_pages;
	trev__rb_geometry(nr_pages, &hdr->desc_off, &hdr->slot_off, &hdr->page_off);
	rb_record_set(rb, true);
	atomic_store(&hdr->overwrite, (uint32_t)overwrite);
	atomic_store(&hdr->clock, (uint32_t)clock);
	atomic_store(&rb->tsc_clock, clock == TREV_CLOCK_LOCAL && trev__tsc.usable);
	atomic_store(&hdr->size_pages, size_pages);
	atomic_store(&hdr->cap_pages, cap_pages);
	atomic_store(&hdr->desc_hwm, 0);
	rb->descs = (struct rb_desc *)(rb->base + hdr->desc_off);
	rb->pages = rb->base + hdr->page_off;
	rb->cpu_lost = rb_region_cpu_lost(rb->base);
	rb->slot_off = hdr->slot_off;
	rb->page_off = hdr->page_off;
	rb->nr_pages = nr_pages;
	atomic_store(&rb->desc_hwm, 0);
	memset(rb->page_map, 0, nr_pages);
	for (uint32_t i = 0; i < RB_MAX_BUFFERS; i++)
		rb->cursor[i].gen = UINT64_MAX;
	pthread_mutex_init(&rb->read_lock, NULL);
	atomic_store(&rb->pool_lock, 0);
}

/* In the child after fork(): fresh, empty buffers at the same addresses. */
static void rb_atfork_child(void)
{
	trev__rb_tid = 0;
	rb_busy_child();
	for (unsigned int i = 0; i < RB_MAX_SETS; i++) {
		struct trev_rb *rb = sets[i];

		trev__rb_tls[i].desc = NULL;
		trev__rb_tls[i].set_gen = 0;
		if (!rb)
			continue;
		/* The parent's mapping was not inherited (MADV_DONTFORK). A
		 * flight recorder's file stays the parent's: the child's region
		 * is a memfd. */
		close(rb->memfd);
		for (uint32_t k = 0; k < RB_MAX_BUFFERS; k++)
			rb->cursor[k].gen = UINT64_MAX;
		trev__rb_stage_clear(rb, false);
		atomic_store(&rb->sleepers, 0);
		atomic_store(&rb->lent, 0);	/* the fresh region is lent to nobody */
		if (rb_map_region(rb, rb->base, -1) < 0)
			abort();	/* the child cannot trace; nothing sane remains */
		rb_init_region(rb, rb->saved.nr_pages, rb->saved.size_pages, rb->saved.cap_pages,
			       rb->saved.overwrite, rb->saved.clock);
		rb_record_set(rb, rb->saved.record_on);
	}
	pthread_mutex_init(&sets_lock, NULL);
}

/*
 * A dying process writes its trace through a child (frontend/crash.c), which
 * must see the regions as they are: @share lets the next fork copy their
 * mappings (shared: the child sees the parent's threads go on writing),
 * !@share stops that again. Context: async-signal-safe (madvise only);
 * sets[] is read without its lock, as a set made or destroyed meanwhile
 * is one the trace may miss.
 */
void trev__rb_fork_share(bool share)
{
	for (unsigned int i = 0; i < RB_MAX_SETS; i++) {
		struct trev_rb *rb = sets[i];

		if (rb)
			madvise(rb->base, rb->region_size, share ? MADV_DOFORK : MADV_DONTFORK);
	}
}

/*
 * The longest trev__rb_crash_stop() waits for one thread to leave its
 * write. A write takes well under a microsecond; one that takes longer was
 * preempted, and on a loaded machine the thread may wait for a CPU for
 * many milliseconds. Only a thread stopped in its write (a debugger) or
 * one whose write a fatal signal of its own interrupted keeps it longer.
 */
#define RB_CRASH_SETTLE_NS	(1000 * 1000 * 1000)

static int64_t rb_crash_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Give the CPU to a writer that is waiting for one. Context: async-signal-safe. */
static void rb_crash_pause(void)
{
	struct timespec t = { 0, 50 * 1000 };

	nanosleep(&t, NULL);
}

/*
 * trev__rb_crash_stop() - stop the writers of every trace buffer, for the
 * trace of a dying process (frontend/crash.c), the kernel's ftrace_dump()
 * turning tracing off before it reads
 *
 * Other threads run on while the trace is read; writing on, they would
 * overwrite the pages being read (overwrite mode) and add events the
 * header did not count. So every buffer gets RB_GATE_STOPPED, which a
 * writer meets as a control operation's pause (rb_internal.h): from here
 * on its events are refused and counted as dropped, and no thread gets a
 * buffer (its events count in trev_rb_nobuf_dropped()), none is recycled.
 * Then, after membarrier(), it waits until no thread but the caller is in
 * the middle of a write, or making a buffer: RB_CRASH_SETTLE_NS at most
 * for each (a thread stopped in one, or in the handler of a signal of its
 * own, is not waited for longer; its event may then come while the trace
 * is read). The caller's own write, if the signal interrupted one, is
 * never finished and not waited for.
 * Context: async-signal-safe; sets[] is read without its lock, as in
 * trev__rb_fork_share(). Undone by trev__rb_crash_resume().
 */
void trev__rb_crash_stop(void)
{
	int self = trev__gettid();

	if (atomic_fetch_add(&crash_gen, 1) & 1) {
		atomic_fetch_sub(&crash_gen, 1);	/* stopped already: cannot be */
		return;
	}
	/* Either a thread that takes a pool lock from here on sees crash_gen
	 * odd, or its lock is held below. */
	trev__membarrier();
	for (unsigned int i = 0; i < RB_MAX_SETS; i++) {
		struct trev_rb *rb = sets[i];
		int64_t end = rb_crash_now_ns() + RB_CRASH_SETTLE_NS;
		int owner;

		if (!rb || rb->attached)
			continue;
		/* A buffer being made now was begun before the stop: it is in
		 * use when the lock is free again, and stopped below. */
		while ((owner = atomic_load(&rb->pool_lock)) != 0 && owner != self &&
		       rb_crash_now_ns() < end)
			rb_crash_pause();
		for (uint32_t k = 0; k < RB_MAX_BUFFERS; k++)
			if (atomic_load(&rb->descs[k].state) != RB_DESC_FREE)
				atomic_fetch_or_explicit(&rb->descs[k].gate, RB_GATE_STOPPED,
							 memory_order_release);
	}
	/* Pairs with the writers' nesting store before their gate check. */
	trev__membarrier();
	for (unsigned int i = 0; i < RB_MAX_SETS; i++) {
		struct trev_rb *rb = sets[i];

		for (uint32_t k = 0; rb && !rb->attached && k < RB_MAX_BUFFERS; k++) {
			struct rb_desc *d = &rb->descs[k];
			int64_t end;

			if (atomic_load(&d->state) != RB_DESC_LIVE || d->tid == self)
				continue;
			/* Seen at 0 once is enough: a write begun after the
			 * membarrier() is refused and writes nothing. */
			end = rb_crash_now_ns() + RB_CRASH_SETTLE_NS;
			while (atomic_load_explicit(&d->nesting, memory_order_acquire) &&
			       rb_crash_now_ns() < end)
				rb_crash_pause();
		}
	}
}

/*
 * trev__rb_crash_resume() - the writers write again: the program goes on
 * after its own handler of the signal returned (frontend/crash.c).
 * Context: async-signal-safe, after trev__rb_crash_stop() in the same thread.
 */
void trev__rb_crash_resume(void)
{
	for (unsigned int i = 0; i < RB_MAX_SETS; i++) {
		struct trev_rb *rb = sets[i];

		for (uint32_t k = 0; rb && !rb->attached && k < RB_MAX_BUFFERS; k++)
			atomic_fetch_and_explicit(&rb->descs[k].gate, ~RB_GATE_STOPPED,
						  memory_order_release);
	}
	if (atomic_load(&crash_gen) & 1)
		atomic_fetch_add(&crash_gen, 1);
}

/*
 * In that child, which has no thread but the one that reads: a lock that
 * a thread of the parent held at the fork would never be released, so
 * each is made anew. What it guarded may be half changed if the thread
 * that died held it; the child then dies too, and the parent still dies
 * of its own signal.
 */
void trev__rb_crash_child(void)
{
	trev__rb_tid = 0;
	for (unsigned int i = 0; i < RB_MAX_SETS; i++) {
		struct trev_rb *rb = sets[i];

		if (!rb)
			continue;
		pthread_mutex_init(&rb->read_lock, NULL);
		atomic_store(&rb->pool_lock, 0);
	}
	pthread_mutex_init(&sets_lock, NULL);
}

/* Keep what the child needs to rebuild each region, and stop changes. */
static void rb_atfork_prepare(void)
{
	pthread_mutex_lock(&sets_lock);
	for (unsigned int i = 0; i < RB_MAX_SETS; i++) {
		struct trev_rb *rb = sets[i];

		if (!rb)
			continue;
		rb->saved.nr_pages = rb->hdr->nr_pages;
		rb->saved.size_pages = atomic_load(&rb->hdr->size_pages);
		rb->saved.cap_pages = atomic_load(&rb->hdr->cap_pages);
		rb->saved.overwrite = (int)atomic_load(&rb->hdr->overwrite);
		rb->saved.clock = (int)atomic_load(&rb->hdr->clock);
		rb->saved.record_on = (uint32_t)trev_rb_record_is_on(rb);
	}
}

static void rb_atfork_parent(void)
{
	pthread_mutex_unlock(&sets_lock);
}

static void rb_global_init(void)
{
	pthread_key_create(&exit_key, rb_thread_exit);
	pthread_atfork(rb_atfork_prepare, rb_atfork_parent, rb_atfork_child);
	membarrier_ok = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
	trev__clock_init();
	/* No area: every thread's buffers take the slow path (RB_GATE_NOBUSY). */
	(void)rb_busy_map(NULL);
}

/* The process-wide set-up: clocks, fork handlers, membarrier. */
void trev__rb_global_init(void)
{
	pthread_once(&global_once, rb_global_init);
}

int trev_rb_create(struct trev_rb **out, const struct trev_rb_options *opts)
{
	return trev__rb_create_in(out, opts, -1);
}

/*
 * trev__rb_create_in() - trev_rb_create(), the region in @file
 * @file: a new, empty regular file open for reading and writing (the flight
 *        recorder's, under /dev/shm), or -1 for an anonymous memfd; on
 *        success the buffer owns it (trev_rb_memfd() returns it,
 *        trev_rb_destroy() closes it), on failure the caller still does
 *
 * The file is sized but not sealed (only a memfd can be): trev_rb_attach()
 * refuses it, a reader copies it first (trev recover).
 * Context: any thread, not in a signal handler or a probe.
 */
int trev__rb_create_in(struct trev_rb **out, const struct trev_rb_options *opts, int file)
{
	struct trev_rb_options o = { 0 };
	uint32_t size_pages, cap_pages;
	struct trev_rb *rb;
	int err;

	trev__rb_global_init();
	if (opts)
		o = *opts;
	if (o.size_kb == 0)
		o.size_kb = TREV_RB_DEFAULT_SIZE_KB;
	if (o.cap_kb == 0)
		o.cap_kb = TREV_RB_DEFAULT_CAP_KB;
	if (opts == NULL || opts->clock < 0)
		o.clock = trev__tsc.usable ? TREV_CLOCK_LOCAL : TREV_CLOCK_MONO;
	if (o.clock >= TREV_CLOCK__COUNT || (o.overwrite != 0 && o.overwrite != 1))
		return -EINVAL;
	size_pages = (uint32_t)(((uint64_t)o.size_kb * 1024 + RB_PAGE_SIZE - 1) / RB_PAGE_SIZE);
	cap_pages = (uint32_t)((uint64_t)o.cap_kb * 1024 / RB_PAGE_SIZE);
	if (size_pages < RB_MIN_PAGES || cap_pages < size_pages)
		return -EINVAL;

	rb = calloc(1, sizeof(*rb));
	if (!rb)
		return -ENOMEM;
	atomic_store(&rb->free_gen, 1);
	err = trev__rb_stage_init(rb);
	if (err < 0)
		goto out_free_rb;
	rb->page_map = calloc(cap_pages, 1);
	if (!rb->page_map) {
		err = -ENOMEM;
		goto out_free_stage;
	}
	rb->region_size = trev__rb_geometry(cap_pages, NULL, NULL, NULL);
	err = rb_map_region(rb, NULL, file);
	if (err < 0)
		goto out_free_map;
	rb_init_region(rb, cap_pages, size_pages, cap_pages, o.overwrite, o.clock);

	pthread_mutex_lock(&sets_lock);
	for (rb->set = 0; rb->set < RB_MAX_SETS && sets[rb->set]; rb->set++)
		;
	if (rb->set == RB_MAX_SETS) {
		pthread_mutex_unlock(&sets_lock);
		/* A fixed table is full, as the kernel's ida_alloc() says it. */
		err = -ENOSPC;
		goto out_unmap;
	}
	rb->set_gen = ++sets_gen;
	atomic_store(&rb->fast_gen, rb->set_gen);	/* tracing on */
	rb->tls_off = (uintptr_t)&trev__rb_tls[rb->set] - (uintptr_t)__builtin_thread_pointer();
	sets[rb->set] = rb;
	pthread_mutex_unlock(&sets_lock);
	*out = rb;
	return 0;

out_unmap:
	munmap(rb->base, rb->region_size);
	if (file < 0)
		close(rb->memfd);
out_free_map:
	free(rb->page_map);
out_free_stage:
	trev__rb_stage_fini(rb);
out_free_rb:
	free(rb);
	return err;
}

void trev_rb_destroy(struct trev_rb *rb)
{
	if (!rb)
		return;
	if (rb->attached) {
		trev__rb_detach(rb);
		return;
	}
	pthread_mutex_lock(&sets_lock);
	sets[rb->set] = NULL;
	pthread_mutex_unlock(&sets_lock);
	trev__rb_tls[rb->set].desc = NULL;
	trev__rb_tls[rb->set].set_gen = 0;
	for (uint32_t i = 0; i < RB_MAX_BUFFERS; i++)
		free(rb->cursor[i].copy);
	trev__rb_stage_fini(rb);
	pthread_mutex_destroy(&rb->read_lock);
	munmap(rb->base, rb->region_size);
	close(rb->memfd);
	free(rb->page_map);
	free(rb);
}
