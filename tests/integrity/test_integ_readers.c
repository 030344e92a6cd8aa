/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Every event read is the event written (issue 15), for the consuming
 * readers of the C API: trace_pipe, every per_cpu/cpuN/trace_pipe at once
 * (one reader thread per CPU), and per_cpu/cpuN/trace_pipe_raw pages decoded
 * with libtraceevent's kbuffer. Writer threads and their signal handlers
 * write integ:integ_rec (integ_writer.h) while a disturber thread reads
 * per_cpu/cpuN/stats, per_thread_stats and the head of `trace` (whose events
 * are checked too), and in some runs resizes or clears the buffer; with
 * options/overwrite on and off.
 *
 * The relation each run checks (integ_check.h), for every event: payload,
 * len and check as written, COMM-PID its writer's (text readers), each
 * stream's seqs strictly increasing per reader, none read twice; and:
 *
 *   written == read + lost      lost: the LOST lines (text) or the pages'
 *                               lost counts (raw); each thread's final event
 *                               is written after the readers drained its
 *                               buffer, so it carries every loss left
 *   written >= read + lost      runs that clear the buffer (echo > trace
 *                               discards on purpose and zeroes the counts)
 *
 * and for trace_pipe, per thread too: its LOST lines precede the next event
 * of the buffer that lost, and buffers are per thread. In the exact runs the
 * sums of per_cpu/cpuN/stats agree: read events == read, overrun + commit
 * overrun + dropped events == written - read.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#ifdef INTEG_HAVE_KBUFFER
#include <traceevent/kbuffer.h>
#endif
#include <trev/trev.h>

#include "integ_check.h"
#include "integ_writer.h"

#define WAIT_S		120	/* bound of every condition wait (a failure, not a timing) */

enum reader { R_PIPE, R_PERCPU, R_RAW };

#define D_STATS		0x01	/* per_cpu/cpuN/stats */
#define D_PTS		0x02	/* per_thread_stats */
#define D_TRACE		0x04	/* the head of trace, its events checked */
#define D_RESIZE	0x08	/* buffer_size_kb, SIZE and 2 * SIZE in turn */
#define D_CLEAR		0x10	/* echo > trace */

struct run_cfg {
	const char *name;
	enum reader reader;
	int overwrite;
	unsigned int size_kb;
	unsigned int disturb;
};

struct raw_layout {
	unsigned int pid, stream, len, seq, check, payload;	/* field offsets in the record */
};

static struct run {
	const struct run_cfg *cfg;
	struct integ_writers ws;
	struct integ_check *ic;
	int nr_readers;
	struct trev_file *file[INTEG_SOURCES];
	pthread_t reader[INTEG_SOURCES];
	pthread_t disturber;
	atomic_int stop_readers, stop_disturber;
	atomic_ulong rounds, trace_heads, trace_events;
	atomic_int nerr;
	char err[512];
	struct raw_layout raw;
} run;

static void run_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void run_error(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&run.nerr, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(run.err, sizeof(run.err), fmt, ap);
	va_end(ap);
}

static void wr(const char *path, const char *text)
{
	int ret = trev_write(path, text);

	if (ret)
		fail_msg("trev_write(%s, %s): %s", path, text, strerror(-ret));
}

static void reader_path(int i, char *path, size_t size)
{
	if (run.cfg->reader == R_PIPE)
		snprintf(path, size, "trace_pipe");
	else if (run.cfg->reader == R_PERCPU)
		snprintf(path, size, "per_cpu/cpu%d/trace_pipe", i);
	else
		snprintf(path, size, "per_cpu/cpu%d/trace_pipe_raw", i);
}

/* ------------------------------------------------------------------ */
/* trace_pipe_raw pages                                                 */

/* Field offsets from the event's format file, as a tool reads them. */
static void raw_layout_read(struct raw_layout *l)
{
	static const char *const names[] = { "common_pid", "stream", "len", "seq", "check", "payload" };
	unsigned int *offs[] = { &l->pid, &l->stream, &l->len, &l->seq, &l->check, &l->payload };
	char fmt[8192], re_text[256];
	regmatch_t m[2];
	regex_t re;

	assert_true(trev_read("events/integ/integ_rec/format", fmt, sizeof(fmt)) > 0);
	for (size_t i = 0; i < 6; i++) {
		snprintf(re_text, sizeof(re_text),
			 "field:[^;]*[[:space:]]%s;[[:space:]]+offset:([0-9]+);", names[i]);
		assert_int_equal(regcomp(&re, re_text, REG_EXTENDED), 0);
		if (regexec(&re, fmt, 2, m, 0))
			fail_msg("no field %s in the format:\n%s", names[i], fmt);
		*offs[i] = (unsigned int)strtoul(fmt + m[1].rm_so, NULL, 10);
		regfree(&re);
	}
}

#ifdef INTEG_HAVE_KBUFFER
static void raw_page_check(struct kbuffer *kb, unsigned int source, void *page)
{
	const struct raw_layout *l = &run.raw;
	unsigned long long ts;
	int missed;
	void *data;

	if (kbuffer_load_subbuffer(kb, page)) {
		run_error("cpu %u: kbuffer cannot load a page", source);
		return;
	}
	missed = kbuffer_missed_events(kb);
	if (missed < 0)
		run_error("cpu %u: a page lost events without saying how many", source);
	else if (missed)
		integ_check_lost(run.ic, (uint64_t)missed);
	for (data = kbuffer_read_event(kb, &ts); data; data = kbuffer_next_event(kb, &ts)) {
		const unsigned char *r = data;
		unsigned int size = (unsigned int)kbuffer_event_size(kb), loc;
		struct integ_ev ev;
		int32_t pid;

		if (size < l->payload + 4) {
			run_error("cpu %u: a record of %u bytes", source, size);
			continue;
		}
		memcpy(&pid, r + l->pid, 4);
		memcpy(&ev.stream, r + l->stream, 4);
		memcpy(&ev.len, r + l->len, 4);
		memcpy(&ev.seq, r + l->seq, 8);
		memcpy(&ev.check, r + l->check, 4);
		memcpy(&loc, r + l->payload, 4);
		if ((loc & 0xffff) + (loc >> 16) > size || (loc >> 16) == 0) {
			run_error("cpu %u: stream %u seq %llu: payload at %u+%u outside the record of %u",
				  source, ev.stream, (unsigned long long)ev.seq, loc & 0xffff, loc >> 16,
				  size);
			continue;
		}
		ev.payload = (const char *)r + (loc & 0xffff);
		ev.plen = (uint32_t)strnlen(ev.payload, loc >> 16);
		ev.pid = pid;
		ev.comm = NULL;
		integ_check_event(run.ic, source, &ev);
	}
}
#endif

/* ------------------------------------------------------------------ */
/* Readers and the disturber                                            */

static void *reader_main(void *arg)
{
	unsigned int i = (unsigned int)(uintptr_t)arg;
	static __thread char buf[65536];
	struct trev_file *f = run.file[i];
#ifdef INTEG_HAVE_KBUFFER
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
#endif

	for (;;) {
		ssize_t n = trev_file_read(f, buf, run.cfg->reader == R_RAW ? 4096 : sizeof(buf));

		if (n > 0) {
#ifdef INTEG_HAVE_KBUFFER
			if (run.cfg->reader == R_RAW) {
				if (n != 4096)
					run_error("cpu %u: trace_pipe_raw gave %zd bytes", i, n);
				else
					raw_page_check(kb, i, buf);
				continue;
			}
#endif
			integ_check_feed(run.ic, i, buf, (size_t)n);
			continue;
		}
		if (n == -EINTR && atomic_load(&run.stop_readers))
			break;
		if (n == -EINTR || n == -EAGAIN)
			continue;
		run_error("reader %u: read returned %zd", i, n);
		break;
	}
#ifdef INTEG_HAVE_KBUFFER
	kbuffer_free(kb);
#endif
	return NULL;
}

/* Read what a reader left (it stops at a wake-up, not at the end): O_NONBLOCK until EAGAIN. */
static void reader_leftovers(unsigned int i)
{
	static char buf[65536];
#ifdef INTEG_HAVE_KBUFFER
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
#endif
	struct trev_file *f;
	char path[64];
	ssize_t n;

	reader_path((int)i, path, sizeof(path));
	assert_int_equal(trev_file_open(path, O_RDONLY | O_NONBLOCK, &f), 0);
	while ((n = trev_file_read(f, buf, run.cfg->reader == R_RAW ? 4096 : sizeof(buf))) > 0) {
#ifdef INTEG_HAVE_KBUFFER
		if (run.cfg->reader == R_RAW) {
			raw_page_check(kb, i, buf);
			continue;
		}
#endif
		integ_check_feed(run.ic, i, buf, (size_t)n);
	}
	if (n != -EAGAIN)
		run_error("%s: the last non-blocking read returned %zd", path, n);
	trev_file_close(f);
#ifdef INTEG_HAVE_KBUFFER
	kbuffer_free(kb);
#endif
}

/* The head of `trace` (a non-consuming walk), its events checked on their own. */
static void disturb_trace_head(void)
{
	static char buf[16384];
	struct integ_check *ic = integ_check_new();
	struct trev_file *f;
	ssize_t n;
	size_t got = 0;
	char *nl;

	if (trev_file_open("trace", O_RDONLY, &f)) {
		run_error("open trace failed");
		integ_check_free(ic);
		return;
	}
	while (got < sizeof(buf) - 1 && (n = trev_file_read(f, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)n;
	trev_file_close(f);
	buf[got] = '\0';
	nl = strrchr(buf, '\n');
	if (nl)
		integ_check_feed(ic, 0, buf, (size_t)(nl - buf + 1));	/* whole lines only */
	if (strncmp(buf, "# tracer: nop\n", 14))
		run_error("trace does not start with its header: %.60s", buf);
	atomic_fetch_add(&run.trace_events, integ_check_read(ic));
	if (integ_check_faults(ic)) {
		integ_check_verdict(ic, "trace head", INTEG_ATMOST, stdout);
		run_error("the head of trace has bad events (above)");
	}
	integ_check_free(ic);
	atomic_fetch_add(&run.trace_heads, 1);
}

static void *disturber_main(void *arg)
{
	unsigned int d = run.cfg->disturb, size = run.cfg->size_kb;
	int nr_cpus = trev_rb_nr_cpus(trev_trace_buffer());
	static char buf[65536];
	char path[64], kb[32];

	(void)arg;
	for (unsigned long r = 0; !atomic_load(&run.stop_disturber); r++) {
		struct timespec pace = { 0, 200000 };

		if (d & D_STATS) {
			snprintf(path, sizeof(path), "per_cpu/cpu%lu/stats", r % (unsigned long)nr_cpus);
			if (trev_read(path, buf, sizeof(buf)) < 0 || strncmp(buf, "entries: ", 9))
				run_error("%s: %.60s", path, buf);
		}
		if (d & D_PTS) {
			if (trev_read("per_thread_stats", buf, sizeof(buf)) < 0 ||
			    strncmp(buf, "# per_thread_stats", 18))
				run_error("per_thread_stats: %.60s", buf);
		}
		if ((d & D_TRACE) && r % 4 == 0)
			disturb_trace_head();
		if ((d & D_RESIZE) && r % 8 == 0) {
			snprintf(kb, sizeof(kb), "%u", r % 16 ? size : 2 * size);
			if (trev_write("buffer_size_kb", kb))
				run_error("buffer_size_kb %s refused", kb);
		}
		if ((d & D_CLEAR) && r % 8 == 4 && trev_write("trace", ""))
			run_error("echo > trace refused");
		atomic_fetch_add(&run.rounds, 1);
		nanosleep(&pace, NULL);		/* pacing: the writers share two CPUs with us */
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* A run                                                                */

static uint64_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

/* Unread events of every CPU, from per_cpu/cpuN/stats ("entries: N"). */
static uint64_t unread_entries(void)
{
	int nr_cpus = trev_rb_nr_cpus(trev_trace_buffer());
	uint64_t sum = 0;
	char path[64], buf[1024];

	for (int c = 0; c < nr_cpus; c++) {
		unsigned long long e;

		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", c);
		assert_true(trev_read(path, buf, sizeof(buf)) > 0);
		assert_int_equal(sscanf(buf, "entries: %llu", &e), 1);
		sum += e;
	}
	return sum;
}

/* Sums over per_cpu/cpuN/stats: read events, and overrun + commit overrun + dropped events. */
static void stats_totals(uint64_t *read, uint64_t *lost)
{
	int nr_cpus = trev_rb_nr_cpus(trev_trace_buffer());
	char path[64], buf[1024];

	*read = *lost = 0;
	for (int c = 0; c < nr_cpus; c++) {
		unsigned long long e = 0, o = 0, co = 0, b = 0, d = 0, r = 0;
		char *p;

		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", c);
		assert_true(trev_read(path, buf, sizeof(buf)) > 0);
		p = strstr(buf, "dropped events:");
		if (sscanf(buf, "entries: %llu overrun: %llu commit overrun: %llu bytes: %llu", &e, &o,
			   &co, &b) != 4 || !p ||
		    sscanf(p, "dropped events: %llu read events: %llu", &d, &r) != 2)
			fail_msg("%s does not parse:\n%s", path, buf);
		*read += r;
		*lost += o + co + d;
	}
}

/*
 * Wait until @done() holds, at most WAIT_S; a reader that died ends the wait.
 * Return: 0, or -1 with the reason in run.err (the caller still cleans up).
 */
static int wait_for(int (*done)(void), const char *what)
{
	uint64_t t0 = now_s();

	while (!done()) {
		if (atomic_load(&run.nerr))
			return -1;
		if (now_s() - t0 > WAIT_S) {
			run_error("%s: not after %d s", what, WAIT_S);
			return -1;
		}
		usleep(1000);
	}
	return 0;
}

static int disturbed(void)
{
	return atomic_load(&run.rounds) > 0;
}

static int drained(void)
{
	return unread_entries() == 0;
}

static int ends_read(void)
{
	return integ_check_ends(run.ic) >= integ_writers_ends(&run.ws);
}

static void run_readers(const struct run_cfg *cfg)
{
	struct integ_wcfg wcfg = { INTEG_NR_THREADS, INTEG_NR_EVENTS, INTEG_NR_SIGNALS, 0 };
	enum integ_relation rel = (cfg->disturb & D_CLEAR) ? INTEG_ATMOST : INTEG_EXACT;
	char path[64], kb[32];
	uint64_t t0, sig_read;
	int fails;

	memset(&run, 0, sizeof(run));
	run.cfg = cfg;
	run.ic = integ_check_new();
	integ_check_want_comm(run.ic, cfg->reader != R_RAW);
	/* trace_pipe's LOST lines are a buffer's, i.e. a thread's (not so with staging). */
	integ_check_per_thread(run.ic, cfg->reader == R_PIPE);
	run.nr_readers = cfg->reader == R_PIPE ? 1 : trev_rb_nr_cpus(trev_trace_buffer());
	assert_true(run.nr_readers >= 1 && run.nr_readers <= INTEG_SOURCES);
	if (cfg->reader == R_RAW)
		raw_layout_read(&run.raw);

	wr("tracing_on", "0");
	wr("options/overwrite", cfg->overwrite ? "1" : "0");
	snprintf(kb, sizeof(kb), "%u", cfg->size_kb);
	wr("buffer_size_kb", kb);
	wr("trace", "");
	wr("events/integ/integ_rec/enable", "1");
	wr("tracing_on", "1");

	for (int i = 0; i < run.nr_readers; i++) {
		reader_path(i, path, sizeof(path));
		assert_int_equal(trev_file_open(path, O_RDONLY, &run.file[i]), 0);
		assert_int_equal(pthread_create(&run.reader[i], NULL, reader_main,
						(void *)(uintptr_t)i), 0);
	}
	if (cfg->disturb)
		assert_int_equal(pthread_create(&run.disturber, NULL, disturber_main, NULL), 0);
	t0 = now_s();
	assert_int_equal(integ_writers_start(&run.ws, &wcfg), 0);
	integ_writers_quiesce(&run.ws);
	if (cfg->disturb)
		wait_for(disturbed, "the disturber's first round");	/* D_TRACE: a trace head */
	/*
	 * A clear, or a write refused while a resize pauses the buffer (counted
	 * as dropped, with no later event to report it), would take a final
	 * event away: those disturbers stop first. (Seen once under load: the
	 * final event of one thread refused during a resize, 1 more lost in
	 * per_cpu/stats than the readers were told of.)
	 */
	if (cfg->disturb & (D_CLEAR | D_RESIZE)) {
		atomic_store(&run.stop_disturber, 1);
		pthread_join(run.disturber, NULL);
	}
	/* Each thread's final event must find its buffer empty: it then carries every loss. */
	if (wait_for(drained, "the readers drain the buffers") == 0) {
		integ_writers_finish(&run.ws, 1);
		wait_for(ends_read, "every thread's final event is read");
	} else {
		integ_writers_finish(&run.ws, 0);
	}
	if (cfg->disturb && !(cfg->disturb & (D_CLEAR | D_RESIZE))) {
		atomic_store(&run.stop_disturber, 1);
		pthread_join(run.disturber, NULL);
	}
	atomic_store(&run.stop_readers, 1);
	for (int i = 0; i < run.nr_readers; i++)
		trev_file_wake(run.file[i]);
	for (int i = 0; i < run.nr_readers; i++) {
		pthread_join(run.reader[i], NULL);
		trev_file_close(run.file[i]);
	}
	for (int i = 0; i < run.nr_readers; i++)
		reader_leftovers((unsigned int)i);
	wr("events/integ/integ_rec/enable", "0");
	integ_writers_expect(&run.ws, run.ic);

	sig_read = 0;
	for (int i = 0; i < INTEG_NR_THREADS; i++)
		sig_read += run.ws.w[i].sig_seq;
	print_message("  %s: %lu signals sent (%llu handler events), %lu disturber rounds, "
		      "%lu trace heads (%lu events), %llu s\n", cfg->name,
		      atomic_load(&run.ws.signals), (unsigned long long)sig_read,
		      atomic_load(&run.rounds), atomic_load(&run.trace_heads),
		      atomic_load(&run.trace_events), (unsigned long long)(now_s() - t0));
	fails = integ_check_verdict(run.ic, cfg->name, rel, stdout);
	/* Refusals without a buffer are in no reader's losses (integ_writer.c keeps them out). */
	assert_int_equal(trev_rb_nobuf_dropped(trev_trace_buffer()), 0);
	if (rel == INTEG_EXACT) {
		/* docs/ring-buffer.md: across CPUs, sum(read_events) = read, sum(losses) = lost. */
		uint64_t st_read, st_lost, w = integ_writers_total(&run.ws);
		uint64_t rd = integ_check_read(run.ic);

		stats_totals(&st_read, &st_lost);
		print_message("  %s: per_cpu stats: read events %llu, lost %llu\n", cfg->name,
			      (unsigned long long)st_read, (unsigned long long)st_lost);
		if (st_read != rd || st_read + st_lost != w)
			fail_msg("%s: per_cpu/cpuN/stats say %llu read and %llu lost; %llu were read "
				 "and %llu written", cfg->name, (unsigned long long)st_read,
				 (unsigned long long)st_lost, (unsigned long long)rd,
				 (unsigned long long)w);
	}
	if (atomic_load(&run.nerr))
		fail_msg("%s: %d errors, first: %s", cfg->name, atomic_load(&run.nerr), run.err);
	if (fails)
		fail_msg("%s: the checker failed (above)", cfg->name);
	/* The run did what it is meant to (how many losses depends on the readers' speed). */
	if ((cfg->disturb & D_TRACE))
		assert_true(atomic_load(&run.trace_heads) > 0);
	integ_check_free(run.ic);
}

#define RUN(fn, ...)							\
	static void fn(void **state)					\
	{								\
		static const struct run_cfg cfg = { #fn, __VA_ARGS__ };	\
		(void)state;						\
		run_readers(&cfg);					\
	}

#define D_READ	(D_STATS | D_PTS | D_TRACE)

/*       name                       reader     overwrite size      disturbers */
RUN(pipe_discard_small,		R_PIPE,    0, INTEG_SMALL_KB, D_READ)
RUN(pipe_overwrite_small,	R_PIPE,    1, INTEG_SMALL_KB, D_READ | D_RESIZE)
RUN(pipe_discard_big,		R_PIPE,    0, INTEG_BIG_KB,   D_READ)
RUN(pipe_overwrite_clear,	R_PIPE,    1, INTEG_SMALL_KB, D_READ | D_CLEAR)
RUN(percpu_discard_small,	R_PERCPU,  0, INTEG_SMALL_KB, D_READ)
RUN(percpu_overwrite_small,	R_PERCPU,  1, INTEG_SMALL_KB, D_READ | D_RESIZE)
RUN(percpu_discard_big,		R_PERCPU,  0, INTEG_BIG_KB,   D_READ)
#ifdef INTEG_HAVE_KBUFFER
RUN(raw_discard_small,		R_RAW,     0, INTEG_SMALL_KB, D_READ)
RUN(raw_overwrite_small,	R_RAW,     1, INTEG_SMALL_KB, D_READ | D_RESIZE)
RUN(raw_discard_big,		R_RAW,     0, INTEG_BIG_KB,   D_READ)
RUN(raw_discard_clear,		R_RAW,     0, INTEG_SMALL_KB, D_STATS | D_CLEAR)
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pipe_discard_small),
		cmocka_unit_test(pipe_overwrite_small),
		cmocka_unit_test(pipe_discard_big),
		cmocka_unit_test(pipe_overwrite_clear),
		cmocka_unit_test(percpu_discard_small),
		cmocka_unit_test(percpu_overwrite_small),
		cmocka_unit_test(percpu_discard_big),
#ifdef INTEG_HAVE_KBUFFER
		cmocka_unit_test(raw_discard_small),
		cmocka_unit_test(raw_overwrite_small),
		cmocka_unit_test(raw_discard_big),
		cmocka_unit_test(raw_discard_clear),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
