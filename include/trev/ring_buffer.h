/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trev ring buffer: per-thread writer buffers of kernel-format pages,
 * merged readers, page reads and per-buffer statistics.
 *
 * A struct trev_rb is one trace buffer (the kernel's struct trace_buffer):
 * every thread that writes to it gets a buffer of its own on its first
 * event. Writers never lock, allocate or make a system call in the common
 * case; readers merge the buffers by time stamp.
 */
#ifndef TREV_RING_BUFFER_H
#define TREV_RING_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <trev/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Page ("sub-buffer") size; the page layout is the kernel's
 * (docs/formats.md, "Ring-buffer pages"). */
#define TREV_RB_PAGE_SIZE	4096u
/* Default size of each per-thread buffer (the kernel's default buffer_size_kb). */
#define TREV_RB_DEFAULT_SIZE_KB	1408u
/* Default cap on the memory of all buffers of one trev_rb. */
#define TREV_RB_DEFAULT_CAP_KB	(256u * 1024u)
/* Largest payload one record can carry. */
#define TREV_RB_MAX_EVENT	(TREV_RB_PAGE_SIZE - 16u - 8u - 8u)

enum trev_clock {
	TREV_CLOCK_LOCAL,	/* TSC calibrated to ns (invariant TSC), else mono */
	TREV_CLOCK_MONO,	/* CLOCK_MONOTONIC */
	TREV_CLOCK_MONO_RAW,	/* CLOCK_MONOTONIC_RAW */
	TREV_CLOCK_BOOT,	/* CLOCK_BOOTTIME */
	TREV_CLOCK_COUNTER,	/* a process-wide counter, not a time */
	TREV_CLOCK__COUNT
};

struct trev_rb_options {
	unsigned int size_kb;	/* per-thread buffer size; 0 = default */
	unsigned int cap_kb;	/* memory cap over all buffers; 0 = default */
	int overwrite;		/* 1 = flight recorder, 0 = drop new events when full */
	int clock;		/* enum trev_clock, or -1 for the default clock */
};

struct trev_rb;

/* One event as a reader sees it. */
struct trev_rb_event {
	uint64_t ts;		/* time stamp in the buffer's clock (ns) */
	uint64_t lost;		/* events of this buffer lost just before this one */
	const void *data;	/* payload; how long it stays valid: see each reader */
	uint32_t len;		/* payload length, padded to 4 bytes */
	int cpu;		/* CPU the event ran on */
	pid_t tid;		/* thread that wrote it */
	unsigned int buffer;	/* id of the per-thread buffer */
};

/* The kernel's per_cpu/cpuN/stats fields, for one per-thread buffer. */
struct trev_rb_stats {
	uint64_t entries;	/* events that can still be read */
	uint64_t overrun;	/* events overwritten before they were read */
	uint64_t commit_overrun; /* events dropped: nested writes wrapped the buffer */
	uint64_t bytes;		/* bytes of unread data */
	uint64_t oldest_event_ts; /* time stamp of the oldest unread event, 0 if none */
	uint64_t now_ts;	/* the clock now */
	uint64_t dropped_events; /* events refused: buffer full, recursion, paused */
	uint64_t read_events;	/* events consumed by readers */
	uint64_t written;	/* events committed (entries-written) */
	pid_t tid;		/* owning thread */
	int alive;		/* 1 while the thread lives */
	unsigned int size_kb;	/* size of this buffer */
	char comm[16];		/* thread name: at the buffer's creation, then at the thread's exit */
};

/*
 * trev_rb_create() - make a trace buffer
 * @out: receives the buffer
 * @opts: sizes, mode and clock; NULL for the defaults
 *
 * At most 64 buffers exist at once: each thread's slots for them are in
 * static TLS, which cannot grow.
 *
 * Context: any thread, not signal-safe (allocates, makes system calls).
 * Return: 0 or a negative errno; -ENOSPC when 64 buffers exist.
 */
TREV_API int trev_rb_create(struct trev_rb **out, const struct trev_rb_options *opts);

/*
 * trev_rb_destroy() - free a trace buffer
 * Context: no thread may be writing to @rb or reading it any more.
 */
TREV_API void trev_rb_destroy(struct trev_rb *rb);

/*
 * trev_rb_reserve() - reserve space for one event in the caller's buffer
 * @rb: the trace buffer
 * @len: payload bytes, 1..TREV_RB_MAX_EVENT
 *
 * Creates the calling thread's buffer on its first event. Reservations nest
 * (a signal handler may write while its thread is between reserve and
 * commit); they must be committed or discarded in reverse order.
 *
 * Context: any thread, async-signal-safe.
 * Return: a pointer to @len writable bytes, or NULL when the event is
 * refused (recording off, buffer full, recursion too deep); refusals other
 * than recording off are counted as dropped.
 */
TREV_API void *trev_rb_reserve(struct trev_rb *rb, uint32_t len);

/*
 * trev_rb_commit() - make the innermost reservation visible to readers
 * @data: the pointer trev_rb_reserve() returned
 *
 * Events become visible when the outermost nested writer commits.
 * Context: the thread that reserved, async-signal-safe.
 */
TREV_API void trev_rb_commit(struct trev_rb *rb, void *data);

/*
 * trev_rb_discard() - drop the innermost reservation; readers never see it
 * Context: the thread that reserved, async-signal-safe.
 */
TREV_API void trev_rb_discard(struct trev_rb *rb, void *data);

/*
 * trev_rb_write() - reserve, copy and commit one event
 * Return: 0, or -ENOSPC when the event was refused.
 */
TREV_API int trev_rb_write(struct trev_rb *rb, const void *data, uint32_t len);

/* tracing_on: while off, writers refuse events at the cost of one load. */
TREV_API void trev_rb_record_on(struct trev_rb *rb);
TREV_API void trev_rb_record_off(struct trev_rb *rb);
TREV_API int trev_rb_record_is_on(const struct trev_rb *rb);

/*
 * Run-time settings. Each returns 0 or a negative errno and leaves the old
 * setting in force on error. Resizing keeps the newest data that fits (what
 * is cut off counts as overrun); changing the clock clears the buffers, as
 * the kernel does. Context: any thread but a writer's signal handler.
 */
TREV_API int trev_rb_resize(struct trev_rb *rb, unsigned int size_kb);
TREV_API unsigned int trev_rb_size_kb(const struct trev_rb *rb);
TREV_API int trev_rb_set_cap(struct trev_rb *rb, unsigned int cap_kb);
TREV_API unsigned int trev_rb_cap_kb(const struct trev_rb *rb);
TREV_API int trev_rb_set_overwrite(struct trev_rb *rb, int overwrite);
TREV_API int trev_rb_overwrite(const struct trev_rb *rb);
TREV_API int trev_rb_set_clock(struct trev_rb *rb, int clock);
TREV_API int trev_rb_clock(const struct trev_rb *rb);
TREV_API const char *trev_clock_name(int clock);
TREV_API int trev_clock_from_name(const char *name);

/* The buffer's clock now, in its units. Context: any, signal-safe. */
TREV_API uint64_t trev_rb_clock_now(struct trev_rb *rb);

/* Discard every event in every buffer and in the staging queues of the
 * per-CPU readers, and zero the counters (echo > trace). */
TREV_API int trev_rb_reset(struct trev_rb *rb);

/*
 * trev_rb_consume() - read and remove the oldest event of all buffers
 * @ev: receives the event; ev->data is a copy of the payload, owned by the
 *      calling thread, that stays valid until the thread's next
 *      trev_rb_consume() or trev_rb_consume_cpu() call (other readers,
 *      statistics and iterators never touch it)
 *
 * Events that per-CPU readers staged are merged by time stamp; losses a
 * staging queue noted go in ev->lost of the next event of that CPU.
 * @timeout_ms: 0 = do not wait, -1 = wait for ever, else wait that long
 *
 * Context: any thread; consuming readers are serialised.
 * Return: 1 with an event, 0 when none arrived in time, -EINTR when
 * trev_rb_wake_readers() was called, or a negative errno.
 */
TREV_API int trev_rb_consume(struct trev_rb *rb, struct trev_rb_event *ev, int timeout_ms);

/*
 * trev_rb_wait() - block until some buffer or staging queue has unread data
 * Return: 1 when data is there, 0 on time-out, -EINTR when woken.
 */
TREV_API int trev_rb_wait(struct trev_rb *rb, int timeout_ms);

/* Make every blocked consume/wait return -EINTR (used on shutdown). */
TREV_API void trev_rb_wake_readers(struct trev_rb *rb);

/*
 * trev_rb_read_page() - consume one page of the buffer with the oldest data
 * @page: TREV_RB_PAGE_SIZE bytes; receives a page in the kernel format, with
 *        the lost-events flags and count where events were lost before it
 * @buffer: if not NULL, receives the id of the buffer the page came from
 *
 * A partly consumed or still growing page is returned as a new page holding
 * what is left, as the kernel's ring_buffer_read_page() does. Pages of
 * events a per-CPU reader staged (see trev_rb_consume_cpu()) are handed out
 * too, when their first event is the oldest; *@buffer is TREV_RB_STAGED for
 * them. Losses noted in staging go in the lost count of the next page.
 * Return: 1 with a page, 0 when nothing is unread, or a negative errno.
 */
TREV_API int trev_rb_read_page(struct trev_rb *rb, void *page, unsigned int *buffer);

/* trev_rb_read_page()'s buffer id of a page of staged events (one CPU's). */
#define TREV_RB_STAGED		(~0u)

/*
 * Flags of trev_rb_read_page_flags() and trev_rb_read_page_cpu_flags().
 *
 * TREV_RB_READ_FULL: hand out a page only when it is full, as the kernel's
 * ring_buffer_read_page() does with full = 1 (the splice read of
 * trace_pipe_raw that trace-cmd record uses): one that no more events will
 * be added to. Otherwise the call returns 0 and hands out nothing; the
 * events stay unread, to be read when their page fills or by a read without
 * the flag (a recorder's flush, the final drain). Losses, lost counts and
 * -EAGAIN are as without the flag.
 */
#define TREV_RB_READ_FULL	0x1u

/*
 * trev_rb_read_page_flags() - trev_rb_read_page(), with @flags
 * @flags: 0 or TREV_RB_READ_FULL
 *
 * With TREV_RB_READ_FULL the page that trev_rb_read_page() would hand out
 * (the one with the oldest data) is handed out only if it is full: a page
 * of a buffer once its writer has moved on to the next page; a page of
 * staged events once a newer page of that CPU follows it or not even the
 * smallest record fits on it. So a partial page of the oldest data holds
 * back the full pages of other buffers, as the merge order requires.
 * Context: any thread; consuming readers are serialised.
 * Return: 1 with a page, 0 when nothing is unread (with the flag: when the
 * oldest data's page is not full), -EINVAL for unknown @flags, or a
 * negative errno.
 */
TREV_API int trev_rb_read_page_flags(struct trev_rb *rb, void *page, unsigned int *buffer,
				     unsigned int flags);

/*
 * Per-CPU views (the kernel's per_cpu/cpuN/ files). The buffers are per
 * thread, so a consuming reader of CPU N takes the globally oldest event of
 * all buffers, returns it if it ran on CPU N, and otherwise moves it into a
 * private staging queue of its CPU, where the readers of that CPU (and all
 * other readers) find it. Each CPU's stream stays in time order. A staging
 * queue holds at most trev_rb_size_kb() of pages; when it is full, overwrite
 * mode drops its oldest page and discard mode the new event, and either
 * loss is reported like any other: in ev.lost, in the page's lost count and
 * in trev_rb_cpu_stats(). Events on CPUs numbered trev_rb_nr_cpus() or
 * higher (hot-plugged later) are shown in view cpu % trev_rb_nr_cpus().
 * docs/ring-buffer.md has the details.
 */

/*
 * trev_rb_nr_cpus() - number of CPU views
 *
 * sysconf(_SC_NPROCESSORS_CONF) when @rb was made, at least 1.
 * Context: any thread.
 * Return: the number of CPUs, or -EINVAL when @rb is NULL.
 */
TREV_API int trev_rb_nr_cpus(const struct trev_rb *rb);

/*
 * trev_rb_consume_cpu() - read and remove the oldest event of one CPU
 * @cpu: 0 .. trev_rb_nr_cpus() - 1
 * @ev: receives the event; ev->data is a copy owned by the calling thread,
 *      as with trev_rb_consume(); ev->lost counts
 *      the events lost just before it in this CPU's stream (losses of its
 *      buffer, which go with the next event of that buffer, and losses of
 *      the CPU's staging queue)
 * @timeout_ms: 0 = do not wait, -1 = wait for ever, else wait that long
 *
 * Other CPUs' events met on the way are staged for their readers.
 * Context: any thread; consuming readers are serialised (one reader per CPU
 * may run in parallel with the others, each is briefly under one lock).
 * Return: 1 with an event, 0 when none arrived in time, -EINTR when
 * trev_rb_wake_readers() was called, -EINVAL for a bad @cpu, or a negative
 * errno.
 */
TREV_API int trev_rb_consume_cpu(struct trev_rb *rb, int cpu, struct trev_rb_event *ev,
				 int timeout_ms);

/*
 * trev_rb_read_page_cpu() - consume one page of one CPU's events
 * @page: TREV_RB_PAGE_SIZE bytes; receives a page in the kernel format
 *        holding only events of @cpu, with the lost-events flags and count
 *        (docs/formats.md, "Lost events") where events of that CPU were lost before it
 *
 * Other CPUs' events met on the way are staged. The page is as full as the
 * unread data allows (trace_pipe_raw). A call stages for at most about
 * 20 ms while writers keep writing: when events of other CPUs arrive faster
 * than they can be staged, it returns -EAGAIN rather than last as long as
 * those writers do (what it staged waits in their CPUs' queues).
 * Context: any thread; consuming readers are serialised.
 * Return: 1 with a page, 0 when @cpu has nothing unread, -EAGAIN when
 * nothing of @cpu came out before the time above (call again), -EINVAL for
 * a bad @cpu, or a negative errno.
 */
TREV_API int trev_rb_read_page_cpu(struct trev_rb *rb, int cpu, void *page);

/*
 * trev_rb_read_page_cpu_flags() - trev_rb_read_page_cpu(), with @flags
 * @flags: 0 or TREV_RB_READ_FULL
 *
 * With TREV_RB_READ_FULL a page of @cpu is handed out only once it is full:
 * enough of that CPU's events are staged to fill it (no more fit on it, or
 * a newer page of the CPU follows it because the next event did not fit,
 * came with a lost count or went back in time). Until then the call stages
 * events as without the flag (they stay unread in @cpu's view: entries of
 * trev_rb_cpu_stats()) and returns 0. A read without the flag then hands
 * out the partial page. Losses, lost counts and -EAGAIN are as without it.
 * Context: any thread; consuming readers are serialised.
 * Return: 1 with a page, 0 when @cpu has no full page (without the flag:
 * nothing unread), -EAGAIN as trev_rb_read_page_cpu(), -EINVAL for a bad
 * @cpu or unknown @flags, or a negative errno.
 */
TREV_API int trev_rb_read_page_cpu_flags(struct trev_rb *rb, int cpu, void *page,
					 unsigned int flags);

/*
 * trev_rb_wait_cpu() - block until one CPU has unread data
 *
 * Exact, not "maybe": to find out, it stages other CPUs' events that are
 * older than the next event of @cpu, as a read would. It returns as soon as
 * an event of @cpu is staged or heads a buffer.
 * Context: any thread.
 * Return: 1 when @cpu has unread data, 0 on time-out, -EINTR when woken by
 * trev_rb_wake_readers(), -EINVAL for a bad @cpu.
 */
TREV_API int trev_rb_wait_cpu(struct trev_rb *rb, int cpu, int timeout_ms);

/*
 * A non-consuming iterator (the `trace` file): shows what is unread at the
 * moment it starts, merged by time, while writers go on writing. Events
 * overwritten while it runs are skipped and counted in ->lost of the next
 * event of that buffer. ev->data stays valid until the iterator's next call;
 * iterators are private to their caller and disturb no other reader.
 */
struct trev_rb_iter;
TREV_API struct trev_rb_iter *trev_rb_iter_start(struct trev_rb *rb);
TREV_API int trev_rb_iter_next(struct trev_rb_iter *it, struct trev_rb_event *ev);
TREV_API void trev_rb_iter_finish(struct trev_rb_iter *it);

/*
 * trev_rb_iter_start_cpu() - the iterator restricted to one CPU
 * @cpu: 0 .. trev_rb_nr_cpus() - 1, or -1 for all (trev_rb_iter_start())
 *
 * Shows the CPU's staged events and its events still in the buffers,
 * merged by time (per_cpu/cpuN/trace).
 * Context: any thread.
 * Return: the iterator, or NULL with errno set (EINVAL for a bad @cpu,
 * ENOMEM).
 */
TREV_API struct trev_rb_iter *trev_rb_iter_start_cpu(struct trev_rb *rb, int cpu);

/*
 * trev_rb_buffers() - ids of the per-thread buffers that exist now
 * Return: the number of buffers (may exceed @max; only @max are stored).
 */
TREV_API int trev_rb_buffers(struct trev_rb *rb, unsigned int *ids, int max);
/*
 * trev_rb_buffer_stats() - the stats of one per-thread buffer
 *
 * Events a per-CPU reader staged have left the buffer: they count as read
 * here, and as entries of their CPU in trev_rb_cpu_stats(). Events
 * overwritten since the last consume count as overrun at once.
 * Statistics are pure reads: they move no reader's position, publish no read
 * position and touch no reader's data (docs/ring-buffer.md, "Readers").
 */
TREV_API int trev_rb_buffer_stats(struct trev_rb *rb, unsigned int id, struct trev_rb_stats *st);

/*
 * trev_rb_buffer_comm() - the name of a per-thread buffer's thread
 * @comm: receives the name the thread had when its buffer was made,
 *        NUL-terminated
 *
 * For a reader naming the events it shows (the `trace` text's TASK column).
 * Like every statistic, a pure read: no reader's position or data moves.
 * Context: any thread.
 * Return: 1 while the thread lives, 0 after it exited, -ENOENT when @id is
 * no buffer now.
 */
TREV_API int trev_rb_buffer_comm(struct trev_rb *rb, unsigned int id, char comm[16]);

/*
 * trev_rb_cpu_stats() - the kernel's per_cpu/cpuN/stats for one CPU
 * @st: receives, for the events of @cpu:
 *   entries, bytes    unread events, staged or in buffers, and their record
 *                     bytes (header and payload; no time or CPU records)
 *   oldest_event_ts   time stamp of the oldest of them, 0 if none
 *   now_ts            the clock now
 *   read_events       events of @cpu consumed by any reader
 *   overrun           events overwritten in a buffer, attributed to the CPU
 *                     of the first event after them in that buffer, plus
 *                     staged events of @cpu dropped to make room (overwrite),
 *                     plus unread events of recycled buffers whose last
 *                     event ran on @cpu
 *   commit_overrun    writer refusals (nested writes wrapped the buffer) on
 *                     @cpu: the CPU the writer was on when it refused
 *   dropped_events    other writer refusals on @cpu (buffer full, recursion,
 *                     paused, no buffer), plus events of @cpu a full staging queue
 *                     refused (discard mode)
 *   written           entries + read_events + overrun + events the staging
 *                     queue refused: the events of @cpu that got this far
 *   tid, alive, size_kb, comm  0 / empty
 *
 * entries, bytes, oldest_event_ts and read_events are exact when no writer
 * or reader runs meanwhile. Events refused because no buffer could be made
 * (trev_rb_nobuf_dropped()) count in dropped_events of the CPU the writer
 * was on; unread events of recycled buffers (trev_rb_recycled_lost()) in
 * overrun of the CPU of the buffer's last event.
 * Context: any thread (walks the unread data: not for a hot loop).
 * Return: 0, -EINVAL for a bad @cpu, or a negative errno.
 */
TREV_API int trev_rb_cpu_stats(struct trev_rb *rb, int cpu, struct trev_rb_stats *st);

/* Events refused because no buffer could be made (memory cap reached). */
TREV_API uint64_t trev_rb_nobuf_dropped(const struct trev_rb *rb);

/*
 * Unread events lost when an exited thread's buffer was recycled to make
 * room under the memory cap (overwrite mode only).
 */
TREV_API uint64_t trev_rb_recycled_lost(const struct trev_rb *rb);

/*
 * Losses no buffer carries: events refused because no buffer could be made,
 * unread events of recycled buffers, and the refused last writes of exited
 * threads, which no later page of their buffer notes. They count in
 * trev_rb_cpu_stats() (dropped, overrun) and the consuming readers report
 * them with the next event or page of that CPU (ev.lost, the page's lost
 * count; trev_rb_read_page_any() ends a drain with a page of no events that
 * carries those left). Since the last reset.
 */
TREV_API uint64_t trev_rb_orphan_lost(const struct trev_rb *rb);

/**
 * trev_rb_read_page_any() - consume the next page of whichever CPU has one
 * @page: TREV_RB_PAGE_SIZE bytes: a page of one CPU's events, in time order
 * @cpu: receives the CPU view the page belongs to
 * @flags: TREV_RB_READ_FULL: full pages only (partial ones stay unread)
 *
 * What a recorder of every CPU wants (per-CPU streams of whole pages):
 * the same pages trev_rb_read_page_cpu() gives each CPU, without asking
 * for one CPU while another floods. A buffer's page whose events all ran
 * on one CPU, with nothing of that CPU older than its last event elsewhere,
 * goes out whole, as a memcpy; otherwise events are staged per CPU as
 * trev_rb_read_page_cpu() stages them, and a staged page goes out when
 * full (or, without the flag, once the buffers are drained), or partial,
 * with the flag too, just before a page of its CPU that can go whole: so
 * staging ends at the buffer's next page boundary after a migration.
 * Context: any thread, not a signal handler. Return: 1 with @page and
 * *@cpu set, 0 when there is nothing (full) to read, -EAGAIN after staging
 * for 20 ms while writers keep writing, -EBUSY while the consuming
 * position is lent, -EINVAL.
 */
TREV_API int trev_rb_read_page_any(struct trev_rb *rb, void *page, int *cpu, unsigned int flags);

#ifdef __cplusplus
}
#endif

#endif /* TREV_RING_BUFFER_H */
