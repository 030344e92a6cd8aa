/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The records of a trace.dat file's buffers read as a stream: a few pages
 * per CPU in memory at a time, whatever the file's size, in the order
 * libtracecmd's iterators give them (trev report, trev convert).
 */
#ifndef TREV_DAT_STREAM_H
#define TREV_DAT_STREAM_H

#include <stdbool.h>

#include <trace-cmd/trace-cmd.h>

typedef int (*trev_dat_cb)(struct tracecmd_input *h, struct tep_record *rec, int cpu,
			   void *arg);

/*
 * trev_dat_stream() - @cb for each record of the buffers @hs[0..@n) of the
 * file @path, merged by time as tracecmd_iterate_events_multi() merges
 * them (the oldest first; on a tie the first CPU of the first handle), the
 * records and their lost-events counts those libtracecmd gives
 * @idx: for each of @hs, its instance index (tracecmd_buffer_instance_handle()),
 *	-1 for the top buffer
 * @cpu_on: by CPU index of a handle (tracecmd_iterate_events()'s set), or
 *	NULL: every CPU
 *
 * The CPUs' pages are read with pread() a chunk at a time into buffers of
 * its own (libtracecmd 3.1.6 maps every 16 MB chunk of a CPU's data and
 * keeps it mapped: its memory grows with the file). Where each CPU's pages
 * start and end, and its first and last time stamps, come from a handle of
 * its own opened on @path; a file this cannot read as libtracecmd does
 * (compressed, time stamps libtracecmd shifts or scales, another time stamp
 * size) is left to the caller.
 * Context: @cb gets a record valid until it returns; a negative return
 * stops the stream.
 * Return: 1 when the caller must iterate with libtracecmd (nothing was
 * iterated); else @cb's last return (0 when there was no record), or
 * -errno (nothing was iterated).
 */
int trev_dat_stream(const char *path, struct tracecmd_input **hs, const int *idx, int n,
		    const bool *cpu_on, int nr_cpu_on, trev_dat_cb cb, void *arg);

/* What TREV_DAT_READER asks for (trev_dat_reader()); the tests compare the readers. */
enum {
	TREV_DAT_READER_ANY,		/* unset: the stream where it can read the file */
	TREV_DAT_READER_TRACECMD,	/* "tracecmd": libtracecmd's iterators */
	TREV_DAT_READER_STREAM,		/* "stream": the stream, or an error */
};

int trev_dat_reader(void);

struct trev_dat_stream;

/*
 * trev_dat_stream_open(), trev_dat_stream_next(), trev_dat_stream_close() -
 * the same records one at a time: next() gives the next record (valid until
 * the next call), its handle in *@h and its CPU index across the handles in
 * *@index, or NULL at the end. open() returns NULL with *@err 1 (a file to
 * leave to libtracecmd) or -ENOMEM.
 */
struct trev_dat_stream *trev_dat_stream_open(const char *path, struct tracecmd_input **hs,
					     const int *idx, int n, const bool *cpu_on,
					     int nr_cpu_on, int *err);
struct tep_record *trev_dat_stream_next(struct trev_dat_stream *s, struct tracecmd_input **h,
					int *index);
void trev_dat_stream_close(struct trev_dat_stream *s);

#endif /* TREV_DAT_STREAM_H */
