// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The function tracer's files: available_tracers, current_tracer,
 * available_filter_functions (with a dlopen'd module), set_ftrace_filter and
 * set_ftrace_notrace (table-driven: syntax, errors, error_log, state kept),
 * set_ftrace_pid; the format of ftrace/function and the trace text (golden);
 * a thread that blocks SIGTRAP, and a program's own SIGTRAP handler.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
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

/* The last error_log entry's message line and caret column. */
static void assert_last_error(const char *msg, int col)
{
	const char *log = rd("error_log"), *last = log, *p, *caret;
	char want[256];

	for (p = strstr(log, "\n["); p; p = strstr(p + 1, "\n["))
		last = p + 1;
	snprintf(want, sizeof(want), "error: %s\n", msg);
	if (!strstr(last, want))
		fail_msg("error_log has no \"%s\" last:\n%s", msg, log);
	caret = strchr(last, '^');
	assert_non_null(caret);
	/* "  Command: " is 11 columns; the caret sits under column @col. */
	{
		const char *line = caret;

		while (line > last && line[-1] != '\n')
			line--;
		assert_int_equal((int)(caret - line), 11 + col);
	}
}

/* @path's text without its "#" header lines. */
static const char *body(const char *path)
{
	return ft_skip_header(rd(path));
}

static void reset_all(void)
{
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	assert_int_equal(trev_write("set_ftrace_filter", ""), 0);
	assert_int_equal(trev_write("set_ftrace_notrace", ""), 0);
	assert_int_equal(trev_write("set_ftrace_pid", ""), 0);
	assert_int_equal(trev_write("error_log", ""), 0);
	assert_int_equal(trev_trace_option("context-info"), 0);
	assert_int_equal(trev_trace_option("noraw"), 0);
}

static void test_tracers(void **state)
{
	(void)state;
	reset_all();
	assert_string_equal(rd("available_tracers"), "function_graph function nop\n");
	assert_string_equal(rd("current_tracer"), "nop\n");
	assert_int_equal(trev_write("current_tracer", "function_grap"), -EINVAL);
	assert_last_error("No such tracer", 0);
	assert_string_equal(rd("current_tracer"), "nop\n");
	assert_int_equal(trev_write("current_tracer", "function\n"), 0);
	assert_string_equal(rd("current_tracer"), "function\n");
	assert_true(strstr(rd("trace"), "# tracer: function\n") == text);
	assert_int_equal(trev_write("current_tracer", "bogus"), -EINVAL);
	assert_string_equal(rd("current_tracer"), "function\n");
	/* Instances: function, not function_graph (docs/function-tracer.md, "Instances"). */
	assert_int_equal(trev_mkdir("instances/ft"), 0);
	assert_string_equal(rd("instances/ft/available_tracers"), "function nop\n");
	assert_int_equal(trev_write("instances/ft/current_tracer", "function_graph"), -EINVAL);
	assert_string_equal(rd("instances/ft/current_tracer"), "nop\n");
	assert_int_equal(trev_write("instances/ft/current_tracer", "function"), 0);
	assert_string_equal(rd("instances/ft/current_tracer"), "function\n");
	assert_true(strstr(rd("instances/ft/trace"), "# tracer: function\n") == text);
	assert_string_equal(rd("current_tracer"), "function\n");
	assert_int_equal(trev_rmdir("instances/ft"), 0);
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	assert_true(strstr(rd("trace"), "# tracer: nop\n") == text);
}

static bool has_line(const char *t, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = t; (p = strstr(p, line)); p++)
		if ((p == t || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

static void test_available_dlopen(void **state)
{
	int (*twice)(int);
	void *h;

	(void)state;
	reset_all();
	rd("available_filter_functions");
	for (const char *const *f = (const char *const[]){ "ft_add", "ft_mix", "ft_fma",
			"ft_outer", "ft_spin", "ft_quiet", NULL }; *f; f++)
		assert_true(has_line(text, *f));
	assert_null(strstr(text, "trev_fentry"));
	assert_null(strstr(text, "ft_mod_twice"));

	h = dlopen(FT_MOD, RTLD_NOW);
	assert_non_null(h);
	twice = (int (*)(int))dlsym(h, "ft_mod_twice");
	assert_non_null(twice);
	rd("available_filter_functions");
	assert_true(has_line(text, "ft_mod_twice [libft_mod]"));
	assert_true(has_line(text, "ft_mod_scale [libft_mod]"));
	assert_true(has_line(text, "ft_add"));

	/* :mod: selects the module's functions; they trace through a stub or directly. */
	assert_int_equal(trev_write("set_ftrace_filter", ":mod:libft_mod"), 0);
	/* (With sanitizers the module's compiler-made constructors are listed too.) */
	rd("set_ftrace_filter");
	assert_true(has_line(text, "ft_mod_twice [libft_mod]"));
	assert_true(has_line(text, "ft_mod_scale [libft_mod]"));
	for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
		const char *end = strchr(l, '\n');

		assert_non_null(end);
		assert_true(end - l > 12 && !strncmp(end - 12, " [libft_mod]", 12));
	}
	assert_int_equal(trev_write("set_ftrace_filter", "*twice:mod:libft_*"), 0);
	assert_string_equal(rd("set_ftrace_filter"), "ft_mod_twice [libft_mod]\n");
	assert_int_equal(trev_write("current_tracer", "function"), 0);
	assert_int_equal(twice(21), 42);
	assert_int_equal(ft_add(1, 2), 3);
	assert_int_equal(trev_trace_option("nocontext-info"), 0);
	assert_string_equal(body("trace"), "ft_mod_twice <-test_available_dlopen\n");
	assert_int_equal(trev_trace_option("context-info"), 0);

	/* dlclose(): its entries go back to nops and leave every list. */
	assert_int_equal(dlclose(h), 0);
	rd("available_filter_functions");
	assert_null(strstr(text, "libft_mod"));
	assert_true(has_line(text, "ft_add"));
	assert_string_equal(rd("set_ftrace_filter"), "#### all functions enabled ####\n");
	reset_all();
}

/*
 * "FUNC:mod:LIB" for a library not loaded yet (the kernel's cached module
 * filter): kept, listed as written, taken away by "!" and by O_TRUNC, a
 * filter of such terms only selecting nothing; at the library's dlopen()
 * the terms select exactly their functions, in the top and in an instance.
 */
static void test_mod_pending(void **state)
{
	double (*scale)(double, double);
	int (*twice)(int);
	void *h;

	(void)state;
	reset_all();
	assert_null(strstr(rd("available_filter_functions"), "libft_mod"));
	assert_int_equal(trev_write("set_ftrace_filter", "ft_mod_tw*:mod:libft_mod"), 0);
	assert_int_equal(trev_append("set_ftrace_filter", ":mod:libother ft_add"), 0);
	assert_string_equal(rd("set_ftrace_filter"),
			    "ft_add\n:mod:libother\nft_mod_tw*:mod:libft_mod\n");
	assert_int_equal(trev_append("set_ftrace_filter", "!*:mod:libother"), 0);
	assert_string_equal(rd("set_ftrace_filter"), "ft_add\nft_mod_tw*:mod:libft_mod\n");
	assert_int_equal(trev_append("set_ftrace_filter", "!nosuch:mod:libft_mod"), -EINVAL);
	assert_last_error("No such function", 0);
	/* All or nothing: a refused term keeps the kept ones. */
	assert_int_equal(trev_append("set_ftrace_filter", "!ft_mod_tw*:mod:libft_mod nosuch"),
			 -EINVAL);
	assert_string_equal(rd("set_ftrace_filter"), "ft_add\nft_mod_tw*:mod:libft_mod\n");
	/* O_TRUNC empties them with the functions (clear_ftrace_mod_list()). */
	assert_int_equal(trev_write("set_ftrace_filter", "ft_add"), 0);
	assert_string_equal(rd("set_ftrace_filter"), "ft_add\n");

	/* Only kept terms: the filter selects nothing until the library comes. */
	assert_int_equal(trev_write("set_ftrace_filter", "ft_mod_tw*:mod:libft_mod"), 0);
	assert_string_equal(rd("set_ftrace_filter"), "ft_mod_tw*:mod:libft_mod\n");
	assert_int_equal(trev_mkdir("instances/p"), 0);
	assert_int_equal(trev_write("instances/p/trace_options", "nocontext-info"), 0);
	assert_int_equal(trev_write("instances/p/set_ftrace_filter", ":mod:libft_mod"), 0);
	assert_int_equal(trev_write("instances/p/set_ftrace_notrace",
				    "ft_mod_scale:mod:libft_mod"), 0);
	assert_string_equal(rd("instances/p/set_ftrace_filter"), ":mod:libft_mod\n");
	assert_string_equal(rd("instances/p/set_ftrace_notrace"),
			    "#### no functions disabled ####\nft_mod_scale:mod:libft_mod\n");
	assert_int_equal(trev_write("current_tracer", "function"), 0);
	assert_int_equal(trev_write("instances/p/current_tracer", "function"), 0);
	assert_int_equal(trev_trace_option("nocontext-info"), 0);
	assert_int_equal(ft_add(1, 2), 3);
	assert_string_equal(body("trace"), "");
	assert_string_equal(body("instances/p/trace"), "");

	h = dlopen(FT_MOD, RTLD_NOW);
	assert_non_null(h);
	twice = (int (*)(int))dlsym(h, "ft_mod_twice");
	scale = (double (*)(double, double))dlsym(h, "ft_mod_scale");
	assert_non_null(twice);
	assert_non_null(scale);
	assert_string_equal(rd("set_ftrace_filter"), "ft_mod_twice [libft_mod]\n");
	rd("instances/p/set_ftrace_filter");
	assert_true(has_line(text, "ft_mod_twice [libft_mod]"));
	assert_true(has_line(text, "ft_mod_scale [libft_mod]"));
	assert_null(strstr(text, ":mod:"));
	assert_string_equal(rd("instances/p/set_ftrace_notrace"), "ft_mod_scale [libft_mod]\n");
	assert_int_equal(twice(21), 42);
	assert_true(scale(1.5, 2.0) == 3.0);
	assert_int_equal(ft_add(1, 2), 3);
	assert_string_equal(body("trace"), "ft_mod_twice <-test_mod_pending\n");
	assert_string_equal(body("instances/p/trace"), "ft_mod_twice <-test_mod_pending\n");
	/* Loaded now: a term that matches nothing in it is refused, as the kernel's. */
	assert_int_equal(trev_append("set_ftrace_filter", "nosuch:mod:libft_mod"), -EINVAL);
	assert_last_error("No such function", 0);
	assert_string_equal(rd("set_ftrace_filter"), "ft_mod_twice [libft_mod]\n");

	assert_int_equal(trev_write("instances/p/current_tracer", "nop"), 0);
	assert_int_equal(trev_rmdir("instances/p"), 0);
	assert_int_equal(dlclose(h), 0);
	assert_string_equal(rd("set_ftrace_filter"), "#### all functions enabled ####\n");
	reset_all();
}

/* One write (or append) to a list file, what it returns, the list it leaves. */
struct list_case {
	const char *file;
	const char *before;	/* written first with O_TRUNC; NULL: leave it */
	bool append;		/* >> instead of > */
	const char *input;
	int ret;		/* 0 or -errno */
	const char *list;	/* the file's text after */
	const char *err;	/* error_log message when ret < 0 */
	int col;		/* its caret column */
};

static const struct list_case list_cases[] = {
	{ "set_ftrace_filter", "", false, "ft_add", 0, "ft_add\n", NULL, 0 },
	{ "set_ftrace_filter", "ft_add", true, "ft_mix", 0, "ft_add\nft_mix\n", NULL, 0 },
	{ "set_ftrace_filter", "ft_add", false, "ft_mix", 0, "ft_mix\n", NULL, 0 },
	{ "set_ftrace_filter", "", false, "ft_a*", 0, "ft_add\n", NULL, 0 },
	{ "set_ftrace_filter", "", false, "*_outer", 0, "ft_outer\n", NULL, 0 },
	{ "set_ftrace_filter", "", false, "*f?a*", 0, "ft_fma\n", NULL, 0 },
	{ "set_ftrace_filter", "", false, "ft_[as]*", 0, "ft_add\nft_spin\n", NULL, 0 },
	{ "set_ftrace_filter", "", false, "ft_[!as]?i*", 0, "ft_quiet\n", NULL, 0 },
	{ "set_ftrace_filter", "", false, "  ft_add\tft_spin \n", 0, "ft_add\nft_spin\n", NULL, 0 },
	{ "set_ftrace_filter", "ft_add ft_mix", true, "!ft_add", 0, "ft_mix\n", NULL, 0 },
	{ "set_ftrace_filter", "ft_add", true, "!ft_add", 0, "#### all functions enabled ####\n",
	  NULL, 0 },
	{ "set_ftrace_filter", "", false, "", 0, "#### all functions enabled ####\n", NULL, 0 },
	/* Errors: nothing changes, error_log points at the term. */
	{ "set_ftrace_filter", "ft_add", true, "nosuch", -EINVAL, "ft_add\n", "No such function", 0 },
	{ "set_ftrace_filter", "ft_add", true, "ft_mix nosuch*", -EINVAL, "ft_add\n",
	  "No such function", 7 },
	{ "set_ftrace_filter", "ft_add", true, "ft_mix:bogus", -EINVAL, "ft_add\n",
	  "No such function command", 7 },
	/* A library not loaded: the term is kept for it and listed as written (test_mod_pending). */
	{ "set_ftrace_filter", "ft_add", true, "ft_mix:mod:nosuchmod", 0,
	  "ft_add\nft_mix:mod:nosuchmod\n", NULL, 0 },
	{ "set_ftrace_filter", "ft_add", true, "!ft_mix:mod:nosuchmod", -EINVAL, "ft_add\n",
	  "No such function", 0 },
	{ "set_ftrace_filter", "ft_add", true, "!", -EINVAL, "ft_add\n", "No function given", 0 },
	/* The opened file is emptied by > even when the write fails, as the kernel's is. */
	{ "set_ftrace_filter", "ft_add", false, "nosuch", -EINVAL,
	  "#### all functions enabled ####\n", "No such function", 0 },
	{ "set_ftrace_notrace", "", false, "", 0, "#### no functions disabled ####\n", NULL, 0 },
	{ "set_ftrace_notrace", "", false, "ft_spin ft_quiet", 0, "ft_spin\nft_quiet\n", NULL, 0 },
	{ "set_ftrace_notrace", "ft_spin", true, "!ft_spin ft_mix", 0, "ft_mix\n", NULL, 0 },
	{ "set_ftrace_notrace", "ft_spin", true, "ft_[", -EINVAL, "ft_spin\n", "No such function",
	  0 },
};

static void test_list_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(list_cases) / sizeof(list_cases[0]); i++) {
		const struct list_case *c = &list_cases[i];
		int ret;

		reset_all();
		if (c->before)
			assert_int_equal(trev_write(c->file, c->before), 0);
		ret = c->append ? trev_append(c->file, c->input) : trev_write(c->file, c->input);
		if (ret != c->ret)
			fail_msg("case %zu (%s '%s'): %d, want %d", i, c->file, c->input, ret, c->ret);
		if (strcmp(rd(c->file), c->list))
			fail_msg("case %zu (%s '%s'): list\n%s\nwant\n%s", i, c->file, c->input, text,
				 c->list);
		if (c->err)
			assert_last_error(c->err, c->col);
	}
	reset_all();
}

/* The selection decides which calls are traced; notrace wins over filter. */
static void test_selection(void **state)
{
	(void)state;
	reset_all();
	assert_int_equal(trev_write("set_ftrace_filter", "ft_add ft_outer ft_quiet"), 0);
	assert_int_equal(trev_write("set_ftrace_notrace", "ft_quiet"), 0);
	assert_int_equal(trev_write("current_tracer", "function"), 0);
	assert_int_equal(trev_trace_option("nocontext-info"), 0);
	assert_int_equal(ft_outer(5), 12);
	assert_int_equal(ft_quiet(1), 8);
	assert_int_equal(ft_spin(0), 0x5a5a);
	assert_string_equal(body("trace"), "ft_outer <-test_selection\nft_add <-ft_outer\n");
	/* Changing the filter while the tracer runs. */
	assert_int_equal(trev_write("trace", ""), 0);
	assert_int_equal(trev_write("set_ftrace_filter", "ft_spin"), 0);
	assert_int_equal(ft_outer(5), 12);
	assert_int_equal(ft_spin(0), 0x5a5a);
	assert_string_equal(body("trace"), "ft_spin <-test_selection\n");
	/* Off: nothing. */
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	assert_int_equal(ft_spin(0), 0x5a5a);
	assert_string_equal(body("trace"), "");
	reset_all();
}

/* Golden: the format file and the trace lines, as the kernel prints them. */
static void test_golden(void **state)
{
	char want[256];

	(void)state;
	reset_all();
	assert_string_equal(
		rd("events/ftrace/function/format"),
		"name: function\n"
		"ID: 1\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n"
		"\n"
		"print fmt: \" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip\n");
	assert_string_equal(rd("events/ftrace/function/id"), "1\n");
	/*
	 * The function_graph records, as the kernel's since 6.15 (args[], and
	 * retval as with CONFIG_FUNCTION_GRAPH_RETVAL).
	 */
	assert_string_equal(
		rd("events/ftrace/funcgraph_entry/format"),
		"name: funcgraph_entry\n"
		"ID: 11\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n"
		"\n"
		"print fmt: \"--> %ps (%u)\", (void *)REC->func, REC->depth\n");
	assert_string_equal(
		rd("events/ftrace/funcgraph_exit/format"),
		"name: funcgraph_exit\n"
		"ID: 10\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned long retval;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned int depth;\toffset:24;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned int overrun;\toffset:28;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned long long calltime;\toffset:32;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned long long rettime;\toffset:40;\tsize:8;\tsigned:0;\n"
		"\n"
		"print fmt: \"<-- %ps (%u) (start: %llx  end: %llx) over: %u retval: %lx\", "
		"(void *)REC->func, REC->depth, REC->calltime, REC->rettime, REC->depth, "
		"REC->retval\n");

	assert_int_equal(trev_write("set_ftrace_filter", "ft_outer ft_add"), 0);
	assert_int_equal(trev_write("current_tracer", "function"), 0);
	assert_int_equal(ft_outer(1), 4);
	/* current_tracer empties the buffer only when the tracer changes. */
	assert_int_equal(trev_write("current_tracer", "function"), 0);
	rd("trace");
	{
		const char *l1 = strstr(text, "\n#              | |       |   ||||       |         |\n");
		const char *l2;
		char comm[16];
		int pid, cpu, n = 0;
		unsigned long s, us;

		assert_non_null(l1);
		l1 = strchr(l1 + 1, '\n') + 1;
		/* "<comm>-<pid> [<cpu>] .... <s>.<us>: ft_outer <-test_golden" */
		assert_int_equal(sscanf(l1, " %15[^-]-%d [%3d] .... %lu.%6lu: %n", comm, &pid, &cpu,
					&s, &us, &n), 5);
		assert_true(n > 0);
		assert_string_equal(comm, "test_ftrace_fil");
		assert_int_equal(pid, (int)syscall(SYS_gettid));
		assert_int_equal(strncmp(l1 + n, "ft_outer <-test_golden\n", 23), 0);
		l2 = l1 + n + 23;
		assert_non_null(strstr(l2, ": ft_add <-ft_outer\n"));
		assert_int_equal(strncmp(l2, l1, (size_t)(strchr(l1, '[') - l1)), 0);	/* same task */
		assert_string_equal(strstr(l2, ": ft_add <-ft_outer\n"), ": ft_add <-ft_outer\n");
	}
	/* raw: the kernel's trace_fn_raw(), "<pid> <cpu> <ts> <ip> <parent_ip>". */
	assert_int_equal(trev_trace_option("raw"), 0);
	assert_int_equal(trev_trace_option("nocontext-info"), 0);
	rd("trace");
	snprintf(want, sizeof(want), "%lx ", (unsigned long)(uintptr_t)ft_outer);
	assert_int_equal(strncmp(text, want, strlen(want)), 0);
	/* hex: the kernel's trace_fn_hex(), each field as 16 hex digits. */
	assert_int_equal(trev_trace_option("noraw"), 0);
	assert_int_equal(trev_trace_option("hex"), 0);
	rd("trace");
	snprintf(want, sizeof(want), "%016lx ", (unsigned long)(uintptr_t)ft_outer);
	assert_int_equal(strncmp(body("trace"), want, strlen(want)), 0);
	assert_int_equal(trev_trace_option("nohex"), 0);
	/* Back to nop: the kernel's tracer_init() empties the buffer. */
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	assert_string_equal(body("trace"), "");
	reset_all();
}

static void test_pid(void **state)
{
	int me = (int)syscall(SYS_gettid);
	char buf[32];

	(void)state;
	reset_all();
	assert_string_equal(rd("set_ftrace_pid"), "no pid\n");
	assert_int_equal(trev_write("set_ftrace_pid", "12 7"), 0);
	assert_int_equal(trev_append("set_ftrace_pid", "9 12"), 0);
	assert_string_equal(rd("set_ftrace_pid"), "7\n9\n12\n");
	assert_int_equal(trev_append("set_ftrace_pid", "5 x9"), -EINVAL);
	assert_last_error("Invalid thread id", 2);
	assert_int_equal(trev_append("set_ftrace_pid", "-1"), -EINVAL);
	assert_int_equal(trev_append("set_ftrace_pid", "99999999999"), -EINVAL);
	assert_string_equal(rd("set_ftrace_pid"), "7\n9\n12\n");
	/* Only the listed threads are traced. */
	assert_int_equal(trev_write("set_ftrace_filter", "ft_spin"), 0);
	assert_int_equal(trev_write("current_tracer", "function"), 0);
	assert_int_equal(trev_trace_option("nocontext-info"), 0);
	assert_int_equal(ft_spin(1), 1 ^ 0x5a5a);
	assert_string_equal(body("trace"), "");
	snprintf(buf, sizeof(buf), "%d", me);
	assert_int_equal(trev_append("set_ftrace_pid", buf), 0);
	assert_int_equal(ft_spin(1), 1 ^ 0x5a5a);
	assert_string_equal(body("trace"), "ft_spin <-test_pid\n");
	reset_all();
	assert_string_equal(rd("set_ftrace_pid"), "no pid\n");
}

static pthread_barrier_t pid_bar;

/* ft_spin() before and after set_ftrace_pid leaves this thread out. */
static void *pid_other(void *arg)
{
	(void)arg;
	assert_int_equal(ft_quiet(1), 1 + 7);
	pthread_barrier_wait(&pid_bar);
	pthread_barrier_wait(&pid_bar);
	for (int i = 0; i < 3; i++)	/* the first reads the thread's id, the rest know it */
		assert_int_equal(ft_quiet(1), 1 + 7);
	return NULL;
}

/*
 * A thread left out of set_ftrace_pid after it traced (its buffer fresh,
 * no reset between): the trampoline's fast call checks the list too.
 */
static void test_pid_other(void **state)
{
	char me[32];
	pthread_t t;

	(void)state;
	reset_all();
	assert_int_equal(trev_write("set_ftrace_filter", "ft_quiet"), 0);
	assert_int_equal(trev_write("current_tracer", "function"), 0);
	assert_int_equal(trev_trace_option("nocontext-info"), 0);
	assert_int_equal(pthread_barrier_init(&pid_bar, NULL, 2), 0);
	assert_int_equal(pthread_create(&t, NULL, pid_other, NULL), 0);
	pthread_barrier_wait(&pid_bar);
	snprintf(me, sizeof(me), "%d", (int)syscall(SYS_gettid));
	assert_int_equal(trev_write("set_ftrace_pid", me), 0);
	pthread_barrier_wait(&pid_bar);
	assert_int_equal(ft_quiet(2), 2 + 7);
	assert_int_equal(ft_quiet(2), 2 + 7);
	assert_int_equal(pthread_join(t, NULL), 0);
	pthread_barrier_destroy(&pid_bar);
	assert_string_equal(body("trace"), "ft_quiet <-pid_other\n"
					   "ft_quiet <-test_pid_other\n"
					   "ft_quiet <-test_pid_other\n");
	reset_all();
}

static pthread_mutex_t blk_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t blk_cond = PTHREAD_COND_INITIALIZER;
static int blk_state;	/* 1: blocking, 2: may exit */

static void *blocker(void *arg)
{
	sigset_t set;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGTRAP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_mutex_lock(&blk_lock);
	blk_state = 1;
	pthread_cond_broadcast(&blk_cond);
	while (blk_state != 2)
		pthread_cond_wait(&blk_cond, &blk_lock);
	pthread_mutex_unlock(&blk_lock);
	return NULL;
}

/* A thread that blocks SIGTRAP would die at an int3: patching is refused, nothing changes. */
static void test_sigtrap_blocked(void **state)
{
	pthread_t t;

	(void)state;
	reset_all();
	blk_state = 0;
	pthread_create(&t, NULL, blocker, NULL);
	pthread_mutex_lock(&blk_lock);
	while (blk_state != 1)
		pthread_cond_wait(&blk_cond, &blk_lock);
	pthread_mutex_unlock(&blk_lock);
	assert_int_equal(trev_write("current_tracer", "function"), -EBUSY);
	assert_last_error("A thread blocks SIGTRAP: patching could kill it", 0);
	assert_string_equal(rd("current_tracer"), "nop\n");
	assert_int_equal(ft_spin(2), 2 ^ 0x5a5a);
	pthread_mutex_lock(&blk_lock);
	blk_state = 2;
	pthread_cond_broadcast(&blk_cond);
	pthread_mutex_unlock(&blk_lock);
	pthread_join(t, NULL);
	assert_int_equal(trev_write("current_tracer", "function"), 0);
	reset_all();
}

static volatile sig_atomic_t own_traps;

static void own_handler(int sig)
{
	(void)sig;
	own_traps++;
}

/*
 * A program that installs its own SIGTRAP handler: trev puts its own back
 * at the next patch and passes on every SIGTRAP that is not its int3.
 */
static void test_own_sigtrap_handler(void **state)
{
	(void)state;
	reset_all();
	assert_int_equal(trev_write("current_tracer", "function"), 0);
	signal(SIGTRAP, own_handler);
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	assert_int_equal(trev_write("set_ftrace_filter", "ft_quiet"), 0);
	assert_int_equal(trev_write("current_tracer", "function"), 0);
	raise(SIGTRAP);
	assert_int_equal(own_traps, 1);
	assert_int_equal(trev_trace_option("nocontext-info"), 0);
	assert_int_equal(ft_quiet(1), 8);
	assert_string_equal(body("trace"), "ft_quiet <-test_own_sigtrap_handler\n");
	reset_all();
	signal(SIGTRAP, SIG_DFL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracers),
		cmocka_unit_test(test_available_dlopen),
		cmocka_unit_test(test_mod_pending),
		cmocka_unit_test(test_list_table),
		cmocka_unit_test(test_selection),
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_pid),
		cmocka_unit_test(test_pid_other),
		cmocka_unit_test(test_sigtrap_blocked),
		cmocka_unit_test(test_own_sigtrap_handler),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
