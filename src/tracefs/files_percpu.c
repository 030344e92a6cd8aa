/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * per_cpu/cpu<N>/: per-CPU views of the per-thread buffers. Every record
 * holds the CPU it ran on; the ring buffer's per-CPU readers hand out one
 * CPU's records in time order (docs/ring-buffer.md, "per-CPU views").
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefs/tracefs_internal.h"

extern const struct tfs_fops trev__trace_fops;
extern const struct tfs_fops trev__trace_pipe_fops;
extern const struct tfs_fops trev__buffer_size_fops;

/* ------------------------------------------------------------------ */
/* trace_pipe_raw: whole pages of one CPU, in the kernel's page format   */

struct raw_state {
	unsigned char page[TREV_RB_PAGE_SIZE];
	size_t pos, len;		/* what is left of the page being read */
};

static int raw_open(struct trev_file *f)
{
	f->priv = calloc(1, sizeof(struct raw_state));
	return f->priv ? 0 : -ENOMEM;
}

static void raw_release(struct trev_file *f)
{
	free(f->priv);
}

/*
 * One page (or what is left of it, for a short read), as the kernel's
 * trace_pipe_raw. TREV_READ_FULL: only a full page, as the kernel's splice
 * read hands out; such a read does not block (-EAGAIN when no page is full).
 */
static ssize_t raw_read(struct trev_file *f, char *buf, size_t size, unsigned int flags)
{
	bool full = flags & TREV_READ_FULL, nonblock = full || (f->flags & O_NONBLOCK);
	struct trev_trace_array *tr = f->loc.tr;
	struct raw_state *rs = f->priv;
	size_t n;

	while (rs->pos == rs->len) {
		int ret;

		pthread_rwlock_rdlock(&tr->buf_lock);
		ret = trev_rb_read_page_cpu_flags(tr->rb, f->loc.cpu, rs->page,
						  full ? TREV_RB_READ_FULL : 0);
		pthread_rwlock_unlock(&tr->buf_lock);
		/* Other CPUs' writers outpace the staging: a blocking read goes on. */
		if (ret == -EAGAIN && !nonblock)
			continue;
		if (ret < 0)
			return ret;
		if (ret > 0) {
			rs->pos = 0;
			rs->len = sizeof(rs->page);
			break;
		}
		if (nonblock)
			return -EAGAIN;
		ret = trev__tfs_wait_data(f, -1);
		if (ret < 0)
			return ret;
	}
	n = rs->len - rs->pos < size ? rs->len - rs->pos : size;
	memcpy(buf, rs->page + rs->pos, n);
	rs->pos += n;
	return (ssize_t)n;
}

static int raw_poll(struct trev_file *f, int timeout_ms)
{
	struct raw_state *rs = f->priv;
	int ret;

	if (rs->pos < rs->len)
		return POLLIN | POLLRDNORM;
	ret = trev__tfs_wait_data(f, timeout_ms);
	return ret > 0 ? POLLIN | POLLRDNORM : ret;
}

static const struct tfs_fops trace_pipe_raw_fops = {
	.open = raw_open,
	.read = raw_read,
	.poll = raw_poll,
	.wake = trev__tfs_wake_readers,
	.release = raw_release,
};

/* ------------------------------------------------------------------ */
/* stats                                                                */

/* A time stamp as the kernel's stats file shows it: seconds.usecs for ns clocks. */
static int stats_ts(struct trev_buf *out, const char *name, uint64_t ts, bool in_ns)
{
	if (!in_ns)
		return trev__buf_printf(out, "%s: %llu\n", name, (unsigned long long)ts);
	return trev__buf_printf(out, "%s: %5llu.%06llu\n", name,
				(unsigned long long)(ts / 1000000000ull),
				(unsigned long long)(ts % 1000000000ull / 1000));
}

static int stats_show(struct trev_file *f, struct trev_buf *out)
{
	struct trev_trace_array *tr = f->loc.tr;
	struct trev_rb_stats st;
	bool in_ns;
	int ret;

	pthread_rwlock_rdlock(&tr->buf_lock);
	ret = trev_rb_cpu_stats(tr->rb, f->loc.cpu, &st);
	in_ns = trev_rb_clock(tr->rb) != TREV_CLOCK_COUNTER;
	pthread_rwlock_unlock(&tr->buf_lock);
	if (ret)
		return ret;
	return trev__buf_printf(out, "entries: %llu\noverrun: %llu\ncommit overrun: %llu\n"
				"bytes: %llu\n", (unsigned long long)st.entries,
				(unsigned long long)st.overrun,
				(unsigned long long)st.commit_overrun,
				(unsigned long long)st.bytes) ?:
	       stats_ts(out, "oldest event ts", st.oldest_event_ts, in_ns) ?:
	       stats_ts(out, "now ts", st.now_ts, in_ns) ?:
	       trev__buf_printf(out, "dropped events: %llu\nread events: %llu\n",
				(unsigned long long)st.dropped_events,
				(unsigned long long)st.read_events);
}

static const struct tfs_fops stats_fops = {
	.show = stats_show,
};

/* ------------------------------------------------------------------ */
/* The directories                                                      */

static const struct tfs_node cpu_entries[] = {
	{ "buffer_size_kb", 0640, &trev__buffer_size_fops, NULL, false },
	{ "stats", 0440, &stats_fops, NULL, false },
	{ "trace", 0640, &trev__trace_fops, NULL, false },
	{ "trace_pipe", 0440, &trev__trace_pipe_fops, NULL, false },
	{ "trace_pipe_raw", 0440, &trace_pipe_raw_fops, NULL, false },
	{ NULL, 0, NULL, NULL, false },
};

static const struct tfs_dir cpu_dir = { .entries = cpu_entries };
static const struct tfs_node cpu_node = { "", 0750, NULL, &cpu_dir, false };

static int per_cpu_list(const struct tfs_loc *loc, trev_readdir_fn fn, void *arg)
{
	int n = trev_rb_nr_cpus(loc->tr->rb);

	for (int cpu = 0; cpu < n; cpu++) {
		struct trev_stat st = { 1, cpu_node.mode };
		char name[32];
		int ret;

		snprintf(name, sizeof(name), "cpu%d", cpu);
		ret = fn(name, &st, arg);
		if (ret)
			return ret;
	}
	return 0;
}

static int per_cpu_lookup(struct tfs_loc *loc, const char *name)
{
	char *end;
	long cpu;

	if (strncmp(name, "cpu", 3) || name[3] < '0' || name[3] > '9' ||
	    (name[3] == '0' && name[4]))
		return -ENOENT;
	cpu = strtol(name + 3, &end, 10);
	if (*end || cpu >= trev_rb_nr_cpus(loc->tr->rb))
		return -ENOENT;
	loc->cpu = (int)cpu;
	loc->node = &cpu_node;
	return 0;
}

const struct tfs_dir trev__per_cpu_dir = {
	.list = per_cpu_list,
	.lookup = per_cpu_lookup,
};
