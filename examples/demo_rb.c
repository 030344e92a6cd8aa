/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Ring buffer demo: four named threads write events, a timer signal writes
 * more from inside the threads' handlers, a reader prints some of them as
 * trace_pipe-style lines, and each buffer's stats are printed at the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <trev/ring_buffer.h>

#define NR_WORKERS	4
#define EVENTS		20000

/* What the demo stores per event. */
struct demo_event {
	int32_t seq;		/* per-thread sequence */
	int32_t from_signal;	/* 1 when written by the signal handler */
	uint64_t value;		/* some payload */
};

static struct trev_rb *rb;
static atomic_int workers_left = NR_WORKERS;
static __thread int32_t signal_seq;

static void emit(int32_t seq, int from_signal, uint64_t value)
{
	struct demo_event *e = trev_rb_reserve(rb, sizeof(*e));

	if (!e)
		return;		/* refused; the buffer counts it */
	e->seq = seq;
	e->from_signal = from_signal;
	e->value = value;
	trev_rb_commit(rb, e);
}

static void on_alarm(int sig)
{
	(void)sig;
	emit(signal_seq++, 1, 0xa1a7);
}

static void *worker(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "worker-%ld", (long)arg);
	pthread_setname_np(pthread_self(), name);
	for (int32_t i = 0; i < EVENTS; i++) {
		emit(i, 0, (uint64_t)i * i);
		if (i % 512 == 0)
			usleep(1000);
	}
	atomic_fetch_sub(&workers_left, 1);
	return NULL;
}

static void print_event(const struct trev_rb_event *ev)
{
	const struct demo_event *e = ev->data;
	struct trev_rb_stats st;

	if (ev->lost)
		printf("CPU:%d [LOST %" PRIu64 " EVENTS]\n", ev->cpu, ev->lost);
	if (trev_rb_buffer_stats(rb, ev->buffer, &st) < 0)
		strcpy(st.comm, "<...>");
	printf("%16s-%-5d [%03d] %5" PRIu64 ".%06" PRIu64 ": demo: seq=%d from=%s value=%" PRIu64
	       "\n",
	       st.comm, ev->tid, ev->cpu, ev->ts / 1000000000, ev->ts % 1000000000 / 1000, e->seq,
	       e->from_signal ? "signal" : "thread", e->value);
}

static void print_stats(void)
{
	unsigned int ids[64];
	int n = trev_rb_buffers(rb, ids, 64);

	for (int i = 0; i < n && i < 64; i++) {
		struct trev_rb_stats st;

		if (trev_rb_buffer_stats(rb, ids[i], &st) < 0)
			continue;
		printf("\n# buffer %u: %s-%d (%s)\n", ids[i], st.comm, st.tid,
		       st.alive ? "alive" : "exited");
		printf("entries: %" PRIu64 "\noverrun: %" PRIu64 "\ncommit overrun: %" PRIu64
		       "\nbytes: %" PRIu64 "\noldest event ts: %5" PRIu64 ".%06" PRIu64
		       "\nnow ts: %5" PRIu64 ".%06" PRIu64 "\ndropped events: %" PRIu64
		       "\nread events: %" PRIu64 "\n",
		       st.entries, st.overrun, st.commit_overrun, st.bytes,
		       st.oldest_event_ts / 1000000000, st.oldest_event_ts % 1000000000 / 1000,
		       st.now_ts / 1000000000, st.now_ts % 1000000000 / 1000, st.dropped_events,
		       st.read_events);
	}
}

int main(void)
{
	struct itimerval every_ms = { { 0, 1000 }, { 0, 1000 } };
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	struct trev_rb_options opts = { .size_kb = 64, .overwrite = 0, .clock = -1 };
	pthread_t tids[NR_WORKERS];
	struct trev_rb_event ev;
	uint64_t shown = 0, shown_signal = 0, total = 0;
	sigset_t block;
	int err;

	err = trev_rb_create(&rb, &opts);
	if (err < 0) {
		fprintf(stderr, "demo_rb: cannot create the buffer: %s\n", strerror(-err));
		return 1;
	}
	printf("# trev ring buffer demo: %d threads x %d events, SIGALRM every 1 ms, "
	       "clock %s, %u KB per thread, discard mode\n",
	       NR_WORKERS, EVENTS, trev_clock_name(trev_rb_clock(rb)), trev_rb_size_kb(rb));
	sigaction(SIGALRM, &sa, NULL);
	for (long i = 0; i < NR_WORKERS; i++)
		pthread_create(&tids[i], NULL, worker, (void *)i);
	/* Only the workers take the signal, so their handlers nest in them. */
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &block, NULL);
	setitimer(ITIMER_REAL, &every_ms, NULL);

	/* trace_pipe: consume while they write; show the first and last few. */
	while (atomic_load(&workers_left) > 0 || trev_rb_wait(rb, 0) > 0) {
		if (trev_rb_consume(rb, &ev, 20) <= 0)
			continue;
		total++;
		if (((const struct demo_event *)ev.data)->from_signal) {
			if (shown_signal++ < 4)
				print_event(&ev);
		} else if (shown++ < 8 || ev.lost) {
			print_event(&ev);
		}
	}
	setitimer(ITIMER_REAL, &(struct itimerval){ 0 }, NULL);
	for (int i = 0; i < NR_WORKERS; i++)
		pthread_join(tids[i], NULL);
	while (trev_rb_consume(rb, &ev, 0) > 0)
		total++;
	printf("...\n# read %" PRIu64 " events\n", total);
	print_stats();
	trev_rb_destroy(rb);
	return 0;
}
