/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Ring buffer internals: the shared region, per-thread buffer descriptors,
 * page slots, and the writer/reader protocol.
 *
 * ## Region (one memfd per trev_rb, mapped MAP_SHARED; offsets only)
 *
 *   OFFSET        SIZE                        MEANING
 *   0             4096                        struct rb_region (header)
 *   4096          RB_VIEWS * 64               struct rb_lent_cpu[]: a borrower's
 *                                             per-CPU counts (rb_shm.c)
 *   + RB_VIEWS*64 RB_VIEWS * 64               struct rb_view_pub[]: the process's
 *                                             own per-CPU reader state (rb_shm.c)
 *   + 2*that      RB_VIEWS * 64               struct rb_cpu_lost[]: writer refusals
 *                                             by CPU
 *   desc_off      RB_MAX_BUFFERS * desc size  struct rb_desc[]: one per buffer
 *   slot_off      nr_pages * slot size        struct rb_slot[]: one per page
 *   page_off      nr_pages * 4096             pages (docs/formats.md, "Ring-buffer pages")
 *
 * A buffer owns a run of nr_pages consecutive pages; page sequence number s
 * lives in page first_page + s % nr_pages. Nothing in the region holds a
 * pointer, so another process can map the memfd and read it.
 *
 * ## Writer (the owning thread and its signal handlers, nothing else)
 *
 * The fast path is static inline in rb_api.h; everything else is cold.
 *
 *   reserve:  busy++ ; time stamp ; n = nesting ; nesting = n + 1 +
 *             CLAIM ; gate | n >= MAX ? slow path (paused or n >= MAX,
 *             which includes a CLAIM bit: a handler interrupted the claim
 *             of its thread ? refuse) ; stamp older than the last record
 *             (a handler wrote in between) ? slow path, which stamps
 *             again inside the claim ; claim bytes at tail_off,
 *             resv_off[n] = their offset ; nesting = n + 1 ; busy--
 *   commit:   committed++ ; inner levels: nesting = n ; the outermost
 *             level: c = committed ; publish the page commit (release) ;
 *             nesting = 0 ; committed != c ? (a handler wrote after the
 *             publish) re-enter as a reserve does, and publish again
 *
 *   nesting word:   bits 0..7 levels in progress | RB_NEST_CLAIM
 *
 *        0 --reserve--> n+1+CLAIM --claimed--> n+1 --commit--> n
 *                          |                              (n == 0: publish
 *                          +--refused--> n                 first, then 0)
 *
 * A fast reservation that fails before it claims anything either goes on
 * in the slow path (from n+1+CLAIM) or, for a writer that must not reach
 * it (rb_api.h's rb_reserve_fast_undo()), steps back to n uncounted and
 * writes its record another way.
 *
 * The busy word is the thread's, outside the region (one per thread, for
 * all its buffers): the time stamp is read first, before the buffer is
 * even found, because the TSC takes longest and the rest need not wait
 * for it. A reader that sees neither busy nor nesting set knows that the
 * thread holds no time stamp it has not yet claimed bytes for
 * (rb_in_flight_before()); a stamp that a handler overtook fails the delta
 * test, so no record is older than the one before it in its buffer.
 *
 * A signal handler that writes while its thread is between reserve and
 * commit finds a consistent writer state (no CLAIM bit) and appends
 * behind the interrupted reservation; its event becomes visible when the
 * outermost level commits. A handler that lands inside the few
 * instructions of a claim is refused and counted: the writer state is in
 * flux there. Every handler restores nesting before it returns, so plain
 * read-modify-write is safe for it; counters that a handler may bump use
 * rb_local_add(), one instruction, which a signal cannot split.
 *
 * The gate word (RB_GATE_*) sends writers to the slow path: a control
 * operation (PAUSED: refuse there), a clock the fast path cannot read
 * (CLOCK) or a thread without a busy word (NOBUSY). Its values are above
 * RB_MAX_NEST, so one compare of gate | n tests both the gate and the
 * nesting limit.
 *
 * Invariants the fast path relies on, so that it tests four things only
 * (same CPU, delta below 2^27, a compact record, room below tail_limit):
 * - tail_limit is 0 whenever an event was refused since the page began
 *   (rb_refuse() zeroes it; the slow claim re-checks lost_total at its
 *   end), so the next event takes the slow path and starts a page that
 *   carries the lost count;
 * - tail_flags has RB_TAIL_PENDING while pages the writer left are not
 *   yet published, so the commit takes the slow publish only then; and
 *   without it the tail page is the page of the outermost level's record,
 *   so the commit finds the commit word from the payload pointer;
 * - resv_off[n] is the offset of level n's record in its page; the page
 *   is the one the payload pointer lies in, and the record's own header
 *   gives its size and time delta, which is all trev_rb_discard() needs.
 *
 * ## Page slots: a seqlock per page
 *
 *   writer, starting page N in a slot:  slot.seq = BUSY ; release fence ;
 *       init header and metadata ; slot.seq = N (release)
 *   reader of page N:  seq1 = slot.seq (acquire) == N ? ; copy up to
 *       commit ; acquire fence ; slot.seq == N ? else the copy is stale
 *
 * In overwrite mode the writer reuses the oldest page without waiting; a
 * reader that finds its page gone skips to the oldest page still there and
 * counts the skipped entries (page first_entry numbers) as overrun. In
 * discard mode the writer never passes the consuming reader (read_seq).
 *
 * ## Pausing a buffer (reset, resize): the asymmetric Dekker
 *
 *   control: gate |= PAUSED ; membarrier() ; wait until nesting == 0
 *   writer:  nesting = n + 1 ; compiler barrier ; gate & PAUSED ? refuse
 *
 * The outermost commit's second publish (a handler wrote between its
 * publish and its nesting = 0) enters the same way: nesting = 1, then
 * PAUSED ? leave the handler's event in the tail for the next outermost
 * commit. So a paused buffer is one no writer is touching.
 *
 * membarrier(PRIVATE_EXPEDITED) puts a full barrier in every running
 * thread, so either the writer sees PAUSED or the control thread sees its
 * nesting. The same pairing makes reader wake-ups reliable (waiters).
 *
 * A dying process stops its writers the same way before its trace is
 * read (trev__rb_crash_stop()), with a bit of its own, STOPPED, which
 * writers treat as PAUSED: a control operation's resume does not clear
 * it, nor does the crash's resume clear a control operation's PAUSED.
 */
#ifndef TREV_RB_INTERNAL_H
#define TREV_RB_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <trev/ring_buffer.h>
#include "rb_shm.h"

#include "ring_buffer/rb_clock.h"
#include "ring_buffer/rb_page.h"

/* Slow paths stay out of line, away from the hot path's cache lines. */
#define rb_cold			__attribute__((noinline, cold))

#define RB_MAGIC		0x62727674u	/* "tvrb" */
#define RB_VERSION		6u	/* 3: desc_hwm and the hand-over position;
					 * 4: the per-CPU views' pages, lent;
					 * 5: losses no buffer carries (orphans);
					 * 6: a dead buffer's run moves (moves) */
#define RB_MAX_BUFFERS		1024u	/* per-thread buffers per trev_rb */
#define RB_MAX_SETS		64u	/* trev_rb objects alive at once (trev__rb_tls: static TLS) */
#define RB_MAX_NEST		8u	/* nested writers per thread */
#define RB_MIN_PAGES		2u
#define RB_VIEWS		1024u	/* CPU views at most (more CPUs share them) */
#define RB_LENT_CPUS		RB_VIEWS	/* CPU views whose counts a borrower hands back */
#define RB_ATTACHED_MAX_STEPS	(1u << 16)	/* records and pages one peek of an
						 * attached buffer walks at most */
#define RB_ATTACHED_MAX_STALLS	1000u	/* looks one peek of an attached buffer takes at
					 * a page it cannot copy, while writers write */
#define RB_SEQ_NONE		UINT64_MAX	/* slot holds no page */
#define RB_SEQ_BUSY		(UINT64_MAX - 1)	/* slot is being rewritten */
#define RB_NEST_CLAIM		0x100u	/* nesting: the innermost level is claiming */
#define RB_TAIL_PENDING		(1ull << 63)	/* tail_flags: left pages unpublished; the sign
						 * bit, which the commit's OR sets the flag of */
#define RB_GATE_PAUSED		0x10000u	/* gate: a control operation runs; refuse */
#define RB_GATE_CLOCK		0x20000u	/* gate: the clock is not the TSC; slow path */
#define RB_GEN_OFF		(1ull << 63)	/* fast_gen: tracing_on is 0 */
#define RB_GATE_NOBUSY		0x40000u	/* gate: the thread has no busy word; slow path */
#define RB_GATE_STOPPED		0x80000u	/* gate: a dying process's trace is read; refuse
						 * (trev__rb_crash_stop()) */
#define RB_GATE_REFUSE		(RB_GATE_PAUSED | RB_GATE_STOPPED) /* the slow path refuses */
#define RB_BUSY_MAGIC		0x77627674u	/* "tvbw": the busy area (ring_buffer.c) */
#define RB_BUSY_VERSION		1u
#define RB_BUSY_MAX		65535u	/* threads with a busy word at once */
#define RB_BUSY_STRIDE		64u	/* bytes from one busy word to the next */

/* Entry 0 of the busy area. */
struct rb_busy_head {
	uint32_t magic;		/* RB_BUSY_MAGIC */
	uint32_t version;	/* RB_BUSY_VERSION */
	uint32_t words;		/* words after the header: RB_BUSY_MAX */
};

enum rb_desc_state {
	RB_DESC_FREE,		/* unused */
	RB_DESC_LIVE,		/* owned by a running thread */
	RB_DESC_DEAD,		/* its thread exited; data kept until read/reused */
};

/* Metadata of one page; indexed like the pages. */
struct rb_slot {
	_Atomic uint64_t seq;	/* page sequence number held, or RB_SEQ_* */
	uint64_t first_entry;	/* entry number of the page's first event */
	uint64_t lost;		/* events dropped just before this page */
	uint64_t lost_cum;	/* events dropped before this page, in all */
	uint32_t write_size;	/* data bytes, set when the writer leaves it */
	uint32_t cpu;		/* CPU at the start of the page */
	uint32_t entries;	/* entries on it, set when the writer leaves it */
	uint32_t padded;	/* of which discarded (turned into padding) */
	uint32_t cpu_marks;	/* CPU markers on it (the writer's slow path) */
};

/* A read position in one buffer. */
struct rb_pos {
	uint64_t seq;		/* page sequence number */
	uint32_t off;		/* offset of the next record in its data */
	uint32_t cpu;		/* CPU at off */
	uint64_t ts;		/* time stamp before the record at off */
	uint64_t entry;		/* entry number of the record at off */
	uint64_t lost;		/* lost events to report with the next event */
	uint64_t drops_seen;	/* the writer's drops accounted for so far */
	bool entered;		/* the page's own lost count is taken */
	bool consumed;		/* an event of this page was consumed */
};

/* struct rb_pos as it lies in the region: no bool that another process
 * could fill with a value C does not allow. */
struct rb_pos_shared {
	uint64_t seq, ts, entry, lost, drops_seen;
	uint32_t off, cpu;
	uint8_t entered, consumed, pad[6];
};

/* A consuming position lent to another process, in the region (rb_shm.c). */
struct rb_handoff {
	uint32_t valid;		/* 1: pos holds a position */
	uint32_t pad;
	uint64_t gen;		/* the buffer's gen it belongs to */
	struct rb_pos_shared pos;
};

/* Per-thread buffer descriptor, in the region. */
struct rb_desc {
	/* Writer-owned; read by others only through atomics. */
	alignas(64) _Atomic uint32_t nesting; /* levels in progress | RB_NEST_CLAIM; first,
						 * so that its address is the descriptor's */
	uint32_t tail_off;	/* data bytes used on the tail page */
	_Atomic uint32_t tail_limit; /* usable data bytes on it; 0 after a refusal */
	uint32_t tail_page;	/* its region page number */
	uint32_t cpu;		/* CPU of the last record */
	uint64_t last_ts;	/* time of the last record */
	uint64_t next_entry;	/* entry number of the next event */
	uint64_t tail_flags;	/* its commit-word flags (lost events) | RB_TAIL_PENDING */
	uint32_t resv_off[RB_MAX_NEST]; /* record offset of each level's reservation */
	_Atomic uint64_t tail_seq; /* page being written, RB_SEQ_NONE if none */
	_Atomic uint64_t first_seq; /* no page before it exists any more */
	uint64_t lost_seen;	/* lost_total when the current page began */
	/* Counters: rb_local_inc() by writers, atomic loads by readers. */
	_Atomic uint64_t lost_total; /* events refused, all reasons */
	_Atomic uint64_t committed; /* events committed (entries-written) */
	_Atomic uint64_t commit_overrun; /* refused: wrapped onto uncommitted data */
	/* Published to readers. */
	_Atomic uint64_t commit_seq; /* pages before it are final */

	/* Control: the fast path runs only while it is 0. */
	alignas(64) _Atomic uint32_t gate; /* RB_GATE_* */

	/* Lifecycle: changed under the set's pool lock. */
	_Atomic uint32_t state;	/* enum rb_desc_state */
	uint32_t first_page;	/* first page of the run */
	uint32_t nr_pages;	/* pages in the run */
	int32_t tid;		/* owning thread */
	uint32_t busy_ix;	/* its busy word (trev__rb_busy_word()), 0 if none */
	_Atomic uint64_t gen;	/* bumped on reuse, reset, resize */
	char comm[16];		/* thread name at creation, then at its exit:
				 * rb_comm_store() / rb_comm_load() only */
	_Atomic uint32_t moves;	/* bumped after the run (first_page, nr_pages)
				 * moved, before the old run is freed: a reader
				 * that sees it change drops its copy (rb_run_begin()) */

	/* Consuming reader's position (under the reader lock). */
	alignas(64) _Atomic uint64_t read_seq; /* page being read; writer reads it */
	_Atomic uint64_t overrun; /* entries skipped because overwritten */
	_Atomic uint64_t read_events; /* events consumed */

	/* The consuming position handed between processes (rb_shm.c). */
	alignas(64) _Atomic uint32_t handoff_seq; /* odd while handoff is being written */
	struct rb_handoff handoff;
};

_Static_assert(offsetof(struct rb_desc, comm) % 8 == 0, "comm is two aligned words");
_Static_assert(offsetof(struct rb_desc, first_page) % 8 == 0 &&
		       offsetof(struct rb_desc, nr_pages) == offsetof(struct rb_desc, first_page) + 4,
	       "the run is one aligned word (rb_run_load())");

/*
 * A buffer's thread name, as two 8-byte words stored and loaded atomically:
 * written by its thread (creation, exit), read by any reader without a lock.
 * A reader that sees RB_DESC_DEAD (acquire) sees the name stored before it;
 * a live buffer's name may be read half old, half new, so readers name a
 * live thread from /proc instead.
 */
static inline void rb_comm_store(struct rb_desc *d, const char name[16])
{
	uint64_t w[2];

	memcpy(w, name, sizeof(w));
	__atomic_store_n((uint64_t *)(void *)d->comm, w[0], __ATOMIC_RELAXED);
	__atomic_store_n((uint64_t *)(void *)d->comm + 1, w[1], __ATOMIC_RELAXED);
}

static inline void rb_comm_load(const struct rb_desc *d, char name[16])
{
	uint64_t w[2];

	w[0] = __atomic_load_n((const uint64_t *)(const void *)d->comm, __ATOMIC_RELAXED);
	w[1] = __atomic_load_n((const uint64_t *)(const void *)d->comm + 1, __ATOMIC_RELAXED);
	memcpy(name, w, sizeof(w));
	name[15] = '\0';
}

/* Region header. */
struct rb_region {
	uint32_t magic;		/* RB_MAGIC */
	uint32_t version;	/* RB_VERSION */
	uint32_t page_size;	/* TREV_RB_PAGE_SIZE */
	uint32_t nr_pages;	/* pages in the region */
	uint64_t desc_off;	/* offset of the descriptor table */
	uint64_t slot_off;	/* offset of the slot table */
	uint64_t page_off;	/* offset of the first page */
	_Atomic uint32_t record_on; /* tracing_on */
	_Atomic uint32_t overwrite; /* 1 = overwrite mode */
	_Atomic uint32_t clock;	/* enum trev_clock */
	_Atomic uint32_t size_pages; /* size of new buffers */
	_Atomic uint32_t cap_pages; /* cap on pages handed out */
	_Atomic uint32_t used_pages; /* pages handed out */
	_Atomic uint32_t waiters; /* readers about to sleep */
	_Atomic uint32_t wake_seq; /* futex word readers sleep on */
	_Atomic uint64_t nobuf_dropped; /* events refused: no buffer */
	_Atomic uint64_t reclaimed_lost; /* unread events of recycled dead buffers */
	_Atomic uint64_t counter; /* the counter clock */
	_Atomic uint32_t desc_hwm; /* descriptors [0, desc_hwm) were ever used */
	_Atomic uint32_t lent;	/* the consuming position is lent (rb_shm.c) */
	_Atomic uint64_t orphans; /* sum of the views' orphan counts: a consumer
				   * looks at the views only when it moved */
};

/*
 * While the consuming position is lent (rb_shm.c): the borrower's counts
 * of one CPU view, in the pages after the header. The lender's per-CPU
 * statistics add them; what it staged and did not hand back
 * (trev_rb_stage_export()) counts as lost when the position returns.
 */
struct rb_lent_cpu {
	_Atomic uint64_t read_events;	/* events of the CPU it consumed */
	_Atomic uint64_t buf_overrun;	/* overruns it met, by CPU */
	_Atomic uint64_t overrun;	/* staged events its full queue dropped (overwrite) */
	_Atomic uint64_t dropped;	/* events its full queue refused (discard) */
	_Atomic uint64_t staged;	/* unread events in its staging queue */
	_Atomic uint64_t unreported;	/* losses it owes a report of: pending,
					 * and the lost counts of its staged pages */
	_Atomic uint64_t took;		/* staged events the lender handed it */
	_Atomic uint64_t took_lost;	/*   and the lost counts with them */
};

/*
 * The process's own reader state of one CPU view, published after every
 * consuming call (trev__rb_sync()), for statistics read from the mapping:
 * what its staging queue holds, and its counters (struct rb_stage).
 */
struct rb_view_pub {
	_Atomic uint64_t entries;	/* unread staged events */
	_Atomic uint64_t bytes;		/* their data bytes */
	_Atomic uint64_t oldest_ts;	/* time stamp of the first of them */
	_Atomic uint64_t read_events;	/* events of the CPU consumed */
	_Atomic uint64_t overrun;	/* buffer overruns met, and staged events dropped */
	_Atomic uint64_t dropped;	/* events the full queue refused */
	uint64_t pad[2];
};

/* Process-local reader state of one buffer: a position and a page copy. */
struct rb_cursor {
	struct rb_pos pos;	/* consuming reader's position */
	uint64_t gen;		/* desc gen the position belongs to */
	uint8_t *copy;		/* private copy of page pos.seq, header included */
	uint64_t copy_seq;	/* which page; RB_SEQ_NONE if none */
	uint32_t copy_size;	/* data bytes copied: the copy's commit word holds
				 * them (a page to rb_page_for_each()) */
	bool copy_final;	/* the page was complete when copied */
	struct rb_slot meta;	/* its slot metadata at copy time */
	bool handoff_dirty;	/* attached: the position moved since its last handoff */
	uint64_t stuck_write;	/* a write of this buffer's thread that readers waited
				 * rb_settle_ms for in vain: not waited for again
				 * (rb_read.c, rb_in_flight_before()); 0 for none */
};

/*
 * Per-CPU views (rb_stage.c has the design): a queue of staged pages per
 * CPU, process-private, under read_lock.
 */
#define RB_STAGE_MAX_EVENTS	(RB_DATA_SIZE / 8u)	/* smallest record: 8 bytes */
/* Staged pages keep room for a lost-event count, as the writer's pages do. */
#define RB_STAGE_LIMIT		(RB_DATA_SIZE - 8u)

/* What a staged event keeps beside its page. */
struct rb_smeta {
	int32_t tid;		/* thread that wrote it */
	uint16_t buffer;	/* id of the per-thread buffer it came from */
	uint16_t cpu;		/* CPU it ran on (the view, unless >= nr_cpus) */
};

/* One staged page: a kernel-format page of one CPU's events. */
struct rb_spage {
	struct rb_spage *next;	/* newer page, NULL for the tail */
	uint32_t size;		/* data bytes written */
	uint32_t nr;		/* events on it */
	uint32_t rd;		/* of which consumed */
	uint32_t rd_off;	/* offset of the next unread record */
	uint32_t ev_bytes;	/* data bytes of its unread events */
	uint64_t rd_ts;		/* time stamp before the record at rd_off */
	uint64_t last_ts;	/* time stamp of the last record */
	uint64_t lost;		/* events lost before its first unread event */
	struct rb_smeta meta[RB_STAGE_MAX_EVENTS]; /* per event, in page order */
	uint8_t page[RB_PAGE_SIZE]; /* header (filled when handed out) and data */
};

/* The staging queue and counters of one CPU view. */
struct rb_stage {
	struct rb_spage *head;	/* oldest page, NULL when empty */
	struct rb_spage *tail;	/* newest page */
	uint32_t nr_pages;	/* pages queued */
	uint64_t entries;	/* unread events queued */
	uint64_t pending;	/* lost events not reported yet: they go with the
				 * next event of this CPU, staged or not */
	uint64_t overrun;	/* staged events dropped to make room (overwrite) */
	uint64_t dropped;	/* events refused by a full queue (discard) */
	uint64_t buf_overrun;	/* buffer overruns attributed to this CPU */
	uint64_t read_events;	/* events of this CPU consumed, by any reader */
	uint64_t bytes;		/* data bytes of the unread events queued */
	uint64_t back_staged;	/* while lent: staged events the borrower handed back
				 * (in a borrower: those the lender handed it) */
	uint64_t back_lost;	/*   and the lost counts that came with them */
	uint64_t out_staged;	/* while lent: staged events handed to the borrower */
	uint64_t out_lost;	/*   and the lost counts that went with them */
};

/*
 * Writer refusals by the CPU the writer was on; one cache line each. And
 * the losses no buffer carries (*orphans*): events refused because their
 * thread got no buffer, an exited thread's refusals that no page of its
 * carries (its last writes), and the unread events of an exited thread's
 * buffer recycled under the memory cap (ring_buffer.c, rb_reclaim()). No
 * later event of a buffer reports them, so the consuming reader takes
 * them (orphan - orphan_taken) into the view's pending losses
 * (rb_read.c, rb_take_orphans()), which go with the view's next event
 * or page; being in the region, a borrower takes them where the process
 * left off.
 */
struct rb_cpu_lost {
	alignas(64) _Atomic uint64_t dropped; /* refused: full, recursion, paused, no buffer */
	_Atomic uint64_t commit_overrun; /* refused: nested writes wrapped */
	_Atomic uint64_t recycled; /* unread events of recycled buffers (stats: overrun) */
	_Atomic uint64_t orphan; /* losses no buffer carries, ever counted here */
	_Atomic uint64_t orphan_taken; /* of which the consuming reader took (under its
					* read_lock; only one process consumes at a time) */
};

struct trev_rb {
	struct rb_region *hdr;	/* the mapped region */
	uint8_t *base;		/* == (uint8_t *)hdr */
	struct rb_desc *descs;	/* descriptor table in the region */
	uint8_t *pages;		/* first page in the region */
	size_t region_size;
	uint64_t slot_off;	/* the region's geometry, as set up (or checked by */
	uint64_t page_off;	/*   trev_rb_attach()): never read back from the region */
	uint32_t nr_pages;	/*   that another process may scribble on */
	int memfd;
	bool attached;		/* another process's buffer, read through trev_rb_attach() */
	const uint8_t *busy_map; /* attached: its process's busy area, or NULL */
	uint32_t busy_words;	/*   the words in it (checked against its size) */
	_Atomic bool writers_gone; /* attached: its process died (trev_rb_writers_gone()) */
	_Atomic uint32_t lent;	/* consuming positions lent to other processes
				 * (trev_rb_lend_consumer()): local consumers get -EBUSY */
	unsigned int set;	/* index of this set's TLS slot */
	uintptr_t tls_off;	/* &trev__rb_tls[set] - thread pointer, the same in every thread */
	uint64_t set_gen;	/* matches the TLS entries of this set */
	_Atomic uint64_t fast_gen; /* set_gen | RB_GEN_OFF while tracing is off: the
				    * fast path's one compare tests both */
	_Atomic uint32_t tsc_clock; /* clock is `local` on a usable TSC; set while paused */
	_Atomic int pool_lock;	/* tid of the holder, 0 when free */
	uint8_t *page_map;	/* 1 byte per region page: in use */
	_Atomic uint64_t free_gen; /* bumped whenever pages are freed */
	_Atomic bool reclaiming; /* a new thread holds read_lock to make room
				  * (ring_buffer.c, rb_desc_new()) */
	_Atomic uint32_t desc_hwm; /* descriptors [0, desc_hwm) were ever used */
	pthread_mutex_t read_lock; /* serialises consumers and control */
	struct rb_cursor cursor[RB_MAX_BUFFERS];
	uint64_t stuck_writes;	/* writes readers waited for in vain (rb_read.c,
				 * rb_settle_wait()), under read_lock */
	bool damaged;		/* attached, writers gone: a read found damage; every
				 * read returns -EUCLEAN (rb_read.c), under read_lock */
	struct trev_rb_damage damage; /*   where (trev_rb_damaged()) */
	_Atomic uint32_t wake_all; /* bumped by trev_rb_wake_readers */
	int nr_cpus;		/* CPU views (sysconf(_SC_NPROCESSORS_CONF)) */
	struct rb_stage *stage;	/* [nr_cpus], under read_lock */
	struct rb_spage *stage_free; /* pages to reuse, under read_lock */
	uint32_t stage_nr_free;	/* pages on it */
	struct rb_cpu_lost *cpu_lost; /* [nr_cpus] in the region, written by refusing writers */
	uint64_t pub_dirty[RB_VIEWS / 64]; /* views to publish (trev__rb_sync()), under read_lock */
	bool pos_dirty;		/* some cursor's handoff_dirty is set, under read_lock */
	bool borrower;		/* attached, and it consumed: the lent counts are its own */
	uint64_t orphans_seen;	/* hdr->orphans when the views were last looked at */
	_Atomic uint32_t sleepers; /* readers asleep that staging must wake */
	struct {		/* settings kept across fork() */
		uint32_t nr_pages, size_pages, cap_pages, record_on;
		int overwrite, clock;
	} saved;
};

/* TLS entry: the calling thread's buffer in one set. */
struct rb_tls {
	struct rb_desc *desc;	/* valid when set_gen is the set's */
	uint64_t set_gen;	/* trev_rb the entry belongs to; 0 when desc is NULL */
	uint64_t fail_set;	/* set_gen of the set where making a buffer last failed */
	uint64_t fail_gen;	/* its free_gen then */
	_Atomic uint32_t making; /* set_gen's low bits + 1 while this thread makes
				  * its buffer of the set (a signal handler then
				  * refuses); atomic only for tests that watch it */
	_Atomic uint64_t refused_making; /* events handlers refused meanwhile: the
					  * new buffer reports them as lost */
};

/*
 * The model must be on the declarations too: without it, code in other
 * files (the event layer) reaches them through __tls_get_addr() calls.
 */
#define RB_TLS			__thread __attribute__((tls_model("initial-exec")))

extern RB_TLS struct rb_tls trev__rb_tls[RB_MAX_SETS];
/* The calling thread's rseq cpu_id (or a -1 without rseq); set with its first buffer. */
extern RB_TLS const volatile int32_t *trev__rb_cpu_id;

/*
 * trev__rb_this_cpu() - the CPU the ring buffer would record for the
 * calling thread now: glibc's rseq area, else (no rseq, or before the
 * thread's first buffer) sched_getcpu(). What a filter's CPU predicate
 * compares in the library.
 * Context: any thread, async-signal-safe.
 */
static inline int trev__rb_this_cpu(void)
{
	const volatile int32_t *id = trev__rb_cpu_id;
	int32_t cpu = id ? *id : -1;

	return cpu >= 0 ? cpu : sched_getcpu();
}

/* The borrower's counts of CPU view @v < RB_VIEWS. */
static inline struct rb_lent_cpu *rb_lent(const struct trev_rb *rb, uint32_t v)
{
	return (struct rb_lent_cpu *)(void *)(rb->base + RB_PAGE_SIZE) + v;
}

/* The published reader state of CPU view @v < RB_VIEWS. */
static inline struct rb_view_pub *rb_pub(const struct trev_rb *rb, uint32_t v)
{
	return (struct rb_view_pub *)(void *)(rb->base + RB_PAGE_SIZE +
					      (uint64_t)RB_VIEWS * sizeof(struct rb_lent_cpu)) + v;
}

/* Where the writers' refusals by CPU lie in a region mapped at @base. */
static inline struct rb_cpu_lost *rb_region_cpu_lost(uint8_t *base)
{
	return (struct rb_cpu_lost *)(void *)(base + RB_PAGE_SIZE +
					      (uint64_t)RB_VIEWS * (sizeof(struct rb_lent_cpu) +
								    sizeof(struct rb_view_pub)));
}

/*
 * Count @n losses no buffer carries (struct rb_cpu_lost) for CPU view @v:
 * the view's count first, then the sum a consumer polls, so that one who
 * sees the sum move sees the view's count too.
 */
static inline void rb_orphan_add(struct trev_rb *rb, int v, uint64_t n)
{
	if (!n)
		return;
	atomic_fetch_add_explicit(&rb->cpu_lost[v].orphan, n, memory_order_relaxed);
	atomic_fetch_add_explicit(&rb->hdr->orphans, n, memory_order_release);
}

/* CPU view @v's published state changed: trev__rb_sync() copies it out. */
static inline void rb_pub_touch(struct trev_rb *rb, int v)
{
	rb->pub_dirty[(uint32_t)v / 64] |= 1ull << ((uint32_t)v % 64);
}

static inline struct rb_slot *rb_slot_of(const struct trev_rb *rb, uint32_t page)
{
	return (struct rb_slot *)(rb->base + rb->slot_off) + page;
}

static inline uint8_t *rb_page_ptr(const struct trev_rb *rb, uint32_t page)
{
	return rb->base + rb->page_off + (uint64_t)page * RB_PAGE_SIZE;
}

/* Region page number that holds page sequence @seq of @d (the writer's own @d). */
static inline uint32_t rb_page_of_seq(const struct rb_desc *d, uint64_t seq)
{
	return d->first_page + (uint32_t)(seq % d->nr_pages);
}

/* A buffer's run of pages, both halves from one load. */
static inline void rb_run_load(const struct rb_desc *d, uint32_t *first, uint32_t *nr)
{
	uint64_t v = __atomic_load_n((const uint64_t *)(const void *)&d->first_page,
				     __ATOMIC_ACQUIRE);
	uint32_t w[2];

	memcpy(w, &v, sizeof(w));
	*first = w[0];
	*nr = w[1];
}

/* Set @d's run in one store, so that a reader never sees half of it. */
static inline void rb_run_store(struct rb_desc *d, uint32_t first, uint32_t nr)
{
	uint32_t w[2] = { first, nr };
	uint64_t v;

	memcpy(&v, w, sizeof(v));
	__atomic_store_n((uint64_t *)(void *)&d->first_page, v, __ATOMIC_RELEASE);
}

/*
 * A dead buffer's run may move to a smaller one (ring_buffer.c,
 * rb_shrink_dead()) while a reader of another process reads it: the new
 * run holds the same pages under the same sequence numbers, and the old
 * one is freed, and may be reused, only after moves is bumped. So a
 * reader takes rb_run_begin() before it looks up a page and checks
 * rb_run_same() after its copy passed the slot's seqlock: a copy from a
 * run freed meanwhile fails it. Local readers hold read_lock, which the
 * move holds too.
 */
static inline uint32_t rb_run_begin(const struct rb_desc *d)
{
	return atomic_load_explicit(&d->moves, memory_order_acquire);
}

static inline bool rb_run_same(const struct rb_desc *d, uint32_t moves)
{
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&d->moves, memory_order_relaxed) == moves;
}

/*
 * The same for a reader, which may meet a descriptor being reused, or one
 * that another process wrote anything into (trev_rb_attach()): the run is
 * read once and checked against the region. Return: 0, or -ESTALE.
 */
static inline int rb_reader_page(const struct trev_rb *rb, const struct rb_desc *d,
				 uint64_t seq, uint32_t *page)
{
	uint32_t first, nr;

	rb_run_load(d, &first, &nr);
	if (nr == 0 || first >= rb->nr_pages || nr > rb->nr_pages - first)
		return -ESTALE;
	*page = first + (uint32_t)(seq % nr);
	return 0;
}

/*
 * Increment a counter that a signal handler of the same thread may also
 * increment: one instruction (no lock prefix) on x86, so it cannot be split
 * by a signal; readers on other threads see whole values.
 */
static inline void rb_local_add(_Atomic uint64_t *p, uint64_t v)
{
#if defined(__x86_64__) && !defined(TREV_TSAN)
	__asm__ __volatile__("addq %1, %0" : "+m"(*(uint64_t *)p) : "er"(v));
#else
	atomic_fetch_add_explicit(p, v, memory_order_relaxed);
#endif
}

/* Clear @bits of a writer-owned word, in one instruction as rb_local_add(). */
static inline void rb_local_clear(uint64_t *p, uint64_t bits)
{
#if defined(__x86_64__) && !defined(TREV_TSAN)
	__asm__ __volatile__("andq %1, %0" : "+m"(*p) : "r"(~bits));
#else
	__atomic_fetch_and(p, ~bits, __ATOMIC_RELAXED);
#endif
}

/*
 * Copy @n bytes that a writer may be changing meanwhile; the caller then
 * throws the copy away (seqlock), so this racy read is intended and hidden
 * from ThreadSanitizer.
 */
#ifdef TREV_TSAN
__attribute__((no_sanitize("thread"), __noinline__, __unused__)) static void rb_copy_racy(uint8_t *dst,
									const uint8_t *src,
									uint32_t n)
{
	const volatile uint8_t *s = src;

	for (uint32_t i = 0; i < n; i++)
		dst[i] = s[i];
}
#else
static inline void rb_copy_racy(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	memcpy(dst, src, n);
}
#endif

/*
 * Seqlock read side: order the reads of a copy before the second look at
 * the sequence number. ThreadSanitizer does not model fences, so its build
 * uses a read-modify-write that orders the same way.
 */
static inline uint64_t rb_seq_recheck(_Atomic uint64_t *seq)
{
#ifdef TREV_TSAN
	return atomic_fetch_add_explicit(seq, 0, memory_order_acq_rel);
#else
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(seq, memory_order_relaxed);
#endif
}

static inline uint32_t rb_seq_recheck32(_Atomic uint32_t *seq)
{
#ifdef TREV_TSAN
	return atomic_fetch_add_explicit(seq, 0, memory_order_acq_rel);
#else
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(seq, memory_order_relaxed);
#endif
}

static inline uint64_t rb_load(const _Atomic uint64_t *p)
{
	return atomic_load_explicit(p, memory_order_relaxed);
}

/* Internal entry points shared by the ring buffer's files. */
int trev__rb_pool_lock(struct trev_rb *rb, bool may_wait);
void trev__rb_pool_unlock(struct trev_rb *rb);
void trev__rb_desc_clear(struct trev_rb *rb, struct rb_desc *d);
void trev__rb_free_desc(struct trev_rb *rb, struct rb_desc *d);
int trev__rb_alloc_run(struct trev_rb *rb, uint32_t nr, uint32_t *first);
void trev__rb_free_run(struct trev_rb *rb, uint32_t first, uint32_t nr);
void trev__rb_wake(struct trev_rb *rb);
void trev__rb_cursor_sync(struct trev_rb *rb, struct rb_desc *d, struct rb_cursor *c);
void trev__membarrier(void);

/*
 * Sharing the region with other processes (rb_shm.c): its geometry, the
 * descriptors in use, and the consuming position handed between processes.
 */
size_t trev__rb_geometry(uint32_t nr_pages, uint64_t *desc_off, uint64_t *slot_off,
			 uint64_t *page_off);
uint32_t trev__rb_hwm(struct trev_rb *rb);
void trev__rb_handoff_put(struct rb_desc *d, const struct rb_cursor *c);
void trev__rb_consumer_pos(struct trev_rb *rb, uint32_t i, struct rb_cursor *out);
void trev__rb_detach(struct trev_rb *rb);
void trev__rb_lent_sync(struct trev_rb *rb);
void trev__rb_sync(struct trev_rb *rb);
void trev__rb_views_reset(struct trev_rb *rb);
size_t trev__rb_views_size(void);
uint64_t trev__rb_lent_entries(struct trev_rb *rb, int v);
void trev__rb_global_init(void);
int trev__rb_create_in(struct trev_rb **out, const struct trev_rb_options *opts, int file);

/* The CPU view an event of @cpu belongs to. */
static inline int rb_view(const struct trev_rb *rb, uint32_t cpu)
{
	return cpu < (uint32_t)rb->nr_cpus ? (int)cpu : (int)(cpu % (uint32_t)rb->nr_cpus);
}

/* Staging queues (rb_stage.c); every call but init/fini under read_lock. */
int trev__rb_stage_init(struct trev_rb *rb);
void trev__rb_stage_fini(struct trev_rb *rb);
void trev__rb_stage_clear(struct trev_rb *rb, bool may_free);
void trev__rb_stage_push(struct trev_rb *rb, const struct rb_rec *r, uint64_t lost,
			 uint32_t cpu, uint32_t buffer, int32_t tid);
bool trev__rb_stage_peek(struct trev_rb *rb, int view, struct rb_rec *r);
void trev__rb_stage_pop(struct trev_rb *rb, int view, struct trev_rb_event *ev, uint8_t *out);
bool trev__rb_stage_head_full(struct trev_rb *rb, int view);
void trev__rb_stage_take_page(struct trev_rb *rb, int view, uint8_t *page);

/* A private copy of staged pages, for the iterator. */
struct rb_stage_snap {
	struct rb_spage *head;	/* copies, oldest first */
	int view;		/* their CPU view */
};
int trev__rb_stage_snap(struct trev_rb *rb, int view, struct rb_stage_snap *snap);
bool trev__rb_stage_snap_peek(struct rb_stage_snap *snap, struct rb_rec *r);
void trev__rb_stage_snap_next(struct rb_stage_snap *snap, struct trev_rb_event *ev);
void trev__rb_stage_snap_free(struct rb_stage_snap *snap);

/* The busy word of a buffer's thread, from its desc's busy_ix (not 0). */
_Atomic uint32_t *trev__rb_busy_word(uint32_t busy_ix);
/* Busy words that threads hold now (for tests). */
unsigned int trev__rb_busy_taken(void);

/* The child that writes a dying process's trace (ring_buffer.c, frontend/crash.c). */
void trev__rb_fork_share(bool share);
void trev__rb_crash_child(void);
void trev__rb_crash_stop(void);
void trev__rb_crash_resume(void);

/* The calling thread's id, cached per thread (reset in a forked child). */
extern __thread int trev__rb_tid __attribute__((tls_model("initial-exec")));
int trev__gettid_slow(void);

static inline int trev__gettid(void)
{
	int tid = trev__rb_tid;

	return trev_likely(tid != 0) ? tid : trev__gettid_slow();
}

#endif /* TREV_RB_INTERNAL_H */
