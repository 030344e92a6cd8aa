/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Round trips through trev_mount()'s FUSE mount, served by this same process
 * (its loop threads), against the same operations through the C API:
 * open+read+close of tracing_on, a READ alone, open(O_TRUNC)+write+close,
 * trace_marker write then trace_pipe read, poll(2) with data ready, and the
 * wake-up of a reader blocked in trace_pipe. Prints p50/avg/p99 in µs; n/a
 * (exit 0) where FUSE cannot mount.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trev/trev.h>

#include "bench_common.h"

#define ITERS 5000
#define WAKE_ITERS 500

static char mnt[] = "/tmp/trev-bench-fuse.XXXXXX";
static char path_buf[256];
static double samples[ITERS];

static const char *mpath(const char *rel)
{
	snprintf(path_buf, sizeof(path_buf), "%s/%s", mnt, rel);
	return path_buf;
}

static void report(const char *what, double *v, int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += v[i];
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	printf("%-44s %8.1f %8.1f %8.1f\n", what, v[n / 2], sum / n, v[n * 99 / 100]);
}

static void fuse_open_read_close(void)
{
	char buf[64];

	for (int i = 0; i < ITERS; i++) {
		uint64_t t = now_ns();
		int fd = open(mpath("tracing_on"), O_RDONLY);

		if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0)
			die("open/read tracing_on", errno);
		close(fd);
		samples[i] = (double)(now_ns() - t) / 1e3;
	}
	report("FUSE open+read+close tracing_on", samples, ITERS);
}

static void api_open_read_close(void)
{
	struct trev_file *f;
	char buf[64];

	for (int i = 0; i < ITERS; i++) {
		uint64_t t = now_ns();

		if (trev_file_open("tracing_on", O_RDONLY, &f) || trev_file_read(f, buf, sizeof(buf)) <= 0)
			die("trev_file_open/read", EIO);
		trev_file_close(f);
		samples[i] = (double)(now_ns() - t) / 1e3;
	}
	report("C API open+read+close tracing_on", samples, ITERS);
}

static void fuse_read_only(void)
{
	char buf[64];
	int fd = open(mpath("tracing_on"), O_RDONLY);

	if (fd < 0)
		die("open tracing_on", errno);
	for (int i = 0; i < ITERS; i++) {
		uint64_t t = now_ns();

		if (read(fd, buf, sizeof(buf)) < 0)	/* at the end after the first: 0 */
			die("read", errno);
		samples[i] = (double)(now_ns() - t) / 1e3;
	}
	close(fd);
	report("FUSE read (one READ round trip)", samples, ITERS);
}

static void fuse_trunc_write_close(void)
{
	for (int i = 0; i < ITERS; i++) {
		uint64_t t = now_ns();
		int fd = open(mpath("tracing_on"), O_WRONLY | O_TRUNC);

		if (fd < 0 || write(fd, "1\n", 2) != 2)
			die("open/write tracing_on", errno);
		close(fd);
		samples[i] = (double)(now_ns() - t) / 1e3;
	}
	report("FUSE open(O_TRUNC)+write+close tracing_on", samples, ITERS);
}

static void fuse_marker_pipe(void)
{
	int wfd = open(mpath("trace_marker"), O_WRONLY);
	int rfd = open(mpath("trace_pipe"), O_RDONLY);
	struct pollfd p = { .fd = rfd, .events = POLLIN };
	char buf[4096];

	if (wfd < 0 || rfd < 0)
		die("open trace_marker/trace_pipe", errno);
	for (int i = 0; i < ITERS; i++) {
		uint64_t t = now_ns();

		if (write(wfd, "hello\n", 6) != 6 || read(rfd, buf, sizeof(buf)) <= 0)
			die("marker/pipe", errno);
		samples[i] = (double)(now_ns() - t) / 1e3;
	}
	report("FUSE write trace_marker + read trace_pipe", samples, ITERS);
	for (int i = 0; i < ITERS; i++) {
		if (write(wfd, "hello\n", 6) != 6)
			die("marker", errno);
		uint64_t t = now_ns();

		if (poll(&p, 1, 1000) != 1)
			die("poll", ETIMEDOUT);
		samples[i] = (double)(now_ns() - t) / 1e3;
		if (read(rfd, buf, sizeof(buf)) <= 0)
			die("pipe", errno);
	}
	report("FUSE poll(trace_pipe), data ready", samples, ITERS);
	close(wfd);
	close(rfd);
}

static _Atomic uint64_t wake_sent;
static _Atomic int wake_done;		/* lines the blocked reader has received */

static void *blocked_reader(void *arg)
{
	double *v = arg;
	int rfd = open(mpath("trace_pipe"), O_RDONLY);
	char buf[4096];

	if (rfd < 0)
		die("open trace_pipe", errno);
	for (int i = 0; i < WAKE_ITERS; i++) {
		if (read(rfd, buf, sizeof(buf)) <= 0)
			die("blocked read", errno);
		v[i] = (double)(now_ns() - atomic_load(&wake_sent)) / 1e3;
		atomic_store(&wake_done, i + 1);
	}
	close(rfd);
	return NULL;
}

/* A reader blocked in trace_pipe (its READ parked on a waiter), then one marker line. */
static void fuse_blocked_wake(void)
{
	static double v[WAKE_ITERS];
	pthread_t t;

	pthread_create(&t, NULL, blocked_reader, v);
	for (int i = 0; i < WAKE_ITERS; i++) {
		while (atomic_load(&wake_done) < i)
			usleep(100);	/* one line per read: the last one was taken */
		usleep(2000);		/* let the reader block again */
		atomic_store(&wake_sent, now_ns());
		if (trev_write("trace_marker", "wake\n"))
			die("trev_write trace_marker", EIO);
	}
	pthread_join(t, NULL);
	report("FUSE marker -> blocked trace_pipe read returns", v, WAKE_ITERS);
}

int main(void)
{
	int ret;

	if (!mkdtemp(mnt))
		die("mkdtemp", errno);
	ret = trev_mount(mnt);
	if (ret) {
		printf("bench_fuse: n/a: trev_mount: %s\n", strerror(-ret));
		rmdir(mnt);
		return 0;
	}
	trev_write("tracing_on", "1");
	printf("%-44s %8s %8s %8s\n", "µs, served by this process", "p50", "avg", "p99");
	api_open_read_close();
	fuse_open_read_close();
	fuse_read_only();
	fuse_trunc_write_close();
	fuse_marker_pipe();
	fuse_blocked_wake();
	trev_unmount();
	rmdir(mnt);
	return 0;
}
