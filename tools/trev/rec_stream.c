/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev record --stream: every page trev record reads is also walked here,
 * its records kept until the end of the recorder's round, then merged by
 * time across CPUs and processes and printed as trev report prints them.
 * Each process has its own libtraceevent handle (its events, ids and
 * formats are its own), its own connection for its formats and thread
 * names, and its own symbol tables for the function tracer's addresses.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <trev/ring_buffer.h>

#include "base/buf.h"
#include "output/line_prefix.h"
#include "ring_buffer/rb_page.h"
#include "dat_buffers.h"
#include "pages.h"
#include "rec_stream.h"
#include "remote.h"
#include "remote_source.h"
#include "trev.h"

/* One record (or a page's lost-event line) waiting for the flush. */
struct strm_item {
	uint64_t ts;			/* the record's time, the page's for a lost line */
	uint64_t seq;			/* the order it came in: ties keep it */
	struct trev_stream_proc *sp;
	int cpu;
	long long lost;			/* a lost line: the count, -1 unknown; 0: a record */
	size_t off;			/* its payload in the stream's data */
	uint32_t len;
};

struct trev_stream_proc {
	struct trev_stream *s;
	struct trev_stream_proc *next;	/* the stream's list */
	pid_t pid;
	char name[48];
	bool prefixed;
	struct trev_remote *r;		/* our own connection, NULL once the process ended */
	struct trev_remote_source rs;	/* read_file and list_dir over @r; the symbols */
	struct trev_rb *shm;		/* the recorder's mapping of its buffer, or NULL */
	struct tep_handle *tep;
	int common_end;			/* bytes a record needs for the common fields the
					 * handle reads (type, flags, pid); INT_MAX: no format */
	pid_t *tried;			/* threads whose names were looked for */
	size_t nr_tried, cap_tried;
	int *ids_tried;			/* unknown event ids the formats were read again for */
	size_t nr_ids_tried;
};

struct trev_stream {
	int fd;
	struct trev_stream_proc *procs;
	struct strm_item *items;
	size_t nr_items, cap_items;
	uint64_t seq;
	struct trev_buf data;		/* the payloads of @items */
	struct trev_buf out;		/* text not written yet, from @head */
	size_t head;
	struct trace_seq seq_text;
	struct trev_stream_stats st;
};

/* ------------------------------------------------------------------ */
/* A process's formats and names                                        */

/* events/SYS/EV/format into @sp's handle, unless it has the event. */
static void strm_parse_format(struct trev_stream_proc *sp, const char *sys, size_t sys_len,
			      const char *ev, size_t ev_len)
{
	char path[600], sysname[256], evname[256], *text = NULL;
	ssize_t n;

	if (sys_len >= sizeof(sysname) || ev_len >= sizeof(evname))
		return;
	memcpy(sysname, sys, sys_len);
	sysname[sys_len] = '\0';
	memcpy(evname, ev, ev_len);
	evname[ev_len] = '\0';
	if (tep_find_event_by_name(sp->tep, sysname, evname))
		return;
	snprintf(path, sizeof(path), "events/%s/%s/format", sysname, evname);
	n = sp->rs.src.read_file(&sp->rs.src, path, &text);
	if (n > 0)
		tep_parse_event(sp->tep, text, (unsigned long)n, sysname);
	free(text);
}

/*
 * The process's formats place the common fields libtraceevent reads in
 * every record (type, flags, pid: from the first event by id, found when
 * first needed, which formats read later may change): a record shorter
 * than their end in any event is not handed to it. No event: none is.
 */
static void strm_common_end(struct trev_stream_proc *sp)
{
	int n = tep_get_events_count(sp->tep);

	sp->common_end = n > 0 ? 1 : INT_MAX;
	for (int i = 0; i < n; i++) {
		struct tep_event *ev = tep_get_event(sp->tep, i);

		for (struct tep_format_field *f = ev ? ev->format.common_fields : NULL; f;
		     f = f->next) {
			if (f->offset < 0 || f->size < 0 || f->offset > INT_MAX - f->size) {
				sp->common_end = INT_MAX;
				return;
			}
			if (f->offset + f->size > sp->common_end)
				sp->common_end = f->offset + f->size;
		}
	}
}

/*
 * The formats of every event of the process that @sp's handle lacks:
 * events/ftrace/ (available_events leaves that system out) and
 * available_events; and the trace_printk formats. A format that does not
 * parse leaves its records printed as of an unknown type.
 */
static void strm_read_formats(struct trev_stream_proc *sp)
{
	const struct trev_dat_source *src = &sp->rs.src;
	char *text = NULL, *line, *next;

	if (!sp->r)
		return;
	if (src->list_dir(src, "events/ftrace", &text) >= 0) {
		for (line = text; *line; line = next) {
			size_t len = strcspn(line, "\n");

			next = line[len] ? line + len + 1 : line + len;
			if (len && strncmp(line, "enable", len) && strncmp(line, "filter", len))
				strm_parse_format(sp, "ftrace", 6, line, len);
		}
	}
	free(text);
	text = NULL;
	if (src->read_file(src, "available_events", &text) >= 0) {
		for (line = text; *line; line = next) {
			size_t len = strcspn(line, "\n");
			char *colon = memchr(line, ':', len);

			next = line[len] ? line + len + 1 : line + len;
			if (colon && colon > line && colon + 1 < line + len)
				strm_parse_format(sp, line, (size_t)(colon - line), colon + 1,
						  (size_t)(line + len - colon - 1));
		}
	}
	free(text);
	text = NULL;
	if (src->read_file(src, "printk_formats", &text) > 0)
		tep_parse_printk_formats(sp->tep, text);
	free(text);
	strm_common_end(sp);
}

/* "TID COMM" lines into @sp's handle (saved_cmdlines' text). */
static void strm_add_comms(struct trev_stream_proc *sp, char *text)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end;
		long tid = strtol(line, &end, 10);

		if (end == line || *end != ' ' || tid <= 0 || tid > INT_MAX || !end[1])
			continue;
		tep_override_comm(sp->tep, end + 1, (int)tid);
	}
}

/*
 * The thread names: the process's saved_cmdlines while it runs, else the
 * names its mapped buffer keeps for every thread that wrote.
 */
static void strm_read_comms(struct trev_stream_proc *sp)
{
	char *text = NULL;

	if ((!sp->r || sp->rs.src.read_file(&sp->rs.src, "saved_cmdlines", &text) < 0) &&
	    !(sp->shm && trev_mapped_cmdlines(sp->shm, &text) >= 0))
		text = NULL;
	if (text)
		strm_add_comms(sp, text);
	free(text);
}

/* A thread's name, looked for once when it is first seen without one. */
static void strm_learn_pid(struct trev_stream_proc *sp, int pid)
{
	/* Nowhere to look (trev_stream_proc_add_formats()): nothing to remember. */
	if (pid <= 0 || (!sp->r && !sp->shm) || tep_is_pid_registered(sp->tep, pid))
		return;
	for (size_t i = 0; i < sp->nr_tried; i++)
		if (sp->tried[i] == pid)
			return;
	if (sp->nr_tried == sp->cap_tried) {
		size_t cap = sp->cap_tried ? sp->cap_tried * 2 : 16;
		pid_t *grown = realloc(sp->tried, cap * sizeof(*grown));

		if (!grown)
			return;
		sp->tried = grown;
		sp->cap_tried = cap;
	}
	sp->tried[sp->nr_tried++] = pid;
	strm_read_comms(sp);
}

/* An event registered since the formats were read (a library loaded): once per id. */
static void strm_learn_id(struct trev_stream_proc *sp, int id)
{
	int *grown;

	if (id < 0 || !sp->r || tep_find_event(sp->tep, id))
		return;
	for (size_t i = 0; i < sp->nr_ids_tried; i++)
		if (sp->ids_tried[i] == id)
			return;
	grown = realloc(sp->ids_tried, (sp->nr_ids_tried + 1) * sizeof(*grown));
	if (!grown)
		return;
	sp->ids_tried = grown;
	sp->ids_tried[sp->nr_ids_tried++] = id;
	strm_read_formats(sp);
}

/* %ps and its kin: the process's own function names (libtraceevent's resolver). */
static char *strm_resolve(void *priv, unsigned long long *addrp, char **modp)
{
	struct trev_stream_proc *sp = priv;
	const char *name;
	uint64_t start;

	*modp = NULL;
	/* No process to name them from (trev_stream_proc_add_formats()): hex. */
	if (!sp->rs.syms.pid ||
	    trev_remote_symbols_lookup(&sp->rs.syms, *addrp, &name, &start) < 0)
		return NULL;
	*addrp = start;
	return (char *)name;
}

/* The CPUs of the process: per_cpu/cpuN/ that exist, as the trace.dat writer counts them. */
static int strm_count_cpus(struct trev_stream_proc *sp)
{
	int n;

	for (n = 0; n < TREV_REMOTE_MAX_CPUS; n++) {
		char path[64], *text = NULL;
		ssize_t ret;

		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", n);
		ret = sp->rs.src.read_file(&sp->rs.src, path, &text);
		free(text);
		if (ret == -ENOENT)
			break;
		if (ret < 0)
			return (int)ret;
	}
	return n;
}

static void strm_proc_free(struct trev_stream_proc *sp)
{
	trev_stream_proc_end(sp);
	trev_remote_symbols_free(&sp->rs.syms);
	if (sp->tep)
		tep_free(sp->tep);
	free(sp->tried);
	free(sp->ids_tried);
	free(sp);
}

/* A process's record, its handle set up for this machine's records; no connection yet. */
static struct trev_stream_proc *strm_proc_new(struct trev_stream *s, pid_t pid, const char *name,
					      bool prefixed)
{
	struct trev_stream_proc *sp = calloc(1, sizeof(*sp));
	enum tep_endian endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN
									: TEP_LITTLE_ENDIAN;

	if (!sp)
		return NULL;
	sp->tep = tep_alloc();
	if (!sp->tep) {
		free(sp);
		return NULL;
	}
	sp->s = s;
	sp->pid = pid;
	sp->prefixed = prefixed;
	sp->common_end = INT_MAX;
	sp->rs.syms.rootfd = -1;	/* none yet: freeing closes nothing */
	snprintf(sp->name, sizeof(sp->name), "%s", name);
	tep_set_long_size(sp->tep, (int)sizeof(long));
	tep_set_page_size(sp->tep, TREV_RB_PAGE_SIZE);
	tep_set_file_bigendian(sp->tep, endian);
	tep_set_local_bigendian(sp->tep, endian);
	tep_set_function_resolver(sp->tep, strm_resolve, sp);
	return sp;
}

/* Put @sp in @s's list: freed with it. */
static void strm_proc_link(struct trev_stream *s, struct trev_stream_proc *sp)
{
	sp->next = s->procs;
	s->procs = sp;
}

struct trev_stream_proc *trev_stream_proc_add(struct trev_stream *s, pid_t pid, const char *name,
					      bool prefixed, struct trev_rb *shm, int *nr_cpus)
{
	struct trev_stream_proc *sp = strm_proc_new(s, pid, name, prefixed);
	char why[512] = "";
	char *page = NULL;
	ssize_t n;
	int ret;

	if (!sp) {
		trev_err("--stream: process %d: %s", (int)pid, strerror(ENOMEM));
		return NULL;
	}
	sp->shm = shm;
	ret = trev_remote_connect(pid, &sp->r, why, sizeof(why));
	if (ret < 0) {
		trev_err("--stream: process %d: %s", (int)pid, why[0] ? why : strerror(-ret));
		sp->r = NULL;
		goto out_free;
	}
	trev_remote_source_init(&sp->rs, sp->r, pid);
	n = sp->rs.src.read_file(&sp->rs.src, "events/header_page", &page);
	if (n > 0)
		tep_parse_header_page(sp->tep, page, (unsigned long)n, (int)sizeof(long));
	free(page);
	*nr_cpus = strm_count_cpus(sp);
	if (*nr_cpus <= 0) {
		trev_err("--stream: process %d: its CPUs cannot be read (%s)", (int)pid,
			 *nr_cpus ? strerror(-*nr_cpus) : "none");
		goto out_free;
	}
	strm_read_formats(sp);
	strm_read_comms(sp);
	strm_proc_link(s, sp);
	return sp;
out_free:
	strm_proc_free(sp);
	return NULL;
}

struct trev_stream_proc *trev_stream_proc_add_formats(struct trev_stream *s, const char *name,
						      bool prefixed, const char *const *systems,
						      const char *const *formats, size_t nr)
{
	struct trev_stream_proc *sp = strm_proc_new(s, 0, name, prefixed);

	if (!sp)
		return NULL;
	trev_remote_symbols_init(&sp->rs.syms, 0);
	for (size_t i = 0; i < nr; i++)
		tep_parse_event(sp->tep, formats[i], strlen(formats[i]), systems[i]);
	strm_common_end(sp);
	strm_proc_link(s, sp);
	return sp;
}

void trev_stream_proc_end(struct trev_stream_proc *sp)
{
	if (!sp || !sp->r)
		return;
	/* No page was read through the source: its connection alone goes; the symbols stay. */
	trev_remote_close(sp->r);
	sp->r = sp->rs.r = NULL;
	sp->shm = NULL;
}

/* ------------------------------------------------------------------ */
/* Pages in                                                             */

static int strm_add_item(struct trev_stream *s, const struct strm_item *it)
{
	if (s->nr_items == s->cap_items) {
		size_t cap = s->cap_items ? s->cap_items * 2 : 1024;
		struct strm_item *grown = realloc(s->items, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		s->items = grown;
		s->cap_items = cap;
	}
	s->items[s->nr_items] = *it;
	s->items[s->nr_items++].seq = s->seq++;
	return 0;
}

int trev_stream_page(struct trev_stream_proc *sp, int cpu, const unsigned char *page)
{
	struct trev_stream *s = sp->s;
	struct rb_walk w;
	struct rb_rec r = { 0 };
	uint64_t lost;
	int ret;

	rb_walk_start(&w, page);
	/* The kernel says where a page lost events before its first record, as trev report. */
	if (rb_walk_lost(&w, &lost) || (w.commit & RB_MISSED_EVENTS)) {
		struct strm_item it = { .ts = w.ts, .sp = sp, .cpu = cpu,
					.lost = lost ? (long long)lost : -1 };

		if ((ret = strm_add_item(s, &it)) < 0)
			return ret;
	}
	rb_page_for_each(&w, page, &r) {
		struct strm_item it = { .ts = r.ts, .sp = sp, .cpu = cpu, .off = s->data.len };
		struct tep_record rec = { .ts = r.ts, .cpu = cpu };

		if (r.kind != RB_REC_DATA)
			continue;
		it.len = r.len;
		rec.size = (int)r.len;
		rec.data = (void *)r.payload;
		/* Names and formats while the process (or its mapped buffer) is there. */
		if ((int)r.len >= sp->common_end) {
			strm_learn_pid(sp, tep_data_pid(sp->tep, &rec));
			strm_learn_id(sp, tep_data_type(sp->tep, &rec));
		}
		if ((ret = trev__buf_append(&s->data, r.payload, r.len)) < 0 ||
		    (ret = strm_add_item(s, &it)) < 0)
			return ret;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Text out                                                             */

static int strm_item_cmp(const void *a, const void *b)
{
	const struct strm_item *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The event's text (TP_printk), without the newline a print record may end in. */
static const char *strm_info(struct trev_stream *s, struct tep_handle *tep, struct tep_record *rec)
{
	trace_seq_reset(&s->seq_text);
	tep_print_event(tep, &s->seq_text, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s->seq_text);
	while (s->seq_text.len && s->seq_text.buffer[s->seq_text.len - 1] == '\n')
		s->seq_text.buffer[--s->seq_text.len] = '\0';
	return s->seq_text.buffer;
}

/* One item's line, as trev report prints a record of a buffer (cmd-report.c). */
static void strm_format(struct trev_stream *s, const struct strm_item *it)
{
	struct trev_stream_proc *sp = it->sp;
	struct trev_buf *b = &s->out;
	struct tep_record rec = { .ts = it->ts, .size = (int)it->len, .cpu = it->cpu };
	struct trev_line_prefix lp;
	char prefix[TREV_LINE_PREFIX_MAX];
	struct tep_event *ev;
	int pid;

	if (sp->prefixed)
		trev__buf_printf(b, "%s: ", sp->name);
	if (it->lost) {
		if (it->lost > 0)
			trev__buf_printf(b, "CPU:%d [LOST %lld EVENTS]\n", it->cpu, it->lost);
		else
			trev__buf_printf(b, "CPU:%d [LOST EVENTS]\n", it->cpu);
		s->st.lost_lines++;
		return;
	}
	if ((int)it->len < sp->common_end) {
		trev__buf_printf(b, "CPU:%d [record of %u bytes, short of its common fields]\n",
				 it->cpu, it->len);
		s->st.lines++;
		return;
	}
	rec.data = s->data.data + it->off;	/* len > 0: some data was kept */
	ev = tep_find_event_by_record(sp->tep, &rec);
	pid = tep_data_pid(sp->tep, &rec);
	lp = (struct trev_line_prefix){
		.comm = tep_data_comm_from_pid(sp->tep, pid),
		.pid = pid,
		.cpu = (unsigned int)it->cpu,
		.flags = (unsigned int)tep_data_flags(sp->tep, &rec),
		.preempt = (unsigned int)tep_data_preempt_count(sp->tep, &rec),
		.ts = it->ts,
		.show = TREV_PREFIX_LAT,
	};
	trev__buf_append(b, prefix, trev__line_prefix(prefix, &lp));
	if (!ev)
		trev__buf_printf(b, "Unknown type %d\n", tep_data_type(sp->tep, &rec));
	else if (!trev_tep_record_sane(ev, &rec))
		trev__buf_printf(b, "[corrupt record of %s:%s]\n", ev->system, ev->name);
	else if (!strcmp(ev->system, "ftrace"))	/* printed without their name, as the kernel does */
		trev__buf_printf(b, "%s\n", strm_info(s, sp->tep, &rec));
	else
		trev__buf_printf(b, "%s: %s\n", ev->name, strm_info(s, sp->tep, &rec));
	s->st.lines++;
}

/* Lines in @len bytes of @text. */
static uint64_t strm_count_lines(const char *text, size_t len)
{
	uint64_t n = 0;

	for (const char *p = text; (p = memchr(p, '\n', len - (size_t)(p - text))); p++)
		n++;
	return n;
}

/* Give up the text not written (stdout's error @err, or 0 for a signal), counted. */
static void strm_drop_pending(struct trev_stream *s, int err)
{
	s->st.dropped += strm_count_lines(s->out.data + s->head, s->out.len - s->head);
	if (err && !s->st.out_err) {
		s->st.out_err = err;
		trev_err("--stream: stdout: %s; the events are no longer printed (counted in the "
			 "summary)", strerror(err));
	}
	trev__buf_reset(&s->out);
	s->head = 0;
}

/*
 * Write what stdout takes: each write after poll() said it has room, at
 * most PIPE_BUF bytes (a pipe with room takes that without blocking).
 * @wait: wait for room until fewer than @keep bytes are left.
 * Return: 0, or -EINTR when a signal interrupted the wait.
 */
static int strm_write(struct trev_stream *s, bool wait, size_t keep)
{
	while (s->head < s->out.len) {
		struct pollfd pf = { .fd = s->fd, .events = POLLOUT };
		size_t left = s->out.len - s->head;
		ssize_t n;
		int ready;

		if (s->st.out_err) {
			strm_drop_pending(s, 0);
			break;
		}
		ready = poll(&pf, 1, wait && left > keep ? -1 : 0);
		if (ready < 0 && errno == EINTR)
			return -EINTR;
		if (ready <= 0)
			break;
		n = write(s->fd, s->out.data + s->head, left < PIPE_BUF ? left : PIPE_BUF);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			strm_drop_pending(s, n < 0 ? errno : EIO);
			break;
		}
		s->head += (size_t)n;
	}
	if (s->head == s->out.len) {
		trev__buf_reset(&s->out);
		s->head = 0;
	} else if (s->head > s->out.len / 2) {
		memmove(s->out.data, s->out.data + s->head, s->out.len - s->head);
		s->out.len -= s->head;
		s->out.data[s->out.len] = '\0';
		s->head = 0;
	}
	return 0;
}

int trev_stream_flush(struct trev_stream *s, bool final)
{
	int ret;

	if (s->nr_items)
		qsort(s->items, s->nr_items, sizeof(*s->items), strm_item_cmp);
	for (size_t i = 0; i < s->nr_items; i++) {
		if (s->st.out_err) {
			s->st.unformatted += s->nr_items - i;
			break;
		}
		strm_format(s, &s->items[i]);
	}
	s->nr_items = 0;
	trev__buf_reset(&s->data);
	if (s->out.err) {
		/* Out of memory for the text: the lines of this round are lost, and said. */
		strm_drop_pending(s, ENOMEM);
	}
	ret = strm_write(s, true, final ? 0 : TREV_STREAM_MAX_PENDING);
	if (ret == -EINTR && final)
		strm_drop_pending(s, 0);
	return ret;
}

void trev_stream_summary(const struct trev_stream *s)
{
	uint64_t made = s->st.lines + s->st.lost_lines;

	if (!s->st.dropped && !s->st.unformatted)
		fprintf(stderr, "trev: --stream: %llu event lines, %llu lost-event lines printed\n",
			(unsigned long long)s->st.lines, (unsigned long long)s->st.lost_lines);
	else
		fprintf(stderr, "trev: --stream: %llu lines printed, %llu not (%s)\n",
			(unsigned long long)(made - s->st.dropped),
			(unsigned long long)(s->st.dropped + s->st.unformatted),
			s->st.out_err ? strerror(s->st.out_err) : "interrupted at the end");
}

int trev_stream_open(struct trev_stream **sp, int fd)
{
	struct trev_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->fd = fd;
	trace_seq_init(&s->seq_text);
	*sp = s;
	return 0;
}

void trev_stream_close(struct trev_stream *s)
{
	if (!s)
		return;
	while (s->procs) {
		struct trev_stream_proc *sp = s->procs;

		s->procs = sp->next;
		strm_proc_free(sp);
	}
	free(s->items);
	trev__buf_free(&s->data);
	trev__buf_free(&s->out);
	trace_seq_destroy(&s->seq_text);
	free(s);
}
