/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Records a known workload to trace.dat files for tests/scripts/tracedat_*.sh:
 * the demo events (strings, arrays, flags, symbolic values, a bitmask, an
 * event class), trace_printk() in bprint and print form, trace_puts(),
 * trace_marker, from two named threads pinned to CPU 0 and CPU 1.
 *
 *   dat_record DIR normal    DIR/trace.txt (the `trace` text before
 *                            recording), DIR/v6.dat and DIR/v7.dat from
 *                            the same pages (streaming API), DIR/one.dat
 *                            from trev_record_dat() after a second run
 *                            (DIR/one.txt is its trace text)
 *   dat_record DIR lost      overwrite mode with small buffers: DIR/trace.txt,
 *                            DIR/v6.dat, DIR/v7.dat with lost events
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trev/trev.h>
#include <trev/tracedat.h>

#define CREATE_TRACE_POINTS
#include "demo_trace.h"

static int lost_mode;

static void die(const char *what, int err)
{
	fprintf(stderr, "dat_record: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static void *worker(void *arg)
{
	static const char *const paths[] = { "/index.html", "/api/v1/items", "/img/logo.png" };
	static const unsigned char digest[4] = { 0xde, 0xad, 0xbe, 0xef };
	int id = (int)(long)arg;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int rounds = lost_mode ? 3000 : 3;
	char name[32];		/* pthread_setname_np() takes 15 characters */
	cpu_set_t set;

	/* Worker 1 on CPU 0, worker 2 on CPU 1: both CPU streams get data. */
	CPU_ZERO(&set);
	CPU_SET((id - 1) % (ncpu > 0 ? ncpu : 1), &set);
	sched_setaffinity(0, sizeof(set), &set);
	snprintf(name, sizeof(name), "worker-%d", id);
	pthread_setname_np(pthread_self(), name);
	trace_demo_worker_start(name, id);
	for (int i = 0; i < rounds; i++) {
		int lat[3] = { 10 * id + i, 20 * id + i, 30 * id + i };
		unsigned long cpus[1] = { 0x5UL << id };

		trace_demo_request(paths[i % 3], i % 3, (unsigned int)(1 << (i % 3)) | (id ? 0x2u : 0u),
				   200 + i % 3, digest);
		trace_demo_batch(lat, 3, cpus, 8);
		trace_printk("worker %d round %d of %s\n", id, i, name);
	}
	trace_printk("worker %d done\n", id);			/* bprint */
	trace_printk("plain text from worker %s\n", "x");	/* bprint with a string */
	trace_puts("a trace_puts line\n");			/* bputs */
	trace_demo_worker_stop(name, id);
	return NULL;
}

static void workload(void)
{
	pthread_t t[2];
	int ret;

	for (long i = 0; i < 2; i++) {
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)))
			die("pthread_create", EAGAIN);
		/* One at a time: the text is in a stable order. */
		pthread_join(t[i], NULL);
	}
	ret = trev_write("trace_marker", "hello from the marker");
	if (ret)
		die("trace_marker", ret);
}

static void save_trace(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		die(path, errno);
	ret = trev_trace_print(f);
	if (ret)
		die("trace", ret);
	fclose(f);
}

/* Both versions from the same pages: the streaming API, one page at a time. */
static void record_both(const char *dir)
{
	struct trev_dat_source src;
	struct trev_dat *v6, *v7;
	unsigned char page[TREV_DAT_PAGE_SIZE];
	char p6[4096], p7[4096];
	int ret, busy;

	snprintf(p6, sizeof(p6), "%s/v6.dat", dir);
	snprintf(p7, sizeof(p7), "%s/v7.dat", dir);
	trev_dat_source_local(&src, NULL);
	ret = trev_dat_open(&v6, p6, 6, &src);
	if (ret)
		die("trev_dat_open v6", ret);
	ret = trev_dat_open(&v7, p7, 7, &src);
	if (ret)
		die("trev_dat_open v7", ret);
	do {
		busy = 0;
		for (int cpu = 0; cpu < trev_dat_nr_cpus(v6); cpu++) {
			ret = src.read_page(&src, cpu, page, 0);
			if (ret < 0)
				die("read_page", ret);
			if (ret == 0)
				continue;
			busy = 1;
			ret = trev_dat_add_page(v6, cpu, page);
			if (!ret)
				ret = trev_dat_add_page(v7, cpu, page);
			if (ret)
				die("trev_dat_add_page", ret);
		}
	} while (busy);
	ret = trev_dat_finish(v6);
	if (ret)
		die("trev_dat_finish v6", ret);
	ret = trev_dat_finish(v7);
	if (ret)
		die("trev_dat_finish v7", ret);
}

int main(int argc, char **argv)
{
	char path[4096];
	int ret;

	if (argc != 3 || (strcmp(argv[2], "normal") && strcmp(argv[2], "lost"))) {
		fprintf(stderr, "usage: dat_record DIR normal|lost\n");
		return 2;
	}
	lost_mode = !strcmp(argv[2], "lost");
	if (lost_mode) {
		ret = trev_write("buffer_size_kb", "8");
		if (!ret)
			ret = trev_write("options/overwrite", "1");
		if (ret)
			die("buffer setup", ret);
	}
	ret = trev_set_event("demo:*");
	if (ret)
		die("set_event", ret);
	workload();
	save_trace(argv[1], "trace.txt");
	record_both(argv[1]);
	if (lost_mode)
		return 0;

	/* trev_record_dat() on a second run, in a fresh buffer. */
	ret = trev_write("trace", "");
	if (ret)
		die("clear", ret);
	workload();
	save_trace(argv[1], "one.txt");
	snprintf(path, sizeof(path), "%s/one.dat", argv[1]);
	ret = trev_record_dat(NULL, path, 6);
	if (ret)
		die("trev_record_dat", ret);
	return 0;
}
