/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The program tests/scripts/control_attach.sh attaches to: trev_test:tt_ints
 * (a=i b=2i c=-i) fired every MS milliseconds from a thread named
 * "emitter", until a signal ends the process.
 *
 *	ctl_app [MS [fork]]	prints "ready PID" (and "child PID" with fork:
 *				a forked child that does the same)
 *
 * "ready" comes once the emitter thread has its name and the control socket
 * listens (the library's constructor, or for the child the fork handler,
 * binds it before the program runs on), so a script may attach at once.
 * SIGTERM ends it with exit(0), so its exit handlers run.
 */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <trev/trev.h>

#include "control/control.h"

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
static sem_t named;		/* posted once the emitter has its name */

/* SIGTERM is blocked in every thread and taken here, so exit() runs its handlers. */
static void wait_for_term(const sigset_t *term)
{
	int sig;

	while (sigwait(term, &sig) != 0)
		;
	exit(0);
}

static void *emitter(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "emitter");
	sem_post(&named);
	for (int i = 0;; i++) {
		trace_tt_ints(i, 2U * (unsigned int)i, -i);
		usleep(period_ms * 1000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	sigset_t term;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, NULL);	/* before any thread exists */
	if (argc > 1)
		period_ms = (unsigned int)atoi(argv[1]);
	if (argc > 2 && strcmp(argv[2], "fork") == 0) {
		pid_t child = fork();

		if (child < 0)
			return 1;
		if (child == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);	/* never outlive the test */
			char path[256];

			printf("child %d %s\n", (int)getpid(),
			       trev__control_path(path, sizeof(path)) > 0 ? "socket" : "nosocket");
			fflush(stdout);
			wait_for_term(&term);
		}
	}
	sem_init(&named, 0, 0);
	pthread_create(&t, NULL, emitter, NULL);
	while (sem_wait(&named) != 0)
		;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	wait_for_term(&term);
}
