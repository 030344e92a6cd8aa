// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * function_graph under load: 8 threads call traced functions and check
 * every result while the main thread switches current_tracer between nop,
 * function and function_graph and changes set_ftrace_filter,
 * set_graph_function, set_graph_notrace and max_graph_depth; frames are
 * pushed while their sites are unpatched and the tracer goes off, and
 * must still return. Between the changes the threads make a counted
 * number of calls with nothing changing, and each thread's graph records
 * must be exactly the calls the configuration selects (fg_check.h).
 */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <trev/trev.h>

#include "fg_check.h"
#include "fg_funcs.h"

#define THREADS		8
#define COUNTED		40	/* counted iterations per thread per round */
#define ROUNDS		21

enum mode { FREE, PAUSE, COUNT, STOP };

static _Atomic int mode = FREE;
static _Atomic int generation;
static _Atomic int paused;
static _Atomic int counted;
static _Atomic long bad_results;
static _Atomic long free_calls;
static _Atomic int started;
static pid_t tids[THREADS];
static struct fg_rec recs[1 << 17];
static char graph[1 << 20];

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "FAIL: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	exit(1);
}

static void check(long got, long want)
{
	if (got != want)
		atomic_fetch_add(&bad_results, 1);
}

static void calls(int id, long i)
{
	struct fg_pair p;

	check(fg_top((int)i), 3 * i + 3);
	check(fg_rec(3), 3);
	check((long)fg_dret((double)id, 0.5), (long)(id * 2.5 + 0.5));
	p = fg_pair(id);
	check(p.a + p.b, id * 10);
	check((long)fg_ldret((long double)id), (long)(id * 3 + 0.25L));
}

static void *worker(void *arg)
{
	int id = (int)(long)arg, paused_gen = -1, counted_gen = 0;
	long i = 0;

	tids[id] = (pid_t)syscall(SYS_gettid);
	atomic_fetch_add(&started, 1);
	for (;;) {
		int m = atomic_load(&mode), gen = atomic_load(&generation);

		if (m == STOP)
			break;
		if (m == FREE) {
			calls(id, ++i);
			atomic_fetch_add_explicit(&free_calls, 1, memory_order_relaxed);
			continue;
		}
		if (m == PAUSE && paused_gen != gen) {
			paused_gen = gen;
			atomic_fetch_add(&paused, 1);
		} else if (m == COUNT && counted_gen != gen) {
			counted_gen = gen;
			for (int k = 0; k < COUNTED; k++) {
				check(fg_top(k), 3 * k + 3);
				check(fg_rec(3), 3);
			}
			atomic_fetch_add(&counted, 1);
		}
		sched_yield();
	}
	return NULL;
}

static void wait_for(_Atomic int *v, int want)
{
	while (atomic_load(v) < want)
		sched_yield();
}

static void must(int ret, const char *what)
{
	if (ret < 0)
		fail("%s: %s\n", what, strerror(-ret));
}

struct config {
	const char *tracer;
	const char *filter, *graph_fn, *graph_nt, *depth;
	const char *one;	/* the graph of one counted iteration */
};

static const struct config configs[] = {
	{ "function_graph", "fg_*", "", "", "0",
	  "fg_top{fg_mid{fg_leaf{}}fg_leaf{}}fg_rec{fg_rec{fg_rec{fg_rec{}}}}" },
	{ "function_graph", "fg_top fg_leaf", "", "", "0", "fg_top{fg_leaf{}fg_leaf{}}" },
	{ "function", "fg_*", "", "", "0", "" },
	{ "function_graph", "fg_*", "fg_mid", "", "0", "fg_mid{fg_leaf{}}" },
	{ "function_graph", "fg_*", "", "fg_mid", "0",
	  "fg_top{fg_leaf{}}fg_rec{fg_rec{fg_rec{fg_rec{}}}}" },
	{ "nop", "fg_*", "", "", "0", "" },
	{ "function_graph", "fg_*", "", "", "2", "fg_top{fg_mid{}fg_leaf{}}fg_rec{fg_rec{}}" },
};

static void apply(const struct config *c)
{
	must(trev_write("current_tracer", "nop"), "current_tracer nop");
	must(trev_write("set_ftrace_filter", c->filter), "set_ftrace_filter");
	must(trev_write("set_graph_function", c->graph_fn), "set_graph_function");
	must(trev_write("set_graph_notrace", c->graph_nt), "set_graph_notrace");
	must(trev_write("max_graph_depth", c->depth), "max_graph_depth");
	must(trev_write("current_tracer", c->tracer), "current_tracer");
}

/* Changes while the threads run: tracers, filters, graph lists. */
static void churn(int round)
{
	static const char *const tracers[] = { "function_graph", "function", "nop",
					       "function_graph" };
	static const char *const filters[] = { "fg_top fg_leaf", "", "fg_mid fg_rec", "fg_*",
					       "!fg_mid" };

	for (int i = 0; i < 12; i++) {
		must(trev_write("current_tracer", tracers[(round + i) % 4]), "churn tracer");
		must(trev_append("set_ftrace_filter", filters[(round + i) % 5]), "churn filter");
		must(trev_write("set_graph_function", i % 3 ? "" : "fg_mid"), "churn graph");
		must(trev_write("set_graph_notrace", i % 4 ? "" : "fg_rec"), "churn notrace");
		must(trev_write("max_graph_depth", i % 5 ? "0" : "1"), "churn depth");
	}
}

int main(void)
{
	pthread_t th[THREADS];

	fg_name_add((const void *)fg_leaf, "fg_leaf");
	fg_name_add((const void *)fg_mid, "fg_mid");
	fg_name_add((const void *)fg_top, "fg_top");
	fg_name_add((const void *)fg_rec, "fg_rec");
	fg_name_add((const void *)fg_dret, "fg_dret");
	fg_name_add((const void *)fg_pair, "fg_pair");
	fg_name_add((const void *)fg_ldret, "fg_ldret");
	must(trev_write("buffer_size_kb", "4096"), "buffer_size_kb");
	for (long i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	wait_for(&started, THREADS);
	for (int round = 0; round < ROUNDS; round++) {
		const struct config *c = &configs[round % (sizeof(configs) / sizeof(configs[0]))];
		char want[4096];

		churn(round);
		apply(c);
		atomic_store(&paused, 0);
		atomic_fetch_add(&generation, 1);
		atomic_store(&mode, PAUSE);
		wait_for(&paused, THREADS);
		must(trev_write("trace", ""), "clear trace");
		atomic_store(&counted, 0);
		atomic_fetch_add(&generation, 1);
		atomic_store(&mode, COUNT);
		wait_for(&counted, THREADS);
		want[0] = '\0';
		for (int k = 0; k < COUNTED; k++)
			strcat(want, c->one);
		for (int t = 0; t < THREADS; t++) {
			size_t n = fg_collect(tids[t], recs, sizeof(recs) / sizeof(recs[0]));
			const char *why = fg_render(recs, n, graph, sizeof(graph));

			if (why)
				fail("round %d (%s), thread %d: %s\n%.1000s\n", round, c->tracer, t,
				     why, graph);
			if (strcmp(graph, want))
				fail("round %d (%s), thread %d: got\n%.1000s\nwant\n%.1000s\n", round,
				     c->tracer, t, graph, want);
		}
		atomic_store(&mode, FREE);
		if (atomic_load(&bad_results))
			fail("round %d: %ld wrong results\n", round, atomic_load(&bad_results));
	}
	atomic_store(&mode, STOP);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	must(trev_write("current_tracer", "nop"), "current_tracer nop");
	if (atomic_load(&bad_results))
		fail("%ld wrong results\n", atomic_load(&bad_results));
	printf("ok: %d rounds, %ld calls checked while switching\n", ROUNDS,
	       atomic_load(&free_calls));
	return 0;
}
