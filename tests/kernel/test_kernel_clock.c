/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev's mono, mono_raw and boot clocks against the kernel's trace clocks of
 * the same names: markers written to a kernel trace instance's trace_marker
 * and trev ring-buffer events written in turn must come out in the order
 * they were written, both ways, on both time lines. Needs root and tracefs
 * at /sys/kernel/tracing; exits 77 (skipped) without them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/kbuffer.h>
#include <trev/ring_buffer.h>

#define TRACING		"/sys/kernel/tracing"
#define ROUNDS		200
#define SKIP		77

static char inst[256];		/* the kernel instance's directory */
static int print_id;		/* events/ftrace/print/id */

static void cleanup(void)
{
	if (inst[0] && rmdir(inst) < 0 && errno != ENOENT)
		fprintf(stderr, "test_kernel_clock: rmdir %s: %s\n", inst, strerror(errno));
}

static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("test_kernel_clock: FAIL: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void write_file(const char *file, const char *text)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", inst, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fail("%s: '%s': %s", path, text, strerror(errno));
	close(fd);
}

static int read_int(const char *path)
{
	char text[32] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		fail("%s: %s", path, n < 0 ? strerror(errno) : "empty");
	return atoi(text);
}

/*
 * Every marker "k<N>" in the instance's pages: markers[N] = its time stamp.
 * The print event is the common header (8 bytes), ip (8), then the text.
 */
static void read_markers(int nr_cpus, unsigned long long *markers, int nr)
{
	struct kbuffer *kbuf = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	static char page[4096];

	if (!kbuf)
		fail("kbuffer_alloc");
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		char path[512];
		int fd;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", inst, cpu);
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			fail("%s: %s", path, strerror(errno));
		for (;;) {
			ssize_t n = read(fd, page, sizeof(page));
			unsigned long long ts;
			void *rec;

			if (n < 0 && errno == EAGAIN)
				break;
			if (n != (ssize_t)sizeof(page))
				fail("%s: read %zd: %s", path, n, n < 0 ? strerror(errno) : "short");
			if (kbuffer_load_subbuffer(kbuf, page) < 0)
				fail("%s: a page kbuffer cannot load", path);
			if (kbuffer_missed_events(kbuf))
				fail("%s: the kernel lost events", path);
			for (rec = kbuffer_read_event(kbuf, &ts); rec;
			     rec = kbuffer_next_event(kbuf, &ts)) {
				int size = kbuffer_event_size(kbuf), idx;
				unsigned short type;
				char text[32];

				memcpy(&type, rec, sizeof(type));
				if (type != print_id || size <= 16)
					continue;
				snprintf(text, sizeof(text), "%.*s", size - 16, (char *)rec + 16);
				if (sscanf(text, "k%d", &idx) != 1 || idx < 0 || idx >= nr)
					fail("unexpected marker '%s'", text);
				if (markers[idx])
					fail("marker k%d twice", idx);
				markers[idx] = ts;
			}
		}
		close(fd);
	}
	kbuffer_free(kbuf);
}

/* Markers k0..kROUNDS with trev events 0..ROUNDS-1 between them, on @clock. */
static void check_clock(int clock, int nr_cpus)
{
	static unsigned long long markers[ROUNDS + 1];
	unsigned long long trev_ts[ROUNDS] = { 0 };
	struct trev_rb_options opts = { .size_kb = 64, .clock = clock };
	const char *name = trev_clock_name(clock);
	char path[512], text[32];
	struct trev_rb_event ev;
	struct trev_rb *rb;
	int fd, got = 0;

	memset(markers, 0, sizeof(markers));
	if (trev_rb_create(&rb, &opts) < 0)
		fail("trev_rb_create");
	write_file("trace_clock", name);	/* clears the instance's buffer */
	snprintf(path, sizeof(path), "%s/trace_marker", inst);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fail("%s: %s", path, strerror(errno));
	for (int i = 0; i <= ROUNDS; i++) {
		int len = snprintf(text, sizeof(text), "k%d", i);
		int *e;

		if (write(fd, text, (size_t)len) != len)
			fail("%s: %s", path, strerror(errno));
		if (i == ROUNDS)
			break;
		e = trev_rb_reserve(rb, sizeof(*e));
		if (!e)
			fail("trev_rb_reserve");
		*e = i;
		trev_rb_commit(rb, e);
	}
	close(fd);
	while (trev_rb_consume(rb, &ev, 0) > 0) {
		int i;

		if (ev.len < sizeof(i))
			fail("short trev event");
		memcpy(&i, ev.data, sizeof(i));
		if (i < 0 || i >= ROUNDS || trev_ts[i] || ev.lost)
			fail("trev event %d unexpected (lost %llu)", i, (unsigned long long)ev.lost);
		trev_ts[i] = ev.ts;
		got++;
	}
	trev_rb_destroy(rb);
	if (got != ROUNDS)
		fail("%s: %d trev events of %d", name, got, ROUNDS);
	read_markers(nr_cpus, markers, ROUNDS + 1);
	for (int i = 0; i < ROUNDS; i++) {
		if (!markers[i] || !markers[i + 1])
			fail("%s: marker k%d missing", name, markers[i] ? i + 1 : i);
		if (markers[i] > trev_ts[i])
			fail("%s: kernel k%d at %llu, after trev event %d at %llu written after it",
			     name, i, markers[i], i, trev_ts[i]);
		if (trev_ts[i] > markers[i + 1])
			fail("%s: trev event %d at %llu, after kernel k%d at %llu written after it",
			     name, i, trev_ts[i], i + 1, markers[i + 1]);
	}
	printf("%-8s %d trev events each between the kernel's markers before and after it "
	       "(first gap %llu ns, %llu ns)\n", name, ROUNDS, trev_ts[0] - markers[0],
	       markers[1] - trev_ts[0]);
}

int main(void)
{
	static const int clocks[] = { TREV_CLOCK_MONO, TREV_CLOCK_MONO_RAW, TREV_CLOCK_BOOT };
	struct timespec mono, boot;
	struct stat st;
	int nr_cpus = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid() != 0) {
		printf("SKIP: needs root (the kernel's tracing files)\n");
		return SKIP;
	}
	if (stat(TRACING "/instances", &st) < 0) {
		printf("SKIP: no tracefs at " TRACING " (mount -t tracefs nodev " TRACING ")\n");
		return SKIP;
	}
	print_id = read_int(TRACING "/events/ftrace/print/id");
	snprintf(inst, sizeof(inst), TRACING "/instances/trev-test-clock-%d", (int)getpid());
	if (mkdir(inst, 0755) < 0) {
		int err = errno;

		inst[0] = '\0';
		fail("mkdir %s: %s", inst, strerror(err));
	}
	atexit(cleanup);
	for (;; nr_cpus++) {
		char path[512];

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d", inst, nr_cpus);
		if (stat(path, &st) < 0)
			break;
	}
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	printf("CLOCK_BOOTTIME - CLOCK_MONOTONIC: %lld ns (boot and mono tell apart only "
	       "when it is more than a round)\n",
	       (long long)(boot.tv_sec - mono.tv_sec) * 1000000000ll +
	       (boot.tv_nsec - mono.tv_nsec));
	for (size_t c = 0; c < sizeof(clocks) / sizeof(clocks[0]); c++)
		check_clock(clocks[c], nr_cpus);
	return 0;
}
