/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The files at the root of every instance (the kernel's trace.c files):
 * tracing_on, trace, trace_pipe, trace_marker(_raw), trace_clock,
 * trace_options and options/, buffer sizes, saved_cmdlines, printk_formats,
 * error_log, snapshot, the tracers, set_event and available_events.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "events/tracer.h"
#include "ftrace/ftrace.h"
#include "output/output.h"
#include "tracefs/tracefs_internal.h"
#include "write/write.h"

/* Show a number and a newline. */
static int show_ulong(struct trev_buf *out, unsigned long v)
{
	return trev__buf_printf(out, "%lu\n", v);
}

/* A bad number or word: the kernel's errno, and an error_log entry. */
static ssize_t bad_value(struct trev_file *f, const char *file, const char *buf, size_t size,
			 const char *why)
{
	char *cmd = trev__strip(buf, size);

	trev__tracing_log_err(f->loc.tr, file, cmd ? cmd : "", 0, "%s", why);
	free(cmd);
	return -EINVAL;
}

/* ------------------------------------------------------------------ */
/* tracing_on                                                           */

static int tracing_on_show(struct trev_file *f, struct trev_buf *out)
{
	return show_ulong(out, (unsigned long)trev_rb_record_is_on(f->loc.tr->rb));
}

static ssize_t tracing_on_write(struct trev_file *f, const char *buf, size_t size)
{
	struct trev_trace_array *tr = f->loc.tr;
	unsigned long v;

	if (trev__parse_ulong(buf, size, &v))
		return bad_value(f, "tracing_on", buf, size, "Invalid number");
	pthread_rwlock_rdlock(&tr->buf_lock);
	if (v)
		trev_rb_record_on(tr->rb);
	else
		trev_rb_record_off(tr->rb);
	pthread_rwlock_unlock(&tr->buf_lock);
	return (ssize_t)size;
}

static const struct tfs_fops tracing_on_fops = {
	.show = tracing_on_show,
	.write = tracing_on_write,
};

/* ------------------------------------------------------------------ */
/* trace, snapshot                                                      */

/*
 * `trace`, `snapshot` and per_cpu/cpuN/trace are streamed, as the kernel's
 * seq_file streams them: open places an iterator at the oldest unread
 * event and each read formats only the next page of text (tree.c,
 * tfs_read_stream()), so a reader of a big buffer holds a page, not the
 * whole text, and holds no lock between reads.
 *
 * The iterator shows what was unread at open while writers go on writing,
 * as the kernel's with the pause-on-trace option off: trev never pauses
 * its writers for a reader (an event refused then would be lost with no
 * count). Events overwritten before the reader reaches them are skipped
 * and reported with a LOST line; events written after open are not shown.
 *
 * The buffer is walked without tr->buf_lock, so that snapshot triggers
 * (which only try the lock) are not refused while a reader dawdles. What
 * the lock protects, the buffer's life, the open holds instead
 * (trev__instance_buffers_get()): a swap leaves the walked buffer alive
 * (the kernel's iterator too goes on in the buffer it started in), and a
 * snapshot freed meanwhile is destroyed when the reader closes. A reset or
 * a resize is serialised with each iterator step by the ring buffer's own
 * reader lock; a reset ends the buffers it cleared.
 */
static int trace_stream_open(struct trev_file *f, bool snapshot)
{
	struct trev_trace_array *tr = f->loc.tr;
	struct trev_trace_text *tt;
	int ret;

	if (!tfs_readable(f))
		return 0;
	/* A snapshot trigger may have swapped the buffers from a probe. */
	if (snapshot)
		trev__snapshot_settle(tr);
	pthread_rwlock_rdlock(&tr->buf_lock);
	ret = trev__trace_text_start(tr, snapshot ? tr->snapshot : tr->rb, f->loc.cpu,
				     snapshot ? TREV_PRINT_SNAPSHOT : 0, &tt);
	pthread_rwlock_unlock(&tr->buf_lock);
	if (ret)
		return ret;
	trev__instance_buffers_get(tr);
	f->priv = tt;
	return 0;
}

static int trace_stream_next(struct trev_file *f, struct trev_buf *out, size_t want)
{
	return trev__trace_text_next(f->priv, out, want);
}

static void trace_stream_release(struct trev_file *f)
{
	if (!f->priv)
		return;
	trev__trace_text_finish(f->priv);
	trev__instance_buffers_put(f->loc.tr);
}

static int trace_open(struct trev_file *f)
{
	struct trev_trace_array *tr = f->loc.tr;
	int ret = 0;

	/* Opening `trace` for writing with O_TRUNC clears the buffer (echo > trace). */
	if (tfs_writable(f) && (f->flags & O_TRUNC)) {
		pthread_rwlock_rdlock(&tr->buf_lock);
		ret = trev_rb_reset(tr->rb);
		pthread_rwlock_unlock(&tr->buf_lock);
	}
	return ret ? ret : trace_stream_open(f, false);
}

/* Writes to `trace` are accepted and ignored, as tracefs does. */
static ssize_t write_ignored(struct trev_file *f, const char *buf, size_t size)
{
	(void)f;
	(void)buf;
	return (ssize_t)size;
}

const struct tfs_fops trev__trace_fops = {
	.open = trace_open,
	.next = trace_stream_next,
	.write = write_ignored,
	.release = trace_stream_release,
};

static int snapshot_open(struct trev_file *f)
{
	return trace_stream_open(f, true);
}

/* The kernel's tracing_snapshot_write(): 0 frees, 1 swaps, anything else clears. */
static ssize_t snapshot_write(struct trev_file *f, const char *buf, size_t size)
{
	struct trev_trace_array *tr = f->loc.tr;
	unsigned long v;
	int ret;

	if (trev__parse_ulong(buf, size, &v))
		return bad_value(f, "snapshot", buf, size, "Invalid number");
	switch (v) {
	case 0:
		ret = trev__snapshot_free(tr);
		break;
	case 1:
		ret = trev__snapshot_take(tr);
		break;
	default:
		ret = trev__snapshot_clear(tr);
		break;
	}
	return ret ? ret : (ssize_t)size;
}

static const struct tfs_fops snapshot_fops = {
	.open = snapshot_open,
	.next = trace_stream_next,
	.write = snapshot_write,
	.release = trace_stream_release,
};

/* ------------------------------------------------------------------ */
/* trace_pipe                                                           */

/* How long a blocked reader holds the buffer lock before looking around. */
#define PIPE_SLICE_MS	100

struct pipe_state {
	struct trev_trace_iter iter;	/* the line being handed out, and the rest */
	const struct trev_tracer *tracer; /* whose ->open() made @state */
	void *state;			/* a tracer's reading (function_graph), made when first needed */
};

/* Where trace_pipe consumes: all CPUs, or one; @timeout_ms: how long it may wait. */
struct pipe_src {
	struct trev_rb *rb;
	int cpu;
	int timeout_ms;
};

static int pipe_src_next(void *arg, struct trev_rb_event *ev)
{
	struct pipe_src *p = arg;

	if (p->cpu >= 0)
		return trev_rb_consume_cpu(p->rb, p->cpu, ev, p->timeout_ms);
	return trev_rb_consume(p->rb, ev, p->timeout_ms);
}

static int pipe_open(struct trev_file *f)
{
	f->priv = calloc(1, sizeof(struct pipe_state));
	return f->priv ? 0 : -ENOMEM;
}

static void pipe_release(struct trev_file *f)
{
	struct pipe_state *ps = f->priv;

	if (ps && ps->state)
		ps->tracer->close(ps->state);
	free(ps);
}

/* comm for trace_pipe: the buffer's recorded name, else "<...>". */
static void pipe_comm(struct trev_rb *rb, const struct trev_rb_event *ev, char comm[17])
{
	if (trev_rb_buffer_comm(rb, ev->buffer, comm) < 0 || !comm[0])
		strcpy(comm, "<...>");
}

/* Hand out what was formatted; Return: bytes now in @buf. */
static size_t pipe_drain(struct trev_seq *s, char *buf, size_t size, size_t used)
{
	if (!s->len)
		return used;
	if (s->len <= size - used) {
		memcpy(buf + used, s->buffer, s->len);
		used += s->len;
		s->len = 0;
	} else if (used == 0) {
		/* A line longer than the whole read: hand out what fits. */
		memcpy(buf, s->buffer, size);
		memmove(s->buffer, s->buffer + size, s->len - size + 1);
		s->len -= (unsigned int)size;
		used = size;
	}
	return used;
}

/* Consume one event into the iterator's line. Return 1, 0 (none in time), -errno. */
static int pipe_consume_one(struct trev_file *f, struct pipe_state *ps, int timeout_ms)
{
	struct trev_trace_array *tr = f->loc.tr;
	struct trev_rb_event ev;
	char comm[17];
	struct pipe_src src = { NULL, f->loc.cpu, timeout_ms };
	struct trev_tracer_read rd = { NULL, NULL, pipe_src_next, &src };
	const struct trev_tracer *t;
	int ret;

	pthread_rwlock_rdlock(&tr->buf_lock);
	src.rb = tr->rb;
	/*
	 * A tracer's reading (function_graph's) lives as long as the open file,
	 * once needed; trev__print_line() uses its lines while it is the tracer.
	 */
	t = trev__tracer_of(tr);
	if (!ps->state && t->open) {
		ps->state = t->open();
		ps->tracer = ps->state ? t : NULL;
	}
	rd.tracer = ps->tracer;
	rd.state = ps->state;
	if (rd.state) {
		ret = ps->tracer->read(&rd, &ev);
		src.timeout_ms = 0;	/* reading ahead for a leaf takes only what is there */
	} else {
		ret = pipe_src_next(&src, &ev);
	}
	if (ret == 1) {
		pipe_comm(tr->rb, &ev, comm);
		trev__events_read_lock();
		trev__print_line(tr, &ps->iter, &ev, comm, &rd);
		trev__events_read_unlock();
	}
	pthread_rwlock_unlock(&tr->buf_lock);
	return ret;
}

static ssize_t pipe_read(struct trev_file *f, char *buf, size_t size, unsigned int flags)
{
	struct pipe_state *ps = f->priv;
	struct trev_seq *s = &ps->iter.seq;
	size_t used = 0;

	(void)flags;	/* text lines: TREV_READ_FULL is about pages */
	if (size == 0)
		return 0;
	for (;;) {
		size_t before = used;
		int ret;

		used = pipe_drain(s, buf, size, used);
		if (s->len)
			break;		/* the next line does not fit */
		if (used != before && used == size)
			break;
		/* Block only while nothing has been read (the kernel's trace_pipe). */
		if (used || (f->flags & O_NONBLOCK)) {
			ret = pipe_consume_one(f, ps, 0);
		} else {
			if (atomic_exchange(&f->woken, false))
				return -EINTR;
			ret = pipe_consume_one(f, ps, PIPE_SLICE_MS);
			if (ret == 0 || ret == -EINTR)
				continue;
		}
		if (ret < 0 && ret != -EINTR)
			return used ? (ssize_t)used : ret;
		if (ret <= 0)
			break;
	}
	if (!used && (f->flags & O_NONBLOCK))
		return -EAGAIN;
	return (ssize_t)used;
}

int trev__tfs_wait_data(struct trev_file *f, int timeout_ms)
{
	struct trev_trace_array *tr = f->loc.tr;
	int waited = 0;

	for (;;) {
		int slice = timeout_ms < 0 ? PIPE_SLICE_MS : timeout_ms - waited;
		int ret;

		if (slice > PIPE_SLICE_MS)
			slice = PIPE_SLICE_MS;
		if (atomic_exchange(&f->woken, false))
			return -EINTR;
		pthread_rwlock_rdlock(&tr->buf_lock);
		if (f->loc.cpu >= 0)
			ret = trev_rb_wait_cpu(tr->rb, f->loc.cpu, slice);
		else
			ret = trev_rb_wait(tr->rb, slice);
		pthread_rwlock_unlock(&tr->buf_lock);
		if (ret > 0)
			return 1;
		if (ret < 0 && ret != -EINTR)
			return ret;
		waited += slice;
		if (timeout_ms >= 0 && waited >= timeout_ms)
			return 0;
	}
}

void trev__tfs_wake_readers(struct trev_file *f)
{
	struct trev_trace_array *tr = f->loc.tr;

	/* Wakes every reader of the buffer; the others see no flag and go on waiting. */
	pthread_rwlock_rdlock(&tr->buf_lock);
	trev_rb_wake_readers(tr->rb);
	pthread_rwlock_unlock(&tr->buf_lock);
}

static int pipe_poll(struct trev_file *f, int timeout_ms)
{
	struct pipe_state *ps = f->priv;
	int ret;

	if (ps && (ps->iter.seq.len ||
		   (ps->state && ps->tracer->pending && ps->tracer->pending(ps->state))))
		return POLLIN | POLLRDNORM;
	ret = trev__tfs_wait_data(f, timeout_ms);
	return ret > 0 ? POLLIN | POLLRDNORM : ret;
}

const struct tfs_fops trev__trace_pipe_fops = {
	.open = pipe_open,
	.read = pipe_read,
	.poll = pipe_poll,
	.wake = trev__tfs_wake_readers,
	.release = pipe_release,
};

/* ------------------------------------------------------------------ */
/* trace_marker, trace_marker_raw                                       */

/*
 * A marker written from outside the process (a shell's echo through the
 * mount or the socket) is the process's: each open is served by another
 * thread, whose id would split one writer's markers (docs/tracefs.md).
 */
static pid_t marker_pid(const struct trev_file *f)
{
	return f->outside ? getpid() : 0;
}

static ssize_t marker_write(struct trev_file *f, const char *buf, size_t size)
{
	return trev__marker_write(f->loc.tr, buf, size, marker_pid(f));
}

static const struct tfs_fops marker_fops = {
	.write = marker_write,
};

static ssize_t marker_raw_write(struct trev_file *f, const char *buf, size_t size)
{
	return trev__marker_raw_write(f->loc.tr, buf, size, marker_pid(f));
}

static const struct tfs_fops marker_raw_fops = {
	.write = marker_raw_write,
};

/* ------------------------------------------------------------------ */
/* trace_clock                                                          */

static int clock_show(struct trev_file *f, struct trev_buf *out)
{
	int cur = trev_rb_clock(f->loc.tr->rb);

	for (int i = 0; i < TREV_CLOCK__COUNT; i++)
		if (trev__buf_printf(out, "%s%s%s%s", i ? " " : "", i == cur ? "[" : "",
				     trev_clock_name(i), i == cur ? "]" : ""))
			return -ENOMEM;
	return trev__buf_puts(out, "\n");
}

static ssize_t clock_write(struct trev_file *f, const char *buf, size_t size)
{
	struct trev_trace_array *tr = f->loc.tr;
	char *name = trev__strip(buf, size);
	int clock, ret;

	if (!name)
		return -ENOMEM;
	clock = trev_clock_from_name(name);
	free(name);
	if (clock < 0)
		return bad_value(f, "trace_clock", buf, size, "Unknown clock");
	pthread_rwlock_rdlock(&tr->buf_lock);
	ret = trev_rb_set_clock(tr->rb, clock);
	if (!ret && tr->snapshot)
		ret = trev_rb_set_clock(tr->snapshot, clock);
	pthread_rwlock_unlock(&tr->buf_lock);
	return ret ? ret : (ssize_t)size;
}

static const struct tfs_fops clock_fops = {
	.show = clock_show,
	.write = clock_write,
};

/* ------------------------------------------------------------------ */
/* trace_options, options/                                              */

const struct tfs_option trev__options[] = {
	{ "print-parent", TREV_ITER_PRINT_PARENT },
	{ "sym-offset", TREV_ITER_SYM_OFFSET },
	{ "sym-addr", TREV_ITER_SYM_ADDR },
	{ "raw", TREV_ITER_RAW },
	{ "hex", TREV_ITER_HEX },
	{ "bin", TREV_ITER_BIN },
	{ "context-info", TREV_ITER_CONTEXT_INFO },
	{ "latency-format", TREV_ITER_LATENCY_FMT },
	{ "record-tgid", TREV_ITER_RECORD_TGID },
	{ "overwrite", 0 },
	{ "irq-info", TREV_ITER_IRQ_INFO },
	/* function_graph's (listed always here: see docs/tracefs.md) */
	{ "funcgraph-overrun", TREV_ITER_FG_OVERRUN },
	{ "funcgraph-cpu", TREV_ITER_FG_CPU },
	{ "funcgraph-overhead", TREV_ITER_FG_OVERHEAD },
	{ "funcgraph-proc", TREV_ITER_FG_PROC },
	{ "funcgraph-duration", TREV_ITER_FG_DURATION },
	{ "funcgraph-abstime", TREV_ITER_FG_ABSTIME },
	{ "funcgraph-irqs", TREV_ITER_FG_IRQS },
	{ "funcgraph-tail", TREV_ITER_FG_TAIL },
	{ "funcgraph-snapshot", TREV_ITER_FG_SNAPSHOT },
	{ "funcgraph-retval", TREV_ITER_FG_RETVAL },
	{ "funcgraph-retval-hex", TREV_ITER_FG_RETVAL_HEX },
	{ "funcgraph-args", TREV_ITER_FG_ARGS },
	{ "func_stack_trace", TREV_ITER_FUNC_STACK_TRACE },
	{ "func-args", TREV_ITER_FUNC_ARGS },
	{ "stacktrace", TREV_ITER_STACKTRACE },
	{ "event-fork", TREV_ITER_EVENT_FORK },
};
const int trev__nr_options = (int)(sizeof(trev__options) / sizeof(trev__options[0]));

int trev__option_get(struct trev_trace_array *tr, int i)
{
	if (!trev__options[i].bit)
		return trev_rb_overwrite(tr->rb);
	return !!(tr->trace_flags & trev__options[i].bit);
}

int trev__option_set(struct trev_trace_array *tr, int i, bool on)
{
	int ret = 0;

	/* The slowest call tree's buffer: allocated while the option is on (docs/function-tracer.md). */
	if (trev__options[i].bit == TREV_ITER_FG_SNAPSHOT &&
	    on != !!(tr->trace_flags & TREV_ITER_FG_SNAPSHOT)) {
		if (on && (ret = trev__snapshot_arm(tr)))
			return ret;
		if (!on)
			trev__snapshot_disarm(tr);
	}
	if (!trev__options[i].bit) {
		pthread_rwlock_rdlock(&tr->buf_lock);
		ret = trev_rb_set_overwrite(tr->rb, on);
		if (!ret && tr->snapshot)
			ret = trev_rb_set_overwrite(tr->snapshot, on);
		pthread_rwlock_unlock(&tr->buf_lock);
	} else if (on) {
		/* Atomic: trace_pipe's readers load the flags for each line without tfs_lock. */
		__atomic_fetch_or(&tr->trace_flags, trev__options[i].bit, __ATOMIC_RELAXED);
	} else {
		__atomic_fetch_and(&tr->trace_flags, ~trev__options[i].bit, __ATOMIC_RELAXED);
	}
	if (trev__options[i].bit == TREV_ITER_FUNC_STACK_TRACE)
		trev__ftrace_func_stack_set(tr, on);
	if (trev__options[i].bit == TREV_ITER_FUNC_ARGS ||
	    trev__options[i].bit == TREV_ITER_FG_ARGS)
		trev__ftrace_args_set(tr);
	if (trev__options[i].bit == TREV_ITER_STACKTRACE)
		trev__stack_option(tr, on);
	return ret;
}

static int options_show(struct trev_file *f, struct trev_buf *out)
{
	for (int i = 0; i < trev__nr_options; i++)
		if (trev__buf_printf(out, "%s%s\n", trev__option_get(f->loc.tr, i) ? "" : "no",
				     trev__options[i].name))
			return -ENOMEM;
	return 0;
}

static ssize_t options_write(struct trev_file *f, const char *buf, size_t size)
{
	char *word = trev__strip(buf, size);
	bool on = true;
	const char *name;
	int ret = -EINVAL;

	if (!word)
		return -ENOMEM;
	name = word;
	if (strncmp(name, "no", 2) == 0) {
		on = false;
		name += 2;
	}
	for (int i = 0; i < trev__nr_options; i++) {
		if (strcmp(name, trev__options[i].name) == 0) {
			ret = trev__option_set(f->loc.tr, i, on);
			break;
		}
	}
	free(word);
	if (ret == -EINVAL)
		return bad_value(f, "trace_options", buf, size, "Unknown option");
	return ret ? ret : (ssize_t)size;
}

static const struct tfs_fops trace_options_fops = {
	.show = options_show,
	.write = options_write,
};

static int option_show(struct trev_file *f, struct trev_buf *out)
{
	return show_ulong(out, (unsigned long)trev__option_get(f->loc.tr, f->loc.option));
}

static ssize_t option_write(struct trev_file *f, const char *buf, size_t size)
{
	unsigned long v;
	int ret;

	if (trev__parse_ulong(buf, size, &v) || v > 1)
		return bad_value(f, trev__options[f->loc.option].name, buf, size,
				 "Invalid value (0 or 1)");
	ret = trev__option_set(f->loc.tr, f->loc.option, v);
	return ret ? ret : (ssize_t)size;
}

static const struct tfs_fops option_fops = {
	.show = option_show,
	.write = option_write,
};

static const struct tfs_node option_node = { "option", 0640, &option_fops, NULL, false };

static int options_list(const struct tfs_loc *loc, trev_readdir_fn fn, void *arg)
{
	(void)loc;
	for (int i = 0; i < trev__nr_options; i++) {
		struct trev_stat st = { 0, option_node.mode };
		int ret = fn(trev__options[i].name, &st, arg);

		if (ret)
			return ret;
	}
	return 0;
}

static int options_lookup(struct tfs_loc *loc, const char *name)
{
	for (int i = 0; i < trev__nr_options; i++) {
		if (strcmp(name, trev__options[i].name) == 0) {
			loc->option = i;
			loc->node = &option_node;
			return 0;
		}
	}
	return -ENOENT;
}

const struct tfs_dir trev__options_dir = {
	.list = options_list,
	.lookup = options_lookup,
};

/* ------------------------------------------------------------------ */
/* Buffer sizes                                                         */

static int buffer_size_show(struct trev_file *f, struct trev_buf *out)
{
	return show_ulong(out, trev_rb_size_kb(f->loc.tr->rb));
}

static ssize_t buffer_size_write(struct trev_file *f, const char *buf, size_t size)
{
	struct trev_trace_array *tr = f->loc.tr;
	unsigned long kb;
	int ret;

	if (trev__parse_ulong(buf, size, &kb) || kb == 0 || kb > 4u * 1024 * 1024)
		return bad_value(f, "buffer_size_kb", buf, size, "Invalid size");
	pthread_rwlock_rdlock(&tr->buf_lock);
	ret = trev_rb_resize(tr->rb, (unsigned int)kb);
	if (!ret && tr->snapshot)
		ret = trev_rb_resize(tr->snapshot, (unsigned int)kb);
	pthread_rwlock_unlock(&tr->buf_lock);
	return ret ? ret : (ssize_t)size;
}

const struct tfs_fops trev__buffer_size_fops = {
	.show = buffer_size_show,
	.write = buffer_size_write,
};

/* Each thread that wrote has a buffer of buffer_size_kb. */
static int buffer_total_show(struct trev_file *f, struct trev_buf *out)
{
	struct trev_rb *rb = f->loc.tr->rb;
	int n = trev_rb_buffers(rb, NULL, 0);

	return show_ulong(out, (unsigned long)n * trev_rb_size_kb(rb));
}

static const struct tfs_fops buffer_total_fops = {
	.show = buffer_total_show,
};

/* ------------------------------------------------------------------ */
/* saved_cmdlines, printk_formats, error_log                            */

static int cmdlines_show(struct trev_file *f, struct trev_buf *out)
{
	struct trev_rb *rb = f->loc.tr->rb;
	int n = trev_rb_buffers(rb, NULL, 0);
	unsigned int *ids;
	int ret = 0;

	if (n <= 0)
		return 0;
	ids = calloc((size_t)n, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	{
		int m = trev_rb_buffers(rb, ids, n);

		if (m < n)
			n = m;
	}
	for (int i = 0; i < n && !ret; i++) {
		struct trev_rb_stats st;
		char comm[17];

		if (trev_rb_buffer_stats(rb, ids[i], &st) || !st.tid)
			continue;
		memcpy(comm, st.comm, 16);
		comm[16] = '\0';
		ret = trev__buf_printf(out, "%d %s\n", (int)st.tid, comm[0] ? comm : "<...>");
	}
	free(ids);
	return ret;
}

static const struct tfs_fops cmdlines_fops = {
	.show = cmdlines_show,
};

static int printk_formats_show(struct trev_file *f, struct trev_buf *out)
{
	char *text;
	int ret = trev__printk_formats_text(&text);

	(void)f;
	if (ret)
		return ret;
	ret = trev__buf_puts(out, text);
	free(text);
	return ret;
}

static const struct tfs_fops printk_formats_fops = {
	.show = printk_formats_show,
};

static int error_log_open(struct trev_file *f)
{
	if (tfs_writable(f) && (f->flags & O_TRUNC))
		trev__error_log_clear(f->loc.tr);
	return 0;
}

static int error_log_show(struct trev_file *f, struct trev_buf *out)
{
	return trev__error_log_show(f->loc.tr, out);
}

static const struct tfs_fops error_log_fops = {
	.open = error_log_open,
	.show = error_log_show,
	.write = write_ignored,
};

/* ------------------------------------------------------------------ */
/* Tracers                                                              */

/* The registry's tracers that @tr may run (function_graph: the top instance's only). */
static int tracers_show(struct trev_file *f, struct trev_buf *out)
{
	return trev__tracers_show(f->loc.tr, out);
}

static const struct tfs_fops available_tracers_fops = {
	.show = tracers_show,
};

static int current_tracer_show(struct trev_file *f, struct trev_buf *out)
{
	return trev__buf_printf(out, "%s\n", trev__tracer_of(f->loc.tr)->name);
}

/*
 * As the kernel's tracing_set_tracer(): a change of tracer empties the
 * buffer; writing the tracer that runs changes nothing.
 */
static ssize_t current_tracer_write(struct trev_file *f, const char *buf, size_t size)
{
	struct trev_trace_array *tr = f->loc.tr;
	char *name = trev__strip(buf, size);
	const struct trev_tracer *want;
	const char *why = NULL;
	int ret;

	if (!name)
		return -ENOMEM;
	want = trev__tracer_find(tr, name);
	free(name);
	if (!want)
		return bad_value(f, "current_tracer", buf, size, "No such tracer");
	if (want == trev__tracer_of(tr))
		return (ssize_t)size;
	pthread_rwlock_rdlock(&tr->buf_lock);
	trev_rb_reset(tr->rb);
	pthread_rwlock_unlock(&tr->buf_lock);
	ret = trev__tracer_set(tr, want, &why);
	if (ret) {
		char *cmd = trev__strip(buf, size);

		trev__tracing_log_err(tr, "current_tracer", cmd ? cmd : "", 0, "%s", why);
		free(cmd);
		return ret;
	}
	return (ssize_t)size;
}

static const struct tfs_fops current_tracer_fops = {
	.show = current_tracer_show,
	.write = current_tracer_write,
};

/* ------------------------------------------------------------------ */
/* README                                                               */

/*
 * The kernel's README (readme_msg[] of kernel/trace/trace.c) cut to what
 * trev does, in the kernel's words where trev does the same: ftracetest
 * greps it to decide what to test. Each line that names a file, a clock,
 * a command or a modifier is checked against the tree by
 * tests/ftrace/test_readme.c; docs/tracefs.md, "README".
 */
static const char readme_msg[] =
	"tracing mini-HOWTO:\n\n"
	"# echo 0 > tracing_on : quick way to disable tracing\n"
	"# echo 1 > tracing_on : quick way to re-enable tracing\n\n"
	" Important files:\n"
	"  trace\t\t\t- The static contents of the buffer\n"
	"\t\t\t  To clear the buffer write into this file: echo > trace\n"
	"  trace_pipe\t\t- A consuming read to see the contents of the buffer\n"
	"  current_tracer\t- function tracers\n"
	"  available_tracers\t- list of configured tracers for current_tracer\n"
	"  error_log\t- error log for failed commands (that support it)\n"
	"  buffer_size_kb\t- view and modify size of per cpu buffer\n"
	"  buffer_total_size_kb  - view total size of all cpu buffers\n\n"
	"  trace_clock\t\t- change the clock used to order events\n"
	"       local:   TSC in ns on the CLOCK_MONOTONIC time line (else CLOCK_MONOTONIC)\n"
	"        mono:   CLOCK_MONOTONIC\n"
	"    mono_raw:   CLOCK_MONOTONIC_RAW\n"
	"        boot:   CLOCK_BOOTTIME\n"
	"     counter:   Not a clock, but just an increment\n"
	"\n  trace_marker\t\t- Writes into this file writes into the trace buffer\n"
	"\n  trace_marker_raw\t\t- Writes into this file writes binary data into the trace buffer\n"
	"  instances\t\t- Make sub-buffers with: mkdir instances/foo\n"
	"\t\t\t  Remove sub-buffer with rmdir\n"
	"  trace_options\t\t- Set format or modify how tracing happens\n"
	"\t\t\t  Disable an option by prefixing 'no' to the\n"
	"\t\t\t  option name\n"
	"  tracing_cpumask\t- Limit which CPUs to trace\n"
	"  set_event_pid\t\t- Write thread id(s) to only record events of those threads\n"
	"  set_event_notrace_pid\t- Write thread id(s) to not record events of those threads\n"
	"\n  available_filter_functions - list of functions that can be filtered on\n"
	"  set_ftrace_filter\t- echo function name in here to only trace these\n"
	"\t\t\t  functions\n"
	"\t     accepts: func_full_name or glob-matching-pattern\n"
	"\t     modules: Can select a group via module (a shared library)\n"
	"\t      Format: :mod:<module-name>\n"
	"\t     example: echo :mod:libfoo > set_ftrace_filter\n"
	"\t    triggers: a command to perform when function is hit\n"
	"\t      Format: <function>:<trigger>[:count]\n"
	"\t     trigger: traceon, traceoff\n"
	"\t\t      enable_event:<system>:<event>\n"
	"\t\t      disable_event:<system>:<event>\n"
	"\t\t      stacktrace\n"
	"\t\t      snapshot\n"
	"\t\t      dump\n"
	"\t\t      cpudump\n"
	"\t     example: echo do_fault:traceoff > set_ftrace_filter\n"
	"\t              echo do_trap:traceoff:3 > set_ftrace_filter\n"
	"\t     The first one will disable tracing every time do_fault is hit\n"
	"\t     The second will disable tracing at most 3 times when do_trap is hit\n"
	"\t       The first time do trap is hit and it disables tracing, the\n"
	"\t       counter will decrement to 2. If tracing is already disabled,\n"
	"\t       the counter will not decrement. It only decrements when the\n"
	"\t       trigger did work\n"
	"\t     To remove trigger without count:\n"
	"\t       echo '!<function>:<trigger> > set_ftrace_filter\n"
	"\t     To remove trigger with a count:\n"
	"\t       echo '!<function>:<trigger>:0 > set_ftrace_filter\n"
	"  set_ftrace_notrace\t- echo function name in here to never trace.\n"
	"\t    accepts: func_full_name, *func_end, func_begin*, *func_middle*\n"
	"\t    modules: Can select a group via module command :mod:\n"
	"\t    Does not accept triggers\n"
	"  set_ftrace_pid\t- Write pid(s) to only function trace those pids\n"
	"\t\t    (function)\n"
	"  set_ftrace_notrace_pid\t- Write pid(s) to not function trace those pids\n"
	"\t\t    (function)\n"
	"  set_graph_function\t- Trace the nested calls of a function (function_graph)\n"
	"  set_graph_notrace\t- Do not trace the nested calls of a function (function_graph)\n"
	"  max_graph_depth\t- Trace a limited depth of nested calls (0 is unlimited)\n"
	"\n  snapshot\t\t- Like 'trace' but shows the content of the static\n"
	"\t\t\t  snapshot buffer. Read the contents for more\n"
	"\t\t\t  information\n"
	"  stack_trace\t\t- Shows the max stack trace when active\n"
	"  stack_max_size\t- Shows current max stack size that was traced\n"
	"\t\t\t  Write into this file to reset the max size (trigger a\n"
	"\t\t\t  new trace)\n"
	"  stack_trace_filter\t- Like set_ftrace_filter but limits what stack_trace\n"
	"\t\t\t  traces\n"
	"  stack_tracer_enabled\t- Write 1/0 to start/stop the stack tracer (the kernel's\n"
	"\t\t\t  /proc/sys/kernel/stack_tracer_enabled)\n"
	"  dynamic_events\t\t- Create/append/remove/show the generic dynamic events\n"
	"\t\t\t  Write into this file to define/undefine new trace events.\n"
	"  kprobe_events\t\t- Create/append/remove/show the kernel dynamic events\n"
	"\t\t\t  Write into this file to define/undefine new trace events.\n"
	"  uprobe_events\t\t- Create/append/remove/show the userspace dynamic events\n"
	"\t\t\t  Write into this file to define/undefine new trace events.\n"
	"\t  accepts: event-definitions (one definition per line)\n"
	"\t   Format: p[:[<group>/][<event>]] <place> [<args>]\n"
	"\t           r[maxactive][:[<group>/][<event>]] <place> [<args>]\n"
	"\t           s:[synthetic/]<event> <field> [<field>]\n"
	"\t           -:[<group>/][<event>]\n"
	"\t    place: [<module>:]<symbol>[+<offset>]|<memaddr>\n"
	"place (kretprobe): [<module>:]<symbol>[+<offset>]%return|<memaddr>\n"
	"   place (uprobe): <path>:<offset>[%return]\n"
	"\t     args: <name>=fetcharg[:type]\n"
	"\t fetcharg: %<register>, @<address>, @<symbol>[+|-<offset>],\n"
	"\t           $stack<index>, $stack, $retval, $comm, $arg<N>,\n"
	"\t           +|-[u]<offset>(<fetcharg>), \\imm-value, \\\"imm-string\"\n"
	"\t     type: s8/16/32/64, u8/16/32/64, x8/16/32/64, string, symbol,\n"
	"\t           b<bit-width>@<bit-offset>/<container-size>, ustring,\n"
	"\t           symstr, <type>\\[<array-size>\\]\n"
	"  events/\t\t- Directory containing all trace event subsystems:\n"
	"      enable\t\t- Write 0/1 to enable/disable tracing of all events\n"
	"  events/<system>/\t- Directory containing all trace events for <system>:\n"
	"      enable\t\t- Write 0/1 to enable/disable tracing of all <system>\n"
	"\t\t\t  events\n"
	"      filter\t\t- If set, only events passing filter are traced\n"
	"  events/<system>/<event>/\t- Directory containing control files for\n"
	"\t\t\t  <event>:\n"
	"      enable\t\t- Write 0/1 to enable/disable tracing of <event>\n"
	"      filter\t\t- If set, only events passing filter are traced\n"
	"      trigger\t\t- If set, a command to perform when event is hit\n"
	"\t    Format: <trigger>[:count][if <filter>]\n"
	"\t   trigger: traceon, traceoff\n"
	"\t            enable_event:<system>:<event>\n"
	"\t            disable_event:<system>:<event>\n"
	"\t            enable_hist:<system>:<event>\n"
	"\t            disable_hist:<system>:<event>\n"
	"\t\t    stacktrace\n"
	"\t\t    snapshot\n"
	"\t\t    hist (see below)\n"
	"\t   example: echo traceoff > events/block/block_unplug/trigger\n"
	"\t            echo traceoff:3 > events/block/block_unplug/trigger\n"
	"\t            echo 'enable_event:kmem:kmalloc:3 if nr_rq > 1' > \\\n"
	"\t                  events/block/block_unplug/trigger\n"
	"\t   The first disables tracing every time block_unplug is hit.\n"
	"\t   The second disables tracing the first 3 times block_unplug is hit.\n"
	"\t   The third enables the kmalloc event the first 3 times block_unplug\n"
	"\t     is hit and has value of greater than 1 for the 'nr_rq' event field.\n"
	"\t   Like function triggers, the counter is only decremented if it\n"
	"\t    enabled or disabled tracing.\n"
	"\t   To remove a trigger without a count:\n"
	"\t     echo '!<trigger> > <system>/<event>/trigger\n"
	"\t   To remove a trigger with a count:\n"
	"\t     echo '!<trigger>:0 > <system>/<event>/trigger\n"
	"\t   Filters can be ignored when removing a trigger.\n"
	"      hist trigger\t- If set, event hits are aggregated into a hash table\n"
	"\t    Format: hist:keys=<field1[,field2,...]>\n"
	"\t            [:<var1>=<field|var_ref|numeric_literal>[,<var2>=...]]\n"
	"\t            [:values=<field1[,field2,...]>]\n"
	"\t            [:sort=<field1[,field2,...]>]\n"
	"\t            [:size=#entries]\n"
	"\t            [:pause][:continue][:clear]\n"
	"\t            [:name=histname1]\n"
	"\t            [:<handler>.<action>]\n"
	"\t            [if <filter>]\n\n"
	"\t    Note, special fields can be used as well:\n"
	"\t            common_timestamp - to record current timestamp\n"
	"\n"
	"\t    A hist trigger variable can be:\n"
	"\t        - a reference to a field e.g. x=current_timestamp,\n"
	"\t        - a reference to another variable e.g. y=$x,\n"
	"\t        - a numeric literal: e.g. ms_per_sec=1000,\n"
	"\t        - an arithmetic expression: e.g. time_secs=current_timestamp/1000\n"
	"\n"
	"\t    hist trigger arithmetic expressions support addition(+), subtraction(-),\n"
	"\t    multiplication(*) and division(/) operators. An operand can be either a\n"
	"\t    variable reference, field or numeric literal.\n"
	"\n"
	"\t    When a matching event is hit, an entry is added to a hash\n"
	"\t    table using the key(s) and value(s) named, and the value of a\n"
	"\t    sum called 'hitcount' is incremented.  Keys and values\n"
	"\t    correspond to fields in the event's format description.  Keys\n"
	"\t    can be any field, or the special string 'stacktrace'.\n"
	"\t    Compound keys consisting of up to three fields can be specified\n"
	"\t    by the 'keys' keyword.  Values must correspond to numeric\n"
	"\t    fields.  Sort keys consisting of up to two fields can be\n"
	"\t    specified using the 'sort' keyword.  The sort direction can\n"
	"\t    be modified by appending '.descending' or '.ascending' to a\n"
	"\t    sort field.  The 'size' parameter can be used to specify more\n"
	"\t    or fewer than the default 2048 entries for the hashtable size.\n"
	"\t    If a hist trigger is given a name using the 'name' parameter,\n"
	"\t    its histogram data will be shared with other triggers of the\n"
	"\t    same name, and trigger hits will update this common data.\n\n"
	"\t    Reading the 'hist' file for the event will dump the hash\n"
	"\t    table in its entirety to stdout.  If there are multiple hist\n"
	"\t    triggers attached to an event, there will be a table for each\n"
	"\t    trigger in the output.  The table displayed for a named\n"
	"\t    trigger will be the same as any other instance having the\n"
	"\t    same name.  The default format used to display a given field\n"
	"\t    can be modified by appending any of the following modifiers\n"
	"\t    to the field name, as applicable:\n\n"
	"\t            .hex        display a number as a hex value\n"
	"\t            .sym        display an address as a symbol\n"
	"\t            .sym-offset display an address as a symbol and offset\n"
	"\t            .execname   display a common_pid as a program name\n"
	"\t            .syscall    display a syscall id as a syscall name\n"
	"\t            .log2       display log2 value rather than raw number\n"
	"\t            .buckets=size  display values in groups of size rather than raw number\n"
	"\t            .usecs      display a common_timestamp in microseconds\n"
	"\t            .percent    display a value as its share of the column's total\n"
	"\t            .graph      display a value as a bar against the column's largest\n\n"
	"\t    The 'pause' parameter can be used to pause an existing hist\n"
	"\t    trigger or to start a hist trigger but not log any events\n"
	"\t    until told to do so.  'continue' can be used to start or\n"
	"\t    restart a paused hist trigger.\n\n"
	"\t    The 'clear' parameter will clear the contents of a running\n"
	"\t    hist trigger and leave its current paused/active state\n"
	"\t    unchanged.\n\n"
	"\t    The enable_hist and disable_hist triggers can be used to\n"
	"\t    have one event conditionally start and stop another event's\n"
	"\t    already-attached hist trigger.  The syntax is analogous to\n"
	"\t    the enable_event and disable_event triggers.\n\n"
	"\t    Hist trigger handlers and actions are executed whenever a\n"
	"\t    a histogram entry is added or updated.  They take the form:\n\n"
	"\t        <handler>.<action>\n\n"
	"\t    The available handlers are:\n\n"
	"\t        onmatch(matching.event)  - invoke on addition or update\n"
	"\t        onmax(var)               - invoke if var exceeds current max\n"
	"\t        onchange(var)            - invoke action if var changes\n\n"
	"\t    The available actions are:\n\n"
	"\t        trace(<synthetic_event>,param list)  - generate synthetic event\n"
	"\t        save(field,...)                      - save current event fields\n"
	"\t        snapshot()                           - snapshot the trace buffer\n\n"
	"  synthetic_events\t- Define, list and remove synthetic events\n"
	"\t  One definition per line; '!' before a name removes that event.\n"
	"\t     example: echo 'myevent u64 lat; char name[]' >> synthetic_events\n";

static int readme_show(struct trev_file *f, struct trev_buf *out)
{
	(void)f;
	return trev__buf_puts(out, readme_msg);
}

static const struct tfs_fops readme_fops = {
	.show = readme_show,
};

/* ------------------------------------------------------------------ */
/* set_event_pid, set_event_notrace_pid, tracing_cpumask                */

/* `echo x > file` starts from nothing; `>>` adds to what is there. */
static bool pids_truncate(struct trev_file *f)
{
	return tfs_writable(f) && (f->flags & O_TRUNC) && !(f->flags & O_APPEND);
}

static int event_pid_open(struct trev_file *f)
{
	if (pids_truncate(f))
		trev__event_pids_clear(f->loc.tr, false);
	return 0;
}

static int event_notrace_pid_open(struct trev_file *f)
{
	if (pids_truncate(f))
		trev__event_pids_clear(f->loc.tr, true);
	return 0;
}

static ssize_t event_pids_write(struct trev_file *f, bool notrace, const char *buf, size_t size)
{
	int pos = 0, ret = trev__event_pids_write(f->loc.tr, notrace, buf, size, &pos);
	char *cmd;

	if (!ret)
		return (ssize_t)size;
	cmd = strndup(buf, size);
	if (cmd)
		cmd[strcspn(cmd, "\n")] = '\0';
	trev__tracing_log_err(f->loc.tr, notrace ? "set_event_notrace_pid" : "set_event_pid",
			      cmd ? cmd : "", pos, "%s",
			      ret == -EINVAL ? "Invalid thread id" : "Out of memory");
	free(cmd);
	return ret;
}

static ssize_t event_pid_write(struct trev_file *f, const char *buf, size_t size)
{
	return event_pids_write(f, false, buf, size);
}

static ssize_t event_notrace_pid_write(struct trev_file *f, const char *buf, size_t size)
{
	return event_pids_write(f, true, buf, size);
}

static int event_pid_show(struct trev_file *f, struct trev_buf *out)
{
	return trev__event_pids_show(f->loc.tr, false, out);
}

static int event_notrace_pid_show(struct trev_file *f, struct trev_buf *out)
{
	return trev__event_pids_show(f->loc.tr, true, out);
}

static const struct tfs_fops set_event_pid_fops = {
	.open = event_pid_open,
	.show = event_pid_show,
	.write = event_pid_write,
};

static const struct tfs_fops set_event_notrace_pid_fops = {
	.open = event_notrace_pid_open,
	.show = event_notrace_pid_show,
	.write = event_notrace_pid_write,
};

static int cpumask_show(struct trev_file *f, struct trev_buf *out)
{
	return trev__cpumask_show(f->loc.tr, out);
}

static ssize_t cpumask_write(struct trev_file *f, const char *buf, size_t size)
{
	const char *why = "Invalid mask";
	int pos = 0, ret = trev__cpumask_write(f->loc.tr, buf, size, &pos, &why);
	char *cmd;

	if (ret != -EINVAL)
		return ret ? ret : (ssize_t)size;
	cmd = strndup(buf, size);
	if (cmd)
		cmd[strcspn(cmd, "\n")] = '\0';
	trev__tracing_log_err(f->loc.tr, "tracing_cpumask", cmd ? cmd : "", pos, "%s", why);
	free(cmd);
	return ret;
}

static const struct tfs_fops tracing_cpumask_fops = {
	.show = cpumask_show,
	.write = cpumask_write,
};

/* ------------------------------------------------------------------ */
/* The directory                                                        */

extern const struct tfs_fops trev__available_events_fops;
extern const struct tfs_fops trev__set_event_fops;
extern const struct tfs_fops trev__synthetic_events_fops;
extern const struct tfs_fops trev__dynamic_events_fops;
extern const struct tfs_fops trev__uprobe_events_fops;
extern const struct tfs_fops trev__kprobe_events_fops;
extern const struct tfs_fops trev__kprobe_profile_fops;
extern const struct tfs_fops trev__uprobe_profile_fops;
extern const struct tfs_fops trev__per_thread_stats_fops;
extern const struct tfs_fops trev__available_filter_functions_fops;
extern const struct tfs_fops trev__set_ftrace_filter_fops;
extern const struct tfs_fops trev__set_ftrace_notrace_fops;
extern const struct tfs_fops trev__set_ftrace_pid_fops;
extern const struct tfs_fops trev__set_ftrace_notrace_pid_fops;
extern const struct tfs_fops trev__function_profile_fops;
extern const struct tfs_dir trev__trace_stat_dir;
extern const struct tfs_fops trev__set_graph_function_fops;
extern const struct tfs_fops trev__set_graph_notrace_fops;
extern const struct tfs_fops trev__max_graph_depth_fops;
extern const struct tfs_fops trev__tracing_thresh_fops;
extern const struct tfs_fops trev__tracing_max_latency_fops;
extern const struct tfs_fops trev__stack_trace_fops;
extern const struct tfs_fops trev__stack_max_size_fops;
extern const struct tfs_fops trev__stack_trace_filter_fops;
extern const struct tfs_fops trev__stack_tracer_enabled_fops;

static const struct tfs_node instance_entries[] = {
	{ "README", 0440, &readme_fops, NULL, true },
	{ "available_events", 0440, &trev__available_events_fops, NULL, false },
	{ "available_filter_functions", 0440, &trev__available_filter_functions_fops, NULL, true },
	{ "available_tracers", 0440, &available_tracers_fops, NULL, false },
	{ "buffer_size_kb", 0640, &trev__buffer_size_fops, NULL, false },
	{ "buffer_total_size_kb", 0440, &buffer_total_fops, NULL, false },
	{ "current_tracer", 0640, &current_tracer_fops, NULL, false },
	{ "dynamic_events", 0640, &trev__dynamic_events_fops, NULL, true },
	{ "error_log", 0640, &error_log_fops, NULL, false },
	{ "events", 0750, NULL, &trev__events_dir, false },
	{ "function_profile_enabled", 0640, &trev__function_profile_fops, NULL, true },
	{ "instances", 0750, NULL, &trev__instances_dir, true },
	{ "kprobe_events", 0640, &trev__kprobe_events_fops, NULL, true },
	{ "kprobe_profile", 0440, &trev__kprobe_profile_fops, NULL, true },
	{ "max_graph_depth", 0640, &trev__max_graph_depth_fops, NULL, true },
	{ "options", 0750, NULL, &trev__options_dir, false },
	{ "per_cpu", 0750, NULL, &trev__per_cpu_dir, false },
	{ "per_thread_stats", 0440, &trev__per_thread_stats_fops, NULL, false },
	{ "printk_formats", 0440, &printk_formats_fops, NULL, true },
	{ "saved_cmdlines", 0440, &cmdlines_fops, NULL, true },
	{ "set_event", 0640, &trev__set_event_fops, NULL, false },
	{ "set_event_notrace_pid", 0640, &set_event_notrace_pid_fops, NULL, false },
	{ "set_event_pid", 0640, &set_event_pid_fops, NULL, false },
	{ "set_ftrace_filter", 0640, &trev__set_ftrace_filter_fops, NULL, false },
	{ "set_ftrace_notrace", 0640, &trev__set_ftrace_notrace_fops, NULL, false },
	{ "set_ftrace_notrace_pid", 0640, &trev__set_ftrace_notrace_pid_fops, NULL, false },
	{ "set_ftrace_pid", 0640, &trev__set_ftrace_pid_fops, NULL, false },
	{ "set_graph_function", 0640, &trev__set_graph_function_fops, NULL, true },
	{ "set_graph_notrace", 0640, &trev__set_graph_notrace_fops, NULL, true },
	{ "snapshot", 0640, &snapshot_fops, NULL, false },
	{ "stack_max_size", 0640, &trev__stack_max_size_fops, NULL, true },
	{ "stack_trace", 0440, &trev__stack_trace_fops, NULL, true },
	{ "stack_trace_filter", 0640, &trev__stack_trace_filter_fops, NULL, true },
	{ "stack_tracer_enabled", 0640, &trev__stack_tracer_enabled_fops, NULL, true },
	{ "synthetic_events", 0640, &trev__synthetic_events_fops, NULL, true },
	{ "trace", 0640, &trev__trace_fops, NULL, false },
	{ "trace_clock", 0640, &clock_fops, NULL, false },
	{ "trace_marker", 0220, &marker_fops, NULL, false },
	{ "trace_marker_raw", 0220, &marker_raw_fops, NULL, false },
	{ "trace_options", 0640, &trace_options_fops, NULL, false },
	{ "trace_pipe", 0440, &trev__trace_pipe_fops, NULL, false },
	{ "trace_stat", 0750, NULL, &trev__trace_stat_dir, true },
	{ "tracing_cpumask", 0640, &tracing_cpumask_fops, NULL, false },
	{ "tracing_max_latency", 0640, &trev__tracing_max_latency_fops, NULL, true },
	{ "tracing_on", 0640, &tracing_on_fops, NULL, false },
	{ "tracing_thresh", 0640, &trev__tracing_thresh_fops, NULL, true },
	{ "uprobe_events", 0640, &trev__uprobe_events_fops, NULL, true },
	{ "uprobe_profile", 0440, &trev__uprobe_profile_fops, NULL, true },
	{ NULL, 0, NULL, NULL, false },
};

const struct tfs_dir trev__instance_dir = {
	.entries = instance_entries,
};
