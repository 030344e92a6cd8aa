/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's ring-buffer startup test in userspace: writers, a signal storm
 * whose handlers write nested events, a consuming reader, and an observer
 * that reads statistics, names and iterators all along (pure reads: they must
 * not disturb the consumer); every event checked, attempted == read + lost
 * exactly in both modes, and the merged time order.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <trev/ring_buffer.h>

#define NR_WRITERS	3
#define MIN_LEN		8	/* payload lengths: 8..300, compact and long records */
#define MAX_LEN		300
#define SMALL_KB	16	/* four pages: overwrite overwrites, discard drops */
#define SETTLE_NS	20000000ull	/* readers wait this long for a stalled writer */

/* Events per writer, and the signal budget of a run (sizes the big buffers). */
#ifdef TREV_TSAN
#define NR_EVENTS	25000
#define NR_EVENTS_BIG	12000
#define MAX_SIGNALS	8000
#else
#define NR_EVENTS	120000
#define NR_EVENTS_BIG	60000
#define MAX_SIGNALS	30000
#endif

/*
 * Payload, all lengths MIN_LEN..MAX_LEN:
 *
 *   OFFSET   SIZE  MEANING
 *   0        4     sequence number, per (writer, origin)
 *   4        2     payload length (ev.len is padded to 4)
 *   6        1     tag: writer id | TAG_SIGNAL | TAG_SENTINEL
 *   7        1     checksum of bytes 0..6
 *   8        ...   fill pattern, a function of (seq, len, tag, offset)
 *   len - 4  4     FNV-1a of bytes 0..len-5 (only when len >= 12)
 */
#define TAG_WRITER	0x0fu
#define TAG_SIGNAL	0x10u
#define TAG_SENTINEL	0x20u

static uint32_t fnv1a(const uint8_t *p, uint32_t n)
{
	uint32_t h = 2166136261u;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static uint8_t fill_byte(uint32_t seq, uint32_t len, uint8_t tag, uint32_t i)
{
	return (uint8_t)(seq * 31u + i * 7u + len + tag * 13u);
}

/* Async-signal-safe: only arithmetic and stores. */
static void payload_build(uint8_t *p, uint32_t len, uint32_t seq, uint8_t tag)
{
	uint32_t end = len >= 12 ? len - 4 : len;
	uint16_t l16 = (uint16_t)len;

	memcpy(p, &seq, 4);
	memcpy(p + 4, &l16, 2);
	p[6] = tag;
	p[7] = (uint8_t)(fnv1a(p, 7) ^ 0x5a);
	for (uint32_t i = 8; i < end; i++)
		p[i] = fill_byte(seq, len, tag, i);
	if (len >= 12) {
		uint32_t h = fnv1a(p, len - 4);

		memcpy(p + len - 4, &h, 4);
	}
}

/* Return: NULL if @p of @ev_len (padded) bytes is intact, else what is wrong. */
static const char *payload_check(const uint8_t *p, uint32_t ev_len, uint32_t *seq, uint8_t *tag)
{
	uint16_t l16;
	uint32_t len, end;

	if (ev_len < MIN_LEN)
		return "event shorter than the smallest payload";
	memcpy(seq, p, 4);
	memcpy(&l16, p + 4, 2);
	*tag = p[6];
	len = l16;
	if (p[7] != (uint8_t)(fnv1a(p, 7) ^ 0x5a))
		return "header checksum";
	if (len < MIN_LEN || len > MAX_LEN)
		return "length field out of range";
	if (ev_len != ((len + 3u) & ~3u))
		return "ev.len is not the payload length padded to 4";
	end = len >= 12 ? len - 4 : len;
	for (uint32_t i = 8; i < end; i++)
		if (p[i] != fill_byte(*seq, len, *tag, i))
			return "fill pattern";
	if (len >= 12) {
		uint32_t h;

		memcpy(&h, p + len - 4, 4);
		if (h != fnv1a(p, len - 4))
			return "trailing checksum";
	}
	return NULL;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* One run                                                              */

struct hammer_cfg {
	const char *name;
	unsigned int size_kb;
	int overwrite;
	int storm;		/* signal sender on */
	unsigned int events;	/* per writer */
};

struct hammer_run;

struct writer {
	struct hammer_run *run;
	pthread_t thread;
	unsigned int id;
	pid_t tid;
	/* Touched only by the writer's own code. */
	uint64_t rng;
	uint32_t seq;
	uint64_t attempted, refused;
	uint64_t max_hold_ns;	/* longest reserve..commit, handlers inside included */
	int sentinel_err;
	/* Touched only by the writer's SIGUSR1 handler (it does not nest). */
	uint64_t sig_rng;
	uint32_t sig_seq;
	uint64_t sig_attempted, sig_refused;
	uint64_t sig_inside;	/* handler ran while the writer held a reservation */
	uint64_t sig_max_hold_ns; /* longest reserve..commit of a handler's own write */
	/* Shared between the two, on the same thread. */
	volatile sig_atomic_t in_resv;
};

/* What the reader saw, per writer. */
struct seen {
	uint64_t read[2];	/* per origin: 0 writer, 1 signal */
	int64_t last_seq[2];
	int buffer;		/* ev.buffer of this writer, -1 before its first event */
	uint64_t lost;		/* sum of ev.lost over its buffer's events */
	uint64_t last_ts;
	uint64_t sentinels;
};

struct hammer_run {
	const struct hammer_cfg *cfg;
	struct trev_rb *rb;
	struct writer w[NR_WRITERS];
	pthread_barrier_t phase;	/* writers + main */
	atomic_int stop_signals;
	atomic_int writers_quiet;
	atomic_ulong signals_sent;
	/* Reader results; the reader thread, then main after joining it. */
	struct seen seen[NR_WRITERS];
	uint64_t last_ts;
	uint64_t order_violations;
	struct trev_rb_event prev_ev;	/* the newest event returned so far */
	uint32_t prev_seq;
	uint8_t prev_tag;
	char violation[256];	/* the first event out of time order */
	uint64_t events_read;
	char err[256];		/* first error found off the main thread */
	int nerr;
	/* The observer's, read by main after joining it. */
	uint64_t observed;	/* rounds of statistics + iterator walks */
	uint64_t observed_events; /* events its iterators showed */
	char obs_err[256];	/* first error the observer found */
	int obs_nerr;
};

static __thread struct writer *this_writer;

static void run_error(struct hammer_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void run_error(struct hammer_run *run, const char *fmt, ...)
{
	va_list ap;

	if (run->nerr++)
		return;
	va_start(ap, fmt);
	vsnprintf(run->err, sizeof(run->err), fmt, ap);
	va_end(ap);
}

/* The handler writes one event of its own, tagged as signal-origin. */
static void on_sigusr1(int sig)
{
	struct writer *w = this_writer;
	int saved_errno = errno;
	uint8_t buf[MAX_LEN];
	uint32_t len, seq;
	uint64_t r, t0, t1;

	(void)sig;
	if (!w)
		return;
	if (w->in_resv)
		w->sig_inside++;
	r = xorshift(&w->sig_rng);
	len = MIN_LEN + (uint32_t)(r % (MAX_LEN - MIN_LEN + 1));
	seq = w->sig_seq++;
	payload_build(buf, len, seq, (uint8_t)(w->id | TAG_SIGNAL));
	w->sig_attempted++;
	t0 = now_ns();
	if ((r >> 32) & 1) {
		if (trev_rb_write(w->run->rb, buf, len) < 0)
			w->sig_refused++;
	} else {
		uint8_t *p = trev_rb_reserve(w->run->rb, len);

		if (!p) {
			w->sig_refused++;
		} else {
			memcpy(p, buf, len);
			trev_rb_commit(w->run->rb, p);
		}
	}
	t1 = now_ns();
	if (t1 - t0 > w->sig_max_hold_ns)
		w->sig_max_hold_ns = t1 - t0;
	errno = saved_errno;
}

/*
 * Between the two halves of a slow event: a short spin, then a system call,
 * on whose return a pending signal is delivered. Under ThreadSanitizer
 * signals are delivered at intercepted calls only, hence usleep there.
 */
static void mid_event_pause(uint64_t r)
{
	for (unsigned int i = 0; i < 32 + (r & 63); i++)
		__asm__ __volatile__("" ::: "memory");
#ifdef TREV_TSAN
	usleep(0);
#else
	if ((r >> 8) % 16 == 0)
		sched_yield();
	else
		syscall(SYS_getppid);
#endif
	__asm__ __volatile__("" ::: "memory");
}

/* One event from the writer's own code: three ways of writing. */
static void writer_event(struct writer *w, uint8_t tag)
{
	struct trev_rb *rb = w->run->rb;
	uint64_t r = xorshift(&w->rng), t0, t1;
	uint32_t len = MIN_LEN + (uint32_t)(r % (MAX_LEN - MIN_LEN + 1));
	uint8_t buf[MAX_LEN];
	uint8_t *p;

	payload_build(buf, len, w->seq++, tag);
	w->attempted++;
	t0 = now_ns();
	switch ((r >> 16) % 3) {
	case 0:
		if (trev_rb_write(rb, buf, len) < 0)
			w->refused++;
		break;
	case 1:
		p = trev_rb_reserve(rb, len);
		if (!p) {
			w->refused++;
			break;
		}
		memcpy(p, buf, len);
		trev_rb_commit(rb, p);
		break;
	default:
		/* Slow: a handler may write while this reservation is open. */
		p = trev_rb_reserve(rb, len);
		if (!p) {
			w->refused++;
			break;
		}
		w->in_resv = 1;
		memcpy(p, buf, len / 2);
		mid_event_pause(r >> 20);
		memcpy(p + len / 2, buf + len / 2, len - len / 2);
		__asm__ __volatile__("" ::: "memory");
		trev_rb_commit(rb, p);
		w->in_resv = 0;
		break;
	}
	t1 = now_ns();
	if (t1 - t0 > w->max_hold_ns)
		w->max_hold_ns = t1 - t0;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct hammer_run *run = w->run;
	sigset_t set;

	w->tid = gettid();
	this_writer = w;
	/* The buffer is made by the first event, before any signal comes. */
	writer_event(w, (uint8_t)w->id);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);

	pthread_barrier_wait(&run->phase);	/* B0: go */
	for (unsigned int i = 1; i < run->cfg->events; i++)
		writer_event(w, (uint8_t)w->id);
	pthread_barrier_wait(&run->phase);	/* B1: all written */
	pthread_barrier_wait(&run->phase);	/* B2: the sender has stopped */
	/* Returning from B2 took a system call: pending signals are handled. */
	pthread_barrier_wait(&run->phase);	/* B3: all quiet */
	pthread_barrier_wait(&run->phase);	/* B4: reader drained, stats taken */

	/* The sentinel carries any loss after this writer's last event read. */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	w->attempted++;
	{
		uint8_t buf[16];

		payload_build(buf, sizeof(buf), w->seq++, (uint8_t)(w->id | TAG_SENTINEL));
		if (trev_rb_write(run->rb, buf, sizeof(buf)) < 0) {
			w->refused++;
			w->sentinel_err = 1;
		}
	}
	this_writer = NULL;
	return NULL;
}

static void *sender_main(void *arg)
{
	struct hammer_run *run = arg;
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	struct timespec pause = { 0, 0 };

	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	while (!atomic_load(&run->stop_signals) && atomic_load(&run->signals_sent) < MAX_SIGNALS) {
		uint64_t r = xorshift(&rng);
		unsigned int burst = 1 + (unsigned int)((r >> 8) % 3);

		for (unsigned int b = 0; b < burst; b++) {
			pthread_kill(run->w[r % NR_WRITERS].thread, SIGUSR1);
			atomic_fetch_add(&run->signals_sent, 1);
		}
		pause.tv_nsec = (long)((r >> 16) % 40000);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

/* Check one consumed event and account for it. */
static void account_event(struct hammer_run *run, const struct trev_rb_event *ev)
{
	const char *bad;
	struct seen *s;
	uint32_t seq;
	uint8_t tag;
	int origin;
	unsigned int id;

	run->events_read++;
	bad = payload_check(ev->data, ev->len, &seq, &tag);
	if (bad) {
		run_error(run, "event %llu (len %u, buffer %u): %s",
			  (unsigned long long)run->events_read, ev->len, ev->buffer, bad);
		return;
	}
	id = tag & TAG_WRITER;
	if (id >= NR_WRITERS || (tag & ~(TAG_WRITER | TAG_SIGNAL | TAG_SENTINEL))) {
		run_error(run, "bad tag 0x%x", tag);
		return;
	}
	s = &run->seen[id];
	origin = (tag & TAG_SIGNAL) ? 1 : 0;
	if (ev->tid != run->w[id].tid)
		run_error(run, "writer %u: ev.tid %d, expected %d", id, (int)ev->tid,
			  (int)run->w[id].tid);
	if (s->buffer < 0)
		s->buffer = (int)ev->buffer;
	else if ((unsigned int)s->buffer != ev->buffer)
		run_error(run, "writer %u: events in buffers %d and %u", id, s->buffer, ev->buffer);
	if (ev->cpu < 0)
		run_error(run, "negative ev.cpu %d", ev->cpu);
	if ((int64_t)seq <= s->last_seq[origin])
		run_error(run, "writer %u origin %d: seq %u after %lld", id, origin, seq,
			  (long long)s->last_seq[origin]);
	s->last_seq[origin] = seq;
	if (ev->ts < s->last_ts)
		run_error(run, "writer %u: ts %llu after %llu in its own buffer", id,
			  (unsigned long long)ev->ts, (unsigned long long)s->last_ts);
	s->last_ts = ev->ts;
	if (ev->ts < run->last_ts) {
		if (!run->order_violations++)
			snprintf(run->violation, sizeof(run->violation),
				 "event #%llu (w%u %s seq %u, buffer %u, cpu %d, lost %llu) ts %llu "
				 "came %llu ns older than the one before it (w%u %s seq %u, buffer %u, "
				 "cpu %d, lost %llu) ts %llu",
				 (unsigned long long)run->events_read, id, origin ? "sig" : "thr", seq,
				 ev->buffer, ev->cpu, (unsigned long long)ev->lost,
				 (unsigned long long)ev->ts,
				 (unsigned long long)(run->last_ts - ev->ts),
				 run->prev_tag & TAG_WRITER, (run->prev_tag & TAG_SIGNAL) ? "sig" : "thr",
				 run->prev_seq, run->prev_ev.buffer, run->prev_ev.cpu,
				 (unsigned long long)run->prev_ev.lost,
				 (unsigned long long)run->prev_ev.ts);
	} else {
		run->last_ts = ev->ts;
		run->prev_ev = *ev;
		run->prev_seq = seq;
		run->prev_tag = tag;
	}
	s->read[origin]++;
	s->lost += ev->lost;
	if (tag & TAG_SENTINEL)
		s->sentinels++;
}

static void *reader_main(void *arg)
{
	struct hammer_run *run = arg;
	struct trev_rb_event ev;
	int ret;

	while (!atomic_load(&run->writers_quiet)) {
		ret = trev_rb_consume(run->rb, &ev, 10);
		if (ret == 1)
			account_event(run, &ev);
		else if (ret < 0)
			run_error(run, "trev_rb_consume: %d", ret);
	}
	while ((ret = trev_rb_consume(run->rb, &ev, 0)) == 1)
		account_event(run, &ev);
	if (ret < 0)
		run_error(run, "trev_rb_consume (drain): %d", ret);
	return NULL;
}

/*
 * What a monitor does while the reader consumes: every statistic, the thread
 * names, and a short iterator walk whose events must be intact too.
 */
static void *observer_main(void *arg)
{
	struct hammer_run *run = arg;
	unsigned int ids[NR_WRITERS + 1];
	struct trev_rb_stats st;
	struct trev_rb_event ev;
	char comm[16];

	while (!atomic_load(&run->writers_quiet)) {
		struct trev_rb_iter *it;
		int n = trev_rb_buffers(run->rb, ids, NR_WRITERS + 1);

		for (int i = 0; i < n && i <= NR_WRITERS; i++) {
			trev_rb_buffer_stats(run->rb, ids[i], &st);
			trev_rb_buffer_comm(run->rb, ids[i], comm);
		}
		for (int cpu = 0; cpu < trev_rb_nr_cpus(run->rb); cpu++)
			trev_rb_cpu_stats(run->rb, cpu, &st);
		it = trev_rb_iter_start(run->rb);
		for (int k = 0; it && k < 256 && trev_rb_iter_next(it, &ev) == 1; k++) {
			const char *why;
			uint32_t seq;
			uint8_t tag;

			why = payload_check(ev.data, ev.len, &seq, &tag);
			if (why && !run->obs_nerr++)
				snprintf(run->obs_err, sizeof(run->obs_err), "iterator: %s", why);
			run->observed_events++;
		}
		trev_rb_iter_finish(it);
		run->observed++;
	}
	return NULL;
}

/* Per writer buffer, at one moment: what was attempted and read, and the stats. */
struct acct {
	uint64_t attempted, refused, sig_refused, sig_attempted, sig_inside, read;
	struct trev_rb_stats st;
	int stats_ret;
};

/* Main thread, with the writers parked or joined and the reader joined. */
static void take_acct(struct hammer_run *run, struct acct *a)
{
	for (unsigned int i = 0; i < NR_WRITERS; i++) {
		const struct writer *w = &run->w[i];
		const struct seen *s = &run->seen[i];

		memset(&a[i], 0, sizeof(a[i]));
		a[i].attempted = w->attempted + w->sig_attempted;
		a[i].refused = w->refused + w->sig_refused;
		a[i].sig_attempted = w->sig_attempted;
		a[i].sig_refused = w->sig_refused;
		a[i].sig_inside = w->sig_inside;
		a[i].read = s->read[0] + s->read[1];
		a[i].stats_ret = s->buffer < 0 ? -ENOENT :
			trev_rb_buffer_stats(run->rb, (unsigned int)s->buffer, &a[i].st);
	}
}

/* The stats identities of every writer's buffer; @what names the moment. */
static void check_stats(const struct hammer_run *run, const struct acct *a, const char *what)
{
	uint64_t sum_lost = 0, sum_missing = 0;

	for (unsigned int i = 0; i < NR_WRITERS; i++) {
		const struct trev_rb_stats *st = &a[i].st;
		uint64_t att = a[i].attempted, ref = a[i].refused, rd = a[i].read;

		print_message("  %s w%u: attempted %llu refused %llu (signals %llu/%llu, %llu "
			      "inside a reservation) read %llu | written %llu dropped %llu "
			      "overrun %llu commit_overrun %llu entries %llu read_events %llu\n",
			      what, i, (unsigned long long)att, (unsigned long long)ref,
			      (unsigned long long)a[i].sig_refused,
			      (unsigned long long)a[i].sig_attempted,
			      (unsigned long long)a[i].sig_inside, (unsigned long long)rd,
			      (unsigned long long)st->written, (unsigned long long)st->dropped_events,
			      (unsigned long long)st->overrun, (unsigned long long)st->commit_overrun,
			      (unsigned long long)st->entries, (unsigned long long)st->read_events);
		assert_int_equal(a[i].stats_ret, 0);
		assert_int_equal(st->tid, run->w[i].tid);
		/* Committed events: every attempt that was not refused. */
		assert_int_equal(st->written, att - ref);
		/* Refused events are dropped (commit_overrun: refused, nested wrap). */
		assert_int_equal(st->dropped_events + st->commit_overrun, ref);
		assert_int_equal(st->read_events, rd);
		assert_int_equal(st->entries, 0);
		assert_int_equal(st->bytes, 0);
		/* Nothing lost silently: dropped + overwritten == attempted - read. */
		assert_int_equal(st->dropped_events + st->commit_overrun + st->overrun, att - rd);
		sum_lost += st->dropped_events + st->commit_overrun + st->overrun;
		sum_missing += att - rd;
	}
	assert_int_equal(sum_lost, sum_missing);
}

static void hammer(const struct hammer_cfg *cfg)
{
	static struct hammer_run run;
	struct trev_rb_options opts = {
		.size_kb = cfg->size_kb, .overwrite = cfg->overwrite, .clock = -1,
	};
	struct sigaction sa, old_sa;
	sigset_t set, old_set;
	pthread_t reader, sender, observer;
	struct acct mid[NR_WRITERS], end[NR_WRITERS];
	struct trev_rb_event ev;
	unsigned int ids[NR_WRITERS + 1];
	uint64_t max_hold = 0, t_start = now_ns(), drained = 0, nobuf_mid, nobuf_end;
	int nbuf, ret;

	memset(&run, 0, sizeof(run));
	run.cfg = cfg;
	for (unsigned int i = 0; i < NR_WRITERS; i++) {
		run.seen[i].buffer = -1;
		run.seen[i].last_seq[0] = run.seen[i].last_seq[1] = -1;
		run.w[i].run = &run;
		run.w[i].id = i;
		run.w[i].rng = 0x1234567ull * (i + 1) + cfg->size_kb;
		run.w[i].sig_rng = 0x7654321ull * (i + 7) + cfg->size_kb;
	}
	assert_int_equal(trev_rb_create(&run.rb, &opts), 0);
	assert_int_equal(trev_rb_size_kb(run.rb), cfg->size_kb);

	/* Only the writers take SIGUSR1; main, reader and sender block it. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	assert_int_equal(pthread_sigmask(SIG_BLOCK, &set, &old_set), 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old_sa), 0);

	assert_int_equal(pthread_barrier_init(&run.phase, NULL, NR_WRITERS + 1), 0);
	assert_int_equal(pthread_create(&reader, NULL, reader_main, &run), 0);
	assert_int_equal(pthread_create(&observer, NULL, observer_main, &run), 0);
	for (unsigned int i = 0; i < NR_WRITERS; i++)
		assert_int_equal(pthread_create(&run.w[i].thread, NULL, writer_main, &run.w[i]), 0);

	pthread_barrier_wait(&run.phase);	/* B0 */
	if (cfg->storm)
		assert_int_equal(pthread_create(&sender, NULL, sender_main, &run), 0);
	pthread_barrier_wait(&run.phase);	/* B1 */
	atomic_store(&run.stop_signals, 1);
	if (cfg->storm)
		pthread_join(sender, NULL);
	pthread_barrier_wait(&run.phase);	/* B2 */
	pthread_barrier_wait(&run.phase);	/* B3 */
	atomic_store(&run.writers_quiet, 1);
	pthread_join(reader, NULL);
	pthread_join(observer, NULL);

	take_acct(&run, mid);
	nobuf_mid = trev_rb_nobuf_dropped(run.rb);
	pthread_barrier_wait(&run.phase);	/* B4: sentinels */
	for (unsigned int i = 0; i < NR_WRITERS; i++)
		pthread_join(run.w[i].thread, NULL);
	while ((ret = trev_rb_consume(run.rb, &ev, 0)) == 1) {
		account_event(&run, &ev);
		drained++;
	}
	take_acct(&run, end);
	nobuf_end = trev_rb_nobuf_dropped(run.rb);
	nbuf = trev_rb_buffers(run.rb, ids, NR_WRITERS + 1);

	sigaction(SIGUSR1, &old_sa, NULL);
	pthread_sigmask(SIG_SETMASK, &old_set, NULL);
	pthread_barrier_destroy(&run.phase);
	trev_rb_destroy(run.rb);

	for (unsigned int i = 0; i < NR_WRITERS; i++) {
		if (run.w[i].max_hold_ns > max_hold)
			max_hold = run.w[i].max_hold_ns;
		if (run.w[i].sig_max_hold_ns > max_hold)
			max_hold = run.w[i].sig_max_hold_ns;
	}
	print_message("  %s: %llu events read, %lu signals sent, longest write %.3f ms, "
		      "%llu merge-order inversions, %llu observer rounds (%llu events), %.2f s\n",
		      cfg->name, (unsigned long long)run.events_read, atomic_load(&run.signals_sent),
		      max_hold / 1e6, (unsigned long long)run.order_violations,
		      (unsigned long long)run.observed, (unsigned long long)run.observed_events,
		      (now_ns() - t_start) / 1e9);

	/* Every event intact, in order per (thread, origin) and per buffer. */
	if (run.nerr)
		fail_msg("%s: %d errors, first: %s", cfg->name, run.nerr, run.err);
	if (run.obs_nerr)
		fail_msg("%s: %d observer errors, first: %s", cfg->name, run.obs_nerr, run.obs_err);
	assert_true(run.observed > 0);
	assert_int_equal(ret, 0);
	assert_int_equal(nbuf, NR_WRITERS);
	assert_int_equal(nobuf_mid, 0);
	assert_int_equal(nobuf_end, 0);

	/* Sentinels: one per writer, accepted, read last. */
	assert_int_equal(drained, NR_WRITERS);
	for (unsigned int i = 0; i < NR_WRITERS; i++) {
		assert_int_equal(run.w[i].sentinel_err, 0);
		assert_int_equal(run.seen[i].sentinels, 1);
	}
	/* After the writers quiesced and the reader drained; and at the end. */
	check_stats(&run, mid, "drained");
	check_stats(&run, end, "end");

	/* attempted == read + sum(ev.lost), per buffer: every loss was reported. */
	for (unsigned int i = 0; i < NR_WRITERS; i++) {
		const struct seen *s = &run.seen[i];

		if (end[i].attempted != end[i].read + s->lost)
			fail_msg("%s w%u: attempted %llu != read %llu + sum(ev.lost) %llu "
				 "(stats: dropped %llu overrun %llu commit_overrun %llu)",
				 cfg->name, i, (unsigned long long)end[i].attempted,
				 (unsigned long long)end[i].read, (unsigned long long)s->lost,
				 (unsigned long long)end[i].st.dropped_events,
				 (unsigned long long)end[i].st.overrun,
				 (unsigned long long)end[i].st.commit_overrun);
	}

	/*
	 * The merged order: readers wait up to 20 ms for a write stalled
	 * between its time stamp and its commit (docs/ring-buffer.md); only a
	 * write (a writer's or a handler's) held open that long may show up
	 * out of order.
	 */
	if (run.order_violations && max_hold < SETTLE_NS)
		fail_msg("%s: %llu events out of time order although no write was held open for "
			 "%llu ns; first: %s",
			 cfg->name, (unsigned long long)run.order_violations, SETTLE_NS,
			 run.violation);

	/* The run did what it is meant to. */
	if (cfg->storm) {
		uint64_t inside = 0, sig_read = 0;

		for (unsigned int i = 0; i < NR_WRITERS; i++) {
			inside += run.w[i].sig_inside;
			sig_read += run.seen[i].read[1];
		}
		assert_true(sig_read > 0);
		assert_true(inside > 0);
	}
	for (unsigned int i = 0; i < NR_WRITERS; i++) {
		const struct trev_rb_stats *st = &end[i].st;

		if (cfg->size_kb == SMALL_KB && cfg->overwrite) {
			assert_true(st->overrun > 0);
		} else if (cfg->size_kb == SMALL_KB) {
			assert_true(st->dropped_events > 0);
			assert_int_equal(st->overrun, 0);
		} else {
			/*
			 * Big enough for everything: no overrun, and the only
			 * refusals allowed are handlers that landed inside the
			 * few instructions of a reservation (docs/ring-buffer.md).
			 */
			assert_int_equal(st->overrun, 0);
			assert_int_equal(st->commit_overrun, 0);
			assert_int_equal(run.w[i].refused, 0);
			assert_int_equal(st->dropped_events, run.w[i].sig_refused);
			assert_int_equal(run.seen[i].lost, run.w[i].sig_refused);
			if (!cfg->storm) {
				assert_int_equal(run.seen[i].lost, 0);
				assert_int_equal(end[i].read, end[i].attempted);
			}
		}
	}
}

/* Pages big enough for every event a writer and its handler can attempt. */
static unsigned int big_size_kb(void)
{
	/* A page holds at least 12 records of <= 308 bytes (+ markers). */
	unsigned int pages = (NR_EVENTS_BIG + MAX_SIGNALS + 1) / 12 + 4;

	return pages * (TREV_RB_PAGE_SIZE / 1024);
}

static void test_hammer_overwrite(void **state)
{
	struct hammer_cfg cfg = { "overwrite, 16 KB, signal storm", SMALL_KB, 1, 1, NR_EVENTS };

	(void)state;
	hammer(&cfg);
}

static void test_hammer_discard(void **state)
{
	struct hammer_cfg cfg = { "discard, 16 KB, signal storm", SMALL_KB, 0, 1, NR_EVENTS };

	(void)state;
	hammer(&cfg);
}

static void test_hammer_big_storm(void **state)
{
	struct hammer_cfg cfg = { "overwrite, big, signal storm", big_size_kb(), 1, 1,
				  NR_EVENTS_BIG };

	(void)state;
	hammer(&cfg);
}

static void test_hammer_big_quiet(void **state)
{
	struct hammer_cfg cfg = { "discard, big, no signals", big_size_kb(), 0, 0,
				  NR_EVENTS_BIG };

	(void)state;
	hammer(&cfg);
}

/* ------------------------------------------------------------------ */
/* A handler that lands inside a reserve which is then refused          */

#define REFUSE_ROUNDS	3000
#define BIG_LEN		300	/* 13 to a page, 76 bytes left over */
#define SMALL_LEN	4	/* fits in what is left over */

struct refuse_run {
	struct trev_rb *rb;
	pthread_t writer;
	atomic_int round, parked, done;
	atomic_ulong committed;		/* events the writer and its handler got in */
	atomic_ulong handler_ok;
};

static struct refuse_run *refuse_run;

static void on_sigusr1_small(int sig)
{
	struct refuse_run *rr = refuse_run;
	uint32_t v = 0x51515151;
	int saved_errno = errno;

	(void)sig;
	if (rr && trev_rb_write(rr->rb, &v, SMALL_LEN) == 0) {
		atomic_fetch_add(&rr->committed, 1);
		atomic_fetch_add(&rr->handler_ok, 1);
	}
	errno = saved_errno;
}

/* Each round: big events until the first refusal, then park, signals blocked. */
static void *refuse_writer_main(void *arg)
{
	struct refuse_run *rr = arg;
	uint8_t big[BIG_LEN];
	sigset_t set;
	int seen = 0;

	memset(big, 0xb1, sizeof(big));
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	while (!atomic_load(&rr->done)) {
		if (atomic_load(&rr->round) == seen) {
			sched_yield();
			continue;
		}
		seen = atomic_load(&rr->round);
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		while (trev_rb_write(rr->rb, big, sizeof(big)) == 0)
			atomic_fetch_add(&rr->committed, 1);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
		atomic_store(&rr->parked, seen);
	}
	return NULL;
}

static void *refuse_sender_main(void *arg)
{
	struct refuse_run *rr = arg;

	while (!atomic_load(&rr->done)) {
		pthread_kill(rr->writer, SIGUSR1);
		for (int i = 0; i < 200; i++)
			__asm__ __volatile__("" ::: "memory");
	}
	return NULL;
}

/*
 * A signal handler's event that lands in trev_rb_reserve() after the
 * nesting count went up, when that reserve is then refused (discard mode,
 * no page for the big event, while the small one still fits), is committed
 * all the same. It must be published: with the writer parked at nesting 0,
 * every committed event is readable, at the end of every round.
 */
static void test_hammer_refused_reserve(void **state)
{
	static struct refuse_run rr;
	struct trev_rb_options opts = { .size_kb = 8, .overwrite = 0, .clock = -1 };
	struct sigaction sa, old_sa;
	sigset_t set, old_set;
	struct trev_rb_event ev;
	pthread_t sender;
	uint64_t read = 0, bad_committed = 0, bad_read = 0;
	int bad_round = -1, bad_rounds = 0;

	(void)state;
	memset(&rr, 0, sizeof(rr));
	assert_int_equal(trev_rb_create(&rr.rb, &opts), 0);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	assert_int_equal(pthread_sigmask(SIG_BLOCK, &set, &old_set), 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1_small;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	refuse_run = &rr;
	assert_int_equal(sigaction(SIGUSR1, &sa, &old_sa), 0);
	assert_int_equal(pthread_create(&rr.writer, NULL, refuse_writer_main, &rr), 0);
	assert_int_equal(pthread_create(&sender, NULL, refuse_sender_main, &rr), 0);

	for (int r = 1; r <= REFUSE_ROUNDS; r++) {
		uint64_t committed;

		atomic_store(&rr.round, r);
		while (atomic_load(&rr.parked) != r)
			sched_yield();
		while (trev_rb_consume(rr.rb, &ev, 0) == 1)
			read++;
		committed = atomic_load(&rr.committed);
		if (read != committed) {
			if (!bad_rounds++) {
				bad_round = r;
				bad_committed = committed;
				bad_read = read;
			}
			read = committed;	/* the next round's commit publishes them */
		}
	}
	atomic_store(&rr.done, 1);
	pthread_join(sender, NULL);
	pthread_join(rr.writer, NULL);
	sigaction(SIGUSR1, &old_sa, NULL);
	refuse_run = NULL;
	pthread_sigmask(SIG_SETMASK, &old_set, NULL);
	trev_rb_destroy(rr.rb);

	print_message("  %d rounds, %lu handler events; %d rounds left committed events unreadable\n",
		      REFUSE_ROUNDS, atomic_load(&rr.handler_ok), bad_rounds);
	if (bad_rounds)
		fail_msg("round %d: %llu events committed but only %llu readable with the writer "
			 "idle (%d rounds like it)", bad_round, (unsigned long long)bad_committed,
			 (unsigned long long)bad_read, bad_rounds);
	assert_true(atomic_load(&rr.handler_ok) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hammer_overwrite),
		cmocka_unit_test(test_hammer_discard),
		cmocka_unit_test(test_hammer_big_storm),
		cmocka_unit_test(test_hammer_big_quiet),
		cmocka_unit_test(test_hammer_refused_reserve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
