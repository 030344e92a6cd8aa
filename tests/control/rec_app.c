/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A burst for tests/scripts/cli_record*.sh: THREADS threads named "burst-K"
 * each fire trev_test:tt_ints N times (a=i b=2i c=-i, i = 0..N-1) as fast
 * as they can; then the program exits normally (exit handlers run), with
 * status CODE, or kills itself with signal SIG.
 *
 *	rec_app N [THREADS [exit CODE | signal SIG]]
 *				prints "fired TOTAL" on stdout at the end
 */
#include <pthread.h>
#include <signal.h>
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

static void *burst(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "burst-%d", (int)(long)arg);
	pthread_setname_np(pthread_self(), name);
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
	for (long i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, burst, (void *)i);
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
