// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a probe site's hit costs (src/patch/probe_site.c, docs/probes.md):
 * a call of a 5-instruction function unprobed, with a relocated-prologue
 * probe and with an int3 probe, each with an empty handler, and each with
 * a probe event's record (`p:bench/site bench_probe_fn a=%di`, and
 * bench/site3 on bench_probe_short: the event layer puts them on probe
 * sites when they are enabled, as for any function built without trev's
 * flags); and the function after a relocated probe was attached and
 * detached ("detached": the same bytes as never probed).
 * Prints ns per call, each case's median of BENCH_RUNS runs interleaved
 * with the others; bench/instructions.sh counts the instructions with
 * callgrind (run_calls). BENCH_PROBE_N calls (default 1000000, the int3
 * paths a tenth of that), BENCH_PROBE_ONLY=plain|relocated|int3|
 * relocated_event|int3_event|detached runs that case once (BENCH_FAKE_CPU=1
 * for callgrind, as bench_ftrace).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <trev/trev.h>

#include "bench_common.h"
#include "patch/probe_site.h"
#include "ring_buffer/rb_internal.h"	/* trev__rb_cpu_id, for BENCH_FAKE_CPU */

long bench_probe_fn(long a, long b);
long bench_probe_short(long a, long b);
extern const uint64_t bench_probe_sizes[2];

static unsigned long hits;
/* The probe events on the two functions (cases' fn 0 and 1). */
static const char *const event_enable[2] = {
	"events/bench/site/enable", "events/bench/site3/enable",
};

static void empty_handler(struct trev_regs *regs, void *data)
{
	(void)regs;
	(void)data;
}

static void counting_handler(struct trev_regs *regs, void *data)
{
	(void)regs;
	(void)data;
	hits++;
}

/* The loop callgrind counts: @n calls of @fn. */
noinline long run_calls(long (*volatile fn)(long, long), long n);
noinline long run_calls(long (*volatile fn)(long, long), long n)
{
	long sum = 0;

	for (long i = 0; i < n; i++)
		sum += fn(i, 1);
	return sum;
}

static double mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The cases: which function, which handler; "detached" attaches and detaches first. */
static const struct bcase {
	const char *name;
	int fn;			/* 0 bench_probe_fn (relocated), 1 bench_probe_short (int3) */
	int probe;		/* 0 none, 1 empty handler, 2 the probe event */
	bool detach;
	bool tenth;		/* int3: a tenth of the calls */
} cases[] = {
	{ "plain", 0, 0, false, false },
	{ "relocated", 0, 1, false, false },
	{ "relocated_event", 0, 2, false, false },
	{ "detached", 0, 1, true, false },
	{ "int3", 1, 1, false, true },
	{ "int3_event", 1, 2, false, true },
};

/* One run of case @c: ns per call, or -1 after a message. */
static double one(const struct bcase *c, long n)
{
	long (*fn)(long, long) = c->fn ? bench_probe_short : bench_probe_fn;
	size_t size = bench_probe_sizes[c->fn];
	struct trev_site *s = NULL;
	const char *why = NULL;
	long warm, want;
	double t0, t1;

	if (c->tenth)
		n = n / 10 ? n / 10 : 1;
	warm = n / 10;
	if (c->probe == 2 && trev_write(event_enable[c->fn], "1")) {
		fprintf(stderr, "bench_probe: %s: the event's enable was refused\n", c->name);
		return -1;
	}
	if (c->probe == 1) {
		int ret = trev__site_attach_in((uintptr_t)fn, (uintptr_t)fn, size, empty_handler,
					       NULL, &s, &why);

		if (ret) {
			fprintf(stderr, "bench_probe: %s: attach: %d %s\n", c->name, ret,
				why ? why : "");
			return -1;
		}
		if ((trev__site_kind(s) == TREV_SITE_RELOCATED) != !c->fn) {
			fprintf(stderr, "bench_probe: %s took the other path (%s)\n", c->name,
				why ? why : "");
			return -1;
		}
		if (c->detach) {
			trev__site_detach(s);
			s = NULL;
		}
	}
	run_calls(fn, warm);
	t0 = mono_ns();
	want = run_calls(fn, n);
	t1 = mono_ns();
	if (s)
		trev__site_detach(s);
	if (c->probe == 2)
		trev_write(event_enable[c->fn], "0");
	if (want != n * (n - 1) / 2 + n) {
		fprintf(stderr, "bench_probe: %s: wrong results\n", c->name);
		return -1;
	}
	return (t1 - t0) / (double)n;
}

int main(int argc, char **argv)
{
	static const int32_t cpu0;
	const char *only = getenv("BENCH_PROBE_ONLY");
	long n = getenv("BENCH_PROBE_N") ? atol(getenv("BENCH_PROBE_N")) : 1000000;
	const size_t nc = sizeof(cases) / sizeof(cases[0]);
	double ns[sizeof(cases) / sizeof(cases[0])][BENCH_RUNS];
	char text[4096];
	struct trev_site *s;
	const char *why;
	ssize_t len;

	/*
	 * Without the control socket: its thread blocks every signal but
	 * SIGTRAP, and a relocated site's patch waits for each thread to take
	 * the move signal (docs/probes.md, "Patching the jmp"): it would wait
	 * for ever. The socket starts before main(): run again without it.
	 */
	(void)argc;
	if (!getenv("TREV_SOCKET")) {
		setenv("TREV_SOCKET", "0", 1);
		execv("/proc/self/exe", argv);
		perror("bench_probe: execv");
		return 1;
	}
	if (getenv("BENCH_FAKE_CPU"))
		trev__rb_cpu_id = &cpu0;	/* valgrind has no rseq: as bench_ftrace */
	/* The handler is called once per call: checked once, outside the timed loops. */
	if (trev__site_attach_in((uintptr_t)bench_probe_fn, (uintptr_t)bench_probe_fn,
				 bench_probe_sizes[0], counting_handler, NULL, &s, &why) ||
	    run_calls(bench_probe_fn, 1000) != 1000 * 999 / 2 + 1000 || hits != 1000 ||
	    trev__site_detach(s)) {
		fprintf(stderr, "bench_probe: the handler was not called once per call\n");
		return 1;
	}
	/*
	 * The events, one a function; each records once a call (checked once,
	 * with the text) and takes the path its case measures.
	 */
	if (trev_append("uprobe_events", "p:bench/site bench_probe_fn a=%di") ||
	    trev_append("uprobe_events", "p:bench/site3 bench_probe_short a=%di")) {
		fprintf(stderr, "bench_probe: the probe events were refused\n");
		return 1;
	}
	for (int f = 0; f < 2; f++) {
		long (*fn)(long, long) = f ? bench_probe_short : bench_probe_fn;
		const char *want = f ? " site3: (bench_probe_short+0x0/0x" : " site: (bench_probe_fn+0x0/0x";
		bool used = !only;

		/* Only the function the case calls: valgrind does not run the int3 path. */
		for (size_t c = 0; c < nc; c++)
			used |= only && !strcmp(only, cases[c].name) && cases[c].fn == f;
		if (used && (trev_write(event_enable[f], "1") || fn(42, 1) != 43 ||
		    trev_write(event_enable[f], "0") ||
		    (len = trev_read("trace", text, sizeof(text) - 1)) < 0 ||
		    (text[len] = '\0', !strstr(text, want) || !strstr(text, ") a=0x2a\n")) ||
		    trev_write("trace", ""))) {
			fprintf(stderr, "bench_probe: the record of %s is not there\n", want + 1);
			return 1;
		}
	}
	if (only) {
		for (size_t c = 0; c < nc; c++)
			if (!strcmp(only, cases[c].name))
				return one(&cases[c], n) < 0;
		fprintf(stderr, "bench_probe: no case %s\n", only);
		return 1;
	}
	/* Interleaved: each round runs every case once. */
	for (int r = 0; r < BENCH_RUNS; r++)
		for (size_t c = 0; c < nc; c++)
			if ((ns[c][r] = one(&cases[c], n)) < 0)
				return 1;
	printf("bench_probe: ns per call, median of %d interleaved runs (%ld calls; int3: %ld)\n",
	       BENCH_RUNS, n, n / 10);
	for (size_t c = 0; c < nc; c++) {
		double med = median(ns[c], BENCH_RUNS);	/* sorts: [0] min, [last] max */

		printf("%-16s %10.1f ns/call (min %.1f, max %.1f)\n", cases[c].name, med, ns[c][0],
		       ns[c][BENCH_RUNS - 1]);
	}
	return 0;
}
