/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tracers of src/ftrace (events/tracer.h): function and function_graph,
 * two modes of one engine (ftrace.c's trev__ftrace_set_tracer(), which
 * switches the patched sites from any mode to any other in one step), and
 * the printers of their records (output.h). Registered at start-up by
 * trev__ftrace_fn_register(), function first: available_tracers lists
 * "function_graph function nop", as the kernel does.
 */
#include <stdbool.h>
#include <string.h>

#include "events/tracer.h"
#include "ftrace/fgraph.h"
#include "ftrace/ftrace.h"
#include "ftrace/graph_output.h"
#include "output/output.h"

static struct trev_tracer ft_function_tracer;
static struct trev_tracer ft_graph_tracer;

static bool ft_is_ours(const struct trev_tracer *t)
{
	return t == &ft_function_tracer || t == &ft_graph_tracer;
}

static int ft_function_init(struct trev_trace_array *tr, const struct trev_tracer *prev,
			    const char **why)
{
	(void)prev;
	return trev__ftrace_set_tracer(tr, TREV_TRACER_FUNCTION, why);
}

static int ft_graph_init(struct trev_trace_array *tr, const struct trev_tracer *prev,
			 const char **why)
{
	(void)prev;
	return trev__ftrace_set_tracer(tr, TREV_TRACER_GRAPH, why);
}

/* To the other mode, the next ->init() switches the sites itself. */
static int ft_reset(struct trev_trace_array *tr, const struct trev_tracer *next, const char **why)
{
	if (ft_is_ours(next))
		return 0;
	return trev__ftrace_set_tracer(tr, TREV_TRACER_NOP, why);
}

static struct trev_tracer ft_function_tracer = {
	.name = "function",
	.init = ft_function_init,
	.reset = ft_reset,
};

/* function_graph is the top instance's only (docs/function-tracer.md, "Instances"). */
static struct trev_tracer ft_graph_tracer = {
	.name = "function_graph",
	.flags = TREV_TRACER_TOP_ONLY,
	.init = ft_graph_init,
	.reset = ft_reset,
	.print_header = trev__graph_text_header,
	.open = trev__graph_text_open,
	.close = trev__graph_text_close,
	.read = trev__graph_text_read,
	.pending = trev__graph_text_pending,
	.print_line = trev__graph_text_line,
};

/* ------------------------------------------------------------------ */
/* The printers of ftrace/function's and funcgraph's records            */

/* The kernel's trace_fn_raw(): "ip parent_ip" in hex. */
static void fn_raw(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	unsigned long ip[2] = { 0, 0 };

	(void)call;
	memcpy(ip, iter->ent + 1,
	       iter->ent_size >= sizeof(struct trev_entry) + sizeof(ip) ? sizeof(ip) : 0);
	trev_seq_printf(&iter->seq, "%lx %lx\n", ip[0], ip[1]);
}

/* The kernel's trace_fn_hex() and trace_fn_bin(): ip, parent_ip. */
static void fn_hex_bin(struct trev_trace_iter *iter, bool bin)
{
	unsigned long ip[2];

	if (iter->ent_size < sizeof(struct trev_entry) + sizeof(ip)) {
		trev__print_nop(iter);
		return;
	}
	memcpy(ip, iter->ent + 1, sizeof(ip));
	for (int i = 0; i < 2; i++) {
		if (bin)
			trev_seq_putmem(&iter->seq, &ip[i], sizeof(ip[i]));
		else
			trev__seq_hex_field(&iter->seq, &ip[i], sizeof(ip[i]));
	}
}

static const struct trev_event_printer fn_printer = {
	.type = TREV_TYPE_FN,
	.raw = fn_raw,
	.hex_bin = fn_hex_bin,
};

/* funcgraph_entry and funcgraph_exit have no raw printer in the kernel: trace_nop_print(). */

void trev__ftrace_tracers_register(void)
{
	trev__event_printer_register(&fn_printer);
	trev__tracer_register(&ft_function_tracer);
	trev__tracer_register(&ft_graph_tracer);
}
