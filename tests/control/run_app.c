/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A run of processes for tests/scripts/cli_session.sh: each process fires
 * trev_test:tt_ints N times (a = i, b = its number in the run, c = -i) from
 * one thread named after its part, then ends.
 *
 *	run_app fork K N	the parent ("parent", b = 0) and K children made
 *				by fork() without exec ("child-k", b = k, 1..K),
 *				all at once; the parent waits for them
 *	run_app spawn K N	K children started by posix_spawn() of this
 *				program ("run_app fork 0 N"), then waited for
 *	run_app vfork K N	the same with vfork() and execv()
 *	run_app daemon N FILE	a double-forking daemon: the child forks again
 *				and exits; the grandchild (setsid, "daemon",
 *				b = 1) fires, then writes FILE; the parent
 *				returns at once
 * Each prints "fired TOTAL" on stdout: the events of its own process tree
 * that it waited for (the daemon's are not).
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trev/trev.h>

#define CREATE_TRACE_POINTS
#include "trev_test_events.h"

extern char **environ;

/* trev_test:tt_hooked's registration hooks. */
int tt_reg(void)
{
	return 0;
}

void tt_unreg(void)
{
}

static void fire(const char *name, int who, long n)
{
	prctl(PR_SET_NAME, name);
	for (long i = 0; i < n; i++)
		trace_tt_ints((int)i, (unsigned int)who, (int)-i);
}

/* vfork() and exec, in a function of its own: nothing of main's is clobbered. */
static __attribute__((noinline)) pid_t start_vfork(char **child_argv)
{
	pid_t pid = vfork();

	if (pid == 0) {
		execv("/proc/self/exe", child_argv);
		_exit(127);
	}
	return pid;
}

static int wait_all(void)
{
	int status, bad = 0;

	while (wait(&status) > 0)
		bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	return bad;
}

int main(int argc, char **argv)
{
	long k = argc > 2 ? atol(argv[2]) : 0, n = argc > 3 ? atol(argv[3]) : 0;
	char n_text[32], *child_argv[] = { argv[0], "fork", "0", n_text, NULL };

	if (argc < 3)
		return 2;
	if (!strcmp(argv[1], "daemon")) {
		n = k;
		if (argc < 4)
			return 2;
		if (fork() == 0) {
			if (fork() == 0) {
				FILE *f;

				setsid();
				fire("daemon", 1, n);
				f = fopen(argv[3], "w");
				if (f)
					fclose(f);
				_exit(0);
			}
			_exit(0);
		}
		wait_all();
		printf("fired 0\n");
		return 0;
	}
	if (k < 0 || k > 1000 || n < 0)
		return 2;
	snprintf(n_text, sizeof(n_text), "%ld", n);
	for (long c = 1; c <= k; c++) {
		char name[24];
		pid_t pid;

		if (!strcmp(argv[1], "fork")) {
			pid = fork();
			if (pid == 0) {
				snprintf(name, sizeof(name), "child-%ld", c);
				fire(name, (int)c, n);
				_exit(0);
			}
		} else if (!strcmp(argv[1], "vfork")) {
			pid = start_vfork(child_argv);
		} else if (!strcmp(argv[1], "spawn")) {
			if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, child_argv, environ))
				pid = -1;
		} else {
			return 2;
		}
		if (pid < 0)
			return 1;
	}
	fire("parent", 0, n);
	if (wait_all())
		return 1;
	printf("fired %ld\n", (k + 1) * n);
	return 0;
}
