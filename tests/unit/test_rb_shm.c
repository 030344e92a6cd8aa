/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A trace buffer read through its memfd (trev_rb_attach()), as trev record
 * reads another process's: the consuming position lent and returned, every
 * event read exactly once by one of the two readers, and regions that must
 * be refused.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include <trev/ring_buffer.h>

#include "ring_buffer/rb_internal.h"

#define NR_WRITERS	3
#define PER_WRITER	3000

struct writer {
	struct trev_rb *rb;
	uint32_t id;
};

/* Each event: writer id, sequence number. */
static void *write_events(void *arg)
{
	struct writer *w = arg;

	for (uint32_t i = 0; i < PER_WRITER; i++) {
		uint32_t *p = trev_rb_reserve(w->rb, 8);

		assert_non_null(p);
		p[0] = w->id;
		p[1] = i;
		trev_rb_commit(w->rb, p);
	}
	return NULL;
}

static void fill(struct trev_rb *rb)
{
	struct writer w[NR_WRITERS];
	pthread_t t[NR_WRITERS];

	for (uint32_t i = 0; i < NR_WRITERS; i++) {
		w[i] = (struct writer){ rb, i };
		assert_int_equal(pthread_create(&t[i], NULL, write_events, &w[i]), 0);
	}
	for (int i = 0; i < NR_WRITERS; i++)
		pthread_join(t[i], NULL);
}

/* Consume up to @max events of @rb, checking each writer's order in @next. */
static int consume(struct trev_rb *rb, uint32_t *next, int max)
{
	struct trev_rb_event ev;
	int n = 0, ret;

	while (n < max && (ret = trev_rb_consume(rb, &ev, 0)) == 1) {
		uint32_t id, seq;

		assert_int_equal(ev.len, 8);
		memcpy(&id, ev.data, 4);
		memcpy(&seq, (const uint8_t *)ev.data + 4, 4);
		assert_true(id < NR_WRITERS);
		assert_int_equal(ev.lost, 0);
		assert_int_equal(seq, next[id]);	/* no event twice, none skipped */
		next[id]++;
		n++;
	}
	return n;
}

/* Half read here, the middle by the borrower, the rest here again: each event once. */
static void test_lend_and_return(void **state)
{
	struct trev_rb_options o = { .size_kb = 256, .clock = -1 };
	struct trev_rb_event ev;
	struct trev_rb *rb, *att;
	struct trev_rb_stats st;
	uint32_t next[NR_WRITERS] = { 0 };
	int here, there, again;

	(void)state;
	assert_int_equal(trev_rb_create(&rb, &o), 0);
	fill(rb);
	here = consume(rb, next, NR_WRITERS * PER_WRITER / 3);
	assert_int_equal(here, NR_WRITERS * PER_WRITER / 3);

	assert_int_equal(trev_rb_lend_consumer(rb), 0);
	assert_int_equal(trev_rb_lend_consumer(rb), -EBUSY);
	assert_int_equal(trev_rb_consume(rb, &ev, 0), -EBUSY);
	assert_int_equal(trev_rb_attach(&att, trev_rb_memfd(rb)), 0);
	assert_int_equal(trev_rb_reset(att), -EPERM);
	assert_int_equal(trev_rb_resize(att, 64), -EPERM);
	assert_null(trev_rb_reserve(att, 8));
	there = consume(att, next, NR_WRITERS * PER_WRITER / 3);
	assert_int_equal(there, NR_WRITERS * PER_WRITER / 3);
	/* The lender's statistics see the borrower's position. */
	assert_int_equal(trev_rb_cpu_stats(rb, 0, &st), 0);
	{
		uint64_t entries = 0, read = 0;

		for (int cpu = 0; cpu < trev_rb_nr_cpus(rb); cpu++) {
			assert_int_equal(trev_rb_cpu_stats(rb, cpu, &st), 0);
			entries += st.entries;
			read += st.read_events;
		}
		assert_int_equal(entries, NR_WRITERS * PER_WRITER - here - there);
		assert_int_equal(read, here + there);
	}
	trev_rb_destroy(att);
	assert_int_equal(trev_rb_return_consumer(rb), 0);
	assert_int_equal(trev_rb_return_consumer(rb), -EINVAL);

	again = consume(rb, next, NR_WRITERS * PER_WRITER);
	assert_int_equal(here + there + again, NR_WRITERS * PER_WRITER);
	for (int i = 0; i < NR_WRITERS; i++)
		assert_int_equal(next[i], PER_WRITER);
	trev_rb_destroy(rb);
}

/* Whole pages through the per-CPU reader of the attached buffer: every event. */
static void test_attached_pages(void **state)
{
	struct trev_rb_options o = { .size_kb = 256, .clock = -1 };
	uint8_t page[RB_PAGE_SIZE];
	struct trev_rb *rb, *att;
	uint64_t events = 0;

	(void)state;
	assert_int_equal(trev_rb_create(&rb, &o), 0);
	fill(rb);
	assert_int_equal(trev_rb_lend_consumer(rb), 0);
	assert_int_equal(trev_rb_attach(&att, trev_rb_memfd(rb)), 0);
	for (int cpu = 0; cpu < trev_rb_nr_cpus(att); cpu++) {
		int ret;

		while ((ret = trev_rb_read_page_cpu(att, cpu, page)) == 1) {
			struct rb_walk w;
			struct rb_rec r;

			assert_true((rb_get64(page + 8) & RB_COMMIT_MASK) <= RB_DATA_SIZE);
			rb_page_for_each(&w, page, &r)
				events += r.kind == RB_REC_DATA;
		}
		assert_int_equal(ret, 0);
	}
	assert_int_equal(events, NR_WRITERS * PER_WRITER);
	trev_rb_destroy(att);
	assert_int_equal(trev_rb_return_consumer(rb), 0);
	trev_rb_destroy(rb);
}

/* A writer pinned to one CPU: PER_WRITER events of writer @id. */
struct pinned {
	struct trev_rb *rb;
	uint32_t id;
	int cpu;
	bool pinned;
};

static void *pinned_writer(void *arg)
{
	struct pinned *p = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(p->cpu, &set);
	p->pinned = pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0 &&
		    sched_getcpu() == p->cpu;
	if (p->pinned) {
		struct writer w = { p->rb, p->id };

		write_events(&w);
	}
	return NULL;
}

/* Writer @id's events on CPU @cpu, all of them before the call returns. */
static bool write_on(struct trev_rb *rb, uint32_t id, int cpu)
{
	struct pinned p = { rb, id, cpu, false };
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, pinned_writer, &p), 0);
	pthread_join(t, NULL);
	return p.pinned;
}

/*
 * One event, of writer @want_id, checked against @next: the merged
 * consume's, or (@cpu >= 0) that CPU's reader's. Return: its lost count.
 */
static uint64_t take_one(struct trev_rb *rb, int cpu, uint32_t *next, uint32_t want_id)
{
	struct trev_rb_event ev;
	uint32_t id, seq;

	if (cpu >= 0)
		assert_int_equal(trev_rb_consume_cpu(rb, cpu, &ev, 0), 1);
	else
		assert_int_equal(trev_rb_consume(rb, &ev, 0), 1);
	memcpy(&id, ev.data, 4);
	memcpy(&seq, (const uint8_t *)ev.data + 4, 4);
	assert_int_equal(id, want_id);
	assert_int_equal(seq, next[id]);
	next[id]++;
	return ev.lost;
}

/*
 * The staging queues move with the position (trev_rb_stage_export(),
 * _import()): CPU 1's events, staged by the lender's own reader of CPU 0,
 * go to the borrower, which reads CPU 0's pages and gives CPU 1's back;
 * the lender then reads each of them once, nothing lost. Then a borrower
 * that "dies" after the lender handed its staged events out, before it
 * took them: the lender counts them lost (overrun of CPU 1, reported with
 * CPU 1's next event), from what it handed out alone.
 */
static void test_stage_handover(void **state)
{
	struct trev_rb_options o = { .size_kb = 256, .clock = -1 };
	static uint8_t buf[1 << 20];
	uint8_t page[RB_PAGE_SIZE];
	struct trev_rb *rb, *att;
	struct trev_rb_stats st;
	uint32_t next[NR_WRITERS] = { 0 };
	uint64_t raw0 = 0;
	ssize_t n;
	int ret;

	(void)state;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		skip();
		return;
	}
	assert_int_equal(trev_rb_create(&rb, &o), 0);
	if (!write_on(rb, 1, 1) || !write_on(rb, 0, 0)) {
		trev_rb_destroy(rb);
		skip();	/* no pinning here */
		return;
	}
	/* The lender's reader of CPU 0: every CPU 1 event (older) is staged. */
	{
		struct trev_rb_event ev;

		assert_int_equal(trev_rb_consume_cpu(rb, 0, &ev, 0), 1);
		next[0]++;
	}
	assert_int_equal(trev_rb_cpu_stats(rb, 1, &st), 0);
	assert_int_equal(st.entries, PER_WRITER);

	/* Not lent: nothing to hand out. */
	assert_int_equal(trev_rb_stage_export(rb, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(trev_rb_lend_consumer(rb), 0);
	assert_int_equal(trev_rb_attach(&att, trev_rb_memfd(rb)), 0);
	while ((n = trev_rb_stage_export(rb, buf, sizeof(buf))) > 0)
		assert_int_equal(trev_rb_stage_import(att, buf, (size_t)n), 0);
	assert_int_equal(n, 0);
	/* While the borrower holds them they are still CPU 1's entries. */
	assert_int_equal(trev_rb_cpu_stats(rb, 1, &st), 0);
	assert_int_equal(st.entries, PER_WRITER);
	while ((ret = trev_rb_read_page_cpu(att, 0, page)) == 1) {
		struct rb_walk w;
		struct rb_rec r;

		rb_page_for_each(&w, page, &r)
			raw0 += r.kind == RB_REC_DATA;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(raw0, PER_WRITER - 1);
	/* A page that does not hold what its record says is refused whole. */
	memset(buf, 0, 16 + 8 + RB_PAGE_SIZE);
	buf[4] = 1;
	assert_int_equal(trev_rb_stage_import(rb, buf, 16 + 8 + RB_PAGE_SIZE), -EBADMSG);
	while ((n = trev_rb_stage_export(att, buf, sizeof(buf))) > 0)
		assert_int_equal(trev_rb_stage_import(rb, buf, (size_t)n), 0);
	assert_int_equal(n, 0);
	trev_rb_destroy(att);
	assert_int_equal(trev_rb_return_consumer(rb), 0);
	for (uint32_t i = 0; i < PER_WRITER; i++)
		assert_int_equal(take_one(rb, -1, next, 1), 0);
	assert_int_equal(trev_rb_cpu_stats(rb, 1, &st), 0);
	assert_int_equal(st.overrun, 0);
	assert_int_equal(st.entries, 0);
	assert_int_equal(st.read_events, PER_WRITER);

	/* Staged again by the reader of CPU 0, handed out, never taken. */
	next[1] = 0;
	if (!write_on(rb, 1, 1) || !write_on(rb, 0, 0))
		fail_msg("the pinning that worked once failed");
	next[0] = 0;
	assert_int_equal(take_one(rb, 0, next, 0), 0);	/* stages CPU 1's */
	assert_int_equal(trev_rb_lend_consumer(rb), 0);
	n = trev_rb_stage_export(rb, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(trev_rb_return_consumer(rb), 0);
	assert_int_equal(trev_rb_cpu_stats(rb, 1, &st), 0);
	assert_int_equal(st.overrun, PER_WRITER);
	assert_int_equal(st.entries, 0);
	/* CPU 0's events are all there; CPU 1's next event says what was lost. */
	for (uint32_t i = 1; i < PER_WRITER; i++)
		assert_int_equal(take_one(rb, -1, next, 0), 0);
	next[1] = 0;
	if (!write_on(rb, 1, 1))
		fail_msg("the pinning that worked once failed");
	assert_int_equal(take_one(rb, -1, next, 1), PER_WRITER);
	trev_rb_destroy(rb);
}

/* A region that is not sealed, or not ours, is refused before it is mapped. */
static void test_refused_regions(void **state)
{
	struct trev_rb_options o = { .size_kb = 8, .cap_kb = 64, .clock = -1 };
	struct trev_rb *rb, *att = NULL;
	struct rb_region head;
	size_t size;
	void *copy;
	int fd;

	(void)state;
	assert_int_equal(trev_rb_create(&rb, &o), 0);
	size = rb->region_size;
	copy = malloc(size);
	assert_non_null(copy);
	memcpy(copy, rb->base, size);

	/* Not sealed against shrinking. */
	fd = memfd_create("t", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, copy, size, 0), (ssize_t)size);
	assert_int_equal(trev_rb_attach(&att, fd), -EPERM);
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
	assert_int_equal(trev_rb_attach(&att, fd), 0);	/* the same, sealed */
	trev_rb_destroy(att);
	close(fd);

	/* Headers that lie: version, page count past the file, an offset moved. */
	for (int lie = 0; lie < 3; lie++) {
		memcpy(&head, copy, sizeof(head));
		if (lie == 0)
			head.version++;
		else if (lie == 1)
			head.nr_pages *= 2;
		else
			head.page_off += RB_PAGE_SIZE;
		fd = memfd_create("t", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		assert_int_equal(pwrite(fd, copy, size, 0), (ssize_t)size);
		assert_int_equal(pwrite(fd, &head, sizeof(head), 0), (ssize_t)sizeof(head));
		assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
		assert_int_equal(trev_rb_attach(&att, fd), -EPROTO);
		close(fd);
	}
	free(copy);
	trev_rb_destroy(rb);
}

/* A memfd holding @size bytes of @data, sealed with @seals (0: none). */
static int sealed_copy(const void *data, size_t size, unsigned int seals)
{
	int fd = memfd_create("t", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, data, size, 0), (ssize_t)size);
	if (seals)
		assert_int_equal(fcntl(fd, F_ADD_SEALS, seals), 0);
	return fd;
}

/*
 * Busy areas trev_rb_attach_busy() must refuse: unsealed, another magic
 * or version, more words than the file holds, a file too small for one;
 * and the calls that make no sense (a buffer of our own, a second area).
 */
static void test_refused_busy_areas(void **state)
{
	struct trev_rb_options o = { .size_kb = 8, .cap_kb = 64, .clock = -1 };
	const unsigned int seals = F_SEAL_SHRINK | F_SEAL_GROW;
	size_t size = 4 * RB_BUSY_STRIDE;
	struct rb_busy_head head;
	struct trev_rb *rb, *att;
	uint8_t *area;
	int fd;

	(void)state;
	assert_int_equal(trev_rb_create(&rb, &o), 0);
	assert_int_equal(trev_rb_lend_consumer(rb), 0);
	assert_int_equal(trev_rb_attach(&att, trev_rb_memfd(rb)), 0);
	assert_true(trev_rb_busy_memfd() >= 0);
	assert_int_equal(trev_rb_attach_busy(rb, trev_rb_busy_memfd()), -EINVAL); /* our own */

	area = calloc(1, size);
	assert_non_null(area);
	head = (struct rb_busy_head){ RB_BUSY_MAGIC, RB_BUSY_VERSION, 3 };
	memcpy(area, &head, sizeof(head));
	fd = sealed_copy(area, size, 0);
	assert_int_equal(trev_rb_attach_busy(att, fd), -EPERM);	/* could shrink */
	close(fd);
	for (int lie = 0; lie < 4; lie++) {
		struct rb_busy_head h = head;

		if (lie == 0)
			h.magic ^= 1;
		else if (lie == 1)
			h.version++;
		else if (lie == 2)
			h.words = 4;	/* one past the file */
		else
			h.words = 0;
		memcpy(area, &h, sizeof(h));
		fd = sealed_copy(area, size, seals);
		assert_int_equal(trev_rb_attach_busy(att, fd), -EPROTO);
		close(fd);
	}
	memcpy(area, &head, sizeof(head));
	fd = sealed_copy(area, RB_BUSY_STRIDE, seals);	/* the header alone */
	assert_int_equal(trev_rb_attach_busy(att, fd), -EINVAL);
	close(fd);
	fd = sealed_copy(area, size, seals);
	assert_int_equal(trev_rb_attach_busy(att, fd), 0);
	assert_int_equal(trev_rb_attach_busy(att, fd), -EINVAL);	/* one area each */
	close(fd);
	free(area);
	trev_rb_destroy(att);
	assert_int_equal(trev_rb_return_consumer(rb), 0);
	trev_rb_destroy(rb);
}

/* Writers for test_read_page_any: pinned to one CPU each, or moving between them. */
struct any_writer {
	struct trev_rb *rb;
	uint32_t id;
	int cpu;		/* -1: move to the next CPU every 100 events */
	uint32_t n;
};

static atomic_int any_finished;

static void *any_write(void *arg)
{
	struct any_writer *w = arg;
	int nr = (int)sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	for (uint32_t i = 0; i < w->n; i++) {
		uint32_t *p;

		if ((w->cpu >= 0 && i == 0) || (w->cpu < 0 && i % 100 == 0)) {
			CPU_ZERO(&set);
			CPU_SET(w->cpu >= 0 ? w->cpu % nr : (int)(i / 100) % nr, &set);
			sched_setaffinity(0, sizeof(set), &set);	/* may fail: fine */
		}
		p = trev_rb_reserve(w->rb, 8);
		assert_non_null(p);
		p[0] = w->id;
		p[1] = i;
		trev_rb_commit(w->rb, p);
	}
	atomic_fetch_add(&any_finished, 1);
	return NULL;
}

/*
 * trev_rb_read_page_any() while writers write: every event exactly once,
 * each writer's in order within a CPU, whole pages or staged ones, and
 * each CPU's stream in time order. Read from the attached buffer
 * (@attached), that order needs the writers' busy words
 * (trev_rb_attach_busy()): a writer preempted between its time stamp and
 * its claim is seen only there.
 */
static void read_page_any(bool attached)
{
	enum { N = 20000, W = 3 };
	struct trev_rb_options o = { .size_kb = 4096, .clock = -1 };
	struct any_writer w[W];
	uint8_t page[RB_PAGE_SIZE];
	uint64_t *last_ts, events = 0;
	uint32_t next[W] = { 0 };
	static bool seen[W][N];
	static uint32_t last_seq[W][256];	/* per writer and CPU: last seq + 1 */
	struct trev_rb *rb, *att;
	pthread_t t[W];
	bool writing = true;
	int nr_cpus;

	atomic_store(&any_finished, 0);
	memset(seen, 0, sizeof(seen));
	memset(last_seq, 0, sizeof(last_seq));
	assert_int_equal(trev_rb_create(&rb, &o), 0);
	att = rb;
	if (attached) {
		assert_int_equal(trev_rb_lend_consumer(rb), 0);
		assert_int_equal(trev_rb_attach(&att, trev_rb_memfd(rb)), 0);
		assert_int_equal(trev_rb_attach_busy(att, trev_rb_busy_memfd()), 0);
	}
	nr_cpus = trev_rb_nr_cpus(att);
	assert_true(nr_cpus <= 256);
	last_ts = calloc((size_t)nr_cpus, sizeof(*last_ts));
	assert_non_null(last_ts);
	for (uint32_t i = 0; i < W; i++) {
		w[i] = (struct any_writer){ rb, i, i < 2 ? (int)i : -1, N };
		assert_int_equal(pthread_create(&t[i], NULL, any_write, &w[i]), 0);
	}
	for (;;) {
		/* Read before the call: a 0 after all writers finished means drained. */
		bool finished = atomic_load(&any_finished) == W;
		int cpu, ret = trev_rb_read_page_any(att, page, &cpu, writing ? TREV_RB_READ_FULL : 0);
		uint64_t commit = rb_get64(page + 8);
		struct rb_walk pw;
		struct rb_rec r;

		if (ret == -EAGAIN)
			continue;
		assert_true(ret >= 0);
		if (ret == 0) {
			if (!writing)
				break;		/* the partial pages are read too */
			if (finished)
				writing = false;
			else
				sched_yield();
			continue;
		}
		assert_true(cpu >= 0 && cpu < nr_cpus);
		assert_false(commit & RB_MISSED_EVENTS);
		assert_true((commit & RB_COMMIT_MASK) <= RB_DATA_SIZE);
		rb_page_for_each(&pw, page, &r) {
			if (r.kind == RB_REC_DATA) {
				uint32_t id, seq;

				assert_int_equal(r.len, 8);
				memcpy(&id, r.payload, 4);
				memcpy(&seq, r.payload + 4, 4);
				assert_true(id < W && seq < N);
				assert_false(seen[id][seq]);		/* once */
				seen[id][seq] = true;
				/* A writer's events on one CPU come in its order. */
				assert_true(seq + 1 > last_seq[id][cpu]);
				last_seq[id][cpu] = seq + 1;
				next[id]++;
				assert_true(r.ts >= last_ts[cpu]);	/* one CPU's stream in order */
				last_ts[cpu] = r.ts;
				events++;
			}
		}
	}
	for (int i = 0; i < W; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(next[i], N);
	}
	assert_int_equal(events, (uint64_t)N * W);
	free(last_ts);
	if (attached) {
		trev_rb_destroy(att);
		assert_int_equal(trev_rb_return_consumer(rb), 0);
	}
	trev_rb_destroy(rb);
}

static void test_read_page_any(void **state)
{
	(void)state;
	read_page_any(false);
}

static void test_read_page_any_attached(void **state)
{
	(void)state;
	read_page_any(true);
}

/*
 * A writer that laps the reader: overwrite mode, a 4-page buffer, one
 * thread on one CPU writing 40 pages of 24-byte records before anything is
 * read. The reader meets the overrun on the first page it reads; that page
 * goes out built with the lost count in front of as many records as leave
 * room for it (a full page of 24-byte records has none), not one staged
 * event at a time; the record left over follows on a page of its own, and
 * the pages after it go whole. Every record is read or counted lost.
 */
static void test_read_page_any_lapped(void **state)
{
	enum { N = 40 * 170, PER_PAGE = RB_DATA_SIZE / 24 };
	struct trev_rb_options o = { .size_kb = 16, .overwrite = 1, .clock = -1 };
	uint8_t page[RB_PAGE_SIZE];
	uint64_t read = 0, lost = 0, next_seq = 0;
	unsigned int pages = 0, lost_pages = 0;
	struct trev_rb *rb;
	cpu_set_t set, old;
	int cpu, ret;

	(void)state;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
	assert_int_equal(trev_rb_create(&rb, &o), 0);
	for (uint64_t i = 0; i < N; i++) {
		uint8_t *p = trev_rb_reserve(rb, 20);	/* a 24-byte record with its header */
		uint64_t inv = ~i;

		assert_non_null(p);
		memcpy(p, &i, 8);
		memcpy(p + 8, &inv, 8);
		memset(p + 16, 0, 4);
		trev_rb_commit(rb, p);
	}
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
	while ((ret = trev_rb_read_page_any(rb, page, &cpu, 0)) == 1) {
		uint64_t commit = rb_get64(page + 8), count;
		struct rb_walk w;
		struct rb_rec r;
		uint32_t n = 0;

		assert_int_equal(cpu, 0);
		assert_true((commit & RB_COMMIT_MASK) <= RB_DATA_SIZE);
		rb_page_for_each(&w, page, &r) {
			uint64_t seq;

			if (r.kind == RB_REC_DATA) {
				memcpy(&seq, r.payload, 8);
				/* in order; a gap is exactly what was counted lost */
				assert_true(seq >= next_seq);
				next_seq = seq + 1;
				read++;
				n++;
			}
		}
		if (commit & RB_MISSED_EVENTS) {
			assert_true(rb_walk_lost(&w, &count));
			lost += count;
			lost_pages++;
		}
		/*
		 * The page that carries the overrun holds a page of records but
		 * one, copied from the buffer's page: nothing was staged for it
		 * (staging takes events one at a time, and would have started a
		 * second staged page with the record that did not fit).
		 */
		if (commit & RB_MISSED_EVENTS) {
			assert_int_equal(n, PER_PAGE - 1);
			assert_null(rb->stage[0].head);
		}
		pages++;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(read + lost, N);
	assert_int_equal(next_seq, N);
	assert_int_equal(lost_pages, 1);
	assert_true(lost > 0);
	/* Full pages but the one record left over and the writer's last page. */
	assert_true(pages <= (read + PER_PAGE - 1) / PER_PAGE + 2);
	trev_rb_destroy(rb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lend_and_return),
		cmocka_unit_test(test_attached_pages),
		cmocka_unit_test(test_stage_handover),
		cmocka_unit_test(test_refused_regions),
		cmocka_unit_test(test_refused_busy_areas),
		cmocka_unit_test(test_read_page_any),
		cmocka_unit_test(test_read_page_any_attached),
		cmocka_unit_test(test_read_page_any_lapped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
