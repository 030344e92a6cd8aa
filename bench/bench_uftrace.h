/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uftrace on the same function as trev's function tracers, for
 * bench_ftrace: runs bench/uftrace/uft_target (UFT_TARGET, built beside the
 * benchmarks) plain or under `uftrace record -P bench_fn_uft`, its data in a
 * new directory under /dev/shm (memory, as trev's ring), and returns the
 * nanoseconds per call the target measured around its own loop, so
 * uftrace's start-up and its writing of the data after the loop are not
 * counted. A traced run counts only when `uftrace report` of its data finds
 * every call of bench_fn_uft (the loop and its warm-up: N + N/10), so a
 * uftrace that recorded nothing (a changed option, a function it could not
 * patch) is not timed as a fast one. Needs Debian's uftrace (make deps);
 * without it, or when its run or its check fails: a negative value.
 */
#ifndef TREV_BENCH_UFTRACE_H
#define TREV_BENCH_UFTRACE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The calls of bench_fn_uft that `uftrace report` finds in @data; -1: none, or its run failed. */
static inline long long uftrace_recorded_calls(const char *data)
{
	char cmd[PATH_MAX + 128], line[512];
	long long calls = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "uftrace report --no-pager -d '%s' 2>/dev/null", data);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	/* "  Total time   Self time       Calls  Function": the calls before the name. */
	while (fgets(line, sizeof(line), p)) {
		char *name = strstr(line, " bench_fn_uft");
		char *end;
		long long n;

		if (!name || strcmp(name, " bench_fn_uft\n") != 0)
			continue;
		while (name > line && name[-1] == ' ')
			name--;
		while (name > line && name[-1] >= '0' && name[-1] <= '9')
			name--;
		n = strtoll(name, &end, 10);
		if (end != name)
			calls = n;
	}
	if (pclose(p) != 0)
		calls = -1;
	return calls;
}

static inline double uftrace_ns_per_call(uint64_t calls, bool traced)
{
	char dir[] = "/dev/shm/trev-bench-uftrace.XXXXXX";
	char data[sizeof(dir) + 8], cmd[PATH_MAX + 256];
	double ns = -1;
	FILE *p;

	if (access(UFT_TARGET, X_OK) != 0 || !mkdtemp(dir))
		return -1;
	snprintf(data, sizeof(data), "%s/data", dir);
	if (traced)
		snprintf(cmd, sizeof(cmd),
			 "uftrace record --no-libcall -d '%s' -P bench_fn_uft '%s' %llu 2>/dev/null",
			 data, UFT_TARGET, (unsigned long long)calls);
	else
		snprintf(cmd, sizeof(cmd), "'%s' %llu", UFT_TARGET, (unsigned long long)calls);
	p = popen(cmd, "r");
	if (p) {
		if (fscanf(p, "%lf", &ns) != 1)
			ns = -1;
		if (pclose(p) != 0)
			ns = -1;
	}
	if (traced && ns >= 0) {
		long long got = uftrace_recorded_calls(data);

		if (got != (long long)(calls + calls / 10)) {
			fprintf(stderr, "bench_ftrace: uftrace recorded %lld calls of bench_fn_uft, "
					"not %llu: its run does not count\n",
				got, (unsigned long long)(calls + calls / 10));
			ns = -1;
		}
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_ftrace: could not remove %s\n", dir);
	return ns;
}

#endif /* TREV_BENCH_UFTRACE_H */
