/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A toy tracer, the whole of it in this folder (docs/architecture.md,
 * "Adding a tracer"): "toy" counts its starts and stops, prints a header of
 * its own and a line of its own per record; "toy_refuses" refuses to start,
 * as a tracer whose patching fails does. Both register from this file's
 * constructor; test_tracer_registry.c includes the file and looks at what
 * available_tracers, current_tracer, error_log, trace and trace_pipe show.
 */
#include <errno.h>
#include <stdlib.h>

#include "base/buf.h"
#include "events/events_internal.h"
#include "events/tracer.h"

struct toy_stats {
	int inits, resets, opens, closes;
	const struct trev_tracer *prev;	/* what the last init took over from */
};

static struct toy_stats toy_stats;

static int toy_init(struct trev_trace_array *tr, const struct trev_tracer *prev, const char **why)
{
	(void)tr;
	(void)why;
	toy_stats.inits++;
	toy_stats.prev = prev;
	return 0;
}

static int toy_reset(struct trev_trace_array *tr, const struct trev_tracer *next, const char **why)
{
	(void)tr;
	(void)next;
	(void)why;
	toy_stats.resets++;
	return 0;
}

static void toy_header(unsigned long trace_flags, bool empty, struct trev_buf *out)
{
	(void)trace_flags;
	trev__buf_printf(out, "# toy's own header (%s)\n", empty ? "empty" : "not empty");
}

/* A reading's state: the number of lines it printed. */
static void *toy_open(void)
{
	toy_stats.opens++;
	return calloc(1, sizeof(int));
}

static void toy_close(void *state)
{
	toy_stats.closes++;
	free(state);
}

static int toy_read(const struct trev_tracer_read *rd, struct trev_rb_event *ev)
{
	return rd->next(rd->arg, ev);
}

static bool toy_line(const struct trev_tracer_read *rd, struct trev_trace_iter *iter,
		     struct trev_event_call *call, const char *comm)
{
	int *n = rd->state;

	(void)comm;
	trev_seq_printf(&iter->seq, "toy line %d: %s:%s\n", ++*n, call->klass->system, call->name);
	return true;
}

static struct trev_tracer toy_tracer = {
	.name = "toy",
	.init = toy_init,
	.reset = toy_reset,
	.print_header = toy_header,
	.open = toy_open,
	.close = toy_close,
	.read = toy_read,
	.print_line = toy_line,
};

static int toy_refuse(struct trev_trace_array *tr, const struct trev_tracer *prev,
		      const char **why)
{
	(void)tr;
	(void)prev;
	*why = "toy_refuses never starts";
	return -EBUSY;
}

static struct trev_tracer toy_refuses_tracer = {
	.name = "toy_refuses",
	.init = toy_refuse,
};

static __attribute__((constructor)) void toy_register(void)
{
	trev__tracer_register(&toy_tracer);
	trev__tracer_register(&toy_refuses_tracer);
}
