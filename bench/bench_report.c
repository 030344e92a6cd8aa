/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The readers against trace-cmd report (docs/benchmarks.md, "Readers"): a
 * trace.dat file recorded by `trev record` of this program (--emit: two
 * threads, three event kinds with ints, strings and flags, paced so that
 * nothing is lost), then `trev report F`, `trace-cmd report F`, `trev
 * convert --to json F -` and `trev convert --to ctf F DIR` run in turn,
 * round after round (A B C D A B C D ...): wall time min/median/max, CPU
 * time, and each one's peak memory (ru_maxrss of the child, from wait4()),
 * at two file sizes to show whether memory is flat. Every command's stdout
 * goes to /dev/null; the files (and the CTF directory) are in
 * BENCH_REPORT_DIR. Numbers only, no thresholds.
 *
 *	bench_report [EVENTS...]		default: 600000 1200000
 *	bench_report --emit EVENTS		the traced side
 *
 * Environment: BENCH_REPORT_DIR (default /dev/shm, else $TMPDIR or /tmp),
 * BENCH_REPORT_ROUNDS (default 5), BENCH_REPORT_KEEP=1 (keep the files:
 * their names are printed), BENCH_REPORT_TREV (another trev command to read
 * with, e.g. an older build's: the file is still recorded with this one's).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/magic.h>

#include <trev/trev.h>

#include "bench_common.h"

#define CREATE_TRACE_POINTS
#include "bench_report_trace.h"

#define EMIT_THREADS	2
#define EMIT_RATE	400000		/* events/s per thread: none lost with -b 8192 */
#define EMIT_BATCH	64
#define MAX_ROUNDS	64

/* ---- the traced side ------------------------------------------------ */

static const char *const paths[] = {
	"/index.html", "/api/v1/items", "/static/app.js", "/login", "/api/v1/items/42/details",
};
static const char *const names[] = { "worker", "flusher", "scanner-long-name", "io" };

static void *emit_thread(void *arg)
{
	uint64_t n = *(uint64_t *)arg, t0 = now_ns(), k = 0;

	for (uint64_t i = 0; i < n; k++) {
		uint64_t due = t0 + (uint64_t)((double)k * EMIT_BATCH * 1e9 / EMIT_RATE);

		while (now_ns() < due)
			;
		for (int j = 0; j < EMIT_BATCH && i < n; j++, i++) {
			switch (i % 4) {
			case 0:
			case 1:
				trace_br_request((int)i, 200 + (int)(i % 7) * 50,
						 (long long)(i * 37 % 100000),
						 paths[i % 5]);
				break;
			case 2:
				trace_br_ints((int)i, -(int)i, (int)(i * 3));
				break;
			default:
				trace_br_state(names[i % 4], (unsigned int)(i % 8));
			}
		}
	}
	return NULL;
}

static int emit(uint64_t n)
{
	pthread_t th[EMIT_THREADS];
	uint64_t each = n / EMIT_THREADS;

	for (int i = 0; i < EMIT_THREADS; i++)
		if (pthread_create(&th[i], NULL, emit_thread, &each))
			die("pthread_create", EAGAIN);
	for (int i = 0; i < EMIT_THREADS; i++)
		pthread_join(th[i], NULL);
	return 0;
}

/* ---- the readers ---------------------------------------------------- */

struct cmd {
	const char *name;
	char *argv[8];
	double wall[MAX_ROUNDS], cpu[MAX_ROUNDS];
	long maxrss_kb;		/* the largest of its runs */
	bool failed;
};

/* Run @argv, stdout on /dev/null: wall and CPU seconds, ru_maxrss. Return: 0 or -1. */
static int run(char *const argv[], double *wall, double *cpu, long *maxrss_kb)
{
	uint64_t t0 = now_ns();
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	*wall = (double)(now_ns() - t0) / 1e9;
	*cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	*maxrss_kb = ru.ru_maxrss;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static char self[4096];

/* trev record -- self --emit @n into @file. Return: the records it holds, or 0. */
static unsigned long long record(const char *file, unsigned long long n)
{
	char cmd[16384], line[512];
	unsigned long long recorded = 0, lost = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' record -b 8192 -e 'benchrep:*' -o '%s' -- '%s' --emit %llu 2>&1",
		 TREV_CLI, file, self, n);
	p = popen(cmd, "r");
	if (!p)
		die("popen", errno);
	while (fgets(line, sizeof(line), p))
		if (strstr(line, " events, "))
			sscanf(line, "trev: %llu events, %llu lost", &recorded, &lost);
	if (pclose(p) != 0)
		return 0;
	if (lost)
		printf("# %llu events lost while recording (counted in the file)\n", lost);
	return recorded;
}

static const char *fs_name(const char *dir)
{
	struct statfs sf;

	if (statfs(dir, &sf) < 0)
		return "?";
	return (unsigned long)sf.f_type == TMPFS_MAGIC ? "tmpfs" : "not tmpfs";
}

static void cpu_name(char *out, size_t len)
{
	char line[256], model[128] = "?";
	int family = -1, mod = -1;
	FILE *f = fopen("/proc/cpuinfo", "r");

	/* The first processor's lines: cpu family, model, then model name. */
	while (f && fgets(line, sizeof(line), f) && line[0] != '\n') {
		if (sscanf(line, "model name : %127[^\n]", model) == 1)
			continue;
		if (sscanf(line, "cpu family : %d", &family) == 1)
			continue;
		sscanf(line, "model : %d", &mod);
	}
	if (f)
		fclose(f);
	snprintf(out, len, "%s, family %d, model %d", model, family, mod);
}

static void rm_ctf(const char *dir)
{
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_report: cannot remove %s\n", dir);
}

static double stat3(const double *v, int n, double *min, double *max)
{
	double s[MAX_ROUNDS];

	memcpy(s, v, (size_t)n * sizeof(*s));
	*min = *max = s[0];
	for (int i = 1; i < n; i++) {
		if (s[i] < *min)
			*min = s[i];
		if (s[i] > *max)
			*max = s[i];
	}
	return median(s, n);
}

int main(int argc, char **argv)
{
	static char *defaults[] = { "600000", "1200000" };
	const char *dir = getenv("BENCH_REPORT_DIR");
	const char *rounds_env = getenv("BENCH_REPORT_ROUNDS");
	bool keep = getenv("BENCH_REPORT_KEEP") && !strcmp(getenv("BENCH_REPORT_KEEP"), "1");
	int rounds = rounds_env ? atoi(rounds_env) : 5;
	char **ns = argc > 1 ? argv + 1 : defaults;
	int nn = argc > 1 ? argc - 1 : 2, status = 0;
	char *reader = getenv("BENCH_REPORT_TREV") ? getenv("BENCH_REPORT_TREV") : TREV_CLI;
	char cpu[256];
	ssize_t len;

	if (argc == 3 && !strcmp(argv[1], "--emit"))
		return emit(strtoull(argv[2], NULL, 0));
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0)
		die("readlink /proc/self/exe", errno);
	self[len] = '\0';
	if (rounds < 3 || rounds > MAX_ROUNDS)
		rounds = 5;
	if (!dir) {
		struct stat st;

		dir = stat("/dev/shm", &st) == 0 && !strcmp(fs_name("/dev/shm"), "tmpfs") ?
			"/dev/shm" : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	}
	cpu_name(cpu, sizeof(cpu));
	printf("# bench_report: %s, %ld CPUs; files in %s (%s); every command's stdout to "
	       "/dev/null;\n# %d rounds of the four commands in turn (A B C D A B C D ...); "
	       "ratio: trace-cmd report's median wall / the command's\n",
	       cpu, sysconf(_SC_NPROCESSORS_ONLN), dir, fs_name(dir), rounds);
	printf("# trev: %s\n", reader);
	for (int s = 0; s < nn; s++) {
		unsigned long long n = strtoull(ns[s], NULL, 10), recorded;
		char file[4096], ctf[4200];
		struct cmd cmds[4] = {
			{ .name = "trev report F", .argv = { reader, "report", file, NULL } },
			{ .name = "trace-cmd report F", .argv = { "trace-cmd", "report", file, NULL } },
			{ .name = "trev convert --to json F -",
			  .argv = { reader, "convert", "--to", "json", file, "-", NULL } },
			{ .name = "trev convert --to ctf F DIR",
			  .argv = { reader, "convert", "--to", "ctf", file, ctf, NULL } },
		};
		struct stat st;
		double anchor, lo, hi;

		snprintf(file, sizeof(file), "%s/bench_report.%d.%llu.dat", dir, (int)getpid(), n);
		snprintf(ctf, sizeof(ctf), "%s.ctf", file);
		recorded = record(file, n);
		if (!recorded || stat(file, &st) < 0) {
			fprintf(stderr, "bench_report: trev record of %llu events failed\n", n);
			unlink(file);
			return 1;
		}
		printf("\n%llu events recorded (%s), %.1f MB%s%s\n", recorded, ns[s],
		       (double)st.st_size / 1e6, keep ? ": " : "", keep ? file : "");
		for (int r = 0; r < rounds; r++)
			for (int c = 0; c < 4; c++) {
				long kb = 0;

				rm_ctf(ctf);
				if (run(cmds[c].argv, &cmds[c].wall[r], &cmds[c].cpu[r], &kb))
					cmds[c].failed = true;
				if (kb > cmds[c].maxrss_kb)
					cmds[c].maxrss_kb = kb;
			}
		rm_ctf(ctf);
		if (!keep)
			unlink(file);
		printf("%-28s %8s %8s %8s %8s %9s %10s %9s\n", "command", "min s", "median s",
		       "max s", "CPU s", "Mevents/s", "maxrss MB", "ratio");
		anchor = stat3(cmds[1].wall, rounds, &lo, &hi);
		for (int c = 0; c < 4; c++) {
			double med = stat3(cmds[c].wall, rounds, &lo, &hi), cmin, cmax;
			double cmed = stat3(cmds[c].cpu, rounds, &cmin, &cmax);

			printf("%-28s %8.3f %8.3f %8.3f %8.3f %9.2f %10.1f %8.2fx%s\n", cmds[c].name,
			       lo, med, hi, cmed, (double)recorded / med / 1e6,
			       (double)cmds[c].maxrss_kb / 1024.0, anchor / med,
			       cmds[c].failed ? " FAILED" : "");
			if (cmds[c].failed)
				status = 1;
		}
		fflush(stdout);
	}
	return status;
}
