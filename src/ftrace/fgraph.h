/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function_graph tracer's records (layer 3, docs/function-tracer.md):
 * ftrace/funcgraph_entry and ftrace/funcgraph_exit, laid out and numbered
 * as the kernel's (enum trace_type, struct ftrace_graph_ent_entry and
 * struct ftrace_graph_ret_entry). fgraph.c writes them; the output layer
 * formats them as the kernel's trace_functions_graph.c does.
 */
#ifndef TREV_FGRAPH_H
#define TREV_FGRAPH_H

#include <stdint.h>

#include <trev/trace_event.h>

/* The kernel's TRACE_GRAPH_RET and TRACE_GRAPH_ENT. */
#define TREV_TYPE_GRAPH_RET	10
#define TREV_TYPE_GRAPH_ENT	11

/*
 * funcgraph_entry (the kernel 6.18 format; args[] is empty here):
 *   OFFSET  SIZE  MEANING
 *   0       8     struct trev_entry (common fields)
 *   8       8     func: the traced function's patched entry
 *   16      4     depth: its nesting on the thread's graph stack, 0 = outermost
 *   20      4     (padding; args[] starts at 24 with size 0)
 */
struct trev_fgraph_ent_entry {
	struct trev_entry ent;
	unsigned long func;
	unsigned int depth;
	unsigned int pad;
};

/*
 * funcgraph_exit:
 *   OFFSET  SIZE  MEANING
 *   0       8     struct trev_entry
 *   8       8     func: as in its entry
 *   16      4     depth: as in its entry
 *   20      4     overrun: entries the thread's graph stack could not hold
 *   24      8     calltime: the trace clock at entry (ns, the buffer's clock)
 *   32      8     rettime: the trace clock at return
 */
struct trev_fgraph_ret_entry {
	struct trev_entry ent;
	unsigned long func;
	unsigned int depth;
	unsigned int overrun;
	unsigned long long calltime;
	unsigned long long rettime;
};

extern struct trev_event_call trev__ftrace_event_funcgraph_entry;
extern struct trev_event_call trev__ftrace_event_funcgraph_exit;

#endif /* TREV_FGRAPH_H */
