/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A trace.dat reader on libtracecmd's public API: tracecmd_open(), then
 * tracecmd_iterate_events() over every CPU in time order. Prints the same
 * lines as dat_read_kbuf:
 *
 *   TS CPU PID COMM SYSTEM:EVENT missed=N INFO
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include <trace-cmd/trace-cmd.h>

static int print_record(struct tracecmd_input *handle, struct tep_record *rec, int cpu,
			void *arg)
{
	struct tep_handle *tep = tracecmd_get_tep(handle);
	struct trace_seq *seq = arg;
	struct tep_event *ev = tep_find_event_by_record(tep, rec);
	int pid = tep_data_pid(tep, rec);

	trace_seq_reset(seq);
	if (ev)
		tep_print_event(tep, seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(seq);
	/* print's text ends in a newline, as the kernel stores it. */
	while (seq->len && seq->buffer[seq->len - 1] == '\n')
		seq->buffer[--seq->len] = '\0';
	printf("%llu %d %d %s %s:%s missed=%lld %s\n", rec->ts, cpu, pid,
	       tep_data_comm_from_pid(tep, pid), ev ? ev->system : "?", ev ? ev->name : "?",
	       (long long)rec->missed_events, seq->buffer);
	return 0;
}

int main(int argc, char **argv)
{
	struct tracecmd_input *handle;
	struct trace_seq seq;

	if (argc != 2) {
		fprintf(stderr, "usage: dat_read_tracecmd FILE\n");
		return 2;
	}
	handle = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!handle) {
		fprintf(stderr, "dat_read_tracecmd: tracecmd_open(%s) failed\n", argv[1]);
		return 1;
	}
	trace_seq_init(&seq);
	if (tracecmd_iterate_events(handle, NULL, 0, print_record, &seq) < 0) {
		fprintf(stderr, "dat_read_tracecmd: tracecmd_iterate_events failed\n");
		return 1;
	}
	trace_seq_destroy(&seq);
	tracecmd_close(handle);
	return 0;
}
