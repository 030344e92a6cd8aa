/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the function tracer's files (docs/function-tracer.md):
 * the first byte picks set_ftrace_filter, set_ftrace_notrace, set_ftrace_pid,
 * current_tracer, or function_graph's set_graph_function, set_graph_notrace,
 * max_graph_depth, tracing_thresh, and > or >>, the rest is written. A refused write
 * leaves the file reading as before (after the emptying of >), and the
 * traced functions (tests/ftrace/ft_funcs.c) still compute their results
 * whatever was patched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <trev/trev.h>

#include "ft_funcs.h"

static const char *const files[] = {
	"set_ftrace_filter", "set_ftrace_notrace", "set_ftrace_pid", "current_tracer",
	"set_graph_function", "set_graph_notrace", "max_graph_depth", "tracing_thresh",
};
#define NR_FILES (sizeof(files) / sizeof(files[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char before[65536], after[65536];
	const char *path;
	struct trev_file *f;
	ssize_t r;

	if (size < 1)
		return 0;
	trev_set_log(NULL, NULL, 0);
	path = files[data[0] % NR_FILES];
	if (trev_file_open(path, O_WRONLY | (data[0] & 0x80 ? O_APPEND : O_TRUNC), &f))
		abort();
	trev_read(path, before, sizeof(before));
	r = trev_file_write(f, data + 1, size - 1);
	trev_file_close(f);
	if (r < 0) {
		if (r != -EINVAL && r != -EBUSY)
			abort();
		trev_read(path, after, sizeof(after));
		if (strcmp(before, after))
			abort();
	}
	if (ft_add(2, 3) != 5 || ft_outer(1) != 4 || ft_spin(1) != (1 ^ 0x5a5a))
		abort();
	trev_write("trace", "");
	return 0;
}
