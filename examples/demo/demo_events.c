/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A multi-threaded program with events of every kind of field and a
 * trace_printk(). `make demo` runs it with
 * TREV_EVENTS='demo:*' TREV_OUTPUT=stdout: the trace is printed at exit.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* pthread_setname_np */
#endif
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <trev/trev.h>

#define CREATE_TRACE_POINTS
#include "demo_trace.h"

static void *worker(void *arg)
{
	static const char *const paths[] = { "/index.html", "/api/v1/items", "/img/logo.png" };
	static const unsigned char digest[4] = { 0xde, 0xad, 0xbe, 0xef };
	int id = (int)(long)arg;
	char name[16];

	snprintf(name, sizeof(name), "worker-%d", id);
	pthread_setname_np(pthread_self(), name);
	trace_demo_worker_start(name, id);
	for (int i = 0; i < 3; i++) {
		int lat[3] = { 10 * id + i, 20 * id + i, 30 * id + i };
		unsigned long cpus[1] = { 0x5UL << id };

		trace_demo_request(paths[i], i, (unsigned int)(1 << i) | (id ? 0x2u : 0u),
				   200 + i, digest);
		trace_demo_batch(lat, 3, cpus, 8);
	}
	trace_printk("worker %d handled %d requests\n", id, 3);
	trace_demo_worker_stop(name, id);
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	for (long i = 0; i < 2; i++) {
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)))
			return 1;
		/* One worker at a time, so the output reads in order. */
		pthread_join(t[i], NULL);
	}
	return 0;
}
