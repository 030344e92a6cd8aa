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

#endif /* TREV_DAT_STREAM_H */
