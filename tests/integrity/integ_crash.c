/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The integrity writers in a program that dies (tests/integrity/integ_crash.sh
 * and integ_kill.sh): THREADS threads write integ:integ_rec events, one
 * stream each (integ_write(): payloads and checks integ_check verifies),
 * then the program ends as HOW says. TREV_OUTPUT must then hold every
 * event committed before the end.
 *
 *	integ_crash COUNTS HOW [THREADS EVENTS]
 *	integ_crash --counts COUNTS		(prints a run's counts as text)
 *
 * It prints "ready PID", then "written N" once every thread has written N
 * (= EVENTS) events. HOW:
 *
 *   exit	  main returns (the exit prints the trace)
 *   segv	  main stores to an unmapped address
 *   segv-thread  writer 0 does
 *   in-write	  writer 0 dies inside trace_integ_rec(), in TP_fast_assign: its
 *		  payload points to a page it cannot read; its event is not committed
 *   overflow	  main recurses until its stack ends (the handler needs a signal stack)
 *   abort	  main calls abort()
 *   bus	  main reads a file mapping beyond the file's end
 *   fpe	  main divides an integer by zero
 *   ill	  main runs an undefined instruction (x86)
 *   handler-before   segv, with a SIGSEGV handler installed before the library
 *		  started: it says "own handler", puts SIG_DFL back and returns
 *   handler-after    segv, with a SIGSEGV handler installed by main: it says
 *		  "own handler" and calls the handler it replaced
 *   handler-replace  segv, with a handler installed by main that says "own
 *		  handler", puts SIG_DFL back and returns (the library's is gone)
 *   reader	  segv while a fourth thread reads `trace` over and over (it holds
 *		  the library's locks when the fork copies them)
 *   stuck	  segv; the child that writes the trace logs (give it a TREV_OUTPUT
 *		  it cannot open), and the log hook waits for a lock writer 0 holds:
 *		  the hook says "log hook" first; the child's watchdog must end it
 *   writer-dies  the same, and the log hook dies of SIGSEGV instead
 *   in-log	  main dies in the log hook, called for a bad set_event write: it
 *		  holds the library's log lock. Give a TREV_OUTPUT that cannot be
 *		  opened: the child's message about it must reach the hook, which
 *		  says "log hook in the child" there
 *
 * With these, the writers stop after EVENTS events and wait (threads alive,
 * parked); COUNTS gets "stream S written N" lines before the end: exact.
 *
 *   run	  the writers go on writing, in bursts, until the process is killed
 *		  (SIGINT and SIGTERM are blocked in main: they come to a writer)
 *   int-handler  as run, with a SIGINT handler installed before the library
 *		  started; SIGINT makes the writers stop and main return
 *   flood-segv	  the writers write without a pause, for ever; once each has
 *		  written EVENTS, main notes what each has written so far (its
 *		  floor) and stores to an unmapped address while they go on
 *   flood-abort  the same, and main calls abort()
 *
 * With these, COUNTS is a shared mapping of each thread's count of writes
 * begun (a counter is raised before its event is written), which outlives
 * the process: --counts prints it, an upper bound of what was committed;
 * --floors prints the floors of flood-*, a lower bound of what each thread
 * had committed when the signal came.
 * Exit status: 0, 2 bad usage or set-up failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <trev/trev.h>

#include "integ_events.h"
#include "integ_writer.h"

enum how {
	HOW_EXIT, HOW_SEGV, HOW_SEGV_THREAD, HOW_IN_WRITE, HOW_OVERFLOW, HOW_ABORT, HOW_BUS,
	HOW_FPE, HOW_ILL, HOW_HANDLER_BEFORE, HOW_HANDLER_AFTER, HOW_HANDLER_REPLACE, HOW_READER,
	HOW_STUCK, HOW_WRITER_DIES, HOW_IN_LOG, HOW_RUN, HOW_INT_HANDLER, HOW_FLOOD_SEGV,
	HOW_FLOOD_ABORT,
};

static const char *const how_names[] = {
	"exit", "segv", "segv-thread", "in-write", "overflow", "abort", "bus", "fpe", "ill",
	"handler-before", "handler-after", "handler-replace", "reader", "stuck", "writer-dies",
	"in-log", "run", "int-handler", "flood-segv", "flood-abort",
};

struct cw_thread {
	pthread_t thread;
	unsigned int idx;
};

static enum how how;
static unsigned int nr_threads = 3;
static uint64_t nr_events = 2000;
static struct cw_thread threads[INTEG_MAX_THREADS];
/*
 * Run modes: the shared counters, COUNTS_SLOTS rows of INTEG_MAX_THREADS:
 * writes begun, writes committed, the floors main noted (flood-*).
 */
enum { COUNT_BEGUN, COUNT_DONE, COUNT_FLOOR, COUNTS_SLOTS };
static _Atomic uint64_t *begun;
static atomic_uint at_floor;		/* threads that wrote nr_events */
static atomic_int stop;			/* int-handler: SIGINT came */
static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park_cond = PTHREAD_COND_INITIALIZER;
static int crash_order;			/* writer 0 is to die (under park_lock) */
static struct sigaction replaced;	/* handler-after: the action main's handler replaced */
static pthread_mutex_t hook_lock = PTHREAD_MUTEX_INITIALIZER; /* stuck: writer 0 holds it */
static atomic_uint reads;		/* reader: rounds of `trace` read */
static pid_t main_pid;

/* A faulting address, and a recursion limit nothing reaches: volatile, the compiler cannot know. */
static volatile uintptr_t bad_addr = 16;
static volatile int zero;
static volatile int no_depth = -1;

static void say(const char *s)
{
	if (write(STDERR_FILENO, s, strlen(s)) < 0)
		return;
}

static void segv(void)
{
	*(volatile int *)bad_addr = 1;
}

static void own_segv_reset(int sig)
{
	say("own handler\n");
	signal(sig, SIG_DFL);
}

static void own_segv_chain(int sig, siginfo_t *info, void *uc)
{
	say("own handler\n");
	if (replaced.sa_flags & SA_SIGINFO)
		replaced.sa_sigaction(sig, info, uc);
	else if (replaced.sa_handler != SIG_DFL && replaced.sa_handler != SIG_IGN)
		replaced.sa_handler(sig);
	else
		signal(sig, SIG_DFL);
}

static void own_sigint(int sig)
{
	(void)sig;
	say("own handler\n");
	atomic_store(&stop, 1);
}

/* The library's log hook: stuck, writer-dies, in-log. */
static void log_hook(int level, const char *msg, void *arg)
{
	(void)level;
	(void)msg;
	(void)arg;
	if (how == HOW_IN_LOG) {
		if (getpid() == main_pid)
			segv();
		say("log hook in the child\n");
		return;
	}
	say("log hook\n");
	if (how == HOW_STUCK)
		pthread_mutex_lock(&hook_lock);
	else
		segv();
}

static void *reader_main(void *arg)
{
	FILE *null = fopen("/dev/null", "w");

	(void)arg;
	pthread_setname_np(pthread_self(), "integ-reader");
	for (;;) {
		if (!null || trev_trace_print(null) < 0)
			exit(2);
		atomic_fetch_add(&reads, 1);
	}
	return NULL;
}

static enum how how_of(const char *name)
{
	for (size_t i = 0; i < sizeof(how_names) / sizeof(how_names[0]); i++)
		if (strcmp(name, how_names[i]) == 0)
			return (enum how)i;
	return (enum how)-1;
}

/*
 * A handler in place before the library starts: this constructor runs
 * before the library's (priorities run first; the library's has none).
 */
static void __attribute__((constructor(101))) before_library(void)
{
	const char *h = getenv("INTEG_CRASH_HOW");
	struct sigaction sa;

	if (!h)
		return;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	if (strcmp(h, "handler-before") == 0) {
		sa.sa_handler = own_segv_reset;
		sigaction(SIGSEGV, &sa, NULL);
	} else if (strcmp(h, "int-handler") == 0) {
		sa.sa_handler = own_sigint;
		sigaction(SIGINT, &sa, NULL);
	}
}

/* UBSan would report the division and exit: this one is meant to trap. */
static void __attribute__((no_sanitize("undefined"))) fpe(void)
{
	zero = (int)bad_addr / zero;
}

static int overflow(int depth)
{
	volatile char frame[512];

	frame[0] = (char)depth;
	if (depth == no_depth)
		return 0;
	return overflow(depth + 1) + frame[0];
}

static void bus(void)
{
	int fd = memfd_create("integ-bus", MFD_CLOEXEC);
	volatile char *p;

	if (fd < 0 || ftruncate(fd, 4096) < 0)
		exit(2);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED || ftruncate(fd, 0) < 0)
		exit(2);
	(void)p[0];
}

/* Writer 0's last event: TP_fast_assign copies the payload from a page it cannot read. */
static void die_in_write(uint64_t seq)
{
	char *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (page == MAP_FAILED)
		exit(2);
	trace_integ_rec(0, seq, page, 100, 0);
}

static void park(unsigned int idx)
{
	pthread_mutex_lock(&park_lock);
	for (;;) {
		if (idx == 0 && crash_order) {
			pthread_mutex_unlock(&park_lock);
			if (how == HOW_IN_WRITE)
				die_in_write(nr_events);
			segv();
		}
		pthread_cond_wait(&park_cond, &park_lock);
	}
}

static void *writer_main(void *arg)
{
	struct cw_thread *w = arg;
	struct timespec pause_ms = { 0, 1000000 };
	char name[16];
	bool flood = how == HOW_FLOOD_SEGV || how == HOW_FLOOD_ABORT;
	bool run = how == HOW_RUN || how == HOW_INT_HANDLER || flood;

	snprintf(name, sizeof(name), "integ-w%u", w->idx);
	pthread_setname_np(pthread_self(), name);
	for (uint64_t seq = 0; run ? !atomic_load(&stop) : seq < nr_events; seq++) {
		if (begun)
			atomic_store_explicit(&begun[w->idx], seq + 1, memory_order_release);
		integ_write(w->idx, seq);
		if (begun)
			atomic_store_explicit(&begun[COUNT_DONE * INTEG_MAX_THREADS + w->idx], seq + 1,
					      memory_order_release);
		if (seq + 1 == nr_events)
			atomic_fetch_add(&at_floor, 1);
		/* Bursts: the writers are mid-write often, and take seconds to fill their buffers. */
		if (run && !flood && seq % 16 == 15)
			nanosleep(&pause_ms, NULL);
	}
	if (how == HOW_STUCK && w->idx == 0)
		pthread_mutex_lock(&hook_lock);
	if (!run)
		park(w->idx);
	return NULL;
}

/* Row @row of the counters in @path as "stream S written N" lines. */
static int print_counts(const char *path, unsigned int row)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t c[INTEG_MAX_THREADS], total = 0;
	ssize_t n;

	if (fd < 0) {
		perror(path);
		return 2;
	}
	n = pread(fd, c, sizeof(c), (off_t)(row * sizeof(c)));
	close(fd);
	if (n != (ssize_t)sizeof(c))
		return 2;
	for (unsigned int i = 0; i < INTEG_MAX_THREADS; i++) {
		if (!c[i])
			continue;
		printf("stream %u written %llu\n", i, (unsigned long long)c[i]);
		total += c[i];
	}
	printf("total written=%llu\n", (unsigned long long)total);
	return 0;
}

static _Atomic uint64_t *map_counters(const char *path)
{
	size_t size = COUNTS_SLOTS * INTEG_MAX_THREADS * sizeof(uint64_t);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	void *p;

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		perror(path);
		exit(2);
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		exit(2);
	return p;
}

static void write_counts(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(2);
	}
	for (unsigned int i = 0; i < nr_threads; i++)
		fprintf(f, "stream %u written %llu\n", i, (unsigned long long)nr_events);
	fprintf(f, "total written=%llu\n", (unsigned long long)(nr_events * nr_threads));
	fclose(f);
}

/* The end HOW names; returns only for exit and int-handler. */
static void die(void)
{
	struct timespec ms = { 0, 1000000 };
	struct sigaction sa;

	switch (how) {
	case HOW_SEGV:
	case HOW_HANDLER_BEFORE:
		segv();
		break;
	case HOW_FLOOD_SEGV:
	case HOW_FLOOD_ABORT:
		/* What each writer had committed by now: the text must hold at least that. */
		for (unsigned int i = 0; i < nr_threads; i++)
			atomic_store(&begun[COUNT_FLOOR * INTEG_MAX_THREADS + i],
				     atomic_load(&begun[COUNT_DONE * INTEG_MAX_THREADS + i]));
		if (how == HOW_FLOOD_ABORT)
			abort();
		segv();
		break;
	case HOW_READER:
		if (pthread_create(&threads[nr_threads].thread, NULL, reader_main, NULL))
			exit(2);
		/* A few rounds in: the reader is in the middle of one. */
		while (atomic_load(&reads) < 3)
			nanosleep(&ms, NULL);
		segv();
		break;
	case HOW_STUCK:
	case HOW_WRITER_DIES:
		trev_set_log(log_hook, NULL, TREV_LOG_WARN);
		segv();
		break;
	case HOW_IN_LOG:
		trev_set_log(log_hook, NULL, TREV_LOG_DEBUG);
		trev_write("set_event", "integ:no_such_event");
		break;
	case HOW_HANDLER_AFTER:
	case HOW_HANDLER_REPLACE:
		memset(&sa, 0, sizeof(sa));
		sigemptyset(&sa.sa_mask);
		if (how == HOW_HANDLER_AFTER) {
			sa.sa_sigaction = own_segv_chain;
			sa.sa_flags = SA_SIGINFO;
		} else {
			sa.sa_handler = own_segv_reset;
		}
		sigaction(SIGSEGV, &sa, &replaced);
		segv();
		break;
	case HOW_SEGV_THREAD:
	case HOW_IN_WRITE:
		pthread_mutex_lock(&park_lock);
		crash_order = 1;
		pthread_cond_broadcast(&park_cond);
		pthread_mutex_unlock(&park_lock);
		for (;;)
			pause();
	case HOW_OVERFLOW:
		overflow(0);
		break;
	case HOW_ABORT:
		abort();
	case HOW_BUS:
		bus();
		break;
	case HOW_FPE:
		fpe();
		break;
	case HOW_ILL:
		__builtin_trap();
	case HOW_RUN:
		for (;;)
			pause();
	case HOW_INT_HANDLER:
		while (!atomic_load(&stop))	/* the signal may come to any thread */
			nanosleep(&ms, NULL);
		for (unsigned int i = 0; i < nr_threads; i++)
			pthread_join(threads[i].thread, NULL);
		return;
	case HOW_EXIT:
		return;
	}
	fprintf(stderr, "integ_crash: %s did not end the process\n", how_names[how]);
	exit(2);
}

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000000 };
	char buf[16];
	sigset_t set;

	if (argc == 3 && strcmp(argv[1], "--counts") == 0)
		return print_counts(argv[2], COUNT_BEGUN);
	if (argc == 3 && strcmp(argv[1], "--floors") == 0)
		return print_counts(argv[2], COUNT_FLOOR);
	if (argc != 3 && argc != 5) {
		fprintf(stderr, "usage: integ_crash COUNTS HOW [THREADS EVENTS]\n"
				"       integ_crash --counts|--floors COUNTS\n");
		return 2;
	}
	main_pid = getpid();
	how = how_of(argv[2]);
	if ((int)how < 0)
		return 2;
	if ((how == HOW_HANDLER_BEFORE || how == HOW_INT_HANDLER) &&
	    !(getenv("INTEG_CRASH_HOW") && strcmp(getenv("INTEG_CRASH_HOW"), argv[2]) == 0)) {
		fprintf(stderr, "integ_crash: %s needs INTEG_CRASH_HOW=%s\n", argv[2], argv[2]);
		return 2;
	}
	if (argc == 5) {
		nr_threads = (unsigned int)atoi(argv[3]);
		nr_events = strtoull(argv[4], NULL, 10);
	}
	if (nr_threads < 1 || nr_threads >= INTEG_MAX_THREADS || nr_events < 1)
		return 2;
	if (trev_read("events/integ/integ_rec/enable", buf, sizeof(buf)) <= 0 || buf[0] != '1') {
		fprintf(stderr, "integ_crash: integ:integ_rec is not enabled (TREV_EVENTS)\n");
		return 2;
	}
	if (how == HOW_RUN || how == HOW_INT_HANDLER || how == HOW_FLOOD_SEGV ||
	    how == HOW_FLOOD_ABORT)
		begun = map_counters(argv[1]);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (unsigned int i = 0; i < nr_threads; i++) {
		threads[i].idx = i;
		if (pthread_create(&threads[i].thread, NULL, writer_main, &threads[i]))
			return 2;
	}
	if (how == HOW_RUN) {
		/* Blocked here: a SIGINT or SIGTERM comes to a writer, in the middle of its writes. */
		sigemptyset(&set);
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGTERM);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
	}
	while (atomic_load(&at_floor) < nr_threads)
		nanosleep(&ms, NULL);
	if (how == HOW_STUCK) {
		/* Writer 0 holds the hook's lock before it parks. */
		while (pthread_mutex_trylock(&hook_lock) == 0) {
			pthread_mutex_unlock(&hook_lock);
			nanosleep(&ms, NULL);
		}
	}
	if (!begun)
		write_counts(argv[1]);
	printf("written %llu\n", (unsigned long long)nr_events);
	fflush(stdout);
	die();
	printf("done\n");
	return 0;
}
