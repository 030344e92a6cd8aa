// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The function commands of set_ftrace_filter (docs/function-tracer.md,
 * "Function commands"): the parser and listing (table-driven: input, the
 * file's text after, the error and its caret column, the state kept on
 * error), each command's effect with counts, commands while the tracer is
 * nop and while it traces, removal, a dlclose()d library's commands, 8
 * threads taking one count exactly, and options/func_stack_trace.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <trev/trev.h>

#include "ft_funcs.h"
#include "ft_read.h"

#define CREATE_TRACE_POINTS
#include "ftcmd_events.h"

static char text[1 << 20];

static const char *rd(const char *path)
{
	return ft_read(text, sizeof(text), path);
}

/* The last error_log entry's message line and caret column. */
static void assert_last_error(const char *msg, int col)
{
	const char *log = rd("error_log"), *last = log, *p, *caret, *line;
	char want[256];

	for (p = strstr(log, "\n["); p; p = strstr(p + 1, "\n["))
		last = p + 1;
	snprintf(want, sizeof(want), "error: %s\n", msg);
	if (!strstr(last, want))
		fail_msg("error_log has no \"%s\" last:\n%s", msg, log);
	caret = strchr(last, '^');
	assert_non_null(caret);
	for (line = caret; line > last && line[-1] != '\n'; line--)
		;
	/* "  Command: " is 11 columns; the caret sits under column @col. */
	if ((int)(caret - line) != 11 + col)
		fail_msg("caret at %d, want %d:\n%s", (int)(caret - line) - 11, col, last);
}

/* @path's text without its "#" header lines. */
static const char *body(const char *path)
{
	return ft_skip_header(rd(path));
}

static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static const char *const all_cmds[] = {
	"traceon", "traceoff", "snapshot", "stacktrace", "dump", "cpudump",
	"enable_event:ftcmd:ftcmd_sample", "disable_event:ftcmd:ftcmd_sample",
};

/* Remove every command: '>' keeps them, as the kernel's does. */
static void clear_cmds(void)
{
	char t[128];

	for (size_t i = 0; i < sizeof(all_cmds) / sizeof(all_cmds[0]); i++) {
		snprintf(t, sizeof(t), "!*:%s", all_cmds[i]);
		trev_append("set_ftrace_filter", t);
		snprintf(t, sizeof(t), "!*:%s:0", all_cmds[i]);
		trev_append("set_ftrace_filter", t);
	}
}

static void reset_all(void)
{
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	clear_cmds();
	assert_int_equal(trev_write("set_ftrace_filter", ""), 0);
	assert_int_equal(trev_write("set_ftrace_notrace", ""), 0);
	assert_string_equal(rd("set_ftrace_filter"), "#### all functions enabled ####\n");
	assert_int_equal(trev_write("error_log", ""), 0);
	assert_int_equal(trev_write("tracing_on", "1"), 0);
	assert_int_equal(trev_write("trace", ""), 0);
	assert_int_equal(trev_trace_option("nocontext-info"), 0);
	assert_int_equal(trev_trace_option("nofunc_stack_trace"), 0);
	assert_int_equal(trev_set_event("!ftcmd:*"), 0);
}

/* ------------------------------------------------------------------ */
/* The parser and the listing                                           */

#define ALL "#### all functions enabled ####\n"

struct cmd_case {
	const char *file;
	const char *before;	/* appended to set_ftrace_filter first; NULL: nothing */
	bool truncate;		/* > instead of >> */
	const char *input;
	int ret;		/* 0 or -errno */
	const char *list;	/* set_ftrace_filter's text after */
	const char *err;	/* error_log message when ret < 0 */
	int col;		/* its caret column */
};

static const struct cmd_case cmd_cases[] = {
	{ "set_ftrace_filter", NULL, false, "ft_add:traceon", 0,
	  ALL "ft_add:traceon:unlimited\n", NULL, 0 },
	{ "set_ftrace_filter", NULL, false, "ft_add:traceoff:3", 0,
	  ALL "ft_add:traceoff:count=3\n", NULL, 0 },
	{ "set_ftrace_filter", NULL, false, "ft_a*:snapshot:0x10", 0,
	  ALL "ft_add:snapshot:count=16\n", NULL, 0 },
	{ "set_ftrace_filter", NULL, false, "ft_spin:stacktrace ft_add:stacktrace", 0,
	  ALL "ft_add:stacktrace:unlimited\nft_spin:stacktrace:unlimited\n", NULL, 0 },
	{ "set_ftrace_filter", NULL, false, "ft_add:enable_event:ftcmd:ftcmd_sample:2", 0,
	  ALL "ft_add:enable_event:ftcmd:ftcmd_sample:count=2\n", NULL, 0 },
	{ "set_ftrace_filter", NULL, false, "ft_add:disable_event:ftcmd:ftcmd_sample", 0,
	  ALL "ft_add:disable_event:ftcmd:ftcmd_sample:unlimited\n", NULL, 0 },
	/* The kinds newest first, as the kernel's list of probes. */
	{ "set_ftrace_filter", NULL, false, "ft_add:dump ft_add:cpudump:2", 0,
	  ALL "ft_add:cpudump:count=2\nft_add:dump:unlimited\n", NULL, 0 },
	{ "set_ftrace_filter", NULL, false, "ft_add:traceoff ft_add:traceoff:5", 0,
	  ALL "ft_add:traceoff:count=5\nft_add:traceoff:unlimited\n", NULL, 0 },
	/* After the plain functions. */
	{ "set_ftrace_filter", "ft_spin", false, "ft_add:traceon", 0,
	  "ft_spin\nft_add:traceon:unlimited\n", NULL, 0 },
	/* ">" empties the functions, not the commands (the kernel's). */
	{ "set_ftrace_filter", "ft_spin ft_add:traceon", true, "ft_quiet", 0,
	  "ft_quiet\nft_add:traceon:unlimited\n", NULL, 0 },
	/* Removal: the kind written without a count, or with one (":0"). */
	{ "set_ftrace_filter", "ft_add:traceoff ft_spin:traceoff", false, "!ft_add:traceoff", 0,
	  ALL "ft_spin:traceoff:unlimited\n", NULL, 0 },
	{ "set_ftrace_filter", "ft_add:traceoff:2", false, "!ft_add:traceoff", -ENODEV,
	  ALL "ft_add:traceoff:count=2\n", "No such command is set", 8 },
	{ "set_ftrace_filter", "ft_add:traceoff:2", false, "!ft_add:traceoff:0", 0, ALL, NULL, 0 },
	{ "set_ftrace_filter", "ft_add:traceon ft_spin:traceon ft_quiet:traceon", false,
	  "!ft_[as]*:traceon", 0, ALL "ft_quiet:traceon:unlimited\n", NULL, 0 },
	{ "set_ftrace_filter", "ft_add:traceon ft_spin:traceon", false, "!*:traceon", 0, ALL,
	  NULL, 0 },
	{ "set_ftrace_filter", "ft_add:enable_event:ftcmd:ftcmd_sample", false,
	  "!ft_add:enable_event:ftcmd:ftcmd_sample", 0, ALL, NULL, 0 },
	{ "set_ftrace_filter", NULL, false, "ft_add:traceon !ft_add:traceon", 0, ALL, NULL, 0 },
	/* Errors: nothing changes, the caret under the part at fault. */
	{ "set_ftrace_filter", NULL, false, "ft_add:bogus", -EINVAL, ALL,
	  "No such function command", 7 },
	{ "set_ftrace_filter", NULL, false, "ft_add:traceon:abc", -EINVAL, ALL, "Invalid count",
	  15 },
	{ "set_ftrace_filter", NULL, false, "ft_add:traceon:-1", -EINVAL, ALL, "Invalid count",
	  15 },
	{ "set_ftrace_filter", NULL, false, "nosuch:traceon", -EINVAL, ALL, "No such function",
	  0 },
	{ "set_ftrace_filter", NULL, false, "ft_add:enable_event:ftcmd:nosuch", -EINVAL, ALL,
	  "Event not found", 20 },
	{ "set_ftrace_filter", NULL, false, "ft_add:enable_event:ftcmd", -EINVAL, ALL,
	  "Missing event name", 25 },
	{ "set_ftrace_filter", NULL, false, "ft_add:enable_event:ftcmd:ftcmd_sample:", -EINVAL,
	  ALL, "Invalid count", 39 },
	{ "set_ftrace_filter", NULL, false, "ft_add:enable_event", -EINVAL, ALL,
	  "Missing system:event", 19 },
	{ "set_ftrace_filter", "ft_add:traceon", false, "ft_add:traceon", -EINVAL,
	  ALL "ft_add:traceon:unlimited\n", "The command is already set on these functions", 0 },
	{ "set_ftrace_filter", "ft_add:traceon", false, "!ft_spin:traceon", -EINVAL,
	  ALL "ft_add:traceon:unlimited\n", "No such function", 0 },
	{ "set_ftrace_filter", NULL, false, "!ft_spin:snapshot", -ENODEV, ALL,
	  "No such command is set", 9 },
	/* All or nothing: a refused term undoes the write's commands, added or removed. */
	{ "set_ftrace_filter", "ft_spin:traceon", false, "ft_add:traceoff nosuch:traceon", -EINVAL,
	  ALL "ft_spin:traceon:unlimited\n", "No such function", 16 },
	{ "set_ftrace_filter", "ft_spin:traceon", false, "!ft_spin:traceon ft_add:bogus", -EINVAL,
	  ALL "ft_spin:traceon:unlimited\n", "No such function command", 24 },
	{ "set_ftrace_filter", NULL, false, "ft_add ft_add:snapshot ft_spin:nosuch", -EINVAL, ALL,
	  "No such function command", 31 },
	/* set_ftrace_notrace takes none (the kernel's README: "Does not accept triggers"). */
	{ "set_ftrace_notrace", NULL, false, "ft_add:traceon", -EINVAL, ALL,
	  "Function commands only work with set_ftrace_filter", 7 },
};

static void test_cmd_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cmd_cases) / sizeof(cmd_cases[0]); i++) {
		const struct cmd_case *c = &cmd_cases[i];
		int ret;

		reset_all();
		if (c->before)
			assert_int_equal(trev_append("set_ftrace_filter", c->before), 0);
		ret = c->truncate ? trev_write(c->file, c->input) : trev_append(c->file, c->input);
		if (ret != c->ret)
			fail_msg("case %zu (%s '%s'): %d, want %d", i, c->file, c->input, ret, c->ret);
		if (strcmp(rd("set_ftrace_filter"), c->list))
			fail_msg("case %zu (%s '%s'): list\n%s\nwant\n%s", i, c->file, c->input, text,
				 c->list);
		if (c->err)
			assert_last_error(c->err, c->col);
	}
	reset_all();
}

/* ------------------------------------------------------------------ */
/* Effects                                                              */

/* traceoff with the tracer on: exactly the calls before it are traced. */
static void test_traceoff_traced(void **state)
{
	(void)state;
	reset_all();
	assert_int_equal(trev_write("set_ftrace_filter", "ft_add"), 0);
	assert_int_equal(trev_append("set_ftrace_filter", "ft_quiet:traceoff"), 0);
	assert_int_equal(trev_write("current_tracer", "function"), 0);
	for (int i = 0; i < 7; i++)
		assert_int_equal(ft_add(i, 1), i + 1);
	assert_int_equal(ft_quiet(1), 8);	/* not in the filter: not recorded, still runs */
	for (int i = 0; i < 5; i++)
		assert_int_equal(ft_add(i, 1), i + 1);
	assert_string_equal(rd("tracing_on"), "0\n");
	rd("trace");
	assert_int_equal(count_of(text, "ft_add <-test_traceoff_traced\n"), 7);
	assert_int_equal(count_of(text, "ft_quiet"), 0);
	/* On the traced function itself: its own record is made first (two ops, tracer first). */
	assert_int_equal(trev_write("trace", ""), 0);
	assert_int_equal(trev_write("tracing_on", "1"), 0);
	assert_int_equal(trev_append("set_ftrace_filter", "ft_add:traceoff"), 0);
	assert_int_equal(ft_add(1, 1), 2);
	assert_int_equal(ft_add(2, 1), 3);
	assert_string_equal(body("trace"), "ft_add <-test_traceoff_traced\n");
	reset_all();
}

/* With the tracer nop: the command's functions are patched for it alone. */
static void test_onoff_nop(void **state)
{
	(void)state;
	reset_all();
	assert_int_equal(trev_append("set_ftrace_filter", "ft_quiet:traceoff:2 ft_spin:traceon"),
			 0);
	assert_string_equal(rd("current_tracer"), "nop\n");
	assert_int_equal(ft_quiet(0), 7);
	assert_string_equal(rd("tracing_on"), "0\n");
	/* Already off: the count is kept (the kernel's "only decrements when it did work"). */
	assert_int_equal(ft_quiet(0), 7);
	assert_string_equal(rd("set_ftrace_filter"),
			    ALL "ft_spin:traceon:unlimited\nft_quiet:traceoff:count=1\n");
	assert_int_equal(ft_spin(0), 0x5a5a);
	assert_string_equal(rd("tracing_on"), "1\n");
	assert_int_equal(ft_quiet(0), 7);
	assert_string_equal(rd("tracing_on"), "0\n");
	assert_int_equal(ft_spin(0), 0x5a5a);
	assert_int_equal(ft_quiet(0), 7);	/* count 0: no more */
	assert_string_equal(rd("tracing_on"), "1\n");
	assert_string_equal(rd("set_ftrace_filter"),
			    ALL "ft_spin:traceon:unlimited\nft_quiet:traceoff:count=0\n");
	/* Removed: the function runs its nop again, tracing stays as it is. */
	assert_int_equal(trev_append("set_ftrace_filter", "!ft_quiet:traceoff:0 !ft_spin:traceon"),
			 0);
	assert_int_equal(trev_write("tracing_on", "0"), 0);
	assert_int_equal(ft_spin(0), 0x5a5a);
	assert_string_equal(rd("tracing_on"), "0\n");
	reset_all();
}

/* The tracer on, a command on a function it does not select: the command runs, no record. */
static void test_cmd_unselected(void **state)
{
	(void)state;
	reset_all();
	assert_int_equal(trev_write("set_ftrace_filter", "ft_add"), 0);
	assert_int_equal(trev_append("set_ftrace_filter", "ft_spin:traceon"), 0);
	assert_int_equal(trev_write("current_tracer", "function"), 0);
	assert_int_equal(trev_write("tracing_on", "0"), 0);
	assert_int_equal(ft_spin(1), 1 ^ 0x5a5a);
	assert_string_equal(rd("tracing_on"), "1\n");
	assert_int_equal(ft_add(1, 2), 3);
	assert_string_equal(body("trace"), "ft_add <-test_cmd_unselected\n");
	/* The tracer off again: ft_add is unpatched, ft_spin keeps its command. */
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	assert_int_equal(trev_write("tracing_on", "0"), 0);
	assert_int_equal(ft_add(1, 2), 3);
	assert_int_equal(ft_spin(1), 1 ^ 0x5a5a);
	assert_string_equal(rd("tracing_on"), "1\n");
	assert_string_equal(body("trace"), "");
	reset_all();
}

static void test_snapshot(void **state)
{
	(void)state;
	reset_all();
	assert_int_equal(trev_write("trace_marker", "before"), 0);
	assert_int_equal(trev_append("set_ftrace_filter", "ft_spin:snapshot:1"), 0);
	assert_int_equal(ft_spin(1), 1 ^ 0x5a5a);
	assert_non_null(strstr(rd("snapshot"), "before"));
	assert_int_equal(trev_write("trace_marker", "after"), 0);
	assert_int_equal(ft_spin(1), 1 ^ 0x5a5a);	/* count used up: no second swap */
	assert_null(strstr(rd("snapshot"), "after"));
	assert_non_null(strstr(rd("trace"), "after"));
	assert_string_equal(rd("set_ftrace_filter"), ALL "ft_spin:snapshot:count=0\n");
	reset_all();
}

/* stacktrace: the kernel_stack record, from the function on, "=>" lines as the trigger's. */
static void test_stacktrace(void **state)
{
	const char *p;

	(void)state;
	reset_all();
	assert_int_equal(trev_append("set_ftrace_filter", "ft_add:stacktrace:3"), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(ft_outer(i), 2 * (i + 1));
	rd("trace");
	assert_int_equal(count_of(text, "<stack trace>\n"), 3);
	p = body("trace");
	if (strncmp(p, "<stack trace>\n => ft_add\n => ft_outer\n => test_stacktrace\n", 56))
		fail_msg("trace:\n%s", p);
	assert_string_equal(rd("set_ftrace_filter"), ALL "ft_add:stacktrace:count=0\n");
	/* Not while tracing is off, and the count is kept (ftrace_stacktrace_count()). */
	assert_int_equal(trev_append("set_ftrace_filter", "ft_spin:stacktrace:1"), 0);
	assert_int_equal(trev_write("tracing_on", "0"), 0);
	assert_int_equal(ft_spin(0), 0x5a5a);
	assert_non_null(strstr(rd("set_ftrace_filter"), "ft_spin:stacktrace:count=1\n"));
	reset_all();
}

/*
 * The same under function_graph, whose sites jump to the graph trampoline
 * (not call it): the unwinder still finds the function at the top.
 */
static void test_stacktrace_graph(void **state)
{
	static const char want[] =
		"<stack trace>\n => ft_add\n => ft_outer\n => test_stacktrace_graph\n";
	const char *p;

	(void)state;
	reset_all();
	assert_int_equal(trev_write("set_ftrace_filter", "ft_add ft_outer"), 0);
	assert_int_equal(trev_append("set_ftrace_filter", "ft_add:stacktrace:2"), 0);
	assert_int_equal(trev_write("current_tracer", "function_graph"), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ft_outer(i), 2 * (i + 1));
	rd("trace");
	assert_int_equal(count_of(text, "<stack trace>"), 2);
	p = strstr(text, "<stack trace>");
	if (strncmp(p, want, sizeof(want) - 1))
		fail_msg("trace:\n%s", text);
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	reset_all();
}

#define NR_THREADS	8
#define PER_THREAD	400

static void *spinner(void *arg)
{
	(void)arg;
	for (int i = 0; i < PER_THREAD; i++)
		if (ft_spin(i) != (i ^ 0x5a5a))
			abort();
	return NULL;
}

/* A count of 1000 taken by 8 threads: exactly 1000 firings. */
static void test_count_threads(void **state)
{
	pthread_t t[NR_THREADS];

	(void)state;
	reset_all();
	assert_int_equal(trev_write("buffer_size_kb", "4096"), 0);
	assert_int_equal(trev_append("set_ftrace_filter", "ft_spin:stacktrace:1000"), 0);
	for (int i = 0; i < NR_THREADS; i++)
		pthread_create(&t[i], NULL, spinner, NULL);
	for (int i = 0; i < NR_THREADS; i++)
		pthread_join(t[i], NULL);
	assert_string_equal(rd("set_ftrace_filter"), ALL "ft_spin:stacktrace:count=0\n");
	rd("trace");
	assert_null(strstr(text, "LOST"));
	assert_int_equal(count_of(text, "<stack trace>\n"), 1000);
	assert_int_equal(count_of(text, " => ft_spin\n => spinner\n"), 1000);
	reset_all();
}

static atomic_bool hammer_stop;

static void *hammer(void *arg)
{
	(void)arg;
	for (int i = 0; !atomic_load(&hammer_stop); i++) {
		int a = ft_add(i, 1), s = ft_spin(i);

		if (a != i + 1 || s != (i ^ 0x5a5a)) {
			fprintf(stderr, "hammer: %d: ft_add %d, ft_spin %d\n", i, a, s);
			abort();
		}
	}
	return NULL;
}

/*
 * Commands set and removed while 8 threads call their functions, and the
 * tracer switched meanwhile: each round's count fires exactly, the results
 * stay right (under TSan: no race on the table or the counts).
 */
static void test_cmd_hammer(void **state)
{
	pthread_t t[NR_THREADS];

	(void)state;
	reset_all();
	assert_int_equal(trev_write("set_ftrace_filter", "ft_quiet"), 0);
	atomic_store(&hammer_stop, false);
	for (int i = 0; i < NR_THREADS; i++)
		pthread_create(&t[i], NULL, hammer, NULL);
	for (int round = 0; round < 12; round++) {
		assert_int_equal(trev_write("trace", ""), 0);
		assert_int_equal(trev_write("current_tracer", round & 1 ? "function" : "nop"), 0);
		assert_int_equal(trev_append("set_ftrace_filter", "ft_add:stacktrace:5 ft_spin:traceon"),
				 0);
		/* Wait for the threads to use the count up. */
		while (!strstr(rd("set_ftrace_filter"), "ft_add:stacktrace:count=0\n"))
			sched_yield();
		assert_int_equal(trev_append("set_ftrace_filter",
					     "!ft_add:stacktrace:0 !ft_spin:traceon"), 0);
		assert_string_equal(rd("set_ftrace_filter"), "ft_quiet\n");
		rd("trace");
		assert_int_equal(count_of(text, "<stack trace>\n"), 5);
		assert_int_equal(count_of(text, " => ft_add\n => hammer\n"), 5);
	}
	atomic_store(&hammer_stop, true);
	for (int i = 0; i < NR_THREADS; i++)
		pthread_join(t[i], NULL);
	reset_all();
}

static void test_enable_event(void **state)
{
	(void)state;
	reset_all();
	assert_int_equal(trev_append("set_ftrace_filter",
				     "ft_spin:enable_event:ftcmd:ftcmd_sample:1 "
				     "ft_quiet:disable_event:ftcmd:ftcmd_sample"), 0);
	trace_ftcmd_sample(1);			/* soft-disabled: its probe runs, no record */
	assert_int_equal(ft_spin(0), 0x5a5a);	/* enables it */
	trace_ftcmd_sample(2);
	assert_int_equal(ft_quiet(0), 7);	/* disables it */
	trace_ftcmd_sample(3);
	assert_int_equal(ft_spin(0), 0x5a5a);	/* count used up */
	trace_ftcmd_sample(4);
	assert_string_equal(body("trace"), "ftcmd_sample: v=2\n");
	assert_string_equal(rd("set_ftrace_filter"),
			    ALL "ft_quiet:disable_event:ftcmd:ftcmd_sample:unlimited\n"
				"ft_spin:enable_event:ftcmd:ftcmd_sample:count=0\n");
	/* Removed: the soft mode goes with it, the event is off. */
	clear_cmds();
	trace_ftcmd_sample(5);
	assert_string_equal(body("trace"), "ftcmd_sample: v=2\n");
	reset_all();
}

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char log_text[1 << 16];

static void log_hook(int level, const char *msg, void *arg)
{
	(void)level, (void)arg;
	pthread_mutex_lock(&log_lock);
	strncat(log_text, msg, sizeof(log_text) - strlen(log_text) - 1);
	pthread_mutex_unlock(&log_lock);
}

/* dump and cpudump: tracing off, the trace's lines to the library's log. */
static void test_dump(void **state)
{
	(void)state;
	reset_all();
	log_text[0] = '\0';
	trev_set_log(log_hook, NULL, TREV_LOG_INFO);
	assert_int_equal(trev_write("trace_marker", "dump me"), 0);
	assert_int_equal(trev_append("set_ftrace_filter", "ft_quiet:dump:1"), 0);
	assert_int_equal(ft_quiet(0), 7);
	assert_int_equal(ft_quiet(0), 7);
	assert_string_equal(rd("tracing_on"), "0\n");
	assert_int_equal(count_of(log_text, "Dumping ftrace buffer:\n"), 1);
	assert_non_null(strstr(log_text, ": dump me\n"));
	assert_null(strstr(log_text, "# tracer"));
	assert_non_null(strstr(log_text, "\n---------------------------------\n"));
	/* cpudump: the calling thread's CPU only; an empty buffer says so. */
	assert_int_equal(trev_write("trace", ""), 0);
	assert_int_equal(trev_write("tracing_on", "1"), 0);
	log_text[0] = '\0';
	assert_int_equal(trev_append("set_ftrace_filter", "ft_spin:cpudump"), 0);
	assert_int_equal(ft_spin(0), 0x5a5a);
	assert_string_equal(log_text, "Dumping ftrace buffer:\n   (ftrace buffer empty)\n");
	assert_string_equal(rd("tracing_on"), "0\n");
	reset_all();
}

/* A library's functions with commands: ":mod:" selects them, dlclose() takes them away. */
static void test_dlclose(void **state)
{
	int (*twice)(int);
	void *h;

	(void)state;
	reset_all();
	h = dlopen(FT_MOD, RTLD_NOW);
	assert_non_null(h);
	twice = (int (*)(int))dlsym(h, "ft_mod_twice");
	assert_non_null(twice);
	assert_int_equal(trev_append("set_ftrace_filter", "ft_mod_*:mod:libft_mod:traceoff"), 0);
	assert_string_equal(rd("set_ftrace_filter"),
			    ALL "ft_mod_twice [libft_mod]:traceoff:unlimited\n"
				"ft_mod_scale [libft_mod]:traceoff:unlimited\n");
	assert_int_equal(twice(4), 8);
	assert_string_equal(rd("tracing_on"), "0\n");
	assert_int_equal(trev_write("tracing_on", "1"), 0);
	assert_int_equal(trev_append("set_ftrace_filter", "!*:mod:libft_mod:traceoff"), 0);
	assert_string_equal(rd("set_ftrace_filter"), ALL);
	assert_int_equal(twice(4), 8);
	assert_string_equal(rd("tracing_on"), "1\n");
	assert_int_equal(trev_append("set_ftrace_filter", "ft_mod_twice:traceoff ft_add:traceon"),
			 0);
	assert_int_equal(dlclose(h), 0);
	assert_string_equal(rd("set_ftrace_filter"), ALL "ft_add:traceon:unlimited\n");
	assert_int_equal(trev_write("tracing_on", "0"), 0);
	assert_int_equal(ft_add(1, 1), 2);
	assert_string_equal(rd("tracing_on"), "1\n");
	reset_all();
}

/* ------------------------------------------------------------------ */
/* Instances                                                            */

static const char *ird(const char *inst, const char *file)
{
	char path[128];

	snprintf(path, sizeof(path), "instances/%s/%s", inst, file);
	return rd(path);
}

static int iwr(const char *inst, const char *file, const char *value, bool append)
{
	char path[128];

	snprintf(path, sizeof(path), "instances/%s/%s", inst, file);
	return append ? trev_append(path, value) : trev_write(path, value);
}

static void inst_make(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "instances/%s", name);
	assert_int_equal(trev_mkdir(path), 0);
	assert_int_equal(iwr(name, "trace_options", "nocontext-info", false), 0);
}

static void inst_rm(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "instances/%s", name);
	assert_int_equal(trev_rmdir(path), 0);
}

/*
 * Commands in two instances and the top at once, as the kernel's per
 * instance probes: each acts on its own instance (tracing_on, snapshot,
 * events, buffer) with its own counts, is listed and removed in its own
 * set_ftrace_filter, and goes with its instance's rmdir.
 */
static void test_inst_cmds(void **state)
{
	(void)state;
	reset_all();
	inst_make("a");
	inst_make("b");
	/*
	 * The top's first: the newest commands run first, so b's counted
	 * stacktrace finds the top still on (it tests the top's tracing_on,
	 * as the kernel's ftrace_stacktrace_count() tests tracing_is_on()).
	 */
	assert_int_equal(trev_append("set_ftrace_filter", "ft_quiet:traceoff:1"), 0);
	assert_int_equal(iwr("a", "set_ftrace_filter", "ft_quiet:traceoff:2", true), 0);
	assert_int_equal(iwr("b", "set_ftrace_filter",
			     "ft_quiet:stacktrace:1 ft_spin:enable_event:ftcmd:ftcmd_sample:1", true),
			 0);
	assert_string_equal(ird("a", "set_ftrace_filter"), ALL "ft_quiet:traceoff:count=2\n");
	assert_string_equal(ird("b", "set_ftrace_filter"),
			    ALL "ft_spin:enable_event:ftcmd:ftcmd_sample:count=1\n"
				"ft_quiet:stacktrace:count=1\n");
	assert_string_equal(rd("set_ftrace_filter"), ALL "ft_quiet:traceoff:count=1\n");

	/* One call: a's and the top's traceoff each take one of their own counts; b's stack. */
	assert_int_equal(ft_quiet(0), 7);
	assert_string_equal(ird("a", "tracing_on"), "0\n");
	assert_string_equal(rd("tracing_on"), "0\n");
	assert_string_equal(ird("b", "tracing_on"), "1\n");
	assert_string_equal(ird("a", "set_ftrace_filter"), ALL "ft_quiet:traceoff:count=1\n");
	assert_string_equal(rd("set_ftrace_filter"), ALL "ft_quiet:traceoff:count=0\n");
	rd("instances/b/trace");
	assert_int_equal(count_of(text, "<stack trace>\n => ft_quiet\n"), 1);
	assert_int_equal(count_of(rd("instances/a/trace"), "<stack trace>"), 0);
	assert_int_equal(count_of(rd("trace"), "<stack trace>"), 0);
	assert_non_null(strstr(ird("b", "set_ftrace_filter"), "ft_quiet:stacktrace:count=0\n"));

	/* a's second count, then none; the top's count is used up. */
	assert_int_equal(trev_write("tracing_on", "1"), 0);
	assert_int_equal(iwr("a", "tracing_on", "1", false), 0);
	assert_int_equal(ft_quiet(0), 7);
	assert_string_equal(ird("a", "tracing_on"), "0\n");
	assert_string_equal(rd("tracing_on"), "1\n");
	assert_int_equal(iwr("a", "tracing_on", "1", false), 0);
	assert_int_equal(ft_quiet(0), 7);
	assert_string_equal(ird("a", "tracing_on"), "1\n");
	assert_string_equal(ird("a", "set_ftrace_filter"), ALL "ft_quiet:traceoff:count=0\n");
	/* b's stack count was 1: no second stack. */
	assert_int_equal(count_of(rd("instances/b/trace"), "<stack trace>"), 1);
	/* Unlimited, it tests no tracing_on but its own ring's (ftrace_stacktrace()). */
	assert_int_equal(trev_write("tracing_on", "0"), 0);
	assert_int_equal(iwr("b", "set_ftrace_filter", "ft_outer:stacktrace", true), 0);
	assert_int_equal(ft_outer(1), 4);
	assert_int_equal(count_of(rd("instances/b/trace"), "<stack trace>\n => ft_outer\n"), 1);
	assert_int_equal(iwr("b", "set_ftrace_filter", "!ft_outer:stacktrace", true), 0);
	assert_int_equal(trev_write("tracing_on", "1"), 0);

	/* b's enable_event switches b's event only. */
	trace_ftcmd_sample(1);
	assert_int_equal(ft_spin(0), 0x5a5a);
	trace_ftcmd_sample(2);
	assert_non_null(strstr(ird("b", "trace"), "ftcmd_sample: v=2\n"));
	assert_null(strstr(ird("b", "trace"), "ftcmd_sample: v=1\n"));
	assert_null(strstr(ird("a", "trace"), "ftcmd_sample"));
	assert_null(strstr(rd("trace"), "ftcmd_sample"));

	/* a's snapshot swaps a's buffer. */
	assert_int_equal(iwr("a", "trace_marker", "in a", false), 0);
	assert_int_equal(iwr("a", "set_ftrace_filter", "ft_add:snapshot:1", true), 0);
	assert_int_equal(ft_add(1, 1), 2);
	assert_non_null(strstr(ird("a", "snapshot"), "in a"));
	assert_null(strstr(ird("a", "trace"), "in a"));

	/* Removal in a leaves b's and the top's; an error goes to a's error_log. */
	assert_int_equal(iwr("a", "set_ftrace_filter", "!ft_quiet:traceoff:0", true), 0);
	assert_string_equal(ird("a", "set_ftrace_filter"), ALL "ft_add:snapshot:count=0\n");
	assert_int_equal(iwr("a", "set_ftrace_filter", "!ft_quiet:traceoff:0", true), -ENODEV);
	assert_non_null(strstr(ird("a", "error_log"), "No such command is set"));
	assert_string_equal(rd("set_ftrace_filter"), ALL "ft_quiet:traceoff:count=0\n");
	assert_int_equal(iwr("a", "set_ftrace_filter", "ft_add:bogus", true), -EINVAL);
	assert_string_equal(ird("a", "set_ftrace_filter"), ALL "ft_add:snapshot:count=0\n");

	/* rmdir with commands set: they go (clear_ftrace_function_probes()), the others stay. */
	inst_rm("b");
	assert_int_equal(ft_spin(0), 0x5a5a);
	assert_int_equal(ft_quiet(0), 7);
	inst_make("b");
	assert_string_equal(ird("b", "set_ftrace_filter"), ALL);
	trace_ftcmd_sample(3);
	assert_null(strstr(ird("b", "trace"), "ftcmd_sample"));
	assert_string_equal(ird("a", "set_ftrace_filter"), ALL "ft_add:snapshot:count=0\n");
	inst_rm("a");
	inst_rm("b");
	reset_all();
}

/*
 * An instance with commands made and removed while 8 threads call their
 * functions: each round's count fires exactly into the instance, none into
 * the top, and rmdir while the commands run (under TSan: no race with the
 * trampoline's table, the instance's freeing after the grace period).
 */
static void test_inst_cmd_hammer(void **state)
{
	pthread_t t[NR_THREADS];

	(void)state;
	reset_all();
	atomic_store(&hammer_stop, false);
	for (int i = 0; i < NR_THREADS; i++)
		pthread_create(&t[i], NULL, hammer, NULL);
	for (int round = 0; round < 12; round++) {
		inst_make("h");
		assert_int_equal(iwr("h", "set_ftrace_filter",
				     "ft_add:stacktrace:5 ft_spin:traceon "
				     "ft_spin:enable_event:ftcmd:ftcmd_sample", true), 0);
		while (!strstr(ird("h", "set_ftrace_filter"), "ft_add:stacktrace:count=0\n"))
			sched_yield();
		/* The removal's grace period: the calls that took the count have written. */
		assert_int_equal(iwr("h", "set_ftrace_filter", "!ft_add:stacktrace:0", true), 0);
		rd("instances/h/trace");
		assert_int_equal(count_of(text, "<stack trace>\n"), 5);
		assert_int_equal(count_of(text, " => ft_add\n => hammer\n"), 5);
		inst_rm("h");	/* ft_spin's commands still firing */
	}
	atomic_store(&hammer_stop, true);
	for (int i = 0; i < NR_THREADS; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(count_of(rd("trace"), "<stack trace>"), 0);
	assert_string_equal(rd("set_ftrace_filter"), ALL);
	reset_all();
}

/* func_stack_trace: each function record is followed by the stack from the function on. */
static void test_func_stack_trace(void **state)
{
	const char *want = "ft_add <-ft_outer\n<stack trace>\n => ft_add\n => ft_outer\n"
			   " => test_func_stack_trace\n";
	const char *p;

	(void)state;
	reset_all();
	assert_non_null(strstr(rd("trace_options"), "\nnofunc_stack_trace\n"));
	assert_string_equal(rd("options/func_stack_trace"), "0\n");
	assert_int_equal(trev_write("set_ftrace_filter", "ft_add"), 0);
	assert_int_equal(trev_write("current_tracer", "function"), 0);
	assert_int_equal(trev_write("options/func_stack_trace", "1"), 0);
	assert_non_null(strstr(rd("trace_options"), "\nfunc_stack_trace\n"));
	assert_int_equal(ft_outer(1), 4);
	p = body("trace");
	if (strncmp(p, want, strlen(want)))
		fail_msg("trace:\n%s", p);
	assert_int_equal(count_of(p, "<stack trace>\n"), 1);
	/* With the tracer nop nothing is recorded; the option alone patches nothing. */
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	assert_int_equal(ft_outer(1), 4);
	assert_string_equal(body("trace"), "");
	assert_int_equal(trev_write("options/func_stack_trace", "0"), 0);
	assert_int_equal(trev_write("current_tracer", "function"), 0);
	assert_int_equal(ft_outer(1), 4);
	assert_string_equal(body("trace"), "ft_add <-ft_outer\n");
	reset_all();
}

/* ------------------------------------------------------------------ */
/* The function profiler                                                */

#define STAT_HEADER	"  Function                               Hit    Time            Avg             s^2\n" \
			"  --------                               ---    ----            ---             ---\n"

/*
 * @name's hits and time (us) summed over trace_stat/function0..N; every
 * file's layout checked: "  %-30.30s  %10lu    ", then time, average and
 * s^2 as the kernel's trace_print_graph_duration() prints them.
 */
static unsigned long profile_stat(const char *name, double *time_us)
{
	unsigned long sum = 0;
	char path[64];
	int cpu;

	if (time_us)
		*time_us = 0;
	for (cpu = 0;; cpu++) {
		const char *p;

		snprintf(path, sizeof(path), "trace_stat/function%d", cpu);
		if (trev_read(path, text, sizeof(text)) < 0)
			break;
		assert_int_equal(strncmp(text, STAT_HEADER, strlen(STAT_HEADER)), 0);
		for (p = text + strlen(STAT_HEADER); *p; p = strchr(p, '\n') + 1) {
			char fn[64];
			unsigned long h;
			double t, avg, s2;
			int n = 0;

			assert_int_equal(sscanf(p, "  %63s %lu    %lf us %lf us %lf us%n", fn, &h, &t,
						&avg, &s2, &n), 5);
			/* The name padded to 30, the count in 10, then the columns at fixed places. */
			assert_int_equal(p[2 + 30 + 2 + 10], ' ');
			assert_true(h > 0);
			assert_true(avg <= t);
			if (!strcmp(fn, name)) {
				sum += h;
				if (time_us)
					*time_us += t;
			}
		}
	}
	assert_true(cpu > 0);
	return sum;
}

static unsigned long profile_hits(const char *name)
{
	return profile_stat(name, NULL);
}

static void *profile_spinner(void *arg)
{
	(void)arg;
	for (int i = 0; i < 500; i++)
		if (ft_spin(i) != (i ^ 0x5a5a))
			abort();
	return NULL;
}

/* function_profile_enabled and trace_stat: exact hits of the selected functions. */
static void test_profile(void **state)
{
	pthread_t t[NR_THREADS];

	(void)state;
	reset_all();
	assert_string_equal(rd("function_profile_enabled"), "0\n");
	assert_int_equal(trev_write("function_profile_enabled", "x"), -EINVAL);
	assert_int_equal(trev_write("set_ftrace_filter", "ft_add ft_spin"), 0);
	assert_int_equal(trev_write("function_profile_enabled", "1"), 0);
	assert_string_equal(rd("function_profile_enabled"), "1\n");
	assert_string_equal(rd("trace_stat/function0"), STAT_HEADER);
	for (int i = 0; i < 5; i++)
		assert_int_equal(ft_add(i, 1), i + 1);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ft_spin(i), i ^ 0x5a5a);
	assert_int_equal(ft_quiet(1), 8);	/* not selected */
	assert_int_equal(profile_hits("ft_add"), 5);
	assert_int_equal(profile_hits("ft_spin"), 3);
	assert_int_equal(profile_hits("ft_quiet"), 0);
	assert_string_equal(body("trace"), "");	/* the tracer is nop: no records */
	/* 8 threads: exact. */
	for (int i = 0; i < NR_THREADS; i++)
		pthread_create(&t[i], NULL, profile_spinner, NULL);
	for (int i = 0; i < NR_THREADS; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(profile_hits("ft_spin"), 3 + NR_THREADS * 500);
	/* A new selection keeps the counts of the functions still in it. */
	assert_int_equal(trev_append("set_ftrace_filter", "ft_quiet"), 0);
	assert_int_equal(ft_quiet(1), 8);
	assert_int_equal(profile_hits("ft_add"), 5);
	assert_int_equal(profile_hits("ft_quiet"), 1);
	/* With the tracer on: both count and record. */
	assert_int_equal(trev_write("current_tracer", "function"), 0);
	assert_int_equal(ft_add(1, 1), 2);
	assert_int_equal(profile_hits("ft_add"), 6);
	assert_string_equal(body("trace"), "ft_add <-test_profile\n");
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	/* Off: no more counting, the counts stay; on again: from zero. */
	assert_int_equal(trev_write("function_profile_enabled", "0"), 0);
	assert_int_equal(ft_add(1, 1), 2);
	assert_int_equal(profile_hits("ft_add"), 6);
	assert_int_equal(trev_write("function_profile_enabled", "1"), 0);
	assert_int_equal(profile_hits("ft_add"), 0);
	assert_int_equal(ft_add(1, 1), 2);
	assert_int_equal(profile_hits("ft_add"), 1);
	assert_int_equal(trev_write("function_profile_enabled", "0"), 0);
	reset_all();
}

/*
 * The time columns: a function that sleeps 10 ms twice shows at least
 * 20 ms, whether the tracer is nop (the profiler's own frames) or
 * function_graph (the tracer's). The thread stays on one CPU, where both
 * its hits and its time are counted.
 */
static void test_profile_time(void **state)
{
	cpu_set_t one, was;
	double us;

	(void)state;
	reset_all();
	assert_int_equal(sched_getaffinity(0, sizeof(was), &was), 0);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	assert_int_equal(trev_write("set_ftrace_filter", "ft_nap ft_add"), 0);
	assert_int_equal(trev_write("function_profile_enabled", "1"), 0);
	assert_int_equal(ft_nap(10), 10);
	assert_int_equal(ft_nap(10), 10);
	assert_int_equal(profile_stat("ft_nap", &us), 2);
	assert_true(us >= 20000.0);
	/* Under function_graph the same frames serve both. */
	assert_int_equal(trev_write("current_tracer", "function_graph"), 0);
	assert_int_equal(ft_nap(10), 10);
	assert_int_equal(profile_stat("ft_nap", &us), 3);
	assert_true(us >= 30000.0);
	assert_non_null(strstr(rd("trace"), "ft_nap();"));
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	/* With tracing_thresh, only functions whose average reaches it are listed. */
	assert_int_equal(trev_write("tracing_thresh", "5000"), 0);
	assert_int_equal(ft_add(1, 1), 2);
	assert_int_equal(profile_stat("ft_nap", &us), 3);
	assert_int_equal(profile_hits("ft_add"), 0);
	assert_int_equal(trev_write("tracing_thresh", "0"), 0);
	assert_int_equal(profile_hits("ft_add"), 1);
	assert_int_equal(trev_write("function_profile_enabled", "0"), 0);
	assert_int_equal(sched_setaffinity(0, sizeof(was), &was), 0);
	reset_all();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmd_table),
		cmocka_unit_test(test_traceoff_traced),
		cmocka_unit_test(test_onoff_nop),
		cmocka_unit_test(test_cmd_unselected),
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_stacktrace),
		cmocka_unit_test(test_stacktrace_graph),
		cmocka_unit_test(test_count_threads),
		cmocka_unit_test(test_cmd_hammer),
		cmocka_unit_test(test_enable_event),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_dlclose),
		cmocka_unit_test(test_inst_cmds),
		cmocka_unit_test(test_inst_cmd_hammer),
		cmocka_unit_test(test_func_stack_trace),
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_profile_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
