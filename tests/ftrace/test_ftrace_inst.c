// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The function tracer in instances (docs/function-tracer.md, "Instances"):
 * an instance's files and their errors (its own error_log, the state kept),
 * the exact records the top instance and two others get from the same
 * functions with different lists and pid lists, set_ftrace_notrace_pid,
 * rmdir of an instance while threads run its traced functions, and a
 * hammer: threads calling traced functions while instances come and go and
 * their lists change, each quiet phase's counts exact in every buffer.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include <trev/trev.h>

#include "ft_funcs.h"
#include "ft_read.h"

static char text[1 << 20];

static const char *rd(const char *path)
{
	return ft_read(text, sizeof(text), path);
}

/* The first sizeof(text) - 1 bytes of @path (a buffer filling up may be larger). */
static const char *rd_part(const char *path)
{
	ssize_t n = trev_read(path, text, sizeof(text));

	if (n < 0)
		fail_msg("read %s: %zd", path, n);
	return text;	/* NUL-terminated, cut or not */
}

static int wr(const char *path, const char *value)
{
	return trev_write(path, value);
}

/* The last entry of @log_path: its message and caret column in the command. */
static void assert_last_error(const char *log_path, const char *msg, int col)
{
	const char *log = rd(log_path), *last = log, *p, *caret, *line;
	char want[256];

	for (p = strstr(log, "\n["); p; p = strstr(p + 1, "\n["))
		last = p + 1;
	snprintf(want, sizeof(want), "error: %s\n", msg);
	if (!strstr(last, want))
		fail_msg("%s has no \"%s\" last:\n%s", log_path, msg, log);
	caret = strchr(last, '^');
	assert_non_null(caret);
	for (line = caret; line > last && line[-1] != '\n'; line--)
		;
	assert_int_equal((int)(caret - line), 11 + col);	/* "  Command: " */
}

/* @path's text without its "#" header lines. */
static const char *body(const char *path)
{
	return ft_skip_header(rd(path));
}

static const char *inst_body(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "instances/%s/trace", name);
	return body(path);
}

static void reset_top(void)
{
	assert_int_equal(wr("current_tracer", "nop"), 0);
	assert_int_equal(wr("set_ftrace_filter", ""), 0);
	assert_int_equal(wr("set_ftrace_notrace", ""), 0);
	assert_int_equal(wr("set_ftrace_pid", ""), 0);
	assert_int_equal(wr("set_ftrace_notrace_pid", ""), 0);
	assert_int_equal(wr("trace", ""), 0);
	assert_int_equal(trev_trace_option("nocontext-info"), 0);
}

static void inst_make(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "instances/%s", name);
	assert_int_equal(trev_mkdir(path), 0);
	snprintf(path, sizeof(path), "instances/%s/trace_options", name);
	assert_int_equal(wr(path, "nocontext-info"), 0);
}

static void inst_wr(const char *name, const char *file, const char *value)
{
	char path[128];

	snprintf(path, sizeof(path), "instances/%s/%s", name, file);
	if (wr(path, value))
		fail_msg("write %s '%s' refused", path, value);
}

static void inst_rm(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "instances/%s", name);
	assert_int_equal(trev_rmdir(path), 0);
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* ------------------------------------------------------------------ */

static void test_inst_files(void **state)
{
	(void)state;
	reset_top();
	inst_make("a");
	assert_string_equal(rd("instances/a/available_tracers"), "function nop\n");
	assert_string_equal(rd("instances/a/current_tracer"), "nop\n");
	assert_string_equal(rd("instances/a/set_ftrace_filter"),
			    "#### all functions enabled ####\n");
	assert_string_equal(rd("instances/a/set_ftrace_notrace"),
			    "#### no functions disabled ####\n");
	assert_string_equal(rd("instances/a/set_ftrace_pid"), "no pid\n");
	assert_string_equal(rd("instances/a/set_ftrace_notrace_pid"), "no pid\n");
	assert_string_equal(rd("set_ftrace_notrace_pid"), "no pid\n");
	/* Top-only files stay top-only, as the kernel's. */
	assert_int_equal(trev_read("instances/a/available_filter_functions", text, sizeof(text)),
			 -ENOENT);
	assert_int_equal(trev_read("instances/a/set_graph_function", text, sizeof(text)),
			 -ENOENT);
	assert_int_equal(trev_read("instances/a/function_profile_enabled", text, sizeof(text)),
			 -ENOENT);

	/* Errors: the kernel's errno, the instance's own error_log, the state kept. */
	assert_int_equal(wr("instances/a/current_tracer", "function_graph"), -EINVAL);
	assert_last_error("instances/a/error_log", "No such tracer", 0);
	assert_string_equal(rd("instances/a/current_tracer"), "nop\n");
	assert_int_equal(wr("instances/a/set_ftrace_filter", "ft_add"), 0);
	assert_int_equal(trev_append("instances/a/set_ftrace_filter", "ft_spin no_such_fn"),
			 -EINVAL);
	assert_last_error("instances/a/error_log", "No such function", 8);
	assert_string_equal(rd("instances/a/set_ftrace_filter"), "ft_add\n");
	/* Function commands are the instance's own (test_ftrace_cmds.c, test_inst_cmds). */
	assert_int_equal(trev_append("instances/a/set_ftrace_filter", "ft_outer:bogus"), -EINVAL);
	assert_last_error("instances/a/error_log", "No such function command", 9);
	assert_string_equal(rd("instances/a/set_ftrace_filter"), "ft_add\n");
	assert_int_equal(trev_append("instances/a/set_ftrace_filter", "ft_outer:traceoff"), 0);
	assert_string_equal(rd("instances/a/set_ftrace_filter"),
			    "ft_add\nft_outer:traceoff:unlimited\n");
	assert_string_equal(rd("set_ftrace_filter"), "#### all functions enabled ####\n");
	assert_int_equal(trev_append("instances/a/set_ftrace_filter", "!ft_outer:traceoff"), 0);
	assert_string_equal(rd("instances/a/set_ftrace_filter"), "ft_add\n");
	assert_int_equal(wr("instances/a/set_ftrace_notrace", "ft_quiet"), 0);
	assert_int_equal(trev_append("instances/a/set_ftrace_notrace", "!nope*"), -EINVAL);
	assert_last_error("instances/a/error_log", "No such function", 0);
	assert_string_equal(rd("instances/a/set_ftrace_notrace"), "ft_quiet\n");
	assert_int_equal(wr("instances/a/set_ftrace_pid", "12 3x"), -EINVAL);
	assert_last_error("instances/a/error_log", "Invalid thread id", 3);
	assert_string_equal(rd("instances/a/set_ftrace_pid"), "no pid\n");
	assert_int_equal(wr("instances/a/set_ftrace_pid", "12 5"), 0);
	assert_int_equal(trev_append("instances/a/set_ftrace_pid", "7"), 0);
	assert_string_equal(rd("instances/a/set_ftrace_pid"), "5\n7\n12\n");
	assert_int_equal(wr("instances/a/set_ftrace_notrace_pid", "-1"), -EINVAL);
	assert_last_error("instances/a/error_log", "Invalid thread id", 0);
	assert_int_equal(wr("instances/a/set_ftrace_notrace_pid", "9"), 0);
	assert_string_equal(rd("instances/a/set_ftrace_notrace_pid"), "9\n");
	assert_int_equal(wr("set_ftrace_notrace_pid", "x"), -EINVAL);
	assert_last_error("error_log", "Invalid thread id", 0);
	/* Nothing of it leaked into the top instance's lists. */
	assert_string_equal(rd("set_ftrace_filter"), "#### all functions enabled ####\n");
	assert_string_equal(rd("set_ftrace_notrace"), "#### no functions disabled ####\n");
	assert_string_equal(rd("set_ftrace_pid"), "no pid\n");
	assert_string_equal(rd("set_ftrace_notrace_pid"), "no pid\n");
	assert_int_equal(wr("instances/a/current_tracer", "function"), 0);
	assert_string_equal(rd("current_tracer"), "nop\n");

	/* A new instance of the same name starts from nothing. */
	inst_rm("a");
	inst_make("a");
	assert_string_equal(rd("instances/a/current_tracer"), "nop\n");
	assert_string_equal(rd("instances/a/set_ftrace_filter"),
			    "#### all functions enabled ####\n");
	assert_string_equal(rd("instances/a/set_ftrace_notrace"),
			    "#### no functions disabled ####\n");
	assert_string_equal(rd("instances/a/set_ftrace_pid"), "no pid\n");
	assert_string_equal(rd("instances/a/set_ftrace_notrace_pid"), "no pid\n");
	inst_rm("a");
}

struct other {
	pthread_t th;
	pid_t tid;
};

static void *other_calls(void *arg)
{
	struct other *o = arg;

	o->tid = gettid_();
	assert_int_equal(ft_spin(0), 0x5a5a);
	return NULL;
}

/* Run ft_spin(0) once in a new thread; return its thread id. */
static pid_t spin_in_thread(void)
{
	struct other o = { 0 };

	assert_int_equal(pthread_create(&o.th, NULL, other_calls, &o), 0);
	assert_int_equal(pthread_join(o.th, NULL), 0);
	return o.tid;
}

/*
 * The top instance and instances a and b on the same functions with
 * different lists: each buffer gets exactly its own selection, one record
 * of a function in each instance that selects it.
 */
static void test_inst_records(void **state)
{
	char tid[32];

	(void)state;
	reset_top();
	inst_make("a");
	inst_make("b");
	assert_int_equal(wr("set_ftrace_filter", "ft_add ft_outer"), 0);
	inst_wr("a", "set_ftrace_filter", "ft_outer ft_spin");
	inst_wr("b", "set_ftrace_notrace", "ft_add");	/* empty filter: every function */
	assert_int_equal(wr("current_tracer", "function"), 0);
	inst_wr("a", "current_tracer", "function");
	inst_wr("b", "current_tracer", "function");

	assert_int_equal(ft_outer(5), 12);
	assert_int_equal(ft_spin(0), 0x5a5a);
	assert_int_equal(ft_quiet(1), 8);
	assert_string_equal(body("trace"), "ft_outer <-test_inst_records\nft_add <-ft_outer\n");
	assert_string_equal(inst_body("a"),
			    "ft_outer <-test_inst_records\nft_spin <-test_inst_records\n");
	assert_string_equal(inst_body("b"),
			    "ft_outer <-test_inst_records\nft_spin <-test_inst_records\n"
			    "ft_quiet <-test_inst_records\n");

	/* a stops: the others go on; its buffer was cleared by the change of tracer. */
	inst_wr("a", "current_tracer", "nop");
	assert_int_equal(wr("trace", ""), 0);
	inst_wr("b", "trace", "");
	assert_int_equal(ft_outer(1), 4);
	assert_string_equal(body("trace"), "ft_outer <-test_inst_records\nft_add <-ft_outer\n");
	assert_string_equal(inst_body("a"), "");
	assert_string_equal(inst_body("b"), "ft_outer <-test_inst_records\n");

	/* The top stops: a site of b's only records in b, none in the top. */
	inst_wr("a", "current_tracer", "function");
	assert_int_equal(wr("current_tracer", "nop"), 0);
	inst_wr("b", "trace", "");
	assert_int_equal(ft_outer(1), 4);
	assert_int_equal(ft_quiet(1), 8);
	assert_string_equal(body("trace"), "");
	assert_string_equal(inst_body("a"), "ft_outer <-test_inst_records\n");
	assert_string_equal(inst_body("b"),
			    "ft_outer <-test_inst_records\nft_quiet <-test_inst_records\n");

	/* The top on again, with no filter: its fast path was left. */
	assert_int_equal(wr("set_ftrace_filter", ""), 0);
	assert_int_equal(wr("current_tracer", "function"), 0);
	inst_wr("a", "trace", "");
	inst_wr("b", "trace", "");
	assert_int_equal(ft_add(1, 2), 3);
	assert_string_equal(body("trace"), "ft_add <-test_inst_records\n");
	assert_string_equal(inst_body("a"), "");
	assert_string_equal(inst_body("b"), "");

	/* An instance's func_stack_trace: a stack after each of its records, none in the top. */
	inst_wr("a", "options/func_stack_trace", "1");
	assert_int_equal(wr("trace", ""), 0);
	inst_wr("a", "trace", "");
	assert_int_equal(ft_spin(0), 0x5a5a);
	assert_non_null(strstr(inst_body("a"), "ft_spin <-test_inst_records\n"));
	assert_non_null(strstr(text, "<stack trace>\n => ft_spin\n"));
	assert_string_equal(body("trace"), "ft_spin <-test_inst_records\n");
	inst_wr("a", "options/func_stack_trace", "0");

	/* function_graph at the top beside function in the instances. */
	assert_int_equal(wr("set_ftrace_filter", "ft_add"), 0);
	assert_int_equal(wr("current_tracer", "function_graph"), 0);
	inst_wr("a", "trace", "");
	inst_wr("b", "trace", "");
	assert_int_equal(ft_outer(5), 12);
	assert_non_null(strstr(body("trace"), "ft_add();"));
	assert_null(strstr(text, "ft_outer"));
	assert_string_equal(inst_body("a"), "ft_outer <-test_inst_records\n");
	assert_string_equal(inst_body("b"), "ft_outer <-test_inst_records\n");
	assert_int_equal(wr("current_tracer", "function"), 0);
	assert_int_equal(wr("set_ftrace_filter", ""), 0);

	/* Pid lists, each instance's own. */
	assert_int_equal(wr("trace", ""), 0);
	inst_wr("a", "trace", "");
	inst_wr("b", "trace", "");
	snprintf(tid, sizeof(tid), "%d", (int)gettid_());
	inst_wr("a", "set_ftrace_pid", tid);		/* a: this thread only */
	inst_wr("b", "set_ftrace_notrace_pid", tid);	/* b: all but this thread */
	assert_int_equal(wr("set_ftrace_notrace_pid", tid), 0);	/* top: all but this one */
	assert_int_equal(ft_spin(0), 0x5a5a);
	spin_in_thread();
	assert_string_equal(body("trace"), "ft_spin <-other_calls\n");
	assert_string_equal(inst_body("a"), "ft_spin <-test_inst_records\n");
	assert_string_equal(inst_body("b"), "ft_spin <-other_calls\n");
	/* Both lists: the notrace one wins, as the kernel's trace_ignore_this_task(). */
	assert_int_equal(wr("trace", ""), 0);
	assert_int_equal(wr("set_ftrace_pid", tid), 0);
	assert_int_equal(ft_spin(0), 0x5a5a);
	spin_in_thread();
	assert_string_equal(body("trace"), "");
	/* Emptied: every thread again. */
	assert_int_equal(wr("set_ftrace_pid", ""), 0);
	assert_int_equal(wr("set_ftrace_notrace_pid", ""), 0);
	assert_int_equal(ft_spin(0), 0x5a5a);
	assert_string_equal(body("trace"), "ft_spin <-test_inst_records\n");

	inst_rm("a");
	inst_rm("b");
	reset_top();
	/* With no instance left, the top instance alone records as before. */
	assert_int_equal(wr("current_tracer", "function"), 0);
	assert_int_equal(ft_outer(5), 12);
	assert_string_equal(body("trace"), "ft_outer <-test_inst_records\nft_add <-ft_outer\n");
	reset_top();
}

/*
 * A dlopen()ed library's functions in an instance's list (":mod:"); at
 * dlclose() they leave it, and the list left empty selects every function,
 * as at the top and as the kernel does when a module goes.
 */
static void test_inst_dlopen(void **state)
{
	int (*twice)(int);
	void *h;

	(void)state;
	reset_top();
	h = dlopen(FT_MOD, RTLD_NOW);
	assert_non_null(h);
	twice = (int (*)(int))dlsym(h, "ft_mod_twice");
	assert_non_null(twice);
	inst_make("m");
	inst_wr("m", "set_ftrace_filter", "ft_mod_twice:mod:libft_mod");
	assert_string_equal(rd("instances/m/set_ftrace_filter"), "ft_mod_twice [libft_mod]\n");
	inst_wr("m", "current_tracer", "function");
	assert_int_equal(twice(21), 42);
	assert_int_equal(ft_spin(0), 0x5a5a);
	assert_string_equal(inst_body("m"), "ft_mod_twice <-test_inst_dlopen\n");
	assert_string_equal(body("trace"), "");
	assert_int_equal(dlclose(h), 0);
	assert_string_equal(rd("instances/m/set_ftrace_filter"),
			    "#### all functions enabled ####\n");
	inst_wr("m", "trace", "");
	assert_int_equal(ft_spin(0), 0x5a5a);
	assert_string_equal(inst_body("m"), "ft_spin <-test_inst_dlopen\n");
	inst_rm("m");
	reset_top();
}

/* ------------------------------------------------------------------ */
/* rmdir while tracing                                                  */

static atomic_bool spin_stop;
static atomic_ulong spin_calls;

static void *spinner(void *arg)
{
	(void)arg;
	while (!atomic_load(&spin_stop)) {
		if (ft_add(2, 3) != 5)
			fail_msg("ft_add");
		atomic_fetch_add(&spin_calls, 1);
	}
	return NULL;
}

static unsigned long count(const char *t, const char *what)
{
	unsigned long n = 0;
	size_t len = strlen(what);

	for (const char *p = t; (p = strstr(p, what)); p += len)
		n++;
	return n;
}

/*
 * As the kernel's __remove_instance(): rmdir of an instance whose tracer
 * runs succeeds, the tracer stops; the threads inside its functions go on,
 * the top instance keeps recording.
 */
static void test_inst_rmdir_tracing(void **state)
{
	pthread_t th[2];
	unsigned long seen;

	(void)state;
	reset_top();
	inst_make("x");
	inst_wr("x", "set_ftrace_filter", "ft_add");
	inst_wr("x", "current_tracer", "function");
	assert_int_equal(wr("set_ftrace_filter", "ft_add"), 0);
	assert_int_equal(wr("current_tracer", "function"), 0);
	atomic_store(&spin_stop, false);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, spinner, NULL), 0);
	while (!count(rd_part("instances/x/trace"), "ft_add <-spinner"))
		;	/* until the instance has records */
	inst_rm("x");
	assert_int_equal(trev_read("instances/x/trace", text, sizeof(text)), -ENOENT);
	/* The top still records: wait for calls made after the rmdir. */
	seen = atomic_load(&spin_calls);
	while (atomic_load(&spin_calls) < seen + 1000)
		;
	atomic_store(&spin_stop, true);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	assert_true(count(rd_part("trace"), "ft_add <-spinner") > 0);
	/* Same name again: nothing of the old one. */
	inst_make("x");
	assert_string_equal(rd("instances/x/current_tracer"), "nop\n");
	assert_string_equal(rd("instances/x/set_ftrace_filter"),
			    "#### all functions enabled ####\n");
	assert_int_equal(wr("trace", ""), 0);
	assert_int_equal(ft_add(1, 1), 2);
	assert_string_equal(body("trace"), "ft_add <-test_inst_rmdir_tracing\n");
	assert_string_equal(inst_body("x"), "");
	inst_rm("x");
	reset_top();
}

/* ------------------------------------------------------------------ */
/* Hammer                                                               */

#define HM_THREADS	4
#define HM_CALLS	200	/* each thread, each function, per quiet phase */
#define HM_ROUNDS	24
#define HM_INST		3

enum { HM_NOISE, HM_STOP, HM_COUNT };

static atomic_int hm_phase;
static atomic_uint hm_gen;		/* bumped at each new phase */
static atomic_int hm_acked;		/* threads that saw the phase (STOP, COUNT done) */

static void *hm_worker(void *arg)
{
	unsigned int seen = 0;

	(void)arg;
	for (;;) {
		unsigned int gen = atomic_load(&hm_gen);
		int phase = atomic_load(&hm_phase);

		if (phase < 0)
			return NULL;
		/* (A new phase seen with the old generation waits for the next look.) */
		if (gen != seen) {
			seen = gen;
			if (phase == HM_COUNT)
				for (int i = 0; i < HM_CALLS; i++)
					if (ft_add(i, 1) != i + 1 || ft_spin(i) != (i ^ 0x5a5a))
						fail_msg("wrong result");
			if (phase != HM_NOISE)
				atomic_fetch_add(&hm_acked, 1);
		}
		if (phase == HM_NOISE && (ft_add(1, 2) != 3 || ft_spin(1) != (1 ^ 0x5a5a)))
			fail_msg("wrong result");
	}
}

static void hm_set_phase(int phase)
{
	atomic_store(&hm_acked, 0);
	atomic_store(&hm_phase, phase);
	atomic_fetch_add(&hm_gen, 1);
	if (phase != HM_NOISE)
		while (atomic_load(&hm_acked) < HM_THREADS)
			;	/* every thread has finished its calls of the phase before */
}

/* One buffer's model: which of ft_add (bit 0) and ft_spin (bit 1) it records. */
struct hm_state {
	bool exists, on;
	unsigned int filter, notrace;
};

static const char *const hm_lists[] = { "", "ft_add", "ft_spin", "ft_add ft_spin" };

static unsigned int hm_selects(const struct hm_state *st)
{
	if (!st->exists || !st->on)
		return 0;
	return (st->filter ? st->filter : 3u) & ~st->notrace;
}

static void hm_apply(const char *dir, struct hm_state *st, unsigned int r)
{
	char path[128];

	snprintf(path, sizeof(path), "%sset_ftrace_filter", dir);
	st->filter = r & 3;
	assert_int_equal(wr(path, hm_lists[st->filter]), 0);
	snprintf(path, sizeof(path), "%sset_ftrace_notrace", dir);
	st->notrace = (r >> 2) % 3 == 2 ? 1 : 0;
	assert_int_equal(wr(path, hm_lists[st->notrace]), 0);
	snprintf(path, sizeof(path), "%scurrent_tracer", dir);
	st->on = (r >> 4) % 4 != 0;
	assert_int_equal(wr(path, st->on ? "function" : "nop"), 0);
}

static void hm_check(const char *path, const struct hm_state *st, int round)
{
	unsigned int sel = hm_selects(st);
	const char *t = body(path);
	unsigned long add = count(t, "ft_add <-hm_worker"), spin = count(t, "ft_spin <-hm_worker");
	unsigned long want_add = (sel & 1) ? HM_THREADS * HM_CALLS : 0;
	unsigned long want_spin = (sel & 2) ? HM_THREADS * HM_CALLS : 0;

	if (add != want_add || spin != want_spin)
		fail_msg("round %d, %s: ft_add %lu (want %lu), ft_spin %lu (want %lu); "
			 "filter %u notrace %u on %d", round, path, add, want_add, spin,
			 want_spin, st->filter, st->notrace, st->on);
}

static void test_inst_hammer(void **state)
{
	struct hm_state top = { .exists = true }, inst[HM_INST] = { 0 };
	pthread_t th[HM_THREADS];
	unsigned int seed = 12345;

	(void)state;
	reset_top();
	atomic_store(&hm_phase, HM_NOISE);
	for (int i = 0; i < HM_THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, hm_worker, NULL), 0);
	for (int round = 0; round < HM_ROUNDS; round++) {
		char dir[64], path[96];

		/* Changes while the threads call the functions. */
		for (int k = 0; k < 4; k++) {
			unsigned int r = rand_r(&seed);
			int i = (int)(r % (HM_INST + 1)) - 1;

			r /= HM_INST + 1;
			if (i < 0) {
				hm_apply("", &top, r);
				continue;
			}
			snprintf(dir, sizeof(dir), "i%d", i);
			if (inst[i].exists && r % 5 == 0) {
				inst_rm(dir);
				inst[i] = (struct hm_state){ 0 };
				continue;
			}
			if (!inst[i].exists) {
				inst_make(dir);
				inst[i].exists = true;
			}
			snprintf(dir, sizeof(dir), "instances/i%d/", i);
			hm_apply(dir, &inst[i], r / 5);
		}
		/* Quiet: the threads stop, the buffers are emptied, then counted calls. */
		hm_set_phase(HM_STOP);
		assert_int_equal(wr("trace", ""), 0);
		for (int i = 0; i < HM_INST; i++)
			if (inst[i].exists) {
				snprintf(path, sizeof(path), "instances/i%d/trace", i);
				assert_int_equal(wr(path, ""), 0);
			}
		hm_set_phase(HM_COUNT);
		hm_check("trace", &top, round);
		for (int i = 0; i < HM_INST; i++)
			if (inst[i].exists) {
				snprintf(path, sizeof(path), "instances/i%d/trace", i);
				hm_check(path, &inst[i], round);
			}
		hm_set_phase(HM_NOISE);
	}
	atomic_store(&hm_phase, -1);
	for (int i = 0; i < HM_THREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	for (int i = 0; i < HM_INST; i++)
		if (inst[i].exists) {
			char dir[32];

			snprintf(dir, sizeof(dir), "i%d", i);
			inst_rm(dir);
		}
	reset_top();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inst_files),
		cmocka_unit_test(test_inst_records),
		cmocka_unit_test(test_inst_dlopen),
		cmocka_unit_test(test_inst_rmdir_tracing),
		cmocka_unit_test(test_inst_hammer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
