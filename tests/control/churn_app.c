/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Thread churn for tests/scripts/rb_churn.sh: THREADS short-lived threads,
 * at most ALIVE of them alive at once, each firing trev_test:tt_ints once
 * (a = its number, b = 1, c = -a) and exiting: a thread pool's or a
 * thread-per-connection server's pattern, whose dead threads' buffers the
 * memory cap makes the ring buffer recycle.
 *
 *	churn_app THREADS ALIVE	prints "fired THREADS" on stdout at the end,
 *				then exits normally (exit handlers run)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

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

static void *churn_one(void *arg)
{
	int n = (int)(long)arg;

	trace_tt_ints(n, 1, -n);
	return NULL;
}

int main(int argc, char **argv)
{
	long threads = argc > 2 ? strtol(argv[1], NULL, 10) : 0;
	long alive = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	pthread_t *tids;

	if (threads <= 0 || alive <= 0) {
		fprintf(stderr, "usage: churn_app THREADS ALIVE\n");
		return 2;
	}
	tids = calloc((size_t)alive, sizeof(*tids));
	if (!tids)
		return 1;
	/* Thread i starts once thread i - ALIVE has ended: ALIVE at most. */
	for (long i = 0; i < threads; i++) {
		pthread_t *slot = &tids[i % alive];

		if (i >= alive && pthread_join(*slot, NULL))
			return 1;
		if (pthread_create(slot, NULL, churn_one, (void *)i)) {
			perror("pthread_create");
			return 1;
		}
	}
	for (long i = threads > alive ? threads - alive : 0; i < threads; i++)
		if (pthread_join(tids[i % alive], NULL))
			return 1;
	free(tids);
	printf("fired %ld\n", threads);
	return 0;
}
