/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * function_graph's text in the library (graph_output.h): the records of a
 * buffer, decoded, given to the layout (graph_layout.c, which trev report
 * uses too) with the trace options and the line's seq.
 */
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "ftrace/fgraph.h"
#include "ftrace/ftrace.h"
#include "ftrace/graph_output.h"
#include "output/sym_print.h"
#include "sym/symbols.h"
#include "write/write.h"

unsigned int trev__graph_opts(unsigned long trace_flags)
{
	static const struct {
		unsigned long iter;	/* TREV_ITER_* */
		unsigned int opt;	/* TREV_GRAPH_* */
	} map[] = {
		{ TREV_ITER_CONTEXT_INFO, TREV_GRAPH_CONTEXT },
		{ TREV_ITER_LATENCY_FMT, TREV_GRAPH_LATENCY },
		{ TREV_ITER_FG_CPU, TREV_GRAPH_CPU },
		{ TREV_ITER_FG_PROC, TREV_GRAPH_PROC },
		{ TREV_ITER_FG_ABSTIME, TREV_GRAPH_ABSTIME },
		{ TREV_ITER_FG_DURATION, TREV_GRAPH_DURATION },
		{ TREV_ITER_FG_OVERHEAD, TREV_GRAPH_OVERHEAD },
		{ TREV_ITER_FG_TAIL, TREV_GRAPH_TAIL },
		{ TREV_ITER_FG_OVERRUN, TREV_GRAPH_OVERRUN },
		{ TREV_ITER_FG_RETVAL, TREV_GRAPH_RETVAL },
		{ TREV_ITER_FG_RETVAL_HEX, TREV_GRAPH_RETVAL_HEX },
	};
	unsigned int opts = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (trace_flags & map[i].iter)
			opts |= map[i].opt;
	return opts;
}

/* A funcgraph_exit read ahead: a record of this library's buffers. */
static bool graph_is_exit(void *arg, const struct trev_rb_event *ev, struct trev_graph_call *c)
{
	struct trev_fgraph_ret_entry ret;

	(void)arg;
	if (ev->len < sizeof(ret))
		return false;
	memcpy(&ret, ev->data, sizeof(ret));
	if (ret.ent.type != TREV_TYPE_GRAPH_RET)
		return false;
	*c = (struct trev_graph_call){ ret.func, ret.depth, ret.overrun, ret.calltime,
				       ret.rettime, ret.ent.pid, ret.retval, 0, { 0 } };
	return true;
}

struct trev_graph *trev__graph_new(void)
{
	return trev__graph_alloc(graph_is_exit);
}

/* The layout's output: the line's seq, and this process's symbols. */
struct graph_seq_out {
	struct trev_graph_out out;
	struct trev_seq *s;
};

static void graph_seq_put(struct trev_graph_out *o, const char *p, size_t len)
{
	struct graph_seq_out *so = (struct graph_seq_out *)((char *)o -
							     offsetof(struct graph_seq_out, out));

	trev_seq_putmem(so->s, p, len);
}

static void graph_seq_sym(struct trev_graph_out *o, unsigned long long addr)
{
	struct graph_seq_out *so = (struct graph_seq_out *)((char *)o -
							     offsetof(struct graph_seq_out, out));

	trev__sym_print(so->s, (unsigned long)addr, 0);
}

/* The CPU column's width: the highest CPU number this machine may have. */
static int graph_cpu_width(void)
{
	static int width;
	int w = __atomic_load_n(&width, __ATOMIC_RELAXED);

	if (!w) {
		w = trev__graph_cpu_width(sysconf(_SC_NPROCESSORS_CONF));
		/* Any reader computes the same value: a plain store of it is enough. */
		__atomic_store_n(&width, w, __ATOMIC_RELAXED);
	}
	return w;
}

/* print_graph_comment(): another event's text as "/" "* text *" "/" at the thread's depth. */
static void graph_comment(const struct trev_graph_src *src, const struct trev_graph_line *l,
			  struct trev_trace_iter *iter, struct trev_event_call *call)
{
	struct trev_seq *s = &iter->seq;
	int ret;

	trev__graph_comment(src, l);
	if (call->id == TREV_TYPE_PRINT || call->id == TREV_TYPE_BPRINT ||
	    call->id == TREV_TYPE_BPUTS)
		ret = trev__printk_msg_only(iter);
	else
		ret = call->output(iter, call);
	if (ret < 0 && !s->full)
		trev_seq_printf(s, "[malformed %s:%s record]", call->klass->system, call->name);
	if (s->full)
		return;
	/* The event's own newline goes: the comment closes the line. */
	if (s->len && s->buffer[s->len - 1] == '\n')
		s->len--;
	trev_seq_puts(s, " */\n");
}

bool trev__graph_print(const struct trev_graph_src *src, struct trev_trace_iter *iter,
		       struct trev_event_call *call, const char *comm)
{
	const struct trev_entry *ent = iter->ent;
	struct graph_seq_out o = { { graph_seq_put, graph_seq_sym }, &iter->seq };
	struct trev_graph_line l = {
		.out = &o.out,
		.opts = trev__graph_opts(iter->trace_flags),
		.cpu_width = graph_cpu_width(),
		.cpu = iter->cpu,
		.pid = ent->pid,
		.comm = comm,
		.ts = iter->ts,
		.flags = ent->flags,
		.preempt = ent->preempt_count,
		.thread = iter->buffer,
	};
	struct trev_graph_call c = { .pid = ent->pid };

	switch (call->id) {
	case TREV_TYPE_GRAPH_ENT: {
		struct trev_fgraph_ent_entry e;

		if (iter->ent_size < sizeof(e))
			return false;
		/* A copy: reading ahead may take the record's data away. */
		memcpy(&e, ent, sizeof(e));
		c.func = e.func;
		c.depth = e.depth;
		/* As the kernel: the arguments whenever the record has them. */
		if (iter->ent_size >= sizeof(e) + sizeof(unsigned long) * TREV_FG_NR_ARGS) {
			unsigned long a[TREV_FG_NR_ARGS];

			memcpy(a, (const char *)ent + sizeof(e), sizeof(a));
			for (int i = 0; i < TREV_FG_NR_ARGS; i++)
				c.args[i] = a[i];
			c.nr_args = TREV_FG_NR_ARGS;
		}
		trev__graph_entry(src, &l, &c);
		return true;
	}
	case TREV_TYPE_GRAPH_RET: {
		struct trev_fgraph_ret_entry r;

		if (iter->ent_size < sizeof(r))
			return false;
		memcpy(&r, ent, sizeof(r));
		c = (struct trev_graph_call){ r.func, r.depth, r.overrun, r.calltime, r.rettime,
					      r.ent.pid, r.retval, 0, { 0 } };
		trev__graph_return(src, &l, &c);
		return true;
	}
	case TREV_TYPE_FN:
	case TREV_TYPE_KERNEL_STACK:
		/* Not shown as comments: their own lines. */
		return false;
	default:
		graph_comment(src, &l, iter, call);
		return true;
	}
}

/* ------------------------------------------------------------------ */
/* The tracer's callbacks                                               */

void trev__graph_text_header(unsigned long trace_flags, bool empty, struct trev_buf *out)
{
	trev__graph_header(trev__graph_opts(trace_flags), empty, out);
}

void *trev__graph_text_open(void)
{
	return trev__graph_new();
}

void trev__graph_text_close(void *state)
{
	trev__graph_free(state);
}

int trev__graph_text_read(const struct trev_tracer_read *rd, struct trev_rb_event *ev)
{
	struct trev_graph_src gs = { rd->state, rd->next, rd->arg };

	return trev__graph_next(&gs, ev);
}

bool trev__graph_text_pending(const void *state)
{
	return trev__graph_pending(state);
}

bool trev__graph_text_line(const struct trev_tracer_read *rd, struct trev_trace_iter *iter,
			   struct trev_event_call *call, const char *comm)
{
	struct trev_graph_src gs = { rd->state, rd->next, rd->arg };

	return trev__graph_print(&gs, iter, call, comm);
}
