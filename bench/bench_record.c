/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The recorder's throughput: `trev record` on this program while it fires
 * bench:be_ints3 as fast as one thread can for about 2 s. Prints
 * the recorder's events/s and MB/s to the file and the lost count at that
 * rate (the recorder's summary, which it checks against what was fired).
 *
 *	bench_record		runs trev record -- bench_record --emit
 *	bench_record --emit	the traced side
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trev/trev.h>

#include "bench_common.h"

#define CREATE_TRACE_POINTS
#include "bench_events_trace.h"

#define EMIT_SECONDS	2

static int emit(void)
{
	uint64_t end = now_ns() + EMIT_SECONDS * 1000000000ull, n = 0;

	while (now_ns() < end)
		for (int i = 0; i < 1024; i++, n++)
			trace_be_ints3((int)n, (int)n, (int)n);
	printf("fired %llu\n", (unsigned long long)n);
	return 0;
}

int main(int argc, char **argv)
{
	char self[4096], out[] = "/tmp/bench_record_XXXXXX", line[512], cmd[8192];
	unsigned long long fired = 0, events = 0, lost = 0;
	double secs = 0, evs = 0, mbs = 0;
	ssize_t n;
	FILE *p;
	int fd;

	if (argc > 1 && strcmp(argv[1], "--emit") == 0)
		return emit();
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		die("readlink", errno);
	self[n] = '\0';
	fd = mkstemp(out);
	if (fd < 0)
		die("mkstemp", errno);
	close(fd);
	snprintf(cmd, sizeof(cmd), "'%s' record -e bench:be_ints3 -o '%s' -- '%s' --emit 2>&1",
		 TREV_CLI, out, self);
	p = popen(cmd, "r");
	if (!p)
		die("popen", errno);
	while (fgets(line, sizeof(line), p)) {
		sscanf(line, "fired %llu", &fired);
		if (strstr(line, " events, "))
			sscanf(line, "trev: %llu events, %llu lost", &events, &lost);
		if (strstr(line, " events/s, "))
			sscanf(line, "trev: %lf s, %lf events/s, %lf MB/s", &secs, &evs, &mbs);
	}
	if (pclose(p) != 0 || !events)
		die("trev record failed", EIO);
	unlink(out);
	printf("trev record, one thread firing bench:be_ints3 (3 x int) for %d s, default buffers:\n",
	       EMIT_SECONDS);
	printf("  recorded  %12llu events  %10.0f events/s  %7.1f MB/s to the file\n", events,
	       evs, mbs);
	printf("  lost      %12llu events  (%.1f%% of %llu fired)%s\n", lost,
	       fired ? 100.0 * (double)lost / (double)fired : 0.0, fired,
	       events + lost == fired ? "" : "  [recorded + lost != fired: see the summary]");
	return 0;
}
