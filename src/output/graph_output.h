/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function_graph tracer's text (layer 3, docs/function-tracer.md,
 * "Output of function_graph"): the kernel's trace_functions_graph.c layout
 * of `trace`, `trace_pipe`, per_cpu/cpuN/trace and `snapshot` while
 * current_tracer is function_graph. output.c calls it for each record, with
 * the state one reading of a buffer keeps (struct trev_graph): the depth
 * and open functions of each thread, the last thread seen on each CPU, and
 * the records read ahead to tell a leaf call from a nested one.
 */
#ifndef TREV_GRAPH_OUTPUT_H
#define TREV_GRAPH_OUTPUT_H

#include <stdbool.h>

#include "events/events_internal.h"

struct trev_buf;
struct trev_graph;

/*
 * A reader's source of records, in the order it shows them: 1 and *@ev,
 * 0 when none is there now, or -errno. @ev's data stays valid until the
 * next call. The trace text's source is its trev_rb_iter; trace_pipe's
 * consumes (without blocking when it reads ahead).
 */
typedef int (*trev_graph_src_fn)(void *arg, struct trev_rb_event *ev);

/* The layout's state and the source it reads ahead from. */
struct trev_graph_src {
	struct trev_graph *g;
	trev_graph_src_fn fn;
	void *arg;
};

/*
 * trev__graph_tracer_set() - whether instance @tr's text is the graph
 * layout: the function_graph tracer calls it when it becomes, and when it
 * stops being, @tr's current_tracer (the bit TREV_ITER_GRAPH of
 * tr->trace_flags; a text already open keeps the layout it started with,
 * as the kernel's iterator keeps its tracer).
 * Context: the tracefs lock (it writes trace_flags as the options do).
 */
void trev__graph_tracer_set(struct trev_trace_array *tr, bool on);

/* A reading's state. Return: NULL when out of memory. */
struct trev_graph *trev__graph_new(void);
void trev__graph_free(struct trev_graph *g);
/* Whether records read ahead wait to be shown (trace_pipe's poll). */
bool trev__graph_pending(const struct trev_graph *g);

/*
 * trev__graph_next() - the next record to show: the oldest one read ahead,
 * else @src's next. Its data stays valid until the next call.
 * Return: as trev_graph_src_fn; after @src failed while reading ahead, its
 * error once the records read before it are shown.
 */
int trev__graph_next(const struct trev_graph_src *src, struct trev_rb_event *ev);

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
 * trev__graph_header() - the column header after "# tracer: function_graph"
 * and "#" (print_graph_headers_flags()) for the options @flags; @empty: the
 * buffer shown holds nothing (no header with latency-format then).
 * Return: 0 or -ENOMEM.
 */
int trev__graph_header(unsigned long flags, bool empty, struct trev_buf *out);

#endif /* TREV_GRAPH_OUTPUT_H */
