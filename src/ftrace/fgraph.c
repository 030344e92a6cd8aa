/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function_graph tracer's events, ftrace/funcgraph_entry (id 11) and
 * ftrace/funcgraph_exit (id 10), with the kernel's format files and, as
 * their plain event text, the kernel's print fmt.
 */
#include <stddef.h>

#include <trev/trace_event.h>

#include "ftrace/fgraph.h"
#include "ftrace/ftrace.h"
#include "output/symbols.h"

static int fg_field(struct trev_event_call *call, const char *type, const char *name,
		    size_t offset, size_t size)
{
	return trev_event_define_field(call, type, name, (int)offset, (int)size, 0,
				       TREV_FILTER_OTHER);
}

static int fg_ent_fields(struct trev_event_call *call)
{
	return fg_field(call, "unsigned long", "func",
			offsetof(struct trev_fgraph_ent_entry, func), sizeof(unsigned long)) ?:
	       fg_field(call, "unsigned int", "depth",
			offsetof(struct trev_fgraph_ent_entry, depth), sizeof(unsigned int));
}

static int fg_ret_fields(struct trev_event_call *call)
{
	return fg_field(call, "unsigned long", "func",
			offsetof(struct trev_fgraph_ret_entry, func), sizeof(unsigned long)) ?:
	       fg_field(call, "unsigned int", "depth",
			offsetof(struct trev_fgraph_ret_entry, depth), sizeof(unsigned int)) ?:
	       fg_field(call, "unsigned int", "overrun",
			offsetof(struct trev_fgraph_ret_entry, overrun), sizeof(unsigned int)) ?:
	       fg_field(call, "unsigned long long", "calltime",
			offsetof(struct trev_fgraph_ret_entry, calltime),
			sizeof(unsigned long long)) ?:
	       fg_field(call, "unsigned long long", "rettime",
			offsetof(struct trev_fgraph_ret_entry, rettime),
			sizeof(unsigned long long));
}

/* "--> %ps (%u)" */
static int fg_ent_output(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	const struct trev_fgraph_ent_entry *e = (const void *)iter->ent;

	(void)call;
	if (iter->ent_size < offsetof(struct trev_fgraph_ent_entry, pad))
		return -1;
	trev_seq_puts(&iter->seq, "--> ");
	trev__sym_print(&iter->seq, e->func, 0);
	trev_seq_printf(&iter->seq, " (%u)\n", e->depth);
	return 0;
}

/* "<-- %ps (%u) (start: %llx  end: %llx) over: %u", the last being depth as in the kernel's fmt */
static int fg_ret_output(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	const struct trev_fgraph_ret_entry *e = (const void *)iter->ent;

	(void)call;
	if (iter->ent_size < sizeof(*e))
		return -1;
	trev_seq_puts(&iter->seq, "<-- ");
	trev__sym_print(&iter->seq, e->func, 0);
	trev_seq_printf(&iter->seq, " (%u) (start: %llx  end: %llx) over: %u\n", e->depth,
			e->calltime, e->rettime, e->depth);
	return 0;
}

static const struct trev_event_class fg_ent_class = {
	TREV_ABI_HDR(struct trev_event_class), "ftrace", NULL, fg_ent_fields,
	sizeof(struct trev_fgraph_ent_entry)
};

static const struct trev_event_class fg_ret_class = {
	TREV_ABI_HDR(struct trev_event_class), "ftrace", NULL, fg_ret_fields,
	sizeof(struct trev_fgraph_ret_entry)
};

struct trev_event_call trev__ftrace_event_funcgraph_entry = {
	TREV_ABI_HDR(struct trev_event_call), &fg_ent_class, "funcgraph_entry", NULL,
	"\"--> %ps (%u)\", (void *)REC->func, REC->depth",
	fg_ent_output, TREV_EVENT_FL_FTRACE, 0, NULL
};

struct trev_event_call trev__ftrace_event_funcgraph_exit = {
	TREV_ABI_HDR(struct trev_event_call), &fg_ret_class, "funcgraph_exit", NULL,
	"\"<-- %ps (%u) (start: %llx  end: %llx) over: %u\", (void *)REC->func, REC->depth, "
	"REC->calltime, REC->rettime, REC->depth",
	fg_ret_output, TREV_EVENT_FL_FTRACE, 0, NULL
};
