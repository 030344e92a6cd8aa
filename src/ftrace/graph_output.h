/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function_graph tracer's text (layer 3, docs/function-tracer.md,
 * "Output of function_graph"): the kernel's trace_functions_graph.c layout
 * of `trace`, `trace_pipe`, per_cpu/cpuN/trace and `snapshot` while
 * current_tracer is function_graph. output.c calls it for each record
 * through the tracer's callbacks (events/tracer.h; the tracer is
 * tracers.c's), with the state one reading of a buffer keeps (struct
 * trev_graph): the depth
 * and open functions of each thread, the last thread seen on each CPU, and
 * the records read ahead to tell a leaf call from a nested one. The layout
 * itself is graph_layout.c's, shared with trev report.
 */
#ifndef TREV_GRAPH_OUTPUT_H
#define TREV_GRAPH_OUTPUT_H

#include <stdbool.h>

#include "events/events_internal.h"
#include "events/tracer.h"
#include "output/graph_layout.h"

/* A reading's state, for this library's records. Return: NULL when out of memory. */
struct trev_graph *trev__graph_new(void);

/* trev__graph_opts() - the layout's TREV_GRAPH_* options of the TREV_ITER_* @trace_flags. */
unsigned int trev__graph_opts(unsigned long trace_flags);

/*
 * trev__graph_print() - the lines of iter's record (iter->ent, ->cpu, ->ts,
 * ->buffer and ->trace_flags set, and the record checked whole) into
 * iter->seq after what it holds, as the kernel's print_graph_function():
 * funcgraph_entry as "func() {" or, when the next record of the same
 * thread's buffer is its return, the leaf "func();" (that return is then
 * taken out of the records to show); funcgraph_exit as "}"; other events as
 * comments "/" "* ... *" "/". @call: the record's event; @comm: its thread's
 * name. Return: false for ftrace/function and stack records, which keep
 * their usual line (the kernel's TRACE_TYPE_UNHANDLED).
 * Context: under trev__events_read_lock().
 */
bool trev__graph_print(const struct trev_graph_src *src, struct trev_trace_iter *iter,
		       struct trev_event_call *call, const char *comm);

/*
 * The function_graph tracer's callbacks for the trace text (struct
 * trev_tracer's print_header, open, close, read, pending and print_line):
 * the functions above over a struct trev_tracer_read.
 */
void trev__graph_text_header(unsigned long trace_flags, bool empty, struct trev_buf *out);
void *trev__graph_text_open(void);
void trev__graph_text_close(void *state);
int trev__graph_text_read(const struct trev_tracer_read *rd, struct trev_rb_event *ev);
bool trev__graph_text_pending(const void *state);
bool trev__graph_text_line(const struct trev_tracer_read *rd, struct trev_trace_iter *iter,
			   struct trev_event_call *call, const char *comm);

#endif /* TREV_GRAPH_OUTPUT_H */
