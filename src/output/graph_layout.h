/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * function_graph's layout (docs/function-tracer.md, "Output of
 * function_graph"), apart from where its records come from: the one
 * implementation of the kernel's trace_functions_graph.c text, in
 * trev_common, used by the library's `trace` text (ftrace/graph_output.c,
 * over its per-thread buffers) and by `trev report` (over a trace.dat file's merged
 * per-CPU streams). The caller decodes each record into a struct
 * trev_graph_call, gives its context in a struct trev_graph_line and says
 * how to write bytes and name a function (struct trev_graph_out).
 */
#ifndef TREV_GRAPH_LAYOUT_H
#define TREV_GRAPH_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include <trev/ring_buffer.h>

struct trev_buf;
struct trev_graph;

/* The layout's options (the kernel's funcgraph-* trace options and two of the general ones). */
#define TREV_GRAPH_CONTEXT	0x001u	/* context-info: the columns before the function */
#define TREV_GRAPH_LATENCY	0x002u	/* latency-format: the four latency columns */
#define TREV_GRAPH_CPU		0x004u	/* funcgraph-cpu */
#define TREV_GRAPH_PROC		0x008u	/* funcgraph-proc */
#define TREV_GRAPH_ABSTIME	0x010u	/* funcgraph-abstime */
#define TREV_GRAPH_DURATION	0x020u	/* funcgraph-duration */
#define TREV_GRAPH_OVERHEAD	0x040u	/* funcgraph-overhead */
#define TREV_GRAPH_TAIL		0x080u	/* funcgraph-tail */
#define TREV_GRAPH_OVERRUN	0x100u	/* funcgraph-overrun */
#define TREV_GRAPH_RETVAL	0x200u	/* funcgraph-retval */
#define TREV_GRAPH_RETVAL_HEX	0x400u	/* funcgraph-retval-hex */
/* The kernel's defaults with context-info on. */
#define TREV_GRAPH_DEFAULT	(TREV_GRAPH_CONTEXT | TREV_GRAPH_CPU | TREV_GRAPH_DURATION | \
				 TREV_GRAPH_OVERHEAD)

/* A funcgraph_entry's or funcgraph_exit's fields, as the caller decoded them. */
struct trev_graph_call {
	unsigned long long func;	/* the function's address */
	unsigned int depth;		/* its depth in the thread's calls */
	unsigned int overrun;		/* exit: returns lost past the return stack */
	unsigned long long calltime;	/* exit: when it was called */
	unsigned long long rettime;	/* exit: when it returned */
	int pid;			/* the thread (common_pid) */
	unsigned long long retval;	/* exit: what it returned (rax) */
	unsigned int nr_args;		/* entry: 0, or 6 when the record holds args[] */
	unsigned long long args[6];	/* entry: the argument registers, rdi first */
};

/*
 * A reader's source of records, in the order it shows them: 1 and *@ev,
 * 0 when none is there now, or -errno. @ev's data stays valid until the
 * next call. ev->buffer names the record's thread for the layout (the
 * per-thread buffer; trev report: a number per thread of the file);
 * ev->lost is not 0 when records were lost just before it.
 */
typedef int (*trev_graph_src_fn)(void *arg, struct trev_rb_event *ev);

/*
 * Whether @ev, a record read ahead (whole: ev->len bytes), is a
 * funcgraph_exit; if so its fields into *@c. @arg: the source's.
 */
typedef bool (*trev_graph_exit_fn)(void *arg, const struct trev_rb_event *ev,
				   struct trev_graph_call *c);

/* The layout's state and the source it reads ahead from. */
struct trev_graph_src {
	struct trev_graph *g;
	trev_graph_src_fn fn;
	void *arg;
};

/* Where a line goes: the caller's buffer, and its names of functions. */
struct trev_graph_out {
	/* Append @len bytes of @p (a full buffer drops them: the caller sees it). */
	void (*put)(struct trev_graph_out *o, const char *p, size_t len);
	/* Append the name of the function at @addr (the kernel's %ps). */
	void (*sym)(struct trev_graph_out *o, unsigned long long addr);
};

/* One record's context: what the columns before the function show. */
struct trev_graph_line {
	struct trev_graph_out *out;
	unsigned int opts;	/* TREV_GRAPH_* */
	int cpu_width;		/* digits of the highest CPU number (the CPU column's width) */
	int cpu;		/* the CPU the record ran on */
	int pid;		/* its thread */
	const char *comm;	/* the thread's name */
	unsigned long long ts;	/* its time stamp, ns */
	unsigned int flags;	/* common_flags (the latency columns) */
	unsigned int preempt;	/* common_preempt_count */
	unsigned int thread;	/* the source's ev->buffer: whose depth and open calls */
};

/*
 * trev__graph_alloc() - a reading's state; @is_exit tells a funcgraph_exit
 * among the records read ahead. Return: NULL when out of memory.
 */
struct trev_graph *trev__graph_alloc(trev_graph_exit_fn is_exit);
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
 * trev__graph_entry() - a funcgraph_entry's lines (print_graph_entry()):
 * the thread switch marker if the CPU's thread changed, then "func() {" or,
 * when the next record of the same thread (ev->buffer) is its return (same
 * pid and function, nothing lost before it), the leaf "func();" with that
 * return's duration; the return is then taken out of the records to show.
 * Reading ahead may end the data of the record @c was decoded from.
 */
void trev__graph_entry(const struct trev_graph_src *src, const struct trev_graph_line *l,
		       const struct trev_graph_call *c);

/* trev__graph_return() - a funcgraph_exit's lines: "}" (print_graph_return()). */
void trev__graph_return(const struct trev_graph_src *src, const struct trev_graph_line *l,
			const struct trev_graph_call *c);

/*
 * trev__graph_comment() - the start of another event's line, a comment at
 * its thread's depth (print_graph_comment()): the columns, then "/" "* ".
 * The caller appends the event's text and " *" "/\n".
 */
void trev__graph_comment(const struct trev_graph_src *src, const struct trev_graph_line *l);

/*
 * trev__graph_header() - the column header after "# tracer: function_graph"
 * and "#" (print_graph_headers_flags()) for the options @opts; @empty: the
 * buffer shown holds nothing (no header with latency-format then).
 * Return: 0 or -ENOMEM.
 */
int trev__graph_header(unsigned int opts, bool empty, struct trev_buf *out);

/* Room for trev__fn_args_fmt()'s text of 6 arguments and its NUL. */
#define TREV_FN_ARGS_TEXT	128

/*
 * trev__fn_args_fmt() - the argument registers @args[0 .. @n - 1] of a
 * traced call, as the kernel's print_function_args() prints an argument
 * whose type it does not know, without BTF's names: "(0x1, 0xffee, 0x0)".
 * Shared by function_graph's layout and ftrace/function's text.
 * @buf holds TREV_FN_ARGS_TEXT bytes; @n is at most 6.
 * Return: the length of the text (NUL-terminated in @buf).
 */
size_t trev__fn_args_fmt(char *buf, const unsigned long long *args, int n);

/* trev__graph_cpu_width() - the CPU column's width for CPUs 0 to @nr_cpus - 1. */
int trev__graph_cpu_width(long nr_cpus);

#endif /* TREV_GRAPH_LAYOUT_H */
