/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function tracer's files: set_ftrace_filter, set_ftrace_notrace,
 * set_ftrace_pid, set_ftrace_notrace_pid (in every instance), and, in the
 * top one only, available_filter_functions, function_profile_enabled,
 * trace_stat/function<N> and function_graph's set_graph_function,
 * set_graph_notrace, max_graph_depth, tracing_thresh, tracing_max_latency,
 * and the stack tracer's stack_trace, stack_max_size, stack_trace_filter and
 * stack_tracer_enabled (docs/function-tracer.md), over src/ftrace/.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "events/events_internal.h"
#include "ftrace/fgraph.h"
#include "ftrace/ftrace.h"
#include "ftrace/stack_tracer.h"
#include "tracefs/tracefs_internal.h"

static int available_show(struct trev_file *f, struct trev_buf *out)
{
	(void)f;
	return trev__ftrace_available_show(out);
}

const struct tfs_fops trev__available_filter_functions_fops = {
	.show = available_show,
};

/* The text of a write, without its trailing newline, for error_log. */
static char *cmd_text(const char *buf, size_t size)
{
	while (size && (buf[size - 1] == '\n' || buf[size - 1] == ' '))
		size--;
	return strndup(buf, size);
}

/* `echo x > file` starts from nothing; `>>` adds to what is there. */
static bool list_truncates(struct trev_file *f)
{
	return tfs_writable(f) && (f->flags & O_TRUNC) && !(f->flags & O_APPEND);
}

static int filter_open(struct trev_file *f)
{
	return list_truncates(f) ? trev__ftrace_list_clear(f->loc.tr, TREV_FT_FILTER) : 0;
}

static int notrace_open(struct trev_file *f)
{
	return list_truncates(f) ? trev__ftrace_list_clear(f->loc.tr, TREV_FT_NOTRACE) : 0;
}

static ssize_t list_write(struct trev_file *f, enum trev_ft_list list, const char *name,
			  const char *buf, size_t size)
{
	const char *why = "Invalid argument";
	int pos = 0, ret = trev__ftrace_list_write(f->loc.tr, list, buf, size, &pos, &why);

	if (ret) {
		char *cmd = cmd_text(buf, size);

		trev__tracing_log_err(f->loc.tr, name, cmd ? cmd : "", pos, "%s", why);
		free(cmd);
		return ret;
	}
	return (ssize_t)size;
}

static ssize_t filter_write(struct trev_file *f, const char *buf, size_t size)
{
	return list_write(f, TREV_FT_FILTER, "set_ftrace_filter", buf, size);
}

static ssize_t notrace_write(struct trev_file *f, const char *buf, size_t size)
{
	return list_write(f, TREV_FT_NOTRACE, "set_ftrace_notrace", buf, size);
}

static int filter_show(struct trev_file *f, struct trev_buf *out)
{
	return trev__ftrace_list_show(f->loc.tr, TREV_FT_FILTER, out);
}

static int notrace_show(struct trev_file *f, struct trev_buf *out)
{
	return trev__ftrace_list_show(f->loc.tr, TREV_FT_NOTRACE, out);
}

const struct tfs_fops trev__set_ftrace_filter_fops = {
	.open = filter_open,
	.show = filter_show,
	.write = filter_write,
};

const struct tfs_fops trev__set_ftrace_notrace_fops = {
	.open = notrace_open,
	.show = notrace_show,
	.write = notrace_write,
};

static int pid_open(struct trev_file *f)
{
	return list_truncates(f) ? trev__ftrace_pid_clear(f->loc.tr, false) : 0;
}

static int notrace_pid_open(struct trev_file *f)
{
	return list_truncates(f) ? trev__ftrace_pid_clear(f->loc.tr, true) : 0;
}

static ssize_t pids_write(struct trev_file *f, bool notrace, const char *buf, size_t size)
{
	int pos = 0, ret = trev__ftrace_pid_write(f->loc.tr, notrace, buf, size, &pos);

	if (ret) {
		char *cmd = cmd_text(buf, size);

		trev__tracing_log_err(f->loc.tr, notrace ? "set_ftrace_notrace_pid" :
				      "set_ftrace_pid", cmd ? cmd : "", pos, "%s",
				      ret == -EINVAL ? "Invalid thread id" :
				      ret == -ENOSPC ? "Too many instances trace functions" :
				      "Out of memory");
		free(cmd);
		return ret;
	}
	return (ssize_t)size;
}

static ssize_t pid_write(struct trev_file *f, const char *buf, size_t size)
{
	return pids_write(f, false, buf, size);
}

static ssize_t notrace_pid_write(struct trev_file *f, const char *buf, size_t size)
{
	return pids_write(f, true, buf, size);
}

static int pid_show(struct trev_file *f, struct trev_buf *out)
{
	return trev__ftrace_pid_show(f->loc.tr, false, out);
}

static int notrace_pid_show(struct trev_file *f, struct trev_buf *out)
{
	return trev__ftrace_pid_show(f->loc.tr, true, out);
}

const struct tfs_fops trev__set_ftrace_pid_fops = {
	.open = pid_open,
	.show = pid_show,
	.write = pid_write,
};

const struct tfs_fops trev__set_ftrace_notrace_pid_fops = {
	.open = notrace_pid_open,
	.show = notrace_pid_show,
	.write = notrace_pid_write,
};

/* ------------------------------------------------------------------ */
/* function_profile_enabled, trace_stat/                                */

static int profile_show(struct trev_file *f, struct trev_buf *out)
{
	(void)f;
	return trev__buf_puts(out, trev__ftrace_profile_on() ? "1\n" : "0\n");
}

/* The kernel's ftrace_profile_write(): a number, non-zero enables. */
static ssize_t profile_write(struct trev_file *f, const char *buf, size_t size)
{
	const char *why = "Invalid argument";
	char *text = cmd_text(buf, size), *end;
	unsigned long v;
	int ret;

	if (!text)
		return -ENOMEM;
	v = strtoul(text, &end, 10);
	if (!text[0] || *end || text[0] == '-') {
		trev__tracing_log_err(f->loc.tr, "function_profile_enabled", text, 0,
				      "Invalid value");
		free(text);
		return -EINVAL;
	}
	ret = trev__ftrace_profile_set(v != 0, &why);
	if (ret)
		trev__tracing_log_err(f->loc.tr, "function_profile_enabled", text, 0, "%s", why);
	free(text);
	return ret ? ret : (ssize_t)size;
}

const struct tfs_fops trev__function_profile_fops = {
	.show = profile_show,
	.write = profile_write,
};

static int stat_show(struct trev_file *f, struct trev_buf *out)
{
	return trev__ftrace_profile_show(f->loc.cpu, out);
}

static const struct tfs_fops stat_fops = {
	.show = stat_show,
};

static const struct tfs_node stat_node = { "", 0440, &stat_fops, NULL, true };

/* function0 .. function<N-1>: one per CPU view of the top instance. */
static int stat_list(const struct tfs_loc *loc, trev_readdir_fn fn, void *arg)
{
	int n = trev_rb_nr_cpus(loc->tr->rb);

	for (int cpu = 0; cpu < n; cpu++) {
		struct trev_stat st = { 0, stat_node.mode };
		char name[32];
		int ret;

		snprintf(name, sizeof(name), "function%d", cpu);
		ret = fn(name, &st, arg);
		if (ret)
			return ret;
	}
	return 0;
}

static int stat_lookup(struct tfs_loc *loc, const char *name)
{
	char *end;
	long cpu;

	if (strncmp(name, "function", 8) || name[8] < '0' || name[8] > '9' ||
	    (name[8] == '0' && name[9]))
		return -ENOENT;
	cpu = strtol(name + 8, &end, 10);
	if (*end || cpu >= trev_rb_nr_cpus(loc->tr->rb))
		return -ENOENT;
	loc->cpu = (int)cpu;
	loc->node = &stat_node;
	return 0;
}

const struct tfs_dir trev__trace_stat_dir = {
	.list = stat_list,
	.lookup = stat_lookup,
};

/* ------------------------------------------------------------------ */
/* function_graph: set_graph_function, set_graph_notrace,              */
/* max_graph_depth, tracing_thresh                                      */

static int graph_open(struct trev_file *f)
{
	return list_truncates(f) ? trev__ftrace_list_clear(f->loc.tr, TREV_FT_GRAPH) : 0;
}

static int graph_notrace_open(struct trev_file *f)
{
	return list_truncates(f) ? trev__ftrace_list_clear(f->loc.tr, TREV_FT_GRAPH_NOTRACE) : 0;
}

static ssize_t graph_write(struct trev_file *f, const char *buf, size_t size)
{
	return list_write(f, TREV_FT_GRAPH, "set_graph_function", buf, size);
}

static ssize_t graph_notrace_write(struct trev_file *f, const char *buf, size_t size)
{
	return list_write(f, TREV_FT_GRAPH_NOTRACE, "set_graph_notrace", buf, size);
}

static int graph_show(struct trev_file *f, struct trev_buf *out)
{
	return trev__ftrace_list_show(f->loc.tr, TREV_FT_GRAPH, out);
}

static int graph_notrace_show(struct trev_file *f, struct trev_buf *out)
{
	return trev__ftrace_list_show(f->loc.tr, TREV_FT_GRAPH_NOTRACE, out);
}

const struct tfs_fops trev__set_graph_function_fops = {
	.open = graph_open,
	.show = graph_show,
	.write = graph_write,
};

const struct tfs_fops trev__set_graph_notrace_fops = {
	.open = graph_notrace_open,
	.show = graph_notrace_show,
	.write = graph_notrace_write,
};

/* The kernel's graph_depth_read(): "%d\n". */
static int depth_show(struct trev_file *f, struct trev_buf *out)
{
	(void)f;
	return trev__buf_printf(out, "%u\n", trev__ftrace_graph_max_depth());
}

/* A number file's refusal: -EINVAL, and (unlike the kernel) an error_log entry. */
static ssize_t number_refused(struct trev_file *f, const char *file, const char *buf, size_t size)
{
	char *text = cmd_text(buf, size);

	trev__tracing_log_err(f->loc.tr, file, text ? text : "", 0, "Invalid value");
	free(text);
	return -EINVAL;
}

/* The kernel's graph_depth_write(): kstrtouint, -EINVAL. */
static ssize_t depth_write(struct trev_file *f, const char *buf, size_t size)
{
	unsigned long v;

	if (trev__parse_ulong(buf, size, &v) || v > UINT_MAX)
		return number_refused(f, "max_graph_depth", buf, size);
	trev__ftrace_graph_set_max_depth((unsigned int)v);
	return (ssize_t)size;
}

const struct tfs_fops trev__max_graph_depth_fops = {
	.show = depth_show,
	.write = depth_write,
};

/* The kernel's tracing_nsecs_read(): microseconds. */
static int thresh_show(struct trev_file *f, struct trev_buf *out)
{
	(void)f;
	return trev__buf_printf(out, "%llu\n", trev__ftrace_graph_thresh() / 1000);
}

/* tracing_nsecs_write(): microseconds in, kept in ns; kstrtoul, -EINVAL. */
static ssize_t thresh_write(struct trev_file *f, const char *buf, size_t size)
{
	unsigned long v;

	if (trev__parse_ulong(buf, size, &v) || v > ULLONG_MAX / 1000)
		return number_refused(f, "tracing_thresh", buf, size);
	trev__ftrace_graph_set_thresh((unsigned long long)v * 1000);
	return (ssize_t)size;
}

const struct tfs_fops trev__tracing_thresh_fops = {
	.show = thresh_show,
	.write = thresh_write,
};

/* The kernel's tracing_max_lat_read(): microseconds. */
static int max_latency_show(struct trev_file *f, struct trev_buf *out)
{
	(void)f;
	return trev__buf_printf(out, "%llu\n", trev__fg_max_latency() / 1000);
}

/* tracing_max_lat_write(): microseconds in (0 starts a new measure), kept in ns. */
static ssize_t max_latency_write(struct trev_file *f, const char *buf, size_t size)
{
	unsigned long v;

	if (trev__parse_ulong(buf, size, &v) || v > ULLONG_MAX / 1000)
		return number_refused(f, "tracing_max_latency", buf, size);
	trev__fg_set_max_latency((unsigned long long)v * 1000);
	return (ssize_t)size;
}

const struct tfs_fops trev__tracing_max_latency_fops = {
	.show = max_latency_show,
	.write = max_latency_write,
};

/* ------------------------------------------------------------------ */
/* The stack tracer                                                     */

static int stack_trace_show(struct trev_file *f, struct trev_buf *out)
{
	(void)f;
	return trev__st_show(out, trev__ftrace_stack_on());
}

const struct tfs_fops trev__stack_trace_fops = {
	.show = stack_trace_show,
};

/* The kernel's stack_max_size_read(): "%ld\n". */
static int stack_max_show(struct trev_file *f, struct trev_buf *out)
{
	(void)f;
	return trev__buf_printf(out, "%lu\n", trev__st_max());
}

/* stack_max_size_write(): kstrtoul; any value, 0 to measure anew. */
static ssize_t stack_max_write(struct trev_file *f, const char *buf, size_t size)
{
	unsigned long v;

	if (trev__parse_ulong(buf, size, &v))
		return number_refused(f, "stack_max_size", buf, size);
	trev__st_set_max(v);
	return (ssize_t)size;
}

const struct tfs_fops trev__stack_max_size_fops = {
	.show = stack_max_show,
	.write = stack_max_write,
};

static int stack_filter_open(struct trev_file *f)
{
	return list_truncates(f) ? trev__ftrace_stack_filter_clear() : 0;
}

static int stack_filter_show(struct trev_file *f, struct trev_buf *out)
{
	(void)f;
	return trev__ftrace_stack_filter_show(out);
}

static ssize_t stack_filter_write(struct trev_file *f, const char *buf, size_t size)
{
	const char *why = "Invalid argument";
	int pos = 0, ret = trev__ftrace_stack_filter_write(buf, size, &pos, &why);

	if (ret) {
		char *cmd = cmd_text(buf, size);

		trev__tracing_log_err(f->loc.tr, "stack_trace_filter", cmd ? cmd : "", pos, "%s",
				      why);
		free(cmd);
		return ret;
	}
	return (ssize_t)size;
}

const struct tfs_fops trev__stack_trace_filter_fops = {
	.open = stack_filter_open,
	.show = stack_filter_show,
	.write = stack_filter_write,
};

static int stack_enabled_show(struct trev_file *f, struct trev_buf *out)
{
	(void)f;
	return trev__buf_puts(out, trev__ftrace_stack_on() ? "1\n" : "0\n");
}

/*
 * The kernel's sysctl kernel.stack_tracer_enabled (stack_trace_sysctl():
 * an int, not 0 turns it on), here a file of the tree (docs/function-tracer.md).
 */
static ssize_t stack_enabled_write(struct trev_file *f, const char *buf, size_t size)
{
	const char *why = "Invalid argument";
	char *text = cmd_text(buf, size), *end;
	long v;
	int ret;

	if (!text)
		return -ENOMEM;
	errno = 0;
	v = strtol(text, &end, 10);
	if (!text[0] || *end || errno || v < INT_MIN || v > INT_MAX) {
		trev__tracing_log_err(f->loc.tr, "stack_tracer_enabled", text, 0, "Invalid value");
		free(text);
		return -EINVAL;
	}
	ret = trev__ftrace_stack_set(v != 0, &why);
	if (ret)
		trev__tracing_log_err(f->loc.tr, "stack_tracer_enabled", text, 0, "%s", why);
	free(text);
	return ret ? ret : (ssize_t)size;
}

const struct tfs_fops trev__stack_tracer_enabled_fops = {
	.show = stack_enabled_show,
	.write = stack_enabled_write,
};
