/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The write side of enabled events (layer 3, docs/architecture.md):
 * event_buffer.c reserves a record in the event's instance, runs its
 * filter and triggers and commits; trace_printk.c writes trace_printk(),
 * trace_marker and trace_marker_raw records and prints them.
 */
#ifndef TREV_WRITE_H
#define TREV_WRITE_H

#include "events/events_internal.h"

/* The built-in ftrace events (ftrace:print, bprint, bputs, raw_data, kernel_stack). */
extern struct trev_event_call trev__ftrace_event_print;
extern struct trev_event_call trev__ftrace_event_bprint;
extern struct trev_event_call trev__ftrace_event_bputs;
extern struct trev_event_call trev__ftrace_event_raw_data;
extern struct trev_event_call trev__ftrace_event_kernel_stack;	/* trigger/stacktrace.c */

/* Register them under their fixed ids; at start-up (frontend/init.c). */
void trev__ftrace_events_register(void);

#endif /* TREV_WRITE_H */
