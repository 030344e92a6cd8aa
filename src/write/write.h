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
extern struct trev_event_call trev__ftrace_event_kernel_stack;	/* kernel_stack.c */

/* Register them under their fixed ids; at start-up (frontend/init.c). */
void trev__ftrace_events_register(void);

/*
 * trace_marker and trace_marker_raw: one record in @tr's buffer (raw: an
 * unsigned int id, then bytes), in the calling thread's buffer, its
 * common_pid @pid (0: the thread's id). trace_marker runs the triggers of
 * @tr's ftrace/print first. Return: bytes taken (a marker longer than
 * TREV_MARKER_MAX is cut there, so a writer's retry makes a second
 * record), -EBADF when the buffer refused (tracing off), -EINVAL.
 */
#define TREV_MARKER_MAX		1024u
ssize_t trev__marker_write(struct trev_trace_array *tr, const char *text, size_t size,
			   pid_t pid);
/* The ip of trace_marker's records; it prints as "tracing_mark_write". */
unsigned long trev__marker_ip(void);
ssize_t trev__marker_raw_write(struct trev_trace_array *tr, const void *data, size_t size,
			       pid_t pid);

/* The printk_formats file: Return: 0 and a malloc'd string, or -errno. */
int trev__printk_formats_text(char **text);

/*
 * trev__printk_msg_only() - the message of a ftrace/print, bprint or bputs
 * record (iter->ent, checked whole) into iter->seq, without the "ip: "
 * before it: the kernel's trace_print_*_msg_only(), for function_graph's
 * comments. Return: 0, or -1 for another event or a format not ours.
 */
int trev__printk_msg_only(struct trev_trace_iter *iter);

/*
 * The stack of the thread that hit an event, as an ftrace:kernel_stack record
 * (kernel_stack.c): the stacktrace trigger's, the stacktrace function
 * command's, and hist's stacktrace key (its unwinding only).
 */

/* struct trev_stack_skip: events/events_internal.h (each event keeps one for options/stacktrace). */

/*
 * trev__stack_prepare() - make backtrace() safe to call from a probe (its
 * first call loads libgcc_s) and find @call's iterator and probe functions.
 * Context: not signal-safe; under the registry lock.
 */
void trev__stack_prepare(struct trev_event_call *call, struct trev_stack_skip *skip);
/*
 * trev__stack_first() - index in @frames[0..n) of the first return address
 * that is the caller's, past the library, the probe and the iterator.
 * Context: any, async-signal-safe.
 */
int trev__stack_first(const struct trev_stack_skip *skip, void *const *frames, int n);
/*
 * trev__stack_record() - add an ftrace:kernel_stack record of the calling
 * thread's stack, from the function that called trace_<event>(), to @tr.
 * Context: the event's probe; async-signal-safe once prepared.
 */
void trev__stack_record(struct trev_trace_array *tr, const struct trev_stack_skip *skip);
/*
 * trev__stack_option() - options/stacktrace of @tr turned on (@on) or off:
 * every event's skip points found (trev__stack_prepare()), then the
 * instance's files get or lose TREV_FILE_FL_STACK, which makes the write
 * path add a stack record after each record it keeps. Context: not in a
 * probe; takes the registry lock.
 */
void trev__stack_option(struct trev_trace_array *tr, bool on);

#endif /* TREV_WRITE_H */
