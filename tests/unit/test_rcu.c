/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev's RCU (src/base/rcu.c, docs/rcu.md): a grace period waits for a
 * section that began before it; readers that race updaters never see a
 * freed object; sections nest in signal handlers; a forked child's grace
 * periods do not wait for its parent's other threads; a thread's reader is
 * freed when the thread ends; a grace period inside a section stops the
 * process with a message. Run twice by ctest: with readers of trev's own,
 * and with TREV_RCU=bp, where every section is liburcu-bp's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <trev/rcu.h>

#include "base/rcu.h"

/* Waits for a condition end a test that already failed; never a pass. */
#define WAIT_LIMIT_S	120

static void wait_until(_Atomic int *flag, int value)
{
	time_t end = time(NULL) + WAIT_LIMIT_S;

	while (atomic_load(flag) != value) {
		if (time(NULL) > end)
			fail_msg("condition not reached in %d s", WAIT_LIMIT_S);
		sched_yield();
	}
}

/* A helper thread's wait: the main thread always sets @flag in the end. */
static void thread_wait(_Atomic int *flag)
{
	while (!atomic_load(flag))
		sched_yield();
}

/* ---- a grace period waits for a section that began before it ---- */

static _Atomic int gp_in, gp_go, gp_left, gp_synced;

static void *gp_reader(void *arg)
{
	struct trev_rcu_section s = trev_rcu_read_lock();

	(void)arg;
	atomic_store(&gp_in, 1);
	thread_wait(&gp_go);
	atomic_store(&gp_left, 1);
	trev_rcu_read_unlock(s);
	return NULL;
}

static void *gp_updater(void *arg)
{
	(void)arg;
	trev__rcu_synchronize();
	/* The reader said it left before its unlock: a grace period that
	 * returned before the unlock finds 0 here. */
	assert_int_equal(atomic_load(&gp_left), 1);
	atomic_store(&gp_synced, 1);
	return NULL;
}

static void test_gp_waits_for_reader(void **state)
{
	pthread_t r, u;
	unsigned long waits = trev__rcu_waits();
	time_t end = time(NULL) + WAIT_LIMIT_S;

	(void)state;
	if (!trev__rcu_own_readers())
		skip();	/* liburcu-bp's grace period: its own tests */
	assert_int_equal(pthread_create(&r, NULL, gp_reader, NULL), 0);
	wait_until(&gp_in, 1);
	assert_int_equal(pthread_create(&u, NULL, gp_updater, NULL), 0);
	/* Let the reader go only once the grace period is seen waiting for it. */
	while (trev__rcu_waits() == waits) {
		if (time(NULL) > end) {
			atomic_store(&gp_go, 1);
			fail_msg("the grace period never waited for the reader");
		}
		sched_yield();
	}
	assert_int_equal(atomic_load(&gp_synced), 0);
	atomic_store(&gp_go, 1);
	pthread_join(r, NULL);
	pthread_join(u, NULL);
	assert_int_equal(atomic_load(&gp_synced), 1);
}

/* ---- readers against an updater that frees what it replaces ---- */

#define OBJ_ALIVE	0x600dULL
#define OBJ_DEAD	0xdeadULL
#define NR_READERS	3
#ifdef TREV_TSAN
#define NR_UPDATES	50
#else
#define NR_UPDATES	500
#endif

struct obj {
	_Atomic uint64_t magic;
	uint64_t gen;
};

static struct obj *_Atomic shared;
static _Atomic int torture_stop;
static _Atomic unsigned long torture_bad, torture_reads;

static void *torture_reader(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&torture_stop, memory_order_relaxed)) {
		struct trev_rcu_section s = trev_rcu_read_lock();
		struct obj *o = atomic_load_explicit(&shared, memory_order_acquire);

		for (int i = 0; i < 20; i++)
			if (atomic_load_explicit(&o->magic, memory_order_relaxed) != OBJ_ALIVE)
				atomic_fetch_add(&torture_bad, 1);
		trev_rcu_read_unlock(s);
		atomic_fetch_add_explicit(&torture_reads, 1, memory_order_relaxed);
	}
	return NULL;
}

static struct obj *obj_new(uint64_t gen)
{
	struct obj *o = malloc(sizeof(*o));

	assert_non_null(o);
	atomic_init(&o->magic, OBJ_ALIVE);
	o->gen = gen;
	return o;
}

static void test_torture(void **state)
{
	pthread_t r[NR_READERS];

	/* liburcu-bp's grace period sleeps 10 ms at a time while readers run. */
	uint64_t updates = trev__rcu_own_readers() ? NR_UPDATES : NR_UPDATES / 10;

	(void)state;
	atomic_store(&shared, obj_new(0));
	for (int i = 0; i < NR_READERS; i++)
		assert_int_equal(pthread_create(&r[i], NULL, torture_reader, NULL), 0);
	for (uint64_t g = 1; g <= updates; g++) {
		unsigned long reads = atomic_load(&torture_reads);
		time_t end = time(NULL) + WAIT_LIMIT_S;
		struct obj *old;

		/* Each update meets readers: one section at least ended since the last. */
		while (atomic_load(&torture_reads) == reads) {
			if (time(NULL) > end) {
				atomic_store(&torture_stop, 1);
				fail_msg("the readers made no progress");
			}
			sched_yield();
		}
		old = atomic_exchange(&shared, obj_new(g));

		trev__rcu_synchronize();
		/* No reader can hold it now: poison it where they would look. */
		atomic_store(&old->magic, OBJ_DEAD);
		free(old);
	}
	atomic_store(&torture_stop, 1);
	for (int i = 0; i < NR_READERS; i++)
		pthread_join(r[i], NULL);
	assert_int_equal(atomic_load(&torture_bad), 0);
	assert_true(atomic_load(&torture_reads) >= updates);
	free(atomic_load(&shared));
}

/* ---- sections nest in a signal handler ---- */

static _Atomic int sig_seen;

static void sig_section(int sig)
{
	struct trev_rcu_section s = trev_rcu_read_lock();

	(void)sig;
	atomic_fetch_add(&sig_seen, 1);
	trev_rcu_read_unlock(s);
}

static void test_signal_nesting(void **state)
{
	struct sigaction sa = { .sa_handler = sig_section };

	(void)state;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);
	for (int i = 0; i < 1000; i++) {
		struct trev_rcu_section s = trev_rcu_read_lock();

		raise(SIGUSR1);	/* delivered before raise() returns */
		trev_rcu_read_unlock(s);
	}
	assert_int_equal(atomic_load(&sig_seen), 1000);
	/* Every section left: a grace period from here has nothing to wait for. */
	if (trev__rcu_own_readers()) {
		assert_int_equal(trev__rcu_me->cnt[0], 0);
		assert_int_equal(trev__rcu_me->cnt[1], 0);
	}
	trev__rcu_synchronize();
}

/* ---- fork: the child's grace period does not wait for the parent's readers ---- */

static _Atomic int fork_in, fork_go;

static void *fork_reader(void *arg)
{
	struct trev_rcu_section s = trev_rcu_read_lock();

	(void)arg;
	atomic_store(&fork_in, 1);
	thread_wait(&fork_go);
	trev_rcu_read_unlock(s);
	return NULL;
}

static void test_fork_child(void **state)
{
	pthread_t r;
	pid_t pid;
	int status;

	(void)state;
	assert_int_equal(pthread_create(&r, NULL, fork_reader, NULL), 0);
	wait_until(&fork_in, 1);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* The reader thread is not in the child: nothing to wait for.
		 * A child that waited for it would be killed by the alarm. */
		struct trev_rcu_section s;

		alarm(WAIT_LIMIT_S);
		trev__rcu_synchronize();
		s = trev_rcu_read_lock();
		trev_rcu_read_unlock(s);
		trev__rcu_synchronize();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	atomic_store(&fork_go, 1);
	pthread_join(r, NULL);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* ---- a thread's reader is freed when the thread ends ---- */

static void *one_section(void *arg)
{
	struct trev_rcu_section s = trev_rcu_read_lock();

	(void)arg;
	trev_rcu_read_unlock(s);
	return NULL;
}

static void test_thread_exit_frees(void **state)
{
	unsigned int before;

	(void)state;
	if (!trev__rcu_own_readers())
		skip();
	before = trev__rcu_readers_held();
	for (int i = 0; i < 200; i++) {
		pthread_t t;

		assert_int_equal(pthread_create(&t, NULL, one_section, NULL), 0);
		pthread_join(t, NULL);
	}
	/* Joined threads ran their key destructors: none kept a reader. */
	assert_int_equal(trev__rcu_readers_held(), before);
}

/* ---- a grace period inside a section: a message and a stop, not a hang ---- */

static void test_gp_inside_section(void **state)
{
	int fds[2], status;
	char buf[256] = "";
	ssize_t n;
	pid_t pid;

	(void)state;
	if (!trev__rcu_own_readers())
		skip();
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct trev_rcu_section s;

		dup2(fds[1], 2);
		alarm(WAIT_LIMIT_S);
		s = trev_rcu_read_lock();
		trev__rcu_synchronize();
		trev_rcu_read_unlock(s);
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	assert_true(n > 0);
	assert_non_null(strstr(buf, "grace period was asked for inside a read section"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gp_waits_for_reader),
		cmocka_unit_test(test_torture),
		cmocka_unit_test(test_signal_nesting),
		cmocka_unit_test(test_fork_child),
		cmocka_unit_test(test_thread_exit_frees),
		cmocka_unit_test(test_gp_inside_section),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
