/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `trev convert --to json` of big files (docs/cli/trev-convert.md, "JSON"):
 * events/s and the converter's peak memory at 1 M and 10 M records, to show
 * it is flat in the file's size. Two peaks: getrusage()'s ru_maxrss of the
 * command (its converting child included), which would count the pages of
 * the trace.dat file a reader keeps mapped (the records are read a chunk at
 * a time: docs/cli/trev-report.md, "Speed and memory"), and the largest
 * RssAnon (/proc/PID/status) of the converting process, sampled every 2 ms:
 * the memory the conversion itself allocates. The files are made by tests/json_dat
 * (made-up pages through trev's writer: half jt:sample records with strings
 * and an array, half function_graph entry/exit pairs, 2 CPUs, 4 threads); the
 * JSON goes to /dev/null (`-`). Numbers only, no thresholds.
 *
 *	bench_convert_json [N...]	default: 1000000 10000000
 *
 * Environment: BENCH_CONVERT_DIR (where the files go, default $TMPDIR or /tmp).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* RssAnon of @pid in kB, or 0. */
static long rss_anon(int pid)
{
	char path[64], line[256];
	long kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* The largest RssAnon of @pid and its children now, in kB. */
static long tree_anon(int pid)
{
	char path[96];
	long max = rss_anon(pid), kb;
	int child;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	f = fopen(path, "r");
	if (!f)
		return max;
	while (fscanf(f, "%d", &child) == 1) {
		kb = rss_anon(child);
		if (kb > max)
			max = kb;
	}
	fclose(f);
	return max;
}

/*
 * Run @argv with stdout on /dev/null; its rusage (its children's included)
 * in @ru, the largest RssAnon sampled in @anon_kb.
 */
static int run(char *const argv[], struct rusage *ru, double *secs, long *anon_kb)
{
	double t0 = now_s();
	int status;
	pid_t pid = fork();
	struct timespec tick = { 0, 2000000 };

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	*anon_kb = 0;
	for (;;) {
		pid_t w = wait4(pid, &status, WNOHANG, ru);
		long kb;

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -1;
		kb = tree_anon(pid);
		if (kb > *anon_kb)
			*anon_kb = kb;
		nanosleep(&tick, NULL);
	}
	*secs = now_s() - t0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	static char *defaults[] = { "1000000", "10000000" };
	const char *dir = getenv("BENCH_CONVERT_DIR");
	char **ns = argc > 1 ? argv + 1 : defaults;
	int nn = argc > 1 ? argc - 1 : 2;

	if (!dir)
		dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	printf("trev convert --to json FILE - >/dev/null (made-up records: half jt:sample, half "
	       "function_graph entry/exit)\nrecords/s: per wall second; maxrss: getrusage, "
	       "with any file pages mapped; RssAnon: sampled, the conversion's own\n");
	printf("%12s %10s %9s %10s %10s %11s %11s %13s\n", "records", "file MB", "make s",
	       "convert s", "CPU s", "records/s", "maxrss MB", "RssAnon MB");
	for (int i = 0; i < nn; i++) {
		char file[4096];
		char *gen[] = { JSON_DAT, "flood", file, ns[i], NULL };
		char *conv[] = { TREV_CLI, "convert", "--to", "json", file, "-", NULL };
		struct rusage ru;
		struct stat st;
		double make_s, conv_s, cpu_s;
		long anon_kb;
		unsigned long long n = strtoull(ns[i], NULL, 10);

		snprintf(file, sizeof(file), "%s/bench_convert_json.%d.dat", dir, (int)getpid());
		if (run(gen, &ru, &make_s, &anon_kb)) {
			fprintf(stderr, "bench_convert_json: json_dat flood %s failed\n", ns[i]);
			unlink(file);
			return 1;
		}
		stat(file, &st);
		if (run(conv, &ru, &conv_s, &anon_kb)) {
			fprintf(stderr, "bench_convert_json: trev convert of %s records failed\n",
				ns[i]);
			unlink(file);
			return 1;
		}
		unlink(file);
		cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
			(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		printf("%12llu %10.1f %9.2f %10.2f %10.2f %11.0f %11.1f %13.1f\n", n,
		       (double)st.st_size / 1e6, make_s, conv_s, cpu_s, (double)n / conv_s,
		       (double)ru.ru_maxrss / 1024.0, (double)anon_kb / 1024.0);
		fflush(stdout);
	}
	return 0;
}
