/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The text of `trace` and `trace_pipe` (the kernel's trace_output.c and the
 * printing half of trace.c): the header, the line prefix
 * ("TASK-PID [CPU] FLAGS TIMESTAMP: "), each event's own text, lost-event
 * lines, and the raw/hex/bin variants.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/log.h"
#include "events/events_internal.h"
#include "events/tracer.h"
#include "output/line_prefix.h"
#include "output/output.h"
#include "sym/symbols.h"

/* ------------------------------------------------------------------ */
/* Task names                                                           */

/* The process whose threads these are: 0, this one; else a parent that died (crash.c). */
static pid_t comm_pid;

void trev__output_crash_child(pid_t pid)
{
	comm_pid = pid;
	trev__sym_crash_child();
}

/*
 * Buffer id -> thread name. A live thread's name is read now (it may have
 * been set after its first event); an exited thread's is the one its
 * buffer recorded.
 */
struct comm_cache {
	struct trev_rb *rb;
	unsigned int len;
	char (*comm)[17];	/* comm[id][0] == 0: not looked up yet */
};

static const char *comm_lookup(struct comm_cache *cc, unsigned int id, pid_t tid)
{
	char path[64], *c;
	int alive;

	if (id >= cc->len) {
		unsigned int len = cc->len ? cc->len : 64;
		char (*n)[17];

		while (len <= id)
			len *= 2;
		n = realloc(cc->comm, len * sizeof(*n));
		if (!n)
			return "<...>";
		memset(n + cc->len, 0, (len - cc->len) * sizeof(*n));
		cc->comm = n;
		cc->len = len;
	}
	c = cc->comm[id];
	if (c[0])
		return c;
	alive = trev_rb_buffer_comm(cc->rb, id, c);
	if (alive > 0) {
		int fd;
		ssize_t n;

		if (comm_pid)
			snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)comm_pid, (int)tid);
		else
			snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)tid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			n = read(fd, c, 16);
			if (n > 0) {
				c[n] = '\0';
				c[strcspn(c, "\n")] = '\0';
			}
			close(fd);
		}
	}
	if (!c[0])
		strcpy(c, "<...>");
	return c;
}

/* ------------------------------------------------------------------ */
/* One line                                                             */

int trev_event_output_prep(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	trev_seq_init(&iter->tmp_seq);
	trev_seq_puts(&iter->seq, call->name);
	trev_seq_putmem(&iter->seq, ": ", 2);
	return 0;
}

/*
 * Every __data_loc and __rel_loc of the record must lie inside it; strings
 * must end in it. A __rel_loc counts from the end of its own word.
 */
static bool out_record_sane(struct trev_event_call *call, const struct trev_trace_iter *iter)
{
	const struct trev_event_rt *rt = trev__event_rt(call);
	const unsigned char *rec = (const unsigned char *)iter->ent;

	if (iter->ent_size < call->klass->entry_size)
		return false;
	if (!rt->nr_data_locs)
		return true;
	for (int i = 0; i < rt->nr_fields; i++) {
		const struct trev_field *f = &rt->fields[i];
		uint32_t loc, off, len;

		bool rel = strncmp(f->type, "__rel_loc", 9) == 0;

		if (!rel && strncmp(f->type, "__data_loc", 10) != 0)
			continue;
		memcpy(&loc, rec + f->offset, sizeof(loc));
		off = (loc & 0xffff) + (rel ? (uint32_t)f->offset + 4 : 0);
		len = loc >> 16;
		if (off + len > iter->ent_size)
			return false;
		if ((strcmp(f->type, "__data_loc char[]") == 0 ||
		     strcmp(f->type, "__rel_loc char[]") == 0) && len && rec[off + len - 1] != '\0')
			return false;
	}
	return true;
}

/* trace_print_context(): "TASK-PID [CPU] FLAGS TIMESTAMP: " (line_prefix.h). */
static void out_context(struct trev_trace_iter *iter, const char *comm)
{
	const struct trev_entry *ent = iter->ent;
	unsigned int opts = iter->trace_flags;
	struct trev_line_prefix lp = {
		.comm = comm,
		.pid = ent->pid,
		.cpu = (unsigned int)iter->cpu,
		.flags = ent->flags,
		.preempt = ent->preempt_count,
		.ts = iter->ts,
		.show = ((opts & TREV_ITER_RECORD_TGID) ? TREV_PREFIX_TGID : 0) |
			((opts & TREV_ITER_IRQ_INFO) ? TREV_PREFIX_LAT : 0) |
			((opts & TREV_ITER_TIME_IN_NS) ? 0 : TREV_PREFIX_COUNTER),
	};
	char buf[TREV_LINE_PREFIX_MAX];

	if (lp.show & TREV_PREFIX_TGID)
		lp.tgid = getpid();
	trev_seq_putmem(&iter->seq, buf, trev__line_prefix(buf, &lp));
}

void trev__print_nop(struct trev_trace_iter *iter)
{
	trev_seq_printf(&iter->seq, "type: %d\n", iter->ent->type);
}

void trev__seq_hex_field(struct trev_seq *s, const void *v, size_t size)
{
	const unsigned char *b = v;

	for (size_t i = size; i-- > 0;)
		trev_seq_printf(s, "%02x", b[i]);
	trev_seq_putc(s, ' ');
}

/* ------------------------------------------------------------------ */
/* The printers of record types (the kernel's register_trace_event())   */

/* By type: the built-in events' ids are small (TREV_TYPE_*). */
#define OUT_PRINTERS	64
static const struct trev_event_printer *out_printers[OUT_PRINTERS];

int trev__event_printer_register(const struct trev_event_printer *p)
{
	const struct trev_event_printer *none = NULL;

	if (p->type >= OUT_PRINTERS)
		return -EINVAL;
	if (!__atomic_compare_exchange_n(&out_printers[p->type], &none, p, false,
					 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return none == p ? 0 : -EEXIST;
	return 0;
}

static const struct trev_event_printer *out_printer(const struct trev_event_call *call)
{
	if (!call || call->id >= OUT_PRINTERS)
		return NULL;
	return __atomic_load_n(&out_printers[call->id], __ATOMIC_ACQUIRE);
}

/*
 * One event's line into iter->seq, with the TREV_ITER_* options @flags;
 * @rd: the reading of a tracer with lines of its own (NULL: the usual lines).
 */
static void out_line(struct trev_trace_iter *iter, const struct trev_rb_event *ev,
		     const char *comm, unsigned long flags, const struct trev_tracer_read *rd)
{
	const struct trev_event_printer *printer;
	struct trev_seq *s = &iter->seq;
	struct trev_event_call *call;

	trev_seq_init(s);
	iter->ent = (struct trev_entry *)(uintptr_t)ev->data;
	iter->ent_size = ev->len;
	iter->cpu = ev->cpu;
	iter->ts = ev->ts;
	iter->lost = ev->lost;
	iter->buffer = ev->buffer;
	iter->trace_flags = flags;
	if (ev->lost)
		trev_seq_printf(s, "CPU:%d [LOST %llu EVENTS]\n", ev->cpu,
				(unsigned long long)ev->lost);
	if (ev->len < sizeof(struct trev_entry)) {
		trev_seq_printf(s, "[short record: %u bytes]\n", ev->len);
		return;
	}
	call = trev__event_by_id(iter->ent->type);
	if (call && !out_record_sane(call, iter)) {
		if (!(flags & (TREV_ITER_RAW | TREV_ITER_HEX | TREV_ITER_BIN)) &&
		    (flags & TREV_ITER_CONTEXT_INFO))
			out_context(iter, comm);
		trev_seq_printf(s, "[corrupt record of %s:%s]\n", call->klass->system, call->name);
		goto out_unlock;
	}
	/* The kernel's tracer print_line(): before raw, hex and bin, which it ignores. */
	if (rd && call && rd->tracer->print_line(rd, iter, call, comm))
		goto out_unlock;
	printer = out_printer(call);
	if (flags & TREV_ITER_RAW) {
		if (flags & TREV_ITER_CONTEXT_INFO)
			trev_seq_printf(s, "%d %d %llu ", iter->ent->pid, iter->cpu,
					(unsigned long long)iter->ts);
		if (!call)
			trev_seq_printf(s, "%d ?\n", iter->ent->type);
		else if (printer && printer->raw)
			printer->raw(iter, call);
		else
			trev__print_nop(iter);
	} else if (flags & (TREV_ITER_HEX | TREV_ITER_BIN)) {
		int pid = iter->ent->pid, cpu = iter->cpu;
		unsigned long long ts = iter->ts;

		if (flags & TREV_ITER_CONTEXT_INFO) {
			if (flags & TREV_ITER_HEX) {
				trev__seq_hex_field(s, &pid, sizeof(pid));
				trev__seq_hex_field(s, &cpu, sizeof(cpu));
				trev__seq_hex_field(s, &ts, sizeof(ts));
			} else {
				trev_seq_putmem(s, &pid, sizeof(pid));
				trev_seq_putmem(s, &cpu, sizeof(cpu));
				trev_seq_putmem(s, &ts, sizeof(ts));
			}
		}
		if (printer && printer->hex_bin)
			printer->hex_bin(iter, !(flags & TREV_ITER_HEX));
		else if (call)
			trev__print_nop(iter);
		if (flags & TREV_ITER_HEX)
			trev_seq_putc(s, '\n');
	} else {
		if (flags & TREV_ITER_CONTEXT_INFO)
			out_context(iter, comm);
		if (!call) {
			trev_seq_printf(s, "Unknown type %d\n", iter->ent->type);
		} else if (call->output(iter, call) < 0 && !s->full) {
			trev_seq_printf(s, "[malformed %s:%s record]\n", call->klass->system,
					call->name);
		}
	}
out_unlock:
	/* A line that did not fit still ends its line. */
	if (s->full && s->len > 0 && s->buffer[s->len - 1] != '\n') {
		s->buffer[s->len - 1] = '\n';
	}
}

/* The options a line of @rb is printed with: @flags, and whether its clock counts ns. */
static unsigned long out_flags(unsigned long flags, struct trev_rb *rb)
{
	if (trev_rb_clock(rb) != TREV_CLOCK_COUNTER)
		flags |= TREV_ITER_TIME_IN_NS;
	return flags;
}

void trev__print_line(struct trev_trace_array *tr, struct trev_trace_iter *iter,
		      const struct trev_rb_event *ev, const char *comm,
		      const struct trev_tracer_read *rd)
{
	/* The options as they are now, as the kernel's trace_pipe reads them: an
	 * option written meanwhile (tfs_lock) applies from the next line. */
	unsigned long flags = __atomic_load_n(&tr->trace_flags, __ATOMIC_RELAXED);

	out_line(iter, ev, comm, out_flags(flags, tr->rb),
		 rd && rd->state && trev__tracer_of(tr) == rd->tracer ? rd : NULL);
}

/* ------------------------------------------------------------------ */
/* The trace file                                                       */

/*
 * The trace text as a stream, the kernel's seq_file over its trace
 * iterator: a position in the buffer (a trev_rb_iter, which shows what was
 * unread when it started while writers go on), the header on the first
 * call, then each call formats only the lines it was asked for.
 */
struct trev_trace_text {
	struct trev_trace_array *tr;
	struct trev_rb *rb;		/* the buffer shown; NULL: a freed snapshot */
	int cpu;			/* its CPU view, -1 for all */
	unsigned int what;		/* TREV_PRINT_* */
	unsigned long flags;		/* tr's TREV_ITER_* options at the start */
	bool header_done;		/* the header went out */
	bool done;			/* the last line went out, or @err came */
	int err;			/* what the iterator failed with, then returned */
	struct trev_rb_iter *it;	/* the position in @rb; NULL without @rb */
	struct trev_trace_iter *iter;	/* the line being formatted */
	struct comm_cache cc;		/* names of the threads met so far */
	const struct trev_tracer *tracer; /* tr's tracer at the start */
	void *state;			/* its ->open()'s; NULL: the usual lines */
};

/* The trace text's records for a tracer that reads ahead: its iterator's. */
static int out_iter_src(void *arg, struct trev_rb_event *ev)
{
	return trev_rb_iter_next(arg, ev);
}

/* The kernel's print_snapshot_help(), for a snapshot file with nothing in it. */
static void out_snapshot_help(bool allocated, struct trev_buf *out)
{
	trev__buf_puts(out, allocated ? "#\n# * Snapshot is allocated *\n#\n" :
			    "#\n# * Snapshot is freed *\n#\n");
	trev__buf_puts(out, "# Snapshot commands:\n"
		       "# echo 0 > snapshot : Clears and frees snapshot buffer\n"
		       "# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.\n"
		       "#                      Takes a snapshot of the main buffer.\n"
		       "# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)\n"
		       "#                      (Doesn't have to be '2' works with any number that\n"
		       "#                       is not a '0' or '1')\n");
}

/* The header, with the entries of the buffer (the CPU's, for a per-CPU view) now. */
static void out_header(const struct trev_trace_text *tt, struct trev_buf *out)
{
	unsigned long long entries = 0, written = 0, orphans = 0;
	struct trev_rb *rb = tt->rb;
	unsigned int ids[1024];
	int n = rb && tt->cpu < 0 ? trev_rb_buffers(rb, ids, 1024) : 0;
	struct trev_rb_stats cst;

	if (rb && tt->cpu >= 0 && trev_rb_cpu_stats(rb, tt->cpu, &cst) == 0) {
		entries = cst.entries;
		written = cst.written;
	}
	for (int i = 0; i < n && i < 1024; i++) {
		struct trev_rb_stats st;

		if (trev_rb_buffer_stats(rb, ids[i], &st) == 0) {
			entries += st.entries;
			written += st.written;
		}
	}
	/* Buffers recycled under the memory cap took their counts with them;
	 * what no buffer carries any more is counted apart. */
	if (rb && tt->cpu < 0) {
		written += trev_rb_recycled_lost(rb);
		orphans = trev_rb_orphan_lost(rb);
	}
	trev__buf_printf(out, "# tracer: %s\n#\n", tt->tracer->name);
	if ((tt->what & TREV_PRINT_SNAPSHOT) && entries == 0) {
		out_snapshot_help(rb != NULL, out);
		return;
	}
	if (tt->tracer->print_header) {
		/* The tracer's print_header(): its columns instead of the default header. */
		tt->tracer->print_header(tt->flags, entries == 0, out);
		return;
	}
	trev__buf_printf(out, "# entries-in-buffer/entries-written: %llu/%llu   #P:%ld\n",
			 entries, written, sysconf(_SC_NPROCESSORS_ONLN));
	/* Not the kernel's: losses no event reports (docs/ring-buffer.md, "Exited threads"). */
	if (orphans)
		trev__buf_printf(out, "# lost events no event reports: %llu "
				 "(no buffer, recycled buffers, last writes of exited threads)\n",
				 orphans);
	trev__buf_puts(out, "#\n");
	if (!(tt->flags & TREV_ITER_CONTEXT_INFO))
		return;
	if (tt->flags & TREV_ITER_IRQ_INFO) {
		trev__buf_puts(out, "#                              _-----=> irqs-off\n"
			       "#                             / _----=> need-resched\n"
			       "#                            | / _---=> hardirq/softirq\n"
			       "#                            || / _--=> preempt-depth\n"
			       "#                            ||| /     delay\n"
			       "#           TASK-PID   CPU#  ||||    TIMESTAMP  FUNCTION\n"
			       "#              | |       |   ||||       |         |\n");
	} else {
		trev__buf_puts(out, "#           TASK-PID   CPU#   TIMESTAMP  FUNCTION\n"
			       "#              | |       |       |         |\n");
	}
}

int trev__trace_text_start(struct trev_trace_array *tr, struct trev_rb *rb, int cpu,
			   unsigned int what, struct trev_trace_text **out)
{
	struct trev_trace_text *tt = calloc(1, sizeof(*tt));

	if (!tt)
		return -ENOMEM;
	tt->tr = tr;
	tt->rb = rb;
	tt->cpu = cpu;
	tt->what = what;
	tt->flags = tr->trace_flags;
	tt->tracer = trev__tracer_of(tr);
	tt->cc.rb = rb;
	if (rb) {
		tt->iter = malloc(sizeof(*tt->iter));
		tt->it = tt->iter ? trev_rb_iter_start_cpu(rb, cpu) : NULL;
		if (tt->it && tt->tracer->open) {
			tt->state = tt->tracer->open();
			if (!tt->state) {
				trev_rb_iter_finish(tt->it);
				tt->it = NULL;
			}
		}
		if (!tt->it) {
			trev__trace_text_finish(tt);
			return -ENOMEM;
		}
	}
	*out = tt;
	return 0;
}

int trev__trace_text_next(struct trev_trace_text *tt, struct trev_buf *out, size_t want)
{
	size_t start = out->len;
	unsigned long flags;
	struct trev_rb_event ev;
	struct trev_tracer_read rd = { tt->tracer, tt->state, out_iter_src, tt->it };
	int ret = 0;

	if (tt->done)
		return tt->err;
	if (!tt->header_done) {
		tt->header_done = true;
		if (!(tt->flags & (TREV_ITER_RAW | TREV_ITER_HEX | TREV_ITER_BIN)))
			out_header(tt, out);
	}
	if (!tt->rb) {
		tt->done = true;
		return out->err ? out->err : out->len > start;
	}
	flags = out_flags(tt->flags, tt->rb);
	/* The registry lock is held in batches: events may come and go between them. */
	trev__events_read_lock();
	for (unsigned int n = 1; out->len - start < want && !out->err; n++) {
		ret = tt->state ? tt->tracer->read(&rd, &ev) : trev_rb_iter_next(tt->it, &ev);
		if (ret <= 0) {
			tt->done = true;
			tt->err = ret;
			break;
		}
		out_line(tt->iter, &ev, comm_lookup(&tt->cc, ev.buffer, ev.tid), flags,
			 tt->state ? &rd : NULL);
		trev__buf_append(out, tt->iter->seq.buffer, tt->iter->seq.len);
		if (n % 256 == 0) {
			trev__events_read_unlock();
			trev__events_read_lock();
		}
	}
	trev__events_read_unlock();
	if (out->err)
		return out->err;
	/* An error after some lines: the lines now, the error at the next call. */
	if (ret < 0 && out->len == start)
		return ret;
	return out->len > start;
}

void trev__trace_text_finish(struct trev_trace_text *tt)
{
	if (!tt)
		return;
	trev_rb_iter_finish(tt->it);
	if (tt->state)
		tt->tracer->close(tt->state);
	free(tt->cc.comm);
	free(tt->iter);
	free(tt);
}

int trev__trace_print(struct trev_trace_array *tr, FILE *out)
{
	int ret;

	pthread_rwlock_rdlock(&tr->buf_lock);
	ret = trev__trace_print_rb(tr, tr->rb, -1, 0, out);
	pthread_rwlock_unlock(&tr->buf_lock);
	return ret;
}

/*
 * The text goes to the FILE in pieces of about this many bytes: one fwrite
 * per line cost as much as the line's prefix.
 */
#define OUT_CHUNK_SIZE	(64 * 1024)

int trev__trace_print_rb(struct trev_trace_array *tr, struct trev_rb *rb, int cpu,
			 unsigned int what, FILE *out)
{
	struct trev_buf chunk = TREV_BUF_INIT;
	struct trev_trace_text *tt;
	int ret = trev__trace_text_start(tr, rb, cpu, what, &tt);

	if (ret)
		return ret;
	while ((ret = trev__trace_text_next(tt, &chunk, OUT_CHUNK_SIZE)) > 0) {
		fwrite(chunk.data, 1, chunk.len, out);
		trev__buf_reset(&chunk);
	}
	trev__trace_text_finish(tt);
	trev__buf_free(&chunk);
	return ret;
}
