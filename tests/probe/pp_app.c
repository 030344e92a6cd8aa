// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A program that does not link trev, its functions built with the patchable entries of
 * trev's function flags (-fpatchable-function-entry=5, without trev/fentry.h and without
 * libtrev): `trev record --probe` preloads libtrev into it (tests/scripts/probe_preload.sh).
 *
 *   pp_app N          pp_add(N, 1), then pp_name("call-N")
 *   pp_app fork N     the same, then a fork() child calls pp_add(N + 1, 1) and
 *                     pp_name("call-N+1"); the parent waits for it
 *   pp_app N PROG ARGS...
 *                     the first, then PROG started with posix_spawn() and waited for
 *
 * Each call is printed as "call PID A B NAME", what the program passed.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int pp_add(int a, int b);
size_t pp_name(const char *s);

/* Called, not inlined or folded, so each call runs the patchable entry (clang has no noipa). */
#ifdef __clang__
#define PP_CALLED __attribute__((noinline))
#else
#define PP_CALLED __attribute__((noipa))
#endif

PP_CALLED int pp_add(int a, int b)
{
	return a + b;
}

PP_CALLED size_t pp_name(const char *s)
{
	return strlen(s);
}

static void pp_call(int n)
{
	char name[32];

	snprintf(name, sizeof(name), "call-%d", n);
	pp_add(n, 1);
	pp_name(name);
	printf("call %d %d %d %s\n", (int)getpid(), n, 1, name);
	fflush(stdout);
}

extern char **environ;

int main(int argc, char **argv)
{
	int forked = argc == 3 && strcmp(argv[1], "fork") == 0;
	int n = forked ? atoi(argv[2]) : argc >= 2 ? atoi(argv[1]) : 0;
	pid_t child;
	int st;

	pp_call(n);
	if (!forked && argc > 2) {
		if (posix_spawn(&child, argv[2], NULL, NULL, argv + 2, environ))
			return 1;
		return waitpid(child, &st, 0) == child && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	}
	if (!forked)
		return 0;
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		pp_call(n + 1);
		return 0;
	}
	return waitpid(child, NULL, 0) == child ? 0 : 1;
}
