/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the function tracer's files (docs/function-tracer.md):
 * the first byte picks set_ftrace_filter, set_ftrace_notrace, set_ftrace_pid,
 * set_ftrace_notrace_pid, current_tracer (at the top or in instance fz),
 * function_profile_enabled, or function_graph's
 * set_graph_function, set_graph_notrace, max_graph_depth, tracing_thresh or
 * tracing_max_latency, the stack tracer's stack_trace_filter, stack_tracer_enabled or
 * stack_max_size, > or >>, and a function command's text appended to
 * the rest (so that "ft_add" becomes "ft_add:traceoff:2"), or with bit 6
 * the rest appended to "ft_s*" and the command text (so that the fuzzer's
 * bytes are the command's arguments); that is written.
 * A refused write leaves the file reading as before (after the emptying of
 * >), and the traced functions (tests/ftrace/ft_funcs.c) still compute
 * their results whatever was patched and whatever commands they run. The
 * commands, the top's and instance fz's, are removed after each input, and
 * the terms kept for a library not loaded ("f:mod:libnone"); with the last
 * byte odd, instance fz is removed first, with whatever commands it has.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trev/trev.h>

#include "ft_funcs.h"

#define CREATE_TRACE_POINTS
#include "ftcmd_events.h"

static const char *const files[] = {
	"set_ftrace_filter", "set_ftrace_notrace", "set_ftrace_pid", "current_tracer",
	"function_profile_enabled",
	"set_graph_function", "set_graph_notrace", "max_graph_depth", "tracing_thresh",
	"tracing_max_latency", "set_ftrace_notrace_pid",
	"instances/fz/set_ftrace_filter", "instances/fz/set_ftrace_notrace",
	"instances/fz/set_ftrace_pid", "instances/fz/set_ftrace_notrace_pid",
	"instances/fz/current_tracer",
	"stack_trace_filter", "stack_tracer_enabled", "stack_max_size",
};
#define NR_FILES (sizeof(files) / sizeof(files[0]))

/* Appended to the input, chosen by bits 2-5 of the first byte. */
static const char *const suffixes[16] = {
	"", "", "", ":mod:libnone", ":traceon", ":traceoff:2", ":snapshot:1", ":stacktrace:3",
	":enable_event:ftcmd:ftcmd_sample", ":disable_event:ftcmd:ftcmd_sample:1", ":dump:1",
	":cpudump:1", ":traceoff", ":mod:libft_mod:traceon", ":stacktrace:0x2", ":nosuch",
};

static const char *const kinds[] = {
	"traceon", "traceoff", "snapshot", "stacktrace", "dump", "cpudump",
	"enable_event:ftcmd:ftcmd_sample", "disable_event:ftcmd:ftcmd_sample",
};

/* Remove the commands and the kept ":mod:" terms of the list file @path. */
static void clear_cmds(const char *path)
{
	static char list[65536];
	char t[96];

	if (trev_read(path, list, sizeof(list)) < 0 || !strchr(list, ':'))
		return;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		snprintf(t, sizeof(t), "!*:%s", kinds[i]);
		trev_append(path, t);
		snprintf(t, sizeof(t), "!*:%s:0", kinds[i]);
		trev_append(path, t);
	}
	trev_read(path, list, sizeof(list));
	/* Terms kept for a library not loaded: "!*:mod:libnone" takes its own, O_TRUNC all. */
	if (strstr(list, ":mod:libnone\n")) {
		if (trev_append(path, "!*:mod:libnone"))
			abort();
		trev_read(path, list, sizeof(list));
		if (strstr(list, ":mod:libnone\n"))
			abort();
	}
	if (strstr(list, ":mod:")) {
		trev_write(path, "");
		trev_read(path, list, sizeof(list));
	}
	if (strchr(list, ':'))
		abort();	/* a command or a kept term that cannot be removed */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char before[65536], after[65536];
	const char *path, *suffix;
	struct trev_file *f;
	char *in;
	size_t len;
	ssize_t r;

	if (size < 1)
		return 0;
	trev_set_log(NULL, NULL, 0);
	trev_mkdir("instances/fz");	/* -EEXIST after the first input */
	path = files[data[0] % NR_FILES];
	suffix = suffixes[(data[0] >> 2) & 15];
	len = size - 1 + strlen(suffix);
	in = malloc(len + 1);
	if (!in)
		abort();
	if (data[0] & 0x40) {
		/* "ft_s*:traceoff:2" + bytes: ft_spin gets the command, the bytes its argument. */
		static const char fn[] = "ft_s*";

		free(in);
		len = strlen(fn) + strlen(suffix) + size - 1;
		in = malloc(len + 1);
		if (!in)
			abort();
		memcpy(in, fn, strlen(fn));
		memcpy(in + strlen(fn), suffix, strlen(suffix));
		memcpy(in + strlen(fn) + strlen(suffix), data + 1, size - 1);
		in[len] = '\0';
	} else {
		memcpy(in, data + 1, size - 1);
		memcpy(in + size - 1, suffix, strlen(suffix) + 1);
	}
	if (trev_file_open(path, O_WRONLY | (data[0] & 0x80 ? O_APPEND : O_TRUNC), &f))
		abort();
	trev_read(path, before, sizeof(before));
	r = trev_file_write(f, in, len);
	trev_file_close(f);
	free(in);
	if (r < 0) {
		if (r != -EINVAL && r != -EBUSY && r != -ENODEV)
			abort();
		trev_read(path, after, sizeof(after));
		if (strcmp(before, after))
			abort();
	}
	if (ft_add(2, 3) != 5 || ft_outer(1) != 4 || ft_spin(1) != (1 ^ 0x5a5a))
		abort();
	trace_ftcmd_sample(1);
	trev_read("trace_stat/function0", before, sizeof(before));
	if (trev_read("stack_trace", before, sizeof(before)) < 0)
		abort();
	/* rmdir drops the instance's commands and kept terms (the next input makes it again). */
	if (size > 1 && (data[size - 1] & 1) && trev_rmdir("instances/fz"))
		abort();
	for (size_t i = 0; i < NR_FILES; i++)
		if (strstr(files[i], "set_ftrace_filter") || strstr(files[i], "set_ftrace_notrace"))
			if (!strstr(files[i], "_pid"))
				clear_cmds(files[i]);
	trev_write("tracing_on", "1");
	trev_write("trace", "");
	trev_write("instances/fz/trace", "");
	return 0;
}
