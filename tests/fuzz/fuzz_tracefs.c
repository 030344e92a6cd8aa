/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the tracefs write handlers: the first byte picks a
 * control file, the rest is written to it (split in two writes at the
 * second byte's offset). A write is taken or refused with an errno; a
 * refused write leaves the file reading as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trev/trev.h>

#define CREATE_TRACE_POINTS
#include "trev_test_events.h"

int tt_reg(void)
{
	return 0;
}

void tt_unreg(void)
{
}

static const char *const files[] = {
	"tracing_on", "trace_clock", "trace_options", "options/raw", "buffer_size_kb",
	"current_tracer", "set_event", "snapshot", "trace_marker", "trace_marker_raw",
	"events/enable", "events/trev_test/enable", "events/trev_test/filter",
	"events/trev_test/tt_ints/enable", "events/trev_test/tt_ints/filter",
	"events/trev_test/tt_ints/trigger", "instances/f/set_event", "instances/f/trace_clock",
	"error_log", "trace", "set_event_pid", "set_event_notrace_pid", "tracing_cpumask",
	"instances/f/set_event_pid", "instances/f/tracing_cpumask", "options/stacktrace",
	"options/event-fork", "events/ftrace/print/trigger", "instances/f/events/ftrace/print/trigger",
};
#define NR_FILES (sizeof(files) / sizeof(files[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The errnos a refused write may give (docs/tracefs.md, docs/triggers.md,
 * docs/hist.md); ENOMEM for a buffer size the memory cap cannot hold, which
 * depends on the buffers earlier inputs left.
 */
static int refusal_ok(const char *path, ssize_t r)
{
	if (r == -ENOMEM)
		return strstr(path, "buffer_size_kb") != NULL;
	return r == -EINVAL || r == -EBADF || r == -ENODEV || r == -EEXIST || r == -ENOENT;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char before[8192], after[8192], cpumask0[256];
	const char *path;
	struct trev_file *f;
	size_t split;
	ssize_t r1, r2 = 0;
	int flags;

	if (size < 2)
		return 0;
	trev_set_log(NULL, NULL, 0);
	trev_mkdir("instances/f");
	if (!cpumask0[0] && trev_read("tracing_cpumask", cpumask0, sizeof(cpumask0)) <= 0)
		abort();
	path = files[data[0] % NR_FILES];
	flags = O_WRONLY | (data[0] & 0x80 ? O_APPEND : O_TRUNC);
	split = data[1] % (size - 1);
	data += 2;
	size -= 2;
	if (trev_read(path, before, sizeof(before)) < 0)
		before[0] = '\0';
	if (trev_file_open(path, flags, &f))
		abort();
	r1 = trev_file_write(f, data, split);
	if (r1 >= 0)
		r2 = trev_file_write(f, data + split, size - split);
	trev_file_close(f);
	/* EEXIST: a trigger that is there already; ENOENT: hist :cont/:clear with nothing to act on. */
	if ((r1 < 0 && !refusal_ok(path, r1)) || (r2 < 0 && !refusal_ok(path, r2))) {
		fprintf(stderr, "fuzz_tracefs: %s refused with %zd, %zd\n", path, r1, r2);
		abort();
	}
	/*
	 * A refused first write changed nothing: not for files whose text moves
	 * on its own, nor set_event, which takes the terms before the bad one
	 * (the kernel parses one term per write).
	 */
	if (r1 < 0 && strcmp(path, "trace") && strcmp(path, "error_log") &&
	    !(strlen(path) >= 9 && !strcmp(path + strlen(path) - 9, "set_event")) &&
	    !(flags & O_TRUNC) && trev_read(path, after, sizeof(after)) >= 0 &&
	    strcmp(before, after))
		abort();
	trace_tt_ints(1, 2, 3);
	/* trace_marker runs ftrace/print's triggers: the input is a marker too (any result). */
	if (size) {
		static char hist[16384];

		for (int i = 0; i < 2; i++) {
			const char *dir = i ? "instances/f/" : "";
			char p[64];

			snprintf(p, sizeof(p), "%strace_marker", dir);
			if (trev_file_open(p, O_WRONLY, &f))
				abort();
			trev_file_write(f, data, size);
			trev_file_close(f);
			snprintf(p, sizeof(p), "%sevents/ftrace/print/hist", dir);
			if (trev_read(p, hist, sizeof(hist)) < 0)
				abort();
		}
	}
	trev_write("set_event", "");
	/* Each input starts without triggers (a snapshot trigger would also keep the buffer). */
	trev_write("events/trev_test/tt_ints/trigger", "");
	trev_write("events/ftrace/print/trigger", "");
	trev_write("instances/f/events/ftrace/print/trigger", "");
	trev_write("snapshot", "0");
	trev_write("instances/f/snapshot", "0");
	trev_write("instances/f/tracing_on", "1");
	trev_write("tracing_on", "1");
	trev_write("buffer_size_kb", "64");
	trev_write("set_event_pid", "");
	trev_write("set_event_notrace_pid", "");
	trev_write("instances/f/set_event_pid", "");
	trev_write("tracing_cpumask", cpumask0);
	trev_write("instances/f/tracing_cpumask", cpumask0);
	trev_write("options/stacktrace", "0");
	return 0;
}
