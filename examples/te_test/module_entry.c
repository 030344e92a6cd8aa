/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Seed 004's module as a program: a thread named "xhr-thread" emits
 * te_test once per tick. Run with TREV_EVENTS=xhr_test:te_test
 * TREV_OUTPUT=stdout to see the trace text at exit.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* pthread_setname_np */
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CREATE_TRACE_POINTS
#include "module_traceevent.h"

static void *xhr_thread(void *arg)
{
	static unsigned long count;
	struct timespec tick = { 0, 10 * 1000 * 1000 };	/* HZ: 10 ms here */
	int n = *(int *)arg;

	/* Named before its first event, as kthread_run() names the module's thread. */
	pthread_setname_np(pthread_self(), "xhr-thread");
	for (int i = 0; i < n; i++) {
		nanosleep(&tick, NULL);
		trace_te_test((int)count);
		count++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t xhr_task;

	printf("Hello, %s.\n", __func__);
	if (pthread_create(&xhr_task, NULL, xhr_thread, &n))
		return 1;
	pthread_join(xhr_task, NULL);
	printf("Hello, %s.\n", __func__);
	return 0;
}
