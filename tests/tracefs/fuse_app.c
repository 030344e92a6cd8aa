/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The program tests/scripts/tracefs_fuse.sh drives: trev_mount(DIR), then
 * trev_test:tt_ints (a=i b=2i c=-i) fired every MS milliseconds from a
 * thread, until a signal ends the process. Leaves every signal's action as
 * it found it, so that SIGTERM meets trev's unmount-and-re-raise handler.
 *
 *	fuse_app DIR [MS [selfread]]	prints "mounted" or "mount <errno text>"
 *
 * selfread: a thread of the program also reads DIR/trace_pipe (a process
 * reading its own mount must still die of SIGTERM).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static unsigned int period_ms = 20;

static void *emitter(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "emitter");
	for (int i = 0;; i++) {
		trace_tt_ints(i, 2U * (unsigned int)i, -i);
		usleep(period_ms * 1000);
	}
	return NULL;
}

static void *self_reader(void *arg)
{
	char buf[4096];
	int fd = open(arg, O_RDONLY);

	while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	static char pipe_path[4096];
	pthread_t thread;
	int ret;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR [MS]\n", argv[0]);
		return 2;
	}
	if (argc > 2)
		period_ms = (unsigned int)atoi(argv[2]);
	ret = trev_mount(argv[1]);
	if (ret) {
		printf("mount %s\n", strerror(-ret));
		return 1;
	}
	printf("mounted\n");
	fflush(stdout);
	if (pthread_create(&thread, NULL, emitter, NULL))
		return 1;
	if (argc > 3 && strcmp(argv[3], "selfread") == 0) {
		snprintf(pipe_path, sizeof(pipe_path), "%s/trace_pipe", argv[1]);
		if (pthread_create(&thread, NULL, self_reader, pipe_path))
			return 1;
	}
	for (;;)
		pause();
}
