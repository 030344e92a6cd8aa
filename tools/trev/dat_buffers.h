/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Every buffer of a trace.dat file, through libtracecmd: the top one and
 * each instance (trev record's processes: docs/sessions.md), merged by
 * time, for trev report and trev convert.
 */
#ifndef TREV_DAT_BUFFERS_H
#define TREV_DAT_BUFFERS_H

#include <stdbool.h>

#include <trace-cmd/trace-cmd.h>

/*
 * trev_dat_iterate_buffers() - @cb for each record of every buffer of @h,
 * in time order (tracecmd_iterate_events_multi()); each handle's private
 * pointer (tracecmd_get_private()) is its buffer's name, "" for the top.
 * The CPU @cb is given counts across the handles: a callback takes
 * rec->cpu. @width: receives the longest name's length.
 * Return: as tracecmd_iterate_events_multi(); 1 when @h has no buffer but
 * the top one (nothing iterated: the caller iterates @h alone); -ENOMEM.
 */
int trev_dat_iterate_buffers(struct tracecmd_input *h,
			     int (*cb)(struct tracecmd_input *, struct tep_record *, int, void *),
			     void *arg, int *width);

/*
 * trev_tep_record_sane() - every field of @ev inside @rec, every
 * __data_loc/__rel_loc pointing inside it: libtraceevent trusts them, so a
 * record is printed only when this holds (trev report, trev record --stream).
 */
bool trev_tep_record_sane(const struct tep_event *ev, const struct tep_record *rec);

#endif /* TREV_DAT_BUFFERS_H */
