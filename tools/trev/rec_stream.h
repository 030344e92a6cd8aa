/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev record --stream: the pages trev record reads, printed as text lines
 * while the session runs (trace-cmd stream's output), each process's
 * records parsed with its own formats. docs/cli/trev-record.md, "--stream".
 */
#ifndef TREV_TOOLS_REC_STREAM_H
#define TREV_TOOLS_REC_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct trev_rb;
struct trev_stream;
struct trev_stream_proc;

/*
 * Text waiting for stdout beyond which trev_stream_flush() waits for the
 * reader: the recording stalls there, and the traced processes' buffers
 * overwrite or drop (counted), rather than this growing without bound.
 */
#define TREV_STREAM_MAX_PENDING	(4u << 20)

/* What was printed (trev_stream_summary()). */
struct trev_stream_stats {
	uint64_t lines;		/* event lines made */
	uint64_t lost_lines;	/* "CPU:N [LOST ...]" lines made */
	uint64_t dropped;	/* lines made and not written: stdout closed, or a signal in
				 * the last flush */
	uint64_t unformatted;	/* records not made into lines: stdout was closed */
	int out_err;		/* stdout's error that ended the output (errno), 0 */
};

/*
 * trev_stream_open() - start printing to @fd (stdout). Return: 0 or -ENOMEM.
 * Context: trev record's main thread, as every call here.
 */
int trev_stream_open(struct trev_stream **s, int fd);

/*
 * trev_stream_proc_add() - a process to print: a connection of its own to
 * @pid (the recorder's is its metadata thread's), its events' formats,
 * printk formats and thread names read now, its code addresses named
 * from its files (remote_symbols.h).
 * @name: "comm-pid"; @prefixed: its lines start with "NAME: " (a process
 * of the session after the first, as trev report prints a buffer's lines)
 * @shm: its buffer mapped by the recorder, whose thread names serve once
 * the process is gone; NULL
 * @nr_cpus: receives the process's CPUs (per_cpu/cpuN)
 * Return: the process, or NULL after a message (not streamed).
 */
struct trev_stream_proc *trev_stream_proc_add(struct trev_stream *s, pid_t pid, const char *name,
					      bool prefixed, struct trev_rb *shm, int *nr_cpus);

/*
 * trev_stream_proc_add_formats() - a process known by its events' format
 * texts alone (@formats[i] of system @systems[i]): no connection, no thread
 * names, no symbols. The fuzzer's way in (tests/fuzz/fuzz_stream.c).
 * Return: the process, or NULL (out of memory).
 */
struct trev_stream_proc *trev_stream_proc_add_formats(struct trev_stream *s, const char *name,
						      bool prefixed, const char *const *systems,
						      const char *const *formats, size_t nr);

/*
 * trev_stream_proc_end() - the process is recorded to its end: its
 * connection goes and its mapped buffer is not to be read again; its
 * records already given are still printed.
 */
void trev_stream_proc_end(struct trev_stream_proc *sp);

/*
 * trev_stream_page() - take the records of @page (a kernel-format page,
 * any bytes: a malformed one ends early) of @sp's CPU @cpu for the next
 * flush; a page that lost events gives a "CPU:N [LOST ...]" line.
 * Return: 0 or -ENOMEM.
 */
int trev_stream_page(struct trev_stream_proc *sp, int cpu, const unsigned char *page);

/*
 * trev_stream_flush() - print the records taken since the last flush,
 * merged by time across CPUs and processes, and write what stdout takes
 * without waiting. With more than TREV_STREAM_MAX_PENDING bytes waiting,
 * wait until stdout takes enough; @final: until it took everything.
 * Return: 0; -EINTR when a signal interrupted a wait (@final: what was
 * not written is dropped and counted).
 */
int trev_stream_flush(struct trev_stream *s, bool final);

/* trev_stream_summary() - what was printed and what was not, one line on stderr. */
void trev_stream_summary(const struct trev_stream *s);

/* trev_stream_close() - free everything (nothing is written). */
void trev_stream_close(struct trev_stream *s);

#endif /* TREV_TOOLS_REC_STREAM_H */
