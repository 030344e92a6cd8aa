/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev report [FILE]: a trace.dat file (ours or the kernel's) as the ftrace
 * `trace` text, read with libtracecmd and printed with libtraceevent; -F
 * filters records with the project's own filter compiler (src/filter/). A
 * file of funcgraph records is printed as function_graph's `trace` text, by
 * the library's own layout (src/output/graph_layout.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "base/buf.h"
#include "filter/filter.h"
#include "output/graph_layout.h"
#include "output/line_prefix.h"
#include "dat_buffers.h"
#include "dat_stream.h"
#include "print_fmt.h"
#include "trev.h"

/* libtracecmd 3.1.6 exports these but its installed header does not declare them. */
const char *tracecmd_get_cpustats(struct tracecmd_input *handle);
int tracecmd_page_size(struct tracecmd_input *handle);
struct tep_record *tracecmd_read_next_data(struct tracecmd_input *handle, int *rec_cpu);

static const char report_help[] =
	"usage: trev report [--raw] [--flat] [--stat] [--cpu N[,N...]] [-F FILTER]... [FILE]\n"
	"\n"
	"Print the trace.dat FILE (default: trace.dat), ours or the kernel's, as the\n"
	"ftrace `trace` file prints it: a header, then one line per event, merged\n"
	"across CPUs in time order, with `CPU:N [LOST M EVENTS]` where events were lost.\n"
	"A file that holds funcgraph_entry/funcgraph_exit records (a function_graph\n"
	"recording) is printed as function_graph's `trace` text: nested calls, leaves\n"
	"`func();` with their durations, other events as comments.\n"
	"\n"
	"  --flat         one line per record even for funcgraph records\n"
	"  --raw          the kernel's raw format (`raw` trace option), no header\n"
	"  --cpu N[,N]    only these CPUs (repeatable; ranges as 0-3)\n"
	"  -F FILTER      only events that pass FILTER, in the kernel's filter syntax;\n"
	"                 `EVENTS:FILTER` applies it to EVENTS only (SYSTEM/EVENT, EVENT\n"
	"                 or SYSTEM, globs allowed), a bare FILTER to every event; it\n"
	"                 applies to those events that have its fields (an error if\n"
	"                 none has). Events no -F applies to are not shown.\n"
	"                 Repeatable: a record is shown when any -F for its event passes.\n"
	"  --stat         records and lost events per CPU, records per event, and the\n"
	"                 per-CPU statistics stored in the file\n"
	"\n"
	"Exit status: 0, 1 for a file or filter that cannot be used, 2 for bad usage.\n";

/* How the report's child (rpt_child()) ends when it was not killed. */
#define RPT_CHILD_OK		10
#define RPT_CHILD_FAILED	11

/* The trace.dat magic: "\027\010D" then "tracing" (docs/formats.md, "File header"). */

/* One -F argument. */
struct rpt_filter_arg {
	const char *arg;	/* as given */
	char *system;		/* SYSTEM of SYSTEM/EVENT, or NULL */
	char *event;		/* EVENT (or SYSTEM, when alone), or NULL: every event */
	const char *text;	/* the filter proper */
	unsigned int events;	/* events it was compiled for */
};

/* What -F gives one event: its compiled filters (any passing shows a record). */
struct rpt_event {
	struct trev_filter **filters;
	unsigned int nr_filters;
	bool shown;		/* some -F applies (always true without -F) */
	unsigned long long count;	/* --stat */
	struct trev_pfmt *pfmt;	/* its print fmt's steps; NULL: tep_print_event() */
	bool pfmt_tried;	/* pfmt was compiled (or could not be) */
	bool printed;		/* the count pass printed one of its records (rpt_record()) */
};

struct rpt {
	const char *file;
	struct tracecmd_input *handle;
	struct tep_handle *tep;
	int nr_cpus;
	bool *cpu_on;		/* [nr_cpus]: selected by --cpu (all without it) */
	bool raw;

	struct rpt_filter_arg *fargs;
	unsigned int nr_fargs;
	struct rpt_event *events;	/* indexed by event id */
	unsigned int nr_ids;

	/* A record copy with the COMM field a filter may name after it. */
	unsigned char *scratch;
	unsigned int syn_off;		/* COMM (char[16]) here */

	unsigned long long *records, *lost;	/* [nr_cpus] */
	unsigned long long unknown_lost;	/* lost, count not known */
	struct trace_seq seq;
	struct trev_buf text;		/* an event's text by its print fmt's steps */
	struct trev_buf line;		/* the line being printed */
	bool counting;			/* the first pass: count, print nothing */
	int name_width;			/* several buffers (a session's processes): the widest
					 * name, each line prefixed as trace-cmd report does */

	/* function_graph's layout (rpt_graph_*) */
	bool flat;			/* --flat */
	int fg_ids[2];			/* ftrace/funcgraph_entry, _exit; -1: none */
	struct tep_format_field *fg_fields[2][5];	/* func, depth, overrun, calltime, rettime */
	struct tep_format_field *fg_args;	/* funcgraph_entry's args[], or NULL (before 6.15) */
	struct tep_format_field *fg_retval;	/* funcgraph_exit's retval, or NULL */
	struct rpt_fgb *fgb;		/* [nr_fgb]: each buffer's reading, the top one first */
	int nr_fgb;
	const char *fg_name;		/* the buffer whose record is being shown */
	bool fg_bol;			/* its output is at the start of a line */
	struct trev_buf fg_text;	/* a comment's text on its way out */
};

/*
 * One buffer's function_graph reading (a session's process: each has its
 * own threads, so its own layout state, and the records of the others do
 * not come between an entry and the return that makes it a leaf).
 */
struct rpt_fgb {
	struct rpt *r;
	struct tracecmd_input *h;	/* the buffer's handle (the top one: r->handle) */
	struct trev_dat_stream *stream;	/* its records (dat_stream.c), or NULL: h's */
	const char *name;		/* "" for the top buffer */
	struct trev_graph_src src;	/* its layout state, reading from rpt_fg_next() */
	struct tep_record *cur;		/* the record the source gave last */
	unsigned long long *lost;	/* [nr_cpus]: lost before records not shown yet */
	bool *lost_unknown;		/* [nr_cpus]: and some of unknown count */
	long long *keys;		/* threads: (pid, CPU for pid 0) + 1; 0: free slot */
	unsigned int *vals;		/* their numbers for the layout */
	unsigned int nr, cap;		/* threads, slots (a power of 2) */
	struct trev_rb_event next;	/* its next record to show, when state is 1 */
	int state;			/* 1: next holds one; 0: no more; -errno */
};

/* ------------------------------------------------------------------ */
/* Options                                                              */

/*
 * "0,2-3" into @on[]; CPUs from @max on are refused, naming @file when given.
 * Return: 0, or -1 after a message.
 */
static int rpt_parse_cpus(const char *arg, bool *on, int max, const char *file)
{
	const char *p = arg;

	for (;;) {
		char *end;
		long lo, hi;

		errno = 0;
		lo = strtol(p, &end, 10);
		hi = lo;
		if (end != p && *end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
		}
		if (errno || end == p || lo < 0 || hi < lo || (*end && *end != ',') ||
		    (!file && hi >= max)) {
			trev_err("report: --cpu takes CPU numbers such as 0,2-3, not '%s'", arg);
			return -1;
		}
		if (hi >= max) {
			trev_err("report: --cpu %ld: %s has CPUs 0-%d", hi, file, max - 1);
			return -1;
		}
		for (long c = lo; c <= hi; c++)
			on[c] = true;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

#define RPT_SPEC_CHARS	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/*?.-"

/* The first @n bytes of @s (all of it when @n is 0) read as an event spec, with a letter or a glob. */
static bool rpt_is_spec(const char *s, size_t n)
{
	if (!n)
		n = strlen(s);
	return n && strspn(s, RPT_SPEC_CHARS) >= n && strcspn(s, "abcdefghijklmnopqrstuvwxyz"
								"ABCDEFGHIJKLMNOPQRSTUVWXYZ*?") < n;
}

/*
 * Split "EVENTS:FILTER". The text before the first ':' is an event spec when
 * it looks like one (names, '/', globs); a filter has spaces, operators or
 * quotes there. Also taken, as trace-cmd report and trev record -e write
 * them: "EVENTS" alone (every record of those events), and "SYSTEM:EVENT"
 * or "SYSTEM:EVENT:FILTER" (a second name after the colon, no '/', and not
 * a number, which is a filter of its own: "EVENTS:0").
 */
static int rpt_parse_filter_arg(struct rpt_filter_arg *fa, const char *arg)
{
	const char *colon = strchr(arg, ':'), *second = NULL;
	size_t n = colon ? (size_t)(colon - arg) : 0;
	char *spec, *slash;

	fa->arg = arg;
	fa->text = arg;
	if (!colon && rpt_is_spec(arg, 0)) {
		n = strlen(arg);
		colon = arg + n;
	} else if (!colon || !rpt_is_spec(arg, n)) {
		return 0;
	}
	if (*colon && !memchr(arg, '/', n)) {
		const char *ev = colon + 1;
		size_t m = strcspn(ev, ":");

		if (rpt_is_spec(ev, m) && !memchr(ev, '/', m))
			second = ev;
	}
	spec = second ? strndup(arg, (size_t)(strchrnul(second, ':') - arg)) : strndup(arg, n);
	if (!spec)
		return -ENOMEM;
	slash = second ? spec + n : strchr(spec, '/');
	if (slash) {
		*slash = '\0';
		fa->system = spec;
		fa->event = strdup(slash + 1);
		if (!fa->event)
			return -ENOMEM;
	} else {
		fa->event = spec;
	}
	colon = second ? strchrnul(second, ':') : colon;
	fa->text = *colon ? colon + 1 : "0";
	return 0;
}

/* ------------------------------------------------------------------ */
/* Filters                                                              */

/* The kernel's filter_assign_type(), on libtraceevent's view of a field. */
static enum trev_filter_field_kind rpt_field_kind(const struct tep_format_field *f)
{
	bool is_char = f->type && strstr(f->type, "char");

	if ((f->flags & TEP_FIELD_IS_DYNAMIC) && is_char)
		return f->flags & TEP_FIELD_IS_RELATIVE ? TREV_FF_REL_STR : TREV_FF_DYN_STR;
	if ((f->flags & TEP_FIELD_IS_ARRAY) && is_char)
		return TREV_FF_STATIC_STR;
	if (f->type && (!strcmp(f->type, "char *") || !strcmp(f->type, "const char *")))
		return TREV_FF_PTR_STR;
	return TREV_FF_NUM;
}

static unsigned int rpt_add_fields(struct trev_filter_field *out, unsigned int n,
				   struct tep_format_field *f)
{
	for (; f; f = f->next) {
		/* A field the filter could not read inside a record is left out. */
		if (f->offset < 0 || f->size <= 0 || f->offset + f->size > 65535)
			continue;
		out[n++] = (struct trev_filter_field){ f->name, f->offset, f->size,
						       !!(f->flags & TEP_FIELD_IS_SIGNED),
						       rpt_field_kind(f) };
	}
	return n;
}

/*
 * @ev's fields as the compiler's table: its own, then COMM (the record's
 * task, stored after the record copy), then the common ones. CPU is the
 * compiler's own: the record's CPU goes to trev__filter_match().
 */
static struct trev_filter_field *rpt_fields(struct rpt *r, struct tep_event *ev,
					    unsigned int *nr)
{
	unsigned int n = 0, max = 2 + (unsigned int)(ev->format.nr_common + ev->format.nr_fields);
	struct trev_filter_field *t = calloc(max, sizeof(*t));

	if (!t)
		return NULL;
	n = rpt_add_fields(t, n, ev->format.fields);
	t[n++] = (struct trev_filter_field){ "COMM", (int)r->syn_off, 16, 0, TREV_FF_STATIC_STR };
	t[n++] = (struct trev_filter_field){ "comm", (int)r->syn_off, 16, 0, TREV_FF_STATIC_STR };
	n = rpt_add_fields(t, n, ev->format.common_fields);
	*nr = n;
	return t;
}

static bool rpt_spec_matches(const struct rpt_filter_arg *fa, const struct tep_event *ev)
{
	if (!fa->event)
		return true;
	if (fa->system)
		return !fnmatch(fa->system, ev->system, 0) && !fnmatch(fa->event, ev->name, 0);
	return !fnmatch(fa->event, ev->name, 0) || !fnmatch(fa->event, ev->system, 0);
}

static void rpt_filter_error(const struct rpt_filter_arg *fa, const struct tep_event *ev,
			     const struct trev_filter_error *err)
{
	if (ev)
		trev_err("report: -F '%s': %s:%s: %s", fa->arg, ev->system, ev->name, err->msg);
	else
		trev_err("report: -F '%s': %s", fa->arg, err->msg);
	/* As error_log shows it: the caret under the column at fault. */
	fprintf(stderr, "  Command: %s\n%*s^\n", fa->text, 11 + err->pos, "");
}

/*
 * Compile every -F for each event it names (every event without EVENTS:).
 * As with the kernel's subsystem filters, a filter that does not compile for
 * an event (it lacks a field) does not apply to that event; one that
 * compiles for none is an error, with the first event's reason.
 * Return: 0 or -1 after a message.
 */
static int rpt_compile_filters(struct rpt *r)
{
	/* tep's own array: not freed. */
	struct tep_event **evs = tep_list_events(r->tep, TEP_EVENT_SORT_ID);
	int nr = tep_get_events_count(r->tep);

	for (int i = 0; evs && i < nr; i++)
		if ((unsigned int)evs[i]->id >= r->nr_ids)
			r->nr_ids = (unsigned int)evs[i]->id + 1;
	r->events = calloc(r->nr_ids ? r->nr_ids : 1, sizeof(*r->events));
	if (!r->events)
		goto out_nomem;
	for (int i = 0; evs && i < nr; i++)
		r->events[evs[i]->id].shown = r->nr_fargs == 0;

	for (unsigned int k = 0; k < r->nr_fargs; k++) {
		struct rpt_filter_arg *fa = &r->fargs[k];
		struct trev_filter_error first = { NULL, 0 };
		struct tep_event *first_ev = NULL;
		bool named = false;

		for (int i = 0; evs && i < nr; i++) {
			struct tep_event *ev = evs[i];
			struct rpt_event *re = &r->events[ev->id];
			struct trev_filter_error err;
			struct trev_filter_field *fields;
			struct trev_filter *f = NULL, **nf;
			unsigned int nfields;
			int ret;

			if (!rpt_spec_matches(fa, ev))
				continue;
			named = true;
			fields = rpt_fields(r, ev, &nfields);
			if (!fields)
				goto out_nomem;
			ret = trev__filter_compile_fields(fields, nfields, fa->text, &f, &err);
			free(fields);
			if (ret == -ENOMEM)
				goto out_nomem;
			if (ret) {
				if (!first_ev) {
					first = err;
					first_ev = ev;
				}
				continue;
			}
			fa->events++;
			re->shown = true;
			if (!f) {	/* "0": no filter, every record of the event */
				re->nr_filters = 0;
				continue;
			}
			nf = realloc(re->filters, (re->nr_filters + 1) * sizeof(*nf));
			if (!nf) {
				trev__filter_free(f);
				goto out_nomem;
			}
			re->filters = nf;
			re->filters[re->nr_filters++] = f;
		}
		if (!named) {
			trev_err("report: -F '%s': no event in %s matches '%s%s%s'", fa->arg,
				 r->file, fa->system ? fa->system : "", fa->system ? "/" : "",
				 fa->event ? fa->event : "*");
			return -1;
		}
		/* No event took it: the first one's reason (named if the -F named events). */
		if (!fa->events && first_ev) {
			rpt_filter_error(fa, fa->event ? first_ev : NULL, &first);
			return -1;
		}
	}
	return 0;
out_nomem:
	trev_err("report: %s", strerror(ENOMEM));
	return -1;
}

/* Does @rec of event @id pass the -F filters? */
static bool rpt_filter_pass(struct rpt *r, int id, struct tep_record *rec, int cpu, int pid)
{
	struct rpt_event *re = (unsigned int)id < r->nr_ids ? &r->events[id] : NULL;
	const char *comm;
	unsigned int len;

	if (!re)
		return r->nr_fargs == 0;
	if (!re->shown)
		return false;
	if (!re->nr_filters)
		return true;
	/* Records never exceed a page; a longer one cannot be the event's. */
	if (rec->size < 0 || (unsigned int)rec->size > r->syn_off)
		return false;
	len = (unsigned int)rec->size;
	memcpy(r->scratch, rec->data, len);
	memset(r->scratch + len, 0, r->syn_off - len);
	comm = tep_data_comm_from_pid(r->tep, pid);
	memset(r->scratch + r->syn_off, 0, 16);
	strncpy((char *)r->scratch + r->syn_off, comm, 16);
	for (unsigned int i = 0; i < re->nr_filters; i++)
		if (trev__filter_match(re->filters[i], r->scratch, r->syn_off + 16, cpu))
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* Printing                                                             */

/*
 * The event's text (TP_printk), without the newline a print record may end
 * in: by the steps of the event's print fmt (print_fmt.c) where it has
 * them, else by libtraceevent. @ev: the record's event, whose fields lie
 * inside it (trev_tep_record_sane()), or NULL.
 */
static const char *rpt_info_ev(struct rpt *r, struct tep_event *ev, struct tep_record *rec)
{
	struct rpt_event *re = ev && (unsigned int)ev->id < r->nr_ids ? &r->events[ev->id] : NULL;

	if (re && !re->pfmt_tried) {
		re->pfmt = trev_pfmt_compile(ev);
		re->pfmt_tried = true;
	}
	if (re && re->pfmt) {
		trev__buf_reset(&r->text);
		if (trev_pfmt_print(re->pfmt, rec, &r->text) == 0 && r->text.data) {
			while (r->text.len && r->text.data[r->text.len - 1] == '\n')
				r->text.data[--r->text.len] = '\0';
			return r->text.data;
		}
	}
	trace_seq_reset(&r->seq);
	tep_print_event(r->tep, &r->seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&r->seq);
	while (r->seq.len && r->seq.buffer[r->seq.len - 1] == '\n')
		r->seq.buffer[--r->seq.len] = '\0';
	return r->seq.buffer;
}

/* The same, for a record whose event is not known yet. */
static const char *rpt_info(struct rpt *r, struct tep_record *rec)
{
	return rpt_info_ev(r, NULL, rec);
}

static bool rpt_is_ftrace(const struct tep_event *ev, const char *name)
{
	return ev && !strcmp(ev->system, "ftrace") && (!name || !strcmp(ev->name, name));
}

/* The `raw` option's text of one record (trev__print_line() with TREV_ITER_RAW). */
static void rpt_print_raw(struct rpt *r, struct tep_event *ev, struct tep_record *rec, int cpu,
			  int pid)
{
	unsigned long long ip = 0;

	printf("%d %d %llu ", pid, cpu, rec->ts);
	if (!ev) {
		printf("%d ?\n", tep_data_type(r->tep, rec));
		return;
	}
	if (!rpt_is_ftrace(ev, "print") && !rpt_is_ftrace(ev, "bputs") &&
	    !rpt_is_ftrace(ev, "bprint")) {
		printf("type: %d\n", ev->id);	/* trace_nop_print() */
		return;
	}
	if (!trev_tep_record_sane(ev, rec)) {
		printf("[corrupt record of %s:%s]\n", ev->system, ev->name);
		return;
	}
	tep_get_field_val(NULL, ev, "ip", rec, &ip, 0);
	if (rpt_is_ftrace(ev, "print")) {
		struct tep_format_field *buf = tep_find_field(ev, "buf");
		bool in = buf && buf->offset < rec->size;
		const char *text = in ? (char *)rec->data + buf->offset : "";
		int max = in ? rec->size - buf->offset : 0;

		printf("# %llx %.*s", ip, max, text);
		if (!max || !memchr(text, '\n', strnlen(text, (size_t)max)))
			putchar('\n');
	} else {
		/* The info text is "caller: text"; raw prints the caller's address. */
		const char *info = rpt_info(r, rec), *colon = strstr(info, ": ");

		printf(": %llx : %s\n", ip, colon ? colon + 2 : info);
	}
}

/* A record's line: the prefix, then its event's text. */
static void rpt_print_line(struct rpt *r, struct tep_event *ev, struct tep_record *rec, int cpu,
			   int pid)
{
	struct trev_line_prefix lp;
	char prefix[TREV_LINE_PREFIX_MAX];

	lp = (struct trev_line_prefix){
		.comm = tep_data_comm_from_pid(r->tep, pid),
		.pid = pid,
		.cpu = (unsigned int)cpu,
		.flags = (unsigned int)tep_data_flags(r->tep, rec),
		.preempt = (unsigned int)tep_data_preempt_count(r->tep, rec),
		.ts = rec->ts,
		.show = TREV_PREFIX_LAT,
	};
	trev__buf_reset(&r->line);
	trev__buf_append(&r->line, prefix, trev__line_prefix(prefix, &lp));
	if (!ev) {
		trev__buf_printf(&r->line, "Unknown type %d\n", tep_data_type(r->tep, rec));
	} else if (!trev_tep_record_sane(ev, rec)) {
		trev__buf_printf(&r->line, "[corrupt record of %s:%s]\n", ev->system, ev->name);
	} else {
		const char *info = rpt_info_ev(r, ev, rec);

		/* The kernel prints the ftrace events without their name. */
		if (!rpt_is_ftrace(ev, NULL)) {
			trev__buf_puts(&r->line, ev->name);
			trev__buf_append(&r->line, ": ", 2);
		}
		trev__buf_puts(&r->line, info);
		trev__buf_append(&r->line, "\n", 1);
	}
	if (r->line.err)
		trev_err("report: %s", strerror(-r->line.err));
	else
		fwrite_unlocked(r->line.data, 1, r->line.len, stdout);
}

/*
 * In a file of several buffers (a session's processes), the start of each
 * line: its buffer's @name right-aligned, or blanks for the top buffer's
 * ("" or NULL), as trace-cmd report prints them. Every line has its own,
 * the LOST line before a record too (trace-cmd report leaves the record
 * after its "EVENTS DROPPED" line without one).
 */
static void rpt_name_prefix(const struct rpt *r, const char *name)
{
	bool named = name && *name;

	if (r->name_width)
		printf("%*s%s", r->name_width, named ? name : "", named ? ": " : "  ");
}

static int rpt_record(struct tracecmd_input *handle, struct tep_record *rec, int cpu, void *arg)
{
	struct rpt *r = arg;
	struct tep_event *ev = tep_find_event_by_record(r->tep, rec);
	int pid = tep_data_pid(r->tep, rec);

	/* tracecmd_iterate_events_multi() numbers the CPUs of all its handles in one
	 * run (libtracecmd 3.1.6): the record's own CPU is the one. */
	cpu = rec->cpu;
	if (cpu < 0 || cpu >= r->nr_cpus || !r->cpu_on[cpu])
		return 0;
	if (r->counting) {
		r->records[cpu]++;
		if (rec->missed_events > 0)
			r->lost[cpu] += (unsigned long long)rec->missed_events;
		else if (rec->missed_events < 0)
			r->unknown_lost++;
		if (ev && (unsigned int)ev->id < r->nr_ids) {
			struct rpt_event *re = &r->events[ev->id];

			re->count++;
			/*
			 * One record of each event printed by libtraceevent before any
			 * line is: a format it cannot print (some crash it) ends the
			 * child here, with nothing printed (rpt_child()).
			 */
			if (!re->printed && trev_tep_record_sane(ev, rec)) {
				re->printed = true;
				trace_seq_reset(&r->seq);
				tep_print_event(r->tep, &r->seq, rec, "%s", TEP_PRINT_INFO);
			}
		}
		return 0;
	}
	/* Where a page lost events, the kernel says so before its next record. */
	if (rec->missed_events) {
		rpt_name_prefix(r, tracecmd_get_private(handle));
		if (rec->missed_events > 0)
			printf("CPU:%d [LOST %lld EVENTS]\n", cpu, rec->missed_events);
		else
			printf("CPU:%d [LOST EVENTS]\n", cpu);
	}
	if (!rpt_filter_pass(r, ev ? ev->id : tep_data_type(r->tep, rec), rec, cpu, pid))
		return 0;
	rpt_name_prefix(r, tracecmd_get_private(handle));
	if (r->raw) {
		rpt_print_raw(r, ev, rec, cpu, pid);
		return 0;
	}
	rpt_print_line(r, ev, rec, cpu, pid);
	return 0;
}

/* ------------------------------------------------------------------ */
/* function_graph                                                       */

/* The fields of funcgraph_entry (FG_ENTRY) and funcgraph_exit (FG_EXIT) the layout reads. */
enum { FG_ENTRY, FG_EXIT };
enum { FG_FUNC, FG_DEPTH, FG_OVERRUN, FG_CALLTIME, FG_RETTIME, FG_NR_FIELDS };

static const char *const rpt_fg_field_names[FG_NR_FIELDS] = {
	"func", "depth", "overrun", "calltime", "rettime",
};

/*
 * The file's funcgraph events and their fields. An event without the fields
 * (entry: func, depth; exit: all five) is not one the layout can read: its
 * records keep their own lines.
 */
static void rpt_fg_find(struct rpt *r)
{
	static const char *const names[2] = { "funcgraph_entry", "funcgraph_exit" };

	for (int k = 0; k < 2; k++) {
		struct tep_event *ev = tep_find_event_by_name(r->tep, "ftrace", names[k]);
		int need = k == FG_ENTRY ? FG_OVERRUN : FG_NR_FIELDS;

		bool usable = ev != NULL;

		for (int f = 0; f < FG_NR_FIELDS; f++) {
			struct tep_format_field *field = ev && f < need ?
				tep_find_field(ev, rpt_fg_field_names[f]) : NULL;

			/* Numbers of up to 8 bytes, as the kernel's are. */
			if (f < need && (!field || field->size <= 0 || field->size > 8))
				usable = false;
			r->fg_fields[k][f] = field;
		}
		r->fg_ids[k] = usable ? ev->id : -1;
		/* Optional: files of older writers have neither. */
		if (k == FG_ENTRY)
			r->fg_args = ev ? tep_find_field(ev, "args") : NULL;
		else
			r->fg_retval = ev ? tep_find_field(ev, "retval") : NULL;
	}
}

/* Does the layout print the file? Its records (on the CPUs shown) hold funcgraph records. */
static bool rpt_fg_wanted(struct rpt *r)
{
	if (r->flat || r->raw)
		return false;
	rpt_fg_find(r);
	for (int k = 0; k < 2; k++)
		if (r->fg_ids[k] >= 0 && (unsigned int)r->fg_ids[k] < r->nr_ids &&
		    r->events[r->fg_ids[k]].count)
			return true;
	return false;
}

static unsigned long long rpt_fg_field(struct rpt *r, const struct tep_record *rec, int k, int f)
{
	const struct tep_format_field *field = r->fg_fields[k][f];

	return tep_read_number(r->tep, (const char *)rec->data + field->offset, field->size);
}

/*
 * A record of funcgraph event @k (FG_ENTRY, FG_EXIT) into *@c.
 * Return: false when it is not one, or its fields are not inside it.
 */
static bool rpt_fg_decode(struct rpt *r, struct tep_record *rec, int k, struct trev_graph_call *c)
{
	int nf = k == FG_ENTRY ? FG_OVERRUN : FG_NR_FIELDS;

	if (r->fg_ids[k] < 0 || rec->size < 8 || tep_data_type(r->tep, rec) != r->fg_ids[k])
		return false;
	for (int f = 0; f < nf; f++) {
		const struct tep_format_field *field = r->fg_fields[k][f];

		if (field->offset < 0 || field->offset + field->size > rec->size)
			return false;
	}
	*c = (struct trev_graph_call){
		.func = rpt_fg_field(r, rec, k, FG_FUNC),
		.depth = (unsigned int)rpt_fg_field(r, rec, k, FG_DEPTH),
		.pid = tep_data_pid(r->tep, rec),
	};
	if (k == FG_EXIT) {
		const struct tep_format_field *rv = r->fg_retval;

		c->overrun = (unsigned int)rpt_fg_field(r, rec, k, FG_OVERRUN);
		c->calltime = rpt_fg_field(r, rec, k, FG_CALLTIME);
		c->rettime = rpt_fg_field(r, rec, k, FG_RETTIME);
		if (rv && rv->size > 0 && rv->size <= 8 && rv->offset >= 0 &&
		    rv->offset + rv->size <= rec->size)
			c->retval = tep_read_number(r->tep, (const char *)rec->data + rv->offset,
						    rv->size);
	} else if (r->fg_args && r->fg_args->offset >= 0 &&
		   rec->size >= r->fg_args->offset + 6 * 8) {
		/* args[]: the six argument registers when the record holds them (funcgraph-args). */
		for (int i = 0; i < 6; i++)
			c->args[i] = tep_read_number(r->tep, (const char *)rec->data +
						     r->fg_args->offset + 8 * i, 8);
		c->nr_args = 6;
	}
	return true;
}

/* A record of the layout's source as libtraceevent's: what tep_* read of it. */
static struct tep_record rpt_fg_record(const struct trev_rb_event *ev)
{
	return (struct tep_record){
		.ts = ev->ts,
		.size = (int)ev->len,
		.data = (void *)(uintptr_t)ev->data,
		.cpu = ev->cpu,
	};
}

static bool rpt_fg_is_exit(void *arg, const struct trev_rb_event *ev, struct trev_graph_call *c)
{
	struct tep_record rec = rpt_fg_record(ev);

	/* @arg: the buffer's source (struct rpt_fgb). */
	return rpt_fg_decode(((struct rpt_fgb *)arg)->r, &rec, FG_EXIT, c);
}

static unsigned int rpt_fg_hash(long long key)
{
	return (unsigned int)(((unsigned long long)key * 0x9e3779b97f4a7c15ull) >> 32);
}

/*
 * The layout's number for the thread of @pid on @cpu: a thread is its pid,
 * but pid 0 is each CPU's idle task in a kernel file. Return: -1 when out of
 * memory.
 */
static long rpt_fg_thread(struct rpt_fgb *r, int pid, int cpu)
{
	long long key = (pid ? (long long)(unsigned int)pid << 16 : (long long)cpu) + 1;
	unsigned int i;

	if (2 * (r->nr + 1) > r->cap) {
		unsigned int cap = r->cap ? 2 * r->cap : 64;
		long long *keys = calloc(cap, sizeof(*keys));
		unsigned int *vals = calloc(cap, sizeof(*vals));

		if (!keys || !vals) {
			free(keys);
			free(vals);
			return -1;
		}
		for (unsigned int j = 0; j < r->cap; j++) {
			if (!r->keys[j])
				continue;
			for (i = rpt_fg_hash(r->keys[j]) & (cap - 1); keys[i];
			     i = (i + 1) & (cap - 1))
				;
			keys[i] = r->keys[j];
			vals[i] = r->vals[j];
		}
		free(r->keys);
		free(r->vals);
		r->keys = keys;
		r->vals = vals;
		r->cap = cap;
	}
	for (i = rpt_fg_hash(key) & (r->cap - 1); r->keys[i];
	     i = (i + 1) & (r->cap - 1))
		if (r->keys[i] == key)
			return r->vals[i];
	r->keys[i] = key;
	r->vals[i] = r->nr++;
	return r->vals[i];
}

/*
 * A buffer's source for its layout: its records merged across CPUs in time
 * order, those of the CPUs shown that pass -F. Events lost before a record
 * not shown are told before the next record of its CPU that is.
 */
static int rpt_fg_next(void *arg, struct trev_rb_event *ev)
{
	struct rpt_fgb *b = arg;
	struct rpt *r = b->r;

	for (;;) {
		struct tep_record *rec;
		struct tep_event *e;
		long thread;
		int cpu, pid;

		if (b->stream) {
			rec = trev_dat_stream_next(b->stream, NULL, &cpu);
		} else {
			tracecmd_free_record(b->cur);
			b->cur = rec = tracecmd_read_next_data(b->h, &cpu);
		}
		if (!rec)
			return 0;
		if (cpu < 0 || cpu >= r->nr_cpus || !r->cpu_on[cpu] || rec->size < 0)
			continue;
		if (rec->missed_events > 0)
			b->lost[cpu] += (unsigned long long)rec->missed_events;
		else if (rec->missed_events < 0)
			b->lost_unknown[cpu] = true;
		e = tep_find_event_by_record(r->tep, rec);
		pid = tep_data_pid(r->tep, rec);
		if (!rpt_filter_pass(r, e ? e->id : tep_data_type(r->tep, rec), rec, cpu, pid))
			continue;
		thread = rpt_fg_thread(b, pid, cpu);
		if (thread < 0)
			return -ENOMEM;
		*ev = (struct trev_rb_event){
			.ts = rec->ts,
			.lost = b->lost_unknown[cpu] ? UINT64_MAX : b->lost[cpu],
			.data = rec->data,
			.len = (uint32_t)rec->size,
			.cpu = cpu,
			.tid = pid,
			.buffer = (unsigned int)thread,
		};
		b->lost[cpu] = 0;
		b->lost_unknown[cpu] = false;
		return 1;
	}
}

/*
 * The graph's output, @len bytes of @p: each line behind the name of the
 * buffer whose record it shows, when the file has several (as the flat
 * lines, rpt_name_prefix()).
 */
static void rpt_fg_write(struct rpt *r, const char *p, size_t len)
{
	while (len) {
		const char *nl = memchr(p, '\n', len);
		size_t n = nl ? (size_t)(nl - p) + 1 : len;

		if (r->fg_bol)
			rpt_name_prefix(r, r->fg_name);
		fwrite(p, 1, n, stdout);
		r->fg_bol = nl != NULL;
		p += n;
		len -= n;
	}
}

/* A line (or the end of one) of our own in the graph, through rpt_fg_write(). */
static void rpt_fg_printf(struct rpt *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void rpt_fg_printf(struct rpt *r, const char *fmt, ...)
{
	va_list ap;
	int ret;

	trev__buf_reset(&r->fg_text);
	va_start(ap, fmt);
	ret = trev__buf_vprintf(&r->fg_text, fmt, ap);
	va_end(ap);
	/* Out of memory: the line goes as far as it got, and ends. */
	rpt_fg_write(r, r->fg_text.data ? r->fg_text.data : "", ret ? 0 : r->fg_text.len);
	if (ret && !r->fg_bol)
		rpt_fg_write(r, "\n", 1);
}

static void rpt_fg_lost_line(struct rpt *r, int cpu, unsigned long long lost)
{
	if (lost == UINT64_MAX)
		rpt_fg_printf(r, "CPU:%d [LOST EVENTS]\n", cpu);
	else
		rpt_fg_printf(r, "CPU:%d [LOST %llu EVENTS]\n", cpu, lost);
}

/* The layout's output: stdout, and the file's function names. */
struct rpt_fg_out {
	struct trev_graph_out out;
	struct rpt *r;
};

static struct rpt *rpt_fg_of(struct trev_graph_out *o)
{
	return ((struct rpt_fg_out *)((char *)o - offsetof(struct rpt_fg_out, out)))->r;
}

static void rpt_fg_put(struct trev_graph_out *o, const char *p, size_t len)
{
	rpt_fg_write(rpt_fg_of(o), p, len);
}

static void rpt_fg_sym(struct trev_graph_out *o, unsigned long long addr)
{
	struct rpt *r = rpt_fg_of(o);
	const char *name = tep_find_function(r->tep, addr);

	/* As the library's text names an address it cannot: "0x%08lx". */
	if (name)
		rpt_fg_write(r, name, strlen(name));
	else
		rpt_fg_printf(r, "0x%08llx", addr);
}

/*
 * Another event inside the graph, as a comment: trace_printk and
 * trace_marker records by their message alone, as the kernel's
 * print_graph_comment() does, others as their usual text.
 */
static void rpt_fg_comment(struct rpt *r, struct tep_event *ev, struct tep_record *rec)
{
	const char *info = rpt_info(r, rec);

	if (rpt_is_ftrace(ev, "print") || rpt_is_ftrace(ev, "bprint") ||
	    rpt_is_ftrace(ev, "bputs")) {
		/* The info text is "caller: message". */
		const char *colon = strstr(info, ": ");

		rpt_fg_printf(r, "%s */\n", colon ? colon + 2 : info);
	} else if (rpt_is_ftrace(ev, NULL)) {
		rpt_fg_printf(r, "%s */\n", info);
	} else {
		rpt_fg_printf(r, "%s: %s */\n", ev->name, info);
	}
}

/* Close the buffers' handles but the top one's, free their state. */
static void rpt_fg_free(struct rpt *r)
{
	for (int i = 0; i < r->nr_fgb; i++) {
		struct rpt_fgb *b = &r->fgb[i];

		trev__graph_free(b->src.g);
		trev_dat_stream_close(b->stream);
		tracecmd_free_record(b->cur);
		if (b->h && b->h != r->handle)
			tracecmd_close(b->h);
		free(b->lost);
		free(b->lost_unknown);
		free(b->keys);
		free(b->vals);
	}
	free(r->fgb);
	r->fgb = NULL;
	r->nr_fgb = 0;
	trev__buf_free(&r->fg_text);
}

/*
 * Each buffer of the file (the top one, then its instances: a session's
 * processes) with a layout state and a source of its own.
 * Return: 0 or -ENOMEM.
 */
static int rpt_fg_buffers(struct rpt *r)
{
	int n = tracecmd_buffer_instances(r->handle);

	r->fgb = calloc((size_t)(n > 0 ? n : 0) + 1, sizeof(*r->fgb));
	if (!r->fgb)
		return -ENOMEM;
	for (int i = -1; i < n; i++) {
		const char *name = i < 0 ? "" : tracecmd_buffer_instance_name(r->handle, i);
		struct tracecmd_input *h = i < 0 ? r->handle :
			name ? tracecmd_buffer_instance_handle(r->handle, i) : NULL;
		struct rpt_fgb *b = &r->fgb[r->nr_fgb];

		int err = 1;

		/* A buffer libtracecmd cannot open is left out, as trev report --flat does. */
		if (!h)
			continue;
		r->nr_fgb++;
		*b = (struct rpt_fgb){ .r = r, .h = h, .name = name };
		/* Its records streamed (flat memory) where they can be (rpt_iterate()). */
		if (trev_dat_reader() != TREV_DAT_READER_TRACECMD)
			b->stream = trev_dat_stream_open(r->file, &h, &i, 1, NULL, 0, &err);
		if (err < 0 || (err == 1 && trev_dat_reader() == TREV_DAT_READER_STREAM))
			return err < 0 ? err : -ENOTSUP;
		b->src = (struct trev_graph_src){ trev__graph_alloc(rpt_fg_is_exit), rpt_fg_next, b };
		b->lost = calloc((size_t)r->nr_cpus, sizeof(*b->lost));
		b->lost_unknown = calloc((size_t)r->nr_cpus, sizeof(*b->lost_unknown));
		if (!b->src.g || !b->lost || !b->lost_unknown)
			return -ENOMEM;
	}
	return 0;
}

/* One record a buffer's layout shows: its lines (the loop of rpt_fg_print()). */
static void rpt_fg_show(struct rpt *r, struct rpt_fgb *b, struct rpt_fg_out *out,
			const struct trev_rb_event *ev)
{
	struct tep_record rec = rpt_fg_record(ev);
	struct trev_graph_line l = {
		.out = &out->out,
		.opts = TREV_GRAPH_DEFAULT,
		.cpu_width = trev__graph_cpu_width(r->nr_cpus),
		.cpu = ev->cpu,
		.ts = ev->ts,
		.thread = ev->buffer,
	};
	struct trev_graph_call c;
	struct tep_event *e;

	r->fg_name = b->name;
	if (ev->lost)
		rpt_fg_lost_line(r, ev->cpu, ev->lost);
	if (rec.size < 8) {
		/* No room for the common fields (the library's text says the same). */
		rpt_fg_printf(r, "[short record: %d bytes]\n", rec.size);
		return;
	}
	e = tep_find_event_by_record(r->tep, &rec);
	l.pid = tep_data_pid(r->tep, &rec);
	l.comm = tep_data_comm_from_pid(r->tep, l.pid);
	l.flags = (unsigned int)tep_data_flags(r->tep, &rec);
	l.preempt = (unsigned int)tep_data_preempt_count(r->tep, &rec);
	if (!e || !trev_tep_record_sane(e, &rec) || rpt_is_ftrace(e, "function") ||
	    rpt_is_ftrace(e, "kernel_stack") || rpt_is_ftrace(e, "user_stack")) {
		/* Their own lines, as the kernel's TRACE_TYPE_UNHANDLED. */
		rpt_name_prefix(r, b->name);
		rpt_print_line(r, e, &rec, ev->cpu, l.pid);
	} else if (rpt_fg_decode(r, &rec, FG_ENTRY, &c)) {
		trev__graph_entry(&b->src, &l, &c);
	} else if (rpt_fg_decode(r, &rec, FG_EXIT, &c)) {
		trev__graph_return(&b->src, &l, &c);
	} else {
		trev__graph_comment(&b->src, &l);
		rpt_fg_comment(r, e, &rec);
	}
}

/*
 * The file as function_graph's `trace` text: its header, then each record
 * shown by the layout (src/output/graph_layout.c) with the kernel's default
 * options; the records of every buffer in time order, each buffer read by
 * a layout of its own, its lines behind its name. Return: 0 or -errno.
 */
static int rpt_fg_print(struct rpt *r)
{
	struct rpt_fg_out out = { { rpt_fg_put, rpt_fg_sym }, r };
	struct trev_buf hdr = TREV_BUF_INIT;
	unsigned long long entries = 0;
	int ret;

	r->fg_bol = true;
	ret = rpt_fg_buffers(r);
	if (ret)
		return ret;
	for (int c = 0; c < r->nr_cpus; c++)
		entries += r->records[c];
	ret = trev__buf_puts(&hdr, "# tracer: function_graph\n#\n");
	ret = ret ?: trev__graph_header(TREV_GRAPH_DEFAULT, entries == 0, &hdr);
	if (ret) {
		trev__buf_free(&hdr);
		return ret;
	}
	fwrite(hdr.data, 1, hdr.len, stdout);
	trev__buf_free(&hdr);

	for (int i = 0; i < r->nr_fgb; i++)
		r->fgb[i].state = trev__graph_next(&r->fgb[i].src, &r->fgb[i].next);
	for (;;) {
		struct rpt_fgb *b = NULL;

		/* The buffer whose next record is the oldest; the first on a tie. */
		for (int i = 0; i < r->nr_fgb && ret >= 0; i++) {
			struct rpt_fgb *x = &r->fgb[i];

			if (x->state < 0)
				ret = x->state;
			else if (x->state && (!b || x->next.ts < b->next.ts))
				b = x;
		}
		if (ret < 0 || !b)
			break;
		rpt_fg_show(r, b, &out, &b->next);
		b->state = trev__graph_next(&b->src, &b->next);
	}
	/* Losses after the last record shown of a CPU. */
	for (int i = 0; i < r->nr_fgb; i++) {
		struct rpt_fgb *b = &r->fgb[i];

		r->fg_name = b->name;
		for (int c = 0; c < r->nr_cpus; c++)
			if (b->lost[c] || b->lost_unknown[c])
				rpt_fg_lost_line(r, c, b->lost_unknown[c] ? UINT64_MAX : b->lost[c]);
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* The file                                                             */

static struct tracecmd_input *rpt_open(const char *file)
{
	struct tracecmd_input *h = tracecmd_open(file, TRACECMD_FL_LOAD_NO_PLUGINS);

	if (!h)
		trev_err("report: %s: truncated or corrupt trace.dat (libtracecmd cannot read it)",
			 file);
	return h;
}

static int rpt_iterate(struct rpt *r, struct tracecmd_input *h)
{
	/* A file of several processes (docs/sessions.md): every buffer, by time. */
	return trev_dat_iterate(r->file, h, r->cpu_on, r->nr_cpus, rpt_record, r, &r->name_width);
}

static void rpt_print_header(struct rpt *r)
{
	unsigned long long entries = 0, written = 0;

	for (int c = 0; c < r->nr_cpus; c++) {
		entries += r->records[c];
		written += r->records[c] + r->lost[c];
	}
	printf("# tracer: nop\n#\n"
	       "# entries-in-buffer/entries-written: %llu/%llu   #P:%d\n#\n"
	       "#                              _-----=> irqs-off\n"
	       "#                             / _----=> need-resched\n"
	       "#                            | / _---=> hardirq/softirq\n"
	       "#                            || / _--=> preempt-depth\n"
	       "#                            ||| /     delay\n"
	       "#           TASK-PID   CPU#  ||||    TIMESTAMP  FUNCTION\n"
	       "#              | |       |   ||||       |         |\n",
	       entries, written, r->nr_cpus);
}

static void rpt_print_stat(struct rpt *r)
{
	struct tep_event **evs = tep_list_events(r->tep, TEP_EVENT_SORT_SYSTEM);
	const char *cpustats = tracecmd_get_cpustats(r->handle);
	unsigned long long total = 0, lost = 0;

	printf("file: %s\ncpus: %d\n", r->file, r->nr_cpus);
	for (int c = 0; c < r->nr_cpus; c++) {
		if (!r->cpu_on[c])
			continue;
		printf("CPU %d: %llu records, %llu lost\n", c, r->records[c], r->lost[c]);
		total += r->records[c];
		lost += r->lost[c];
	}
	printf("total: %llu records, %llu lost", total, lost);
	if (r->unknown_lost)
		printf(" (and %llu pages that lost an unknown number)", r->unknown_lost);
	printf("\n\nrecords per event:\n");
	for (int i = 0; evs && evs[i]; i++) {
		struct rpt_event *re = &r->events[evs[i]->id];

		if (re->count)
			printf("%10llu %s:%s\n", re->count, evs[i]->system, evs[i]->name);
	}
	printf("\nCPU statistics stored in the file:\n%s", cpustats && *cpustats ? cpustats :
	       "(none)\n");
}

static void rpt_free(struct rpt *r)
{
	for (unsigned int i = 0; r->events && i < r->nr_ids; i++) {
		trev_pfmt_free(r->events[i].pfmt);
		for (unsigned int k = 0; k < r->events[i].nr_filters; k++)
			trev__filter_free(r->events[i].filters[k]);
		free(r->events[i].filters);
	}
	for (unsigned int k = 0; k < r->nr_fargs; k++) {
		free(r->fargs[k].system);
		free(r->fargs[k].event);
	}
	free(r->events);
	free(r->fargs);
	free(r->cpu_on);
	free(r->records);
	free(r->lost);
	free(r->scratch);
	rpt_fg_free(r);
	if (r->handle)
		tracecmd_close(r->handle);
	trace_seq_destroy(&r->seq);
	trev__buf_free(&r->text);
	trev__buf_free(&r->line);
}

/*
 * Read and print the file (r->file, checked). Return: the exit status.
 * The caller frees what it allocated in @r.
 */
static int rpt_run(struct rpt *r, const char **cpu_args, unsigned int nr_cpu_args, bool stat)
{
	r->handle = rpt_open(r->file);
	if (!r->handle)
		return 1;
	r->tep = tracecmd_get_tep(r->handle);
	r->nr_cpus = tep_get_cpus(r->tep);
	if (r->nr_cpus <= 0 || r->nr_cpus > 4096) {
		trev_err("report: %s: the file holds no CPU data", r->file);
		return 1;
	}
	r->cpu_on = calloc((size_t)r->nr_cpus, sizeof(*r->cpu_on));
	r->records = calloc((size_t)r->nr_cpus, sizeof(*r->records));
	r->lost = calloc((size_t)r->nr_cpus, sizeof(*r->lost));
	/* A page: the longest record; the COMM a filter reads goes after it. */
	r->syn_off = (unsigned int)tracecmd_page_size(r->handle);
	if (r->syn_off < 4096 || r->syn_off > 65536 - 32)
		r->syn_off = 65536 - 32;
	r->scratch = calloc(1, r->syn_off + 16);
	if (!r->cpu_on || !r->records || !r->lost || !r->scratch) {
		trev_err("report: %s", strerror(ENOMEM));
		return 1;
	}
	for (unsigned int i = 0; i < nr_cpu_args; i++) {
		if (rpt_parse_cpus(cpu_args[i], r->cpu_on, r->nr_cpus, r->file))
			return 1;
	}
	if (!nr_cpu_args)
		memset(r->cpu_on, true, (size_t)r->nr_cpus * sizeof(*r->cpu_on));
	if (rpt_compile_filters(r))
		return 1;

	/* First pass: the counts for the header (or --stat); a fresh handle prints. */
	r->counting = true;
	if (rpt_iterate(r, r->handle) < 0) {
		trev_err("report: %s: cannot read its records", r->file);
		return 1;
	}
	if (stat) {
		rpt_print_stat(r);
		return fflush(stdout) ? 1 : 0;
	}
	tracecmd_close(r->handle);
	r->handle = rpt_open(r->file);
	if (!r->handle)
		return 1;
	r->tep = tracecmd_get_tep(r->handle);
	r->counting = false;
	if (rpt_fg_wanted(r)) {
		int ret = rpt_fg_print(r);

		if (ret < 0) {
			trev_err("report: %s: %s", r->file, strerror(-ret));
			return 1;
		}
		return fflush(stdout) ? 1 : 0;
	}
	if (!r->raw)
		rpt_print_header(r);
	if (rpt_iterate(r, r->handle) < 0) {
		trev_err("report: %s: cannot read its records", r->file);
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}

/*
 * libtracecmd 3.1.6 and libtraceevent 1.7.1 crash on some damaged files (a
 * v6 file cut inside its data: tracecmd_close() on tracecmd_open()'s own
 * error path; records whose fields point out of them). So the report runs
 * in a child process, once, writing to stdout itself (its stderr is passed
 * on when it ends, so that a crash's report is not shown); a child
 * that dies of anything but a broken pipe, rather than exiting with the
 * report's own status, means the file cannot be read. The crashes seen are
 * in opening the file, reading its records and printing an event of a
 * corrupt format: all in the first pass, which counts the records and
 * prints one of each event to nowhere before a line is printed
 * (docs/cli/trev-report.md, "What the libraries cannot take"). Return: the
 * report's exit status, or -1 when the child died.
 */
static int rpt_child(struct rpt *r, const char **cpu_args, unsigned int nr_cpu_args, bool stat)
{
	struct trev_buf err = TREV_BUF_INIT;
	int fds[2] = { -1, -1 }, status;
	pid_t pid;

	/* Its stderr comes through a pipe: shown when it ends well, not a crash's report. */
	if (pipe2(fds, O_CLOEXEC) < 0)
		fds[0] = fds[1] = -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return rpt_run(r, cpu_args, nr_cpu_args, stat);	/* no child: unguarded */
	}
	if (pid == 0) {
		if (fds[1] >= 0)
			dup2(fds[1], STDERR_FILENO);
		status = rpt_run(r, cpu_args, nr_cpu_args, stat);
		if (fflush(stdout))
			status = 1;
		/*
		 * Codes of its own: a sanitizer's report exits with 1. _exit(): no
		 * exit handlers (nor leak checks) for a copy of the parent.
		 */
		_exit(status == 0 ? RPT_CHILD_OK : RPT_CHILD_FAILED);
	}
	if (fds[1] >= 0) {
		char chunk[4096];
		ssize_t n;

		close(fds[1]);
		/* Messages are lines; past 1 MiB (a runaway report) they are dropped. */
		while ((n = read(fds[0], chunk, sizeof(chunk))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;
			if (err.len < (1u << 20))
				trev__buf_append(&err, chunk, (size_t)n);
		}
		close(fds[0]);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			status = -1;
			break;
		}
	if (status != -1 && WIFEXITED(status) && (WEXITSTATUS(status) == RPT_CHILD_OK ||
						WEXITSTATUS(status) == RPT_CHILD_FAILED)) {
		if (err.len)
			fwrite(err.data, 1, err.len, stderr);
		trev__buf_free(&err);
		return WEXITSTATUS(status) == RPT_CHILD_OK ? 0 : 1;
	}
	trev__buf_free(&err);
	if (status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE) {
		/* The reader of stdout went away: end as a plain writer would. */
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
		return 1;
	}
	return -1;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "raw", no_argument, NULL, 'r' },
		{ "flat", no_argument, NULL, 'f' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "filter", required_argument, NULL, 'F' },
		{ "stat", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rpt r = { .file = "trace.dat" };
	const char **cpu_args = NULL;
	unsigned int nr_cpu_args = 0;
	bool stat = false;
	int c, ret = 1;

	trace_seq_init(&r.seq);
	while ((c = getopt_long(argc, argv, "+rc:F:sh", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(report_help, stdout);
			ret = 0;
			goto out;
		case 'r':
			r.raw = true;
			break;
		case 'f':
			r.flat = true;
			break;
		case 's':
			stat = true;
			break;
		case 'c':
		case 'F': {
			void *p = c == 'c' ?
				realloc(cpu_args, (nr_cpu_args + 1) * sizeof(*cpu_args)) :
				realloc(r.fargs, (r.nr_fargs + 1) * sizeof(*r.fargs));

			if (!p) {
				trev_err("report: %s", strerror(ENOMEM));
				goto out;
			}
			if (c == 'c') {
				cpu_args = p;
				cpu_args[nr_cpu_args++] = optarg;
				break;
			}
			r.fargs = p;
			memset(&r.fargs[r.nr_fargs], 0, sizeof(r.fargs[0]));
			if (rpt_parse_filter_arg(&r.fargs[r.nr_fargs++], optarg)) {
				trev_err("report: %s", strerror(ENOMEM));
				goto out;
			}
			break;
		}
		default:
			fputs(report_help, stderr);
			ret = 2;
			goto out;
		}
	}
	if (optind < argc - 1) {
		fputs(report_help, stderr);
		ret = 2;
		goto out;
	}
	if (optind == argc - 1)
		r.file = argv[optind];
	/* --cpu syntax before the file: a usage error whatever the file holds. */
	for (unsigned int i = 0; i < nr_cpu_args; i++) {
		bool any[4096] = { false };

		if (rpt_parse_cpus(cpu_args[i], any, 4096, NULL)) {
			ret = 2;
			goto out;
		}
	}
	if (trev_check_dat_file("report", r.file))
		goto out;
	tracecmd_set_loglevel(TEP_LOG_NONE);
	fflush(stdout);
	ret = rpt_child(&r, cpu_args, nr_cpu_args, stat);
	if (ret < 0) {
		trev_err("report: %s: truncated or corrupt trace.dat (libtracecmd or libtraceevent "
			 "cannot read it)", r.file);
		ret = 1;
	}
out:
	free(cpu_args);
	rpt_free(&r);
	return ret;
}
