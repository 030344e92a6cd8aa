/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The `trace` text (layer 3, docs/architecture.md): output.c formats an
 * instance's buffer as ftrace prints it, whole to a FILE or as a stream a
 * page at a time for the tracefs files.
 */
#ifndef TREV_OUTPUT_H
#define TREV_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "events/events_internal.h"

/* The whole text to @out. */
int trev__trace_print(struct trev_trace_array *tr, FILE *out);
/*
 * The same for buffer @rb of @tr (its main or snapshot buffer; NULL: a
 * freed snapshot), only CPU @cpu's events when @cpu >= 0; @what
 * TREV_PRINT_SNAPSHOT prints the snapshot help when empty.
 */
#define TREV_PRINT_SNAPSHOT	0x1u
int trev__trace_print_rb(struct trev_trace_array *tr, struct trev_rb *rb, int cpu,
			 unsigned int what, FILE *out);

/*
 * The same text as a stream (the kernel's seq_file over its trace
 * iterator), for the `trace` files and trev__trace_print_rb():
 *
 * trev__trace_text_start() - a position at the oldest unread event of @rb
 * (@rb, @cpu, @what as above), and @tr's output options as they are now.
 * Context: @tr's options stable (the tracefs lock); @rb alive until
 * trev__trace_text_finish(). Return: 0 and *@out, or -ENOMEM.
 *
 * trev__trace_text_next() - append the header (first call), then the next
 * lines until at least @want bytes were appended or the text ended: only
 * those lines are formatted. Context: @rb alive, one caller at a time;
 * takes the registry lock for reading and the buffer's reader lock inside.
 * Return: 1 when something was appended, 0 at the end, or -errno (the
 * iterator's error, or @out's kept one).
 */
struct trev_buf;
struct trev_trace_text;
int trev__trace_text_start(struct trev_trace_array *tr, struct trev_rb *rb, int cpu,
			   unsigned int what, struct trev_trace_text **out);
int trev__trace_text_next(struct trev_trace_text *tt, struct trev_buf *out, size_t want);
void trev__trace_text_finish(struct trev_trace_text *tt);
/*
 * One event's line. @rd: trace_pipe's reading by a tracer with lines of its
 * own (events/tracer.h), used while that tracer is @tr's current_tracer;
 * NULL: the usual lines. Context: under trev__events_read_lock().
 */
struct trev_tracer_read;
void trev__print_line(struct trev_trace_array *tr, struct trev_trace_iter *iter,
		      const struct trev_rb_event *ev, const char *comm,
		      const struct trev_tracer_read *rd);

/**
 * struct trev_event_printer - how the records of one type print with the
 * trace options raw, hex and bin (the kernel's struct trace_event and its
 * register_trace_event()); the usual line is the event's own ->output().
 * @type: the records' type (the event's id, TREV_TYPE_* for the built-in ones)
 * @raw: the line after the context of the option raw (NULL: "type: N")
 * @hex_bin: the record's fields after the context of the option hex, or of
 *           bin when @bin (NULL: "type: N")
 */
struct trev_event_printer {
	unsigned int type;
	void (*raw)(struct trev_trace_iter *iter, struct trev_event_call *call);
	void (*hex_bin)(struct trev_trace_iter *iter, bool bin);
};

/*
 * trev__event_printer_register() - print the records of @p->type with @p
 * (which stays the caller's), from the folder that defines the type: the
 * write path's print, bprint, bputs and raw_data, the function tracer's.
 * Return: 0; -EEXIST when another printer has the type; -EINVAL for a type
 * of 64 or more. Context: any thread.
 */
int trev__event_printer_register(const struct trev_event_printer *p);

/* The kernel's trace_nop_print(): "type: N" (for a printer without raw, hex or bin). */
void trev__print_nop(struct trev_trace_iter *iter);
/* The kernel's trace_seq_putmem_hex(): @v's bytes, most significant first, then a space. */
void trev__seq_hex_field(struct trev_seq *s, const void *v, size_t size);
/*
 * In that child: the threads whose names the text shows are process
 * @pid's, and the symbol table's lock is made anew.
 */
void trev__output_crash_child(pid_t pid);

#endif /* TREV_OUTPUT_H */
