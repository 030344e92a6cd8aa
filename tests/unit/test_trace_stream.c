/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `trace`, `snapshot` and per_cpu/cpuN/trace streamed as a seq_file
 * (docs/tracefs.md, "How the trace files are read"):
 *
 *  - reads of any size (1, 7, 4096 bytes, everything at once) give the
 *    same bytes, and the same as trev_trace_print();
 *  - the text a file holds stays within a page and a line, however much
 *    is read;
 *  - no tracefs lock is held while a line is formatted (the event's
 *    TP_printk stops the reader there while another thread writes control
 *    files) nor between reads;
 *  - a snapshot buffer freed while a reader walks it, a resize and a reset
 *    under a reader, and writers overwriting what a reader has not reached
 *    yet: the reader sees what was there at open, the overwritten events
 *    counted in LOST lines;
 *  - trace_pipe takes each line's options as they are when it consumes it,
 *    while another thread writes them.
 *
 * Every wait is for a condition; a test that would deadlock on a lock the
 * reader must not hold fails by ctest's time-out.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <trev/trev.h>

#include "base/buf.h"
#include "tracefs/tracefs_internal.h"

#define CREATE_TRACE_POINTS
#include "stream_test_events.h"

/* Events of the big buffer: a text of about 1.5 MB. */
#define NR_BIG		20000u
/* What a streamed file may hold at most: a page, then a line of up to TREV_SEQ_SIZE. */
#define TEXT_BOUND	(2 * TREV_SEQ_SIZE)
/* "Everything at once": larger than any text here. */
#define WHOLE		(16u << 20)

/* ------------------------------------------------------------------ */
/* Stopping the formatter in the middle of a line                       */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int stop_at;	/* the seq whose line stops its formatter; UINT_MAX: none */
	bool inside;		/* a formatter is stopped there */
	bool go;		/* it may go on */
} hook = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, UINT_MAX, false, false };

const char *ts_print_hook(unsigned int seq)
{
	pthread_mutex_lock(&hook.lock);
	if (seq == hook.stop_at) {
		hook.stop_at = UINT_MAX;
		hook.inside = true;
		pthread_cond_broadcast(&hook.cond);
		while (!hook.go)
			pthread_cond_wait(&hook.cond, &hook.lock);
		hook.go = false;	/* the next stop waits again */
	}
	pthread_mutex_unlock(&hook.lock);
	return "";
}

/* ------------------------------------------------------------------ */
/* Helpers                                                              */

/* The formatter of seq @seq's line will stop there (inside == false until it does). */
static void hook_arm(unsigned int seq)
{
	pthread_mutex_lock(&hook.lock);
	hook.stop_at = seq;
	hook.inside = false;
	hook.go = false;
	pthread_mutex_unlock(&hook.lock);
}

/* Until a formatter is stopped at the armed line. */
static void hook_wait_inside(void)
{
	pthread_mutex_lock(&hook.lock);
	while (!hook.inside)
		pthread_cond_wait(&hook.cond, &hook.lock);
	pthread_mutex_unlock(&hook.lock);
}

/* Let the stopped formatter go on. */
static void hook_go(void)
{
	pthread_mutex_lock(&hook.lock);
	hook.go = true;
	pthread_cond_broadcast(&hook.cond);
	pthread_mutex_unlock(&hook.lock);
}


/* The top buffer holds exactly events 0 .. @n - 1 of ts_seq, and tracing is off. */
static void fresh(unsigned int n)
{
	assert_int_equal(trev_write("tracing_on", "1"), 0);
	assert_int_equal(trev_write("events/trev_stream/ts_seq/enable", "1"), 0);
	assert_int_equal(trev_write("trace", ""), 0);
	for (unsigned int i = 0; i < n; i++)
		trace_ts_seq(i);
	assert_int_equal(trev_write("tracing_on", "0"), 0);
}

/* Read @f to its end, @chunk bytes per read, into @b; check the text it holds after each. */
static void read_rest(struct trev_file *f, size_t chunk, struct trev_buf *b)
{
	for (;;) {
		ssize_t n;

		assert_int_equal(trev__buf_reserve(b, chunk), 0);
		n = trev_file_read(f, b->data + b->len, chunk);
		assert_true(n >= 0);
		if (n == 0)
			break;
		assert_true((size_t)n <= chunk);
		trev__buf_extend(b, (size_t)n);
		if (chunk != WHOLE)
			assert_true(f->text.cap <= TEXT_BOUND);
	}
}

/* The whole of @path, read @chunk bytes at a time. Return: a malloc'd text. */
static char *read_all(const char *path, size_t chunk, size_t *len)
{
	struct trev_buf b = TREV_BUF_INIT;
	struct trev_file *f;

	assert_int_equal(trev_file_open(path, O_RDONLY, &f), 0);
	read_rest(f, chunk, &b);
	assert_int_equal(trev_file_close(f), 0);
	*len = b.len;
	return trev__buf_detach(&b);
}

/* Read @path in chunks of each size and compare with @whole. */
static void check_chunks(const char *path, const char *whole, size_t len)
{
	static const size_t chunks[] = { 1, 7, 4096, 65536 };

	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		size_t got_len;
		char *got = read_all(path, chunks[i], &got_len);

		if (got_len != len || memcmp(got, whole, len))
			fail_msg("%s read %zu bytes at a time: %zu bytes, whole: %zu", path,
				 chunks[i], got_len, len);
		free(got);
	}
}

/* ------------------------------------------------------------------ */
/* Tests                                                                */

/* 1, 7, 4096, 65536 bytes at a time or all at once: the same bytes. */
static void test_chunks_equal_whole(void **state)
{
	size_t len, plen;
	char *whole, *printed = NULL;
	FILE *mem;

	(void)state;
	fresh(NR_BIG);
	whole = read_all("trace", WHOLE, &len);
	assert_true(len > 64 * TEXT_BOUND);
	assert_int_equal(strncmp(whole, "# tracer: nop\n#\n# entries-in-buffer/entries-written: "
				 "20000/20000 ", 65), 0);
	assert_non_null(strstr(whole, "ts_seq: seq=0\n"));
	assert_non_null(strstr(whole, "ts_seq: seq=19999\n"));
	check_chunks("trace", whole, len);

	/* TREV_OUTPUT's path: the same formatter, to a FILE. */
	mem = open_memstream(&printed, &plen);
	assert_non_null(mem);
	assert_int_equal(trev_trace_print(mem), 0);
	assert_int_equal(fclose(mem), 0);
	assert_int_equal(plen, len);
	assert_memory_equal(printed, whole, len);
	free(printed);

	/* Each CPU's view, whichever CPUs the events ran on. */
	for (int cpu = 0; cpu < trev_rb_nr_cpus(trev_trace_buffer()); cpu++) {
		char path[64], *view;
		size_t vlen;

		snprintf(path, sizeof(path), "per_cpu/cpu%d/trace", cpu);
		view = read_all(path, WHOLE, &vlen);
		assert_memory_equal(view, "# tracer: nop\n", 14);
		check_chunks(path, view, vlen);
		free(view);
	}

	/* The snapshot: the same buffer, swapped out, shows the same text. */
	assert_int_equal(trev_write("snapshot", "1"), 0);
	check_chunks("snapshot", whole, len);
	assert_int_equal(trev_write("snapshot", "0"), 0);
	free(whole);
}

/* However much is read, the file holds a page and a line at most. */
static void test_text_bounded(void **state)
{
	struct trev_buf b = TREV_BUF_INIT;
	struct trev_file *f;
	size_t whole_len;
	char *whole;

	(void)state;
	fresh(NR_BIG);
	whole = read_all("trace", WHOLE, &whole_len);
	assert_int_equal(trev_file_open("trace", O_RDONLY, &f), 0);
	/* A few lines a byte at a time, then a large read, then the rest by pages. */
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(trev__buf_reserve(&b, 1), 0);
		assert_int_equal(trev_file_read(f, b.data + b.len, 1), 1);
		trev__buf_extend(&b, 1);
		assert_true(f->text.cap <= TEXT_BOUND);
	}
	assert_int_equal(trev__buf_reserve(&b, 1 << 20), 0);
	assert_int_equal(trev_file_read(f, b.data + b.len, 1 << 20), 1 << 20);
	trev__buf_extend(&b, 1 << 20);
	assert_true(f->text.cap <= TEXT_BOUND);
	read_rest(f, 4096, &b);
	assert_int_equal(trev_file_close(f), 0);
	assert_int_equal(b.len, whole_len);
	assert_memory_equal(b.data, whole, whole_len);
	trev__buf_free(&b);
	free(whole);
}

/* The reader, stopped by the hook while it formats a line. */
static void *stopped_reader(void *arg)
{
	size_t len;

	*(char **)arg = read_all("trace", 4096, &len);
	return NULL;
}

/* A line is formatted without the tracefs lock: control files work meanwhile. */
static void test_no_lock_while_formatting(void **state)
{
	char *whole, *streamed, text[64];
	struct trev_file *f;
	pthread_t reader;
	size_t len;

	(void)state;
	fresh(NR_BIG);
	whole = read_all("trace", WHOLE, &len);

	hook_arm(NR_BIG / 2);
	assert_int_equal(pthread_create(&reader, NULL, stopped_reader, &streamed), 0);
	hook_wait_inside();

	/* The reader is inside TP_printk: each of these needs the tracefs lock. */
	assert_int_equal(trev_write("tracing_on", "0"), 0);
	assert_true(trev_read("tracing_on", text, sizeof(text)) > 0);
	assert_string_equal(text, "0\n");
	assert_true(trev_read("trace_clock", text, sizeof(text)) > 0);
	assert_int_equal(trev_file_open("events/trev_stream/ts_seq/enable", O_RDONLY, &f), 0);
	assert_int_equal(trev_file_read(f, text, sizeof(text)), 2);
	assert_memory_equal(text, "1\n", 2);
	assert_int_equal(trev_file_close(f), 0);

	hook_go();
	assert_int_equal(pthread_join(reader, NULL), 0);
	assert_non_null(streamed);
	assert_string_equal(streamed, whole);
	free(streamed);
	free(whole);
}

/* What another thread does while the reader is between two reads. */
static void *between_reads(void *arg)
{
	size_t len;
	char *again;

	(void)arg;
	/* The registry lock for writing, the tracefs lock, options. */
	assert_int_equal(trev_write("events/trev_stream/ts_seq/enable", "0"), 0);
	assert_int_equal(trev_write("events/trev_stream/ts_seq/enable", "1"), 0);
	assert_int_equal(trev_write("tracing_on", "0"), 0);
	assert_int_equal(trev_write("trace_options", "noirq-info"), 0);
	/* A second reader of the same buffer, from the start, with the new options. */
	again = read_all("trace", 65536, &len);
	assert_null(strstr(again, "||||"));
	assert_non_null(strstr(again, "ts_seq: seq=19999\n"));
	free(again);
	assert_int_equal(trev_write("trace_options", "irq-info"), 0);
	return NULL;
}

/*
 * Between reads the reader holds nothing: another thread enables events,
 * writes options and reads `trace` from the start. The options a reader
 * formats with are those of its open.
 */
static void test_between_reads(void **state)
{
	struct trev_buf b = TREV_BUF_INIT;
	struct trev_file *f;
	pthread_t other;
	size_t len;
	char *whole;

	(void)state;
	fresh(NR_BIG);
	whole = read_all("trace", WHOLE, &len);
	assert_int_equal(trev_file_open("trace", O_RDONLY, &f), 0);
	assert_int_equal(trev__buf_reserve(&b, 4096), 0);
	assert_int_equal(trev_file_read(f, b.data, 4096), 4096);
	trev__buf_extend(&b, 4096);
	assert_int_equal(pthread_create(&other, NULL, between_reads, NULL), 0);
	assert_int_equal(pthread_join(other, NULL), 0);
	read_rest(f, 4096, &b);
	assert_int_equal(trev_file_close(f), 0);
	assert_int_equal(b.len, len);
	assert_memory_equal(b.data, whole, len);
	trev__buf_free(&b);
	free(whole);
}

/*
 * `echo 0 > snapshot` while the snapshot is read, and while `trace` is
 * read after its buffer became the snapshot: the readers go on to the end
 * of what they started; the buffer goes when they close.
 */
static void test_snapshot_freed_while_read(void **state)
{
	struct trev_buf b = TREV_BUF_INIT;
	char text[4096];
	struct trev_file *f;
	size_t len;
	char *whole;

	(void)state;
	fresh(NR_BIG);
	whole = read_all("trace", WHOLE, &len);

	assert_int_equal(trev_write("snapshot", "1"), 0);
	assert_int_equal(trev_file_open("snapshot", O_RDONLY, &f), 0);
	assert_int_equal(trev__buf_reserve(&b, 4096), 0);
	assert_int_equal(trev_file_read(f, b.data, 4096), 4096);
	trev__buf_extend(&b, 4096);
	assert_int_equal(trev_write("snapshot", "0"), 0);
	assert_true(trev_read("snapshot", text, sizeof(text)) > 0);
	assert_non_null(strstr(text, "# * Snapshot is freed *"));
	read_rest(f, 7, &b);
	assert_int_equal(trev_file_close(f), 0);
	assert_int_equal(b.len, len);
	assert_memory_equal(b.data, whole, len);

	fresh(NR_BIG);
	free(whole);
	whole = read_all("trace", WHOLE, &len);
	trev__buf_reset(&b);
	assert_int_equal(trev_file_open("trace", O_RDONLY, &f), 0);
	assert_int_equal(trev__buf_reserve(&b, 4096), 0);
	assert_int_equal(trev_file_read(f, b.data, 4096), 4096);
	trev__buf_extend(&b, 4096);
	assert_int_equal(trev_write("snapshot", "1"), 0);	/* the walked buffer: now the snapshot */
	assert_int_equal(trev_write("snapshot", "0"), 0);	/* and freed */
	assert_int_equal(trev_write("snapshot", "1"), 0);	/* a new one, perhaps at its address */
	read_rest(f, 4096, &b);
	assert_int_equal(trev_file_close(f), 0);
	assert_int_equal(b.len, len);
	assert_memory_equal(b.data, whole, len);
	assert_int_equal(trev_write("snapshot", "0"), 0);
	trev__buf_free(&b);
	free(whole);
}

/* A resize under a reader keeps what it shows; a reset ends it at a line. */
static void test_resize_reset_while_read(void **state)
{
	struct trev_buf b = TREV_BUF_INIT;
	char size[32];
	struct trev_file *f;
	size_t len;
	char *whole;

	(void)state;
	fresh(NR_BIG);
	whole = read_all("trace", WHOLE, &len);
	assert_true(trev_read("buffer_size_kb", size, sizeof(size)) > 0);

	assert_int_equal(trev_file_open("trace", O_RDONLY, &f), 0);
	assert_int_equal(trev__buf_reserve(&b, 4096), 0);
	assert_int_equal(trev_file_read(f, b.data, 4096), 4096);
	trev__buf_extend(&b, 4096);
	assert_int_equal(trev_write("buffer_size_kb", "2048"), 0);
	read_rest(f, 4096, &b);
	assert_int_equal(trev_file_close(f), 0);
	assert_int_equal(b.len, len);
	assert_memory_equal(b.data, whole, len);
	assert_int_equal(trev_write("buffer_size_kb", size), 0);

	fresh(NR_BIG);
	free(whole);
	whole = read_all("trace", WHOLE, &len);
	trev__buf_reset(&b);
	assert_int_equal(trev_file_open("trace", O_RDONLY, &f), 0);
	assert_int_equal(trev__buf_reserve(&b, 4096), 0);
	assert_int_equal(trev_file_read(f, b.data, 4096), 4096);
	trev__buf_extend(&b, 4096);
	assert_int_equal(trev_write("trace", ""), 0);
	read_rest(f, 4096, &b);
	assert_int_equal(trev_file_close(f), 0);
	assert_true(b.len >= 4096 && b.len < len);
	assert_memory_equal(b.data, whole, b.len);
	assert_int_equal(b.data[b.len - 1], '\n');
	trev__buf_free(&b);
	free(whole);
}

/*
 * Writers go on while a reader streams (trev does not pause them): in
 * overwrite mode they overwrite pages the reader has not reached. The
 * reader shows only events written before its open, in order, and each
 * gap in the sequence is announced by a LOST line that counts it exactly.
 */
static void test_writers_overwrite_unread(void **state)
{
	const unsigned int n = 3000, more = 400;
	struct trev_buf b = TREV_BUF_INIT;
	unsigned long long lost = 0, lost_lines = 0;
	long long last = -1;
	struct trev_file *f;
	char *line;

	(void)state;
	assert_int_equal(trev_write("events/trev_stream/ts_seq/enable", "0"), 0);
	assert_int_equal(trev_mkdir("instances/ts_small"), 0);
	assert_int_equal(trev_write("instances/ts_small/buffer_size_kb", "16"), 0);
	assert_int_equal(trev_write("instances/ts_small/events/trev_stream/ts_seq/enable", "1"),
			 0);
	for (unsigned int i = 0; i < n; i++)
		trace_ts_seq(i);
	assert_int_equal(trev_file_open("instances/ts_small/trace", O_RDONLY, &f), 0);
	assert_int_equal(trev__buf_reserve(&b, 4096), 0);
	assert_int_equal(trev_file_read(f, b.data, 4096), 4096);
	trev__buf_extend(&b, 4096);
	for (unsigned int i = n; i < n + more; i++)
		trace_ts_seq(i);
	read_rest(f, 4096, &b);
	assert_int_equal(trev_file_close(f), 0);
	assert_int_equal(trev_write("instances/ts_small/events/trev_stream/ts_seq/enable", "0"),
			 0);
	assert_int_equal(trev_rmdir("instances/ts_small"), 0);

	assert_non_null(strstr(b.data, "ts_seq: seq="));
	for (line = strtok(b.data, "\n"); line; line = strtok(NULL, "\n")) {
		const char *p;
		unsigned long long v;

		if (line[0] == '#')
			continue;
		if ((p = strstr(line, "[LOST ")) && sscanf(p, "[LOST %llu EVENTS]", &v) == 1) {
			lost += v;
			lost_lines++;
			continue;
		}
		p = strstr(line, "ts_seq: seq=");
		if (!p || sscanf(p, "ts_seq: seq=%llu", &v) != 1)
			fail_msg("not an event line: '%s'", line);
		if (v >= n)
			fail_msg("seq %llu was written after the open", v);
		if (last >= 0 && v != (unsigned long long)last + 1 + lost)
			fail_msg("seq %lld then %llu with %llu lost between", last, v, lost);
		last = (long long)v;
		lost = 0;
	}
	assert_true(lost_lines > 0);		/* the writers did overwrite unread pages */
	assert_int_equal(last, n - 1);		/* and the newest pages were left */
	trev__buf_free(&b);
}

/* trace_pipe read to its @n-th event line by another thread; the lines into *arg. */
#define PIPE_EVENTS	400u
static void *pipe_reader(void *arg)
{
	struct trev_buf b = TREV_BUF_INIT;
	struct trev_file *f;
	unsigned int lines = 0;

	assert_int_equal(trev_file_open("trace_pipe", O_RDONLY, &f), 0);
	while (lines < PIPE_EVENTS) {
		ssize_t n;

		assert_int_equal(trev__buf_reserve(&b, 4096), 0);
		n = trev_file_read(f, b.data + b.len, 4096);	/* blocks until there is a line */
		assert_true(n > 0);
		for (ssize_t i = 0; i < n; i++)
			lines += b.data[b.len + i] == '\n';
		trev__buf_extend(&b, (size_t)n);
	}
	assert_int_equal(trev_file_close(f), 0);
	*(char **)arg = trev__buf_detach(&b);
	return NULL;
}

/*
 * trace_pipe formats each line with the options as they are when it is
 * consumed (the kernel's trace_pipe), while another thread writes them:
 * the line the reader is formatting keeps the flags it started with, the
 * next one has the new ones; and no line is lost or torn meanwhile.
 */
static void test_pipe_options_while_read(void **state)
{
	char *text, *line, *save = NULL;
	pthread_t reader;
	unsigned int seq = 0;

	(void)state;
	fresh(PIPE_EVENTS);
	hook_arm(3);
	assert_int_equal(pthread_create(&reader, NULL, pipe_reader, &text), 0);
	hook_wait_inside();
	/* Inside the line of seq 3: from seq 4 on, no irq-info columns. */
	assert_int_equal(trev_write("trace_options", "noirq-info"), 0);
	hook_arm(4);
	hook_go();
	hook_wait_inside();		/* seq 4's flags are taken */
	hook_go();
	/* And back and forth while the rest is read. */
	for (int i = 0; i < 100; i++)
		assert_int_equal(trev_write("trace_options", i % 2 ? "noirq-info" : "irq-info"), 0);
	assert_int_equal(pthread_join(reader, NULL), 0);
	assert_int_equal(trev_write("trace_options", "irq-info"), 0);

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *p = strstr(line, "ts_seq: seq=");
		unsigned int v = 0;
		bool flags = strstr(line, "] .... ") != NULL;

		if (!p || sscanf(p, "ts_seq: seq=%u", &v) != 1)
			fail_msg("not an event line: '%s'", line);
		assert_int_equal(v, seq);
		if (v <= 3)
			assert_true(flags);
		else if (v == 4)
			assert_false(flags);
		seq++;
	}
	assert_int_equal(seq, PIPE_EVENTS);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chunks_equal_whole),
		cmocka_unit_test(test_text_bounded),
		cmocka_unit_test(test_no_lock_while_formatting),
		cmocka_unit_test(test_between_reads),
		cmocka_unit_test(test_snapshot_freed_while_read),
		cmocka_unit_test(test_resize_reset_while_read),
		cmocka_unit_test(test_writers_overwrite_unread),
		cmocka_unit_test(test_pipe_options_while_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
