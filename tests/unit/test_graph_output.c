/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * function_graph's text (src/ftrace/graph_output.c, docs/function-tracer.md
 * "Output of function_graph"): whole `trace` texts against the kernel's
 * layout (kernel/trace/trace_functions_graph.c, Documentation/trace/
 * ftrace.rst), written out by hand here from the kernel's rules:
 *
 *  - the header for each set of options, the CPU, task, time, latency and
 *    duration columns, each funcgraph-* option on and off;
 *  - nesting, leaves (an entry whose thread's next record is its return),
 *    the overhead marks at each of their thresholds, "}" with and without
 *    its entry, overruns;
 *  - a switch of thread on a CPU, another event, trace_marker and
 *    trace_printk inside the graph as comments, a LOST line;
 *  - trace_pipe read one byte at a time gives the text `trace` gives, and
 *    `trace` read in pieces of any size the same text;
 *  - trace-cmd report of the same records nests and finds leaves alike;
 *  - `trev report` of the same records written to a trace.dat prints the
 *    very text `trace` prints (the layout is one: src/output/graph_layout.c),
 *    and its --flat option one line per record.
 *
 * Until the function_graph tracer writes them, the test writes the
 * funcgraph_entry/funcgraph_exit records itself, for functions of this
 * program (so that their names resolve) and with chosen call and return
 * times. The test's threads run on one CPU (the first it may use) and the
 * buffer counts time with the "counter" clock, so the text is the same at
 * every run; the CPU column and thread ids are put into the expected texts.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
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
#include <trev/trace_printk.h>

#include "base/buf.h"
#include "events/events_internal.h"
#include "ftrace/fgraph.h"
#include "events/tracer.h"
#include "ftrace/graph_output.h"

#define CREATE_TRACE_POINTS
#include "graph_test_events.h"

/* The functions the records name (not static: their names are in .dynsym too). */
void gt_outer(void);
void gt_mid(void);
void gt_leaf(void);
static void gt_text_of(const char *name);

__attribute__((noinline)) void gt_outer(void)
{
	__asm__ volatile("");
}

__attribute__((noinline)) void gt_mid(void)
{
	__asm__ volatile("");
}

__attribute__((noinline)) void gt_leaf(void)
{
	__asm__ volatile("");
}

/* ------------------------------------------------------------------ */
/* Writing records                                                      */

static void rec_entry(void (*fn)(void), unsigned int depth)
{
	struct trev_fgraph_ent_entry e;

	memset(&e, 0, sizeof(e));
	e.func = (unsigned long)fn;
	e.depth = depth;
	trev_event_write(&trev__event_rt(&trev__ftrace_event_funcgraph_entry)->file, &e,
			 sizeof(e));
}

/* A return after @ns nanoseconds (calltime 1000, rettime 1000 + @ns). */
static void rec_exit(void (*fn)(void), unsigned int depth, unsigned long long ns,
		     unsigned int overrun)
{
	struct trev_fgraph_ret_entry r;

	memset(&r, 0, sizeof(r));
	r.func = (unsigned long)fn;
	r.depth = depth;
	r.overrun = overrun;
	r.calltime = 1000;
	r.rettime = 1000 + ns;
	trev_event_write(&trev__event_rt(&trev__ftrace_event_funcgraph_exit)->file, &r,
			 sizeof(r));
}

/* A leaf: its entry and return, back to back. */
static void rec_leaf(void (*fn)(void), unsigned int depth, unsigned long long ns)
{
	rec_entry(fn, depth);
	rec_exit(fn, depth, ns, 0);
}

/* ------------------------------------------------------------------ */
/* Expected texts                                                       */

static int test_cpu;		/* the CPU the test's threads run on */
static cpu_set_t allowed_cpus;	/* the CPUs the test may use */

static int gettid_(void)
{
	return (int)syscall(SYS_gettid);
}

/* Run the calling thread on test_cpu. */
static void pin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(test_cpu, &set);
	assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
	assert_int_equal(sched_getcpu(), test_cpu);
}

/* The kernel's CPU column: " %*d)" as wide as the highest CPU number. */
static void cpu_col(struct trev_buf *b)
{
	char hi[24];
	int w = snprintf(hi, sizeof(hi), "%ld", sysconf(_SC_NPROCESSORS_CONF) - 1);

	assert_int_equal(trev__buf_printf(b, " %*d)", w, test_cpu), 0);
}

/* The task column: "comm-pid" in 14 columns, the spaces split, the odd one after. */
static void proc_col(struct trev_buf *b, const char *comm, int pid)
{
	char s[40];
	int n = snprintf(s, sizeof(s), "%.7s-%d", comm, pid);
	int sp = n < 14 ? 14 - n : 0;

	assert_int_equal(trev__buf_printf(b, "%*s%s%*s", sp / 2, "", s, sp - sp / 2, ""), 0);
}

static const char *proc_comm[2];
static int proc_pid[2];

/*
 * @tmpl with '^' as the CPU column and '{' 'a'/'b' '}' as thread a's or b's
 * task column. Return: a malloc'd text.
 */
static char *expand(const char *tmpl)
{
	struct trev_buf b = TREV_BUF_INIT;

	for (const char *p = tmpl; *p; p++) {
		if (*p == '^') {
			cpu_col(&b);
		} else if (*p == '{' && (p[1] == 'a' || p[1] == 'b') && p[2] == '}') {
			proc_col(&b, proc_comm[p[1] - 'a'], proc_pid[p[1] - 'a']);
			p += 2;
		} else {
			assert_int_equal(trev__buf_putc(&b, *p), 0);
		}
	}
	assert_int_equal(trev__buf_putc(&b, '\0'), 0);
	return trev__buf_detach(&b);
}

/* The whole of @path, @chunk bytes per read; @nonblock: until EAGAIN. */
static char *read_all(const char *path, size_t chunk, bool nonblock)
{
	struct trev_buf b = TREV_BUF_INIT;
	struct trev_file *f;

	assert_int_equal(trev_file_open(path, O_RDONLY | (nonblock ? O_NONBLOCK : 0), &f), 0);
	for (;;) {
		ssize_t n;

		assert_int_equal(trev__buf_reserve(&b, chunk + 1), 0);
		n = trev_file_read(f, b.data + b.len, chunk);
		if (nonblock && n == -EAGAIN)
			break;
		assert_true(n >= 0);
		if (n == 0)
			break;
		trev__buf_extend(&b, (size_t)n);
	}
	assert_int_equal(trev_file_close(f), 0);
	assert_int_equal(trev__buf_putc(&b, '\0'), 0);
	return trev__buf_detach(&b);
}

/* `trace` holds "# tracer: function_graph\n#\n" then @tmpl expanded. */
static void expect_trace(const char *tmpl)
{
	char *want = expand(tmpl), *got = read_all("trace", 65536, false);
	static const char head[] = "# tracer: function_graph\n#\n";

	if (strncmp(got, head, sizeof(head) - 1) || strcmp(got + sizeof(head) - 1, want))
		fail_msg("trace:\n%s\nwanted after the tracer line:\n%s", got, want);
	free(want);
	free(got);
}

/* The output of the shell command @cmd (which must exit 0). Return: malloc'd. */
static char *run_cmd(const char *cmd)
{
	struct trev_buf out = TREV_BUF_INIT;
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	for (;;) {
		size_t n;

		assert_int_equal(trev__buf_reserve(&out, 4096), 0);
		n = fread(out.data + out.len, 1, 4096, p);
		if (!n)
			break;
		trev__buf_extend(&out, n);
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(trev__buf_putc(&out, '\0'), 0);
	return trev__buf_detach(&out);
}

/*
 * The buffer written to a trace.dat and read back by `trev report @opts`.
 * Return: its output, malloc'd.
 */
static char *trev_report(const char *opts)
{
	char path[] = "/tmp/trev-graph-XXXXXX", supp[64], cmd[512], *out;
	int fd = mkstemp(path);
	FILE *f;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(trev_record_dat(NULL, path, 6), 0);
	/* In the ASan tree: libtracecmd's and libtraceevent's own leaks (cli_report.sh). */
	snprintf(supp, sizeof(supp), "%s.supp", path);
	f = fopen(supp, "w");
	assert_non_null(f);
	fputs("leak:isoc99_vsscanf\nleak:tep_parse_event\n", f);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "LSAN_OPTIONS=suppressions=%s:print_suppressions=0 %s report %s %s",
		 supp, TREV_CLI, opts, path);
	out = run_cmd(cmd);
	unlink(path);
	unlink(supp);
	return out;
}

/* `trev report` of the buffer prints the `trace` text, byte for byte. */
static void expect_report_same(void)
{
	char *want = read_all("trace", 65536, false), *got = trev_report("");

	if (strcmp(got, want))
		fail_msg("trev report:\n%s\ntrace:\n%s", got, want);
	free(want);
	free(got);
}

/* An empty buffer, the counter clock, the default options, and this thread named @comm. */
static void fresh(const char *comm)
{
	assert_int_equal(trev_write("tracing_on", "1"), 0);
	assert_int_equal(trev_write("trace_clock", "counter"), 0);
	assert_int_equal(trev_write("trace", ""), 0);
	for (const char *const *o = (const char *const[]){ "funcgraph-cpu", "funcgraph-overhead",
			"funcgraph-duration", "funcgraph-irqs", "nofuncgraph-proc",
			"nofuncgraph-abstime", "nofuncgraph-tail", "nofuncgraph-overrun",
			"context-info", "nolatency-format", "noraw", "nohex", "nobin", NULL }; *o; o++)
		assert_int_equal(trev_write("trace_options", *o), 0);
	assert_int_equal(pthread_setname_np(pthread_self(), comm), 0);
	proc_comm[0] = comm;
	proc_pid[0] = gettid_();
	pin();
}

/* The default header. */
#define HDR	"# CPU  DURATION                  FUNCTION CALLS\n" \
		"# |     |   |                     |   |   |   |\n"

/* ------------------------------------------------------------------ */
/* Tests                                                                */

/* Nesting, leaves, and each overhead mark at its threshold and past it. */
static void test_nesting_and_marks(void **state)
{
	(void)state;
	fresh("gt_main");
	rec_entry(gt_outer, 0);
	rec_entry(gt_mid, 1);
	rec_leaf(gt_leaf, 2, 250);
	rec_leaf(gt_leaf, 2, 10000);		/* not over 10 us: no mark */
	rec_leaf(gt_leaf, 2, 10001);
	rec_exit(gt_mid, 1, 100001, 0);
	rec_leaf(gt_mid, 1, 100000);
	rec_leaf(gt_mid, 1, 1000001);
	rec_leaf(gt_leaf, 1, 10000001);
	rec_leaf(gt_leaf, 1, 100000001);
	rec_leaf(gt_leaf, 1, 1000000001);
	rec_exit(gt_outer, 0, 1500000000ULL, 0);
	expect_trace(HDR
		"^               |  gt_outer() {\n"
		"^               |    gt_mid() {\n"
		"^   0.250 us    |      gt_leaf();\n"
		"^   10.000 us   |      gt_leaf();\n"
		"^ + 10.001 us   |      gt_leaf();\n"
		"^ ! 100.001 us  |    }\n"
		"^ + 100.000 us  |    gt_mid();\n"
		"^ # 1000.001 us |    gt_mid();\n"
		"^ * 10000.00 us |    gt_leaf();\n"
		"^ @ 100000.0 us |    gt_leaf();\n"
		"^ $ 1000000 us  |    gt_leaf();\n"
		"^ $ 1500000 us  |  }\n");
	expect_report_same();
}

/* funcgraph-tail, funcgraph-overrun; a return without its entry names its function. */
static void test_tail_overrun(void **state)
{
	(void)state;
	fresh("gt_main");
	rec_exit(gt_mid, 1, 2000, 0);		/* its entry is not in the buffer */
	rec_entry(gt_outer, 0);
	rec_leaf(gt_leaf, 1, 1000);
	rec_exit(gt_outer, 0, 3000, 7);
	expect_trace(HDR
		"^   2.000 us    |    } /* gt_mid */\n"
		"^               |  gt_outer() {\n"
		"^   1.000 us    |    gt_leaf();\n"
		"^   3.000 us    |  }\n");
	assert_int_equal(trev_write("options/funcgraph-tail", "1"), 0);
	assert_int_equal(trev_write("trace_options", "funcgraph-overrun"), 0);
	expect_trace(HDR
		"^   2.000 us    |    } /* gt_mid */\n"
		" (Overruns: 0)\n"
		"^               |  gt_outer() {\n"
		"^   1.000 us    |    gt_leaf();\n"
		"^   3.000 us    |  } /* gt_outer */\n"
		" (Overruns: 7)\n");
}

/* The columns: each option off, then task and time on, then latency-format, context-info. */
static void test_columns(void **state)
{
	char opt[64];

	(void)state;
	fresh("gt_main");
	rec_entry(gt_outer, 0);
	rec_leaf(gt_leaf, 1, 20000);
	rec_exit(gt_outer, 0, 30000, 0);

	assert_int_equal(trev_write("options/funcgraph-overhead", "0"), 0);
	expect_trace(HDR
		"^               |  gt_outer() {\n"
		"^   20.000 us   |    gt_leaf();\n"
		"^   30.000 us   |  }\n");
	assert_int_equal(trev_write("options/funcgraph-cpu", "0"), 0);
	expect_trace("#  DURATION                  FUNCTION CALLS\n"
		     "#   |   |                     |   |   |   |\n"
		     "              |  gt_outer() {\n"
		     "  20.000 us   |    gt_leaf();\n"
		     "  30.000 us   |  }\n");
	assert_int_equal(trev_write("options/funcgraph-duration", "0"), 0);
	expect_trace("#               FUNCTION CALLS\n"
		     "#               |   |   |   |\n"
		     "gt_outer() {\n"
		     "  gt_leaf();\n"
		     "}\n");
	/* funcgraph-irqs: accepted, changes nothing (no interrupts in a program). */
	assert_int_equal(trev_write("options/funcgraph-irqs", "0"), 0);
	expect_trace("#               FUNCTION CALLS\n"
		     "#               |   |   |   |\n"
		     "gt_outer() {\n"
		     "  gt_leaf();\n"
		     "}\n");

	/* Task and absolute time; the counter clock's counts are shown as ns, as any clock's. */
	assert_int_equal(trev_write("options/funcgraph-cpu", "1"), 0);
	assert_int_equal(trev_write("options/funcgraph-duration", "1"), 0);
	assert_int_equal(trev_write("options/funcgraph-overhead", "1"), 0);
	assert_int_equal(trev_write("options/funcgraph-proc", "1"), 0);
	assert_int_equal(trev_write("options/funcgraph-abstime", "1"), 0);
	expect_trace("#     TIME        CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
		     "#      |          |     |    |           |   |                     |   |   |   |\n"
		     "    0.000000 |  ^ {a} |               |  gt_outer() {\n"
		     "    0.000000 |  ^ {a} | + 20.000 us   |    gt_leaf();\n"
		     "    0.000000 |  ^ {a} | + 30.000 us   |  }\n");

	/* latency-format: the legend and the four columns (no irqs, no preemption here). */
	assert_int_equal(trev_write("options/funcgraph-abstime", "0"), 0);
	assert_int_equal(trev_write("trace_options", "latency-format"), 0);
	expect_trace("#                       _-----=> irqs-off        \n"
		     "#                      / _----=> need-resched    \n"
		     "#                     | / _---=> hardirq/softirq \n"
		     "#                     || / _--=> preempt-depth   \n"
		     "#                     ||| /                      \n"
		     "# CPU  TASK/PID       ||||     DURATION                  FUNCTION CALLS\n"
		     "# |     |    |        ||||      |   |                     |   |   |   |\n"
		     "^ {a} |  .... |               |  gt_outer() {\n"
		     "^ {a} |  .... | + 20.000 us   |    gt_leaf();\n"
		     "^ {a} |  .... | + 30.000 us   |  }\n");

	/* No context: neither the header's columns nor the line's. */
	assert_int_equal(trev_write("trace_options", "nocontext-info"), 0);
	expect_trace("gt_outer() {\n"
		     "  gt_leaf();\n"
		     "}\n");
	assert_int_equal(trev_write("trace_options", "context-info"), 0);
	assert_int_equal(trev_write("trace_options", "nolatency-format"), 0);

	/* Each option is a file of options/ and a word of trace_options. */
	for (const char *const *o = (const char *const[]){ "overrun", "cpu", "overhead", "proc",
			"duration", "abstime", "irqs", "tail", NULL }; *o; o++) {
		char val[8];

		snprintf(opt, sizeof(opt), "options/funcgraph-%s", *o);
		assert_int_equal(trev_write(opt, "1"), 0);
		assert_true(trev_read(opt, val, sizeof(val)) > 0);
		assert_string_equal(val, "1\n");
		snprintf(opt, sizeof(opt), "nofuncgraph-%s", *o);
		assert_int_equal(trev_write("trace_options", opt), 0);
		snprintf(opt, sizeof(opt), "options/funcgraph-%s", *o);
		assert_true(trev_read(opt, val, sizeof(val)) > 0);
		assert_string_equal(val, "0\n");
	}
}

static void *thread_b(void *arg)
{
	(void)arg;
	assert_int_equal(pthread_setname_np(pthread_self(), "gt_b"), 0);
	proc_comm[1] = "gt_b";
	proc_pid[1] = gettid_();
	pin();
	rec_leaf(gt_leaf, 0, 500);
	return NULL;
}

/* Another thread on the CPU: the kernel's switch markers, with funcgraph-proc too. */
static void test_thread_switch(void **state)
{
	pthread_t t;

	(void)state;
	fresh("gt_a");
	rec_entry(gt_outer, 0);
	assert_int_equal(pthread_create(&t, NULL, thread_b, NULL), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	rec_leaf(gt_leaf, 1, 1000);
	rec_exit(gt_outer, 0, 40000, 0);
	expect_trace(HDR
		"^               |  gt_outer() {\n"
		" ------------------------------------------\n"
		"^ {a} => {b}\n"
		" ------------------------------------------\n"
		"\n"
		"^   0.500 us    |  gt_leaf();\n"
		" ------------------------------------------\n"
		"^ {b} => {a}\n"
		" ------------------------------------------\n"
		"\n"
		"^   1.000 us    |    gt_leaf();\n"
		"^ + 40.000 us   |  }\n");
	assert_int_equal(trev_write("options/funcgraph-proc", "1"), 0);
	expect_trace("# CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
		     "# |     |    |           |   |                     |   |   |   |\n"
		     "^ {a} |               |  gt_outer() {\n"
		     " ------------------------------------------\n"
		     "^ {a} => {b}\n"
		     " ------------------------------------------\n"
		     "\n"
		     "^ {b} |   0.500 us    |  gt_leaf();\n"
		     " ------------------------------------------\n"
		     "^ {b} => {a}\n"
		     " ------------------------------------------\n"
		     "\n"
		     "^ {a} |   1.000 us    |    gt_leaf();\n"
		     "^ {a} | + 40.000 us   |  }\n");
	/*
	 * trev report has the default options: the switch markers without the
	 * task column. (The file's command lines give this thread the name its
	 * buffer holds, from the earlier tests, where the text shows the name
	 * it has now: named back, both show the same.)
	 */
	assert_int_equal(trev_write("options/funcgraph-proc", "0"), 0);
	assert_int_equal(pthread_setname_np(pthread_self(), "gt_main"), 0);
	expect_report_same();
}

/* Other events inside the graph: comments at the depth of the open call. */
static void test_comments(void **state)
{
	(void)state;
	fresh("gt_main");
	assert_int_equal(trev_write("events/trev_graph/gt_tick/enable", "1"), 0);
	trace_gt_tick(1);
	rec_entry(gt_outer, 0);
	trace_gt_tick(2);
	rec_entry(gt_mid, 1);
	assert_int_equal(trev_write("trace_marker", "hello marker\n"), 0);
	trace_printk("printk %d\n", 42);
	rec_leaf(gt_leaf, 2, 100);
	trace_gt_tick(3);
	rec_exit(gt_mid, 1, 2000, 0);
	trace_puts("puts text\n");
	rec_exit(gt_outer, 0, 3000, 0);
	assert_int_equal(trev_write("events/trev_graph/gt_tick/enable", "0"), 0);
	expect_trace(HDR
		"^               |  /* gt_tick: n=1 */\n"
		"^               |  gt_outer() {\n"
		"^               |  /* gt_tick: n=2 */\n"
		"^               |    gt_mid() {\n"
		"^               |      /* hello marker */\n"
		"^               |      /* printk 42 */\n"
		"^   0.100 us    |      gt_leaf();\n"
		"^               |      /* gt_tick: n=3 */\n"
		"^   2.000 us    |    }\n"
		"^               |  /* puts text */\n"
		"^   3.000 us    |  }\n");
	expect_report_same();
}

/* Many calls: `trace` in any piece size, and trace_pipe a byte at a time, give one text. */
static void test_stream_and_pipe(void **state)
{
	char *whole, *piece, *pipe;
	const char *body;

	(void)state;
	fresh("gt_main");
	for (unsigned int i = 0; i < 3000; i++) {
		rec_entry(gt_outer, 0);
		rec_leaf(gt_leaf, 1, i);
		if (i % 3 == 0)
			rec_leaf(gt_mid, 1, 5 * i);
		rec_exit(gt_outer, 0, 100 * i, 0);
	}
	whole = read_all("trace", 1u << 24, false);
	assert_true(strlen(whole) > 200000);
	for (size_t chunk = 1; chunk <= 4096; chunk = chunk * 7 + 1) {
		piece = read_all("trace", chunk, false);
		assert_string_equal(piece, whole);
		free(piece);
	}
	/* trace_pipe has no header; its lines are the trace's. */
	body = strstr(whole, "|   |   |   |\n");
	assert_non_null(body);
	body += strlen("|   |   |   |\n");
	pipe = read_all("trace_pipe", 1, true);
	assert_string_equal(pipe, body);
	free(pipe);
	/* Consumed: trace is empty now. */
	piece = read_all("trace", 4096, false);
	assert_string_equal(piece, "# tracer: function_graph\n#\n" HDR);
	free(piece);
	free(whole);
}

#define NR_LIVE	2000u

static char *func_column(const char *text, const char *mark);

static void *live_writer(void *arg)
{
	(void)arg;
	for (unsigned int i = 0; i < NR_LIVE; i++) {
		rec_entry(gt_outer, 0);
		rec_leaf(gt_leaf, 1, 100 + i);
		rec_exit(gt_outer, 0, 1000 + i, 0);
	}
	return NULL;
}

/* How many lines of @col (func_column()'s) are exactly @line. */
static unsigned int count_lines(const char *col, const char *line)
{
	size_t n = strlen(line);
	unsigned int c = 0;

	for (const char *l = col; *l; l = strchr(l, '\n') + 1)
		if (!strncmp(l, line, n) && l[n] == '\n')
			c++;
	return c;
}

/*
 * trace_pipe read while a thread writes: a leaf's return that is not there
 * yet makes its entry "func() {" and the return "}"; every record is shown
 * once either way, and the read-ahead keeps them in order.
 */
static void test_pipe_live(void **state)
{
	struct trev_buf b = TREV_BUF_INIT;
	struct trev_file *f;
	pthread_t t;
	char *col = NULL;

	(void)state;
	fresh("gt_main");
	assert_int_equal(trev_file_open("trace_pipe", O_RDONLY, &f), 0);
	assert_int_equal(pthread_create(&t, NULL, live_writer, NULL), 0);
	for (;;) {
		ssize_t n;

		assert_int_equal(trev__buf_reserve(&b, 4097), 0);
		n = trev_file_read(f, b.data + b.len, 4096);
		assert_true(n > 0);
		trev__buf_extend(&b, (size_t)n);
		b.data[b.len] = '\0';
		/* Until the last return's line is whole. */
		if (b.data[b.len - 1] != '\n')
			continue;
		free(col);
		col = func_column(b.data, "|");
		if (count_lines(col, "}") == NR_LIVE)
			break;
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(trev_file_close(f), 0);
	assert_int_equal(count_lines(col, "gt_outer() {"), NR_LIVE);
	assert_int_equal(count_lines(col, "  gt_leaf();") + count_lines(col, "  gt_leaf() {"),
			 NR_LIVE);
	assert_int_equal(count_lines(col, "  }"), count_lines(col, "  gt_leaf() {"));
	printf("trace_pipe while writing: %u of %u leaves seen whole\n",
	       count_lines(col, "  gt_leaf();"), NR_LIVE);
	free(col);
	trev__buf_free(&b);
}

/* per_cpu/cpuN/trace and snapshot: the same layout. */
static void test_percpu_snapshot(void **state)
{
	char path[64], *got, *want;

	(void)state;
	fresh("gt_main");
	rec_entry(gt_outer, 0);
	rec_leaf(gt_leaf, 1, 1500);
	rec_exit(gt_outer, 0, 2500, 0);
	want = expand("# tracer: function_graph\n#\n" HDR
		      "^               |  gt_outer() {\n"
		      "^   1.500 us    |    gt_leaf();\n"
		      "^   2.500 us    |  }\n");
	snprintf(path, sizeof(path), "per_cpu/cpu%d/trace", test_cpu);
	got = read_all(path, 100, false);
	assert_string_equal(got, want);
	free(got);
	assert_int_equal(trev_write("snapshot", "1"), 0);
	got = read_all("snapshot", 100, false);
	assert_string_equal(got, want);
	free(got);
	free(want);
	/* The main buffer, empty after the swap. */
	got = read_all("trace", 100, false);
	assert_string_equal(got, "# tracer: function_graph\n#\n" HDR);
	free(got);
	assert_int_equal(trev_write("snapshot", "0"), 0);
}

/* Records overwritten before they were read: a LOST line, then the graph goes on. */
static void test_lost(void **state)
{
	char *got, *lost, size[32];
	unsigned long long n;
	int cpu;

	(void)state;
	fresh("gt_main");
	assert_true(trev_read("buffer_size_kb", size, sizeof(size)) > 0);
	assert_int_equal(trev_write("buffer_size_kb", "16"), 0);
	for (unsigned int i = 0; i < 2000; i++) {
		rec_entry(gt_outer, 0);
		rec_leaf(gt_leaf, 1, 1000);
		rec_exit(gt_outer, 0, 2000, 0);
	}
	got = read_all("trace", 65536, false);
	assert_int_equal(trev_write("buffer_size_kb", size), 0);
	lost = strstr(got, "CPU:");
	assert_non_null(lost);
	assert_int_equal(sscanf(lost, "CPU:%d [LOST %llu EVENTS]\n", &cpu, &n), 2);
	assert_int_equal(cpu, test_cpu);
	assert_true(n > 0);
	/* The line after it is a graph line of this CPU. */
	lost = strchr(lost, '\n') + 1;
	{
		char *want = expand("^ ");

		assert_memory_equal(lost, want, strlen(want));
		free(want);
	}
	free(got);

	/* trev report of the same buffer: a LOST line too, then graph lines of this CPU. */
	got = trev_report("");
	lost = strstr(got, "CPU:");
	assert_non_null(lost);
	assert_int_equal(sscanf(lost, "CPU:%d [LOST %llu EVENTS]\n", &cpu, &n), 2);
	assert_int_equal(cpu, test_cpu);
	assert_true(n > 0);
	lost = strchr(lost, '\n') + 1;
	{
		char *want = expand("^ ");

		assert_memory_equal(lost, want, strlen(want));
		free(want);
	}
	assert_non_null(strstr(lost, "|  gt_outer() {\n"));
	assert_non_null(strstr(lost, "|    gt_leaf();\n"));
	free(got);
}

/*
 * A thread that moves to another CPU inside calls: the file has the entries
 * in one CPU's stream and the returns in another's; trev report finds the
 * leaf and closes the call from the streams merged, as `trace` does from the
 * thread's buffer.
 */
static void test_report_migrate(void **state)
{
	cpu_set_t set;
	int other;

	(void)state;
	for (other = test_cpu + 1; other < CPU_SETSIZE && !CPU_ISSET(other, &allowed_cpus);
	     other++)
		;
	if (other >= CPU_SETSIZE)
		skip();		/* one CPU to run on */
	fresh("gt_main");
	rec_entry(gt_outer, 0);
	rec_entry(gt_leaf, 1);
	CPU_ZERO(&set);
	CPU_SET(other, &set);
	assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
	assert_int_equal(sched_getcpu(), other);
	rec_exit(gt_leaf, 1, 700, 0);
	rec_leaf(gt_mid, 1, 800);
	rec_exit(gt_outer, 0, 3000, 0);
	pin();
	{
		char *text = read_all("trace", 65536, false), *col = func_column(text, "|");

		char hi[24], line[64];
		int w = snprintf(hi, sizeof(hi), "%ld", sysconf(_SC_NPROCESSORS_CONF) - 1);

		assert_string_equal(col, "gt_outer() {\n  gt_leaf();\n  gt_mid();\n}\n");
		/* The returns' lines are the other CPU's. */
		snprintf(line, sizeof(line), "\n %*d)   0.800 us    |    gt_mid();\n", w, other);
		assert_non_null(strstr(text, line));
		free(col);
		free(text);
	}
	expect_report_same();
}

/* trev report --flat: the records' own lines, one per record, not the graph. */
static void test_report_flat(void **state)
{
	char *got, *line;
	unsigned int entries = 0, exits = 0;

	(void)state;
	fresh("gt_main");
	rec_entry(gt_outer, 0);
	rec_leaf(gt_leaf, 1, 1500);
	rec_exit(gt_outer, 0, 2500, 0);
	got = trev_report("--flat");
	assert_non_null(strstr(got, "# tracer: nop\n"));
	assert_null(strstr(got, "gt_leaf();"));
	assert_null(strstr(got, "() {"));
	for (line = got; (line = strstr(line, "gt_main-")); line++) {
		if (strstr(line, ": --> gt_") && strstr(line, ": --> gt_") < strchr(line, '\n'))
			entries++;
		if (strstr(line, ": <-- gt_") && strstr(line, ": <-- gt_") < strchr(line, '\n'))
			exits++;
	}
	assert_int_equal(entries, 2);
	assert_int_equal(exits, 2);
	assert_non_null(strstr(got, ": --> gt_leaf (1)\n"));
	free(got);
}

/* raw, hex and bin do not change the graph (the kernel's tracer prints first). */
static void test_raw_ignored(void **state)
{
	char *got;

	(void)state;
	fresh("gt_main");
	rec_leaf(gt_leaf, 0, 1000);
	assert_int_equal(trev_write("trace_options", "raw"), 0);
	got = read_all("trace", 65536, false);
	assert_non_null(strstr(got, "|  gt_leaf();\n"));
	free(got);
	assert_int_equal(trev_write("trace_options", "noraw"), 0);

	/* Not function_graph: the records' own text, and raw's trace_nop_print(). */
	gt_text_of("nop");
	got = read_all("trace", 65536, false);
	assert_non_null(strstr(got, " --> gt_leaf (0)\n"));
	free(got);
	assert_int_equal(trev_write("trace_options", "raw"), 0);
	got = read_all("trace", 65536, false);
	assert_non_null(strstr(got, " type: 11\n"));
	assert_non_null(strstr(got, " type: 10\n"));
	free(got);
	assert_int_equal(trev_write("trace_options", "noraw"), 0);
	gt_text_of("function_graph");
}

/*
 * The function column of each funcgraph line of @text, one per line: what
 * follows the last "|  " of the lines that hold @mark. Return: malloc'd.
 */
static char *func_column(const char *text, const char *mark)
{
	struct trev_buf b = TREV_BUF_INIT;

	for (const char *l = text; *l;) {
		const char *end = strchr(l, '\n'), *bar = NULL;

		if (!end)
			end = l + strlen(l);
		if (l[0] != '#' && strstr(l, mark) && strstr(l, mark) < end) {
			for (const char *p = l; p + 3 <= end; p++)
				if (!memcmp(p, "|  ", 3))
					bar = p + 3;
			if (bar && strncmp(bar, "/* ", 3) != 0) {
				assert_int_equal(trev__buf_append(&b, bar, (size_t)(end - bar)), 0);
				assert_int_equal(trev__buf_putc(&b, '\n'), 0);
			}
		}
		l = *end ? end + 1 : end;
	}
	assert_int_equal(trev__buf_putc(&b, '\0'), 0);
	return trev__buf_detach(&b);
}

/*
 * trace-cmd report of the same records, written to a trace.dat: trace-cmd
 * formats funcgraph_entry/funcgraph_exit with its own graph printer, which
 * makes the same calls leaves and nests them the same (its other columns
 * differ: docs/function-tracer.md lists how).
 */
static void test_tracecmd(void **state)
{
	char path[] = "/tmp/trev-graph-XXXXXX", cmd[128], *ours, *theirs, *a, *b;
	struct trev_buf out = TREV_BUF_INIT;
	FILE *p;
	int fd;

	(void)state;
	if (system("command -v trace-cmd > /dev/null") != 0)
		skip();		/* make deps installs it */
	fresh("gt_main");
	rec_entry(gt_outer, 0);
	rec_entry(gt_mid, 1);
	rec_leaf(gt_leaf, 2, 250);
	rec_leaf(gt_leaf, 2, 10001);
	rec_exit(gt_mid, 1, 100001, 0);
	rec_leaf(gt_mid, 1, 1000001);
	assert_int_equal(trev_write("trace_marker", "hello marker\n"), 0);
	rec_entry(gt_mid, 1);
	rec_entry(gt_leaf, 2);
	rec_leaf(gt_outer, 3, 5);
	rec_exit(gt_leaf, 2, 50, 0);
	rec_exit(gt_mid, 1, 500, 0);
	rec_exit(gt_outer, 0, 1500000000ULL, 0);
	ours = read_all("trace", 65536, false);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(trev_record_dat(NULL, path, 6), 0);
	snprintf(cmd, sizeof(cmd), "trace-cmd report %s 2>&1", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	for (;;) {
		assert_int_equal(trev__buf_reserve(&out, 4096), 0);
		size_t n = fread(out.data + out.len, 1, 4096, p);

		if (!n)
			break;
		trev__buf_extend(&out, n);
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(trev__buf_putc(&out, '\0'), 0);
	theirs = trev__buf_detach(&out);
	unlink(path);
	a = func_column(ours, "|");
	b = func_column(theirs, "funcgraph_");
	if (strcmp(a, b) || !strstr(a, "      gt_outer();\n"))
		fail_msg("trev:\n%s\ntrace-cmd report:\n%s", ours, theirs);
	free(a);
	free(b);
	free(ours);
	free(theirs);
}

/*
 * The text of tracer @name, without running it (its sites stay as they
 * are): what current_tracer sets once the tracer's init is done.
 */
static void gt_text_of(const char *name)
{
	struct trev_trace_array *tr = trev__top_instance();
	const struct trev_tracer *t = trev__tracer_find(tr, name);

	assert_non_null(t);
	__atomic_store_n(&tr->tracer, t, __ATOMIC_RELEASE);
}

static int setup(void **state)
{
	cpu_set_t set;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (test_cpu = 0; !CPU_ISSET(test_cpu, &set); test_cpu++)
		;
	allowed_cpus = set;
	/* What the tracer does when it starts: its events write to the top instance. */
	trev__event_rt(&trev__ftrace_event_funcgraph_entry)->file.tr = trev__top_instance();
	trev__event_rt(&trev__ftrace_event_funcgraph_exit)->file.tr = trev__top_instance();
	gt_text_of("function_graph");
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting_and_marks),
		cmocka_unit_test(test_tail_overrun),
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_thread_switch),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_stream_and_pipe),
		cmocka_unit_test(test_percpu_snapshot),
		cmocka_unit_test(test_pipe_live),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_report_flat),
		cmocka_unit_test(test_report_migrate),
		cmocka_unit_test(test_raw_ignored),
		cmocka_unit_test(test_tracecmd),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
