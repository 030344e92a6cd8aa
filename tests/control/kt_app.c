/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * For tests/scripts/cli_record_kernel.sh: THREADS threads named "kt-K", thread K
 * pinned to the K-th CPU it may run on (modulo their number), each fire
 * trev_test:tt_ints N times (a = i, b = K, c = CPU) and sleep or yield between
 * two events, so that the kernel switches them out and in all along. Pinned,
 * an event's CPU is the CPU its thread runs on whatever the scheduler does.
 *
 *	kt_app N THREADS	prints "fired TOTAL" at the end
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

static long n_events;
static int cpus[CPU_SETSIZE];
static int nr_cpus;

static void *kt_thread(void *arg)
{
	int k = (int)(long)arg, cpu = cpus[k % nr_cpus];
	struct timespec nap = { 0, 20000 };
	cpu_set_t set;
	char name[16];

	snprintf(name, sizeof(name), "kt-%d", k);
	pthread_setname_np(pthread_self(), name);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("sched_setaffinity");
		exit(2);
	}
	for (long i = 0; i < n_events; i++) {
		trace_tt_ints((int)i, (unsigned int)k, cpu);
		if (i % 2)
			nanosleep(&nap, NULL);
		else
			sched_yield();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long threads = argc > 2 ? atol(argv[2]) : 3;
	pthread_t t[64];
	cpu_set_t set;

	n_events = argc > 1 ? atol(argv[1]) : 100;
	if (threads < 1 || threads > 64 || n_events < 0)
		return 2;
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 2;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[nr_cpus++] = c;
	for (long i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, kt_thread, (void *)i);
	for (long i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("fired %ld\n", n_events * threads);
	return 0;
}
