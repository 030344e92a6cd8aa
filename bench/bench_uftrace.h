/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uftrace on the same function as trev's function tracers, for
 * bench_ftrace: runs bench/uftrace/uft_target (UFT_TARGET, built beside the
 * benchmarks) plain or under `uftrace record -P bench_fn_uft`, its data in a
 * new directory under /dev/shm (memory, as trev's ring), and returns the
 * nanoseconds per call the target measured around its own loop, so
 * uftrace's start-up and its writing of the data after the loop are not
 * counted. Needs Debian's uftrace (make deps); without it: a negative value.
 */
#ifndef TREV_BENCH_UFTRACE_H
#define TREV_BENCH_UFTRACE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

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
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_ftrace: could not remove %s\n", dir);
	return ns;
}

#endif /* TREV_BENCH_UFTRACE_H */
