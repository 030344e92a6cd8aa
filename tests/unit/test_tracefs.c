/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tracefs tree through its C API, for what the scripts cannot reach:
 * soft mode in the enable files, a blocked trace_pipe read woken from
 * another thread and fed by a writer, a snapshot swap under writers,
 * trev_read() of a text larger than the buffer, split writes, bad
 * arguments, full-page reads of trace_pipe_raw.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include <trev/trev.h>

#include "events/events_internal.h"
#include "ring_buffer/rb_page.h"
#include "wait_blocked.h"

#define CREATE_TRACE_POINTS
#include "trev_test_events.h"

int tt_reg(void)
{
	return 0;
}

void tt_unreg(void)
{
}

static char buf[1 << 16];

static const char *read_text(const char *path)
{
	ssize_t n = trev_read(path, buf, sizeof(buf));

	assert_true(n >= 0);
	return buf;
}

static struct trev_event_call *find_call(const char *name)
{
	struct trev_event_call *found = NULL;

	trev__events_read_lock();
	for (unsigned int id = TREV_FIRST_EVENT_ID; id < TREV_FIRST_EVENT_ID + 64; id++) {
		struct trev_event_call *call = trev__event_by_id(id);

		if (call && strcmp(call->name, name) == 0)
			found = call;
	}
	trev__events_read_unlock();
	return found;
}

/* enable shows 0* while soft-disabled and 1* while enabled in soft mode. */
static void test_soft_mode_enable_file(void **state)
{
	struct trev_event_call *call = find_call("tt_ints");

	(void)state;
	assert_non_null(call);
	assert_string_equal(read_text("events/trev_test/tt_ints/enable"), "0\n");
	assert_int_equal(trev__event_soft_mode(call, true), 0);
	assert_string_equal(read_text("events/trev_test/tt_ints/enable"), "0*\n");
	assert_string_equal(read_text("events/trev_test/enable"), "X\n");	/* the probe is on */
	assert_string_equal(read_text("set_event"), "");
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "1"), 0);
	assert_string_equal(read_text("events/trev_test/tt_ints/enable"), "1*\n");
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "0"), 0);
	assert_string_equal(read_text("events/trev_test/tt_ints/enable"), "0*\n");
	assert_int_equal(trev__event_soft_mode(call, false), 0);
	assert_string_equal(read_text("events/trev_test/tt_ints/enable"), "0\n");
	assert_false(trace_tt_ints_enabled());
}

struct reader {
	struct trev_file *f;
	ssize_t ret;
	char text[4096];
	_Atomic pid_t tid;	/* set just before the read */
};

static void *blocked_read(void *arg)
{
	struct reader *r = arg;

	atomic_store(&r->tid, (pid_t)syscall(SYS_gettid));
	r->ret = trev_file_read(r->f, r->text, sizeof(r->text) - 1);
	if (r->ret > 0)
		r->text[r->ret] = '\0';
	return NULL;
}

/* Start blocked_read() on @r and wait until it sleeps in the read, not for a time. */
static void start_blocked_read(struct reader *r, pthread_t *t)
{
	pid_t tid;

	atomic_store(&r->tid, 0);
	assert_int_equal(pthread_create(t, NULL, blocked_read, r), 0);
	while (!(tid = atomic_load(&r->tid)))
		sched_yield();
	if (wait_blocked(tid) < 0)
		fail_msg("the reader of trace_pipe did not block in futex(2) (or /proc cannot tell)");
}

/*
 * A blocked read returns -EINTR when woken, and the line when an event comes.
 * Each reader is asleep in its read before the wake or the event.
 */
static void test_trace_pipe_blocking(void **state)
{
	struct reader r = { 0 };
	pthread_t t;

	(void)state;
	assert_int_equal(trev_write("trace", ""), 0);
	assert_int_equal(trev_file_open("trace_pipe", O_RDONLY, &r.f), 0);
	assert_int_equal(trev_file_poll(r.f, 0), 0);

	start_blocked_read(&r, &t);
	trev_file_wake(r.f);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(r.ret, -EINTR);

	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "1"), 0);
	start_blocked_read(&r, &t);
	trace_tt_ints(7, 8, 9);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(r.ret > 0);
	assert_non_null(strstr(r.text, "tt_ints: a=7 b=8 c=9\n"));
	assert_int_equal(trev_file_poll(r.f, 0), 0);

	trace_tt_ints(1, 2, 3);
	assert_true(trev_file_poll(r.f, 60000) > 0);	/* 60 s: a hang guard only */
	assert_int_equal(trev_file_close(r.f), 0);
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "0"), 0);
}

/* Payloads of trace_pipe_check's events: b and c are functions of a. */
#define PIPE_EVENTS	3000
#define PIPE_B(a)	((unsigned int)(a) * 2654435761u)
#define PIPE_C(a)	((long long)(a) * -977 + 13)

struct pipe_reader {
	struct trev_file *f;
	char text[1 << 16];
	size_t held;		/* bytes of an incomplete line at text's start */
	unsigned char *seen;	/* [PIPE_EVENTS]: lines read per a */
	int lines;
	int bad;		/* lines whose b or c is not a's */
};

/* Check every complete line read so far; keep an incomplete one. */
static void pipe_parse(struct pipe_reader *r)
{
	char *line = r->text, *nl;

	while ((nl = memchr(line, '\n', r->held - (size_t)(line - r->text)))) {
		const char *p = strstr(line, "tt_ints: ");
		unsigned int b;
		long long c;
		int a;

		*nl = '\0';
		if (p && sscanf(p, "tt_ints: a=%d b=%u c=%lld", &a, &b, &c) == 3 && a >= 0 &&
		    a < PIPE_EVENTS && b == PIPE_B(a) && c == PIPE_C(a)) {
			r->seen[a]++;
			r->lines++;
		} else {
			r->bad++;
			print_error("bad line: %s\n", line);
		}
		line = nl + 1;
	}
	r->held -= (size_t)(line - r->text);
	memmove(r->text, line, r->held);
}

/* Consume trace_pipe until it has been empty after @done was set. */
static atomic_bool pipe_done;

static void *pipe_consumer(void *arg)
{
	struct pipe_reader *r = arg;

	for (;;) {
		bool done = atomic_load(&pipe_done);
		ssize_t n = trev_file_read(r->f, r->text + r->held, sizeof(r->text) - 1 - r->held);

		if (n > 0) {
			r->held += (size_t)n;
			pipe_parse(r);
		} else if (n == -EAGAIN && done) {
			return NULL;
		} else if (n != -EAGAIN) {
			r->bad++;
			return NULL;
		} else {
			sched_yield();
		}
	}
}

static atomic_bool stop_stats;

/* What a monitor does while others consume: every statistic, and `trace`. */
static void *stats_reader(void *arg)
{
	static char text[1 << 16];

	(void)arg;
	while (!atomic_load(&stop_stats)) {
		trev_read("per_cpu/cpu0/stats", text, sizeof(text));
		trev_read("per_thread_stats", text, sizeof(text));
		trev_read("trace", text, 4096);
	}
	return NULL;
}

/*
 * trace_pipe hands out exactly the events written, each once, while other
 * readers consume the same buffer and a third thread reads statistics:
 * once, the thread-name look-up between consuming an event and printing it
 * refreshed the page copy the payload lay in, and trace_pipe printed
 * another page's event (issue 15, item 1).
 */
static void check_pipe_readers(int nreaders, bool with_stats)
{
	struct pipe_reader *r = calloc((size_t)nreaders, sizeof(*r));
	unsigned char *seen = calloc(PIPE_EVENTS, 1);
	pthread_t t[4], st;
	int lines = 0;

	assert_non_null(r);
	assert_non_null(seen);
	assert_int_equal(trev_write("trace", ""), 0);
	assert_int_equal(trev_write("buffer_size_kb", "1024"), 0);
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "1"), 0);
	for (int a = 0; a < PIPE_EVENTS; a++)
		trace_tt_ints(a, PIPE_B(a), PIPE_C(a));
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "0"), 0);

	atomic_store(&pipe_done, true);
	atomic_store(&stop_stats, false);
	if (with_stats)
		assert_int_equal(pthread_create(&st, NULL, stats_reader, NULL), 0);
	for (int i = 0; i < nreaders; i++) {
		r[i].seen = seen;
		assert_int_equal(trev_file_open("trace_pipe", O_RDONLY | O_NONBLOCK, &r[i].f), 0);
		if (nreaders == 1)
			pipe_consumer(&r[i]);
		else
			assert_int_equal(pthread_create(&t[i], NULL, pipe_consumer, &r[i]), 0);
	}
	for (int i = 0; i < nreaders; i++) {
		if (nreaders > 1)
			assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(trev_file_close(r[i].f), 0);
		assert_int_equal(r[i].bad, 0);
		assert_int_equal(r[i].held, 0);
		lines += r[i].lines;
	}
	atomic_store(&stop_stats, true);
	if (with_stats)
		assert_int_equal(pthread_join(st, NULL), 0);
	for (int a = 0; a < PIPE_EVENTS; a++)
		if (seen[a] != 1)
			fail_msg("event a=%d read %d times", a, seen[a]);
	assert_int_equal(lines, PIPE_EVENTS);
	assert_int_equal(trev_write("buffer_size_kb", "1408"), 0);
	free(seen);
	free(r);
}

static void test_trace_pipe_payloads(void **state)
{
	(void)state;
	check_pipe_readers(1, false);
}

static void test_trace_pipe_payloads_shared(void **state)
{
	(void)state;
	check_pipe_readers(3, true);
}

static atomic_bool stop_writers;
static atomic_uint writer_rounds;

static void *writer(void *arg)
{
	(void)arg;
	for (int i = 0; !atomic_load(&stop_writers); i++) {
		trace_tt_ints(i, 0, 0);
		trace_printk("w %d\n", i);
		atomic_fetch_add(&writer_rounds, 1);
	}
	return NULL;
}

/* Swapping and freeing the snapshot while two threads write: nothing breaks, both keep data. */
static void test_snapshot_under_writers(void **state)
{
	pthread_t t[2];

	(void)state;
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "1"), 0);
	atomic_store(&stop_writers, false);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, writer, NULL), 0);
	for (int i = 0; i < 20; i++) {
		assert_int_equal(trev_write("snapshot", "1"), 0);
		if (i % 5 == 4)
			assert_int_equal(trev_write("snapshot", "0"), 0);
	}
	/* The last swap must find events: wait for a round that began after
	 * the previous swap (of three rounds counted from now, at most two
	 * began before, one per writer). */
	unsigned int from = atomic_load(&writer_rounds);

	while (atomic_load(&writer_rounds) < from + 3)
		sched_yield();
	assert_int_equal(trev_write("snapshot", "1"), 0);
	atomic_store(&stop_writers, true);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	assert_non_null(strstr(read_text("snapshot"), "tt_ints: a="));
	assert_non_null(strstr(read_text("trace"), "# entries-in-buffer/entries-written: "));
	assert_int_equal(trev_write("snapshot", "0"), 0);
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "0"), 0);
	assert_int_equal(trev_write("trace", ""), 0);
}

/* trev_read() returns the whole length and keeps what fits, NUL-terminated. */
static void test_read_truncated(void **state)
{
	char small[8];
	ssize_t full;

	(void)state;
	full = trev_read("events/trev_test/tt_ints/format", buf, sizeof(buf));
	assert_true(full > 100);
	assert_int_equal(trev_read("events/trev_test/tt_ints/format", small, sizeof(small)), full);
	assert_memory_equal(small, buf, sizeof(small) - 1);
	assert_int_equal(small[sizeof(small) - 1], '\0');
}

/* Each write is parsed on its own, as the kernel's handlers do. */
static void test_split_writes(void **state)
{
	struct trev_file *f;

	(void)state;
	assert_int_equal(trev_file_open("set_event", O_WRONLY | O_TRUNC, &f), 0);
	assert_int_equal(trev_file_write(f, "trev_test:tt_ints ", 18), 18);
	assert_int_equal(trev_file_write(f, "trev_test:tt_open\n", 18), 18);
	assert_int_equal(trev_file_close(f), 0);
	read_text("set_event");		/* in id order */
	assert_int_equal(strlen(buf), 36);
	assert_non_null(strstr(buf, "trev_test:tt_ints\n"));
	assert_non_null(strstr(buf, "trev_test:tt_open\n"));
	/* A read-only file refuses writes; a write-only one refuses reads. */
	assert_int_equal(trev_file_open("available_events", O_RDONLY, &f), 0);
	assert_int_equal(trev_file_write(f, "x", 1), -EBADF);
	assert_int_equal(trev_file_close(f), 0);
	assert_int_equal(trev_file_open("trace_marker", O_WRONLY, &f), 0);
	assert_int_equal(trev_file_read(f, buf, 10), -EBADF);
	assert_int_equal(trev_file_close(f), 0);
	assert_int_equal(trev_write("set_event", ""), 0);
}

/*
 * trace_pipe_raw read with TREV_READ_FULL (the kernel's splice read): -EAGAIN
 * while the CPU's page is partial, even on a blocking open; the page once
 * full; the rest of a page a short read began; the partial page from a
 * plain read.
 */
static void test_trace_pipe_raw_full(void **state)
{
	static unsigned char page[TREV_RB_PAGE_SIZE];
	cpu_set_t was, one;
	struct trev_file *f;
	char path[64];
	int cpu;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(was), &was), 0);
	cpu = sched_getcpu();
	assert_true(cpu >= 0);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	assert_int_equal(trev_write("trace", ""), 0);
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "1"), 0);
	snprintf(path, sizeof(path), "per_cpu/cpu%d/trace_pipe_raw", cpu);
	assert_int_equal(trev_file_open(path, O_RDONLY, &f), 0);
	for (int i = 0; i < 10; i++)
		trace_tt_ints(i, 0, 0);
	assert_int_equal(trev_file_read_flags(f, page, sizeof(page), 0x2), -EINVAL);
	assert_int_equal(trev_file_read_flags(f, page, sizeof(page), TREV_READ_FULL), -EAGAIN);
	/* 24-byte records, 169 a page: 190 more fill one page and begin another. */
	for (int i = 10; i < 200; i++)
		trace_tt_ints(i, 0, 0);
	assert_int_equal(trev_file_read_flags(f, page, 100, TREV_READ_FULL), 100);
	assert_int_equal(trev_file_read_flags(f, page + 100, sizeof(page), TREV_READ_FULL),
			 sizeof(page) - 100);
	assert_true((rb_get64(page + 8) & RB_COMMIT_MASK) + 24 > RB_DATA_SIZE - 8);
	assert_int_equal(trev_file_read_flags(f, page, sizeof(page), TREV_READ_FULL), -EAGAIN);
	assert_int_equal(trev_file_read(f, page, sizeof(page)), sizeof(page));
	assert_true((rb_get64(page + 8) & RB_COMMIT_MASK) > 0);
	assert_int_equal(trev_file_close(f), 0);
	assert_int_equal(trev_write("events/trev_test/tt_ints/enable", "0"), 0);
	assert_int_equal(trev_write("trace", ""), 0);
	assert_int_equal(sched_setaffinity(0, sizeof(was), &was), 0);
}

static int count_entry(const char *name, const struct trev_stat *st, void *arg)
{
	(void)name;
	(void)st;
	(*(int *)arg)++;
	return 0;
}

static void test_bad_arguments(void **state)
{
	struct trev_file *f = NULL;
	int n = 0;

	(void)state;
	assert_int_equal(trev_file_open(NULL, O_RDONLY, &f), -EINVAL);
	assert_int_equal(trev_file_open("trace", O_RDONLY, NULL), -EINVAL);
	assert_int_equal(trev_write(NULL, "1"), -EINVAL);
	assert_int_equal(trev_write("tracing_on", NULL), -EINVAL);
	assert_int_equal(trev_read("trace", NULL, 10), -EINVAL);
	assert_int_equal(trev_readdir("events", NULL, NULL), -EINVAL);
	assert_int_equal(trev_readdir("tracing_on", count_entry, &n), -ENOTDIR);
	assert_int_equal(trev_path_stat("nosuch", &(struct trev_stat){ 0 }), -ENOENT);
	assert_int_equal(trev_mkdir("instances/a/b"), -EPERM);
	assert_int_equal(trev_mkdir("instances/"), -EEXIST);
	assert_int_equal(trev_rmdir("events"), -EPERM);
	assert_int_equal(trev_file_close(NULL), -EINVAL);
	assert_int_equal(trev_readdir("/", count_entry, &n), 0);
	/*
	 * with trev's per_thread_stats, the function tracer's 7, function_graph's 5, README,
	 * set_event_pid, set_event_notrace_pid, tracing_cpumask, synthetic_events, the stack
	 * tracer's 4, dynamic_events, uprobe_events, kprobe_events, uprobe_profile and
	 * kprobe_profile (docs/probes.md)
	 */
	assert_int_equal(n, 48);
}

/* What readdir_uses_tree() did from inside trev_readdir()'s callback. */
struct readdir_uses {
	int events;		/* event directories enabled */
	int files;		/* files listed in them, by nested trev_readdir() */
	int removed;		/* instances removed */
};

static int enable_event_dir(const char *name, const struct trev_stat *st, void *arg)
{
	struct readdir_uses *u = arg;
	char path[256];

	if (!st->is_dir)
		return 0;
	snprintf(path, sizeof(path), "events/trev_test/%s/enable", name);
	assert_int_equal(trev_write(path, "1"), 0);
	snprintf(path, sizeof(path), "events/trev_test/%s", name);
	assert_int_equal(trev_readdir(path, count_entry, &u->files), 0);
	u->events++;
	return 0;
}

static int remove_instance(const char *name, const struct trev_stat *st, void *arg)
{
	struct readdir_uses *u = arg;
	char path[256];

	(void)st;
	snprintf(path, sizeof(path), "instances/%s", name);
	assert_int_equal(trev_rmdir(path), 0);
	u->removed++;
	return 0;
}

/*
 * trev_readdir()'s callback may use the tree: write files, list others,
 * remove the very instance it is given (whose name it still reads).
 */
static void test_readdir_callback_uses_tree(void **state)
{
	struct readdir_uses u = { 0 };
	int left = 0;

	(void)state;
	assert_int_equal(trev_readdir("events/trev_test", enable_event_dir, &u), 0);
	assert_true(u.events >= 2);
	assert_true(u.files >= 5 * u.events);	/* enable, filter, format, id, trigger at least */
	assert_string_equal(read_text("events/trev_test/tt_ints/enable"), "1\n");
	assert_string_equal(read_text("events/trev_test/enable"), "1\n");
	assert_int_equal(trev_write("events/trev_test/enable", "0"), 0);

	assert_int_equal(trev_mkdir("instances/rd1"), 0);
	assert_int_equal(trev_mkdir("instances/rd2"), 0);
	assert_int_equal(trev_readdir("instances", remove_instance, &u), 0);
	assert_int_equal(u.removed, 2);
	assert_int_equal(trev_readdir("instances", count_entry, &left), 0);
	assert_int_equal(left, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_soft_mode_enable_file),
		cmocka_unit_test(test_trace_pipe_blocking),
		cmocka_unit_test(test_trace_pipe_payloads),
		cmocka_unit_test(test_trace_pipe_payloads_shared),
		cmocka_unit_test(test_snapshot_under_writers),
		cmocka_unit_test(test_read_truncated),
		cmocka_unit_test(test_split_writes),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_trace_pipe_raw_full),
		cmocka_unit_test(test_readdir_callback_uses_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
