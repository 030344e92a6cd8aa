/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An event's print fmt (TP_printk) made into a list of steps once, then run
 * on each record: the text libtraceevent 1.7.1's tep_print_event() prints
 * for TEP_PRINT_INFO, byte for byte, for the formats whose every part it
 * knows; the others (and records it cannot be sure of) are left to
 * libtraceevent (docs/cli/trev-report.md, "Speed and memory").
 */
#ifndef TREV_TOOLS_PRINT_FMT_H
#define TREV_TOOLS_PRINT_FMT_H

#include <traceevent/event-parse.h>

#include "base/buf.h"

struct trev_pfmt;

/*
 * trev_pfmt_compile() - the steps of @ev's print fmt
 * Return: the steps, or NULL when a part of the format is not one this
 * code prints as libtraceevent does (a helper such as __print_hex, a
 * pointer, a '*' width, an event handler, trace_printk's bprint, ...), or
 * out of memory: the caller prints that event with tep_print_event().
 */
struct trev_pfmt *trev_pfmt_compile(struct tep_event *ev);

void trev_pfmt_free(struct trev_pfmt *f);

/*
 * trev_pfmt_print() - append @rec's text by @f's steps to @out
 * @rec: a record of @f's event whose fields lie inside it
 *	(trev_tep_record_sane())
 * Return: 0; 1 when this record is one to leave to tep_print_event() (a
 * string without its NUL inside the record), @out then as it was; or the
 * buffer's error.
 */
int trev_pfmt_print(const struct trev_pfmt *f, const struct tep_record *rec,
		    struct trev_buf *out);

#endif /* TREV_TOOLS_PRINT_FMT_H */
