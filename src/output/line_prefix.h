/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The prefix of a `trace` line (the kernel's trace_print_context() and
 * trace_print_lat_fmt()): "TASK-PID [CPU] FLAGS TIMESTAMP: ", rendered
 * once for the library's trace/trace_pipe text (output.c) and for
 * `trev report` (tools/trev/cmd-report.c).
 */
#ifndef TREV_LINE_PREFIX_H
#define TREV_LINE_PREFIX_H

#include <stddef.h>

/*
 * common_flags bits (the kernel's TRACE_FLAG_*). trev's own records carry
 * TREV_FLAG_HARDIRQ only (an event written by a signal handler); a kernel
 * trace.dat read by `trev report` may carry any of them.
 */
#define TREV_FLAG_IRQS_OFF		0x01	/* interrupts were off */
#define TREV_FLAG_IRQS_NOSUPPORT	0x02	/* the arch cannot tell */
#define TREV_FLAG_NEED_RESCHED		0x04	/* TIF_NEED_RESCHED was set */
#define TREV_FLAG_HARDIRQ		0x08	/* in a hard interrupt (trev: a signal handler) */
#define TREV_FLAG_SOFTIRQ		0x10	/* in a softirq */
#define TREV_FLAG_PREEMPT_RESCHED	0x20	/* PREEMPT_NEED_RESCHED was set */
#define TREV_FLAG_NMI			0x40	/* in an NMI */

/* What trev__line_prefix() shows beside the task, pid, CPU and time. */
#define TREV_PREFIX_TGID	0x1u	/* "(TGID) " after the pid (options/record-tgid) */
#define TREV_PREFIX_LAT		0x2u	/* the four latency columns (options/irq-info) */
#define TREV_PREFIX_COUNTER	0x4u	/* the time is a count, printed whole, not ns */

/* One line's context, as the record and the reader give it. */
struct trev_line_prefix {
	const char *comm;	/* the task's name: up to 16 bytes are shown */
	int pid;		/* common_pid */
	int tgid;		/* with TREV_PREFIX_TGID */
	unsigned int cpu;
	unsigned int flags;	/* common_flags: TREV_FLAG_* */
	unsigned int preempt;	/* common_preempt_count */
	unsigned long long ts;	/* ns, or a count with TREV_PREFIX_COUNTER */
	unsigned int show;	/* TREV_PREFIX_* */
};

/* The longest prefix trev__line_prefix() writes. */
#define TREV_LINE_PREFIX_MAX	96

/*
 * trev__line_prefix() - write the prefix of @lp's line at @buf
 *
 * "%16s-%-5d [%03d] dnhp %5llu.%06llu: " with the time in microseconds
 * rounded to the nearest (the kernel's ns2usecs()), or "%12llu" for a
 * count; "(%7d) " after the pid with TREV_PREFIX_TGID; the four latency
 * columns (irqs-off, need-resched, hardirq/softirq, preempt-depth) only
 * with TREV_PREFIX_LAT. Written by hand: printf made it 60 % of the cost
 * of a line.
 * Return: the bytes written, at most TREV_LINE_PREFIX_MAX; no NUL.
 * Context: any thread.
 */
size_t trev__line_prefix(char *buf, const struct trev_line_prefix *lp);

/*
 * trev__line_prefix_lat() - the four latency columns alone (irqs-off,
 * need-resched, hardirq/softirq, preempt-depth) at @p, as function_graph's
 * latency-format prints them. Return: @p + 4. Context: any thread.
 */
char *trev__line_prefix_lat(char *p, unsigned int flags, unsigned int preempt);

#endif /* TREV_LINE_PREFIX_H */
