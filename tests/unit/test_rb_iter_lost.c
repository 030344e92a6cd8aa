/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The non-consuming iterator (`trace`) reports every event it skips: threads
 * flood 8 KB buffers in overwrite mode while the iterator walks them again
 * and again, so writers lap it, past its snapshot's end too. Nothing is
 * consumed, so for each thread the events shown and the losses reported
 * before them must account for every event from its first one on: each
 * event's sequence number is the previous one's + 1 + ev.lost, and the last
 * one shown is at least the last one the thread had committed when the
 * walk started (it was in the snapshot, so it is shown or counted lost
 * before a later event).
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <trev/ring_buffer.h>

#define NR_WRITERS	4
#define NR_WALKS	400

struct writer {
	struct trev_rb *rb;
	uint32_t id;
	_Atomic uint64_t committed;	/* events committed so far */
};

static atomic_int stop;

/* Events of (writer id, sequence number), as fast as it can. */
static void *flood(void *arg)
{
	struct writer *w = arg;

	for (uint64_t seq = 0; !atomic_load_explicit(&stop, memory_order_relaxed); seq++) {
		uint8_t *p = trev_rb_reserve(w->rb, 12);

		assert_non_null(p);
		memcpy(p, &w->id, 4);
		memcpy(p + 4, &seq, 8);
		trev_rb_commit(w->rb, p);
		atomic_store_explicit(&w->committed, seq + 1, memory_order_release);
	}
	return NULL;
}

/* One walk: every gap covered by the losses reported before it. */
static void walk(struct trev_rb *rb, struct writer *w, unsigned int round)
{
	uint64_t before[NR_WRITERS], next[NR_WRITERS] = { 0 };
	int shown[NR_WRITERS] = { 0 };
	struct trev_rb_event ev;
	struct trev_rb_iter *it;
	int ret;

	for (int i = 0; i < NR_WRITERS; i++)
		before[i] = atomic_load_explicit(&w[i].committed, memory_order_acquire);
	it = trev_rb_iter_start(rb);
	assert_non_null(it);
	while ((ret = trev_rb_iter_next(it, &ev)) == 1) {
		uint32_t id;
		uint64_t seq;

		assert_int_equal(ev.len, 12);
		memcpy(&id, ev.data, 4);
		memcpy(&seq, (const uint8_t *)ev.data + 4, 8);
		assert_true(id < NR_WRITERS);
		if (seq != next[id] + ev.lost)
			fail_msg("walk %u, writer %u: seq %llu after %llu, with %llu reported lost",
				 round, id, (unsigned long long)seq,
				 (unsigned long long)next[id], (unsigned long long)ev.lost);
		next[id] = seq + 1;
		shown[id] = 1;
	}
	assert_int_equal(ret, 0);
	trev_rb_iter_finish(it);
	for (int i = 0; i < NR_WRITERS; i++)
		if (next[i] < before[i])
			fail_msg("walk %u, writer %d: %llu events committed before the walk, "
				 "%llu shown or reported lost%s", round, i,
				 (unsigned long long)before[i], (unsigned long long)next[i],
				 shown[i] ? "" : " (none shown)");
}

static void test_iter_lapped(void **state)
{
	struct trev_rb_options o = { .size_kb = 8, .overwrite = 1, .clock = -1 };
	struct writer w[NR_WRITERS];
	pthread_t t[NR_WRITERS];
	struct trev_rb *rb;

	(void)state;
	assert_int_equal(trev_rb_create(&rb, &o), 0);
	atomic_store(&stop, 0);
	for (uint32_t i = 0; i < NR_WRITERS; i++) {
		w[i].rb = rb;
		w[i].id = i;
		atomic_init(&w[i].committed, 0);
		assert_int_equal(pthread_create(&t[i], NULL, flood, &w[i]), 0);
	}
	/* Every writer has lapped its buffer before the first walk. */
	for (int i = 0; i < NR_WRITERS; i++)
		while (atomic_load(&w[i].committed) < 4096)
			sched_yield();
	for (unsigned int round = 0; round < NR_WALKS; round++)
		walk(rb, w, round);
	atomic_store(&stop, 1);
	for (int i = 0; i < NR_WRITERS; i++)
		pthread_join(t[i], NULL);
	walk(rb, w, NR_WALKS);	/* and once at rest */
	trev_rb_destroy(rb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iter_lapped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
