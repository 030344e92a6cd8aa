/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * function_graph's layout (graph_layout.h): the kernel's text, written from
 * its description in kernel/trace/trace_functions_graph.c and
 * Documentation/trace/ftrace.rst:
 *
 *   # tracer: function_graph
 *   #
 *   # CPU  DURATION                  FUNCTION CALLS
 *   # |     |   |                     |   |   |   |
 *    0)               |  outer() {
 *    0)   0.250 us    |    leaf();
 *    0) + 12.500 us   |  }
 *
 * The kernel keeps the depth of comments and the function open at each
 * depth per CPU; trev keeps them per thread (the source's ev->buffer), where
 * a thread's nested calls are. The thread switch markers stay per CPU, as
 * the kernel's verif_pid().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "output/fmt_num.h"
#include "output/graph_layout.h"
#include "output/line_prefix.h"

/* Spaces per depth (the kernel's TRACE_GRAPH_INDENT). */
#define GRAPH_INDENT		2
/* Depths whose open function is remembered (the kernel's FTRACE_RETFUNC_DEPTH). */
#define GRAPH_RETFUNC_DEPTH	50
/* The width "comm-pid" is centered in (TRACE_GRAPH_PROCINFO_LENGTH). */
#define GRAPH_PROCINFO_LEN	14
/*
 * Records read ahead for one entry: past them, the entry is shown as
 * "func() {" (as the kernel does when its peek finds no more data).
 */
#define GRAPH_PEEK_MAX		4096u
/* CPUs whose last thread is remembered; records of higher CPUs show no switch. */
#define GRAPH_MAX_CPUS		4096u
/* The longest record kept read ahead in place (larger ones are allocated). */
#define GRAPH_ENT_COPY		64u

/* One thread's state (the kernel's struct fgraph_cpu_data, per thread here). */
struct graph_thread {
	int depth;				/* where a comment is indented */
	unsigned long long enter_funcs[GRAPH_RETFUNC_DEPTH];	/* the function open at each depth */
};

/* One CPU's last thread, for the switch markers. */
struct graph_cpu {
	int last_pid;		/* -1: none yet */
	char last_comm[8];	/* its name, cut at 7 bytes as print_graph_proc() */
};

/*
 * A record read ahead: a copy, the source's data going away at its next
 * call; in place when it is small (funcgraph records are), else allocated.
 */
struct graph_rec {
	struct trev_rb_event ev;	/* ev.data: not used, see rec_data() */
	void *heap;			/* the copy when larger than @inl, else NULL */
	_Alignas(8) unsigned char inl[GRAPH_ENT_COPY];
};

static void *rec_data(struct graph_rec *r)
{
	return r->heap ? r->heap : r->inl;
}

struct trev_graph {
	trev_graph_exit_fn is_exit;	/* tells a return among the records read ahead */
	struct graph_thread **threads;	/* by ev->buffer; NULL: not met yet */
	unsigned int nr_threads;
	struct graph_cpu *cpus;		/* by CPU */
	unsigned int nr_cpus;
	struct graph_rec *q;		/* read ahead, oldest at q[head] */
	unsigned int head, len, cap;
	struct graph_rec shown;		/* the record trev__graph_next() gave last from q */
	int err;			/* the source's error while reading ahead */
};

struct trev_graph *trev__graph_alloc(trev_graph_exit_fn is_exit)
{
	struct trev_graph *g = calloc(1, sizeof(struct trev_graph));

	if (g)
		g->is_exit = is_exit;
	return g;
}

void trev__graph_free(struct trev_graph *g)
{
	if (!g)
		return;
	for (unsigned int i = 0; i < g->nr_threads; i++)
		free(g->threads[i]);
	free(g->threads);
	free(g->cpus);
	for (unsigned int i = g->head; i < g->len; i++)
		free(g->q[i].heap);
	free(g->q);
	free(g->shown.heap);
	free(g);
}

bool trev__graph_pending(const struct trev_graph *g)
{
	return g && g->head < g->len;
}

int trev__graph_next(const struct trev_graph_src *src, struct trev_rb_event *ev)
{
	struct trev_graph *g = src->g;

	free(g->shown.heap);
	g->shown.heap = NULL;
	if (g->head < g->len) {
		/* Out of the queue, which reading ahead may move: g->shown holds it. */
		g->shown = g->q[g->head++];
		*ev = g->shown.ev;
		ev->data = rec_data(&g->shown);
		if (g->head == g->len)
			g->head = g->len = 0;
		return 1;
	}
	if (g->err) {
		int err = g->err;

		g->err = 0;
		return err;
	}
	return src->fn(src->arg, ev);
}

/* Thread @id's state, made on first use. Return: NULL when out of memory. */
static struct graph_thread *graph_thread(struct trev_graph *g, unsigned int id)
{
	if (id >= g->nr_threads) {
		unsigned int n = g->nr_threads ? g->nr_threads : 16;
		struct graph_thread **t;

		while (n <= id)
			n *= 2;
		t = realloc(g->threads, n * sizeof(*t));
		if (!t)
			return NULL;
		memset(t + g->nr_threads, 0, (n - g->nr_threads) * sizeof(*t));
		g->threads = t;
		g->nr_threads = n;
	}
	if (!g->threads[id])
		g->threads[id] = calloc(1, sizeof(struct graph_thread));
	return g->threads[id];
}

/* CPU @cpu's state. Return: NULL for a CPU out of range or out of memory. */
static struct graph_cpu *graph_cpu(struct trev_graph *g, int cpu)
{
	if (cpu < 0 || (unsigned int)cpu >= GRAPH_MAX_CPUS)
		return NULL;
	if ((unsigned int)cpu >= g->nr_cpus) {
		unsigned int n = g->nr_cpus ? g->nr_cpus : 8;
		struct graph_cpu *c;

		while (n <= (unsigned int)cpu)
			n *= 2;
		c = realloc(g->cpus, n * sizeof(*c));
		if (!c)
			return NULL;
		for (unsigned int i = g->nr_cpus; i < n; i++) {
			c[i].last_pid = -1;
			c[i].last_comm[0] = '\0';
		}
		g->cpus = c;
		g->nr_cpus = n;
	}
	return &g->cpus[cpu];
}

/*
 * The index in g->q of the next record of thread @buffer, reading ahead from
 * the source as far as needed and available. Return: -1 when there is none
 * (yet), or the look-ahead is full.
 */
static long graph_peek(const struct trev_graph_src *src, unsigned int buffer)
{
	struct trev_graph *g = src->g;

	for (unsigned int i = g->head; i < g->len; i++)
		if (g->q[i].ev.buffer == buffer)
			return i;
	while (!g->err && g->len - g->head < GRAPH_PEEK_MAX) {
		struct trev_rb_event ev;
		struct graph_rec *r;
		int ret;

		/* Room first: a record taken from the source must not be dropped. */
		if (g->len == g->cap) {
			unsigned int n = g->cap ? g->cap * 2 : 16;

			if (g->head) {
				memmove(g->q, g->q + g->head, (g->len - g->head) * sizeof(*g->q));
				g->len -= g->head;
				g->head = 0;
			} else {
				r = realloc(g->q, n * sizeof(*r));
				if (!r)
					return -1;
				g->q = r;
				g->cap = n;
			}
		}
		ret = src->fn(src->arg, &ev);
		if (ret <= 0) {
			g->err = ret;
			return -1;
		}
		r = &g->q[g->len];
		r->ev = ev;
		r->ev.data = NULL;
		r->heap = NULL;
		if (ev.len > sizeof(r->inl)) {
			r->heap = malloc(ev.len);
			if (!r->heap) {
				/* The record cannot be kept: the text ends with the error. */
				g->err = -ENOMEM;
				return -1;
			}
		}
		memcpy(rec_data(r), ev.data, ev.len);
		g->len++;
		if (ev.buffer == buffer)
			return (long)g->len - 1;
	}
	return -1;
}

static void graph_puts(const struct trev_graph_line *l, const char *s)
{
	l->out->put(l->out, s, strlen(s));
}

int trev__graph_cpu_width(long nr_cpus)
{
	return fmt_udec_len((unsigned long long)(nr_cpus > 1 ? nr_cpus - 1 : 0));
}

/* print_graph_cpu(): " %*d) ", the width of the highest CPU number. By hand: printf cost. */
static void graph_print_cpu(const struct trev_graph_line *l, int cpu)
{
	char buf[48], *p = buf;
	int w = l->cpu_width;

	*p++ = ' ';
	if (cpu < 0) {
		int len = fmt_udec_len((unsigned long long)-(long long)cpu) + 1;

		for (; len < w; len++)
			*p++ = ' ';
		*p++ = '-';
		p = fmt_udec(p, (unsigned long long)-(long long)cpu, 0, ' ');
	} else {
		p = fmt_udec(p, (unsigned long long)cpu, w > 20 ? 20 : w, ' ');
	}
	*p++ = ')';
	*p++ = ' ';
	l->out->put(l->out, buf, (size_t)(p - buf));
}

/* print_graph_proc(): "comm-pid" centered in 14 columns, comm cut at 7 bytes. */
static void graph_print_proc(const struct trev_graph_line *l, const char *comm, int pid)
{
	char buf[40], line[64];
	int len = snprintf(buf, sizeof(buf), "%.7s-%d", comm, pid);
	int spaces = len < GRAPH_PROCINFO_LEN ? GRAPH_PROCINFO_LEN - len : 0;
	int n = snprintf(line, sizeof(line), "%*s%s%*s", spaces / 2, "", buf,
			 spaces - spaces / 2, "");

	l->out->put(l->out, line, (size_t)n);
}

/* verif_pid(): the switch marker when CPU @cpu's thread changed since its last record. */
static void graph_verif_pid(struct trev_graph *g, const struct trev_graph_line *l)
{
	struct graph_cpu *c = graph_cpu(g, l->cpu);
	char prev[8];
	int prev_pid;

	if (!c || c->last_pid == l->pid)
		return;
	prev_pid = c->last_pid;
	memcpy(prev, c->last_comm, sizeof(prev));
	c->last_pid = l->pid;
	snprintf(c->last_comm, sizeof(c->last_comm), "%s", l->comm);
	if (prev_pid == -1)
		return;
	graph_puts(l, " ------------------------------------------\n");
	graph_print_cpu(l, l->cpu);
	graph_print_proc(l, prev, prev_pid);
	graph_puts(l, " => ");
	graph_print_proc(l, l->comm, l->pid);
	graph_puts(l, "\n ------------------------------------------\n\n");
}

/* print_graph_prologue(): the switch marker, then the time, CPU, task and latency columns. */
static void graph_prologue(const struct trev_graph_src *src, const struct trev_graph_line *l)
{
	unsigned int opts = l->opts;

	graph_verif_pid(src->g, l);
	if (!(opts & TREV_GRAPH_CONTEXT))
		return;
	if (opts & TREV_GRAPH_ABSTIME) {
		char buf[48];
		int n = snprintf(buf, sizeof(buf), "%5llu.%06llu |  ", l->ts / 1000000000,
				 l->ts % 1000000000 / 1000);

		l->out->put(l->out, buf, (size_t)n);
	}
	if (opts & TREV_GRAPH_CPU)
		graph_print_cpu(l, l->cpu);
	if (opts & TREV_GRAPH_PROC) {
		graph_print_proc(l, l->comm, l->pid);
		graph_puts(l, " | ");
	}
	if (opts & TREV_GRAPH_LATENCY) {
		char lat[5];

		lat[0] = ' ';
		l->out->put(l->out, lat,
			    (size_t)(trev__line_prefix_lat(lat + 1, l->flags, l->preempt) - lat));
		graph_puts(l, " | ");
	}
}

/* trace_find_mark(): the overhead mark of a call that took @d ns. */
static char graph_mark(unsigned long long d)
{
	static const struct {
		unsigned long long over;
		char mark;
	} marks[] = {
		{ 1000000000ULL, '$' }, { 100000000ULL, '@' }, { 10000000ULL, '*' },
		{ 1000000ULL, '#' }, { 100000ULL, '!' }, { 10000ULL, '+' },
	};

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (d > marks[i].over)
			return marks[i].mark;
	return ' ';
}

/* What the duration column holds (the kernel's FLAGS_FILL_*). */
enum graph_fill {
	GRAPH_TIME,		/* the duration */
	GRAPH_FILL_FULL,	/* spaces: an entry or a comment */
};

/*
 * print_graph_duration(): "M d.ddd us |  " with the overhead mark M, the
 * time in µs with its ns, at most 7 digits in all, padded to 8 columns.
 */
static void graph_duration(const struct trev_graph_line *l, unsigned long long d,
			   enum graph_fill fill)
{
	unsigned int opts = l->opts;
	char buf[48], *p;
	int len;

	if (!(opts & TREV_GRAPH_DURATION) || !(opts & TREV_GRAPH_CONTEXT))
		return;
	if (fill == GRAPH_FILL_FULL) {
		graph_puts(l, "              |  ");
		return;
	}
	/* By hand: printf cost as much as the rest of the line. */
	p = buf;
	*p++ = (opts & TREV_GRAPH_OVERHEAD) ? graph_mark(d) : ' ';
	*p++ = ' ';
	len = fmt_udec_len(d / 1000);
	p = fmt_udec(p, d / 1000, 0, ' ');
	if (len < 7) {
		/* As many of the 3 ns digits as keep the number within 7 digits. */
		int ns = 7 - len < 3 ? 7 - len : 3;
		char nsecs[3];

		fmt_udec(nsecs, d % 1000, 3, '0');
		*p++ = '.';
		memcpy(p, nsecs, (size_t)ns);
		p += ns;
		len += ns + 1;
	}
	memcpy(p, " us ", 4);
	p += 4;
	for (; len < 8; len++)
		*p++ = ' ';
	memcpy(p, "|  ", 3);
	p += 3;
	l->out->put(l->out, buf, (size_t)(p - buf));
}

static void graph_indent(const struct trev_graph_line *l, int depth)
{
	static const char spaces[] = "                                                                ";
	size_t n = depth > 0 ? (size_t)depth * GRAPH_INDENT : 0;

	while (n > 0) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;

		l->out->put(l->out, spaces, k);
		n -= k;
	}
}

/* A depth a record may claim: its own field, or -1 past what is remembered. */
static int graph_slot(unsigned int depth)
{
	return depth < GRAPH_RETFUNC_DEPTH ? (int)depth : -1;
}

size_t trev__fn_args_fmt(char *buf, const unsigned long long *args, int n)
{
	size_t len = 0;

	buf[len++] = '(';
	for (int i = 0; i < n && i < 6; i++)
		len += (size_t)snprintf(buf + len, TREV_FN_ARGS_TEXT - len, "%s0x%llx",
					i ? ", " : "", args[i]);
	buf[len++] = ')';
	buf[len] = '\0';
	return len;
}

/* The call's name and, when its entry record has them, its arguments: "func(0x1, ...)". */
static void graph_call(const struct trev_graph_line *l, const struct trev_graph_call *c)
{
	l->out->sym(l->out, c->func);
	if (c->nr_args) {
		char text[TREV_FN_ARGS_TEXT];

		l->out->put(l->out, text, trev__fn_args_fmt(text, c->args, (int)c->nr_args));
	} else {
		graph_puts(l, "()");
	}
}

/*
 * print_graph_retval()'s value: " ret=0x..." in hex, or " ret=-N" for a
 * value that looks like an error code (-1 to -4095, also as the low 32
 * bits of an int's return), unless funcgraph-retval-hex.
 */
static void graph_retval(const struct trev_graph_line *l, unsigned long long v)
{
	char buf[48];
	long long err = 0;
	int n;

	if (v && !(l->opts & TREV_GRAPH_RETVAL_HEX)) {
		/* An int's -errno in eax: its upper half 0, bit 31 set. */
		err = (v >> 32) == 0 && (v & 0x80000000ull) ? (long long)(int)(unsigned int)v :
							       (long long)v;
		if (err < -4095 || err >= 0)
			err = 0;
	}
	if (err)
		n = snprintf(buf, sizeof(buf), " ret=%lld", err);
	else
		n = snprintf(buf, sizeof(buf), " ret=0x%llx", v);
	l->out->put(l->out, buf, (size_t)n);
}

void trev__graph_entry(const struct trev_graph_src *src, const struct trev_graph_line *l,
		       const struct trev_graph_call *c)
{
	struct trev_graph *g = src->g;
	struct graph_thread *t = graph_thread(g, l->thread);
	struct trev_graph_call ent = *c, ret;
	bool leaf = false;
	int slot = graph_slot(ent.depth);
	long next;

	graph_prologue(src, l);
	next = graph_peek(src, l->thread);
	if (next >= 0) {
		struct graph_rec *r = &g->q[next];
		struct trev_rb_event ev = r->ev;

		ev.data = rec_data(r);
		leaf = !r->ev.lost && g->is_exit(src->arg, &ev, &ret) && ret.pid == ent.pid &&
		       ret.func == ent.func;
	}
	if (leaf) {
		/* The return is shown here: out of the records to show. */
		free(g->q[next].heap);
		memmove(&g->q[next], &g->q[next + 1], (g->len - (unsigned int)next - 1) *
			sizeof(*g->q));
		if (--g->len == g->head)
			g->head = g->len = 0;
		if (t) {
			/* Comments show at depth + 1: at a leaf's own depth. */
			t->depth = (int)ent.depth - 1;
			if (slot >= 0)
				t->enter_funcs[slot] = 0;
		}
		graph_duration(l, ret.rettime - ret.calltime, GRAPH_TIME);
		graph_indent(l, (int)ent.depth);
		graph_call(l, &ent);
		graph_puts(l, ";");
		if (l->opts & TREV_GRAPH_RETVAL) {
			graph_puts(l, " /*");
			graph_retval(l, ret.retval);
			graph_puts(l, " */");
		}
		graph_puts(l, "\n");
		return;
	}
	if (t) {
		t->depth = (int)ent.depth;
		if (slot >= 0)
			t->enter_funcs[slot] = ent.func;
	}
	graph_duration(l, 0, GRAPH_FILL_FULL);
	graph_indent(l, (int)ent.depth);
	graph_call(l, &ent);
	graph_puts(l, " {\n");
}

void trev__graph_return(const struct trev_graph_src *src, const struct trev_graph_line *l,
			const struct trev_graph_call *c)
{
	struct graph_thread *t = graph_thread(src->g, l->thread);
	int slot = graph_slot(c->depth);
	bool match = true;

	if (t) {
		/* Comments now show at the brace's depth. */
		t->depth = (int)c->depth - 1;
		if (slot >= 0) {
			match = t->enter_funcs[slot] == c->func;
			t->enter_funcs[slot] = 0;
		}
	}
	graph_prologue(src, l);
	graph_duration(l, c->rettime - c->calltime, GRAPH_TIME);
	graph_indent(l, (int)c->depth);
	if (l->opts & TREV_GRAPH_RETVAL) {
		/* With the value, always the function's name too. */
		graph_puts(l, "} /* ");
		l->out->sym(l->out, c->func);
		graph_retval(l, c->retval);
		graph_puts(l, " */");
	} else if (match && !(l->opts & TREV_GRAPH_TAIL)) {
		graph_puts(l, "}");
	} else {
		graph_puts(l, "} /* ");
		l->out->sym(l->out, c->func);
		graph_puts(l, " */");
	}
	graph_puts(l, "\n");
	if (l->opts & TREV_GRAPH_OVERRUN) {
		char buf[48];
		int n = snprintf(buf, sizeof(buf), " (Overruns: %u)\n", c->overrun);

		l->out->put(l->out, buf, (size_t)n);
	}
}

void trev__graph_comment(const struct trev_graph_src *src, const struct trev_graph_line *l)
{
	struct graph_thread *t = graph_thread(src->g, l->thread);
	int depth = t ? t->depth : 0;

	graph_prologue(src, l);
	graph_duration(l, 0, GRAPH_FILL_FULL);
	if (depth > 0)
		graph_indent(l, depth + 1);
	graph_puts(l, "/* ");
}

/* print_lat_header(): the latency columns' legend, indented past the columns before them. */
static int graph_lat_header(unsigned int opts, struct trev_buf *out)
{
	static const char *const legend[] = {
		"  _-----=> irqs-off        \n", " / _----=> need-resched    \n",
		"| / _---=> hardirq/softirq \n", "|| / _--=> preempt-depth   \n",
		"||| /                      \n",
	};
	int size = 0, ret = 0;

	if (opts & TREV_GRAPH_ABSTIME)
		size += 16;
	if (opts & TREV_GRAPH_CPU)
		size += 4;
	if (opts & TREV_GRAPH_PROC)
		size += 17;
	for (size_t i = 0; i < sizeof(legend) / sizeof(legend[0]) && !ret; i++)
		ret = trev__buf_printf(out, "#%*s%s", size, "", legend[i]);
	return ret;
}

int trev__graph_header(unsigned int opts, bool empty, struct trev_buf *out)
{
	bool lat = opts & TREV_GRAPH_LATENCY;
	int ret = 0;

	if (!(opts & TREV_GRAPH_CONTEXT) || (lat && empty))
		return 0;
	if (lat)
		ret = graph_lat_header(opts, out);
	ret = ret ?: trev__buf_printf(out, "#%s%s%s%s%s               FUNCTION CALLS\n",
				      (opts & TREV_GRAPH_ABSTIME) ? "     TIME       " : "",
				      (opts & TREV_GRAPH_CPU) ? " CPU" : "",
				      (opts & TREV_GRAPH_PROC) ? "  TASK/PID       " : "",
				      lat ? "||||   " : "",
				      (opts & TREV_GRAPH_DURATION) ? "  DURATION   " : "");
	ret = ret ?: trev__buf_printf(out, "#%s%s%s%s%s               |   |   |   |\n",
				      (opts & TREV_GRAPH_ABSTIME) ? "      |         " : "",
				      (opts & TREV_GRAPH_CPU) ? " |  " : "",
				      (opts & TREV_GRAPH_PROC) ? "   |    |        " : "",
				      lat ? "||||   " : "",
				      (opts & TREV_GRAPH_DURATION) ? "   |   |      " : "");
	return ret;
}
