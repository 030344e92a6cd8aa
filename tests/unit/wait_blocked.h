/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * For the tests of blocking reads: wait until a thread of this process has
 * gone to sleep in futex(2), the call a blocked reader sleeps in, rather than
 * for a time that a loaded machine may not give it.
 */
#ifndef TREV_TEST_WAIT_BLOCKED_H
#define TREV_TEST_WAIT_BLOCKED_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>

/* Only against a hang: a loaded machine may use any part of it. */
#define WAIT_BLOCKED_GUARD_S	60

/*
 * Is thread @tid asleep in futex(2) now? /proc/self/task/TID/syscall holds the
 * number of the system call it sleeps in ("running" otherwise); without that
 * file, a thread in state S (sleeping) counts.
 * Return: 1 yes, 0 no, -1 cannot tell (no /proc).
 */
static inline int thread_in_futex(pid_t tid)
{
	char path[64], buf[256], *p;
	long nr;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	f = fopen(path, "r");
	if (f) {
		int ok = fgets(buf, sizeof(buf), f) != NULL;

		fclose(f);
		if (ok && sscanf(buf, "%ld", &nr) == 1) {
#ifdef SYS_futex_time64
			if (nr == SYS_futex_time64)
				return 1;
#endif
			return nr == SYS_futex;
		}
		if (ok && buf[0] == 'r')	/* "running" */
			return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	if (!p || p[1] != ' ')
		return -1;
	return p[2] == 'S';
}

/*
 * wait_blocked() - wait until thread @tid sleeps in futex(2), polling every
 * millisecond, for WAIT_BLOCKED_GUARD_S at most.
 * Return: 0, or -1 when it did not happen or cannot be told (the caller fails).
 */
static inline int wait_blocked(pid_t tid)
{
	struct timespec now, end, pause = { 0, 1000000 };

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += WAIT_BLOCKED_GUARD_S;
	for (;;) {
		int b = thread_in_futex(tid);

		if (b)
			return b > 0 ? 0 : -1;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			return -1;
		while (nanosleep(&pause, &pause) < 0 && errno == EINTR)
			;
	}
}

#endif /* TREV_TEST_WAIT_BLOCKED_H */
