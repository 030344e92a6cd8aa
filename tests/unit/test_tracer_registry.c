/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tracers as registered objects (src/events/tracer.h, docs/architecture.md
 * "Adding a tracer"): a toy tracer that lives in this test's own folder
 * (toy_tracer/toy_tracer.c, its registration included) is listed in
 * available_tracers beside function_graph, function and nop, is selected
 * through current_tracer (its init and reset called, the previous tracer
 * named), gives the `trace` text its `# tracer:` line, its header and its
 * lines, and trace_pipe its lines; a tracer whose init fails leaves the
 * previous one running and says why in error_log; a tracer may run in a
 * named instance, function_graph may not.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <trev/trev.h>

#include "toy_tracer/toy_tracer.c"

static char text[65536];

static const char *read_file(const char *path)
{
	ssize_t n = trev_read(path, text, sizeof(text));

	assert_true(n >= 0);
	assert_true((size_t)n < sizeof(text));
	return text;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The words of @path's one line, sorted, space-separated. */
static char *words_of(const char *path)
{
	char *copy = strdup(read_file(path)), *save = NULL, *w[16];
	static char out[512];
	int n = 0;

	assert_non_null(copy);
	assert_non_null(strchr(copy, '\n'));
	for (char *t = strtok_r(copy, " \n", &save); t && n < 16; t = strtok_r(NULL, " \n", &save))
		w[n++] = t;
	qsort(w, (size_t)n, sizeof(w[0]), cmp_str);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		strcat(out, i ? " " : "");
		strcat(out, w[i]);
	}
	free(copy);
	return out;
}

static void test_listed(void **state)
{
	static struct trev_tracer dup = { .name = "toy" };
	const char *t;

	(void)state;
	assert_string_equal(words_of("available_tracers"),
			    "function function_graph nop toy toy_refuses");
	/* nop is the first registered: listed last, as the kernel lists it. */
	t = read_file("available_tracers");
	assert_int_equal(strcmp(t + strlen(t) - 5, " nop\n"), 0);
	assert_int_equal(trev__tracer_register(&dup), -EEXIST);
	assert_string_equal(words_of("available_tracers"),
			    "function function_graph nop toy toy_refuses");
}

static void test_select_and_print(void **state)
{
	struct toy_stats before = toy_stats;
	const char *t;

	(void)state;
	assert_string_equal(read_file("current_tracer"), "nop\n");
	assert_int_equal(trev_write("current_tracer", "toy\n"), 0);
	assert_string_equal(read_file("current_tracer"), "toy\n");
	assert_int_equal(toy_stats.inits, before.inits + 1);
	assert_ptr_equal(toy_stats.prev, &trev__nop_tracer);
	/* Writing the tracer that runs changes nothing. */
	assert_int_equal(trev_write("current_tracer", "toy"), 0);
	assert_int_equal(toy_stats.inits, before.inits + 1);
	assert_int_equal(toy_stats.resets, before.resets);

	t = read_file("trace");
	assert_string_equal(t, "# tracer: toy\n#\n# toy's own header (empty)\n");
	assert_int_equal(trev_write("trace_marker", "hello toy"), 0);
	assert_int_equal(trev_write("trace_marker", "hello again"), 0);
	t = read_file("trace");
	assert_int_equal(strncmp(t, "# tracer: toy\n#\n# toy's own header (not empty)\n", 47), 0);
	assert_non_null(strstr(t, "\ntoy line 1: ftrace:print\ntoy line 2: ftrace:print\n"));
	assert_null(strstr(t, "hello toy"));
	/* trace_pipe: a reading of its own, the same lines. */
	t = read_file("trace_pipe");
	assert_string_equal(t, "toy line 1: ftrace:print\ntoy line 2: ftrace:print\n");
	assert_int_equal(toy_stats.opens - before.opens, toy_stats.closes - before.closes);
	assert_true(toy_stats.opens - before.opens >= 3);

	/* Back to nop: the toy's reset, the events' own lines and header. */
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
	assert_int_equal(toy_stats.resets, before.resets + 1);
	assert_int_equal(trev_write("trace_marker", "hello nop"), 0);
	t = read_file("trace");
	assert_int_equal(strncmp(t, "# tracer: nop\n#\n# entries-in-buffer", 35), 0);
	assert_non_null(strstr(t, ": hello nop\n"));
	assert_null(strstr(t, "toy line"));
	assert_int_equal(trev_write("trace", ""), 0);
}

static void test_refused(void **state)
{
	struct toy_stats before;

	(void)state;
	assert_int_equal(trev_write("current_tracer", "toy"), 0);
	before = toy_stats;
	assert_int_equal(trev_write("current_tracer", "toy_refuses"), -EBUSY);
	assert_string_equal(read_file("current_tracer"), "toy\n");
	assert_non_null(strstr(read_file("error_log"), "toy_refuses never starts"));
	/* The toy was stopped for it, then started again in its place. */
	assert_int_equal(toy_stats.resets, before.resets + 1);
	assert_int_equal(toy_stats.inits, before.inits + 1);
	assert_ptr_equal(toy_stats.prev, &toy_refuses_tracer);
	assert_int_equal(trev_write("current_tracer", "no_such_tracer"), -EINVAL);
	assert_string_equal(read_file("current_tracer"), "toy\n");
	assert_int_equal(trev_write("current_tracer", "nop"), 0);
}

static void test_instance(void **state)
{
	(void)state;
	assert_int_equal(trev_mkdir("instances/toy_inst"), 0);
	assert_string_equal(words_of("instances/toy_inst/available_tracers"),
			    "function nop toy toy_refuses");
	assert_int_equal(trev_write("instances/toy_inst/current_tracer", "function_graph"),
			 -EINVAL);
	assert_int_equal(trev_write("instances/toy_inst/current_tracer", "toy"), 0);
	assert_string_equal(read_file("instances/toy_inst/current_tracer"), "toy\n");
	assert_string_equal(read_file("current_tracer"), "nop\n");
	assert_int_equal(strncmp(read_file("instances/toy_inst/trace"), "# tracer: toy\n", 14), 0);
	assert_int_equal(trev_write("instances/toy_inst/current_tracer", "nop"), 0);
	assert_int_equal(trev_rmdir("instances/toy_inst"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listed),
		cmocka_unit_test(test_select_and_print),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_instance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
