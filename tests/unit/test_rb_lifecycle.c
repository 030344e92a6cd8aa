/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Ring buffer lifecycle: thread exit, fork, resize, mode changes, reset,
 * tracing on/off, the memory cap, the iterator, blocking reads and nesting.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <trev/ring_buffer.h>

#include "ring_buffer/rb_internal.h"	/* RB_MAX_NEST */
#include "wait_blocked.h"

#ifdef TREV_TSAN
#define SCALE		4	/* ThreadSanitizer runs several times slower */
#else
#define SCALE		1
#endif

/*
 * Payload of every event here, 16 bytes (or more, zero-padded):
 *   OFFSET  SIZE  MEANING
 *   0       4     EV_MAGIC
 *   4       4     tag: which writer
 *   8       4     sequence number
 *   12      4     ~sequence number
 */
#define EV_MAGIC	0x7472ee01u
#define EV_LEN		16u
#define TAG_MAIN	0x4d41494eu	/* "MAIN" */
#define TAG_PARENT	0x50415245u
#define TAG_CHILD	0x4348494cu
#define TAG_OTHER	0x4f544852u	/* "OTHR" */
#define TAG_STREAM	0x53545245u
#define TAG_SENTINEL	0x53454e54u

static void ev_build(void *buf, uint32_t len, uint32_t tag, uint32_t seq)
{
	uint32_t w[4] = { EV_MAGIC, tag, seq, ~seq };

	memset(buf, 0, len);
	memcpy(buf, w, sizeof(w));
}

/* Return: 0 if @ev carries a well-formed payload; its tag and seq. */
static int ev_parse(const struct trev_rb_event *ev, uint32_t *tag, uint32_t *seq)
{
	uint32_t w[4];

	if (ev->len < EV_LEN)
		return -1;
	memcpy(w, ev->data, sizeof(w));
	if (w[0] != EV_MAGIC || w[3] != ~w[2])
		return -1;
	*tag = w[1];
	*seq = w[2];
	return 0;
}

static int ev_write(struct trev_rb *rb, uint32_t tag, uint32_t seq)
{
	uint8_t buf[EV_LEN];

	ev_build(buf, sizeof(buf), tag, seq);
	return trev_rb_write(rb, buf, sizeof(buf));
}

/* Consume one event (cmocka asserts) and check its tag and seq. */
static void expect_event(struct trev_rb *rb, uint32_t tag, uint32_t seq, struct trev_rb_event *ev)
{
	uint32_t t, s;

	assert_int_equal(trev_rb_consume(rb, ev, 0), 1);
	assert_int_equal(ev_parse(ev, &t, &s), 0);
	assert_int_equal(t, tag);
	assert_int_equal(s, seq);
}

static struct trev_rb *make_rb(unsigned int size_kb, int overwrite, unsigned int cap_kb)
{
	struct trev_rb_options opts = {
		.size_kb = size_kb, .cap_kb = cap_kb, .overwrite = overwrite,
		.clock = TREV_CLOCK_MONO,
	};
	struct trev_rb *rb = NULL;

	assert_int_equal(trev_rb_create(&rb, &opts), 0);
	assert_non_null(rb);
	return rb;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The ids of the buffers; asserts there are exactly @n. */
static void get_buffers(struct trev_rb *rb, unsigned int *ids, int n)
{
	unsigned int all[64];

	assert_int_equal(trev_rb_buffers(rb, all, 64), n);
	memcpy(ids, all, (size_t)n * sizeof(*ids));
}

/* Stats of the one buffer owned by @tid. */
static void stats_of_tid(struct trev_rb *rb, pid_t tid, struct trev_rb_stats *st)
{
	unsigned int ids[64];
	int n = trev_rb_buffers(rb, ids, 64), found = 0;

	assert_true(n >= 0 && n <= 64);
	for (int i = 0; i < n; i++) {
		struct trev_rb_stats s;

		assert_int_equal(trev_rb_buffer_stats(rb, ids[i], &s), 0);
		if (s.tid == tid) {
			*st = s;
			found++;
		}
	}
	assert_int_equal(found, 1);
}

/* ------------------------------------------------------------------ */
/* A helper thread: writes @n events, then optionally waits to exit.   */

struct helper {
	struct trev_rb *rb;
	pthread_t thread;
	uint32_t tag;
	unsigned int n;
	unsigned int accepted, refused;
	pid_t tid;
	int hold;		/* wait for may_exit before returning */
	sem_t written, may_exit;
};

static void *helper_main(void *arg)
{
	struct helper *h = arg;

	h->tid = gettid();
	for (unsigned int i = 0; i < h->n; i++) {
		if (ev_write(h->rb, h->tag, i) == 0)
			h->accepted++;
		else
			h->refused++;
	}
	sem_post(&h->written);
	if (h->hold)
		sem_wait(&h->may_exit);
	return NULL;
}

static void helper_start(struct helper *h, struct trev_rb *rb, uint32_t tag, unsigned int n,
			 int hold)
{
	memset(h, 0, sizeof(*h));
	h->rb = rb;
	h->tag = tag;
	h->n = n;
	h->hold = hold;
	assert_int_equal(sem_init(&h->written, 0, 0), 0);
	assert_int_equal(sem_init(&h->may_exit, 0, 0), 0);
	assert_int_equal(pthread_create(&h->thread, NULL, helper_main, h), 0);
	sem_wait(&h->written);	/* also orders h->tid and the counts */
}

static void helper_join(struct helper *h)
{
	if (h->hold)
		sem_post(&h->may_exit);
	assert_int_equal(pthread_join(h->thread, NULL), 0);
	sem_destroy(&h->written);
	sem_destroy(&h->may_exit);
}

/* ------------------------------------------------------------------ */
/* A streaming writer: writes until told to stop, then parks; released,  */
/* it writes one sentinel that carries any loss after its last read     */
/* event, and exits.                                                    */

struct stream {
	struct trev_rb *rb;
	pthread_t thread;
	uint32_t len;		/* payload bytes */
	int seq_on_success;	/* seq counts accepted events, not attempts */
	uint64_t max_accepted;	/* then idle (0: no limit) */
	atomic_int stop;
	_Atomic uint64_t attempts, accepted, refused;
	int sentinel_ret;
	pid_t tid;
	sem_t parked, release;
};

static void *stream_main(void *arg)
{
	struct stream *s = arg;
	uint8_t buf[256];

	s->tid = gettid();
	while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		uint64_t att = atomic_load_explicit(&s->attempts, memory_order_relaxed);
		uint64_t acc = atomic_load_explicit(&s->accepted, memory_order_relaxed);

		if (s->max_accepted && acc >= s->max_accepted) {
			sched_yield();
			continue;
		}
		ev_build(buf, s->len, TAG_STREAM, (uint32_t)(s->seq_on_success ? acc : att));
		if (trev_rb_write(s->rb, buf, s->len) == 0)
			atomic_store_explicit(&s->accepted, acc + 1, memory_order_release);
		else
			atomic_fetch_add_explicit(&s->refused, 1, memory_order_release);
		atomic_store_explicit(&s->attempts, att + 1, memory_order_release);
	}
	sem_post(&s->parked);
	sem_wait(&s->release);
	{
		uint64_t att = atomic_load(&s->attempts);

		ev_build(buf, s->len, TAG_SENTINEL,
			 (uint32_t)(s->seq_on_success ? atomic_load(&s->accepted) : att));
		s->sentinel_ret = trev_rb_write(s->rb, buf, s->len);
		atomic_store(&s->attempts, att + 1);
		if (s->sentinel_ret == 0)
			atomic_fetch_add(&s->accepted, 1);
		else
			atomic_fetch_add(&s->refused, 1);
	}
	return NULL;
}

static void stream_start(struct stream *s, struct trev_rb *rb, uint32_t len, int seq_on_success,
			 uint64_t max_accepted)
{
	memset(s, 0, sizeof(*s));
	s->rb = rb;
	s->len = len;
	s->seq_on_success = seq_on_success;
	s->max_accepted = max_accepted;
	assert_int_equal(sem_init(&s->parked, 0, 0), 0);
	assert_int_equal(sem_init(&s->release, 0, 0), 0);
	assert_int_equal(pthread_create(&s->thread, NULL, stream_main, s), 0);
}

/* Wait until the writer has made @n more attempts than @from; bounded. */
static int stream_wait_attempts(struct stream *s, uint64_t n)
{
	uint64_t from = atomic_load(&s->attempts), deadline = now_ns() + 10000000000ull * SCALE;

	while (atomic_load(&s->attempts) - from < n) {
		if (now_ns() > deadline)
			return -1;
		sched_yield();
	}
	return 0;
}

static void stream_park(struct stream *s)
{
	atomic_store(&s->stop, 1);
	sem_wait(&s->parked);
}

static void stream_finish(struct stream *s)
{
	sem_post(&s->release);
	assert_int_equal(pthread_join(s->thread, NULL), 0);
	sem_destroy(&s->parked);
	sem_destroy(&s->release);
}

/* What a reader saw of a stream, checked event by event. */
struct stream_seen {
	uint64_t read, lost, sentinels;
	int64_t last_seq;
	uint64_t last_ts;
	int exact_gaps;		/* ev.lost must equal the gap in seq */
	int bad;		/* first problem, or 0 */
	char why[160];
};

static void seen_init(struct stream_seen *v, int exact_gaps)
{
	memset(v, 0, sizeof(*v));
	v->last_seq = -1;
	v->exact_gaps = exact_gaps;
}

static void seen_event(struct stream_seen *v, const struct trev_rb_event *ev)
{
	uint32_t tag = 0, seq = 0;

	v->read++;
	v->lost += ev->lost;
	if (v->bad)
		return;
	if (ev_parse(ev, &tag, &seq) < 0 || (tag != TAG_STREAM && tag != TAG_SENTINEL)) {
		v->bad = 1;
		snprintf(v->why, sizeof(v->why), "event %llu: bad payload",
			 (unsigned long long)v->read);
	} else if ((int64_t)seq <= v->last_seq) {
		v->bad = 1;
		snprintf(v->why, sizeof(v->why), "seq %u after %lld", seq, (long long)v->last_seq);
	} else if (v->exact_gaps && ev->lost != (uint64_t)((int64_t)seq - v->last_seq - 1)) {
		v->bad = 1;
		snprintf(v->why, sizeof(v->why),
			 "seq %u after %lld: %lld events missing but ev.lost = %llu", seq,
			 (long long)v->last_seq, (long long)((int64_t)seq - v->last_seq - 1),
			 (unsigned long long)ev->lost);
	} else if (ev->ts < v->last_ts) {
		v->bad = 1;
		snprintf(v->why, sizeof(v->why), "ts went back");
	}
	if (tag == TAG_SENTINEL)
		v->sentinels++;
	v->last_seq = seq;
	v->last_ts = ev->ts;
}

static int drain(struct trev_rb *rb, struct stream_seen *v, unsigned int max)
{
	struct trev_rb_event ev;
	unsigned int n = 0;
	int ret = 0;

	while ((max == 0 || n < max) && (ret = trev_rb_consume(rb, &ev, 0)) == 1) {
		seen_event(v, &ev);
		n++;
	}
	return ret < 0 ? ret : (int)n;
}

/*
 * Park the stream, read everything, let it write its sentinel, read that:
 * then attempted == read + sum(ev.lost) and the stats must agree exactly.
 */
static void stream_settle_and_check(struct trev_rb *rb, struct stream *s, struct stream_seen *v,
				    struct trev_rb_stats *out)
{
	struct trev_rb_stats st;
	uint64_t att, acc, ref;

	stream_park(s);
	assert_true(drain(rb, v, 0) >= 0);
	stream_finish(s);
	assert_true(drain(rb, v, 0) >= 0);
	att = atomic_load(&s->attempts);
	acc = atomic_load(&s->accepted);
	ref = atomic_load(&s->refused);
	stats_of_tid(rb, s->tid, &st);
	print_message("  attempted %llu accepted %llu refused %llu read %llu sum(ev.lost) %llu | "
		      "written %llu dropped %llu overrun %llu commit_overrun %llu entries %llu\n",
		      (unsigned long long)att, (unsigned long long)acc, (unsigned long long)ref,
		      (unsigned long long)v->read, (unsigned long long)v->lost,
		      (unsigned long long)st.written, (unsigned long long)st.dropped_events,
		      (unsigned long long)st.overrun, (unsigned long long)st.commit_overrun,
		      (unsigned long long)st.entries);
	if (v->bad)
		fail_msg("%s", v->why);
	assert_int_equal(s->sentinel_ret, 0);
	assert_int_equal(v->sentinels, 1);
	assert_int_equal(att, acc + ref);
	assert_int_equal(st.written, acc);
	assert_int_equal(st.dropped_events + st.commit_overrun, ref);
	assert_int_equal(st.read_events, v->read);
	assert_int_equal(st.entries, 0);
	assert_int_equal(st.dropped_events + st.commit_overrun + st.overrun, att - v->read);
	assert_int_equal(att, v->read + v->lost);
	if (out)
		*out = st;
}

/* ------------------------------------------------------------------ */
/* Tests                                                                */

/* A thread writes and exits: its data stays until read (discard mode). */
static void test_thread_exit(void **state)
{
	struct trev_rb *rb = make_rb(64, 0, 0);
	struct trev_rb_stats st;
	struct trev_rb_event ev;
	struct helper h;
	unsigned int id;

	(void)state;
	helper_start(&h, rb, TAG_STREAM, 100, 0);
	helper_join(&h);
	assert_int_equal(h.accepted, 100);

	get_buffers(rb, &id, 1);
	assert_int_equal(trev_rb_buffer_stats(rb, id, &st), 0);
	assert_int_equal(st.alive, 0);
	assert_int_equal(st.tid, h.tid);
	assert_int_equal(st.written, 100);
	assert_int_equal(st.entries, 100);
	assert_int_equal(st.dropped_events, 0);
	assert_int_equal(st.read_events, 0);

	for (uint32_t i = 0; i < 100; i++) {
		expect_event(rb, TAG_STREAM, i, &ev);
		assert_int_equal(ev.tid, h.tid);
		assert_int_equal(ev.buffer, id);
		assert_int_equal(ev.lost, 0);
	}
	assert_int_equal(trev_rb_consume(rb, &ev, 0), 0);
	assert_int_equal(trev_rb_buffer_stats(rb, id, &st), 0);
	assert_int_equal(st.entries, 0);
	assert_int_equal(st.read_events, 100);
	trev_rb_destroy(rb);
}

/* A thread renamed after its first event: its name at its exit. */
static void *rename_writer(void *arg)
{
	struct trev_rb *rb = arg;
	uint8_t buf[16];

	pthread_setname_np(pthread_self(), "before");
	ev_build(buf, sizeof(buf), TAG_STREAM, 0);
	if (trev_rb_write(rb, buf, sizeof(buf)))
		return NULL;
	pthread_setname_np(pthread_self(), "after");
	return rb;
}

/* A dead thread's buffer shows the name the thread ended with, as the kernel shows a
 * task's last recorded comm. */
static void test_thread_exit_name(void **state)
{
	struct trev_rb *rb = make_rb(64, 0, 0);
	struct trev_rb_stats st;
	pthread_t t;
	unsigned int id;
	char comm[16];
	void *ret;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, rename_writer, rb), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_ptr_equal(ret, rb);
	get_buffers(rb, &id, 1);
	assert_int_equal(trev_rb_buffer_comm(rb, id, comm), 0);
	assert_string_equal(comm, "after");
	assert_int_equal(trev_rb_buffer_stats(rb, id, &st), 0);
	assert_string_equal(st.comm, "after");
	trev_rb_destroy(rb);
}

/* Exit codes of the child in test_fork. */
enum {
	CHILD_OK,
	CHILD_SETTINGS = 10,
	CHILD_WRITE,
	CHILD_BUFFERS,
	CHILD_SHORT,
	CHILD_PAYLOAD,
	CHILD_EXTRA,
	CHILD_STATS,
	CHILD_BUSY,
};

/* In the child of fork(): no cmocka, only an exit code. */
static int child_body(struct trev_rb *rb, unsigned int size_kb)
{
	struct trev_rb_event ev;
	struct trev_rb_stats st;
	unsigned int ids[8];
	uint32_t tag, seq;

	if (trev_rb_overwrite(rb) != 1 || trev_rb_size_kb(rb) != size_kb)
		return CHILD_SETTINGS;
	/* The parent's other writers do not exist here: only our busy word is taken. */
	if (trev__rb_busy_taken() != 1)
		return CHILD_BUSY;
	for (uint32_t i = 0; i < 5; i++)
		if (ev_write(rb, TAG_CHILD, i) != 0)
			return CHILD_WRITE;
	if (trev_rb_buffers(rb, ids, 8) != 1)
		return CHILD_BUFFERS;
	for (uint32_t i = 0; i < 5; i++) {
		if (trev_rb_consume(rb, &ev, 0) != 1)
			return CHILD_SHORT;
		if (ev_parse(&ev, &tag, &seq) < 0 || tag != TAG_CHILD || seq != i ||
		    ev.tid != getpid() || ev.lost != 0)
			return CHILD_PAYLOAD;
	}
	if (trev_rb_consume(rb, &ev, 0) != 0)
		return CHILD_EXTRA;
	if (trev_rb_buffer_stats(rb, ids[0], &st) != 0 || st.written != 5 || st.read_events != 5 ||
	    st.dropped_events != 0 || st.tid != getpid())
		return CHILD_STATS;
	return CHILD_OK;
}

/* A parent's writer that stays alive, holding its busy word, across the fork. */
struct fork_writer {
	struct trev_rb *rb;
	pthread_barrier_t wrote, forked;
};

static void *fork_writer_main(void *arg)
{
	struct fork_writer *w = arg;
	int err = ev_write(w->rb, TAG_OTHER, 0);

	pthread_barrier_wait(&w->wrote);
	pthread_barrier_wait(&w->forked);
	return (void *)(intptr_t)err;
}

/*
 * The child of fork() starts with fresh buffers; the parent keeps its own.
 * Two other writers of the parent are alive at the fork: the child has
 * only its own thread, so only its busy word stays taken.
 */
static void test_fork(void **state)
{
	struct trev_rb *rb = make_rb(64, 1, 0);
	struct fork_writer w = { .rb = rb };
	struct trev_rb_event ev;
	unsigned int ids[3];
	pthread_t th[2];
	void *ret;
	int status;
	pid_t pid;

	(void)state;
	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(ev_write(rb, TAG_PARENT, i), 0);
	pthread_barrier_init(&w.wrote, NULL, 3);
	pthread_barrier_init(&w.forked, NULL, 3);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, fork_writer_main, &w), 0);
	pthread_barrier_wait(&w.wrote);
	assert_true(trev__rb_busy_taken() >= 3);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child_body(rb, 64));
	pthread_barrier_wait(&w.forked);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(th[i], &ret), 0);
		assert_null(ret);
	}
	pthread_barrier_destroy(&w.wrote);
	pthread_barrier_destroy(&w.forked);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), CHILD_OK);

	get_buffers(rb, ids, 3);
	for (uint32_t i = 0; i < 10; i++) {
		expect_event(rb, TAG_PARENT, i, &ev);
		assert_int_equal(ev.tid, gettid());
		assert_int_equal(ev.lost, 0);
	}
	for (int i = 0; i < 2; i++) {
		expect_event(rb, TAG_OTHER, 0, &ev);
		assert_int_not_equal(ev.tid, gettid());
	}
	assert_int_equal(trev_rb_consume(rb, &ev, 0), 0);
	trev_rb_destroy(rb);
}

/* Resize up and down while a thread writes: accounting stays exact. */
static void test_resize(void **state)
{
	(void)state;
	for (int overwrite = 0; overwrite <= 1; overwrite++) {
		struct trev_rb *rb = make_rb(16, overwrite, 0);
		struct stream_seen v;
		struct trev_rb_stats st;
		struct stream s;
		int waits = 0;

		print_message("  %s mode\n", overwrite ? "overwrite" : "discard");
		seen_init(&v, 1);
		stream_start(&s, rb, 40, 0, 0);
		waits |= stream_wait_attempts(&s, 2000);
		assert_int_equal(trev_rb_resize(rb, 64), 0);
		assert_int_equal(trev_rb_size_kb(rb), 64);
		assert_true(drain(rb, &v, 300) >= 0);
		waits |= stream_wait_attempts(&s, 3000);

		assert_int_equal(trev_rb_resize(rb, 8), 0);
		assert_int_equal(trev_rb_size_kb(rb), 8);
		/* Invalid sizes are refused; the size stays. */
		assert_true(trev_rb_resize(rb, 0) < 0);
		assert_int_equal(trev_rb_size_kb(rb), 8);
		assert_true(trev_rb_resize(rb, 2 * TREV_RB_DEFAULT_CAP_KB) < 0);
		assert_int_equal(trev_rb_size_kb(rb), 8);
		assert_true(drain(rb, &v, 300) >= 0);
		waits |= stream_wait_attempts(&s, 2000);

		assert_int_equal(trev_rb_resize(rb, 32), 0);
		assert_int_equal(trev_rb_size_kb(rb), 32);
		waits |= stream_wait_attempts(&s, 2000);
		assert_int_equal(waits, 0);

		stream_settle_and_check(rb, &s, &v, &st);
		assert_int_equal(st.size_kb, 32);
		/* Cut off by the shrink (discard), or overwritten (overwrite). */
		assert_true(st.overrun > 0);
		trev_rb_destroy(rb);
	}
}

/* Overwrite <-> discard while a thread writes: accounting stays exact. */
static void test_mode_change(void **state)
{
	struct trev_rb *rb = make_rb(16, 0, 0);
	struct stream_seen v;
	struct trev_rb_stats st;
	struct stream s;
	int waits = 0, mode = 0;

	(void)state;
	seen_init(&v, 1);
	stream_start(&s, rb, 60, 0, 0);
	for (int k = 0; k < 9; k++) {
		mode = !(k & 1);
		assert_int_equal(trev_rb_set_overwrite(rb, mode), 0);
		assert_int_equal(trev_rb_overwrite(rb), mode);
		waits |= stream_wait_attempts(&s, 3000);
		assert_true(drain(rb, &v, 100) >= 0);
	}
	assert_int_equal(waits, 0);
	/* Not a mode: refused, the mode stays (overwrite, set last). */
	assert_int_equal(mode, 1);
	assert_int_equal(trev_rb_set_overwrite(rb, 2), -EINVAL);
	assert_int_equal(trev_rb_overwrite(rb), 1);
	assert_int_equal(trev_rb_set_overwrite(rb, -1), -EINVAL);
	assert_int_equal(trev_rb_overwrite(rb), 1);

	stream_settle_and_check(rb, &s, &v, &st);
	assert_true(st.dropped_events > 0);	/* discard phases dropped */
	assert_true(st.overrun > 0);		/* overwrite phases overwrote */
	trev_rb_destroy(rb);
}

/* Reset discards everything and zeroes every counter. */
static void test_reset(void **state)
{
	struct trev_rb *rb = make_rb(16, 0, 0);
	struct trev_rb_event ev;
	struct trev_rb_stats st;
	struct trev_rb_iter *it;
	unsigned int ids[8];
	struct helper h;
	int n;

	(void)state;
	for (uint32_t i = 0; i < 2000; i++)
		ev_write(rb, TAG_MAIN, i);	/* overflows 16 KB: some dropped */
	helper_start(&h, rb, TAG_STREAM, 10, 0);
	helper_join(&h);
	for (int i = 0; i < 5; i++)
		assert_int_equal(trev_rb_consume(rb, &ev, 0), 1);
	stats_of_tid(rb, gettid(), &st);
	assert_true(st.dropped_events > 0);
	assert_true(st.written > 0);

	assert_int_equal(trev_rb_reset(rb), 0);
	assert_int_equal(trev_rb_consume(rb, &ev, 0), 0);
	it = trev_rb_iter_start(rb);
	assert_non_null(it);
	assert_int_equal(trev_rb_iter_next(it, &ev), 0);
	trev_rb_iter_finish(it);
	n = trev_rb_buffers(rb, ids, 8);
	assert_true(n >= 0 && n <= 2);
	for (int i = 0; i < n; i++) {
		assert_int_equal(trev_rb_buffer_stats(rb, ids[i], &st), 0);
		assert_int_equal(st.entries, 0);
		assert_int_equal(st.overrun, 0);
		assert_int_equal(st.commit_overrun, 0);
		assert_int_equal(st.bytes, 0);
		assert_int_equal(st.oldest_event_ts, 0);
		assert_int_equal(st.dropped_events, 0);
		assert_int_equal(st.read_events, 0);
		assert_int_equal(st.written, 0);
	}
	assert_int_equal(trev_rb_nobuf_dropped(rb), 0);

	/* New events after the reset are read, and no old loss is reported. */
	for (uint32_t i = 0; i < 50; i++)
		assert_int_equal(ev_write(rb, TAG_MAIN, 1000 + i), 0);
	for (uint32_t i = 0; i < 50; i++) {
		expect_event(rb, TAG_MAIN, 1000 + i, &ev);
		assert_int_equal(ev.lost, 0);
		assert_int_equal(ev.tid, gettid());
	}
	assert_int_equal(trev_rb_consume(rb, &ev, 0), 0);
	stats_of_tid(rb, gettid(), &st);
	assert_int_equal(st.written, 50);
	assert_int_equal(st.read_events, 50);
	assert_int_equal(st.dropped_events, 0);
	assert_int_equal(st.overrun, 0);
	trev_rb_destroy(rb);
}

/* tracing_on: while off, writers refuse and nothing is counted as dropped. */
static void test_record_on_off(void **state)
{
	struct trev_rb *rb = make_rb(4096, 0, 0);
	uint64_t limit = 100000 / SCALE, off_refusals = 0;
	struct trev_rb_event ev;
	struct trev_rb_stats st;
	struct stream_seen v;
	struct stream s;
	uint8_t buf[EV_LEN];
	int waits = 0;

	(void)state;
	/* One thread, step by step. */
	assert_int_equal(trev_rb_record_is_on(rb), 1);
	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(ev_write(rb, TAG_MAIN, i), 0);
	trev_rb_record_off(rb);
	assert_int_equal(trev_rb_record_is_on(rb), 0);
	for (uint32_t i = 0; i < 10; i++) {
		assert_null(trev_rb_reserve(rb, EV_LEN));
		ev_build(buf, sizeof(buf), TAG_MAIN, 99);
		assert_int_equal(trev_rb_write(rb, buf, sizeof(buf)), -ENOSPC);
	}
	trev_rb_record_on(rb);
	assert_int_equal(trev_rb_record_is_on(rb), 1);
	for (uint32_t i = 10; i < 20; i++)
		assert_int_equal(ev_write(rb, TAG_MAIN, i), 0);
	for (uint32_t i = 0; i < 20; i++) {
		expect_event(rb, TAG_MAIN, i, &ev);
		assert_int_equal(ev.lost, 0);
	}
	assert_int_equal(trev_rb_consume(rb, &ev, 0), 0);
	stats_of_tid(rb, gettid(), &st);
	assert_int_equal(st.dropped_events, 0);
	assert_int_equal(st.written, 20);

	/* A thread writing while tracing goes off and on. */
	seen_init(&v, 1);
	stream_start(&s, rb, EV_LEN, 1, limit);
	for (int k = 0; k < 6; k++) {
		uint64_t deadline = now_ns() + 10000000000ull * SCALE;
		uint64_t r0 = atomic_load(&s.refused), a0 = atomic_load(&s.accepted);

		trev_rb_record_off(rb);
		while (atomic_load(&s.refused) == r0 && atomic_load(&s.accepted) < limit &&
		       now_ns() < deadline)
			sched_yield();
		trev_rb_record_on(rb);
		while (atomic_load(&s.accepted) < a0 + 200 && atomic_load(&s.accepted) < limit &&
		       now_ns() < deadline)
			sched_yield();
		waits |= now_ns() >= deadline;
		assert_true(drain(rb, &v, 500) >= 0);
	}
	assert_int_equal(waits, 0);
	off_refusals = atomic_load(&s.refused);
	stream_park(&s);
	assert_true(drain(rb, &v, 0) >= 0);
	stream_finish(&s);
	assert_true(drain(rb, &v, 0) >= 0);
	if (v.bad)
		fail_msg("%s", v.why);
	print_message("  %llu written while on, %llu refused while off\n",
		      (unsigned long long)atomic_load(&s.accepted), (unsigned long long)off_refusals);
	assert_true(off_refusals > 0);
	assert_int_equal(s.sentinel_ret, 0);
	assert_int_equal(v.read, atomic_load(&s.accepted));
	assert_int_equal(v.lost, 0);
	stats_of_tid(rb, s.tid, &st);
	assert_int_equal(st.dropped_events, 0);
	assert_int_equal(st.commit_overrun, 0);
	assert_int_equal(st.overrun, 0);
	assert_int_equal(st.written, atomic_load(&s.accepted));
	trev_rb_destroy(rb);
}

/* A cap that fits two buffers: a third thread is refused while they live; once
 * they exit, they shrink to their unread page and a new thread gets room. */
static void test_memory_cap(void **state)
{
	struct trev_rb *rb = make_rb(16, 0, 32);
	struct helper a, b, c, d, e;
	struct trev_rb_event ev;
	struct trev_rb_stats st;
	unsigned int ids[2];
	unsigned int from_a = 0, from_b = 0;
	uint64_t lost = 0;
	cpu_set_t all, one;

	(void)state;
	/*
	 * The helpers (made by this thread: they inherit it) run on one CPU, so
	 * that the refused events' loss, reported on the first event read from
	 * the CPU they were refused on, lands on a known event.
	 */
	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	assert_int_equal(trev_rb_cap_kb(rb), 32);
	helper_start(&a, rb, 0xa, 10, 1);
	helper_start(&b, rb, 0xb, 10, 1);
	assert_int_equal(a.accepted, 10);
	assert_int_equal(b.accepted, 10);
	get_buffers(rb, ids, 2);

	/* No room for a third buffer: every event refused and counted. */
	helper_start(&c, rb, 0xc, 10, 0);
	helper_join(&c);
	assert_int_equal(c.accepted, 0);
	assert_int_equal(c.refused, 10);
	assert_int_equal(trev_rb_nobuf_dropped(rb), 10);
	get_buffers(rb, ids, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(trev_rb_buffer_stats(rb, ids[i], &st), 0);
		assert_int_equal(st.dropped_events, 0);	/* not charged to others */
		assert_int_equal(st.alive, 1);
	}

	/* Their threads exit; unread data keeps the buffers (discard mode). */
	helper_join(&a);
	helper_join(&b);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(trev_rb_buffer_stats(rb, ids[i], &st), 0);
		assert_int_equal(st.alive, 0);
		assert_int_equal(st.entries, 10);
	}
	/* A new thread gets a buffer: the dead ones shrink to the one page
	 * their unread events are on, and keep them. */
	helper_start(&d, rb, 0xd, 5, 0);
	helper_join(&d);
	assert_int_equal(d.accepted, 5);
	assert_int_equal(trev_rb_nobuf_dropped(rb), 10);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(trev_rb_buffer_stats(rb, ids[i], &st), 0);
		assert_int_equal(st.entries, 10);
		assert_int_equal(st.size_kb, TREV_RB_PAGE_SIZE / 1024);
	}

	/*
	 * Read the dead threads' data; then a new thread gets a buffer. The 10
	 * refused events of c are reported once, as the lost count of the first
	 * event read from the CPU c ran on: every thread here runs on one CPU
	 * (above), so that is the first event read, and e's have none.
	 */
	for (int i = 0; i < 25; i++) {
		uint32_t tag, seq;

		assert_int_equal(trev_rb_consume(rb, &ev, 0), 1);
		lost += ev.lost;
		assert_int_equal(ev_parse(&ev, &tag, &seq), 0);
		if (tag == 0xd) {
			assert_int_equal(ev.tid, d.tid);
			continue;
		}
		if (tag == 0xa) {
			assert_int_equal(seq, from_a++);
			assert_int_equal(ev.tid, a.tid);
		} else {
			assert_int_equal(tag, 0xb);
			assert_int_equal(seq, from_b++);
			assert_int_equal(ev.tid, b.tid);
		}
	}
	assert_int_equal(trev_rb_consume(rb, &ev, 0), 0);
	helper_start(&e, rb, 0xe, 10, 0);
	helper_join(&e);
	assert_int_equal(e.accepted, 10);
	assert_int_equal(trev_rb_nobuf_dropped(rb), 10);
	for (uint32_t i = 0; i < 10; i++) {
		expect_event(rb, 0xe, i, &ev);
		assert_int_equal(ev.tid, e.tid);
		assert_int_equal(ev.lost, 0);
	}
	assert_int_equal(trev_rb_consume(rb, &ev, 0), 0);
	assert_int_equal(lost, 10);
	trev_rb_destroy(rb);
	assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);
}

/* Two threads take turns, so their events interleave in time. */
struct pingpong {
	struct trev_rb *rb;
	sem_t turn[2];
	int k;
	unsigned int n;		/* events in all */
};

struct pp_arg {
	struct pingpong *pp;
	int k;
};

static void *pingpong_main(void *arg)
{
	struct pp_arg *a = arg;
	struct pingpong *pp = a->pp;

	for (unsigned int i = (unsigned int)a->k; i < pp->n; i += 2) {
		sem_wait(&pp->turn[a->k]);
		ev_write(pp->rb, TAG_STREAM, i);
		sem_post(&pp->turn[!a->k]);
	}
	return NULL;
}

/* Walk an iterator; the events must be seq @first.. in order, @n of them. */
static void iterate_expect(struct trev_rb *rb, uint32_t first, uint32_t n)
{
	struct trev_rb_iter *it = trev_rb_iter_start(rb);
	struct trev_rb_event ev;
	uint64_t last_ts = 0;
	uint32_t tag, seq;

	assert_non_null(it);
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(trev_rb_iter_next(it, &ev), 1);
		assert_int_equal(ev_parse(&ev, &tag, &seq), 0);
		assert_int_equal(seq, first + i);
		assert_true(ev.ts >= last_ts);
		assert_int_equal(ev.lost, 0);
		last_ts = ev.ts;
	}
	assert_int_equal(trev_rb_iter_next(it, &ev), 0);
	assert_int_equal(trev_rb_iter_next(it, &ev), 0);
	trev_rb_iter_finish(it);
}

/* The iterator shows what is unread, merged by time, and consumes nothing. */
static void test_iterator(void **state)
{
	struct trev_rb *rb = make_rb(64, 0, 0);
	struct pingpong pp = { .rb = rb, .n = 100 };
	struct pp_arg args[2] = { { &pp, 0 }, { &pp, 1 } };
	uint64_t limit = 400000 / SCALE, c0, c1, shown = 0, last_ts = 0;
	pthread_t t[2];
	struct trev_rb_event ev;
	struct trev_rb_iter *it;
	struct stream_seen v;
	struct stream s;
	int bad = 0, waits;

	(void)state;
	assert_int_equal(sem_init(&pp.turn[0], 0, 1), 0);
	assert_int_equal(sem_init(&pp.turn[1], 0, 0), 0);
	for (int k = 0; k < 2; k++)
		assert_int_equal(pthread_create(&t[k], NULL, pingpong_main, &args[k]), 0);
	for (int k = 0; k < 2; k++)
		assert_int_equal(pthread_join(t[k], NULL), 0);
	sem_destroy(&pp.turn[0]);
	sem_destroy(&pp.turn[1]);

	for (uint32_t i = 0; i < 5; i++)
		expect_event(rb, TAG_STREAM, i, &ev);
	iterate_expect(rb, 5, 95);
	iterate_expect(rb, 5, 95);	/* the first walk consumed nothing */
	for (uint32_t i = 5; i < 100; i++)
		expect_event(rb, TAG_STREAM, i, &ev);
	assert_int_equal(trev_rb_consume(rb, &ev, 0), 0);
	iterate_expect(rb, 0, 0);
	trev_rb_destroy(rb);

	/* While a thread keeps writing: only what existed at the start. */
	rb = make_rb(limit * 24 / 1024 + 256, 0, 0);
	stream_start(&s, rb, EV_LEN, 0, limit);
	waits = stream_wait_attempts(&s, limit / 20);
	c0 = atomic_load(&s.accepted);
	it = trev_rb_iter_start(rb);
	c1 = atomic_load(&s.accepted);
	assert_non_null(it);
	while (trev_rb_iter_next(it, &ev) == 1) {
		uint32_t tag, seq;

		if (ev_parse(&ev, &tag, &seq) < 0 || seq != shown || ev.ts < last_ts)
			bad = 1;
		last_ts = ev.ts;
		if (++shown > limit + 1)
			break;
	}
	trev_rb_iter_finish(it);
	print_message("  iterator: %llu events (%llu committed before it started, %llu when "
		      "start returned, %llu when it ended)\n",
		      (unsigned long long)shown, (unsigned long long)c0, (unsigned long long)c1,
		      (unsigned long long)atomic_load(&s.accepted));
	seen_init(&v, 1);
	stream_settle_and_check(rb, &s, &v, NULL);
	assert_int_equal(waits, 0);
	assert_int_equal(bad, 0);
	assert_true(shown >= c0);
	assert_true(shown <= c1 + 1);
	/* Nothing was lost, and the walk consumed nothing. */
	assert_int_equal(atomic_load(&s.refused), 0);
	assert_int_equal(v.read, atomic_load(&s.attempts));
	trev_rb_destroy(rb);
}

struct blocked_reader {
	struct trev_rb *rb;
	pthread_t thread;
	int use_wait;		/* trev_rb_wait instead of trev_rb_consume */
	atomic_int entered, returned;
	_Atomic pid_t tid;
	int ret;
	uint32_t seq;
};

static void *blocked_reader_main(void *arg)
{
	struct blocked_reader *r = arg;
	struct trev_rb_event ev;
	uint32_t tag;

	/*
	 * The reader's first consume sets up its per-thread copy buffer (a
	 * pthread_once and a malloc, which may sleep in futex). Done here, on
	 * the empty buffer, so that once entered is set the only futex sleep
	 * is the blocking read's, after it sampled the wake generation.
	 */
	if (trev_rb_consume(r->rb, &ev, 0) != 0) {	/* the buffer must be empty */
		r->ret = INT32_MIN;
		atomic_store(&r->returned, 1);
		return NULL;
	}
	atomic_store(&r->tid, gettid());
	atomic_store(&r->entered, 1);
	if (r->use_wait) {
		r->ret = trev_rb_wait(r->rb, -1);
	} else {
		r->ret = trev_rb_consume(r->rb, &ev, -1);
		if (r->ret == 1 && ev_parse(&ev, &tag, &r->seq) < 0)
			r->seq = UINT32_MAX;
	}
	atomic_store(&r->returned, 1);
	return NULL;
}

/*
 * Start a reader and wait until it sleeps in the blocking call: in futex(2)
 * after it entered the call (wait_blocked.h), not for a time.
 */
static void blocked_reader_start(struct blocked_reader *r, struct trev_rb *rb, int use_wait)
{
	memset(r, 0, sizeof(*r));
	r->rb = rb;
	r->use_wait = use_wait;
	assert_int_equal(pthread_create(&r->thread, NULL, blocked_reader_main, r), 0);
	while (!atomic_load(&r->entered) && !atomic_load(&r->returned))
		sched_yield();
	if (wait_blocked(atomic_load(&r->tid)) < 0 || atomic_load(&r->returned)) {
		int returned = atomic_load(&r->returned);

		while (!atomic_load(&r->returned)) {	/* unstick it before failing */
			trev_rb_wake_readers(rb);
			sched_yield();
		}
		pthread_join(r->thread, NULL);
		fail_msg("the reader %s", returned ? "returned instead of blocking" :
			 "did not block in futex(2) (or /proc cannot tell)");
	}
}

/* Wait for the reader to return; the call does not hang, which ctest's time-out guards. */
static int blocked_reader_join(struct blocked_reader *r)
{
	return pthread_join(r->thread, NULL);
}

/* consume(-1) wakes on a commit; consume(100) times out; wake_readers ends waits. */
/*
 * Statistics, name look-ups and iterators are pure reads: between two
 * consumes of one reader, a second reader's calls neither change the
 * payload the first holds nor move its position. In discard mode on a
 * buffer that overruns nothing, so every event must come out once, in order,
 * with the payload it was written with: one per page boundary used to come
 * out with the next page's bytes after a statistics call.
 */
static void test_readers_pure(void **state)
{
	struct trev_rb *rb = make_rb(64, 0, 0);
	struct trev_rb_stats st;
	struct trev_rb_event ev, iev;
	unsigned int id;
	uint32_t tag, seq, n = 0;
	char comm[16];
	uint8_t held[EV_LEN];

	(void)state;
	/* 40-byte records: about 100 per page, so ~10 page boundaries. */
	for (uint32_t i = 0; i < 1000; i++) {
		uint8_t buf[36];

		ev_build(buf, sizeof(buf), TAG_MAIN, i);
		assert_int_equal(trev_rb_write(rb, buf, sizeof(buf)), 0);
	}
	get_buffers(rb, &id, 1);
	while (trev_rb_consume(rb, &ev, 0) == 1) {
		struct trev_rb_iter *it;

		memcpy(held, ev.data, EV_LEN);
		assert_int_equal(trev_rb_buffer_stats(rb, id, &st), 0);
		assert_int_equal(st.entries, 1000 - n - 1);
		assert_int_equal(st.read_events, n + 1);
		for (int cpu = 0; cpu < trev_rb_nr_cpus(rb); cpu++)
			assert_int_equal(trev_rb_cpu_stats(rb, cpu, &st), 0);
		assert_int_equal(trev_rb_buffer_comm(rb, id, comm), 1);
		it = trev_rb_iter_start(rb);
		assert_non_null(it);
		if (trev_rb_iter_next(it, &iev) == 1) {
			assert_int_equal(ev_parse(&iev, &tag, &seq), 0);
			assert_int_equal(seq, n + 1);	/* the next unread event */
		}
		trev_rb_iter_finish(it);
		assert_memory_equal(ev.data, held, EV_LEN);
		assert_int_equal(ev_parse(&ev, &tag, &seq), 0);
		assert_int_equal(tag, TAG_MAIN);
		assert_int_equal(seq, n);
		n++;
	}
	assert_int_equal(n, 1000);
	assert_int_equal(trev_rb_buffer_comm(rb, RB_MAX_BUFFERS, comm), -ENOENT);
	trev_rb_destroy(rb);
}

/*
 * A thread's first event, interrupted by its own signal handler's event
 * while it makes its buffer (here: while another thread holds the pool
 * lock, so the making lasts as long as the test wants). The handler must
 * neither wait for that lock (a signal handler never waits on another
 * thread) nor make a buffer of its own (the thread would have two, one of
 * them orphaned: seen once in ~1500 rounds of a racing writer before the
 * fix); its event is refused, and the thread's one buffer reports it lost,
 * to every reader: nothing goes to nobuf_dropped, which no reader shows.
 */
static struct trev_rb *first_rb;
static _Atomic(struct rb_tls *) first_tls;
static atomic_int first_handler_ret = 1;

static void first_on_sigusr2(int sig)
{
	uint8_t buf[EV_LEN];

	(void)sig;
	ev_build(buf, sizeof(buf), TAG_OTHER, 0);
	atomic_store(&first_handler_ret, trev_rb_write(first_rb, buf, sizeof(buf)));
}

static void *first_writer(void *arg)
{
	(void)arg;
	atomic_store(&first_tls, &trev__rb_tls[first_rb->set]);
	assert_int_equal(ev_write(first_rb, TAG_MAIN, 0), 0);
	return NULL;
}

static void test_first_event_signal(void **state)
{
	struct sigaction sa = { .sa_handler = first_on_sigusr2 }, old_sa;
	struct trev_rb_event ev;
	struct trev_rb_stats st;
	struct rb_tls *tls;
	unsigned int id;
	uint32_t tag, seq;
	pthread_t t;
	int64_t end;

	(void)state;
	first_rb = make_rb(64, 0, 0);
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR2, &sa, &old_sa), 0);
	assert_int_equal(trev__rb_pool_lock(first_rb, true), 0);
	assert_int_equal(pthread_create(&t, NULL, first_writer, NULL), 0);
	/* Until the writer is making its buffer (it waits for the pool lock). */
	while (!(tls = atomic_load(&first_tls)) || !atomic_load(&tls->making))
		sched_yield();
	assert_int_equal(pthread_kill(t, SIGUSR2), 0);
	end = (int64_t)(now_ns() / 1000000) + 60000;	/* a hang guard, not a time limit */
	while (atomic_load(&first_handler_ret) == 1 && (int64_t)(now_ns() / 1000000) < end)
		sched_yield();
	trev__rb_pool_unlock(first_rb);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(sigaction(SIGUSR2, &old_sa, NULL), 0);
	if (atomic_load(&first_handler_ret) == 1)
		fail_msg("the handler waited for the pool lock that another thread held");
	assert_int_equal(atomic_load(&first_handler_ret), -ENOSPC);

	get_buffers(first_rb, &id, 1);	/* one buffer, not two */
	assert_int_equal(trev_rb_nobuf_dropped(first_rb), 0);
	assert_int_equal(trev_rb_buffer_stats(first_rb, id, &st), 0);
	assert_int_equal(st.dropped_events, 1);
	assert_int_equal(st.written, 1);
	assert_int_equal(trev_rb_consume(first_rb, &ev, 0), 1);
	assert_int_equal(ev_parse(&ev, &tag, &seq), 0);
	assert_int_equal(tag, TAG_MAIN);
	assert_int_equal(ev.lost, 1);	/* the handler's event, reported */
	assert_int_equal(trev_rb_consume(first_rb, &ev, 0), 0);
	trev_rb_destroy(first_rb);
}

static void test_blocking_read(void **state)
{
	struct trev_rb *rb = make_rb(64, 0, 0);
	struct blocked_reader r;
	struct trev_rb_event ev;
	uint64_t t0, elapsed;

	(void)state;
	/*
	 * A commit wakes a reader blocked for ever: it was asleep in the call
	 * before the commit and returns with the committed event. How soon is
	 * not asserted; that it returns at all is (ctest's time-out).
	 */
	blocked_reader_start(&r, rb, 0);
	assert_int_equal(ev_write(rb, TAG_MAIN, 42), 0);
	assert_int_equal(blocked_reader_join(&r), 0);
	assert_int_equal(r.ret, 1);
	assert_int_equal(r.seq, 42);

	/*
	 * Nothing comes: 0 at once, or after the time-out. A time-out is not
	 * cut short (the elapsed time is at least the 100 ms asked for, which
	 * load cannot shorten); how much longer it takes is not asserted.
	 */
	assert_int_equal(trev_rb_consume(rb, &ev, 0), 0);
	t0 = now_ns();
	assert_int_equal(trev_rb_consume(rb, &ev, 100), 0);
	elapsed = now_ns() - t0;
	print_message("  consume(100 ms) returned after %.3f ms\n", elapsed / 1e6);
	assert_true(elapsed >= 95000000ull);
	t0 = now_ns();
	assert_int_equal(trev_rb_wait(rb, 100), 0);
	elapsed = now_ns() - t0;
	assert_true(elapsed >= 95000000ull);

	/* trev_rb_wake_readers() makes readers asleep in the call return -EINTR. */
	blocked_reader_start(&r, rb, 0);
	trev_rb_wake_readers(rb);
	assert_int_equal(blocked_reader_join(&r), 0);
	assert_int_equal(r.ret, -EINTR);
	blocked_reader_start(&r, rb, 1);
	trev_rb_wake_readers(rb);
	assert_int_equal(blocked_reader_join(&r), 0);
	assert_int_equal(r.ret, -EINTR);
	/* Only readers blocked at the time: a later one waits normally. */
	assert_int_equal(trev_rb_consume(rb, &ev, 20), 0);

	/* trev_rb_wait() sees data without consuming it. */
	assert_int_equal(ev_write(rb, TAG_MAIN, 43), 0);
	assert_int_equal(trev_rb_wait(rb, 0), 1);
	assert_int_equal(trev_rb_wait(rb, -1), 1);
	expect_event(rb, TAG_MAIN, 43, &ev);
	trev_rb_destroy(rb);
}

/* Reservations nest up to a limit; the outermost commit publishes them all. */
static void test_nesting_limit(void **state)
{
	struct trev_rb *rb = make_rb(64, 0, 0);
	void *p[RB_MAX_NEST + 1];
	struct trev_rb_event ev;
	struct trev_rb_stats st;
	struct trev_rb_iter *it;
	uint64_t last_ts = 0;
	unsigned int depth = 0;

	(void)state;
	for (;;) {
		p[depth] = trev_rb_reserve(rb, EV_LEN);
		if (!p[depth])
			break;
		ev_build(p[depth], EV_LEN, TAG_MAIN, depth);
		depth++;
		assert_true(depth <= RB_MAX_NEST);
	}
	assert_int_equal(depth, RB_MAX_NEST);
	stats_of_tid(rb, gettid(), &st);
	assert_int_equal(st.dropped_events, 1);
	assert_int_equal(st.written, 0);

	/* Inner commits publish nothing. */
	while (depth > 1) {
		trev_rb_commit(rb, p[--depth]);
		assert_int_equal(trev_rb_consume(rb, &ev, 0), 0);
		assert_int_equal(trev_rb_wait(rb, 0), 0);
		it = trev_rb_iter_start(rb);
		assert_non_null(it);
		assert_int_equal(trev_rb_iter_next(it, &ev), 0);
		trev_rb_iter_finish(it);
	}
	trev_rb_commit(rb, p[0]);
	for (uint32_t i = 0; i < RB_MAX_NEST; i++) {
		expect_event(rb, TAG_MAIN, i, &ev);
		assert_int_equal(ev.lost, 0);
		assert_true(ev.ts >= last_ts);
		last_ts = ev.ts;
	}
	assert_int_equal(trev_rb_consume(rb, &ev, 0), 0);

	/* The refused one is reported before the next event. */
	assert_int_equal(ev_write(rb, TAG_MAIN, 100), 0);
	expect_event(rb, TAG_MAIN, 100, &ev);
	assert_int_equal(ev.lost, 1);
	stats_of_tid(rb, gettid(), &st);
	assert_int_equal(st.written, RB_MAX_NEST + 1);
	assert_int_equal(st.dropped_events, 1);
	assert_int_equal(st.read_events, RB_MAX_NEST + 1);
	trev_rb_destroy(rb);

	/*
	 * Overwrite mode: the refusal must still be reported when the page
	 * that carried its count is overwritten before anyone reads it.
	 */
	rb = make_rb(8, 1, 0);
	for (depth = 0; (p[depth] = trev_rb_reserve(rb, EV_LEN)) != NULL; depth++) {
		ev_build(p[depth], EV_LEN, TAG_STREAM, depth);
		assert_true(depth < RB_MAX_NEST);
	}
	assert_int_equal(depth, RB_MAX_NEST);
	while (depth > 0)
		trev_rb_commit(rb, p[--depth]);
	for (uint32_t i = 0; i < 1000; i++)	/* wraps the two pages many times */
		assert_int_equal(ev_write(rb, TAG_STREAM, RB_MAX_NEST + 1 + i), 0);
	{
		struct stream_seen v;

		seen_init(&v, 0);
		assert_true(drain(rb, &v, 0) > 0);
		stats_of_tid(rb, gettid(), &st);
		print_message("  overwrite: attempted %u read %llu sum(ev.lost) %llu | dropped %llu "
			      "overrun %llu\n", RB_MAX_NEST + 1 + 1000,
			      (unsigned long long)v.read, (unsigned long long)v.lost,
			      (unsigned long long)st.dropped_events, (unsigned long long)st.overrun);
		assert_int_equal(v.bad, 0);
		assert_int_equal(st.dropped_events, 1);
		assert_int_equal(st.written, RB_MAX_NEST + 1000);
		assert_int_equal(st.overrun, RB_MAX_NEST + 1000 - v.read);
		assert_int_equal(v.read + v.lost, RB_MAX_NEST + 1 + 1000);
	}
	trev_rb_destroy(rb);
}

/*
 * Writers stopped between reserve and commit (a debugger, SIGSTOP): a
 * reader waits rb_settle_ms for each stuck write once, not once per event
 * it reads after it, and every event still comes out once.
 */
#define STUCK_WRITERS	2
#define STUCK_BEFORE	100	/* events each writer commits before it stops */
#define STUCK_AFTER	50	/* events of the main thread after they stopped */

struct stuck_writer {
	struct trev_rb *rb;
	uint32_t tag;
	sem_t holding, release;
};

static void *stuck_writer_run(void *arg)
{
	struct stuck_writer *w = arg;
	void *p;

	for (uint32_t i = 0; i < STUCK_BEFORE; i++)
		if (ev_write(w->rb, w->tag, i) != 0)
			return (void *)1;
	p = trev_rb_reserve(w->rb, EV_LEN);
	if (!p)
		return (void *)1;
	ev_build(p, EV_LEN, w->tag, STUCK_BEFORE);
	sem_post(&w->holding);
	while (sem_wait(&w->release) != 0)
		;
	trev_rb_commit(w->rb, p);
	return NULL;
}

static void test_stuck_writers(void **state)
{
	struct trev_rb *rb = make_rb(256, 0, 0);
	struct stuck_writer w[STUCK_WRITERS];
	pthread_t t[STUCK_WRITERS];
	uint32_t next[STUCK_WRITERS + 1] = { 0 };
	struct trev_rb_event ev;
	uint32_t tag = 0, seq = 0;
	unsigned int read = 0;

	(void)state;
	for (int i = 0; i < STUCK_WRITERS; i++) {
		w[i].rb = rb;
		w[i].tag = TAG_OTHER + (uint32_t)i;
		assert_int_equal(sem_init(&w[i].holding, 0, 0), 0);
		assert_int_equal(sem_init(&w[i].release, 0, 0), 0);
		assert_int_equal(pthread_create(&t[i], NULL, stuck_writer_run, &w[i]), 0);
	}
	for (int i = 0; i < STUCK_WRITERS; i++)
		while (sem_wait(&w[i].holding) != 0)
			;
	for (uint32_t i = 0; i < STUCK_AFTER; i++)
		assert_int_equal(ev_write(rb, TAG_MAIN, i), 0);

	/* Everything committed comes out, in each writer's order. */
	while (trev_rb_consume(rb, &ev, 0) == 1) {
		int k;

		assert_int_equal(ev_parse(&ev, &tag, &seq), 0);
		k = tag == TAG_MAIN ? STUCK_WRITERS : (int)(tag - TAG_OTHER);
		assert_true(k >= 0 && k <= STUCK_WRITERS);
		assert_int_equal(seq, next[k]);
		next[k]++;
		read++;
	}
	assert_int_equal(read, STUCK_WRITERS * STUCK_BEFORE + STUCK_AFTER);
	/* One wait per stuck write, whatever the number of events after it. */
	pthread_mutex_lock(&rb->read_lock);
	assert_int_equal(rb->stuck_writes, STUCK_WRITERS);
	pthread_mutex_unlock(&rb->read_lock);

	/* Released, they commit, and their last events come out too. */
	for (int i = 0; i < STUCK_WRITERS; i++) {
		void *ret;

		sem_post(&w[i].release);
		assert_int_equal(pthread_join(t[i], &ret), 0);
		assert_null(ret);
		sem_destroy(&w[i].holding);
		sem_destroy(&w[i].release);
	}
	for (int i = 0; i < STUCK_WRITERS; i++) {
		assert_int_equal(trev_rb_consume(rb, &ev, 0), 1);
		assert_int_equal(ev_parse(&ev, &tag, &seq), 0);
		assert_true(tag >= TAG_OTHER && tag < TAG_OTHER + STUCK_WRITERS);
		assert_int_equal(seq, next[tag - TAG_OTHER]);
		assert_int_equal(ev.lost, 0);
		next[tag - TAG_OTHER]++;
	}
	assert_int_equal(trev_rb_consume(rb, &ev, 0), 0);
	trev_rb_destroy(rb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thread_exit),
		cmocka_unit_test(test_thread_exit_name),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_mode_change),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_record_on_off),
		cmocka_unit_test(test_memory_cap),
		cmocka_unit_test(test_iterator),
		cmocka_unit_test(test_readers_pure),
		cmocka_unit_test(test_first_event_signal),
		cmocka_unit_test(test_blocking_read),
		cmocka_unit_test(test_nesting_limit),
		cmocka_unit_test(test_stuck_writers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
