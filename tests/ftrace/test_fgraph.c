// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The function_graph tracer (docs/function-tracer.md, "function_graph"):
 * its files, the records read back from the ring (they pair up, nest and
 * time correctly: fg_check.h), set_graph_function, set_graph_notrace,
 * max_graph_depth, tracing_thresh, the per-thread stack's limit, return
 * values in every return register, and the frames that do not return
 * normally: longjmp, signal handlers, fork, a thread parked in a traced
 * function while the tracer changes, pthread_exit, pthread_cancel,
 * backtrace(), dlopen/dlclose of an instrumented library.
 */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <trev/trev.h>

#include "fg_check.h"
#include "fg_funcs.h"
#include "ft_read.h"

static char text[1 << 20];
static char graph[1 << 20];
static struct fg_rec recs[1 << 18];

static const char *rd(const char *path)
{
	return ft_read(text, sizeof(text), path);
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void names(void)
{
	if (fg_nr_names)
		return;
	fg_name_add((const void *)fg_leaf, "fg_leaf");
	fg_name_add((const void *)fg_mid, "fg_mid");
	fg_name_add((const void *)fg_top, "fg_top");
	fg_name_add((const void *)fg_rec, "fg_rec");
	fg_name_add((const void *)fg_hidden, "fg_hidden");
	fg_name_add((const void *)fg_jump, "fg_jump");
	fg_name_add((const void *)fg_call, "fg_call");
	fg_name_add((const void *)fg_dret, "fg_dret");
	fg_name_add((const void *)fg_pair, "fg_pair");
	fg_name_add((const void *)fg_ldret, "fg_ldret");
	fg_name_add((const void *)fg_park, "fg_park");
	fg_name_add((const void *)fg_slow, "fg_slow");
	fg_name_add((const void *)fg_tail, "fg_tail");
}

/* Everything off and empty; then function_graph on fg_* with @graph_fn and @graph_nt. */
static void setup(const char *filter, const char *graph_fn, const char *graph_nt)
{
	names();
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	assert_int_equal(trev_write("set_ftrace_filter", filter ? filter : ""), 0);
	assert_int_equal(trev_write("set_ftrace_notrace", ""), 0);
	assert_int_equal(trev_write("set_graph_function", graph_fn ? graph_fn : ""), 0);
	assert_int_equal(trev_write("set_graph_notrace", graph_nt ? graph_nt : ""), 0);
	assert_int_equal(trev_write("max_graph_depth", "0"), 0);
	assert_int_equal(trev_write("tracing_thresh", "0"), 0);
	assert_int_equal(trev_write("set_ftrace_pid", ""), 0);
	assert_int_equal(trev_write("error_log", ""), 0);
	assert_int_equal(trev_write("current_tracer", "function_graph"), 0);
}

static void teardown(void)
{
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	assert_int_equal(trev_write("set_ftrace_filter", ""), 0);
	assert_int_equal(trev_write("set_graph_function", ""), 0);
	assert_int_equal(trev_write("set_graph_notrace", ""), 0);
	assert_int_equal(trev_write("max_graph_depth", "0"), 0);
	assert_int_equal(trev_write("tracing_thresh", "0"), 0);
}

/* @n records from @r rendered, or the test fails with what is wrong. */
static const char *render(const struct fg_rec *r, size_t n)
{
	const char *why = fg_lost ? "the ring lost records" : fg_render(r, n, graph, sizeof(graph));

	if (why)
		fail_msg("%s\n%zu records (%llu lost), read: %.300s ... %s", why, n, fg_lost, graph,
			 graph + (strlen(graph) > 300 ? strlen(graph) - 300 : 0));
	return graph;
}

/* The calls thread @tid made, checked: "fg_top{fg_mid{fg_leaf{}}fg_leaf{}}". */
static const char *calls_of(pid_t tid)
{
	return render(recs, fg_collect(tid, recs, sizeof(recs) / sizeof(recs[0])));
}

static void assert_last_error(const char *msg, int col)
{
	const char *t = rd("error_log");
	const char *caret = strrchr(t, '^');
	const char *line;

	assert_non_null(strstr(t, msg));
	assert_non_null(caret);
	line = caret;
	while (line > t && line[-1] != '\n')
		line--;
	/* "  Command: " is 11 columns; the caret sits under column @col. */
	assert_int_equal((int)(caret - line), 11 + col);
}

static void test_files(void **state)
{
	(void)state;
	names();
	assert_string_equal(rd("available_tracers"), "function_graph function nop\n");
	assert_int_equal(trev_write("current_tracer", "function_graph\n"), 0);
	assert_string_equal(rd("current_tracer"), "function_graph\n");
	assert_int_equal(trev_write("current_tracer", "function"), 0);
	assert_string_equal(rd("current_tracer"), "function\n");
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	assert_int_equal(trev_mkdir("instances/fg"), 0);
	assert_int_equal(trev_write("instances/fg/current_tracer", "function_graph"), -EINVAL);
	assert_int_equal(trev_read("instances/fg/set_graph_function", text, sizeof(text)), -ENOENT);
	assert_int_equal(trev_rmdir("instances/fg"), 0);

	assert_string_equal(rd("set_graph_function"), "#### all functions enabled ####\n");
	assert_string_equal(rd("set_graph_notrace"), "#### no functions disabled ####\n");
	assert_int_equal(trev_write("set_graph_function", "fg_mid fg_t?p"), 0);
	assert_string_equal(rd("set_graph_function"), "fg_mid\nfg_top\n");
	assert_int_equal(trev_append("set_graph_function", "!fg_mid"), 0);
	assert_string_equal(rd("set_graph_function"), "fg_top\n");
	/* A term that matches nothing: EINVAL, the caret under it, the list as it was. */
	assert_int_equal(trev_append("set_graph_function", "fg_leaf nosuchfn"), -EINVAL);
	assert_last_error("No such function", 8);
	assert_string_equal(rd("set_graph_function"), "fg_top\n");
	assert_int_equal(trev_write("set_graph_notrace", "fg_hid*"), 0);
	assert_string_equal(rd("set_graph_notrace"), "fg_hidden\n");
	assert_int_equal(trev_write("set_graph_notrace", "fg_leaf:traceoff"), -EINVAL);
	assert_string_equal(rd("set_graph_notrace"), "#### no functions disabled ####\n");
	assert_int_equal(trev_write("set_graph_function", ""), 0);

	assert_string_equal(rd("max_graph_depth"), "0\n");
	assert_int_equal(trev_write("max_graph_depth", "3"), 0);
	assert_string_equal(rd("max_graph_depth"), "3\n");
	assert_int_equal(trev_write("max_graph_depth", "x"), -EINVAL);
	assert_int_equal(trev_write("max_graph_depth", "-1"), -EINVAL);
	assert_string_equal(rd("max_graph_depth"), "3\n");
	assert_int_equal(trev_write("max_graph_depth", "0"), 0);

	assert_string_equal(rd("tracing_thresh"), "0\n");
	assert_int_equal(trev_write("tracing_thresh", "150"), 0);
	assert_string_equal(rd("tracing_thresh"), "150\n");
	assert_int_equal(trev_write("tracing_thresh", "1.5"), -EINVAL);
	assert_string_equal(rd("tracing_thresh"), "150\n");
	assert_int_equal(trev_write("tracing_thresh", "0"), 0);

	/* The records' formats: the kernel's ids. */
	assert_non_null(strstr(rd("events/ftrace/funcgraph_entry/format"), "ID: 11\n"));
	assert_non_null(strstr(rd("events/ftrace/funcgraph_exit/format"), "ID: 10\n"));
}

static void test_pairs(void **state)
{
	struct fg_pair p;

	(void)state;
	setup("fg_*", NULL, NULL);
	assert_int_equal(fg_top(1), 6);
	assert_int_equal(fg_rec(3), 3);
	/* Return values in xmm0, rdx:rax and st(0) come back whole through the trampoline. */
	assert_true(fg_dret(2.0, 0.5) == 5.5);
	p = fg_pair(5);
	assert_int_equal(p.a, 15);
	assert_int_equal(p.b, 35);
	assert_true(fg_ldret(2.0L) == 6.25L);
	assert_int_equal(fg_tail(4), 6);
	assert_string_equal(calls_of(gettid_()),
			    "fg_top{fg_mid{fg_leaf{}}fg_leaf{}}fg_rec{fg_rec{fg_rec{fg_rec{}}}}"
			    "fg_dret{}fg_pair{}fg_ldret{}fg_tail{fg_leaf{}}");
	/* The tracer off: nothing more is recorded, the calls still work. */
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	assert_int_equal(fg_top(2), 9);
	assert_string_equal(calls_of(gettid_()), "");
	teardown();
}

/*
 * calltime and rettime are the entry and exit records' own time stamps
 * (one clock read per record), also for records at a page's start or after
 * a change of CPU, which the ring's slow path writes.
 */
static void test_stamps(void **state)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long open[64];
	size_t n, sp = 0, exits = 0;
	cpu_set_t old, one;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	setup("fg_*", NULL, NULL);
	for (int i = 0; i < 3000; i++) {
		if (i % 100 == 0) {
			CPU_ZERO(&one);
			CPU_SET((i / 100) % (cpus > 0 ? cpus : 1), &one);
			sched_setaffinity(0, sizeof(one), &one);	/* may fail: fewer CPUs allowed */
		}
		assert_int_equal(fg_top(i), 3 * i + 3);
	}
	sched_setaffinity(0, sizeof(old), &old);
	n = fg_collect(gettid_(), recs, sizeof(recs) / sizeof(recs[0]));
	assert_int_equal(fg_lost, 0);
	for (size_t i = 0; i < n; i++) {
		if (recs[i].type == FG_TYPE_ENT) {
			assert_true(sp < 64);
			open[sp++] = recs[i].ts;
			continue;
		}
		assert_true(sp > 0);
		sp--;
		exits++;
		if (recs[i].rettime != recs[i].ts || recs[i].calltime != open[sp])
			fail_msg("record %zu: calltime %llu rettime %llu, records at %llu and %llu",
				 i, recs[i].calltime, recs[i].rettime, open[sp], recs[i].ts);
	}
	assert_int_equal(sp, 0);
	/* 4 calls per fg_top, 24 + 40 bytes each: several pages. */
	assert_int_equal(exits, 3000 * 4);
	teardown();
}

static void test_graph_function(void **state)
{
	(void)state;
	/* fg_mid is patched for set_graph_function although the filter leaves it out. */
	setup("fg_leaf fg_top", "fg_mid", NULL);
	assert_int_equal(fg_top(1), 6);
	assert_int_equal(fg_leaf(7), 8);
	assert_string_equal(calls_of(gettid_()), "fg_mid{fg_leaf{}}");
	assert_int_equal(trev_write("set_graph_function", "fg_top"), 0);
	assert_int_equal(trev_write("trace", ""), 0);
	assert_int_equal(fg_top(1), 6);
	/* fg_mid is not in the filter any more: not patched, not seen. */
	assert_string_equal(calls_of(gettid_()), "fg_top{fg_leaf{}fg_leaf{}}");
	teardown();
}

static void test_graph_notrace(void **state)
{
	(void)state;
	setup("fg_*", NULL, "fg_hidden");
	assert_int_equal(fg_hidden(1), 5);
	assert_int_equal(fg_top(1), 6);
	assert_int_equal(fg_call(fg_hidden, 1), 5);
	assert_string_equal(calls_of(gettid_()), "fg_top{fg_mid{fg_leaf{}}fg_leaf{}}fg_call{}");
	teardown();
}

static void test_max_depth(void **state)
{
	(void)state;
	setup("fg_*", NULL, NULL);
	assert_int_equal(trev_write("max_graph_depth", "2"), 0);
	assert_int_equal(fg_rec(5), 5);
	assert_int_equal(fg_top(1), 6);
	assert_string_equal(calls_of(gettid_()), "fg_rec{fg_rec{}}fg_top{fg_mid{}fg_leaf{}}");
	assert_int_equal(trev_write("max_graph_depth", "1"), 0);
	assert_int_equal(trev_write("trace", ""), 0);
	assert_int_equal(fg_top(1), 6);
	assert_string_equal(calls_of(gettid_()), "fg_top{}");
	teardown();
}

static pthread_barrier_t pid_bar;

/* Calls before and after set_ftrace_pid leaves this thread out (its shadow stack made before). */
static void *pid_other(void *arg)
{
	pid_t *tid = arg;

	*tid = gettid_();
	assert_int_equal(fg_top(1), 6);
	pthread_barrier_wait(&pid_bar);
	pthread_barrier_wait(&pid_bar);
	for (int i = 0; i < 3; i++)	/* the first reads the thread's id, the rest know it */
		assert_int_equal(fg_top(1), 6);
	return NULL;
}

/* set_ftrace_pid: only the listed threads' calls are graphed (the fast call checks the list). */
static void test_pid(void **state)
{
	char me[32];
	pthread_t t;
	pid_t other = 0;

	(void)state;
	setup("fg_*", NULL, NULL);
	assert_int_equal(pthread_barrier_init(&pid_bar, NULL, 2), 0);
	assert_int_equal(pthread_create(&t, NULL, pid_other, &other), 0);
	pthread_barrier_wait(&pid_bar);
	snprintf(me, sizeof(me), "%d", (int)gettid_());
	assert_int_equal(trev_write("set_ftrace_pid", me), 0);
	pthread_barrier_wait(&pid_bar);
	for (int i = 0; i < 3; i++)
		assert_int_equal(fg_top(1), 6);
	assert_int_equal(pthread_join(t, NULL), 0);
	pthread_barrier_destroy(&pid_bar);
	assert_string_equal(calls_of(gettid_()), "fg_top{fg_mid{fg_leaf{}}fg_leaf{}}"
						 "fg_top{fg_mid{fg_leaf{}}fg_leaf{}}"
						 "fg_top{fg_mid{fg_leaf{}}fg_leaf{}}");
	/* Its calls before the list only (no reset between: its buffer stays the fast path's). */
	assert_string_equal(calls_of(other), "fg_top{fg_mid{fg_leaf{}}fg_leaf{}}");
	assert_int_equal(trev_write("set_ftrace_pid", ""), 0);
	teardown();
}

static void test_thresh(void **state)
{
	size_t n;
	int slow = 0;

	(void)state;
	setup("fg_*", NULL, NULL);
	assert_int_equal(trev_write("tracing_thresh", "20000"), 0);	/* 20 ms */
	for (int i = 0; i < 1000; i++)
		assert_int_equal(fg_top(i), 3 * i + 3);
	assert_int_equal(fg_slow(30), 30);
	n = fg_collect(gettid_(), recs, sizeof(recs) / sizeof(recs[0]));
	/* Exits only, each of a call that lasted the threshold; fg_slow's among them. */
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(recs[i].type, FG_TYPE_RET);
		assert_true(recs[i].rettime - recs[i].calltime >= 20000000ull);
		slow += !strcmp(fg_name_of(recs[i].func), "fg_slow");
	}
	assert_int_equal(slow, 1);
	assert_true(n < 3000);
	teardown();
}

/*
 * tracing_max_latency: the slowest call tree (a root's call) and its
 * records in the snapshot; with tracing_thresh, every tree that lasted that
 * long, as the kernel's report_latency(). Only sleeps set the durations
 * compared: fg_slow(ms) lasts at least ms, and nothing is asserted of how
 * fast a call is.
 */
static void test_max_latency(void **state)
{
	unsigned long us;

	(void)state;
	setup("fg_*", NULL, NULL);
	/* Without funcgraph-snapshot, only the value: the calls stay in the trace. */
	assert_int_equal(trev_write("tracing_max_latency", "0"), 0);
	assert_string_equal(rd("tracing_max_latency"), "0\n");
	assert_int_equal(fg_top(1), 6);
	assert_true(strtoul(rd("tracing_max_latency"), NULL, 10) < 1000000000ul);
	assert_string_equal(calls_of(gettid_()), "fg_top{fg_mid{fg_leaf{}}fg_leaf{}}");
	/* An allocated snapshot is not enough: the user's, left alone. */
	assert_int_equal(trev_write("snapshot", "1"), 0);
	assert_int_equal(trev_write("snapshot", "2"), 0);	/* emptied */
	assert_int_equal(trev_write("tracing_max_latency", "0"), 0);
	assert_int_equal(fg_top(2), 9);
	assert_true(strstr(rd("snapshot"), "fg_top") == NULL);
	assert_string_equal(calls_of(gettid_()), "fg_top{fg_mid{fg_leaf{}}fg_leaf{}}");
	/* With the option, a new maximum swaps the buffer into the snapshot. */
	assert_int_equal(trev_write("options/funcgraph-snapshot", "1"), 0);
	assert_int_equal(trev_write("tracing_max_latency", "0"), 0);
	assert_int_equal(fg_slow(20), 20);
	us = strtoul(rd("tracing_max_latency"), NULL, 10);
	assert_true(us >= 20000);
	assert_non_null(strstr(rd("snapshot"), "fg_slow"));

	/* Not slower than the maximum: nothing changes. */
	assert_int_equal(trev_write("tracing_max_latency", "1000000000"), 0);
	assert_int_equal(fg_slow(1), 1);
	assert_string_equal(rd("tracing_max_latency"), "1000000000\n");

	/* With tracing_thresh, a tree that lasted at least that is the new one, even shorter. */
	assert_int_equal(trev_write("tracing_thresh", "1000"), 0);
	assert_int_equal(fg_slow(2), 2);
	us = strtoul(rd("tracing_max_latency"), NULL, 10);
	assert_true(us >= 2000 && us < 1000000000ul);

	/* Bad input: EINVAL, error_log, the value stays. */
	assert_int_equal(trev_write("tracing_max_latency", "soon"), -EINVAL);
	assert_non_null(strstr(rd("error_log"), "Invalid value"));
	assert_int_equal(strtoul(rd("tracing_max_latency"), NULL, 10), us);
	/* The option holds the snapshot buffer, as a latency tracer holds its max buffer. */
	assert_int_equal(trev_write("snapshot", "0"), -EBUSY);
	assert_int_equal(trev_write("options/funcgraph-snapshot", "0"), 0);
	assert_int_equal(trev_write("snapshot", "0"), 0);
	teardown();
}

/* Deeper than the thread's shadow stack: the rest is counted in overrun, not traced. */
static void *deep_thread(void *arg)
{
	(void)arg;
	return (void *)(long)fg_rec(300);
}

static void test_overrun(void **state)
{
	pthread_t th;
	void *ret;
	size_t n, ents = 0, exits = 0;
	pid_t tid = 0;

	(void)state;
	setup("fg_rec", NULL, NULL);
	assert_int_equal(pthread_create(&th, NULL, deep_thread, NULL), 0);
	assert_int_equal(pthread_join(th, &ret), 0);
	assert_int_equal((long)ret, 300);
	n = fg_collect(0, recs, sizeof(recs) / sizeof(recs[0]));
	for (size_t i = 0; i < n; i++) {
		if (recs[i].tid == gettid_())
			continue;
		tid = recs[i].tid;
		if (recs[i].type == FG_TYPE_ENT) {
			assert_int_equal(recs[i].depth, ents);
			ents++;
		} else {
			assert_int_equal(recs[i].depth, 255 - exits);
			assert_int_equal(recs[i].overrun, 301 - 256);
			exits++;
		}
	}
	assert_true(tid != 0);
	assert_int_equal(ents, 256);
	assert_int_equal(exits, 256);
	render(recs, n);
	teardown();
}

static void test_longjmp(void **state)
{
	static jmp_buf jb;
	size_t n;

	(void)state;
	setup("fg_*", NULL, NULL);
	if (!setjmp(jb))
		fg_jump(&jb, 3);
	/* Four fg_jump frames were left without returning: the next entry drops them. */
	assert_int_equal(fg_top(1), 6);
	assert_int_equal(fg_rec(1), 1);
	if (!setjmp(jb))
		fg_jump(&jb, 1);
	assert_int_equal(fg_leaf(1), 2);
	n = fg_collect(gettid_(), recs, sizeof(recs) / sizeof(recs[0]));
	assert_true(n > 6);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(recs[i].type, FG_TYPE_ENT);
		assert_string_equal(fg_name_of(recs[i].func), "fg_jump");
		assert_int_equal(recs[i].depth, i);
	}
	assert_string_equal(render(recs + 4, 12), "fg_top{fg_mid{fg_leaf{}}fg_leaf{}}fg_rec{fg_rec{}}");
	assert_int_equal(n, 4 + 12 + 2 + 2);
	assert_string_equal(fg_name_of(recs[17].func), "fg_jump");
	assert_int_equal(recs[17].depth, 1);
	assert_string_equal(render(recs + 18, 2), "fg_leaf{}");
	teardown();
}

/* ---- signals ---- */

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	if (fg_mid(3) != 8)
		abort();
	handled++;
}

static int raise_usr1(int x)
{
	raise(SIGUSR1);
	return x + 100;
}

static _Atomic int kicker_stop;
static pthread_t main_thread;

static void *kicker(void *arg)
{
	(void)arg;
	while (!atomic_load(&kicker_stop)) {
		pthread_kill(main_thread, SIGUSR1);
		sched_yield();
	}
	return NULL;
}

static void test_signal(void **state)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t th;
	int before;
	size_t n;

	(void)state;
	/* Not nested: each handler's depth is at most one off the records' nesting. */
	sa.sa_flags = 0;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);
	setup("fg_*", NULL, NULL);
	assert_int_equal(fg_call(raise_usr1, 1), 101);
	assert_int_equal(handled, 1);
	/* The handler's calls nest under the frame they interrupted. */
	assert_string_equal(calls_of(gettid_()), "fg_call{fg_mid{fg_leaf{}}}");

	/* Signals at any instruction of the pushes and pops: everything still pairs up. */
	assert_int_equal(trev_write("buffer_size_kb", "16384"), 0);
	assert_int_equal(trev_write("trace", ""), 0);
	main_thread = pthread_self();
	atomic_store(&kicker_stop, 0);
	before = handled;
	assert_int_equal(pthread_create(&th, NULL, kicker, NULL), 0);
	for (int i = 0; i < 1000 || handled - before < 20; i++) {
		if (fg_top(i) != 3 * i + 3)
			fail_msg("fg_top(%d) wrong", i);
		if (i == 1000 && handled - before < 20) {
			/*
			 * Signals are slow to come: keep the records of the last
			 * rounds only. Not with a handler writing records into the
			 * buffer being cleared under it.
			 */
			sigset_t usr1, old;

			sigemptyset(&usr1);
			sigaddset(&usr1, SIGUSR1);
			pthread_sigmask(SIG_BLOCK, &usr1, &old);
			assert_int_equal(trev_write("trace", ""), 0);
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			i = 0;
		}
	}
	atomic_store(&kicker_stop, 1);
	pthread_join(th, NULL);
	print_message("%d signals during the calls\n", handled - before);
	/*
	 * The ring drops a record whose write a handler's write interrupted
	 * (counted lost): the pairs are checked when nothing was lost.
	 */
	n = fg_collect(gettid_(), recs, sizeof(recs) / sizeof(recs[0]));
	if (!fg_lost) {
		fg_depth_slack = 1;
		render(recs, n);
		fg_depth_slack = 0;
		assert_non_null(strstr(graph, "fg_mid{fg_leaf{}}"));
	} else {
		print_message("%llu records lost: pairs not checked\n", fg_lost);
	}
	/* Whatever the handlers interrupted, the shadow stack is sane: the next calls are exact. */
	assert_int_equal(trev_write("trace", ""), 0);
	assert_int_equal(fg_top(1), 6);
	assert_int_equal(fg_call(fg_leaf, 1), 2);
	assert_string_equal(calls_of(gettid_()), "fg_top{fg_mid{fg_leaf{}}fg_leaf{}}fg_call{fg_leaf{}}");
	teardown();
	signal(SIGUSR1, SIG_DFL);
}

/* ---- fork ---- */

static int do_fork(int x)
{
	pid_t pid = fork();

	if (pid == 0)
		return x + 1000;	/* the child returns through fg_call's frame */
	return pid < 0 ? -1 : (int)pid;
}

static void test_fork(void **state)
{
	int r, status;

	(void)state;
	setup("fg_*", NULL, NULL);
	r = fg_call(do_fork, 7);
	if (r == 1007) {
		/* The child: its frames were copied; the calls go on. */
		_exit(fg_top(2) == 9 && fg_rec(4) == 4 ? 0 : 3);
	}
	assert_true(r > 0);
	assert_int_equal(waitpid((pid_t)r, &status, 0), r);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(fg_leaf(1), 2);
	assert_string_equal(calls_of(gettid_()), "fg_call{}fg_leaf{}");
	teardown();
}

/* ---- a thread that does not return; the tracer changes meanwhile ---- */

static atomic_int release_park;
static _Atomic pid_t park_tid;

static void *park_thread(void *arg)
{
	(void)arg;
	atomic_store(&park_tid, gettid_());
	return (void *)(long)fg_park(&release_park);
}

static bool has_entry(pid_t tid, const char *name)
{
	size_t n = fg_collect(tid, recs, sizeof(recs) / sizeof(recs[0]));

	for (size_t i = 0; i < n; i++)
		if (recs[i].type == FG_TYPE_ENT && !strcmp(fg_name_of(recs[i].func), name))
			return true;
	return false;
}

static void test_park(void **state)
{
	pthread_t th;
	void *ret;
	size_t n;

	(void)state;
	setup("fg_*", NULL, NULL);
	atomic_store(&release_park, 0);
	assert_int_equal(pthread_create(&th, NULL, park_thread, NULL), 0);
	while (!atomic_load(&park_tid) || !has_entry(atomic_load(&park_tid), "fg_park"))
		sched_yield();
	/* Off, function, off, on again, while the frame stays pushed. */
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	assert_int_equal(trev_write("current_tracer", "function"), 0);
	assert_int_equal(trev_write("set_ftrace_filter", "fg_leaf"), 0);
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	assert_int_equal(trev_write("set_ftrace_filter", "fg_*"), 0);
	assert_int_equal(trev_write("current_tracer", "function_graph"), 0);
	assert_int_equal(fg_top(1), 6);
	assert_string_equal(calls_of(gettid_()), "fg_top{fg_mid{fg_leaf{}}fg_leaf{}}");
	atomic_store(&release_park, 1);
	assert_int_equal(pthread_join(th, &ret), 0);
	assert_int_equal((long)ret, 42);
	/* Its return went through the trampoline: the exit is there, its entry was cleared. */
	n = fg_collect(atomic_load(&park_tid), recs, sizeof(recs) / sizeof(recs[0]));
	assert_int_equal(n, 1);
	assert_int_equal(recs[0].type, FG_TYPE_RET);
	assert_string_equal(fg_name_of(recs[0].func), "fg_park");
	assert_int_equal(recs[0].depth, 0);
	assert_true(recs[0].calltime < recs[0].rettime);
	teardown();
}

/* ---- pthread_exit and pthread_cancel from inside traced frames ---- */

static _Atomic int cleanups;

static void cleanup(void *arg)
{
	(void)arg;
	atomic_fetch_add(&cleanups, 1);
}

static int exit_now(int x)
{
	pthread_exit((void *)(long)(x + 1));
}

static void *exit_thread(void *arg)
{
	void *r = NULL;

	(void)arg;
	pthread_cleanup_push(cleanup, NULL);
	r = (void *)(long)fg_call(exit_now, 9);
	pthread_cleanup_pop(0);
	return r;
}

static int wait_cancel(int x)
{
	for (;;)
		pause();	/* a cancellation point */
	return x;
}

static void *cancel_thread(void *arg)
{
	void *r = NULL;

	(void)arg;
	pthread_cleanup_push(cleanup, NULL);
	atomic_store(&park_tid, gettid_());
	r = (void *)(long)fg_call(wait_cancel, 1);
	pthread_cleanup_pop(0);
	return r;
}

static void test_thread_exit(void **state)
{
	pthread_t th;
	void *ret;
	pid_t tid;

	(void)state;
	setup("fg_*", NULL, NULL);
	atomic_store(&cleanups, 0);
	assert_int_equal(pthread_create(&th, NULL, exit_thread, NULL), 0);
	assert_int_equal(pthread_join(th, &ret), 0);
	assert_int_equal((long)ret, 10);
	assert_int_equal(atomic_load(&cleanups), 1);

	atomic_store(&park_tid, 0);
	assert_int_equal(pthread_create(&th, NULL, cancel_thread, NULL), 0);
	while (!(tid = atomic_load(&park_tid)) || !has_entry(tid, "fg_call"))
		sched_yield();
	assert_int_equal(pthread_cancel(th), 0);
	assert_int_equal(pthread_join(th, &ret), 0);
	assert_ptr_equal(ret, PTHREAD_CANCELED);
	print_message("pthread_cancel: %d cleanup handler(s) ran\n", atomic_load(&cleanups) - 1);
	assert_int_equal(fg_top(1), 6);
	assert_string_equal(calls_of(gettid_()), "fg_top{fg_mid{fg_leaf{}}fg_leaf{}}");
	teardown();
}

/* ---- backtrace() inside a traced function ---- */

static void *bt[32], *bt1[2];
static int bt_n, bt1_n;

static int take_backtrace(int x)
{
	bt_n = backtrace(bt, 32);
	/* One frame asked for: the caller's, as the first of the full one. */
	bt1_n = backtrace(bt1, 1);
	return x;
}

static void test_backtrace(void **state)
{
	bool in_call = false;

	(void)state;
	setup("fg_*", NULL, NULL);
	assert_int_equal(fg_call(take_backtrace, 4), 4);
	assert_true(bt_n > 2);
	for (int i = 0; i < bt_n; i++) {
		Dl_info info;
		uintptr_t a = (uintptr_t)bt[i];

		/* The real callers: fg_call, then this test; never trev's return trampoline. */
		if (a > (uintptr_t)fg_call && a < (uintptr_t)fg_call + 64)
			in_call = true;
		if (dladdr(bt[i], &info) && info.dli_fname)
			assert_null(strstr(info.dli_fname, "libtrev"));
	}
	assert_true(in_call);
	/*
	 * The one frame asked for is the first of the full backtrace's object
	 * (take_backtrace, or a sanitizer's interceptor of backtrace()), never
	 * trev's wrapper.
	 */
	assert_int_equal(bt1_n, 1);
	{
		Dl_info one, full;

		assert_true(dladdr(bt1[0], &one) && one.dli_fname);
		assert_true(dladdr(bt[0], &full) && full.dli_fname);
		assert_string_equal(one.dli_fname, full.dli_fname);
		assert_null(strstr(one.dli_fname, "libtrev"));
	}
	assert_string_equal(calls_of(gettid_()), "fg_call{}");
	teardown();
}

/* ---- dlopen / dlclose of an instrumented library while tracing ---- */

static void test_dlopen(void **state)
{
	int (*twice)(int);
	double (*scale)(double, double);
	void *h;

	(void)state;
	setup("fg_*", NULL, NULL);
	h = dlopen(FT_MOD, RTLD_NOW);
	assert_non_null(h);
	twice = (int (*)(int))dlsym(h, "ft_mod_twice");
	scale = (double (*)(double, double))dlsym(h, "ft_mod_scale");
	assert_non_null(twice);
	assert_non_null(scale);
	fg_name_add((const void *)twice, "ft_mod_twice");
	fg_name_add((const void *)scale, "ft_mod_scale");
	assert_int_equal(trev_append("set_ftrace_filter", ":mod:libft_mod"), 0);
	assert_int_equal(trev_append("set_graph_function", "fg_call ft_mod_scale"), 0);
	assert_int_equal(fg_call(twice, 4), 8);
	assert_true(scale(1.5, 2.0) == 3.0);
	assert_int_equal(fg_leaf(1), 2);		/* not under a graph function */
	assert_string_equal(calls_of(gettid_()), "fg_call{ft_mod_twice{}}ft_mod_scale{}");
	assert_int_equal(dlclose(h), 0);
	fg_nr_names -= 2;
	/* Its sites left the lists; fg_call is still a graph function. */
	assert_string_equal(rd("set_graph_function"), "fg_call\n");
	assert_int_equal(trev_write("trace", ""), 0);
	assert_int_equal(fg_call(fg_leaf, 2), 3);
	assert_string_equal(calls_of(gettid_()), "fg_call{fg_leaf{}}");
	teardown();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_stamps),
		cmocka_unit_test(test_graph_function),
		cmocka_unit_test(test_graph_notrace),
		cmocka_unit_test(test_max_depth),
		cmocka_unit_test(test_pid),
		cmocka_unit_test(test_thresh),
		cmocka_unit_test(test_max_latency),
		cmocka_unit_test(test_overrun),
		cmocka_unit_test(test_longjmp),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_park),
		cmocka_unit_test(test_thread_exit),
		cmocka_unit_test(test_backtrace),
		cmocka_unit_test(test_dlopen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
