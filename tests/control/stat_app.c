/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The program tests/scripts/cli_stat.sh attaches to: a known number of
 * trev_test:tt_ints events per thread into buffers too small to hold them,
 * in discard mode (options/overwrite 0), in the top instance and in
 * instances/small.
 *
 *	stat_app N1 N2 ...	thread "writer-I" writes N<I> events to each
 *				instance, then prints "tid TID writer-I N<I>";
 *				then "ready PID"; ends on SIGTERM (exit(0))
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <trev/trev.h>

#define CREATE_TRACE_POINTS
#include "trev_test_events.h"

int tt_reg(void)
{
	return 0;
}

void tt_unreg(void)
{
}

struct writer {
	int nr;		/* 1, 2, ... */
	long count;	/* events to write */
	pid_t tid;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t written = PTHREAD_COND_INITIALIZER;
static int nr_done;

static void *writer(void *arg)
{
	struct writer *w = arg;
	char name[16];

	snprintf(name, sizeof(name), "writer-%d", w->nr);
	pthread_setname_np(pthread_self(), name);
	w->tid = (pid_t)gettid();
	for (long i = 0; i < w->count; i++)
		trace_tt_ints((int)i, (unsigned int)w->nr, -(int)i);
	pthread_mutex_lock(&lock);
	nr_done++;
	pthread_cond_broadcast(&written);
	/* Stay alive: the buffers of live threads are never recycled. */
	for (;;)
		pthread_cond_wait(&written, &lock);
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *const setup[][2] = {
		{ "options/overwrite", "0" },
		{ "buffer_size_kb", "8" },
		{ "instances/small/options/overwrite", "0" },
		{ "instances/small/buffer_size_kb", "8" },
		{ "events/trev_test/tt_ints/enable", "1" },
		{ "instances/small/events/trev_test/tt_ints/enable", "1" },
	};
	struct writer *w = calloc((size_t)argc, sizeof(*w));
	sigset_t term;
	int sig;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, NULL);
	if (!w || trev_mkdir("instances/small"))
		return 1;
	for (size_t i = 0; i < sizeof(setup) / sizeof(setup[0]); i++)
		if (trev_write(setup[i][0], setup[i][1])) {
			fprintf(stderr, "stat_app: %s: cannot write %s\n", setup[i][0],
				setup[i][1]);
			return 1;
		}
	for (int i = 1; i < argc; i++) {
		pthread_t t;

		w[i].nr = i;
		w[i].count = atol(argv[i]);
		pthread_create(&t, NULL, writer, &w[i]);
	}
	pthread_mutex_lock(&lock);
	while (nr_done < argc - 1)
		pthread_cond_wait(&written, &lock);
	pthread_mutex_unlock(&lock);
	for (int i = 1; i < argc; i++)
		printf("tid %d writer-%d %ld\n", (int)w[i].tid, i, w[i].count);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (sigwait(&term, &sig) != 0)
		;
	exit(0);
}
