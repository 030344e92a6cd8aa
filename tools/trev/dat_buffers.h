/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Every buffer of a trace.dat file: the top one and each instance (trev
 * record's processes: docs/sessions.md), merged by time, for trev report
 * and trev convert.
 */
#ifndef TREV_DAT_BUFFERS_H
#define TREV_DAT_BUFFERS_H

#include <stdbool.h>

#include <trace-cmd/trace-cmd.h>

#include "dat_stream.h"

/*
 * trev_dat_iterate() - @cb for each record of every buffer of @h (opened
 * on the file @path), in time order: the top one and each instance (trev
 * record's processes: docs/sessions.md), or the top one alone when the file
 * has no instance, then on its CPUs in @cpu_on only (by CPU index, @nr_cpu_on
 * of them; NULL: every CPU). Read as a stream (trev_dat_stream(): memory
 * flat in the file's size) where it can be, else by libtracecmd's
 * tracecmd_iterate_events_multi() or tracecmd_iterate_events(): the same
 * records in the same order either way. With instances, each handle's
 * private pointer (tracecmd_get_private()) is its buffer's name, "" for the
 * top. The CPU @cb is given counts across the handles: a callback takes
 * rec->cpu. @width: receives the longest buffer name's length (0: none).
 * Return: @cb's last return, or a negative errno.
 */
int trev_dat_iterate(const char *path, struct tracecmd_input *h, const bool *cpu_on,
		     int nr_cpu_on, trev_dat_cb cb, void *arg, int *width);

/*
 * trev_tep_record_sane() - every field of @ev inside @rec, every
 * __data_loc/__rel_loc pointing inside it: libtraceevent trusts them, so a
 * record is printed only when this holds (trev report, trev record --stream).
 */
bool trev_tep_record_sane(const struct tep_event *ev, const struct tep_record *rec);

/*
 * trev_tep_map_events() - a table of @size-byte entries indexed by event id,
 * one per event of @tep, each handed to @map (with @arg, the entry, the
 * event) to fill: trev convert's CTF and JSON writers. Ids are 16-bit and
 * unique; an event outside that, or two with one id, is an error naming
 * them and @file. *@table receives the table (calloc'ed, free()d by the
 * caller, also on error), *@nr_ids its length. @map returns 0, -EINVAL (the
 * event stays in, unmapped: the caller decides) or -ENOMEM (fatal).
 * Return: 0, or -1 after a message.
 */
int trev_tep_map_events(struct tep_handle *tep, const char *file, size_t size, void **table,
			unsigned int *nr_ids,
			int (*map)(void *arg, void *entry, struct tep_event *ev), void *arg);

#endif /* TREV_DAT_BUFFERS_H */
