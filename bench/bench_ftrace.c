/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_ftrace: the function tracer's costs against the floor
 * (bench_common.h), in one run:
 *   - a traced call: the entry's call, the trampoline and one ftrace/function
 *     record, against the floor of a ring write (target <= 1.5 x floor);
 *   - an unselected function (its 5-byte nop) against the same function
 *     built without -fpatchable-function-entry;
 *   - a traced call with set_ftrace_pid holding this thread: the pid
 *     list's lookup (the kernel's set_ftrace_pid; thread ids here);
 *   - a function with a command (set_ftrace_filter "f:traceon", which finds
 *     tracing on and does nothing), traced or with the tracer nop: the
 *     lookup of the functions with commands (src/ftrace/func_cmd.c);
 *   - a traced call under function_graph: the entry's call and record, the
 *     return through trev__fg_return and its record, against the floor
 *     (target <= 3 x floor);
 *   - uftrace (`uftrace record -P`, bench_uftrace.h) on the same function
 *     built the same way, against function_graph (target: trev >= 5 x
 *     faster), interleaved: each of BENCH_RUNS rounds times the floor,
 *     trev's function_graph call, then uftrace's (a process of its own,
 *     whose run counts only when uftrace recorded every call); the ratio
 *     is printed as the min, median and max of the rounds'; without uftrace
 *     installed, n/a;
 *   - a probe event at the entry (`p:bench/p bench_fn_traced a=%di`, the
 *     tracer nop: docs/probes.md), and a kernel uprobe event with the same
 *     argument on the same body built without the flags, on a text page of
 *     its own (bench_fn_kup, bench_uprobe.h),
 *     interleaved: each round times trev's probe, then the kernel's (a
 *     twentieth of the calls: each is a trap), whose run counts only when
 *     uprobe_profile counted every call; without a writable
 *     /sys/kernel/tracing/uprobe_events (not root, no uprobes) n/a.
 * Environment: BENCH_FTRACE_N calls per timed run (default 2000000);
 * BENCH_FTRACE_ONLY=function, function_graph, nop (the nop5), probe (a probe
 * event at the entry, one argument: docs/probes.md) or probe_off (that
 * probe enabled and disabled again) runs only that case's
 * traced call, N + N/10 calls in run_traced(), untimed: for
 *   BENCH_FAKE_CPU=1 BENCH_FTRACE_N=100000 BENCH_FTRACE_ONLY=function_graph \
 *     valgrind --tool=callgrind --toggle-collect=run_traced build/bench/bench_ftrace
 * (BENCH_FAKE_CPU: valgrind has no rseq, so every record would take the
 * ring's slow path; it points the CPU read at a constant, as bench_events).
 * uftrace's side, counted the same way (its loop function is `run`):
 *   valgrind --tool=callgrind --trace-children=yes --toggle-collect=run \
 *     uftrace record --no-libcall -d /dev/shm/u -P bench_fn_uft build/bench/uft_target 100000
 * (docs/benchmarks.md: valgrind makes uftrace's vDSO clock reads system
 * calls, so its count is a lower bound).
 * BENCH_FTRACE_OPTS=func-args (comma-separated trace options) sets options
 * first: the cost of a traced call with its arguments recorded.
 * With BENCH_FTRACE_INST=1 an instance runs the function tracer on the same
 * function too (its `function` case: two records a call).
 * Prints a table and exits 0: no thresholds, no pass/fail.
 * Built twice (bench/CMakeLists.txt): bench_ftrace with libtrev.a, and
 * bench_ftrace_shared (BENCH_FTRACE_SHARED) with libtrev.so, which is what
 * `pkg-config --libs trev` links; the shared one has no BENCH_FAKE_CPU.
 */
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <trev/trev.h>

#include "bench_common.h"
#include "bench_uftrace.h"
#include "bench_uprobe.h"
#include "ring_buffer/rb_internal.h"	/* trev__rb_cpu_id, for BENCH_FAKE_CPU */

uint64_t bench_fn_traced(uint64_t x);	/* ftrace/bench_fn.c, with the flags */
uint64_t bench_fn_plain(uint64_t x);	/* the same, without */
uint64_t bench_fn_kup(uint64_t x);	/* the same, on a page of its own: the kernel uprobe's */

static uint64_t nr_calls;

/* The same source makes both: linked with libtrev.a, and with libtrev.so as programs are. */
#ifdef BENCH_FTRACE_SHARED
#define BENCH_NAME	"bench_ftrace_shared (libtrev.so)"
#else
#define BENCH_NAME	"bench_ftrace (libtrev.a)"
#endif

static noinline void run_kup(uint64_t n)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < n; i++)
		s += bench_fn_kup(i);
	sink += s;
}

static noinline void run_floor(uint64_t n)
{
	floor_loop(n);
}

static noinline void run_traced(uint64_t n)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < n; i++)
		s += bench_fn_traced(i);
	sink += s;
}

static noinline void run_plain(uint64_t n)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < n; i++)
		s += bench_fn_plain(i);
	sink += s;
}

static void must(int ret, const char *what)
{
	if (ret < 0)
		die(what, ret);
}

static void row(const char *name, struct result r, const char *vs)
{
	printf("| %-44s | %8.2f | %6.2f | %-22s |\n", name, r.ns, r.ratio, vs);
}

/* BENCH_FTRACE_ONLY: @tracer's traced call alone, untimed (callgrind, perf). */
static int run_only(const char *tracer)
{
	static const int32_t cpu0;

#ifdef BENCH_FTRACE_SHARED
	(void)cpu0;
	if (getenv("BENCH_FAKE_CPU"))
		fprintf(stderr, "bench_ftrace_shared: BENCH_FAKE_CPU needs the static build "
				"(bench_ftrace): libtrev.so hides the CPU pointer\n");
#else
	if (getenv("BENCH_FAKE_CPU"))
		trev__rb_cpu_id = &cpu0;
#endif
	/* BENCH_FTRACE_OPTS: trace options set first, comma-separated ("func-args"). */
	if (getenv("BENCH_FTRACE_OPTS")) {
		char *opts = strdup(getenv("BENCH_FTRACE_OPTS")), *save = NULL;

		for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
			must(trev_trace_option(o), o);
		free(opts);
	}
	if (getenv("BENCH_FTRACE_INST")) {
		must(trev_mkdir("instances/bench"), "mkdir instances/bench");
		must(trev_write("instances/bench/current_tracer", "function"), "current_tracer");
	}
	/* "probe": a probe event at the entry, one argument (docs/probes.md), the tracer off. */
	if (strcmp(tracer, "probe") == 0 || strcmp(tracer, "probe_off") == 0) {
		must(trev_append("uprobe_events", "p:bench/p bench_fn_traced a=%di"), "uprobe_events");
		must(trev_write("events/bench/p/enable", "1"), "enable");
		/* "probe_off": enabled, then disabled: the site as never probed (nop: its nop). */
		if (strcmp(tracer, "probe_off") == 0)
			must(trev_write("events/bench/p/enable", "0"), "enable");
	} else {
		must(trev_write("current_tracer", tracer), "current_tracer");
	}
	run_traced(nr_calls / 10);
	run_traced(nr_calls);
	return 0;
}

int main(void)
{
	const char *env = getenv("BENCH_FTRACE_N"), *only = getenv("BENCH_FTRACE_ONLY");
	struct result floor_r, plain, nop, nop_on, traced, pid_traced, graph, cmd_traced, cmd_only;
	char tid[32];
	double uft[BENCH_RUNS], uft_plain[BENCH_RUNS], uft_vs[BENCH_RUNS], uft_ns, uft_plain_ns;
	double uft_vs_med;
	double graph_ns[BENCH_RUNS], graph_ratio[BENCH_RUNS];
	bool uft_ok = true;
	double pr_ns[BENCH_RUNS], pr_ratio[BENCH_RUNS], kup_ns[BENCH_RUNS], kup_vs[BENCH_RUNS];
	struct result probe;
	const char *kup_why = NULL;
	bool kup_ok;
	cpu_set_t one;
	int cpu = sched_getcpu();

	nr_calls = env ? strtoull(env, NULL, 10) : 2000000ull;
	if (nr_calls < 1000)
		nr_calls = 1000;
	/* A case and its reference on the same CPU (the vCPUs differ in speed). */
	CPU_ZERO(&one);
	CPU_SET(cpu < 0 ? 0 : cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
	if (only)
		return run_only(only);

	time_run(run_floor, nr_calls);		/* warm the CPU up */
	floor_r = measure_vs(run_floor, run_floor, nr_calls);
	plain = measure_vs(run_plain, run_plain, nr_calls);
	nop = measure_vs(run_traced, run_plain, nr_calls);
	/* The tracer on, the function not selected: still its nop. */
	must(trev_write("set_ftrace_notrace", "bench_fn_traced"), "set_ftrace_notrace");
	must(trev_write("current_tracer", "function"), "current_tracer");
	nop_on = measure_vs(run_traced, run_plain, nr_calls);
	must(trev_write("set_ftrace_notrace", ""), "set_ftrace_notrace");
	traced = measure_vs(run_traced, run_floor, nr_calls);
	snprintf(tid, sizeof(tid), "%d", (int)gettid());
	must(trev_write("set_ftrace_pid", tid), "set_ftrace_pid");
	pid_traced = measure_vs(run_traced, run_floor, nr_calls);
	must(trev_write("set_ftrace_pid", ""), "set_ftrace_pid");
	must(trev_write("current_tracer", "function_graph"), "current_tracer");
	/*
	 * function_graph and uftrace interleaved, A B A B: each round the floor,
	 * trev's call, uftrace's traced run and its plain one, so a change of
	 * the host's speed reaches both sides alike.
	 */
	for (int r = 0; r < BENCH_RUNS; r++) {
		double f = time_run(run_floor, nr_calls);

		graph_ns[r] = time_run(run_traced, nr_calls);
		graph_ratio[r] = graph_ns[r] / f;
		uft[r] = uftrace_ns_per_call(nr_calls, true);
		uft_plain[r] = uftrace_ns_per_call(nr_calls, false);
		uft_vs[r] = uft[r] > 0 ? uft[r] / graph_ns[r] : -1;
		if (uft[r] <= 0 || uft_plain[r] <= 0)
			uft_ok = false;
	}
	graph.ns = median(graph_ns, BENCH_RUNS);
	graph.ratio = median(graph_ratio, BENCH_RUNS);
	must(trev_write("current_tracer", "function"), "current_tracer");
	must(trev_append("set_ftrace_filter", "bench_fn_traced:traceon"), "set_ftrace_filter");
	cmd_traced = measure_vs(run_traced, run_floor, nr_calls);
	must(trev_write("current_tracer", "nop"), "current_tracer");
	cmd_only = measure_vs(run_traced, run_floor, nr_calls);
	must(trev_append("set_ftrace_filter", "!bench_fn_traced:traceon"), "set_ftrace_filter");
	/*
	 * A probe event at the entry, the tracer nop; and a kernel uprobe on
	 * the same body (bench_fn_kup: trev patches the other), interleaved.
	 */
	must(trev_append("uprobe_events", "p:bench/p bench_fn_traced a=%di"), "uprobe_events");
	must(trev_write("events/bench/p/enable", "1"), "enable");
	kup_ok = kup_start((void *)bench_fn_kup, &kup_why) == 0;
	for (int r = 0; r < BENCH_RUNS; r++) {
		double f = time_run(run_floor, nr_calls);

		pr_ns[r] = time_run(run_traced, nr_calls);
		pr_ratio[r] = pr_ns[r] / f;
		if (kup_ok) {
			uint64_t kn = nr_calls / 20;
			long h0 = kup_hits();

			kup_ns[r] = time_run(run_kup, kn);
			/* time_run()'s warm-up and timed calls. */
			if (h0 < 0 || kup_hits() - h0 != (long)(kn / 10 + kn)) {
				kup_ok = false;
				kup_why = "uprobe_profile did not count every call";
			}
			kup_vs[r] = kup_ns[r] / pr_ns[r];
		}
	}
	kup_stop();
	must(trev_write("events/bench/p/enable", "0"), "enable");
	probe = (struct result){ median(pr_ns, BENCH_RUNS), median(pr_ratio, BENCH_RUNS) };

	printf("%s: %llu calls per run, median of %d runs; each run follows a run of "
	       "its reference (the ratio is the median of those pairs')\n\n", BENCH_NAME,
	       (unsigned long long)nr_calls, BENCH_RUNS);
	printf("| %-44s | %8s | %6s | %-22s |\n", "case", "ns/call", "ratio", "ratio to");
	printf("|%s|%s|%s|%s|\n", "----------------------------------------------",
	       "----------:", "--------:", "------------------------");
	row("floor: ring write + rdtsc (1 thread)", floor_r, "floor");
	row("plain call (built without the flags)", plain, "plain call");
	row("unselected function, tracer off (nop5)", nop, "plain call");
	row("unselected function, tracer on (nop5)", nop_on, "plain call");
	row("traced call: call + trampoline + record", traced, "floor");
	row("traced call, set_ftrace_pid: this thread", pid_traced, "floor");
	row("function_graph: entry + exit, two records", graph, "floor");
	row("traced call with a command (traceon, skipped)", cmd_traced, "floor");
	row("command only, tracer nop (traceon, skipped)", cmd_only, "floor");
	row("probe event at the entry, a=%di (tracer nop)", probe, "floor");
	printf("\ntraced call minus the plain call: %.2f ns = %.2f x floor\n",
	       traced.ns - plain.ns, (traced.ns - plain.ns) / floor_r.ns);
	printf("function_graph call minus the plain call: %.2f ns = %.2f x floor\n",
	       graph.ns - plain.ns, (graph.ns - plain.ns) / floor_r.ns);
	if (uft_ok) {
		uft_ns = median(uft, BENCH_RUNS);	/* sorts: [0] min, [last] max */
		uft_plain_ns = median(uft_plain, BENCH_RUNS);
		printf("uftrace record -P, same function, interleaved with function_graph: %.2f "
		       "ns/call (min %.2f, max %.2f; plain %.2f)\n", uft_ns, uft[0],
		       uft[BENCH_RUNS - 1], uft_plain_ns);
		uft_vs_med = median(uft_vs, BENCH_RUNS);	/* sorts: [0] min, [last] max */
		printf("uftrace / trev's function_graph call, per round: median %.2f x (min %.2f, "
		       "max %.2f)\n", uft_vs_med, uft_vs[0], uft_vs[BENCH_RUNS - 1]);
	} else {
		printf("uftrace: n/a (not installed, its run failed, or it did not record "
		       "every call)\n");
	}
	if (kup_ok) {
		double kmed = median(kup_ns, BENCH_RUNS), vmed;	/* sorts: [0] min, [last] max */

		vmed = median(kup_vs, BENCH_RUNS);
		printf("kernel uprobe event, a=%%di, same body, interleaved with trev's probe: %.2f "
		       "ns/call (min %.2f, max %.2f); trev's probe %.2f ns/call\n", kmed, kup_ns[0],
		       kup_ns[BENCH_RUNS - 1], probe.ns);
		printf("kernel uprobe / trev's probe event, per round: median %.2f x (min %.2f, "
		       "max %.2f)\n", vmed, kup_vs[0], kup_vs[BENCH_RUNS - 1]);
	} else {
		printf("kernel uprobe: n/a (%s)\n", kup_why ? kup_why : "not run");
	}
	return 0;
}
