// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The program whose tracefs tree the kernel's ftracetest runs against (ftracetest.sh): the
 * kernel's own sched, irq, timer, kmem and signal event headers compiled with trev (the two
 * include lines changed, tests/kernel_headers/'s stand-ins), and every one of their events
 * fired from a thread named "ft-events" every millisecond, as the kernel fires them all the
 * time, until SIGTERM.
 *
 *	ft_target	prints "ready PID" once the thread runs and the control socket listens
 *
 * SIGTERM ends it with exit(0), so the library's exit handlers run.
 */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <trev/trev.h>

/* One per header, from gen_fire.py's kh_fire_all() renamed (ftracetest.sh). */
void ft_fire_sched(void);
void ft_fire_irq(void);
void ft_fire_timer(void);
void ft_fire_kmem(void);
void ft_fire_signal(void);

static sem_t running;		/* posted once the thread has its name */

static void *ft_events(void *arg)
{
	const struct timespec ms = { 0, 1000000 };

	(void)arg;
	pthread_setname_np(pthread_self(), "ft-events");
	sem_post(&running);
	for (;;) {
		ft_fire_sched();
		ft_fire_irq();
		ft_fire_timer();
		ft_fire_kmem();
		ft_fire_signal();
		nanosleep(&ms, NULL);
	}
	return NULL;
}

int main(void)
{
	pthread_t thread;
	sigset_t term;
	int sig;

	/* SIGTERM blocked in every thread and taken here, so exit() runs its handlers. */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, NULL);
	/* The library's start-up (and with it the control socket) before "ready". */
	if (trev_write("tracing_on", "1")) {
		fprintf(stderr, "ft_target: tracing_on: cannot write\n");
		return 1;
	}
	sem_init(&running, 0, 0);
	if (pthread_create(&thread, NULL, ft_events, NULL)) {
		fprintf(stderr, "ft_target: cannot start the event thread\n");
		return 1;
	}
	while (sem_wait(&running))
		;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (sigwait(&term, &sig))
		;
	return 0;
}
