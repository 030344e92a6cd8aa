/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A burst for tests/scripts/cli_record*.sh: THREADS threads named "burst-K"
 * each fire trev_test:tt_ints N times (a=i b=2i c=-i, i = 0..N-1) as fast
 * as they can; then the program exits normally (exit handlers run), with
 * status CODE, or kills itself with signal SIG.
 *
 *	rec_app N [THREADS [exit CODE | signal SIG]]
 *				prints "fired TOTAL" on stdout at the end
 *	rec_app N THREADS midsignal SIG COUNTS
 *				the threads fire up to REC_MID_MAX events each; after
 *				each one, thread K stores how many it committed in
 *				8-byte slot K of file COUNTS (MAP_SHARED, so the
 *				counts outlive the process); once every thread has
 *				committed N, the program kills itself with SIG while
 *				they are still writing
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trev/trev.h>

#define CREATE_TRACE_POINTS
#include "trev_test_events.h"

/* trev_test:tt_hooked's registration hooks. */
int tt_reg(void)
{
	return 0;
}

void tt_unreg(void)
{
}

static long n_events;

/* midsignal: events each thread fires at most (its buffer holds them all),
 * and the committed counts, one slot per thread, in the COUNTS file. */
#define REC_MID_MAX	20000
static _Atomic long *mid_counts;

static void *burst(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "burst-%d", (int)(long)arg);
	pthread_setname_np(pthread_self(), name);
	if (mid_counts) {
		for (long i = 0; i < REC_MID_MAX; i++) {
			trace_tt_ints((int)i, 2U * (unsigned int)i, (int)-i);
			atomic_store(&mid_counts[(long)arg], i + 1);
		}
		for (;;)
			pause();	/* the signal ends us */
	}
	for (long i = 0; i < n_events; i++)
		trace_tt_ints((int)i, 2U * (unsigned int)i, (int)-i);
	return NULL;
}

int main(int argc, char **argv)
{
	long threads = argc > 2 ? atol(argv[2]) : 1;
	pthread_t t[64];

	n_events = argc > 1 ? atol(argv[1]) : 1000;
	if (threads < 1 || threads > 64 || n_events < 0)
		return 2;
	if (argc > 5 && strcmp(argv[3], "midsignal") == 0) {
		if (n_events > REC_MID_MAX)
			return 2;
		int fd = open(argv[5], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		size_t size = (size_t)threads * sizeof(long);

		if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
			return 2;
		mid_counts = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (mid_counts == MAP_FAILED)
			return 2;
	}
	for (long i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, burst, (void *)i);
	if (mid_counts) {
		for (long i = 0; i < threads; i++)
			while (atomic_load(&mid_counts[i]) < n_events)
				sched_yield();
		signal(atoi(argv[4]), SIG_DFL);
		raise(atoi(argv[4]));
		return 2;
	}
	for (long i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("fired %ld\n", n_events * threads);
	fflush(stdout);
	if (argc > 4 && strcmp(argv[3], "exit") == 0)
		exit(atoi(argv[4]));
	if (argc > 4 && strcmp(argv[3], "signal") == 0) {
		signal(atoi(argv[4]), SIG_DFL);
		raise(atoi(argv[4]));
	}
	return argc > 3 ? 2 : 0;
}
