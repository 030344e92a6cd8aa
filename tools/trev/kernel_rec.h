/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev record --kernel: the kernel's own events, recorded beside a traced
 * program's, on the same trace clock, into a trace.dat file of their own
 * (docs/cli/trev-record.md, "The kernel's events").
 *
 * Everything happens in a trace instance of the kernel's made for the
 * recording (instances/trev-record-<PID>/, libtracefs): its clock, its
 * events and its tracing_on are set there, so the top instance's settings
 * and buffer are never touched, and removing the instance at the end puts
 * the kernel back as it was. Pages are read from the instance's
 * per_cpu/cpuN/trace_pipe_raw by a thread of their own and written with
 * trev's trace.dat writer, whose source reads the kernel's tracefs files.
 */
#ifndef TREV_TOOLS_KERNEL_REC_H
#define TREV_TOOLS_KERNEL_REC_H

#include <stdint.h>

struct trev_kernel;

/*
 * trev_kernel_setup() - make the instance, set its clock and events,
 * tracing off
 * @out: receives the recorder
 * @clock: the trace clock, one the kernel has (mono, mono_raw, boot)
 * @specs, @nr_specs: set_event lines ("sched:*", "sched:sched_switch")
 *
 * Return: 0, or -1 after an error message (no tracefs, not root, an event
 * or clock the kernel refuses); nothing is left behind then.
 */
int trev_kernel_setup(struct trev_kernel **out, const char *clock, char *const *specs,
		      int nr_specs);

/*
 * trev_kernel_start() - open the output, turn tracing on in the instance and
 * start the thread that copies its pages
 * @flush_ms: how long pages may wait in the kernel when no CPU's buffer
 *            passes buffer_percent
 * Return: 0, or -1 after an error message.
 */
int trev_kernel_start(struct trev_kernel *k, const char *output, int version, int flush_ms);

/*
 * trev_kernel_finish() - turn tracing off, copy what is left, write the file
 * and print a line of totals
 * Return: 0, or -1 after an error message (no file then).
 */
int trev_kernel_finish(struct trev_kernel *k);

/*
 * trev_kernel_close() - stop the thread if it runs, drop an unwritten file,
 * remove the instance and free @k (NULL: nothing)
 * Return: 0, or -1 after an error message when the instance could not be
 * removed.
 */
int trev_kernel_close(struct trev_kernel *k);

#endif /* TREV_TOOLS_KERNEL_REC_H */
