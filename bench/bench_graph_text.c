/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * function_graph's text (src/ftrace/graph_output.c): how fast `trace` and
 * trace_pipe format a buffer of funcgraph records in the kernel's graph
 * layout, against the one-line-per-record text of the same records (the
 * nop tracer's). The records are nested calls with a leaf each, written
 * by this thread as the function_graph tracer would; records/s, the median
 * of RUNS runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trev/trev.h>

#include "bench_common.h"
#include "events/events_internal.h"
#include "events/tracer.h"
#include "ftrace/fgraph.h"

#define RUNS		5
#define NR_CALLS	100000u		/* 4 records each */

noinline void bench_graph_outer(void);
noinline void bench_graph_leaf(void);

noinline void bench_graph_outer(void)
{
	__asm__ volatile("");
}

noinline void bench_graph_leaf(void)
{
	__asm__ volatile("");
}

static void fill(void)
{
	struct trev_event_file *ent = &trev__event_rt(&trev__ftrace_event_funcgraph_entry)->file;
	struct trev_event_file *ret = &trev__event_rt(&trev__ftrace_event_funcgraph_exit)->file;

	trev_trace_reset();
	for (unsigned int i = 0; i < NR_CALLS; i++) {
		struct trev_fgraph_ent_entry e = { .func = (unsigned long)bench_graph_outer };
		struct trev_fgraph_ret_entry r = { .func = (unsigned long)bench_graph_leaf,
						   .depth = 1, .calltime = 0, .rettime = 250 + i };

		trev_event_write(ent, &e, sizeof(e));
		e.func = (unsigned long)bench_graph_leaf;
		e.depth = 1;
		trev_event_write(ent, &e, sizeof(e));
		trev_event_write(ret, &r, sizeof(r));
		r.func = (unsigned long)bench_graph_outer;
		r.depth = 0;
		r.rettime = 20000 + i;
		trev_event_write(ret, &r, sizeof(r));
	}
}

/* The text of function_graph (or of nop), without running the tracer. */
static void text_of(bool graph)
{
	struct trev_trace_array *tr = trev__top_instance();

	__atomic_store_n(&tr->tracer, trev__tracer_find(tr, graph ? "function_graph" : "nop"),
			 __ATOMIC_RELEASE);
}

/* `trace` formatted to /dev/null: records/s. */
static double trace_rate(bool graph)
{
	FILE *null = fopen("/dev/null", "w");
	double v[RUNS];

	if (!null)
		die("fopen /dev/null", errno);
	text_of(graph);
	for (int i = 0; i < RUNS; i++) {
		uint64_t t0;

		fill();
		t0 = now_ns();
		trev_trace_print(null);
		v[i] = 4.0 * NR_CALLS / ((double)(now_ns() - t0) / 1e9);
	}
	fclose(null);
	return median(v, RUNS);
}

/* trace_pipe read 64 KiB at a time until empty: records/s. */
static double pipe_rate(bool graph)
{
	static char buf[65536];
	double v[RUNS];

	text_of(graph);
	for (int i = 0; i < RUNS; i++) {
		struct trev_file *f;
		uint64_t t0;
		int ret;

		fill();
		ret = trev_file_open("trace_pipe", O_RDONLY | O_NONBLOCK, &f);
		if (ret)
			die("trace_pipe", -ret);
		t0 = now_ns();
		while (trev_file_read(f, buf, sizeof(buf)) > 0)
			;
		v[i] = 4.0 * NR_CALLS / ((double)(now_ns() - t0) / 1e9);
		trev_file_close(f);
	}
	return median(v, RUNS);
}

int main(void)
{
	double tg, tn, pg, pn;

	if (trev_write("buffer_size_kb", "65536"))
		die("buffer_size_kb", EINVAL);
	/* What the tracer does when it starts: its events write to the top instance. */
	trev__event_rt(&trev__ftrace_event_funcgraph_entry)->file.tr = trev__top_instance();
	trev__event_rt(&trev__ftrace_event_funcgraph_exit)->file.tr = trev__top_instance();
	tg = trace_rate(true);
	tn = trace_rate(false);
	pg = pipe_rate(true);
	pn = pipe_rate(false);
	printf("function_graph text, %u records (nested call + leaf), median of %d:\n",
	       4 * NR_CALLS, RUNS);
	printf("| %-28s | %10s | %10s | %6s |\n", "reader", "graph M/s", "nop M/s", "ratio");
	printf("| %-28s | %10.2f | %10.2f | %6.2f |\n", "trace (to /dev/null)", tg / 1e6,
	       tn / 1e6, tn / tg);
	printf("| %-28s | %10.2f | %10.2f | %6.2f |\n", "trace_pipe (64 KiB reads)", pg / 1e6,
	       pn / 1e6, pn / pg);
	return 0;
}
