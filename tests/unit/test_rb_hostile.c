/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A reader of another process's region (trev_rb_attach()) cannot be kept
 * waiting by that process (issue 31): a hostile thread keeps changing the
 * words that name a write in flight (nesting set, next_entry, lost_total),
 * flips the generation of the buffer the reader takes events from and a
 * committed count, without ever committing, while every read call of the
 * attached buffer is made again and again. The test's sched_yield(), which
 * the reader calls while it waits for a write, changes the write too, so
 * every look of the reader sees a new one whatever the scheduling. Each
 * call must return; the guard (alarm(), 60 s) fires only if one hangs.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include <trev/ring_buffer.h>

#include "ring_buffer/rb_internal.h"

#define NR_EVENTS	64	/* written by the test's thread, before the hostility */
#define NR_CALLS	4	/* of each read call */

struct hostile {
	struct trev_rb *rb;
	struct rb_desc *victim;	/* the test thread's buffer: its gen flips */
	struct rb_desc *own;	/* the hostile thread's buffer */
	atomic_int ready, stop;
	atomic_int flip_gen;	/* the victim's gen flips too */
	_Atomic uint64_t flips;	/* rounds of changes made */
};

static struct hostile *churning;	/* sched_yield() changes its write too */

/*
 * The reader yields while it waits for a write in flight (rb_read.c); this
 * one, linked before the C library's, changes the write each time first, so
 * that every look sees another write, however the threads are scheduled.
 */
int sched_yield(void)
{
	struct hostile *h = __atomic_load_n(&churning, __ATOMIC_ACQUIRE);

	if (h && h->own) {
		uint64_t k = atomic_fetch_add(&h->own->lost_total, 1) + 1;

		__atomic_store_n(&h->own->next_entry, k, __ATOMIC_RELAXED);
	}
	return (int)syscall(SYS_sched_yield);
}

static void on_alarm(int sig)
{
	static const char msg[] = "test_rb_hostile: a read call of the attached buffer hangs\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

/* A read call's answer: an event or page, nothing, or a negative errno. */
static void returned(int ret)
{
	if (ret < -4095 || ret > 1)
		fail_msg("a read call returned %d", ret);
}

static struct rb_desc *desc_of(struct trev_rb *rb, pid_t tid)
{
	for (uint32_t i = 0; i < RB_MAX_BUFFERS; i++)
		if (atomic_load(&rb->descs[i].state) == RB_DESC_LIVE && rb->descs[i].tid == tid)
			return &rb->descs[i];
	return NULL;
}

static void *hostile_main(void *arg)
{
	struct hostile *h = arg;
	uint64_t gen, committed;
	uint32_t *p = trev_rb_reserve(h->rb, 4);

	assert_non_null(p);
	*p = 0xbad;
	trev_rb_commit(h->rb, p);
	h->own = desc_of(h->rb, (pid_t)syscall(SYS_gettid));
	assert_non_null(h->own);
	atomic_store(&h->ready, 1);
	while (atomic_load(&h->ready) != 2)
		sched_yield();
	gen = atomic_load(&h->victim->gen);
	committed = atomic_load(&h->own->committed);
	/* A write in flight for ever, each time another one; never a commit. */
	atomic_store(&h->own->nesting, 1);
	for (uint64_t k = 1; !atomic_load_explicit(&h->stop, memory_order_relaxed); k++) {
		__atomic_store_n(&h->own->next_entry, k, __ATOMIC_RELAXED);
		atomic_store(&h->own->lost_total, k);
		if (atomic_load_explicit(&h->flip_gen, memory_order_relaxed))
			atomic_store(&h->victim->gen, gen + (k & 1));
		atomic_store(&h->own->committed, committed + 1);
		atomic_store(&h->own->committed, committed);
		atomic_store_explicit(&h->flips, k, memory_order_relaxed);
	}
	atomic_store(&h->victim->gen, gen);
	atomic_store(&h->own->nesting, 0);
	return NULL;
}

/* Every read call of the attached buffer, NR_CALLS times, while @h's thread changes words. */
static void hostile_reads(int flip_gen)
{
	struct trev_rb_options o = { .size_kb = 16, .clock = -1 };
	static uint8_t page[RB_PAGE_SIZE];
	struct hostile h = { 0 };
	struct trev_rb_event ev;
	struct trev_rb *rb, *att;
	pthread_t t;
	int cpu, nr_cpus;

	atomic_store(&h.flip_gen, flip_gen);
	signal(SIGALRM, on_alarm);
	alarm(60);
	assert_int_equal(trev_rb_create(&rb, &o), 0);
	h.rb = rb;
	assert_int_equal(pthread_create(&t, NULL, hostile_main, &h), 0);
	while (!atomic_load(&h.ready))
		sched_yield();
	for (uint32_t i = 0; i < NR_EVENTS; i++) {
		uint32_t *p = trev_rb_reserve(rb, 4);

		assert_non_null(p);
		*p = i;
		trev_rb_commit(rb, p);
	}
	h.victim = desc_of(rb, (pid_t)syscall(SYS_gettid));
	assert_non_null(h.victim);
	assert_int_equal(trev_rb_lend_consumer(rb), 0);
	assert_int_equal(trev_rb_attach(&att, trev_rb_memfd(rb)), 0);
	nr_cpus = trev_rb_nr_cpus(att);
	atomic_store(&h.ready, 2);
	while (atomic_load(&h.flips) < 1000)
		sched_yield();
	__atomic_store_n(&churning, &h, __ATOMIC_RELEASE);

	/* Each returns: an event or a page (of whatever the region says), nothing, or an error. */
	for (int i = 0; i < NR_CALLS; i++) {
		returned(trev_rb_consume(att, &ev, 0));
		returned(trev_rb_read_page_any(att, page, &cpu, 0));
		returned(trev_rb_read_page_any(att, page, &cpu, TREV_RB_READ_FULL));
		for (int c = 0; c < nr_cpus; c++) {
			returned(trev_rb_read_page_cpu_flags(att, c, page, 0));
			returned(trev_rb_read_page_cpu_flags(att, c, page, TREV_RB_READ_FULL));
			returned(trev_rb_consume_cpu(att, c, &ev, 0));
			returned(trev_rb_wait_cpu(att, c, 0));
		}
		returned(trev_rb_wait(att, 0));
	}

	__atomic_store_n(&churning, NULL, __ATOMIC_RELEASE);
	atomic_store(&h.stop, 1);
	pthread_join(t, NULL);
	trev_rb_destroy(att);
	assert_int_equal(trev_rb_return_consumer(rb), 0);
	trev_rb_destroy(rb);
	alarm(0);
}

/* The words that name a write in flight change all the time. */
static void test_write_churn(void **state)
{
	(void)state;
	hostile_reads(0);
}

/* And the generation of the buffer the events are in flips. */
static void test_gen_flips(void **state)
{
	(void)state;
	hostile_reads(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_churn),
		cmocka_unit_test(test_gen_flips),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
