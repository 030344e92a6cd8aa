/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev record -N (docs/streaming.md): what sending to trace-cmd listen on
 * the loopback costs against writing a local file, the same flood, in the
 * same run, interleaved (-o, -N, -o, -N, ...):
 *
 *	bench_net			the table
 *	bench_net --emit SECONDS	the traced side: one thread fires
 *					bench:be_ints3 as fast as it can for
 *					SECONDS, then prints "fired N SECS"
 *
 * Recorded events per second of the flood (recorded / the emitter's
 * seconds: the listener's 2 s wait at the end is not the flood's), lost,
 * recorded + lost == fired, and bytes on the wire per recorded event (the
 * summary's "sent" line). Both files on the same filesystem (the local -o,
 * and the listener's -d). Environment: BENCH_NET_DIR (default $TMPDIR or
 * /tmp), BENCH_NET_FLOOD_S (default 2), BENCH_NET_ROUNDS (default 3).
 * Exit status 1 when a run fails or recorded + lost != fired; no timing is a
 * failure. Needs trace-cmd (Debian's, from the Makefile's packages).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <trev/trev.h>

#include "bench_common.h"

#define CREATE_TRACE_POINTS
#include "bench_events_trace.h"

#define MAX_ROUNDS	16

struct run {
	bool ok;
	unsigned long long fired, recorded, lost, sent;
	double fire_secs;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int emit(unsigned int secs)
{
	double start = now_s(), end = start + secs, t;
	unsigned long long n = 0;

	do {
		for (int i = 0; i < 1024; i++, n++)
			trace_be_ints3((int)n, 2 * (int)n, -(int)n);
		t = now_s();
	} while (t < end);
	printf("fired %llu %.3f\n", n, t - start);
	return 0;
}

static char self[4096];

/* trev record [-N 127.0.0.1:@port] -o FILE -- self --emit @secs. */
static struct run run_trev(const char *dir, int port, unsigned int secs)
{
	char out[4096], net[64] = "", line[512], cmd[16384];
	struct run r = { 0 };
	FILE *p;

	snprintf(out, sizeof(out), "%s/bench_net.%d.dat", dir, (int)getpid());
	if (port)
		snprintf(net, sizeof(net), "-N 127.0.0.1:%d", port);
	snprintf(cmd, sizeof(cmd), "'%s' record -e bench:be_ints3 %s %s%s%s -- '%s' --emit %u 2>&1",
		 TREV_CLI, net, port ? "" : "-o '", port ? "" : out, port ? "" : "'", self, secs);
	p = popen(cmd, "r");
	if (!p)
		die("popen", errno);
	while (fgets(line, sizeof(line), p)) {
		sscanf(line, "fired %llu %lf", &r.fired, &r.fire_secs);
		if (strstr(line, " events, "))
			sscanf(line, "trev: %llu events, %llu lost", &r.recorded, &r.lost);
		if (!strncmp(line, "trev: sent ", 11))
			sscanf(line, "trev: sent %llu bytes", &r.sent);
	}
	r.ok = pclose(p) == 0 && r.recorded && r.fired && r.fire_secs > 0 && (!port || r.sent);
	unlink(out);
	return r;
}

/* trace-cmd listen on a free port, in a process group of its own; its files in @dir. */
static pid_t start_listener(const char *dir, int *port)
{
	for (int tries = 0; tries < 20; tries++) {
		char cmd[256], line[256];
		pid_t pid;

		*port = 20000 + (int)((unsigned int)rand() % 20000u);
		pid = fork();
		if (pid < 0)
			die("fork", errno);
		if (pid == 0) {
			char p[16];

			setpgid(0, 0);
			snprintf(p, sizeof(p), "%d", *port);
			if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
				_exit(127);
			execlp("trace-cmd", "trace-cmd", "listen", "-p", p, "-d", dir, (char *)NULL);
			_exit(127);
		}
		/* Listening, or gone (the port was taken): whichever comes first. */
		snprintf(cmd, sizeof(cmd), "ss -Hltn 'sport = :%d'", *port);
		for (;;) {
			FILE *ss = popen(cmd, "r");
			bool up = ss && fgets(line, sizeof(line), ss);

			if (ss)
				pclose(ss);
			if (up)
				return pid;
			if (waitpid(pid, NULL, WNOHANG) == pid)
				break;
			usleep(20000);
		}
	}
	return -1;
}

static void stop_listener(pid_t pid)
{
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The CPU as lscpu names it: /proc/cpuinfo's "model name". */
static void cpu_model(char *out, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(out, len, "unknown CPU");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && colon) {
			snprintf(out, len, "%s", colon + 2);
			out[strcspn(out, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
}

/* The listener's directory: its files, then itself. */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4352];

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static unsigned int env_uint(const char *name, unsigned int dflt)
{
	const char *v = getenv(name);

	return v && *v && atoi(v) > 0 ? (unsigned int)atoi(v) : dflt;
}

static void print_run(const char *name, const struct run *r)
{
	printf("%-8s %11llu %11llu %9llu %8.3f %8.2f", name, r->fired, r->recorded, r->lost,
	       r->fire_secs, (double)r->recorded / r->fire_secs / 1e6);
	if (r->sent)
		printf(" %9.1f", (double)r->sent / (double)r->recorded);
	else
		printf(" %9s", "-");
	printf("  %s\n", r->recorded + r->lost == r->fired ? "OK" : "MISMATCH");
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR"), *dir = getenv("BENCH_NET_DIR");
	unsigned int secs = env_uint("BENCH_NET_FLOOD_S", 2);
	unsigned int rounds = env_uint("BENCH_NET_ROUNDS", 3);
	double local[MAX_ROUNDS], net[MAX_ROUNDS], bpe[MAX_ROUNDS];
	char ldir[4096], cpu[256];
	int port, nl = 0, nn = 0;
	bool sums_ok = true;
	pid_t listener;
	ssize_t n;

	if (argc == 3 && !strcmp(argv[1], "--emit"))
		return emit((unsigned int)atoi(argv[2]));
	if (argc != 1) {
		fprintf(stderr, "usage: %s [--emit SECONDS]\n", argv[0]);
		return 2;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		die("readlink", errno);
	self[n] = '\0';
	dir = dir && *dir ? dir : tmp && *tmp ? tmp : "/tmp";
	rounds = rounds > MAX_ROUNDS ? MAX_ROUNDS : rounds;
	srand((unsigned int)getpid());
	cpu_model(cpu, sizeof(cpu));
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(ldir, sizeof(ldir), "%s/bench_net.%d", dir, (int)getpid());
	if (mkdir(ldir, 0700) < 0)
		die("mkdir", errno);
	listener = start_listener(ldir, &port);
	if (listener < 0) {
		printf("# bench_net: n/a (trace-cmd listen did not start)\n");
		return 0;
	}
	printf("# bench_net: %s, %ld CPUs; one thread's flood of bench:be_ints3 for %u s, "
	       "%u rounds interleaved; files in %s\n", cpu, sysconf(_SC_NPROCESSORS_ONLN), secs,
	       rounds, dir);
	printf("# -o: trev record -o FILE; -N: trev record -N 127.0.0.1:%d (trace-cmd listen "
	       "-d %s)\n", port, ldir);
	printf("%-8s %11s %11s %9s %8s %8s %9s\n", "case", "fired", "recorded", "lost", "secs",
	       "M rec/s", "wire B/ev");
	for (unsigned int i = 0; i < rounds; i++) {
		struct run l = run_trev(dir, 0, secs), r = run_trev(dir, port, secs);

		if (!l.ok || !r.ok) {
			printf("%s: trev record failed\n", !l.ok ? "-o" : "-N");
			sums_ok = false;
			continue;
		}
		print_run("-o", &l);
		print_run("-N", &r);
		sums_ok &= l.recorded + l.lost == l.fired && r.recorded + r.lost == r.fired;
		local[nl++] = (double)l.recorded / l.fire_secs;
		net[nn] = (double)r.recorded / r.fire_secs;
		bpe[nn++] = (double)r.sent / (double)r.recorded;
	}
	stop_listener(listener);
	remove_dir(ldir);
	if (nl && nn)
		printf("median: -o %.2f M events/s, -N %.2f M events/s (%.2f x -o), %.1f bytes on "
		       "the wire per event\n", median(local, nl) / 1e6, median(net, nn) / 1e6,
		       median(net, nn) / median(local, nl), median(bpe, nn));
	if (!sums_ok)
		printf("MISMATCH: a run failed or its recorded + lost != fired\n");
	return sums_ok ? 0 : 1;
}
