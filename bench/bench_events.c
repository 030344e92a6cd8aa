/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_events: the cost of a tracepoint, disabled and enabled, of an event
 * with a string, of filtered events, of a hist trigger and of trace_printk(), against the
 * floor (bench_common.h)
 * and against the same events through LTTng-UST, all in one run.
 *
 * Environment: BENCH_EVENTS_N events per timed run (default 2000000);
 * BENCH_FAKE_CPU=1 for callgrind: valgrind has no rseq, so the writer would
 * ask sched_getcpu() on every event, through its slow path; this points
 * each thread's CPU read at a constant 0 instead, so that callgrind counts
 * the path that runs natively (without it, and without rseq, a warning
 * says so). BENCH_EVENTS_ONLY=<case> runs one case (floor, disabled,
 * disabled_jl, ints3, ints3_jl, str, printk3, filt_out, filt_in3, hist, hist_var,
 * hist_onmatch) once, after its warm-up and one
 * run of the floor, and prints its row: for quick A/B runs, and for
 * callgrind, where --toggle-collect=run_ints3 (the loop of every ints3
 * case; run_ints3_jl for the _jl ones, whose guard is a jump label from
 * bench/jump_label/bench_jl.c; run_str, run_printk3, run_floor for the
 * others) counts N * 1.1 events, the warm-up included.
 * Prints a table and exits 0: no thresholds, no pass/fail.
 * Built twice (bench/CMakeLists.txt): bench_events with libtrev.a, and
 * bench_events_shared (BENCH_EVENTS_SHARED) with libtrev.so, which is what
 * `pkg-config --libs trev` links; the shared one has no BENCH_FAKE_CPU.
 */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/rseq.h>

#include <trev/trev.h>

#include "bench_common.h"
#include "lttng/bench_lttng.h"
#include "ring_buffer/rb_internal.h"	/* trev__rb_cpu_id, for BENCH_FAKE_CPU */

#define CREATE_TRACE_POINTS
#include "bench_events_trace.h"


static uint64_t nr_events;
/*
 * Single-threaded cases stay on the CPU they start on: the two vCPUs of
 * this VM run high-IPC code at different speeds, and a case and its floor
 * must see the same one. The 2-thread case gets every CPU back.
 */
static cpu_set_t all_cpus;
static bool fake_cpu;		/* BENCH_FAKE_CPU */

/* The same source makes both: linked with libtrev.a, and with libtrev.so as programs are. */
#ifdef BENCH_EVENTS_SHARED
#define BENCH_NAME	"bench_events_shared (libtrev.so)"
#else
#define BENCH_NAME	"bench_events (libtrev.a)"
#endif
static const char bench_string[] = "GET /api/v1/items";


/* The run_ints3() loop with a jump label guard (bench/jump_label/bench_jl.c). */
void run_ints3_jl(uint64_t n);

static noinline void run_floor(uint64_t n)
{
	floor_loop(n);
}

static noinline void run_ints3(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		trace_be_ints3((int)i, (int)(i * 3), (int)~i);
}

static noinline void run_str(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		trace_be_str(bench_string);
}

static noinline void run_printk3(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		trace_printk("%d %d %d\n", (int)i, (int)(i * 3), (int)~i);
}

static noinline void run_lttng_ints3(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		lttng_bench_ints3((int)i, (int)(i * 3), (int)~i);
}

static noinline void run_lttng_ints3_rej(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		lttng_bench_ints3_rej((int)i, (int)(i * 3), (int)~i);
}

static noinline void run_lttng_ints3_acc(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		lttng_bench_ints3_acc((int)i, (int)(i * 3), (int)~i);
}

static noinline void run_lttng_str(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		lttng_bench_str(bench_string);
}

static noinline void run_lttng_tracef3(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		lttng_bench_tracef3((int)i, (int)(i * 3), (int)~i);
}

/* BENCH_FAKE_CPU: each timing thread's CPU read points at a constant. */
static void fake_cpu_here(void)
{
#ifdef BENCH_EVENTS_SHARED
	fprintf(stderr, "bench_events_shared: BENCH_FAKE_CPU needs the static build "
			"(bench_events): libtrev.so hides the CPU pointer\n");
#else
	static const int32_t cpu0;

	trev__rb_cpu_id = &cpu0;
#endif
}

static double measure(bench_fn fn)
{
	double v[BENCH_RUNS];

	for (int r = 0; r < BENCH_RUNS; r++)
		v[r] = time_run(fn, nr_events);
	return median(v, BENCH_RUNS);
}

/* @fn, each run right after a run of the floor (bench_common.h). */
static struct result measure_vs_floor(bench_fn fn)
{
	return measure_vs(fn, run_floor, nr_events);
}

struct two {
	bench_fn fn;
	double ns;
};

static void *two_thread(void *arg)
{
	struct two *t = arg;

	t->ns = time_run(t->fn, nr_events);
	return NULL;
}

/* Per-thread cost with two threads running @fn at once (median of runs). */
static double measure2(bench_fn fn)
{
	double v[BENCH_RUNS];

	for (int r = 0; r < BENCH_RUNS; r++) {
		struct two a = { fn, 0 }, b = { fn, 0 };
		pthread_t ta, tb;

		pthread_attr_t attr;

		/* Every CPU, not the main thread's one (pin_here()). */
		pthread_attr_init(&attr);
		if (CPU_COUNT(&all_cpus))
			pthread_attr_setaffinity_np(&attr, sizeof(all_cpus), &all_cpus);
		pthread_create(&ta, &attr, two_thread, &a);
		pthread_create(&tb, &attr, two_thread, &b);
		pthread_attr_destroy(&attr);
		pthread_join(ta, NULL);
		pthread_join(tb, NULL);
		v[r] = (a.ns + b.ns) / 2;
	}
	return median(v, BENCH_RUNS);
}

/* The `trace` text of a full buffer of 3-int events, formatted to /dev/null: events/s. */
static double text_rate(void)
{
	struct trev_rb *rb = trev_trace_buffer();
	unsigned long long entries = 0;
	unsigned int ids[64];
	double v[BENCH_RUNS];
	FILE *null = fopen("/dev/null", "w");
	int n;

	if (!null)
		die("fopen /dev/null", errno);
	for (int r = 0; r < BENCH_RUNS; r++) {
		uint64_t t0;

		trev_trace_reset();
		run_ints3(nr_events);
		entries = 0;
		n = trev_rb_buffers(rb, ids, 64);
		for (int i = 0; i < n && i < 64; i++) {
			struct trev_rb_stats st;

			if (trev_rb_buffer_stats(rb, ids[i], &st) == 0)
				entries += st.entries;
		}
		t0 = now_ns();
		trev_trace_print(null);
		v[r] = (double)entries / ((double)(now_ns() - t0) / 1e9);
	}
	fclose(null);
	return median(v, BENCH_RUNS);
}

/* One row; @l (LTTng) may be NULL. LTTng/trev compares the two ratios to the floor. */
static void row(const char *name, struct result t, const struct result *l)
{
	printf("| %-38s | %8.2f | %6.2f |", name, t.ns, t.ratio);
	if (l && l->ns > 0)
		printf(" %9.2f | %6.1f |\n", l->ns, l->ratio / t.ratio);
	else
		printf(" %9s | %6s |\n", "n/a", "n/a");
}

static int pin_here(void)
{
	int cpu = sched_getcpu();
	cpu_set_t one;

	if (sched_getaffinity(0, sizeof(all_cpus), &all_cpus) || cpu < 0)
		return -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) ? -1 : cpu;
}

/*
 * Inter-event hists (docs/hist.md, "Variables, expressions and actions"): every
 * be_ints3 saves c in a variable of its common_pid's entry; with @match, a
 * second hist reads it back, consuming it (the previous event's), and fires
 * the synthetic event be_lat (enabled: one more record per event).
 */
static void hist_inter_setup(bool match)
{
	if (match && (trev_append("synthetic_events", "be_lat int lat") ||
		      trev_write("events/synthetic/be_lat/enable", "1")))
		die("synthetic event", EINVAL);
	if (trev_append("events/bench/be_ints3/trigger", "hist:keys=common_pid:t0=c"))
		die("hist trigger", EINVAL);
	if (match && trev_append("events/bench/be_ints3/trigger",
				 "hist:keys=common_pid:lat=b-$t0"
				 ":onmatch(bench.be_ints3).trace(be_lat,$lat)"))
		die("hist trigger", EINVAL);
}

static void hist_var_setup(void)
{
	hist_inter_setup(false);
}

static void hist_onmatch_setup(void)
{
	hist_inter_setup(true);
}

/* One case of BENCH_EVENTS_ONLY: its loop and the control writes it needs. */
struct only_case {
	const char *name;
	bench_fn fn;
	const char *events;	/* trev_set_event() before the run, or NULL */
	const char *file;	/* then trev_write(file, value), or NULL */
	const char *value;
	void (*setup)(void);	/* then this, or NULL */
};

static const struct only_case only_cases[] = {
	{ "floor", run_floor, NULL, NULL, NULL, NULL },
	{ "disabled", run_ints3, NULL, NULL, NULL, NULL },
	{ "disabled_jl", run_ints3_jl, NULL, NULL, NULL, NULL },
	{ "ints3", run_ints3, "bench:*", NULL, NULL, NULL },
	{ "ints3_jl", run_ints3_jl, "bench:*", NULL, NULL, NULL },
	{ "str", run_str, "bench:*", NULL, NULL, NULL },
	{ "printk3", run_printk3, "bench:*", NULL, NULL, NULL },
	{ "filt_out", run_ints3, "bench:*", "events/bench/be_ints3/filter", "a < 0", NULL },
	{ "filt_in3", run_ints3, "bench:*", "events/bench/be_ints3/filter",
	  "a >= 0 && b >= 0 && c != 1", NULL },
	{ "hist", run_ints3, "bench:*", "events/bench/be_ints3/trigger", "hist:keys=common_pid", NULL },
	{ "hist_var", run_ints3, "bench:*", NULL, NULL, hist_var_setup },
	{ "hist_onmatch", run_ints3, "bench:*", NULL, NULL, hist_onmatch_setup },
};

/* BENCH_EVENTS_ONLY: one run of one case, next to one run of the floor. */
static int run_only(const char *name, int cpu)
{
	const struct only_case *c = NULL;
	double f, ns;

	for (size_t i = 0; i < sizeof(only_cases) / sizeof(only_cases[0]); i++)
		if (strcmp(only_cases[i].name, name) == 0)
			c = &only_cases[i];
	if (!c) {
		fprintf(stderr, "bench_events: BENCH_EVENTS_ONLY: no case '%s'\n", name);
		return 2;
	}
	if (c->events && trev_set_event(c->events))
		die("trev_set_event", EINVAL);
	if (c->file && trev_write(c->file, c->value))
		die(c->file, EINVAL);
	if (c->setup)
		c->setup();
	f = time_run(run_floor, nr_events);
	ns = time_run(c->fn, nr_events);
	printf("bench_events: %llu events, one run of case %s after one run of the floor; "
	       "on CPU %d\n\n", (unsigned long long)nr_events, c->name, cpu);
	printf("| %-38s | %8s | %6s | %9s | %6s |\n", "case", "ns/event", "x floor", "LTTng ns",
	       "LTTng/trev");
	printf("|%s|%s|%s|%s|%s|\n", "----------------------------------------", "----------",
	       "--------", "-----------", "--------");
	row(c->name, (struct result){ ns, ns / f }, NULL);
	return 0;
}

int main(void)
{
	const char *env = getenv("BENCH_EVENTS_N"), *only = getenv("BENCH_EVENTS_ONLY");
	struct result floor_r, disabled, ints3, str, printk3, filt_out, filt_in3, hist_pid;
	struct result hist_var, hist_onmatch;
	struct result disabled_jl, ints3_jl;
	struct result l_ints3 = { -1, 0 }, l_str = l_ints3, l_tracef = l_ints3, l_rej = l_ints3,
		      l_acc3 = l_ints3;
	double floor2_ns, ints3_2t, text;
	unsigned long long recorded = 0, discarded = 0;
	char err[256] = "";
	bool lttng;
	int cpu;

	nr_events = env ? strtoull(env, NULL, 10) : 2000000ull;
	fake_cpu = getenv("BENCH_FAKE_CPU") != NULL;
	if (fake_cpu)
		bench_before_run = fake_cpu_here;
	if (!fake_cpu && __rseq_size == 0)
		fprintf(stderr, "bench_events: no rseq (valgrind?): every event asks sched_getcpu() "
			"on the slow path; BENCH_FAKE_CPU=1 counts the path that runs natively\n");
	if (nr_events < 1000)
		nr_events = 1000;
	cpu = pin_here();
	if (only)
		return run_only(only, cpu);

	measure(run_floor);			/* warm the CPU up */
	floor_r = measure_vs_floor(run_floor);
	floor2_ns = measure2(run_floor);
	disabled = measure_vs_floor(run_ints3);	/* no event enabled yet */
	disabled_jl = measure_vs_floor(run_ints3_jl);
	if (trev_set_event("bench:*"))
		die("trev_set_event", EINVAL);
	ints3 = measure_vs_floor(run_ints3);
	ints3_jl = measure_vs_floor(run_ints3_jl);
	str = measure_vs_floor(run_str);
	printk3 = measure_vs_floor(run_printk3);
	ints3_2t = measure2(run_ints3);
	text = text_rate();
	/* Filters (docs/filters.md): one predicate that drops every event; three that keep it. */
	if (trev_write("events/bench/be_ints3/filter", "a < 0"))
		die("filter", EINVAL);
	filt_out = measure_vs_floor(run_ints3);
	if (trev_write("events/bench/be_ints3/filter", "a >= 0 && b >= 0 && c != 1"))
		die("filter", EINVAL);
	filt_in3 = measure_vs_floor(run_ints3);
	trev_write("events/bench/be_ints3/filter", "0");
	/* A histogram (docs/hist.md): the event recorded and counted by one key. */
	if (trev_append("events/bench/be_ints3/trigger", "hist:keys=common_pid"))
		die("hist trigger", EINVAL);
	hist_pid = measure_vs_floor(run_ints3);
	trev_write("events/bench/be_ints3/trigger", "");
	hist_var_setup();
	hist_var = measure_vs_floor(run_ints3);
	trev_write("events/bench/be_ints3/trigger", "");
	hist_onmatch_setup();
	hist_onmatch = measure_vs_floor(run_ints3);
	trev_append("events/bench/be_ints3/trigger",
		    "!hist:keys=common_pid:lat=b-$t0:onmatch(bench.be_ints3).trace(be_lat,$lat)");
	trev_write("events/bench/be_ints3/trigger", "");
	trev_write("events/synthetic/be_lat/enable", "0");
	trev_append("synthetic_events", "!be_lat");
	trev_set_event("!bench:*");

	lttng = lttng_bench_start(err, sizeof(err)) == 0;
	if (lttng) {
		l_ints3 = measure_vs_floor(run_lttng_ints3);
		l_str = measure_vs_floor(run_lttng_str);
		l_tracef = measure_vs_floor(run_lttng_tracef3);
		l_rej = measure_vs_floor(run_lttng_ints3_rej);
		l_acc3 = measure_vs_floor(run_lttng_ints3_acc);
		lttng_bench_stop(&recorded, &discarded);
	}

	printf("%s: %llu events per run, median of %d runs; floor = hand-written "
	       "per-thread ring write + rdtsc; each run of a case follows a run of the floor, and "
	       "x floor is the median of those pairs' ratios (LTTng/trev: of LTTng's to trev's); "
	       "single-threaded cases on CPU %d\n\n",
	       BENCH_NAME, (unsigned long long)nr_events, BENCH_RUNS, cpu);
	printf("| %-38s | %8s | %6s | %9s | %6s |\n", "case", "ns/event", "x floor", "LTTng ns",
	       "LTTng/trev");
	printf("|%s|%s|%s|%s|%s|\n", "----------------------------------------", "----------",
	       "--------", "-----------", "--------");
	row("floor (1 thread)", floor_r, NULL);
	row("disabled tracepoint", disabled, NULL);
	row("disabled tracepoint, jump label", disabled_jl, NULL);
	row("enabled, 3 ints", ints3, &l_ints3);
	row("enabled, 3 ints, jump label", ints3_jl, NULL);
	row("enabled, string (17 chars)", str, &l_str);
	row("trace_printk, 3 ints", printk3, &l_tracef);
	row("enabled, 3 ints, 2 threads (each)",
	    (struct result){ ints3_2t, ints3_2t / floor_r.ns }, NULL);
	row("enabled, filtered out (1 predicate)", filt_out, &l_rej);
	row("enabled, 3-predicate filter, accepted", filt_in3, &l_acc3);
	row("enabled, hist trigger keys=common_pid", hist_pid, NULL);
	row("  and saving a variable (t0=c)", hist_var, NULL);
	row("  and onmatch() firing a synthetic ev.", hist_onmatch, NULL);
	/* Two threads on this VM's two vCPUs slow the floor itself down; the
	 * second figure takes each event against its own floor. */
	printf("\n2-thread floor %.2f ns/thread; 2-thread event / 1-thread event = %.2f, "
	       "each against its floor = %.2f\n",
	       floor2_ns, ints3_2t / ints3.ns, (ints3_2t / floor2_ns) / ints3.ratio);
	printf("reader: `trace` text of 3-int events, formatted: %.2f M events/s\n", text / 1e6);
	if (lttng)
		printf("LTTng-UST (%s): %llu events recorded, %llu discarded\n",
		       lttng_bench_config(), recorded, discarded);
	else
		printf("LTTng-UST: n/a (%s)\n", err);
	return 0;
}
