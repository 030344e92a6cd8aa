/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev convert --to json: a trace.dat file as the Trace Event Format (the
 * JSON that ui.perfetto.dev, chrome://tracing and speedscope open), written
 * as the file is read: every record in trev report's order, function_graph
 * calls as B/E slices, lost events as global instants, then the threads'
 * and processes' names. What is kept in memory grows with the threads, not
 * with the records (docs/cli/trev-convert.md, "JSON").
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "dat_buffers.h"
#include "json.h"
#include "print_fmt.h"
#include "trev.h"

/* libtracecmd 3.1.6 exports these but its installed header does not declare them. */
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
const char *tracecmd_get_version(struct tracecmd_input *handle);
unsigned long tracecmd_get_in_file_version(struct tracecmd_input *handle);
unsigned long long tracecmd_get_options_offset(struct tracecmd_input *handle);

#ifndef TREV_VERSION_STRING
#define TREV_VERSION_STRING "unknown"
#endif

/* Open function_graph calls kept per thread; deeper entries become instants. */
#define CJ_STACK_MAX	1024
/* The options read for PROCMAPS (a file of trev's has a few KB of them per process). */
#define CJ_OPTIONS_MAX	(64u << 20)
/* trace-cmd's option ids (TRACECMD_OPTION_*) read here. */
#define CJ_OPT_DONE	0
#define CJ_OPT_PROCMAPS	10
/* The output is handed to stdio in pieces of about this size. */
#define CJ_FLUSH	(256u << 10)

/* What a record of an event becomes. */
enum cj_kind {
	CJ_PLAIN,	/* an instant with its fields and text */
	CJ_FG_ENTRY,	/* ftrace:funcgraph_entry: "B" */
	CJ_FG_EXIT,	/* ftrace:funcgraph_exit: "E" */
	CJ_FUNCTION,	/* ftrace:function: an instant named after the function */
};

/* The fields of the ftrace events read by name (CJ_F_*: indices into cj_event.fx). */
enum { CJ_F_FUNC, CJ_F_DEPTH, CJ_F_OVERRUN, CJ_F_CALLTIME, CJ_F_RETTIME, CJ_F_NR };
enum { CJ_F_IP = 0, CJ_F_PARENT = 1 };

struct cj_event {
	struct tep_event *tep;
	struct trev_ctf_field *fields;	/* its own fields (no common_*) */
	const char **names;		/* their names as the format has them */
	unsigned int nr;
	bool mapped;
	enum cj_kind kind;
	int fx[CJ_F_NR];		/* kind != CJ_PLAIN: the fields read, -1: none */
	char *head;			/* `"name":"...","cat":"..."` */
	char why[160];			/* !mapped: why */
	struct trev_pfmt *pfmt;		/* its print fmt's steps (print_fmt.c); NULL: libtraceevent */
	bool pfmt_tried;
};

/* One buffer of the file: a process of a session, or the top one. */
struct cj_buffer {
	char *name;		/* "" for the top buffer */
	int pid;		/* its process; -1: each thread its own (a kernel file) */
	char *comm;		/* the process's name from the buffer's name, or NULL */
	int min_tid;		/* the smallest thread id in it, 0: none (first pass) */
};

struct cj_frame {
	uint64_t func;
	unsigned int depth;
};

struct cj_thread {
	uint64_t key;		/* pid << 32 | tid, + 1; 0: a free slot */
	int pid, tid;
	unsigned int buffer;	/* the first buffer it was seen in */
	uint64_t last_ts;
	struct cj_frame *stack;	/* open function_graph calls, innermost last */
	unsigned int depth, cap;
};

struct cj {
	const char *file;
	const char *out_name;
	FILE *out;
	struct trev_buf b;		/* output not yet handed to stdio */
	struct tracecmd_input *handle;
	struct tep_handle *tep;
	bool big;
	int nr_cpus;
	bool per_thread;		/* a kernel file: no process ids, pid = tid */
	int top_pid;			/* the top buffer's process from PROCMAPS; 0: not there */
	char *top_comm;			/* and its name */
	struct cj_event *events;	/* indexed by event id */
	unsigned int nr_ids;
	struct cj_buffer *buffers;
	unsigned int nr_buffers;
	struct tracecmd_input *last_h;	/* the handle last seen, and its buffer */
	unsigned int last_buf;
	struct cj_thread *threads;	/* open addressing, cap a power of 2 */
	unsigned int nr_threads, cap_threads;
	struct trace_seq seq;
	struct trev_buf text;		/* an event's text by its print fmt's steps */
	bool counting;			/* the first pass: the buffers' threads */
	bool failed;			/* a message was printed; iteration stops */
	unsigned long long nr_out;	/* trace events written */
	unsigned long long records, lost, lost_unknown;
	unsigned long long unmatched_exits, lost_exits, unfinished, too_deep;
};

/* ------------------------------------------------------------------ */
/* Output                                                               */

static int cj_flush(struct cj *c)
{
	if (c->b.err)
		return c->b.err;
	if (c->b.len && fwrite(c->b.data, 1, c->b.len, c->out) != c->b.len)
		return -errno ?: -EIO;
	trev__buf_reset(&c->b);
	return 0;
}

static void cj_putl(struct cj *c, const char *s, size_t len)
{
	trev__buf_append(&c->b, s, len);
}

#define cj_puts(c, s)	cj_putl(c, s, strlen(s))

/* The start of a trace event: its separator, then "{". */
static void cj_open(struct cj *c)
{
	if (c->nr_out++)
		cj_putl(c, ",\n{", 3);
	else
		cj_putl(c, "{", 1);
}

static void cj_ts(struct cj *c, uint64_t ns)
{
	char ts[TREV_JSON_TS_MAX];

	cj_putl(c, ",\"ts\":", 6);
	cj_putl(c, ts, trev_json_ts(ts, ns));
}

static void cj_ids(struct cj *c, int pid, int tid)
{
	cj_putl(c, ",\"pid\":", 7);
	trev_json_int(&c->b, pid);
	cj_putl(c, ",\"tid\":", 7);
	trev_json_int(&c->b, tid);
}

static void cj_num(struct cj *c, const char *key, uint64_t v)
{
	cj_putl(c, ",\"", 2);
	cj_puts(c, key);
	cj_putl(c, "\":", 2);
	trev_json_uint(&c->b, v);
}

/* The function at @addr as trev report names it: its symbol, else "0x%08llx". */
static void cj_sym(struct cj *c, uint64_t addr)
{
	const char *name = tep_find_function(c->tep, addr);
	char tmp[32];

	if (name) {
		trev_json_cstr(&c->b, name);
	} else {
		snprintf(tmp, sizeof(tmp), "0x%08" PRIx64, addr);
		trev_json_cstr(&c->b, tmp);
	}
}

/* ------------------------------------------------------------------ */
/* Events                                                               */

static void cj_field_in(struct trev_ctf_field_in *in, const struct tep_format_field *f)
{
	*in = (struct trev_ctf_field_in){
		.type = f->type,
		.name = f->name,
		.offset = f->offset,
		.size = f->size,
		.arraylen = f->arraylen,
		.is_signed = !!(f->flags & TEP_FIELD_IS_SIGNED),
		.is_array = !!(f->flags & TEP_FIELD_IS_ARRAY),
		.is_dynamic = !!(f->flags & TEP_FIELD_IS_DYNAMIC),
		.is_relative = !!(f->flags & TEP_FIELD_IS_RELATIVE),
	};
}

/* The index of @e's integer field @name, or -1. */
static int cj_int_field(const struct cj_event *e, const char *name)
{
	for (unsigned int i = 0; i < e->nr; i++)
		if (!strcmp(e->names[i], name))
			return e->fields[i].kind == TREV_CTF_INT ? (int)i : -1;
	return -1;
}

/*
 * What @e's records become: the ftrace events whose fields are there are
 * slices or named instants; anything else (or those without their fields)
 * a plain instant.
 */
static void cj_kind(struct cj_event *e)
{
	static const char *const fg[CJ_F_NR] = { "func", "depth", "overrun", "calltime",
						 "rettime" };
	const struct tep_event *ev = e->tep;
	int need = 0;

	for (int i = 0; i < CJ_F_NR; i++)
		e->fx[i] = -1;
	if (strcmp(ev->system, "ftrace"))
		return;
	if (!strcmp(ev->name, "funcgraph_entry")) {
		e->kind = CJ_FG_ENTRY;
		need = CJ_F_OVERRUN;
	} else if (!strcmp(ev->name, "funcgraph_exit")) {
		e->kind = CJ_FG_EXIT;
		need = CJ_F_NR;
	} else if (!strcmp(ev->name, "function")) {
		e->fx[CJ_F_IP] = cj_int_field(e, "ip");
		e->fx[CJ_F_PARENT] = cj_int_field(e, "parent_ip");
		e->kind = e->fx[CJ_F_IP] >= 0 && e->fx[CJ_F_PARENT] >= 0 ? CJ_FUNCTION : CJ_PLAIN;
		return;
	}
	for (int i = 0; i < need; i++) {
		e->fx[i] = cj_int_field(e, fg[i]);
		if (e->fx[i] < 0)
			e->kind = CJ_PLAIN;
	}
}

/* @ev's own fields, mapped as ctf.c maps them. Return: 0, -EINVAL (e->why) or -ENOMEM. */
static int cj_map_event(struct cj *c, struct cj_event *e, struct tep_event *ev)
{
	int long_size = tep_get_long_size(c->tep);
	struct trev_buf head = TREV_BUF_INIT;
	unsigned int max = 0;

	e->tep = ev;
	trev__buf_puts(&head, "\"name\":");
	trev_json_cstr(&head, ev->name ? ev->name : "");
	trev__buf_puts(&head, ",\"cat\":");
	trev_json_cstr(&head, ev->system ? ev->system : "");
	trev__buf_putc(&head, '\0');
	if (head.err)
		return -ENOMEM;
	e->head = trev__buf_detach(&head);
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
		max++;
	e->fields = calloc(max ? max : 1, sizeof(*e->fields));
	e->names = calloc(max ? max : 1, sizeof(*e->names));
	if (!e->head || !e->fields || !e->names)
		return -ENOMEM;
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		struct trev_ctf_field_in in;

		cj_field_in(&in, f);
		if (trev_ctf_field_map(&e->fields[e->nr], &in, long_size, e->why, sizeof(e->why)))
			return -EINVAL;
		e->names[e->nr++] = f->name;
	}
	cj_kind(e);
	e->mapped = true;
	return 0;
}

/* Every event of the file; one that cannot be mapped ends the conversion at its first record. */
static int cj_map_one(void *arg, void *entry, struct tep_event *ev)
{
	return cj_map_event(arg, entry, ev);
}

static int cj_map_events(struct cj *c)
{
	return trev_tep_map_events(c->tep, c->file, sizeof(*c->events), (void **)&c->events,
				   &c->nr_ids, cj_map_one, c);
}

/* ------------------------------------------------------------------ */
/* Buffers and threads                                                  */

/* "comm-pid": the pid after the last '-', and the comm before it. */
static int cj_name_pid(const char *name, size_t *comm_len)
{
	const char *dash = strrchr(name, '-');
	char *end;
	long pid;

	if (!dash || dash == name || !dash[1])
		return -1;
	errno = 0;
	pid = strtol(dash + 1, &end, 10);
	if (errno || *end || pid <= 0 || pid > INT32_MAX || dash[1] < '0' || dash[1] > '9')
		return -1;
	*comm_len = (size_t)(dash - name);
	return (int)pid;
}

/* The buffer @h reads (by its name: each pass has handles of its own). Return: -1: no memory. */
static long cj_buffer(struct cj *c, struct tracecmd_input *h)
{
	const char *name = tracecmd_get_private(h);
	struct cj_buffer *nb;

	if (h == c->last_h)
		return c->last_buf;
	name = name ? name : "";
	for (unsigned int i = 0; i < c->nr_buffers; i++) {
		if (!strcmp(c->buffers[i].name, name)) {
			c->last_h = h;
			c->last_buf = i;
			return i;
		}
	}
	nb = realloc(c->buffers, (c->nr_buffers + 1) * sizeof(*nb));
	if (!nb)
		return -1;
	c->buffers = nb;
	nb = &c->buffers[c->nr_buffers];
	*nb = (struct cj_buffer){ .name = strdup(name), .pid = -1 };
	if (!nb->name)
		return -1;
	c->last_h = h;
	c->last_buf = c->nr_buffers++;
	return c->last_buf;
}

/*
 * The file's options, as libtracecmd left them unread: a malloc'd copy of
 * the list (v6: from the first option to the end marker; v7: the first
 * options section's payload, uncompressed), *@len its length.
 * Return: NULL when the file has none to read here, or out of memory.
 */
static uint8_t *cj_read_options(struct cj *c, size_t *len)
{
	unsigned long long off = tracecmd_get_options_offset(c->handle);
	unsigned long version = tracecmd_get_in_file_version(c->handle);
	uint8_t hdr[16], *buf = NULL;
	size_t size = 0;
	int fd;

	if (!off || (version != 6 && version != 7))
		return NULL;
	fd = open(c->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (version == 7) {
		uint16_t id, flags;
		uint64_t sec;

		/* u16 id (0: options), u16 flags (1: compressed), u32 string id, u64 size. */
		if (pread(fd, hdr, 16, (off_t)off) != 16)
			goto out_close;
		memcpy(&id, hdr, 2);
		memcpy(&flags, hdr + 2, 2);
		memcpy(&sec, hdr + 8, 8);
		if (id != CJ_OPT_DONE || flags || sec > CJ_OPTIONS_MAX)
			goto out_close;
		size = (size_t)sec;
		off += 16;
	} else {
		/* v6: u16 id, u32 size, data ... up to an id of 0: their total size. */
		for (;;) {
			ssize_t got = pread(fd, hdr, 6, (off_t)(off + size));
			uint16_t id;
			uint32_t n;

			if (got < 2)
				goto out_close;
			memcpy(&id, hdr, 2);
			if (id == CJ_OPT_DONE)
				break;
			if (got < 6)
				goto out_close;
			memcpy(&n, hdr + 2, 4);
			if (n > CJ_OPTIONS_MAX - size || 6 > CJ_OPTIONS_MAX - size - n)
				goto out_close;
			size += 6 + (size_t)n;
		}
	}
	buf = malloc(size ? size : 1);
	if (buf && pread(fd, buf, size, (off_t)off) != (ssize_t)size) {
		free(buf);
		buf = NULL;
	}
	*len = size;
out_close:
	close(fd);
	return buf;
}

/*
 * The top buffer's process, from the file's PROCMAPS options (trev record
 * writes one per process, the top buffer's first: docs/formats.md): the
 * first whose pid no instance buffer's name carries. Every option is read
 * inside the list; a PROCMAPS not NUL-terminated or not "PID COUNT COMM"
 * in hex is passed over, as trace-cmd's reader does.
 * Return: 0 (c->top_pid stays 0 when there is none), -ENOMEM.
 */
static int cj_top_proc(struct cj *c)
{
	size_t len = 0, pos = 0;
	uint8_t *opts = cj_read_options(c, &len);
	int ret = 0;

	while (opts && pos + 2 <= len && !c->top_pid) {
		uint16_t id;
		uint32_t size;
		unsigned int pid, count;
		int name_at = 0;
		const char *text;
		bool taken = false;

		memcpy(&id, opts + pos, 2);
		if (id == CJ_OPT_DONE || pos + 6 > len)
			break;
		memcpy(&size, opts + pos + 2, 4);
		pos += 6;
		if (size > len - pos)
			break;
		text = (const char *)opts + pos;
		pos += size;
		if (id != CJ_OPT_PROCMAPS || !size || text[size - 1] ||
		    sscanf(text, "%x %x %n", &pid, &count, &name_at) != 2 || !name_at ||
		    !pid || pid > INT32_MAX)
			continue;
		for (unsigned int i = 0; i < c->nr_buffers; i++) {
			size_t comm_len;

			if (cj_name_pid(c->buffers[i].name, &comm_len) == (int)pid)
				taken = true;
		}
		if (taken)
			continue;
		c->top_pid = (int)pid;
		c->top_comm = strndup(text + name_at, strcspn(text + name_at, "\n"));
		if (!c->top_comm)
			ret = -ENOMEM;
	}
	free(opts);
	return ret;
}

/*
 * Each buffer's process, after the first pass: the pid of its name
 * ("comm-pid", a session's process); for the top buffer of trev's file,
 * the process its PROCMAPS option names, else (a file trev wrote before it
 * stored that) the smallest thread id that recorded (the main thread's,
 * when it did); none in a kernel file (pid = tid).
 */
static int cj_buffer_pids(struct cj *c)
{
	if (!c->per_thread && cj_top_proc(c))
		return -ENOMEM;

	for (unsigned int i = 0; i < c->nr_buffers; i++) {
		struct cj_buffer *b = &c->buffers[i];
		size_t comm_len;
		int pid = cj_name_pid(b->name, &comm_len);

		if (pid > 0) {
			b->pid = pid;
			b->comm = strndup(b->name, comm_len);
			if (!b->comm)
				return -ENOMEM;
		} else if (!c->per_thread && c->top_pid && !*b->name) {
			b->pid = c->top_pid;
			b->comm = strdup(c->top_comm);
			if (!b->comm)
				return -ENOMEM;
		} else {
			b->pid = c->per_thread ? -1 : b->min_tid;
		}
	}
	return 0;
}

static unsigned int cj_hash(uint64_t key)
{
	return (unsigned int)((key * 0x9e3779b97f4a7c15ull) >> 32);
}

/* The thread @tid of process @pid, made on first sight. Return: NULL when out of memory. */
static struct cj_thread *cj_thread(struct cj *c, int pid, int tid, unsigned int buffer)
{
	uint64_t key = ((uint64_t)(uint32_t)pid << 32 | (uint32_t)tid) + 1;
	unsigned int i, mask;

	if (2 * (c->nr_threads + 1) > c->cap_threads) {
		unsigned int cap = c->cap_threads ? 2 * c->cap_threads : 64;
		struct cj_thread *t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (unsigned int j = 0; j < c->cap_threads; j++) {
			if (!c->threads[j].key)
				continue;
			for (i = cj_hash(c->threads[j].key) & (cap - 1); t[i].key; i = (i + 1) & (cap - 1))
				;
			t[i] = c->threads[j];
		}
		free(c->threads);
		c->threads = t;
		c->cap_threads = cap;
	}
	mask = c->cap_threads - 1;
	for (i = cj_hash(key) & mask; c->threads[i].key; i = (i + 1) & mask)
		if (c->threads[i].key == key)
			return &c->threads[i];
	c->threads[i] = (struct cj_thread){ .key = key, .pid = pid, .tid = tid, .buffer = buffer };
	c->nr_threads++;
	return &c->threads[i];
}

/* ------------------------------------------------------------------ */
/* Records                                                              */

static uint64_t cj_field(struct cj *c, const struct cj_event *e, int k, const uint8_t *rec)
{
	const struct trev_ctf_field *f = &e->fields[e->fx[k]];

	return tep_read_number(c->tep, rec + f->offset, (int)f->elem);
}

/*
 * The event's text (TP_printk), as trev report prints it after the name: by
 * the steps of its print fmt where it has them (and the record's fields lie
 * inside it), else by libtraceevent.
 */
static const char *cj_text(struct cj *c, struct cj_event *e, struct tep_record *rec)
{
	if (!e->pfmt_tried) {
		e->pfmt = trev_pfmt_compile(e->tep);
		e->pfmt_tried = true;
	}
	if (e->pfmt && trev_tep_record_sane(e->tep, rec)) {
		trev__buf_reset(&c->text);
		if (trev_pfmt_print(e->pfmt, rec, &c->text) == 0 && c->text.data) {
			while (c->text.len && c->text.data[c->text.len - 1] == '\n')
				c->text.data[--c->text.len] = '\0';
			return c->text.data;
		}
	}
	trace_seq_reset(&c->seq);
	tep_print_event(c->tep, &c->seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&c->seq);
	while (c->seq.len && c->seq.buffer[c->seq.len - 1] == '\n')
		c->seq.buffer[--c->seq.len] = '\0';
	return c->seq.buffer;
}

/*
 * "E" of the innermost open call of @t, at @ts, that did not end in an exit
 * record: @why is the arg saying how it ended, then the call's func and depth
 * (its "B" has no args); @cpu: the CPU of the record that ended it, -1 for none.
 */
static void cj_end(struct cj *c, struct cj_thread *t, uint64_t ts, const char *why, int cpu)
{
	const struct cj_frame *fr = &t->stack[--t->depth];
	char tmp[48];

	cj_open(c);
	cj_puts(c, "\"name\":");
	cj_sym(c, fr->func);
	cj_puts(c, ",\"cat\":\"ftrace\",\"ph\":\"E\"");
	cj_ts(c, ts);
	cj_ids(c, t->pid, t->tid);
	cj_puts(c, ",\"args\":{");
	cj_puts(c, why);
	cj_putl(c, tmp, (size_t)snprintf(tmp, sizeof(tmp), ",\"func\":\"0x%" PRIx64 "\"", fr->func));
	cj_num(c, "depth", fr->depth);
	if (cpu >= 0)
		cj_putl(c, tmp, (size_t)snprintf(tmp, sizeof(tmp), ",\"_cpu\":%d", cpu));
	cj_puts(c, "}}");
}

/* Close the calls of @t at @depth and deeper: their exits were not recorded. */
static void cj_unwind(struct cj *c, struct cj_thread *t, unsigned int depth, uint64_t ts, int cpu)
{
	while (t->depth && t->stack[t->depth - 1].depth >= depth) {
		cj_end(c, t, ts, "\"_exit_lost\":true", cpu);
		c->lost_exits++;
	}
}

static int cj_fg_entry(struct cj *c, const struct cj_event *e, struct cj_thread *t,
		       const uint8_t *data, uint64_t ts, int cpu)
{
	uint64_t func = cj_field(c, e, CJ_F_FUNC, data);
	unsigned int depth = (unsigned int)cj_field(c, e, CJ_F_DEPTH, data);
	char tmp[128];
	bool deep;

	cj_unwind(c, t, depth, ts, cpu);
	deep = t->depth >= CJ_STACK_MAX;
	if (!deep && t->depth == t->cap) {
		unsigned int cap = t->cap ? 2 * t->cap : 16;
		struct cj_frame *s = realloc(t->stack, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		t->stack = s;
		t->cap = cap;
	}
	cj_open(c);
	cj_puts(c, "\"name\":");
	cj_sym(c, func);
	cj_puts(c, deep ? ",\"cat\":\"ftrace\",\"ph\":\"i\",\"s\":\"t\"" :
		     ",\"cat\":\"ftrace\",\"ph\":\"B\"");
	cj_ts(c, ts);
	cj_ids(c, t->pid, t->tid);
	/*
	 * A "B" has no args: the "E" that ends it has the call's (func, depth,
	 * times), which a viewer merges into the slice. speedscope names a slice
	 * after its "B"'s name and args, so args here would put the address, depth
	 * and CPU into every function's name there (docs/viewers.md).
	 */
	if (deep)
		cj_putl(c, tmp, (size_t)snprintf(tmp, sizeof(tmp), ",\"args\":{\"func\":\"0x%" PRIx64
						 "\",\"depth\":%u,\"_too_deep\":true,\"_cpu\":%d}}",
						 func, depth, cpu));
	else
		cj_putl(c, "}", 1);
	if (deep) {
		c->too_deep++;
		return 0;
	}
	t->stack[t->depth++] = (struct cj_frame){ func, depth };
	return 0;
}

static void cj_fg_exit(struct cj *c, const struct cj_event *e, struct cj_thread *t,
		       const uint8_t *data, uint64_t ts, int cpu)
{
	uint64_t func = cj_field(c, e, CJ_F_FUNC, data);
	unsigned int depth = (unsigned int)cj_field(c, e, CJ_F_DEPTH, data);
	uint64_t call = cj_field(c, e, CJ_F_CALLTIME, data);
	uint64_t ret = cj_field(c, e, CJ_F_RETTIME, data);
	char tmp[64];
	bool matched;

	/* Deeper calls still open lost their exits. */
	cj_unwind(c, t, depth + 1, ts, cpu);
	matched = t->depth && t->stack[t->depth - 1].depth == depth &&
		  t->stack[t->depth - 1].func == func;
	if (matched)
		t->depth--;
	else
		c->unmatched_exits++;	/* its entry was not recorded: an instant */
	cj_open(c);
	cj_puts(c, "\"name\":");
	cj_sym(c, func);
	cj_puts(c, matched ? ",\"cat\":\"ftrace\",\"ph\":\"E\"" :
			     ",\"cat\":\"ftrace\",\"ph\":\"i\",\"s\":\"t\"");
	cj_ts(c, ts);
	cj_ids(c, t->pid, t->tid);
	cj_puts(c, matched ? ",\"args\":{" : ",\"args\":{\"_entry_lost\":true,");
	cj_putl(c, tmp, (size_t)snprintf(tmp, sizeof(tmp), "\"func\":\"0x%" PRIx64 "\"", func));
	cj_num(c, "depth", depth);
	cj_num(c, "calltime", call);
	cj_num(c, "rettime", ret);
	cj_num(c, "duration", ret >= call ? ret - call : 0);
	cj_num(c, "overrun", cj_field(c, e, CJ_F_OVERRUN, data));
	cj_putl(c, tmp, (size_t)snprintf(tmp, sizeof(tmp), ",\"_cpu\":%d}}", cpu));
}

static void cj_function(struct cj *c, const struct cj_event *e, const uint8_t *data)
{
	cj_puts(c, "\"name\":");
	cj_sym(c, cj_field(c, e, CJ_F_IP, data));
	cj_puts(c, ",\"cat\":\"ftrace\",\"ph\":\"i\",\"s\":\"t\"");
}

/* A marker where @cpu lost @n events (-1: a count not known) before the next record. */
static void cj_lost(struct cj *c, long long n, int cpu, uint64_t ts, int pid, int tid,
		    const char *buffer)
{
	char tmp[96];

	cj_open(c);
	if (n > 0)
		snprintf(tmp, sizeof(tmp), "\"name\":\"LOST %lld events\"", n);
	else
		snprintf(tmp, sizeof(tmp), "\"name\":\"LOST (unknown count)\"");
	cj_puts(c, tmp);
	cj_puts(c, ",\"cat\":\"trev\",\"ph\":\"i\",\"s\":\"g\"");
	cj_ts(c, ts);
	cj_ids(c, pid, tid);
	cj_putl(c, tmp, (size_t)snprintf(tmp, sizeof(tmp), ",\"args\":{\"cpu\":%d", cpu));
	if (n > 0)
		cj_putl(c, tmp, (size_t)snprintf(tmp, sizeof(tmp), ",\"count\":%lld", n));
	cj_puts(c, ",\"buffer\":");
	trev_json_cstr(&c->b, buffer);
	cj_puts(c, "}}");
}

/* The first pass: each buffer's smallest thread id. */
static int cj_count(struct cj *c, struct tracecmd_input *handle, struct tep_record *rec)
{
	long b = cj_buffer(c, handle);
	int tid;

	if (b < 0)
		return -ENOMEM;
	if (rec->size < 8)
		return 0;	/* the second pass says what is wrong */
	tid = tep_data_pid(c->tep, rec);
	if (tid > 0 && (!c->buffers[b].min_tid || tid < c->buffers[b].min_tid))
		c->buffers[b].min_tid = tid;
	return 0;
}

static int cj_record(struct tracecmd_input *handle, struct tep_record *rec, int cpu, void *arg)
{
	struct cj *c = arg;
	int type = rec->size >= 8 ? tep_data_type(c->tep, rec) : -1;
	struct cj_event *e = type >= 0 && (unsigned int)type < c->nr_ids ? &c->events[type] : NULL;
	const uint8_t *data = rec->data;
	struct cj_thread *t;
	struct cj_buffer *buf;
	char why[256], tmp[32];
	size_t start;
	long b;
	int tid, pid, ret;

	/* tracecmd_iterate_events_multi() numbers the CPUs across its handles. */
	cpu = rec->cpu;
	if (cpu < 0 || cpu >= c->nr_cpus || rec->size < 8) {
		trev_err("convert: %s: a record of CPU %d, of %d bytes, cannot be", c->file, cpu,
			 rec->size);
		goto out_failed;
	}
	if (c->counting) {
		if (cj_count(c, handle, rec))
			goto out_nomem;
		return 0;
	}
	b = cj_buffer(c, handle);
	if (b < 0)
		goto out_nomem;
	buf = &c->buffers[b];
	tid = tep_data_pid(c->tep, rec);
	pid = buf->pid >= 0 ? buf->pid : tid;
	t = cj_thread(c, pid, tid, (unsigned int)b);
	if (!t)
		goto out_nomem;
	c->records++;
	t->last_ts = rec->ts;
	/* Where a page lost events, trev report says so before its next record. */
	if (rec->missed_events > 0)
		c->lost += (unsigned long long)rec->missed_events;
	else if (rec->missed_events < 0)
		c->lost_unknown++;
	if (rec->missed_events)
		cj_lost(c, rec->missed_events, cpu, rec->ts, pid, tid, buf->name);

	if (!e || !e->tep) {
		cj_open(c);
		snprintf(why, sizeof(why), "\"name\":\"unknown event %d\",\"cat\":\"trev\"", type);
		cj_puts(c, why);
		cj_puts(c, ",\"ph\":\"i\",\"s\":\"t\"");
		cj_ts(c, rec->ts);
		cj_ids(c, pid, tid);
		cj_putl(c, tmp, (size_t)snprintf(tmp, sizeof(tmp), ",\"args\":{\"_cpu\":%d}}", cpu));
		goto out_flush;
	}
	if (!e->mapped) {
		trev_err("convert: %s: CPU %d, record at %llu ns: event %s:%s cannot be converted: %s",
			 c->file, cpu, rec->ts, e->tep->system, e->tep->name, e->why);
		goto out_failed;
	}
	if (e->kind != CJ_PLAIN) {
		/* The fields read by name must be inside the record, as any event's. */
		start = c->b.len;
		ret = trev_json_fields(&c->b, e->fields, e->names, e->nr, data, (size_t)rec->size,
				       c->big, why, sizeof(why));
		c->b.len = start;
		if (ret)
			goto out_corrupt;
	}
	if (e->kind == CJ_FG_ENTRY || e->kind == CJ_FG_EXIT) {
		if (e->kind == CJ_FG_EXIT)
			cj_fg_exit(c, e, t, data, rec->ts, cpu);
		else if (cj_fg_entry(c, e, t, data, rec->ts, cpu))
			goto out_nomem;
		goto out_flush;
	}
	cj_open(c);
	start = c->b.len;
	if (e->kind == CJ_FUNCTION)
		cj_function(c, e, data);
	else
		cj_puts(c, e->head);
	if (e->kind == CJ_PLAIN)
		cj_puts(c, ",\"ph\":\"i\",\"s\":\"t\"");
	cj_ts(c, rec->ts);
	cj_ids(c, pid, tid);
	cj_puts(c, ",\"args\":{");
	ret = trev_json_fields(&c->b, e->fields, e->names, e->nr, data, (size_t)rec->size, c->big,
			       why, sizeof(why));
	if (ret) {
		c->b.len = start;
		goto out_corrupt;
	}
	if (e->kind == CJ_FUNCTION) {
		cj_puts(c, ",\"parent\":");
		cj_sym(c, cj_field(c, e, CJ_F_PARENT, data));
	} else {
		cj_puts(c, e->nr ? ",\"_text\":" : "\"_text\":");
		trev_json_cstr(&c->b, cj_text(c, e, rec));
	}
	cj_putl(c, ",\"_cpu\":", 8);
	trev_json_int(&c->b, cpu);
	cj_putl(c, "}}", 2);
out_flush:
	if (c->b.len >= CJ_FLUSH && (ret = cj_flush(c))) {
		trev_err("convert: %s: %s", c->out_name, strerror(-ret));
		goto out_failed;
	}
	return 0;
out_corrupt:
	trev_err("convert: %s: CPU %d, record at %llu ns, %s:%s: %s", c->file, cpu, rec->ts,
		 e->tep->system, e->tep->name, why);
	goto out_failed;
out_nomem:
	trev_err("convert: %s", strerror(ENOMEM));
out_failed:
	c->failed = true;
	return 1;	/* stops the iteration */
}

/* Every record of every buffer, in time order, through cj_record(). */
static int cj_iterate(struct cj *c)
{
	int width;

	c->last_h = NULL;
	return trev_dat_iterate(c->file, c->handle, NULL, 0, cj_record, c, &width);
}

static int cj_cmp_thread(const void *a, const void *b)
{
	const struct cj_thread *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* One "M" event: @what of @pid (and @tid when >= 0), its args' @key a string or a number. */
static void cj_meta(struct cj *c, const char *what, int pid, int tid, const char *key,
		    const char *str, long num)
{
	char tmp[64];

	cj_open(c);
	cj_puts(c, "\"name\":\"");
	cj_puts(c, what);
	cj_putl(c, tmp, (size_t)snprintf(tmp, sizeof(tmp), "\",\"ph\":\"M\",\"pid\":%d", pid));
	if (tid >= 0)
		cj_putl(c, tmp, (size_t)snprintf(tmp, sizeof(tmp), ",\"tid\":%d", tid));
	cj_puts(c, ",\"args\":{\"");
	cj_puts(c, key);
	cj_puts(c, "\":");
	if (str)
		trev_json_cstr(&c->b, str);
	else
		cj_putl(c, tmp, (size_t)snprintf(tmp, sizeof(tmp), "%ld", num));
	cj_puts(c, "}}");
}

/*
 * The end of the trace events: the calls still open (their exits are not
 * in the file) closed at their thread's last record, then the names of
 * every process and thread seen, sorted.
 */
static int cj_finish_events(struct cj *c)
{
	struct cj_thread *list;
	unsigned int n = 0;

	for (unsigned int i = 0; i < c->cap_threads; i++) {
		struct cj_thread *t = &c->threads[i];

		while (t->key && t->depth) {
			cj_end(c, t, t->last_ts, "\"_unfinished\":true", -1);
			c->unfinished++;
		}
	}
	list = calloc(c->nr_threads ? c->nr_threads : 1, sizeof(*list));
	if (!list)
		return -ENOMEM;
	for (unsigned int i = 0; i < c->cap_threads; i++)
		if (c->threads[i].key)
			list[n++] = c->threads[i];
	qsort(list, n, sizeof(*list), cj_cmp_thread);
	for (unsigned int i = 0; i < n; i++) {
		const struct cj_buffer *b = &c->buffers[list[i].buffer];

		if (!i || list[i].pid != list[i - 1].pid) {
			const char *name = b->pid == list[i].pid && b->comm ? b->comm :
					   tep_data_comm_from_pid(c->tep, list[i].pid);

			cj_meta(c, "process_name", list[i].pid, -1, "name", name, 0);
			cj_meta(c, "process_sort_index", list[i].pid, -1, "sort_index", NULL,
				(long)list[i].buffer);
		}
		cj_meta(c, "thread_name", list[i].pid, list[i].tid, "name",
			tep_data_comm_from_pid(c->tep, list[i].tid), 0);
		if (c->b.len >= CJ_FLUSH && cj_flush(c)) {
			free(list);
			return -EIO;
		}
	}
	free(list);
	return 0;
}

/* The trace clock's name: the bracketed one of "[local] global ...". */
static void cj_clock(struct cj *c, char *name, size_t size)
{
	const char *clock = tracecmd_get_trace_clock(c->handle);
	const char *open = clock ? strchr(clock, '[') : NULL;
	const char *close = open ? strchr(open, ']') : NULL;
	size_t len;

	snprintf(name, size, "local");
	if (!clock)
		return;
	len = open && close ? (size_t)(close - open - 1) : strcspn(clock, " \n");
	if (len && len < size) {
		memcpy(name, open && close ? open + 1 : clock, len);
		name[len] = '\0';
	}
}

static void cj_other(struct cj *c)
{
	const char *writer = tracecmd_get_version(c->handle);
	char clock[64], tmp[512];

	cj_clock(c, clock, sizeof(clock));
	cj_puts(c, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"source\":");
	trev_json_cstr(&c->b, c->file);
	cj_puts(c, ",\"clock\":");
	trev_json_cstr(&c->b, clock);
	cj_puts(c, ",\"trev_version\":");
	trev_json_cstr(&c->b, TREV_VERSION_STRING);
	cj_puts(c, ",\"file_writer\":");
	trev_json_cstr(&c->b, writer ? writer : "");
	snprintf(tmp, sizeof(tmp), ",\"file_version\":%lu,\"cpus\":%d,\"buffers\":%u,"
		 "\"events\":%llu,\"lost_events\":%llu,\"lost_unknown\":%llu,"
		 "\"unmatched_exits\":%llu,\"lost_exits\":%llu,\"unfinished\":%llu,"
		 "\"too_deep\":%llu,\"pids\":\"%s\",\"top_pid\":\"%s\"}}\n",
		 tracecmd_get_in_file_version(c->handle), c->nr_cpus, c->nr_buffers, c->records,
		 c->lost, c->lost_unknown, c->unmatched_exits, c->lost_exits, c->unfinished,
		 c->too_deep, c->per_thread ? "thread" : "process",
		 c->per_thread ? "none" : c->top_pid ? "procmaps" : "smallest tid");
	cj_puts(c, tmp);
}

static struct tracecmd_input *cj_open_file(struct cj *c)
{
	struct tracecmd_input *h = tracecmd_open(c->file, TRACECMD_FL_LOAD_NO_PLUGINS);

	if (!h)
		trev_err("convert: %s: truncated or corrupt trace.dat (libtracecmd cannot read it)",
			 c->file);
	return h;
}

static void cj_free(struct cj *c)
{
	for (unsigned int i = 0; c->events && i < c->nr_ids; i++) {
		free(c->events[i].fields);
		free(c->events[i].names);
		free(c->events[i].head);
		trev_pfmt_free(c->events[i].pfmt);
	}
	free(c->events);
	for (unsigned int i = 0; i < c->nr_buffers; i++) {
		free(c->buffers[i].name);
		free(c->buffers[i].comm);
	}
	free(c->buffers);
	free(c->top_comm);
	for (unsigned int i = 0; i < c->cap_threads; i++)
		free(c->threads[i].stack);
	free(c->threads);
	if (c->handle)
		tracecmd_close(c->handle);
	trace_seq_destroy(&c->seq);
	trev__buf_free(&c->text);
	trev__buf_free(&c->b);
}

/*
 * A kernel's file has no process ids: each thread is its own process. trev
 * writes kernel files too (trev record -K), so a file is a process's when
 * its writer is trev and it has no scheduler events.
 */
static bool cj_is_kernel(struct cj *c)
{
	const char *writer = tracecmd_get_version(c->handle);

	return !writer || strncmp(writer, "trev ", 5) ||
	       tep_find_event_by_name(c->tep, "sched", "sched_switch");
}

static int cj_run(struct cj *c)
{
	int ret;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	c->handle = cj_open_file(c);
	if (!c->handle)
		return -1;
	c->tep = tracecmd_get_tep(c->handle);
	c->nr_cpus = tep_get_cpus(c->tep);
	c->big = tep_is_file_bigendian(c->tep);
	if (c->nr_cpus <= 0 || c->nr_cpus > 4096) {
		trev_err("convert: %s: the file holds no CPU data", c->file);
		return -1;
	}
	if (tep_get_long_size(c->tep) != 4 && tep_get_long_size(c->tep) != 8) {
		trev_err("convert: %s: long is %d bytes in the file's header (4 or 8)", c->file,
			 tep_get_long_size(c->tep));
		return -1;
	}
	c->per_thread = cj_is_kernel(c);
	/* First pass: the buffers and their threads; a fresh handle converts (as trev report). */
	c->counting = true;
	if (cj_iterate(c) < 0 && !c->failed) {
		trev_err("convert: %s: cannot read its records", c->file);
		return -1;
	}
	if (c->failed)
		return -1;
	tracecmd_close(c->handle);
	c->handle = cj_open_file(c);
	if (!c->handle)
		return -1;
	c->tep = tracecmd_get_tep(c->handle);
	c->counting = false;
	if (cj_buffer_pids(c)) {
		trev_err("convert: %s", strerror(ENOMEM));
		return -1;
	}
	if (cj_map_events(c))
		return -1;
	cj_puts(c, "{\"traceEvents\":[\n");
	if (cj_iterate(c) < 0 && !c->failed) {
		trev_err("convert: %s: cannot read its records", c->file);
		return -1;
	}
	if (c->failed)
		return -1;
	ret = cj_finish_events(c);
	if (!ret) {
		cj_other(c);
		ret = cj_flush(c);
	}
	if (!ret && fflush(c->out))
		ret = -errno;
	if (ret) {
		trev_err("convert: %s: %s", c->out_name, strerror(-ret));
		return -1;
	}
	return 0;
}

int trev_json_convert(const char *file, FILE *out, const char *name)
{
	struct cj c = { .file = file, .out = out, .out_name = name };
	int ret;

	trev__buf_init(&c.b);
	trace_seq_init(&c.seq);
	ret = cj_run(&c);
	cj_free(&c);
	return ret;
}
