/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ring buffer shared with another process: the calls of the recorder's protocol
 * (docs/ring-buffer.md, "Shared memory"), used by the library's control socket and by the
 * trev command, which links trev_common. Not exported by libtrev.so (docs/abi.md).
 */
#ifndef TREV_RB_SHM_H
#define TREV_RB_SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <trev/ring_buffer.h>

/*
 * The memfd holding every page and descriptor, sealed at its size, for
 * another process to map with trev_rb_attach().
 */
int trev_rb_memfd(const struct trev_rb *rb);

/**
 * trev_rb_attach() - read another process's trace buffer from its memfd
 * @out: receives the buffer
 * @memfd: the region (trev_rb_memfd() of the other process, received over
 *         a socket); it is duplicated, the caller keeps its own descriptor
 *
 * The buffer works with every reader of this header: trev_rb_read_page_cpu()
 * and the other consuming reads, iterators, statistics. It stays readable
 * after the other process died. Its control calls (reset, resize, clock,
 * overwrite, cap) return -EPERM and writes to it are refused. Every value
 * read from the region is checked where it is used: another process can
 * make the events read wrong, never crash or hang the reader.
 * Consuming it is safe only while the other process has lent its consuming
 * position (trev_rb_lend_consumer()); the reads start from that position.
 *
 * Context: any thread. Return: 0, -EPERM (the memfd is not sealed against
 * shrinking), -EPROTO (no region of this version), or another -errno.
 */
int trev_rb_attach(struct trev_rb **out, int memfd);

/*
 * The memfd of this process's busy words, sealed at its size: one word per
 * writing thread, set from its time stamp until it has claimed its bytes.
 * A reader in another process needs it to keep each CPU's events in time
 * order (trev_rb_attach_busy()). -1 when there is none.
 */
int trev_rb_busy_memfd(void);

/**
 * trev_rb_attach_busy() - see the writers of an attached buffer mid-write
 * @rb: a buffer from trev_rb_attach()
 * @memfd: trev_rb_busy_memfd() of the same process; the caller keeps it
 *
 * Without it a reader cannot see a writer that took its time stamp but
 * was preempted before claiming its bytes, and may hand out a younger
 * event of another thread on the same CPU first. With it the reader waits
 * for such a write (at most 20 ms each), as the process's own readers do.
 * Context: any thread, before the first read. Return: 0, -EPERM (not
 * sealed against shrinking), -EPROTO (not a busy area of this version),
 * -EINVAL (not attached, or attached to busy words already), -errno.
 */
int trev_rb_attach_busy(struct trev_rb *rb, int memfd);

/**
 * trev_rb_writers_gone() - nothing writes to @rb any more
 *
 * Its process has died, or @rb is attached to a copy of a region (a
 * snapshot, trev recover). An attached reader no longer waits for writes
 * in flight (a writer stopped between its time stamp and its commit never
 * finishes): what was committed is all there is. No-op on a buffer of this
 * process.
 * Context: any thread.
 */
void trev_rb_writers_gone(struct trev_rb *rb);

/* Where an attached buffer's region was found damaged (trev_rb_damaged()). */
struct trev_rb_damage {
	unsigned int buffer;	/* the per-thread buffer (trev_rb_buffers()'s id) */
	pid_t tid;		/* its thread, as the region says */
	int cpu;		/* the CPU view of the reader's position in it */
	uint64_t seq;		/* the page's sequence number in that buffer */
	uint32_t page;		/* its page in the region, UINT32_MAX if none */
	uint32_t off;		/* the reader's offset in that page's data */
	char what[128];		/* what is wrong there */
};

/**
 * trev_rb_damaged() - why the reads of an attached buffer failed
 * @rb: a buffer from trev_rb_attach() after trev_rb_writers_gone()
 * @out: receives the first damage found
 *
 * Once nothing writes to the region, a value in it that the reader cannot
 * get past (a page missing from its slot, a page run outside the region,
 * a commit longer than a page, a position past the writer's last page) is
 * damage, not a write in progress: every read of @rb then returns
 * -EUCLEAN, and this says where. While writers may still write, the
 * reader takes such a value for a write in progress, and a bounded look
 * finds nothing for now.
 * Context: any thread. Return: 1 with @out set, 0 if no damage was found.
 */
int trev_rb_damaged(struct trev_rb *rb, struct trev_rb_damage *out);

/**
 * trev_rb_lend_consumer() - let another process consume @rb
 *
 * Hands every buffer's consuming position to the region, where
 * trev_rb_attach() takes it; until trev_rb_return_consumer(), this
 * process's consuming reads (trev_rb_consume*(), trev_rb_read_page*())
 * return -EBUSY, and statistics and iterators start from the borrower's
 * position. One borrower at a time.
 * Context: any thread, not a signal handler. Return: 0, -EBUSY when it is
 * lent already, or -EPERM on an attached buffer.
 */
int trev_rb_lend_consumer(struct trev_rb *rb);

/**
 * trev_rb_return_consumer() - take the consuming position back
 *
 * The consuming readers go on from where the borrower left each buffer.
 * Call it once the borrower is gone or done, finished or killed.
 * Return: 0, -EINVAL when nothing is lent, -EPERM on an attached buffer.
 */
int trev_rb_return_consumer(struct trev_rb *rb);

/**
 * trev_rb_consumer_lent() - whether @rb's consuming position is lent to
 * another process now (a recorder consumes it: trev_rb_lend_consumer())
 * @rb: a buffer of this process, or one from trev_rb_attach() (the
 *      region's own word, as its owner set it)
 * Context: any thread. Return: true or false; nothing is changed.
 */
bool trev_rb_consumer_lent(const struct trev_rb *rb);

/**
 * trev_rb_stage_export() - take the staged events out of a buffer
 * @rb: a buffer from trev_rb_attach() that consumed per CPU, or a lent
 *      buffer (trev_rb_lend_consumer()), whose staged events go to its
 *      borrower: they are its to consume
 * @buf: receives records (docs/ring-buffer.md, "Shared memory"), whole
 *       ones only
 * @size: its size; 16 KiB always takes at least one record
 *
 * A per-CPU reader of a borrowed buffer stages other CPUs' events in its
 * own memory. Before the position goes back (trev_rb_return_consumer()),
 * the borrower hands them to the lender with this call and
 * trev_rb_stage_import() there, so that the lender's readers still read
 * them; events it does not hand back are counted lost at the return.
 * Call it until it returns 0, and read no more afterwards. The lender
 * hands its own staged events over the same way, right after lending.
 *
 * Context: any thread of the borrower. Return: bytes stored, 0 when
 * nothing is staged, -ENOSPC (@size too small), -EINVAL.
 */
ssize_t trev_rb_stage_export(struct trev_rb *rb, void *buf, size_t size);

/**
 * trev_rb_stage_import() - stage what the other side handed over
 * @rb: a buffer lent with trev_rb_lend_consumer() (the borrower's events
 *      back), or one from trev_rb_attach() (the lender's, before reading)
 * @buf, @len: records from trev_rb_stage_export() of the other process,
 *             which may hold anything: all are checked before any is taken
 *
 * Context: any thread; a lender while lent. Return: 0, -EBADMSG
 * (malformed: nothing taken), -EINVAL (not lent).
 */
int trev_rb_stage_import(struct trev_rb *rb, const void *buf, size_t len);

#endif /* TREV_RB_SHM_H */
