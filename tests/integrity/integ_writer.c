/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The integrity harness's writer threads and signal-handler writes (integ_writer.h). */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "integ_events.h"
#include "integ_check.h"
#include "integ_writer.h"

static __thread struct integ_wthread *integ_self;

void integ_write(uint32_t stream, uint64_t seq)
{
	char p[INTEG_MAX_LEN + 1];
	uint32_t len = integ_payload(stream, seq, p);

	trace_integ_rec(stream, seq, p, len, integ_check_value(stream, seq, p, len));
}

/* Runs on a writer thread only (the sender targets writers); does not nest (SIGUSR1 is masked in it). */
static void integ_on_sigusr1(int sig)
{
	struct integ_wthread *w = integ_self;
	int saved_errno = errno;

	(void)sig;
	if (w)
		integ_write(w->idx | INTEG_SIG, w->sig_seq++);
	errno = saved_errno;
}

/*
 * The final events: one on each CPU the thread may run on, in CPU order
 * (seq 0, 1, ...). A loss is reported with the next event of its buffer, and
 * a per-CPU reader's staging loss with the next event of its CPU: with a
 * final event of every thread on every CPU, both come after every loss.
 */
static void integ_write_ends(struct integ_wthread *w)
{
	long nr = sysconf(_SC_NPROCESSORS_CONF);
	cpu_set_t allowed, one;

	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		integ_write(w->idx | INTEG_END, w->end++);
		return;
	}
	for (long c = 0; c < nr && c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET((int)c, &allowed))
			continue;
		CPU_ZERO(&one);
		CPU_SET((int)c, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		integ_write(w->idx | INTEG_END, w->end++);
	}
	if (!w->end)
		integ_write(w->idx | INTEG_END, w->end++);
	sched_setaffinity(0, sizeof(allowed), &allowed);
}

static void *integ_writer_main(void *arg)
{
	struct integ_wthread *w = arg;
	struct integ_writers *ws = w->ws;
	char name[16];
	sigset_t set;

	snprintf(name, sizeof(name), "integ-w%u", w->idx);
	pthread_setname_np(pthread_self(), name);
	w->tid = gettid();
	integ_self = w;
	/*
	 * The first event makes the thread's buffer, before any handler can
	 * run (as test_rb_hammer does). A handler that writes while its
	 * thread's first event is making the buffer gets its event refused
	 * and counted in trev_rb_nobuf_dropped(), which no reader reports as
	 * lost, and now and then leaves the thread with two buffers (two
	 * per_thread_stats lines for one tid): a separate finding, kept out
	 * of these relations (see the report of the integ branch).
	 */
	if (ws->cfg.events)
		integ_write(w->idx, w->seq++);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	for (unsigned int i = 1; i < ws->cfg.events; i++) {
		integ_write(w->idx, w->seq++);
		/*
		 * Now and then a system call: other threads get the CPU on a
		 * loaded machine, and ThreadSanitizer delivers signals only
		 * at the calls it intercepts.
		 */
		if (ws->cfg.pause_us)
			usleep(ws->cfg.pause_us);
		else if (i % 64 == 63)
			sched_yield();
	}
	pthread_barrier_wait(&ws->bar);		/* B1: written */
	pthread_barrier_wait(&ws->bar);		/* B2: the sender has stopped */
	pthread_sigmask(SIG_BLOCK, &set, NULL);	/* no handler runs from here on */
	pthread_barrier_wait(&ws->bar);		/* B3: quiet */
	pthread_barrier_wait(&ws->bar);		/* B4: the caller's readers drained */
	if (ws->write_end)
		integ_write_ends(w);
	integ_self = NULL;
	return NULL;
}

static void *integ_sender_main(void *arg)
{
	struct integ_writers *ws = arg;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	while (!atomic_load(&ws->stop) && atomic_load(&ws->signals) < ws->cfg.max_signals) {
		struct timespec pause = { 0, 0 };

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		pthread_kill(ws->w[x % ws->cfg.threads].thread, SIGUSR1);
		atomic_fetch_add(&ws->signals, 1);
		pause.tv_nsec = (long)((x >> 20) % 50000);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

int integ_writers_start(struct integ_writers *ws, const struct integ_wcfg *cfg)
{
	struct sigaction sa;
	sigset_t set, old;
	int ret;

	if (cfg->threads < 1 || cfg->threads > INTEG_MAX_THREADS)
		return -EINVAL;
	memset(ws, 0, sizeof(*ws));
	ws->cfg = *cfg;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = integ_on_sigusr1;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return -errno;
	ret = pthread_barrier_init(&ws->bar, NULL, cfg->threads + 1);
	if (ret)
		return -ret;
	/* Threads start with SIGUSR1 blocked; a writer unblocks it once it is set up. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	for (unsigned int i = 0; i < cfg->threads; i++) {
		ws->w[i].ws = ws;
		ws->w[i].idx = i;
		ret = pthread_create(&ws->w[i].thread, NULL, integ_writer_main, &ws->w[i]);
		if (ret)
			abort();
	}
	if (cfg->max_signals && pthread_create(&ws->sender, NULL, integ_sender_main, ws))
		abort();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return 0;
}

void integ_writers_quiesce(struct integ_writers *ws)
{
	pthread_barrier_wait(&ws->bar);		/* B1 */
	atomic_store(&ws->stop, 1);
	if (ws->cfg.max_signals)
		pthread_join(ws->sender, NULL);
	pthread_barrier_wait(&ws->bar);		/* B2 */
	pthread_barrier_wait(&ws->bar);		/* B3 */
}

void integ_writers_finish(struct integ_writers *ws, int write_end)
{
	ws->write_end = write_end;
	pthread_barrier_wait(&ws->bar);		/* B4 */
	for (unsigned int i = 0; i < ws->cfg.threads; i++)
		pthread_join(ws->w[i].thread, NULL);
	pthread_barrier_destroy(&ws->bar);
}

uint64_t integ_writers_total(const struct integ_writers *ws)
{
	uint64_t t = 0;

	for (unsigned int i = 0; i < ws->cfg.threads; i++)
		t += ws->w[i].seq + ws->w[i].sig_seq + ws->w[i].end;
	return t;
}

uint64_t integ_writers_ends(const struct integ_writers *ws)
{
	uint64_t t = 0;

	for (unsigned int i = 0; i < ws->cfg.threads; i++)
		t += ws->w[i].end;
	return t;
}

void integ_writers_print(const struct integ_writers *ws, FILE *out)
{
	for (unsigned int i = 0; i < ws->cfg.threads; i++) {
		const struct integ_wthread *w = &ws->w[i];

		fprintf(out, "stream %u written %llu\n", i, (unsigned long long)w->seq);
		if (w->sig_seq)
			fprintf(out, "stream %u written %llu\n", i | INTEG_SIG,
				(unsigned long long)w->sig_seq);
		if (w->end)
			fprintf(out, "stream %u written %llu\n", i | INTEG_END,
				(unsigned long long)w->end);
	}
	fprintf(out, "total written=%llu\n", (unsigned long long)integ_writers_total(ws));
}

void integ_writers_expect(const struct integ_writers *ws, struct integ_check *ic)
{
	for (unsigned int i = 0; i < ws->cfg.threads; i++) {
		integ_check_expect(ic, i, ws->w[i].seq);
		integ_check_expect(ic, i | INTEG_SIG, ws->w[i].sig_seq);
		integ_check_expect(ic, i | INTEG_END, ws->w[i].end);
	}
}
