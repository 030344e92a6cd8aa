/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev convert --to ctf FILE DIR: a trace.dat file as a CTF 1.8 trace (a
 * TSDL `metadata` file and one stream file per CPU) that babeltrace2 reads;
 * --to json FILE OUT: as the Trace Event Format that Perfetto and speedscope
 * open (convert_json.c). The file is read with libtracecmd and
 * libtraceevent, as trev report reads it; the CTF is written by ctf.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "ctf.h"
#include "dat_buffers.h"
#include "json.h"
#include "trev.h"

/* libtracecmd 3.1.6 exports it but its installed header does not declare it. */
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);

static const char convert_help[] =
	"usage: trev convert --to ctf [--packet-size BYTES] FILE DIR\n"
	"       trev convert --to json FILE OUT.json\n"
	"\n"
	"Write the trace.dat FILE as a CTF 1.8 trace in DIR: DIR/metadata (TSDL) and\n"
	"DIR/stream_N for each CPU N with records, which `babeltrace2 DIR` reads.\n"
	"Events, fields and time stamps are those `trev report FILE` prints; events\n"
	"lost on a CPU are the packets' events_discarded counts. DIR must not exist\n"
	"or be empty; it is written only when the whole conversion succeeded.\n"
	"\n"
	"With --to json, write FILE as the Trace Event Format (JSON) to OUT.json, or to\n"
	"stdout for `-`, which ui.perfetto.dev (Open trace file), chrome://tracing and\n"
	"speedscope open: every event an instant with its fields as args, pid/tid and\n"
	"their names, function_graph calls as B/E slices, lost events as global\n"
	"instants named \"LOST N events\", totals in otherData. OUT.json is written\n"
	"only when the whole conversion succeeded.\n"
	"\n"
	"  --to ctf|json         the output format: CTF 1.8, or the Trace Event Format\n"
	"  --packet-size BYTES   close a packet once it holds BYTES (default 1048576,\n"
	"                        at least 4096; K and M suffixes)\n"
	"\n"
	"Exit status: 0, 1 for a file that cannot be read or a DIR or OUT that cannot\n"
	"be written, 2 for bad usage.\n";

/* How the converting child ends when it was not killed. */
#define CVT_CHILD_OK		10
#define CVT_CHILD_FAILED	11

/* One event of the file: its CTF description, or why it has none. */
struct cvt_event {
	struct trev_ctf_event ctf;
	struct tep_event *tep;
	bool mapped;
	char why[160];		/* !mapped: the field that cannot be mapped, and how */
	struct tep_print_flag_sym **flags;	/* [nr_fields]: COMP_STR's __print_flags list */
	bool any_comp;		/* a field has a companion string */
};

struct cvt {
	const char *file;
	const char *tmp;	/* the directory written, renamed to DIR at the end */
	struct tracecmd_input *handle;
	struct tep_handle *tep;
	int nr_cpus;
	struct cvt_event *events;	/* indexed by event id */
	unsigned int nr_ids;
	struct trev_ctf_stream *streams;	/* [nr_cpus] */
	int *fds;		/* [nr_cpus], -1 until the CPU's first packet */
	struct trace_seq seq;
	struct trev_buf strs;	/* a record's companion strings, one after another */
	size_t *str_at;		/* [max_fields]: where each is in strs */
	const char **str_ptr;	/* [max_fields]: the strings handed to ctf.c */
	unsigned int max_fields;
	unsigned long long unknown_lost;	/* pages that lost an unknown number */
	bool failed;		/* a message was printed; iteration stops */
	size_t packet_size;	/* --packet-size */
};

/* ------------------------------------------------------------------ */
/* Files                                                                */

static int cvt_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int cvt_write_file(struct cvt *c, const char *name, const struct trev_buf *b)
{
	char path[4096];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", c->tmp, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = cvt_write_all(fd, b->data, b->len);
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/* A packet of @cpu's stream, out to DIR/stream_CPU (created at its first). */
static int cvt_write_packet(struct cvt *c, int cpu, const struct trev_buf *pkt)
{
	char path[4096];

	if (!pkt)
		return 0;
	if (c->fds[cpu] < 0) {
		snprintf(path, sizeof(path), "%s/stream_%d", c->tmp, cpu);
		c->fds[cpu] = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (c->fds[cpu] < 0)
			return -errno;
	}
	return cvt_write_all(c->fds[cpu], pkt->data, pkt->len);
}

/* Remove what a failed conversion wrote: the files in @dir (ours alone), then @dir. */
static void cvt_remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
}

/* DIR must not exist, or be an empty directory. Return: 0 or -1 after a message. */
static int cvt_check_dir(const char *dir)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	bool empty = true;

	if (lstat(dir, &st)) {
		if (errno == ENOENT)
			return 0;
		trev_err("convert: %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		trev_err("convert: %s: exists and is not a directory", dir);
		return -1;
	}
	d = opendir(dir);
	if (!d) {
		trev_err("convert: %s: %s", dir, strerror(errno));
		return -1;
	}
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	if (!empty) {
		trev_err("convert: %s: exists and is not empty (the trace is written to a new "
			 "or empty directory)", dir);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Events                                                               */

static void cvt_field_in(struct trev_ctf_field_in *in, const struct tep_format_field *f)
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

static bool cvt_is_printk(const struct tep_event *ev)
{
	return !strcmp(ev->system, "ftrace") &&
	       (!strcmp(ev->name, "print") || !strcmp(ev->name, "bprint") ||
		!strcmp(ev->name, "bputs"));
}

/* The CTF field of @ev's format field @name: its index in e->ctf.fields, or -1. */
static int cvt_field_index(const struct cvt_event *e, const char *name)
{
	for (unsigned int i = 0; name && i < e->ctf.nr_fields; i++)
		if (!strcmp(e->ctf.fields[i].name + 1, name))
			return (int)i;
	return -1;
}

/* The record field a print fmt argument is, through casts: its index, or -1. */
static int cvt_arg_field(const struct cvt_event *e, const struct tep_print_arg *arg)
{
	while (arg && arg->type == TEP_PRINT_TYPE)
		arg = arg->typecast.item;
	if (!arg || arg->type != TEP_PRINT_FIELD)
		return -1;
	return cvt_field_index(e, arg->field.name);
}

/* A value of __print_symbolic()/__print_flags() ("1", "0x4", "-1"), or false. */
static bool cvt_label_value(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	*v = *s == '-' ? (uint64_t)strtoll(s, &end, 0) : strtoull(s, &end, 0);
	return !errno && end != s && !*end;
}

/* The labels of a __print_symbolic()/__print_flags() list, for an enum. Return: 0 or -ENOMEM. */
static int cvt_labels(struct trev_ctf_field *f, const struct tep_print_flag_sym *list)
{
	struct trev_ctf_label *labels;
	unsigned int n = 0;

	for (const struct tep_print_flag_sym *l = list; l; l = l->next)
		n++;
	if (!n || f->kind != TREV_CTF_INT || f->labels)
		return 0;
	labels = calloc(n, sizeof(*labels));
	if (!labels)
		return -ENOMEM;
	n = 0;
	for (const struct tep_print_flag_sym *l = list; l; l = l->next)
		if (l->str && cvt_label_value(l->value, &labels[n].value))
			labels[n++].label = l->str;
	f->labels = labels;
	f->nr_labels = n;
	return 0;
}

/*
 * The print fmt of @ev said as CTF (docs/cli/trev-convert.md, "Names"): a
 * field printed by __print_symbolic() an enum of its symbols, by
 * __print_flags() an enum of its flags and a string of the flags as trev
 * report prints them (_NAME_str); an address printed with %ps, %pS, %pB,
 * %pF or %pf (the function tracers' ip, parent_ip, func) a string of its
 * function (_NAME_sym). Each conversion of the format takes one argument,
 * and a '*' width or precision one more. Return: 0 or -ENOMEM.
 */
static int cvt_map_print(struct cvt_event *e, const struct tep_event *ev)
{
	const char *fmt = ev->print_fmt.format;
	struct tep_print_arg *arg = ev->print_fmt.args;
	int ret = 0, i;

	e->flags = calloc(e->ctf.nr_fields ? e->ctf.nr_fields : 1, sizeof(*e->flags));
	if (!e->flags)
		return -ENOMEM;
	for (struct tep_print_arg *a = arg; a && !ret; a = a->next) {
		if (a->type == TEP_PRINT_SYMBOL && (i = cvt_arg_field(e, a->symbol.field)) >= 0) {
			ret = cvt_labels(&e->ctf.fields[i], a->symbol.symbols);
		} else if (a->type == TEP_PRINT_FLAGS &&
			   (i = cvt_arg_field(e, a->flags.field)) >= 0 &&
			   e->ctf.fields[i].kind == TREV_CTF_INT && !e->flags[i]) {
			ret = cvt_labels(&e->ctf.fields[i], a->flags.flags);
			e->ctf.fields[i].companion = TREV_CTF_COMP_STR;
			e->flags[i] = a->flags.flags;
		}
	}
	for (const char *p = fmt; p && *p && arg && !ret; p++) {
		if (*p != '%')
			continue;
		if (*++p == '%')
			continue;
		while (*p && strchr("-+ #0", *p))
			p++;
		for (; *p && (isdigit((unsigned char)*p) || *p == '.' || *p == '*'); p++)
			if (*p == '*' && arg)
				arg = arg->next;
		while (*p && strchr("hlzjtLq", *p))
			p++;
		if (!*p || !arg)
			break;
		if (*p == 'p' && p[1] && strchr("sSBFf", p[1]) &&
		    (i = cvt_arg_field(e, arg)) >= 0 && e->ctf.fields[i].kind == TREV_CTF_INT &&
		    e->ctf.fields[i].companion == TREV_CTF_COMP_NONE)
			e->ctf.fields[i].companion = TREV_CTF_COMP_SYM;
		arg = arg->next;
	}
	for (unsigned int k = 0; k < e->ctf.nr_fields; k++)
		e->any_comp |= e->ctf.fields[k].companion != TREV_CTF_COMP_NONE;
	return ret;
}

/*
 * @ev's fields as CTF: the common ones but common_type (the CTF event id),
 * then its own; for trace_printk's events a last "text" (their message, as
 * trev report prints it: the fields hold a format's address and binary
 * arguments). Return: 0, -EINVAL (e->why says why) or -ENOMEM.
 */
static int cvt_map_event(struct cvt *c, struct cvt_event *e, struct tep_event *ev)
{
	int long_size = tep_get_long_size(c->tep);
	unsigned int n = 0, max = 0;
	struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };

	e->tep = ev;
	for (int l = 0; l < 2; l++)
		for (struct tep_format_field *f = lists[l]; f; f = f->next)
			max++;
	e->ctf.fields = calloc(max ? max : 1, sizeof(*e->ctf.fields));
	if (asprintf(&e->ctf.name, "%s:%s", ev->system, ev->name) < 0)
		e->ctf.name = NULL;
	if (!e->ctf.fields || !e->ctf.name)
		return -ENOMEM;
	e->ctf.id = (unsigned int)ev->id;
	e->ctf.text = cvt_is_printk(ev);
	for (int l = 0; l < 2; l++) {
		for (struct tep_format_field *f = lists[l]; f; f = f->next) {
			struct trev_ctf_field_in in;

			if (l == 0 && !strcmp(f->name, "common_type"))
				continue;
			cvt_field_in(&in, f);
			if (trev_ctf_field_map(&e->ctf.fields[n], &in, long_size, e->why,
					       sizeof(e->why)))
				return -EINVAL;
			n++;
		}
	}
	e->ctf.nr_fields = n;
	if (cvt_map_print(e, ev))
		return -ENOMEM;
	if (n > c->max_fields) {
		size_t *at = realloc(c->str_at, n * sizeof(*at));
		const char **ptr = at ? realloc(c->str_ptr, n * sizeof(*ptr)) : NULL;

		if (at)
			c->str_at = at;
		if (!ptr)
			return -ENOMEM;
		c->str_ptr = ptr;
		c->max_fields = n;
	}
	/* A companion named as a field of the event: the event as it was, without them. */
	if (e->any_comp && trev_ctf_event_check(&e->ctf, e->why, sizeof(e->why))) {
		for (unsigned int k = 0; k < n; k++)
			e->ctf.fields[k].companion = TREV_CTF_COMP_NONE;
		e->any_comp = false;
	}
	if (trev_ctf_event_check(&e->ctf, e->why, sizeof(e->why)))
		return -EINVAL;
	e->mapped = true;
	return 0;
}

/*
 * Every event of the file, mapped. One that cannot be mapped is left out of
 * the metadata; a record of it ends the conversion (cvt_record()).
 */
static int cvt_map_one(void *arg, void *entry, struct tep_event *ev)
{
	return cvt_map_event(arg, entry, ev);
}

static int cvt_map_events(struct cvt *c)
{
	return trev_tep_map_events(c->tep, c->file, sizeof(*c->events), (void **)&c->events,
				   &c->nr_ids, cvt_map_one, c);
}

static int cvt_metadata(struct cvt *c)
{
	const struct trev_ctf_event **list = calloc(c->nr_ids ? c->nr_ids : 1, sizeof(*list));
	const char *clock = tracecmd_get_trace_clock(c->handle);
	char clock_name[64] = "local";
	struct trev_buf b = TREV_BUF_INIT;
	struct trev_ctf_trace t = {
		.big_endian = tep_is_file_bigendian(c->tep),
		.source = c->file,
	};
	unsigned int n = 0;
	int ret;

	if (!list)
		return -ENOMEM;
	/* The trace_clock text, "[local] global ...": the selected one, in brackets. */
	if (clock) {
		const char *open = strchr(clock, '['), *close = open ? strchr(open, ']') : NULL;
		size_t len = close ? (size_t)(close - open - 1) : strcspn(clock, " \n");

		if (open && !close)
			len = 0;
		if (len && len < sizeof(clock_name)) {
			memcpy(clock_name, open && close ? open + 1 : clock, len);
			clock_name[len] = '\0';
		}
	}
	t.clock = clock_name;
	for (unsigned int i = 0; i < c->nr_ids; i++)
		if (c->events[i].mapped)
			list[n++] = &c->events[i].ctf;
	ret = trev_ctf_metadata(&b, &t, list, n);
	if (!ret)
		ret = cvt_write_file(c, "metadata", &b);
	trev__buf_free(&b);
	free(list);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Records                                                              */

/* The message of a trace_printk event, as trev report prints it. */
static const char *cvt_text(struct cvt *c, struct tep_record *rec)
{
	trace_seq_reset(&c->seq);
	tep_print_event(c->tep, &c->seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&c->seq);
	while (c->seq.len && c->seq.buffer[c->seq.len - 1] == '\n')
		c->seq.buffer[--c->seq.len] = '\0';
	return c->seq.buffer;
}

/* __print_flags()'s text of @val, as libtraceevent prints it: "READ|SYNC", the rest in hex. */
static void cvt_flags_text(struct trev_buf *b, const struct tep_print_flag_sym *list,
			   uint64_t val)
{
	bool first = true;
	uint64_t v;

	if (!val) {
		for (; list; list = list->next)
			if (cvt_label_value(list->value, &v) && !v) {
				trev__buf_puts(b, list->str);
				break;
			}
		return;
	}
	for (; list && val; list = list->next) {
		if (!cvt_label_value(list->value, &v) || !v || (val & v) != v)
			continue;
		trev__buf_printf(b, "%s%s", first ? "" : "|", list->str);
		first = false;
		val &= ~v;
	}
	if (val)
		trev__buf_printf(b, "%s0x%" PRIx64, first ? "" : "|", val);
}

/*
 * The companion strings of @rec's fields (cvt_map_print()): a code
 * address's function from the file's kallsyms (hex when it has none), a
 * flags field's text. Return: the array for trev_ctf_stream_event_strs().
 */
static const char *const *cvt_strs(struct cvt *c, const struct cvt_event *e,
				   const struct tep_record *rec)
{
	trev__buf_reset(&c->strs);
	for (unsigned int i = 0; i < e->ctf.nr_fields; i++) {
		const struct trev_ctf_field *f = &e->ctf.fields[i];
		uint64_t v;
		const char *name;

		c->str_at[i] = c->strs.len;
		if (f->companion == TREV_CTF_COMP_NONE)
			continue;
		/* trev_ctf_stream_event_strs() refuses the record when this is outside it. */
		if (f->offset > (unsigned int)rec->size || f->size > (unsigned int)rec->size - f->offset)
			v = 0;
		else
			v = tep_read_number(c->tep, (const char *)rec->data + f->offset,
					    (int)f->size);
		if (f->companion == TREV_CTF_COMP_SYM) {
			name = tep_find_function(c->tep, v);
			if (name)
				trev__buf_puts(&c->strs, name);
			else
				trev__buf_printf(&c->strs, "0x%" PRIx64, v);
		} else {
			cvt_flags_text(&c->strs, e->flags[i], v);
		}
		trev__buf_putc(&c->strs, '\0');
	}
	if (c->strs.err)
		return NULL;	/* empty strings, and the record's other fields */
	for (unsigned int i = 0; i < e->ctf.nr_fields; i++)
		c->str_ptr[i] = e->ctf.fields[i].companion == TREV_CTF_COMP_NONE ? NULL :
				c->strs.data + c->str_at[i];
	return c->str_ptr;
}

static int cvt_record(struct tracecmd_input *handle, struct tep_record *rec, int cpu, void *arg)
{
	struct cvt *c = arg;
	int type = tep_data_type(c->tep, rec);
	struct cvt_event *e = type >= 0 && (unsigned int)type < c->nr_ids ? &c->events[type] : NULL;
	struct trev_ctf_stream *s;
	char why[256];
	int ret;

	(void)handle;
	/* tracecmd_iterate_events_multi() numbers the CPUs across its handles. */
	cpu = rec->cpu;
	if (cpu < 0 || cpu >= c->nr_cpus || rec->size < 0) {
		trev_err("convert: %s: a record of CPU %d, of %d bytes, cannot be", c->file, cpu,
			 rec->size);
		goto out_failed;
	}
	if (!e || !e->tep) {
		trev_err("convert: %s: CPU %d, record at %llu ns: event type %d is not in the "
			 "file's formats", c->file, cpu, rec->ts, type);
		goto out_failed;
	}
	if (!e->mapped) {
		trev_err("convert: %s: CPU %d, record at %llu ns: event %s has no CTF type: %s",
			 c->file, cpu, rec->ts, e->ctf.name ? e->ctf.name : "?", e->why);
		goto out_failed;
	}
	s = &c->streams[cpu];
	ret = 0;
	if (rec->missed_events > 0)
		ret = cvt_write_packet(c, cpu, trev_ctf_stream_lost(s,
					(uint64_t)rec->missed_events, rec->ts));
	else if (rec->missed_events < 0)
		c->unknown_lost++;
	if (!ret && trev_ctf_stream_full(s))
		ret = cvt_write_packet(c, cpu, trev_ctf_stream_close(s));
	if (ret) {
		trev_err("convert: %s/stream_%d: %s", c->tmp, cpu, strerror(-ret));
		goto out_failed;
	}
	ret = trev_ctf_stream_event_strs(s, &e->ctf, rec->data, (size_t)rec->size, rec->ts,
					 e->ctf.text ? cvt_text(c, rec) : NULL,
					 e->any_comp ? cvt_strs(c, e, rec) : NULL, why, sizeof(why));
	if (ret) {
		trev_err("convert: %s: CPU %d, record at %llu ns, %s: %s", c->file, cpu,
			 rec->ts, e->ctf.name, ret == -ENOMEM ? strerror(ENOMEM) : why);
		goto out_failed;
	}
	return 0;
out_failed:
	c->failed = true;
	return 1;	/* stops the iteration */
}

static int cvt_iterate(struct cvt *c)
{
	int width;

	/* A file of several processes (docs/sessions.md): every buffer, by time, into the
	 * CPUs' streams; each event keeps its process in common_pid. */
	return trev_dat_iterate(c->file, c->handle, NULL, 0, cvt_record, c, &width);
}

static void cvt_free(struct cvt *c)
{
	for (unsigned int i = 0; c->events && i < c->nr_ids; i++) {
		for (unsigned int k = 0; c->events[i].ctf.fields && k < c->events[i].ctf.nr_fields;
		     k++)
			free((void *)c->events[i].ctf.fields[k].labels);
		free(c->events[i].ctf.name);
		free(c->events[i].ctf.fields);
		free(c->events[i].flags);
	}
	trev__buf_free(&c->strs);
	free(c->str_at);
	free(c->str_ptr);
	free(c->events);
	for (int cpu = 0; c->streams && cpu < c->nr_cpus; cpu++)
		trev_ctf_stream_free(&c->streams[cpu]);
	free(c->streams);
	for (int cpu = 0; c->fds && cpu < c->nr_cpus; cpu++)
		if (c->fds[cpu] >= 0)
			close(c->fds[cpu]);
	free(c->fds);
	if (c->handle)
		tracecmd_close(c->handle);
	trace_seq_destroy(&c->seq);
}

/* The conversion into c->tmp. Return: 0, or -1 after a message. */
static int cvt_run(struct cvt *c)
{
	int ret;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	c->handle = tracecmd_open(c->file, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!c->handle) {
		trev_err("convert: %s: truncated or corrupt trace.dat (libtracecmd cannot read it)",
			 c->file);
		return -1;
	}
	c->tep = tracecmd_get_tep(c->handle);
	c->nr_cpus = tep_get_cpus(c->tep);
	if (c->nr_cpus <= 0 || c->nr_cpus > 4096) {
		trev_err("convert: %s: the file holds no CPU data", c->file);
		return -1;
	}
	if (tep_get_long_size(c->tep) != 4 && tep_get_long_size(c->tep) != 8) {
		trev_err("convert: %s: long is %d bytes in the file's header (4 or 8)", c->file,
			 tep_get_long_size(c->tep));
		return -1;
	}
	c->streams = calloc((size_t)c->nr_cpus, sizeof(*c->streams));
	c->fds = calloc((size_t)c->nr_cpus, sizeof(*c->fds));
	if (!c->streams || !c->fds) {
		trev_err("convert: %s", strerror(ENOMEM));
		return -1;
	}
	for (int cpu = 0; cpu < c->nr_cpus; cpu++) {
		trev_ctf_stream_init(&c->streams[cpu], (unsigned int)cpu,
				     tep_is_file_bigendian(c->tep), c->packet_size);
		c->fds[cpu] = -1;
	}
	if (cvt_map_events(c))
		return -1;
	ret = cvt_metadata(c);
	if (ret) {
		trev_err("convert: %s/metadata: %s", c->tmp, strerror(-ret));
		return -1;
	}
	if (cvt_iterate(c) < 0 && !c->failed) {
		trev_err("convert: %s: cannot read its records", c->file);
		return -1;
	}
	if (c->failed)
		return -1;
	for (int cpu = 0; cpu < c->nr_cpus; cpu++) {
		ret = cvt_write_packet(c, cpu, trev_ctf_stream_close(&c->streams[cpu]));
		if (!ret && c->fds[cpu] >= 0 && close(c->fds[cpu]))
			ret = -errno;
		c->fds[cpu] = -1;
		if (ret) {
			trev_err("convert: %s/stream_%d: %s", c->tmp, cpu, strerror(-ret));
			return -1;
		}
	}
	if (c->unknown_lost)
		trev_err("convert: note: %llu pages of %s lost events without a count; CTF "
			 "cannot say so, so they are not in the discarded counts",
			 c->unknown_lost, c->file);
	return 0;
}

/*
 * Convert in a child process: libtracecmd 3.1.6 and libtraceevent 1.7.1 crash
 * on some damaged files (docs/cli/trev-report.md, "Errors"). A child that
 * dies leaves its output, which the parent removes. @run: the conversion,
 * 0 or -1 after a message. Return: 0 when the conversion succeeded, 1 after
 * a message, 128 + N when signal N ended it.
 */
static int cvt_in_child(const char *file, int (*run)(void *), void *arg)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old[3];
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	pid_t pid;
	int status;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		trev_err("convert: fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0)
		exit(run(arg) ? CVT_CHILD_FAILED : CVT_CHILD_OK);
	/* Ctrl-C ends the child; this process stays to remove what it wrote. */
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &ign, &old[i]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = -1;
			break;
		}
	}
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	if (WIFEXITED(status) && WEXITSTATUS(status) == CVT_CHILD_OK)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == CVT_CHILD_FAILED)
		return 1;
	if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM ||
				    WTERMSIG(status) == SIGHUP)) {
		trev_err("convert: interrupted; nothing written");
		return 128 + WTERMSIG(status);
	}
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE) {
		/* --to json -: whatever read stdout went away. */
		trev_err("convert: stdout: %s", strerror(EPIPE));
		return 1;
	}
	trev_err("convert: %s: truncated or corrupt trace.dat (libtracecmd or libtraceevent "
		 "cannot read it)", file);
	return 1;
}

static int cvt_ctf_child(void *arg)
{
	struct cvt *c = arg;
	int ret = cvt_run(c);

	cvt_free(c);
	return ret;
}

/* --to json: what the child converts, and where to. */
struct cvt_json {
	const char *file;
	const char *out;	/* OUT as given, "-" for stdout */
	int fd;			/* the temporary file beside OUT, -1 for stdout */
};

static int cvt_json_child(void *arg)
{
	struct cvt_json *j = arg;
	FILE *f = j->fd >= 0 ? fdopen(j->fd, "w") : stdout;
	const char *name = j->fd >= 0 ? j->out : "stdout";
	int ret;

	if (!f) {
		trev_err("convert: %s: %s", j->out, strerror(errno));
		return -1;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	ret = trev_json_convert(j->file, f, name);
	if (f != stdout && fclose(f) && !ret) {
		trev_err("convert: %s: %s", j->out, strerror(errno));
		ret = -1;
	}
	return ret;
}

/*
 * --to json FILE OUT: into a temporary file beside OUT, renamed to OUT when
 * the whole conversion succeeded; "-": to stdout as it goes.
 */
static int cvt_json(const char *file, const char *out)
{
	struct cvt_json j = { .file = file, .out = out, .fd = -1 };
	struct stat st;
	char *tmp = NULL;
	mode_t mask;
	int ret;

	if (trev_check_dat_file("convert", file))
		return 1;
	if (!strcmp(out, "-"))
		return cvt_in_child(file, cvt_json_child, &j);
	if (!lstat(out, &st) && S_ISDIR(st.st_mode)) {
		trev_err("convert: %s: is a directory (--to json writes a file)", out);
		return 1;
	}
	if (trev_check_output(out))
		return 1;
	if (asprintf(&tmp, "%s.trev-tmp-XXXXXX", out) < 0) {
		trev_err("convert: %s", strerror(ENOMEM));
		return 1;
	}
	j.fd = mkostemp(tmp, O_CLOEXEC);
	if (j.fd < 0) {
		trev_err("convert: %s: cannot make a file beside it: %s", out, strerror(errno));
		free(tmp);
		return 1;
	}
	mask = umask(0);
	umask(mask);
	fchmod(j.fd, 0666 & ~mask);
	ret = cvt_in_child(file, cvt_json_child, &j);
	close(j.fd);
	if (!ret && rename(tmp, out)) {
		trev_err("convert: %s: %s", out, strerror(errno));
		ret = 1;
	}
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

/* "65536", "64K", "1M": at least TREV_CTF_PACKET_MIN, at most 1 GiB. */
static int cvt_parse_size(const char *arg, size_t *size)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (end != arg && (*end == 'K' || *end == 'k')) {
		v = v > (1ull << 30) ? 0 : v << 10;
		end++;
	} else if (end != arg && (*end == 'M' || *end == 'm')) {
		v = v > (1ull << 20) ? 0 : v << 20;
		end++;
	}
	if (errno || end == arg || *end || arg[0] == '-' || v < TREV_CTF_PACKET_MIN ||
	    v > (1ull << 30)) {
		trev_err("convert: --packet-size takes %u to 1073741824 bytes (K, M), not '%s'",
			 TREV_CTF_PACKET_MIN, arg);
		return -1;
	}
	*size = (size_t)v;
	return 0;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "packet-size", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cvt c = { .packet_size = TREV_CTF_PACKET_SIZE };
	const char *to = NULL, *dir;
	bool packet_size = false;
	char *tmp = NULL;
	size_t len;
	mode_t mask;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "+t:p:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(convert_help, stdout);
			return 0;
		case 't':
			to = optarg;
			break;
		case 'p':
			if (cvt_parse_size(optarg, &c.packet_size))
				return 2;
			packet_size = true;
			break;
		default:
			fputs(convert_help, stderr);
			return 2;
		}
	}
	if (!to) {
		trev_err("convert: --to FORMAT is required (ctf or json)");
		return 2;
	}
	if (strcmp(to, "ctf") && strcmp(to, "json")) {
		trev_err("convert: --to '%s': unknown format (ctf and json are the ones there are)",
			 to);
		return 2;
	}
	if (argc - optind != 2) {
		fputs(convert_help, stderr);
		return 2;
	}
	if (!strcmp(to, "json")) {
		if (packet_size) {
			trev_err("convert: --packet-size is for --to ctf");
			return 2;
		}
		return cvt_json(argv[optind], argv[optind + 1]);
	}
	c.file = argv[optind];
	dir = argv[optind + 1];
	if (trev_check_dat_file("convert", c.file) || cvt_check_dir(dir))
		return 1;

	/* A directory beside DIR (same file system), renamed to DIR when complete. */
	len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (asprintf(&tmp, "%.*s.trev-tmp-XXXXXX", (int)len, dir) < 0) {
		trev_err("convert: %s", strerror(ENOMEM));
		return 1;
	}
	if (!mkdtemp(tmp)) {
		trev_err("convert: %s: cannot make a directory beside it: %s", dir,
			 strerror(errno));
		free(tmp);
		return 1;
	}
	mask = umask(0);
	umask(mask);
	chmod(tmp, 0777 & ~mask);
	c.tmp = tmp;
	trace_seq_init(&c.seq);
	ret = cvt_in_child(c.file, cvt_ctf_child, &c);
	trace_seq_destroy(&c.seq);
	/* rename() replaces an empty directory, and refuses one that filled meanwhile. */
	if (!ret && rename(tmp, dir)) {
		trev_err("convert: %s: %s", dir, strerror(errno));
		ret = 1;
	}
	if (ret)
		cvt_remove_dir(tmp);
	free(tmp);
	return ret;
}
