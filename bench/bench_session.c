/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sessions (docs/sessions.md): what recording a run of many processes costs.
 *
 *  flood	`trev record -- self --emit P S`: P forked processes x 2 threads
 *		fire bench:be_ints3 as fast as they can for S s; recorded
 *		events/s against one process's (P = 1) in the same run, and per
 *		process recorded + lost == fired (the summary's line of each)
 *  attach	a process started late in a recorded run: from just before its
 *		posix_spawn() to its first event (the child reads the clock
 *		right before it), recorded against not recorded (no
 *		TREV_SESSION): what joining a session costs at start-up
 *  fork	fork() in a recorded process: from just before fork() to the
 *		child's first instruction after it, recorded against not
 *		recorded: what the child pays to join (the parent pays nothing)
 *
 *	bench_session				the table
 *	bench_session --emit P S		the flood's traced side
 *	bench_session --late N			N late children, each timed (attach)
 *	bench_session --forks N			N forks, each timed
 *	bench_session --child T0		a late child: prints its delay from T0
 *
 * Environment: BENCH_SESSION_FLOOD_S (default 2), BENCH_SESSION_PROCS
 * (default 8), BENCH_SESSION_N (timed starts and forks, default 50),
 * BENCH_SESSION_DIR (the files, default $TMPDIR or /tmp).
 * Exit status 1 when a run fails or a process's recorded + lost != fired;
 * no timing is a failure.
 */
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <trev/trev.h>

#define CREATE_TRACE_POINTS
#include "bench_events_trace.h"

extern char **environ;

#define BENCH_MAX_PROCS	64

static char self[4096];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static __attribute__((noreturn)) void die(const char *what, int err)
{
	fprintf(stderr, "bench_session: %s: %s\n", what, strerror(err));
	exit(1);
}

static unsigned int env_uint(const char *name, unsigned int def)
{
	const char *v = getenv(name);

	return v && *v ? (unsigned int)strtoul(v, NULL, 10) : def;
}

/* ------------------------------------------------------------------ */
/* The traced side                                                      */

static uint64_t emit_until;

static void *emit_thread(void *arg)
{
	uint64_t n = 0;

	while (now_ns() < emit_until) {
		for (int i = 0; i < 256; i++)
			trace_be_ints3((int)n + i, 1, 2);
		n += 256;
	}
	*(uint64_t *)arg = n;
	return NULL;
}

/* One process: two threads flood; prints "fired PID N". */
static void emit_one(unsigned int secs)
{
	pthread_t t[2];
	uint64_t n[2];

	emit_until = now_ns() + (uint64_t)secs * 1000000000ull;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, emit_thread, &n[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("fired %d %llu\n", (int)getpid(), (unsigned long long)(n[0] + n[1]));
	fflush(stdout);
}

static int emit(unsigned int procs, unsigned int secs)
{
	for (unsigned int i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork", errno);
		if (pid == 0) {
			emit_one(secs);
			exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	return 0;
}

/* A late child: the delay from the parent's @t0 to here, right before its first event. */
static int child(const char *t0)
{
	uint64_t at = now_ns();

	trace_be_ints3(0, 0, 0);
	printf("delay %llu\n", (unsigned long long)(at - strtoull(t0, NULL, 10)));
	return 0;
}

/* N late children, one after the other, each timed from before its posix_spawn(). */
static int late(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		char t0[32], *argv[] = { self, "--child", t0, NULL };
		pid_t pid;

		snprintf(t0, sizeof(t0), "%llu", (unsigned long long)now_ns());
		if (posix_spawn(&pid, self, NULL, NULL, argv, environ))
			die("posix_spawn", errno);
		waitpid(pid, NULL, 0);
	}
	return 0;
}

/* N forks, each timed from before fork() to the child's first instruction after it. */
static int forks(unsigned int n)
{
	int fd[2];

	if (pipe(fd) < 0)
		die("pipe", errno);
	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0 = now_ns(), d = 0;
		pid_t pid = fork();

		if (pid == 0) {
			d = now_ns() - t0;
			if (write(fd[1], &d, sizeof(d)) != sizeof(d))
				_exit(1);
			trace_be_ints3(1, 1, 1);
			_exit(0);
		}
		if (pid < 0 || read(fd[0], &d, sizeof(d)) != sizeof(d))
			die("fork", errno);
		waitpid(pid, NULL, 0);
		printf("delay %llu\n", (unsigned long long)d);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The table                                                            */

struct flood {
	bool ok;
	double secs, evs;		/* trev record's run time, recorded events/s */
	double cpu;			/* trev record's CPU time, s */
	unsigned long long fired, recorded, lost;
	int procs;			/* processes in the summary */
	char why[256];
};

/* trev record -- self --emit @procs @secs; every process's recorded + lost == fired. */
static struct flood run_flood(const char *dir, unsigned int procs, unsigned int secs)
{
	struct { int pid; unsigned long long fired, got; bool seen; } p[BENCH_MAX_PROCS] = { 0 };
	char out[4096], line[512], cmd[16384];
	struct flood f = { 0 };
	int np = 0;
	FILE *pp;

	snprintf(out, sizeof(out), "%s/bench_session.%d.dat", dir, (int)getpid());
	snprintf(cmd, sizeof(cmd), "'%s' record -e bench:be_ints3 -o '%s' -- '%s' --emit %u %u 2>&1",
		 TREV_CLI, out, self, procs, secs);
	pp = popen(cmd, "r");
	if (!pp)
		die("popen", errno);
	while (fgets(line, sizeof(line), pp)) {
		unsigned long long a, b, c, d;
		char name[64];
		int pid;
		double mbs;

		if (sscanf(line, "fired %d %llu", &pid, &a) == 2 && np < BENCH_MAX_PROCS) {
			p[np].pid = pid;
			p[np++].fired = a;
			f.fired += a;
		} else if (sscanf(line, "%63s %llu %llu %llu %llu", name, &a, &b, &c, &d) == 5 &&
			   strchr(name, '-')) {
			/* A process's line: entries, lost (in the file), overrun, dropped. */
			pid = atoi(strrchr(name, '-') + 1);
			for (int i = 0; i < np; i++)
				if (p[i].pid == pid) {
					p[i].got = a + b + d;
					p[i].seen = true;
				}
			f.procs++;
		} else if (strstr(line, " events, ")) {
			sscanf(line, "trev: %llu events, %llu lost", &f.recorded, &f.lost);
		} else if (strstr(line, " events/s, ")) {
			sscanf(line, "trev: %lf s, %lf events/s, %lf MB/s, %lf s of CPU", &f.secs,
			       &f.evs, &mbs, &f.cpu);
		} else if (sscanf(line, "%3d %llu %llu %llu %llu", &pid, &a, &b, &c, &d) == 5 &&
			   procs == 1 && np == 1) {
			/* One process: per-CPU lines; entries + lost + dropped per CPU. */
			p[0].got += a + b + d;
			p[0].seen = true;
			f.procs = 1;
		}
	}
	f.ok = pclose(pp) == 0 && f.recorded && (unsigned int)np == procs;
	if (!f.ok)
		snprintf(f.why, sizeof(f.why), "trev record failed (exit status, no summary, or %d "
			 "of %u processes)", np, procs);
	for (int i = 0; f.ok && i < np; i++) {
		/* Events the process fired that the recording neither kept nor counted lost. */
		if (!p[i].seen || p[i].got != p[i].fired) {
			f.ok = false;
			snprintf(f.why, sizeof(f.why), "process %d: fired %llu, recorded + lost %llu",
				 p[i].pid, p[i].fired, p[i].got);
		}
	}
	unlink(out);
	return f;
}

/* The median of the "delay N" lines of @cmd, in µs; @n: how many. */
static double run_delays(const char *cmd, unsigned int *n)
{
	static uint64_t v[4096];
	char line[512];
	unsigned int k = 0;
	FILE *pp = popen(cmd, "r");

	if (!pp)
		die("popen", errno);
	while (fgets(line, sizeof(line), pp))
		if (k < 4096 && sscanf(line, "delay %llu", (unsigned long long *)&v[k]) == 1)
			k++;
	pclose(pp);
	*n = k;
	if (!k)
		return -1;
	for (unsigned int i = 1; i < k; i++)
		for (unsigned int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return (double)v[k / 2] / 1000.0;
}

int main(int argc, char **argv)
{
	unsigned int secs = env_uint("BENCH_SESSION_FLOOD_S", 2);
	unsigned int procs = env_uint("BENCH_SESSION_PROCS", 8);
	unsigned int n = env_uint("BENCH_SESSION_N", 50), got;
	const char *dir = getenv("BENCH_SESSION_DIR");
	char cmd[16384], out[4096];
	struct flood one, many;
	double rec, plain;
	ssize_t len;
	int bad = 0;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		die("/proc/self/exe", errno);
	self[len] = '\0';
	if (argc == 4 && !strcmp(argv[1], "--emit"))
		return emit((unsigned int)atoi(argv[2]), (unsigned int)atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "--child"))
		return child(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--late"))
		return late((unsigned int)atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "--forks"))
		return forks((unsigned int)atoi(argv[2]));
	if (!dir || !*dir)
		dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	if (procs < 1 || procs > BENCH_MAX_PROCS)
		procs = 8;

	printf("sessions: trev record -- COMMAND of forked processes x 2 threads, %u s floods\n",
	       secs);
	one = run_flood(dir, 1, secs);
	many = run_flood(dir, procs, secs);
	printf("%-32s %13s %8s %15s %8s %12s %12s\n", "case", "recorded ev/s", "vs 1",
	       "ev / rec. CPU-s", "vs 1", "recorded", "lost");
	printf("%-32s %13.0f %8s %15.0f %8s %12llu %12llu\n", "flood, 1 process x 2 threads",
	       one.evs, "1.00", one.cpu > 0 ? (double)one.recorded / one.cpu : 0.0, "1.00",
	       one.recorded, one.lost);
	printf("%-32s %13.0f %8.2f %15.0f %8.2f %12llu %12llu\n", "flood, N processes x 2 threads",
	       many.evs, one.evs > 0 ? many.evs / one.evs : 0.0,
	       many.cpu > 0 ? (double)many.recorded / many.cpu : 0.0,
	       one.cpu > 0 && many.cpu > 0 && one.recorded ?
	       ((double)many.recorded / many.cpu) / ((double)one.recorded / one.cpu) : 0.0,
	       many.recorded, many.lost);
	printf("  (N = %u; every process's recorded + lost == fired: %s)\n", procs,
	       one.ok && many.ok ? "yes" : "NO");
	if (!one.ok || !many.ok) {
		fprintf(stderr, "bench_session: %s\n", !one.ok ? one.why : many.why);
		bad = 1;
	}

	snprintf(out, sizeof(out), "%s/bench_session.%d.late.dat", dir, (int)getpid());
	snprintf(cmd, sizeof(cmd), "'%s' record -e bench:be_ints3 -o '%s' -- '%s' --late %u "
		 "2>/dev/null", TREV_CLI, out, self, n);
	rec = run_delays(cmd, &got);
	unlink(out);
	snprintf(cmd, sizeof(cmd), "env -u TREV_SESSION '%s' --late %u 2>/dev/null", self, n);
	plain = run_delays(cmd, &n);
	printf("%-34s %12.1f us %12.1f us  (medians of %u)\n",
	       "late process: start to 1st event", rec, plain, got);
	printf("  (recorded, then not recorded: what joining at start-up costs)\n");

	snprintf(cmd, sizeof(cmd), "'%s' record -e bench:be_ints3 -o '%s' -- '%s' --forks %u "
		 "2>/dev/null", TREV_CLI, out, self, n);
	rec = run_delays(cmd, &got);
	unlink(out);
	snprintf(cmd, sizeof(cmd), "env -u TREV_SESSION '%s' --forks %u 2>/dev/null", self, n);
	plain = run_delays(cmd, &n);
	printf("%-34s %12.1f us %12.1f us  (medians of %u)\n", "fork: fork() to the child's run",
	       rec, plain, got);
	printf("  (recorded, then not recorded: what a child pays to join; the parent pays "
	       "nothing)\n");
	return bad;
}
