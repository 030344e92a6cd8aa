/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The integrity writers as a program, for the script tests that read it from
 * outside (trev cat, trev record, TREV_OUTPUT, the FUSE mount):
 *
 *	integ_app COUNTS consumed|kept [THREADS EVENTS SIGNALS]
 *
 * Prints "ready PID", waits until events/integ/integ_rec/enable reads 1 (set
 * by TREV_EVENTS, trev write, trev record or the mount), then runs the
 * writers (integ_writer.h). consumed: a reader outside consumes, so before
 * the final events it waits until per_cpu/cpuN/stats show nothing unread,
 * and after them too, then prints "done". kept: nobody consumes; it writes
 * the final events at once and prints "done". Either way it writes the
 * per-stream counts to COUNTS (integ_check reads them) before "done".
 * Then it exits; with INTEG_STAY=1 in its environment it waits for a signal
 * instead (trev cat and trev record -p need the process until they are done).
 * With INTEG_PAUSE_US=N each writer sleeps N microseconds after each of its
 * events: a program that writes at a moderate rate, not in a burst.
 * Exit status: 0, 2 bad usage, 3 a wait ran out (60 s; a reader never came).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <trev/trev.h>

#include "integ_writer.h"

#ifdef TREV_TSAN
#define DEF_EVENTS	2000
#define DEF_SIGNALS	200
#elif defined(__SANITIZE_ADDRESS__)
#define DEF_EVENTS	5000
#define DEF_SIGNALS	500
#else
#define DEF_EVENTS	10000
#define DEF_SIGNALS	1000
#endif
#define WAIT_S		60

static int enabled(void)
{
	char buf[16];

	return trev_read("events/integ/integ_rec/enable", buf, sizeof(buf)) > 0 && buf[0] == '1';
}

static int drained(void)
{
	int nr_cpus = trev_rb_nr_cpus(trev_trace_buffer());
	char path[64], buf[1024];

	for (int c = 0; c < nr_cpus; c++) {
		unsigned long long e;

		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", c);
		if (trev_read(path, buf, sizeof(buf)) <= 0 || sscanf(buf, "entries: %llu", &e) != 1 ||
		    e)
			return 0;
	}
	return 1;
}

static void wait_for(int (*done)(void), const char *what)
{
	time_t t0 = time(NULL);

	while (!done()) {
		if (time(NULL) - t0 > WAIT_S) {
			fprintf(stderr, "integ_app: %s: not after %d s\n", what, WAIT_S);
			exit(3);
		}
		usleep(1000);
	}
}

int main(int argc, char **argv)
{
	struct integ_wcfg cfg = { 3, DEF_EVENTS, DEF_SIGNALS, 0 };
	static struct integ_writers ws;
	int consumed;
	FILE *f;

	if (argc != 3 && argc != 6) {
		fprintf(stderr, "usage: integ_app COUNTS consumed|kept [THREADS EVENTS SIGNALS]\n");
		return 2;
	}
	consumed = strcmp(argv[2], "consumed") == 0;
	if (!consumed && strcmp(argv[2], "kept"))
		return 2;
	if (argc == 6) {
		cfg.threads = (unsigned int)atoi(argv[3]);
		cfg.events = (unsigned int)atoi(argv[4]);
		cfg.max_signals = (unsigned int)atoi(argv[5]);
	}
	if (getenv("INTEG_PAUSE_US"))
		cfg.pause_us = (unsigned int)atoi(getenv("INTEG_PAUSE_US"));
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	wait_for(enabled, "integ:integ_rec enabled");
	if (integ_writers_start(&ws, &cfg))
		return 2;
	integ_writers_quiesce(&ws);
	/* The final events find their buffers empty: they carry every loss left. */
	if (consumed)
		wait_for(drained, "a reader consumes everything");
	integ_writers_finish(&ws, 1);
	if (consumed)
		wait_for(drained, "a reader consumes the final events");
	f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	integ_writers_print(&ws, f);
	fclose(f);
	printf("done %llu\n", (unsigned long long)integ_writers_total(&ws));
	fflush(stdout);
	if (getenv("INTEG_STAY") && !strcmp(getenv("INTEG_STAY"), "1"))
		for (;;)
			pause();
	return 0;
}
