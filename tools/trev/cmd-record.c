/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev record: configure a process's tracing over its control socket (a
 * command it starts, held at start-up, or a running pid), copy its raw
 * pages into a trace.dat file while it runs, and stop when it exits or on
 * a signal. docs/cli/trev-record.md is the manual.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <trev/ring_buffer.h>

#include "base/buf.h"
#include "base/sock_dir.h"
#include "control/proto.h"
#include "dat_merge.h"
#include "kernel_rec.h"
#include "remote.h"
#include "remote_source.h"
#include "ring_buffer/rb_clock.h"
#include "ring_buffer/rb_page.h"
#include "ring_buffer/rb_shm.h"
#include "tracedat/tracedat_internal.h"
#include "net_listen.h"
#include "pages.h"
#include "rec_probe.h"
#include "rec_session.h"
#include "rec_stream.h"
#include "trev.h"

static const char record_help[] =
	"usage: trev record [-e EVENT [-f FILTER] [-T TRIGGER]...]... [--probe DEF]... [-t TRACER]\n"
	"                   [-b KB] [-C CLOCK] [-o FILE] [--stream] [--file-version 6|7]\n"
	"                   [--flush MS] [--wait SEC] [-K KEVENT]... [--kernel-output FILE]\n"
	"                   [-N HOST:PORT]\n"
	"                   (-p PID[,PID...] [-p PID]... [--clear] | -a [-u USER] [--clear] |\n"
	"                    [--no-follow] -- COMMAND ARGS...)\n"
	"\n"
	"Record the events of programs that use trev into a trace.dat file (default\n"
	"trace.dat) while they run: COMMAND and every process of its run that uses trev,\n"
	"or the -p processes; stop when they have ended, or on Ctrl-C. Several processes\n"
	"make a version 7 file with a buffer each (docs/sessions.md).\n"
	"\n"
	"  -e EVENT   enable events, set_event syntax: sys:event, sys, sys:*, event\n"
	"  -f FILTER  filter for the -e before it (events/.../filter)\n"
	"  -T TRIGGER trigger for the -e before it (events/.../trigger); repeatable\n"
	"  --probe DEF  a probe event, the kernel's uprobe_events syntax\n"
	"             ('p:app/req handle_request path=+0(%di):string'), defined and\n"
	"             enabled in each process whose objects hold its target; with a\n"
	"             COMMAND, its processes preload libtrev: programs that do not link\n"
	"             trev are probed too (docs/probes.md); repeatable\n"
	"  -t TRACER  current_tracer (function, function_graph: docs/function-tracer.md)\n"
	"  -b KB      buffer_size_kb\n"
	"  -C CLOCK   trace_clock\n"
	"  -o FILE    output file (default trace.dat)\n"
	"  --stream   print the events on stdout as they are read, as trev report prints\n"
	"             them (trace-cmd stream); no file is written unless -o is given\n"
	"  --file-version 6|7   trace.dat version (default 6; several processes: 7)\n"
	"  --flush MS pages are copied as they fill; partial ones at least every MS\n"
	"             milliseconds, and at the end (default 1000, with --stream 100;\n"
	"             0: every round)\n"
	"  -p PID     attach to running processes (repeatable, or PID,PID); their\n"
	"             settings are restored at the end\n"
	"  -a, --all  every process of this user that serves trev, there now or\n"
	"             starting while it records; Ctrl-C to stop\n"
	"  -u USER    with -a, as root: USER's processes\n"
	"  --clear    with -p or -a: empty each process's buffer first\n"
	"  -- COMMAND start COMMAND; it and each process it starts that uses trev are\n"
	"             held at start-up until tracing is configured\n"
	"  --no-follow  COMMAND alone (it must use trev), not the processes it starts\n"
	"  --wait SEC with --no-follow: how long COMMAND has to serve its socket (default 5)\n"
	"  -K, --kernel KEVENT  also record the kernel's events (set_event syntax,\n"
	"             repeatable; root), on the same clock (-C mono, mono_raw or boot;\n"
	"             default mono), in a kernel trace instance of their own\n"
	"  --kernel-output FILE the kernel's file (default kernel.dat beside -o)\n"
	"  -N HOST:PORT  send the recording to `trace-cmd listen` there (each process\n"
	"             a file of the listener's); with -o also written here, without -o\n"
	"             only sent (docs/streaming.md: no authentication, use a tunnel)\n"
	"\n"
	"Without -e, the events each process already has enabled are recorded.\n"
	"Progress (events/s, bytes, lost) shows on stderr when it is a terminal; a\n"
	"summary with per-CPU (or per-process) counts always ends the run.\n"
	"\n"
	"Exit status: COMMAND's (128 + N if signal N killed it) once the file is\n"
	"written; 1 on an error of trev record's own, 2 on a usage error.\n";

#define REC_MAX_TRIGGERS	8
#define REC_PROGRESS_MS		500	/* progress line refresh */
#define REC_SNAPSHOT_MS		1000	/* metadata kept for a process that gets killed */
#define REC_SNAPSHOT_MAX_MS	10000	/* ... with many processes, each this often at least */
#define REC_IDLE_POLL_MS	5	/* wait when no CPU has had a page to copy for a while */
#define REC_BUSY_POLL_US	250	/* the first wait after a round that copied pages */
#define REC_FLUSH_MS		1000	/* --flush: partial pages copied this often */
#define REC_STREAM_FLUSH_MS	100	/* ... with --stream: lines show this soon */
#define REC_BURST		64	/* pages read from one CPU before the next */
#define REC_FINAL_DRAIN_MS	2000	/* the last read of a process that still runs (-p) */

/* One -e with the -f and -T that follow it. */
struct rec_event {
	const char *spec;
	const char *filter;
	const char *triggers[REC_MAX_TRIGGERS];
	int nr_triggers;
};

/* -p: one write that puts back what we changed in a control file. */
struct rec_saved {
	char *path;		/* the control file */
	char *text;		/* the old value, "0" (no filter), "!TRIGGER" or "!sys:ev" */
	bool append;		/* ">>" (triggers, set_event), not ">" */
};

/* Such writes, done at the end in the order added. */
struct rec_saved_list {
	struct rec_saved *v;
	int n;
};

/* Per-CPU counts of what was recorded. */
struct rec_cpu {
	struct trev_page_tally t;	/* the pages written */
	uint64_t overrun, dropped, commit_overrun;	/* per_cpu/cpuN/stats at the end */
};

enum rec_end {
	REC_END_EXIT,		/* the process began to exit (exit hold) */
	REC_END_GONE,		/* the process vanished without exiting normally */
	REC_END_SIGNAL,		/* we were told to stop */
	REC_END_BROKEN,		/* it sent a malformed reply (reported): the connection is given up */
	REC_END_FAILED,		/* it could not be recorded to the end (reported) */
	REC_END_WRITE,		/* its file could not be written (write_err): stop reading */
	REC_END_NET,		/* its stream to the listener broke (-N): stop reading */
};

struct rec;

/* One process of the recording: its connections, its buffer and its file. */
struct rec_proc {
	struct rec *rec;		/* the recording: options, output */
	pid_t pid;
	char name[48];			/* "comm-pid": its buffer's name in a file of several */
	bool first;			/* the first process: its file is the output */
	bool attached;			/* -p: what we change is put back at the end */
	bool forked;			/* joined as a fork() child: its settings are its parent's */
	bool ended;			/* recorded and closed */
	enum rec_end end;		/* how its recording ended */
	struct trev_remote *r;		/* control and pages */
	struct trev_remote *hold;	/* HOLD's connection */
	struct trev_remote_source rs;
	struct trev_dat *dat;
	char *path;			/* its file */
	bool written;			/* its file is finished, or kept as far as it was written */
	int write_err;			/* the file's first write error (-errno), 0 */
	struct trev_net *net;		/* -N: its connection to the listener */
	bool net_broken;		/* ... which broke: stop reading */
	uint64_t net_bytes;		/* ... what it sent, once finished */
	int nr_cpus;
	struct rec_cpu *cpus;
	struct rec_meta *meta;		/* the metadata thread, with the buffer mapped */
	struct trev_stream_proc *sp;	/* --stream: its records printed */
	int64_t next_flush;		/* when partial pages are copied next (ms) */
	int64_t next_snapshot;		/* without the metadata thread: the next snapshot */
	unsigned int idle;		/* rounds in a row without a page */

	/*
	 * -p: what to put back (rec_restore()), list by list in this order:
	 * a subsystem's filter is written before its events' own filters, as
	 * writing it sets the filter of each of its events.
	 */
	char *old_set_event;			/* set_event as found */
	struct rec_saved_list triggers;		/* "!TRIGGER" for each trigger added */
	struct rec_saved_list sys_filters;	/* events/<sys>/filter: "0" or its old text */
	struct rec_saved_list filters;		/* events/<sys>/<ev>/filter: "0" or the old one */
	struct rec_saved_list enabled;		/* set_event: "!sys:ev" for each event we enabled */
	struct rec_saved_list probes;		/* uprobe_events: "-:GRP/EV" for each probe we made */
	struct rec_saved_list settings;		/* buffer_size_kb, trace_clock, current_tracer */
};

struct rec {
	struct rec_event *events;
	int nr_events;
	const char **probes;		/* --probe DEF */
	int *probe_taken;		/* ... how many processes took each */
	int nr_probes;
	char *preload;			/* --probe with a COMMAND: LD_PRELOAD for it */
	const char *buffer_kb;
	const char *clock;
	const char *tracer;		/* -t: current_tracer */
	const char *output;
	bool file;			/* a file is made: not --stream alone (-N: for its metadata) */
	bool output_given;		/* -o */
	bool streaming;			/* --stream */
	struct trev_stream *stream;	/* its output, once open */
	const char *net;		/* -N HOST:PORT */
	char *net_dir;			/* -N without -o: the local files' private directory */
	bool net_failed;		/* a listener's stream broke: the recording stops */
	char **kernel_specs;		/* -K */
	int nr_kernel_specs;
	char *kernel_output;		/* --kernel-output, or kernel.dat beside the output */
	struct trev_kernel *kernel;	/* the kernel's recording */
	int version;
	int wait_s;
	int flush_ms;			/* --flush */
	bool follow;			/* -- COMMAND: every process of the run (not --no-follow) */
	bool clear;			/* --clear: -p processes start from an empty buffer */
	bool all;			/* -a: every process of our user that serves trev */
	long all_uid;			/* -a -u USER (root): that user's processes; -1: ours */
	pid_t *pids;			/* -p */
	int nr_pids;
	bool own_child;			/* -- COMMAND */
	char **argv;			/* the command */
	pid_t cmd_pid;			/* the command, while it is ours to reap */
	int cmd_status;			/* its wait status, once reaped (-1 before) */

	struct trev_session *session;	/* -- COMMAND: where its processes join */
	struct rec_proc **procs;	/* in the order they came */
	int nr_procs;
	bool stopping;			/* told to stop: joiners are released untraced */
	bool write_failed;		/* a file could not be written: the recording stops */
	bool killed;			/* we killed the command: it refused its configuration */
	int failed;			/* processes whose recording failed */
	_Atomic int nr_live;		/* processes being recorded (their metadata threads read it) */
};

static volatile sig_atomic_t signals_seen;
static volatile sig_atomic_t signal_from_kill;	/* the last came from kill(), not a terminal */

static void rec_on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	signal_from_kill = si->si_code == SI_USER || si->si_code == SI_QUEUE;
	signals_seen++;
}

static void rec_on_pipe(int sig)
{
	(void)sig;
}

static int64_t rec_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------------ */
/* Configuration                                                        */

/*
 * How messages name @p: not at all for the first process, which is the
 * command or the -p process as before sessions; "process N (NAME): " for
 * the others, which came later.
 */
static const char *rec_label(const struct rec_proc *p, char *buf, size_t size)
{
	if (p->first)
		buf[0] = '\0';
	else
		snprintf(buf, size, "process %d (%s): ", (int)p->pid, p->name);
	return buf;
}

/* Write @text to @path (@append: >>); a refusal gets its line and its new error_log entries. */
static int rec_write(struct rec_proc *p, const char *path, const char *text, bool append)
{
	char *before = trev_error_log_read(p->r, path);
	int ret = trev_remote_write_file(p->r, path, text, append);
	char label[96];

	if (ret < 0) {
		trev_err("%s%s: '%s': %s", rec_label(p, label, sizeof(label)), path, text,
			 strerror(-ret));
		trev_show_error_log(p->r, path, before);
	}
	free(before);
	return ret;
}

/* A file's text without its trailing newline. Return: malloc'd text or NULL. */
static char *rec_read_line(struct rec_proc *p, const char *path)
{
	char *text = NULL;

	if (trev_remote_read_file(p->r, path, &text) < 0)
		return NULL;
	text[strcspn(text, "\n")] = '\0';
	return text;
}

/* Add the write of @text (malloc'd, taken over, NULL: out of memory) to @path to @l. */
static int rec_saved_add(struct rec_saved_list *l, const char *path, char *text, bool append)
{
	struct rec_saved *v = text ? realloc(l->v, (size_t)(l->n + 1) * sizeof(*v)) : NULL;
	char *p = v ? strdup(path) : NULL;

	if (v)
		l->v = v;
	if (!p) {
		free(text);
		return -ENOMEM;
	}
	l->v[l->n++] = (struct rec_saved){ p, text, append };
	return 0;
}

static bool rec_saved_has(const struct rec_saved_list *l, const char *path)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->v[i].path, path) == 0)
			return true;
	return false;
}

static void rec_saved_free(struct rec_saved_list *l)
{
	for (int i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].text);
	}
	free(l->v);
}

static char *rec_strdup2(const char *a, const char *b)
{
	char *s = malloc(strlen(a) + strlen(b) + 1);

	if (s)
		strcat(strcpy(s, a), b);
	return s;
}

/*
 * The directories (events/<sys>/ or events/<sys>/<event>/) a -e names:
 * "sys:ev" one event, "sys" or "sys:*" a system's directory when there is
 * one, anything else each event of available_events it matches.
 * @system_ok: a system's directory may stand for its events (filters).
 * Return: the count added to @dirs (malloc'd strings), or a negative errno.
 */
static int rec_event_dirs(struct rec_proc *p, const char *spec, bool system_ok, char ***dirs)
{
	const char *colon = strchr(spec, ':');
	char *avail = NULL, *line, *save = NULL, sys[256], ev[256];
	int n = 0, is_dir;
	unsigned int mode;
	char path[600];

	snprintf(sys, sizeof(sys), "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec), spec);
	snprintf(ev, sizeof(ev), "%s", colon ? colon + 1 : "*");
	if (!colon || strcmp(ev, "*") == 0) {
		snprintf(path, sizeof(path), "events/%s", sys);
		if (system_ok && !strpbrk(sys, "*?[") &&
		    trev_remote_stat(p->r, path, &is_dir, &mode) == 0 && is_dir) {
			*dirs = calloc(1, sizeof(char *));
			if (!*dirs || !((*dirs)[0] = strdup(path)))
				return -ENOMEM;
			return 1;
		}
	}
	if (trev_remote_read_file(p->r, "available_events", &avail) < 0)
		return -EIO;
	*dirs = NULL;
	for (line = strtok_r(avail, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c = strchr(line, ':'), **grown;

		if (!c)
			continue;
		*c = '\0';
		/* "ev" alone matches the event of any system, or a system (set_event's rule). */
		if (colon ? fnmatch(sys, line, 0) || fnmatch(ev, c + 1, 0)
			  : fnmatch(sys, line, 0) && fnmatch(sys, c + 1, 0))
			continue;
		grown = realloc(*dirs, (size_t)(n + 1) * sizeof(char *));
		if (!grown)
			break;
		*dirs = grown;
		snprintf(path, sizeof(path), "events/%s/%s", line, c + 1);
		if (!((*dirs)[n] = strdup(path)))
			break;
		n++;
	}
	free(avail);
	return n;
}

/* The selected clock of a trace_clock text ("local [global] ..."). */
static void rec_clock_name(const char *text, char *name, size_t size)
{
	const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;

	if (close)
		snprintf(name, size, "%.*s", (int)(close - open - 1), open + 1);
	else
		snprintf(name, size, "local");
}

/* -p: keep @file's value (buffer_size_kb, trace_clock) if we are to set it (@value). */
static int rec_save_setting(struct rec_proc *p, const char *file, const char *value)
{
	char *old, name[64];

	if (!value)
		return 0;
	old = rec_read_line(p, file);
	if (!old)
		return -EIO;
	if (strcmp(file, "trace_clock") == 0) {
		rec_clock_name(old, name, sizeof(name));
		free(old);
		old = strdup(name);
	}
	return rec_saved_add(&p->settings, file, old, false);
}

/*
 * -p: keep the filter of @dir, an event's directory or a subsystem's, once:
 * the first value found is the one put back. A subsystem's filter file is
 * also written to each of its events' (the kernel's semantics), so their
 * own filters are kept too. An event without a filter reads "none", a
 * subsystem without one the "### global filter ###" text: "0" clears both.
 */
static int rec_save_filter(struct rec_proc *p, const char *dir)
{
	bool is_sys = !strchr(dir + strlen("events/"), '/');
	struct rec_saved_list *l = is_sys ? &p->sys_filters : &p->filters;
	char path[600], spec[300], **evs = NULL, *old;
	int n, ret;

	snprintf(path, sizeof(path), "%s/filter", dir);
	if (rec_saved_has(l, path))
		return 0;
	old = rec_read_line(p, path);
	if (!old)
		return -EIO;
	if (strcmp(old, "none") == 0 || old[0] == '#' || old[0] == '\0') {
		free(old);
		old = strdup("0");
	}
	ret = rec_saved_add(l, path, old, false);
	if (ret || !is_sys)
		return ret;
	snprintf(spec, sizeof(spec), "%s:*", dir + strlen("events/"));
	n = rec_event_dirs(p, spec, false, &evs);
	ret = n < 0 ? n : 0;
	for (int i = 0; i < n; i++) {
		if (!ret)
			ret = rec_save_filter(p, evs[i]);
		free(evs[i]);
	}
	free(evs);
	return ret;
}

/* Whether @line is one of the lines of @text. */
static bool rec_has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = strstr(text, line); p; p = strstr(p + 1, line))
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
	return false;
}

/* -p: the events set_event lists now and did not when we came are ours to disable. */
static int rec_note_enabled(struct rec_proc *p)
{
	char *now = NULL, *line, *save = NULL;
	int ret = 0;

	if (trev_remote_read_file(p->r, "set_event", &now) < 0)
		return -EIO;
	for (line = strtok_r(now, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		bool known = rec_has_line(p->old_set_event, line);

		for (int i = 0; i < p->enabled.n && !known; i++)
			known = strcmp(p->enabled.v[i].text + 1, line) == 0;
		if (!known)
			ret = rec_saved_add(&p->enabled, "set_event", rec_strdup2("!", line), true);
	}
	free(now);
	return ret;
}

/* Write -f or a -T of @e into each of its directories' @file; -p keeps what it changes. */
static int rec_apply(struct rec_proc *p, const struct rec_event *e, const char *file,
		     const char *text)
{
	bool trigger = strcmp(file, "trigger") == 0;
	char **dirs = NULL, path[700];
	int n = rec_event_dirs(p, e->spec, !trigger, &dirs), ret = 0;

	if (n <= 0) {
		char label[96];

		trev_err("%s-e %s: no such event (for its %s)", rec_label(p, label, sizeof(label)),
			 e->spec, file);
		free(dirs);
		return -ENOENT;
	}
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], file);
		if (!ret && p->attached && !trigger)
			ret = rec_save_filter(p, dirs[i]);
		if (!ret)
			ret = rec_write(p, path, text, trigger);
		/* Only a trigger we added is removed: one that was there already stays. */
		if (!ret && p->attached && trigger)
			ret = rec_saved_add(&p->triggers, path, rec_strdup2("!", text), true);
		free(dirs[i]);
	}
	free(dirs);
	return ret;
}

/* Whether error_log text @log says a probe's target could not be found (its word's errors). */
static bool rec_probe_target_error(const char *log)
{
	return strstr(log, ": error: Invalid probed address or symbol\n") ||
	       strstr(log, ": error: Failed to find the given file\n");
}

/*
 * The probes @before (uprobe_events as it was) did not list, of @after:
 * each line's "GRP/EV" into @names (malloc'd, each "GRP/EV"). Return: the
 * count, or -ENOMEM.
 */
static int rec_probes_new(const char *before, char *after, char ***names)
{
	char *line, *save = NULL;
	int n = 0;

	*names = NULL;
	for (line = strtok_r(after, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *colon = strchr(line, ':');
		size_t len = colon ? strcspn(colon + 1, " ") : 0;
		char **grown;

		/* The process's text: a line that is not "X:GRP/EV ..." is not one of ours. */
		if (!len || !memchr(colon + 1, '/', len) || rec_has_line(before, line))
			continue;
		grown = realloc(*names, (size_t)(n + 1) * sizeof(*grown));
		if (!grown || !(grown[n] = strndup(colon + 1, len))) {
			*names = grown ? grown : *names;
			while (n--)
				free((*names)[n]);
			free(*names);
			*names = NULL;
			return -ENOMEM;
		}
		*names = grown;
		n++;
	}
	return n;
}

/*
 * --probe: write each definition to uprobe_events (">>": the process's own
 * probes stay), then enable the events they made (set_event "GRP:EV"). A
 * definition refused for its target, which none of the process's objects
 * holds (trev_probe_target_absent()), is not for this process: skipped.
 * Any other refusal is reported with its error_log entries and the caret,
 * and the probes made here so far are removed: a process has every probe
 * that applies to it, or none. -p keeps the removal of each for the end.
 * Return: 0 or a negative errno.
 */
static int rec_probes(struct rec_proc *p)
{
	struct rec *rec = p->rec;
	char *before = NULL, *after = NULL, **names = NULL, label[96], path[300];
	bool *took;
	int ret = 0, n = 0;

	if (!rec->nr_probes)
		return 0;
	took = calloc((size_t)rec->nr_probes, sizeof(*took));
	if (!took)
		return -ENOMEM;
	/* Named, the first too: with a preload the first process is often not the program. */
	snprintf(label, sizeof(label), "process %d (%s): ", (int)p->pid, p->name);
	if (trev_remote_read_file(p->r, "uprobe_events", &before) < 0) {
		trev_err("%suprobe_events cannot be read: a libtrev without probe events?", label);
		free(took);
		return -EIO;
	}
	for (int i = 0; i < rec->nr_probes && !ret; i++) {
		char *log = trev_error_log_read(p->r, "uprobe_events"), *made;

		ret = trev_remote_write_file(p->r, "uprobe_events", rec->probes[i], true);
		if (ret == 0) {
			took[i] = true;
			free(log);
			continue;
		}
		made = trev_error_log_new(p->r, "uprobe_events", log);
		if (ret == -EINVAL && made && rec_probe_target_error(made) &&
		    trev_probe_target_absent(p->pid, rec->probes[i])) {
			ret = 0;
		} else {
			trev_err("%suprobe_events: '%s': %s", label, rec->probes[i], strerror(-ret));
			if (made)
				fputs(made, stderr);
		}
		free(made);
		free(log);
	}
	if (trev_remote_read_file(p->r, "uprobe_events", &after) < 0 ||
	    (n = rec_probes_new(before, after, &names)) < 0) {
		trev_err("%suprobe_events cannot be read", label);
		ret = ret ? ret : -EIO;
		n = 0;
	}
	for (int i = 0; i < n; i++) {
		if (ret) {
			/* Refused: none of the probes, not some. */
			snprintf(path, sizeof(path), "-:%s", names[i]);
			if (trev_remote_write_file(p->r, "uprobe_events", path, true) < 0)
				trev_err("%suprobe_events: '%s' could not be removed", label, path);
			continue;
		}
		snprintf(path, sizeof(path), "%s", names[i]);
		if (!strchr(path, '/'))
			continue;	/* longer than any name the library makes */
		*strchr(path, '/') = ':';
		if (p->attached && rec_saved_add(&p->probes, "uprobe_events",
						 rec_strdup2("-:", names[i]), true) < 0)
			ret = -ENOMEM;
		if (!ret)
			ret = rec_write(p, "set_event", path, true);
	}
	if (ret && n)
		trev_err("%sthe %d probe%s made before the refusal %s removed", label, n,
			 n == 1 ? "" : "s", n == 1 ? "was" : "were");
	if (!ret && p->attached && rec_note_enabled(p) < 0)
		ret = -EIO;
	/* Counted for the end's warning only where they stay. */
	for (int i = 0; i < rec->nr_probes && !ret; i++)
		rec->probe_taken[i] += took[i];
	free(took);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(before);
	free(after);
	return ret;
}

/* Set up buffer size, clock, events, filters and triggers; -p also saves what it changes. */
static int rec_configure(struct rec_proc *p)
{
	int ret;

	if (p->attached) {
		ret = trev_remote_read_file(p->r, "set_event", &p->old_set_event);
		if (ret >= 0)
			ret = rec_save_setting(p, "buffer_size_kb", p->rec->buffer_kb);
		if (ret >= 0)
			ret = rec_save_setting(p, "trace_clock", p->rec->clock);
		if (ret >= 0)
			ret = rec_save_setting(p, "current_tracer", p->rec->tracer);
		if (ret < 0) {
			trev_err("process %d: cannot read its tracing settings", (int)p->pid);
			return ret;
		}
	}
	if (p->rec->buffer_kb && (ret = rec_write(p, "buffer_size_kb", p->rec->buffer_kb, false)) < 0)
		return ret;
	if (p->rec->clock && (ret = rec_write(p, "trace_clock", p->rec->clock, false)) < 0)
		return ret;
	if (p->rec->tracer && (ret = rec_write(p, "current_tracer", p->rec->tracer, false)) < 0)
		return ret;
	/* Before -e: a -e, -f or -T may name a probe's event. */
	if ((ret = rec_probes(p)) < 0)
		return ret;
	for (int i = 0; i < p->rec->nr_events; i++) {
		const struct rec_event *e = &p->rec->events[i];

		/* Filter and triggers first: no event gets in unfiltered. */
		ret = e->filter ? rec_apply(p, e, "filter", e->filter) : 0;
		for (int t = 0; !ret && t < e->nr_triggers; t++)
			ret = rec_apply(p, e, "trigger", e->triggers[t]);
		if (!ret) {
			/* A glob may have enabled some events before it failed. */
			ret = rec_write(p, "set_event", e->spec, true);
			if (p->attached && rec_note_enabled(p) < 0 && !ret)
				ret = -EIO;
		}
		if (ret < 0)
			return ret;
	}
	return 0;
}

/*
 * -p: put back what rec_configure() changed, list by list in the order of
 * struct rec; a write that fails is reported and the others still done.
 * Return: 0 or the first error.
 */
static int rec_restore(struct rec_proc *p)
{
	const struct rec_saved_list *lists[] = {
		&p->triggers, &p->sys_filters, &p->filters, &p->enabled, &p->probes, &p->settings,
	};
	int ret = 0;

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		for (int j = 0; j < lists[i]->n; j++) {
			const struct rec_saved *s = &lists[i]->v[j];
			int err = trev_remote_write_file(p->r, s->path, s->text, s->append);

			if (err < 0) {
				trev_err("process %d: %s: '%s' could not be put back: %s",
					 (int)p->pid, s->path, s->text, strerror(-err));
				if (!ret)
					ret = err;
			}
		}
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* Starting the command                                                 */

/*
 * Fork and exec the command. Following the run, with TREV_SESSION naming
 * our session's socket: every process of the run that uses trev joins
 * before its first event, and the command itself need not use trev. With
 * --no-follow, with TREV_ATTACH_WAIT instead: the command waits for our
 * RELEASE once its socket is up, and it alone is recorded.
 * Return: 0, or -errno of exec (reported; the child is reaped).
 */
static int rec_spawn(struct rec *rec)
{
	int pipefd[2], err = 0;
	char wait_text[16], tsc[64] = "";
	ssize_t n;

	/*
	 * Following the run: our TSC conversion for `local`, so that every process of the
	 * run maps the TSC onto one time line, not each onto its own calibration
	 * (docs/sessions.md, "Clocks"); it also spares each the 2 ms of calibrating.
	 */
	if (rec->session) {
		trev__clock_init();
		if (trev__tsc.usable)
			snprintf(tsc, sizeof(tsc), "%llu:%llu", (unsigned long long)trev__tsc.mult,
				 (unsigned long long)trev__tsc.offset);
	}

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		trev_err("pipe: %s", strerror(errno));
		return -errno;
	}
	rec->cmd_pid = fork();
	if (rec->cmd_pid < 0) {
		err = -errno;
		trev_err("fork: %s", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		return err;
	}
	if (rec->cmd_pid == 0) {
		/* --probe: every process of the run gets libtrev, so its functions can be probed. */
		if (rec->preload)
			setenv("LD_PRELOAD", rec->preload, 1);
		if (rec->session) {
			setenv("TREV_SESSION", trev_session_path(rec->session), 1);
			if (tsc[0])
				setenv("TREV_TSC", tsc, 1);
		} else {
			/* Longer than we wait for its socket: we release it, or give up first. */
			snprintf(wait_text, sizeof(wait_text), "%d", rec->wait_s + 10);
			setenv("TREV_ATTACH_WAIT", wait_text, 1);
		}
		execvp(rec->argv[0], rec->argv);
		err = errno;
		if (write(pipefd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	do
		n = read(pipefd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (n == sizeof(err)) {
		trev_err("%s: %s", rec->argv[0], strerror(err));
		waitpid(rec->cmd_pid, NULL, 0);
		rec->cmd_pid = 0;
		return -err;
	}
	return 0;
}

/*
 * Reap what of the run has ended, without waiting; the command's status is
 * kept. Following the run we are the subreaper of every process it starts
 * (prctl(PR_SET_CHILD_SUBREAPER)), so its orphans come to us as well.
 * Return: true while a process of the run may still be alive: following,
 * any child of ours; else the command.
 */
static bool rec_reap(struct rec *rec)
{
	int status;
	pid_t p;

	if (!rec->own_child || (!rec->follow && rec->cmd_pid <= 0))
		return false;
	for (;;) {
		p = waitpid(rec->follow ? -1 : rec->cmd_pid, &status, WNOHANG);
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0)
			return false;	/* ECHILD: nothing of the run is left */
		if (p == 0)
			return true;
		if (p == rec->cmd_pid) {
			rec->cmd_pid = 0;
			rec->cmd_status = status;
			if (!rec->follow)
				return false;
		}
	}
}

/* Wait for the command itself, if it still runs. */
static void rec_wait_command(struct rec *rec)
{
	int status;
	pid_t p;

	if (!rec->own_child || rec->cmd_pid <= 0)
		return;
	do
		p = waitpid(rec->cmd_pid, &status, 0);
	while (p < 0 && errno == EINTR);
	if (p == rec->cmd_pid)
		rec->cmd_status = status;
	rec->cmd_pid = 0;
}

/*
 * Say how the command ended (wait status @wstatus) and return the exit status
 * that passes it on, as time(1), shells and perf record do: its own, or 128 +
 * the signal that killed it.
 */
static int rec_child_end(const struct rec *rec, int wstatus)
{
	int sig;

	if (!WIFSIGNALED(wstatus)) {
		trev_err("%s exited with status %d", rec->argv[0], WEXITSTATUS(wstatus));
		return WEXITSTATUS(wstatus);
	}
	sig = WTERMSIG(wstatus);
	trev_err("%s was killed by signal %d (%s)", rec->argv[0], sig, strsignal(sig));
	return 128 + sig;
}

/* --no-follow: wait for the command's own socket. Return: 0, or -1 after a message. */
static int rec_wait_child_socket(struct rec *rec)
{
	int64_t end = rec_now_ms() + (int64_t)rec->wait_s * 1000;
	struct trev_remote *r = NULL;
	char why[512];

	for (;;) {
		int ret = trev_remote_connect(rec->cmd_pid, &r, why, sizeof(why));

		if (ret == 0) {
			trev_remote_close(r);
			return 0;
		}
		rec_reap(rec);
		if (rec->cmd_pid == 0) {
			trev_err("%s does not use trev (it exited without a control socket)",
				 rec->argv[0]);
			return -1;
		}
		/* A zombie has no environment to read: try again, it is reaped above. */
		if (ret != -ENOENT && ret != -ESRCH) {
			trev_err("%s", why);
			return -1;
		}
		if (signals_seen) {
			trev_err("interrupted before %s served its socket", rec->argv[0]);
			return -1;
		}
		if (rec_now_ms() >= end) {
			trev_err("%s does not use trev (no socket after %d s)", rec->argv[0],
				 rec->wait_s);
			return -1;
		}
		usleep(20000);
	}
}

/* ------------------------------------------------------------------ */
/* Recording one process                                                */

/*
 * What a round of reads copies: full pages only, as trace-cmd record does
 * through the kernel's splice read, so that the file holds whole pages and
 * not a page per event; but once every --flush interval the partial pages
 * too (of CPUs with at most REC_BURST pages to copy), so that a process
 * killed mid-run loses about that much at most. The final drain takes
 * everything (flags 0). A page source takes the flag as an argument of
 * read_page(), whichever it is.
 */
static unsigned int rec_read_flags(struct rec_proc *p)
{
	int64_t now = rec_now_ms();

	if (now < p->next_flush)
		return TREV_DAT_READ_FULL;
	p->next_flush = now + p->rec->flush_ms;
	return 0;
}

/*
 * Write @page to the file and count it: one walk over its records does
 * both (--stream alone: no file, the count's own walk); --stream takes
 * its records for the round's lines; -N sends it to the listener too.
 */
static int rec_add_page(struct rec_proc *p, int cpu, const unsigned char *page)
{
	struct trev__dat_page_count cnt;
	struct trev_page_tally *t = &p->cpus[cpu].t;
	int ret = 0;

	if (p->sp && (ret = trev_stream_page(p->sp, cpu, page)) < 0)
		return ret;
	if (!p->dat) {
		trev_page_tally_add(t, page);
		return 0;
	}
	/* -N alone: the file is made for its metadata, the pages only sent. */
	ret = p->rec->net_dir ? trev__dat_scan_page(p->dat, page, &cnt)
			      : trev__dat_add_page(p->dat, cpu, page, &cnt);
	if (ret < 0) {
		p->write_err = ret;
		return ret;
	}
	t->pages++;
	t->entries += cnt.entries;
	t->lost += cnt.lost;
	t->lost_pages += cnt.lost_unknown;
	if (p->net && trev_net_send_page(p->net, cpu, page, TREV_DAT_PAGE_SIZE) < 0) {
		p->net_broken = true;
		return -ECOMM;
	}
	return 0;
}

/*
 * Read pages until none is ready: with the buffer mapped, whichever CPU's
 * comes next (read_page_any()), at most REC_BURST per CPU in a round;
 * over the socket, each CPU in turn, at most REC_BURST pages of one CPU at
 * a time. @flags: read_page()'s, rec_read_flags().
 * Return: the pages added, or a negative errno.
 */
static long rec_drain_once(struct rec_proc *p, unsigned int flags)
{
	static unsigned char page[TREV_DAT_PAGE_SIZE];
	const struct trev_dat_source *src = &p->rs.src;
	long added = 0;
	int cpu;

	/* As many pages in one round either way: then the caller looks around. */
	while (src->read_page_any && added < (long)REC_BURST * p->nr_cpus) {
		int ret = src->read_page_any(src, page, &cpu, flags);

		if (ret <= 0)
			return ret < 0 ? ret : added;
		if (cpu >= p->nr_cpus)
			return -ERANGE;
		ret = rec_add_page(p, cpu, page);
		if (ret < 0)
			return ret;
		added++;
	}
	if (src->read_page_any)
		return added;
	for (cpu = 0; cpu < p->nr_cpus; cpu++) {
		for (int i = 0; i < REC_BURST; i++) {
			int ret = src->read_page(src, cpu, page, flags);

			if (ret < 0)
				return ret;
			if (ret == 0)
				break;
			ret = rec_add_page(p, cpu, page);
			if (ret < 0)
				return ret;
			added++;
		}
	}
	return added;
}

static void rec_proc_totals(const struct rec_proc *p, uint64_t *entries, uint64_t *lost,
			    uint64_t *pages)
{
	for (int cpu = 0; cpu < p->nr_cpus; cpu++) {
		*entries += p->cpus[cpu].t.entries;
		*lost += p->cpus[cpu].t.lost;
		*pages += p->cpus[cpu].t.pages;
	}
}

static void rec_totals(const struct rec *rec, uint64_t *entries, uint64_t *lost, uint64_t *pages)
{
	*entries = *lost = *pages = 0;
	for (int i = 0; i < rec->nr_procs; i++)
		rec_proc_totals(rec->procs[i], entries, lost, pages);
}

static void rec_progress(const struct rec *rec, int64_t start_ms, uint64_t *last_entries,
			 int64_t *last_ms)
{
	uint64_t entries, lost, pages;
	int64_t now = rec_now_ms();
	double rate;

	rec_totals(rec, &entries, &lost, &pages);
	rate = now > *last_ms ? (double)(entries - *last_entries) * 1000.0 / (double)(now - *last_ms)
			      : 0.0;
	fprintf(stderr, "\r\033[Ktrev: %.1f s  %.0f events/s  %llu events  %.1f MB  %llu lost",
		(double)(now - start_ms) / 1000.0, rate, (unsigned long long)entries,
		(double)pages * TREV_DAT_PAGE_SIZE / 1e6, (unsigned long long)lost);
	if (rec->nr_procs > 1)
		fprintf(stderr, "  %d processes", rec->nr_procs);
	*last_entries = entries;
	*last_ms = now;
}

/*
 * The losses per_cpu/cpuN/stats counts, for the summary. With the buffer
 * mapped here, overruns are met by our reads, so our view counts them (and
 * still does once the process is gone); refused writes are counted in the
 * process only.
 */
static void rec_read_stats(struct rec_proc *p, bool alive, bool final)
{
	for (int cpu = 0; cpu < p->nr_cpus; cpu++) {
		char path[64], *text = NULL, *at;
		struct rec_cpu *c = &p->cpus[cpu];
		struct trev_rb_stats st;

		/* The mapping outlives the process: read it at the end only. */
		if (final && p->rs.shm && trev_rb_cpu_stats(p->rs.shm, cpu, &st) == 0)
			c->overrun = st.overrun;
		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
		if (!alive || trev_remote_read_file(p->r, path, &text) < 0)
			continue;
		if (!p->rs.shm && (at = strstr(text, "\noverrun: ")))
			c->overrun = strtoull(at + 10, NULL, 10);
		if ((at = strstr(text, "commit overrun: ")))
			c->commit_overrun = strtoull(at + 16, NULL, 10);
		if ((at = strstr(text, "dropped events: ")))
			c->dropped = strtoull(at + 16, NULL, 10);
		free(text);
	}
}

/*
 * Once a second the process's metadata (formats, symbols: what a file
 * needs if the process is killed) and its loss counts are read over the
 * socket. That takes 10-30 ms, in which a writer at 2 M events/s fills most
 * of a default buffer; with the buffer mapped here the pages do not come
 * over the socket, so a thread of its own does it and page copying never
 * waits. It alone uses the control connection until rec_meta_stop().
 */
struct rec_meta {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;		/* under lock: leave now */
	struct rec_proc *p;
};

/*
 * How often a process's metadata is read again: every second for one
 * process; with N, every N seconds (at most REC_SNAPSHOT_MAX_MS), so that
 * the snapshots of a session cost what one process's do (each takes 10-30
 * ms of the recorder: they were most of what recording 8 processes cost).
 */
static int64_t rec_snapshot_ms(const struct rec *rec)
{
	int64_t ms = (int64_t)REC_SNAPSHOT_MS * atomic_load(&rec->nr_live);

	return ms < REC_SNAPSHOT_MS ? REC_SNAPSHOT_MS : ms > REC_SNAPSHOT_MAX_MS ?
	       REC_SNAPSHOT_MAX_MS : ms;
}

static void *rec_meta_run(void *arg)
{
	struct rec_meta *m = arg;
	struct timespec due;

	clock_gettime(CLOCK_MONOTONIC, &due);
	pthread_mutex_lock(&m->lock);
	for (;;) {
		int64_t ms = rec_snapshot_ms(m->p->rec);

		due.tv_sec += ms / 1000;
		due.tv_nsec += (ms % 1000) * 1000000;
		if (due.tv_nsec >= 1000000000) {
			due.tv_sec++;
			due.tv_nsec -= 1000000000;
		}
		while (!m->stop && pthread_cond_timedwait(&m->cond, &m->lock, &due) != ETIMEDOUT)
			;
		if (m->stop)
			break;
		pthread_mutex_unlock(&m->lock);
		if (m->p->dat)
			trev_dat_snapshot(m->p->dat);
		rec_read_stats(m->p, true, false);
		pthread_mutex_lock(&m->lock);
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

/* Start the thread (signals stay with the main thread). NULL: do it inline. */
static struct rec_meta *rec_meta_start(struct rec_proc *p)
{
	struct rec_meta *m = calloc(1, sizeof(*m));
	pthread_condattr_t ca;
	sigset_t all, old;
	int err;

	if (!m)
		return NULL;
	m->p = p;
	pthread_mutex_init(&m->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->cond, &ca);
	pthread_condattr_destroy(&ca);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&m->thread, NULL, rec_meta_run, m);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&m->cond);
		pthread_mutex_destroy(&m->lock);
		free(m);
		return NULL;
	}
	return m;
}

/* Stop the thread and wait for it: the control connection is ours again. */
static void rec_meta_stop(struct rec_meta *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->stop = true;
	pthread_cond_signal(&m->cond);
	pthread_mutex_unlock(&m->lock);
	pthread_join(m->thread, NULL);
	pthread_cond_destroy(&m->cond);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/* The process's name, "comm-pid", for its buffer and our messages. */
static void rec_proc_name(struct rec_proc *p)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)p->pid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	/* A buffer's name is one word of a report's line: no blank, no '/'. */
	for (char *c = comm; *c; c++)
		if (*c <= ' ' || *c == '/' || *c == ':' || *c == '=' || *c > '~')
			*c = '_';
	snprintf(p->name, sizeof(p->name), "%s-%d", comm[0] ? comm : "process", (int)p->pid);
}

/* The whole of /proc/PID/@what into @b (left empty when it cannot be read). */
static void rec_proc_file(pid_t pid, const char *what, struct trev_buf *b)
{
	char path[64], chunk[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	f = fopen(path, "re");
	if (!f)
		return;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		trev__buf_append(b, chunk, n);
	fclose(f);
}

/*
 * The process's pid, name and mapped files into its file's options
 * (PROCMAPS, docs/formats.md): the file then says which process its top
 * buffer is. Mappings are those of now, when it joins or is attached.
 */
static void rec_proc_maps(struct rec_proc *p)
{
	struct trev_buf comm = TREV_BUF_INIT, maps = TREV_BUF_INIT;

	rec_proc_file(p->pid, "comm", &comm);
	rec_proc_file(p->pid, "maps", &maps);
	if (comm.len && comm.data[comm.len - 1] == '\n')
		comm.data[--comm.len] = '\0';
	if (comm.err || maps.err || trev__dat_set_proc(p->dat, (int)p->pid,
						       comm.len ? comm.data : NULL, maps.data))
		trev_err("process %d (%s): its pid and mappings are not in the file: %s",
			 (int)p->pid, p->name, strerror(ENOMEM));
	trev__buf_free(&comm);
	trev__buf_free(&maps);
}

static void rec_proc_free(struct rec_proc *p)
{
	rec_saved_free(&p->triggers);
	rec_saved_free(&p->sys_filters);
	rec_saved_free(&p->filters);
	rec_saved_free(&p->enabled);
	rec_saved_free(&p->probes);
	rec_saved_free(&p->settings);
	free(p->old_set_event);
	free(p->cpus);
	free(p->path);
	free(p);
}

/* Give up @p before it records: nothing of it is written; -p settings put back. */
static void rec_proc_drop(struct rec_proc *p, bool release)
{
	if (p->dat)
		trev_dat_abort(p->dat);
	p->dat = NULL;
	trev_net_abort(p->net);
	p->net = NULL;
	if (p->attached && p->r && rec_restore(p) < 0)
		trev_err("process %d: its tracing settings could not all be restored", (int)p->pid);
	if (release && p->r)
		trev_remote_release(p->r);
	if (p->r)
		trev_remote_source_close(&p->rs);
	trev_stream_proc_end(p->sp);
	trev_remote_close(p->hold);
	trev_remote_close(p->r);
	p->hold = p->r = NULL;
	p->ended = true;
	p->end = REC_END_FAILED;
}

/*
 * -N: @p's connection to the listener, its metadata begun with the
 * snapshot just taken. Return: 0, or -1 after a message.
 */
static int rec_proc_net_open(struct rec_proc *p)
{
	struct trev_buf head = TREV_BUF_INIT;
	char err[320];
	int ret = trev__dat_snapshot_head_v6(p->dat, &head);

	if (ret < 0) {
		trev_err("%s: its metadata cannot be read: %s", p->name, strerror(-ret));
		trev__buf_free(&head);
		return -1;
	}
	p->net = trev_net_open(p->rec->net, p->nr_cpus, head.data, head.len,
			       trev_remote_timeout(), err, sizeof(err));
	trev__buf_free(&head);
	if (!p->net) {
		trev_err("-N %s", err);
		return -1;
	}
	/* The listener names its file after our end of the connection. */
	trev_err("%s: sending to %s from port %u (the listener's file: trace.HOST:%u.dat)",
		 p->name, p->rec->net, trev_net_port(p->net), trev_net_port(p->net));
	return 0;
}

/* Whether @p has nothing to record: set_event empty, current_tracer nop. */
static bool rec_proc_idle(struct rec_proc *p)
{
	char *events = NULL, *tracer = rec_read_line(p, "current_tracer");
	bool idle = tracer && strcmp(tracer, "nop") == 0 &&
		    trev_remote_read_file(p->r, "set_event", &events) >= 0 &&
		    events[strspn(events, "\n")] == '\0';

	free(events);
	free(tracer);
	return idle;
}

/*
 * Start recording process @pid: connect, take its buffer (MAP), configure
 * it (not a fork() child, whose settings are its parent's), open its file,
 * hold its exit, and release it when it waits for us (@held). A refused
 * setting is reported; with @tolerant the process is recorded with the
 * settings it took, else it is given up.
 * With --probe and a COMMAND, a process that has nothing to record (no probe
 * applies to it, no event enabled, no tracer) is released untraced and not
 * kept: the processes of the run all have libtrev, most only for the probes.
 * Return: 0; 1 when it was released so; -1 when it cannot be recorded (reported; a held process is
 * released); -2 when its configuration was refused (not @tolerant): it is
 * still held, for the caller to kill.
 */
static int rec_proc_start(struct rec *rec, pid_t pid, bool attached, bool forked, bool held,
			  bool tolerant)
{
	struct rec_proc *p = calloc(1, sizeof(*p)), **grown;
	char why[512], label[96];
	bool config_refused = false, config_partial = false;
	int ret;

	grown = p ? realloc(rec->procs, (size_t)(rec->nr_procs + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(p);
		trev_err("process %d: %s", (int)pid, strerror(ENOMEM));
		rec->failed++;
		return -1;
	}
	rec->procs = grown;
	rec->procs[rec->nr_procs++] = p;
	p->rec = rec;
	p->pid = pid;
	p->first = rec->nr_procs == 1;
	p->attached = attached;
	p->forked = forked;
	rec_proc_name(p);
	rec_label(p, label, sizeof(label));

	ret = trev_remote_connect(pid, &p->r, why, sizeof(why));
	if (ret < 0) {
		trev_err("%s%s", label, why[0] ? why : strerror(-ret));
		p->r = NULL;
		goto out_drop;
	}
	trev_remote_source_init(&p->rs, p->r, pid);
	/* Before anything is changed: a process has one consumer at a time. */
	ret = trev_remote_source_map(&p->rs);
	if (ret == -EBUSY) {
		trev_err("process %d is being recorded already (another trev record consumes "
			 "its buffer)%s", (int)pid, rec->all ? ": left to it" : "");
		if (rec->all) {
			rec_proc_drop(p, held);
			return -1;	/* -a: not ours, and no failure of ours */
		}
		goto out_drop;
	}
	if (ret < 0)
		trev_err("process %d: its buffer cannot be mapped here (%s); pages come over the "
			 "socket, and end with the process", (int)pid, strerror(-ret));
	else if (!p->rs.busy_mapped)
		trev_err("process %d: its writers' busy words cannot be mapped here (an older "
			 "trev?): a CPU's events may be out of time order where a writer was "
			 "preempted mid-event", (int)pid);
	/* --clear: the kernel's "echo > trace", the events it had are not recorded. */
	if (rec->clear && attached && rec_write(p, "trace", "", false) < 0)
		goto out_drop;
	if (!forked && rec_configure(p) < 0) {
		if (!tolerant) {
			config_refused = true;
			goto out_drop;
		}
		config_partial = true;
	}
	/* --probe: a process of the run that has it only for the preload and nothing to record. */
	if (rec->preload && rec_proc_idle(p)) {
		if (config_partial)
			trev_err("%sit has nothing left to record: it runs on, untraced", label);
		rec_proc_drop(p, held);
		rec->procs[--rec->nr_procs] = NULL;
		rec_proc_free(p);
		return 1;
	}
	if (config_partial)
		trev_err("%srecorded with the settings it took", label);
	/* --stream: its formats and names now, before it runs on (and from here on with a file). */
	if (rec->stream && !(p->sp = trev_stream_proc_add(rec->stream, pid, p->name, !p->first,
							    p->rs.shm, &p->nr_cpus)))
		goto out_drop;
	if (!rec->file)
		goto no_file;
	if (p->first)
		p->path = strdup(rec->output);
	else if (asprintf(&p->path, "%s.%s", rec->output, p->name) < 0)
		p->path = NULL;
	if (!p->path) {
		trev_err("%s%s", label, strerror(ENOMEM));
		goto out_drop;
	}
	ret = trev_dat_open(&p->dat, p->path, rec->version, &p->rs.src);
	if (ret < 0) {
		trev_err("%s: %s", p->path, strerror(-ret));
		goto out_drop;
	}
	p->nr_cpus = trev_dat_nr_cpus(p->dat);
	rec_proc_maps(p);
no_file:
	p->cpus = calloc((size_t)p->nr_cpus, sizeof(*p->cpus));
	if (p->nr_cpus > TREV_REMOTE_MAX_CPUS || !p->cpus) {
		trev_err("%d CPUs: more than one connection reads (%d)", p->nr_cpus,
			 TREV_REMOTE_MAX_CPUS);
		goto out_drop;
	}
	/* The exit hold, on a connection of its own: its reply says the process is exiting. */
	ret = trev_remote_connect(pid, &p->hold, why, sizeof(why));
	if (ret < 0 || (ret = trev_remote_hold(p->hold)) < 0) {
		trev_err("%s%s", label, ret < 0 && why[0] ? why : strerror(-ret));
		goto out_drop;
	}
	if (p->dat)
		trev_dat_snapshot(p->dat);
	if (rec->net && rec_proc_net_open(p) < 0) {
		/* The recording stops; a command held at start-up does not run untraced. */
		rec->net_failed = true;
		config_refused = p->first && held;
		goto out_drop;
	}
	if (held && (ret = trev_remote_release(p->r)) < 0) {
		trev_err("%srelease: %s", label, strerror(-ret));
		goto out_drop;
	}
	p->next_flush = rec_now_ms() + rec->flush_ms;
	p->next_snapshot = rec_now_ms() + REC_SNAPSHOT_MS;
	atomic_fetch_add(&rec->nr_live, 1);
	if (p->rs.shm)
		p->meta = rec_meta_start(p);
	return 0;
out_drop:
	rec_proc_drop(p, held && !config_refused);
	if (config_refused)
		return -2;
	rec->failed++;
	return -1;
}

/*
 * -N: finish @p's stream with the metadata @head6 its file was finished
 * with (none: the file's metadata could not be read, nothing to finish),
 * or say why it broke; *@end becomes REC_END_NET then.
 */
static void rec_proc_net_end(struct rec_proc *p, const struct trev_buf *head6, enum rec_end *end)
{
	char err[320];

	if (!p->net)
		return;
	if (p->net_broken) {
		trev_err("%s: sending to %s: %s; recording stopped", p->name, p->rec->net,
			 trev_net_error(p->net));
		trev_net_abort(p->net);
	} else if (!head6->len) {
		trev_err("%s: its metadata could not be read: %s gets no file for it", p->name,
			 p->rec->net);
		trev_net_abort(p->net);
		p->net_broken = true;
	} else {
		if (trev_net_finish(p->net, head6->data, head6->len, &p->net_bytes, err,
				    sizeof(err)) < 0) {
			trev_err("%s: sending to %s: %s", p->name, p->rec->net, err);
			p->net_broken = true;
		}
	}
	p->net = NULL;
	if (p->net_broken) {
		p->rec->net_failed = true;
		*end = REC_END_NET;
	}
}

/*
 * Stop recording @p (@end: why): the last pages, partial ones too, until
 * every CPU is empty (a buffer mapped here outlives its process: a process
 * that died leaves every event it committed); the loss counts; its file
 * written; -p settings put back; then the exit hold let go.
 */
static void rec_proc_finish(struct rec_proc *p, enum rec_end end)
{
	struct rec *rec = p->rec;
	struct trev_buf head6 = TREV_BUF_INIT;
	struct trev__dat_kept kept = { .head6 = p->net && !p->net_broken ? &head6 : NULL };
	char label[96], who[64];
	long got;
	int ret;

	rec_meta_stop(p->meta);
	p->meta = NULL;
	atomic_fetch_sub(&rec->nr_live, 1);
	rec_label(p, label, sizeof(label));
	if (end != REC_END_BROKEN && end != REC_END_WRITE && end != REC_END_NET &&
	    (end != REC_END_GONE || p->rs.shm)) {
		int64_t until = rec_now_ms() + REC_FINAL_DRAIN_MS;

		/* A write its death cut short never ends: nothing to wait for. */
		if (end == REC_END_GONE)
			trev_rb_writers_gone(p->rs.shm);
		while ((got = rec_drain_once(p, 0)) > 0) {
			/* Stopped by us: the process may write on for ever. */
			if (end == REC_END_SIGNAL && rec_now_ms() >= until) {
				trev_err("process %d is still writing: stopped reading after %d ms",
					 (int)p->pid, REC_FINAL_DRAIN_MS);
				break;
			}
		}
		if (got == -EUCLEAN && p->rs.shm) {
			char why[256];

			if (trev_mapped_damage(p->rs.shm, why, sizeof(why)))
				trev_err("process %d: its buffer is damaged: %s", (int)p->pid, why);
		}
		if (p->write_err)
			end = REC_END_WRITE;
		else if (p->net_broken)
			end = REC_END_NET;
		else if (got < 0)
			end = got == -EPROTO ? REC_END_BROKEN : REC_END_GONE;
	}
	rec_read_stats(p, end != REC_END_GONE && end != REC_END_BROKEN, true);
	if (p->first && rec->own_child)
		snprintf(who, sizeof(who), "the program");
	else
		snprintf(who, sizeof(who), "process %d", (int)p->pid);
	kept.head6 = p->net_broken ? NULL : kept.head6;
	trev_stream_proc_end(p->sp);	/* its records are taken: printed at the round's end */
	ret = p->dat ? trev__dat_finish(p->dat, &kept) : 0;
	p->written = p->dat != NULL;
	p->dat = NULL;
	rec_proc_net_end(p, &head6, &end);
	trev__buf_free(&head6);
	if (end == REC_END_WRITE || ret < 0) {
		uint64_t entries = 0, lost = 0, pages = 0;

		/* The program goes on (without us): a file that cannot be written is ours to report. */
		rec_proc_totals(p, &entries, &lost, &pages);
		if (end == REC_END_WRITE)
			trev_err("writing %s: %s; recording stopped after %llu events; %s runs on "
				 "untraced", p->path, strerror(-p->write_err),
				 (unsigned long long)entries, who);
		else
			trev_err("writing %s: %s; its last pages are not in it", p->path,
				 strerror(-ret));
		if (kept.kept && ret < 0)
			trev_err("%s keeps the %llu events written before (a valid trace.dat)",
				 p->path, (unsigned long long)kept.entries);
		else if (!kept.kept && ret < 0)
			trev_err("%s: nothing was written", p->path);
		p->written = ret == 0 || kept.kept;
		end = REC_END_WRITE;
		rec->write_failed = true;
	} else {
		p->written = p->written && ret == 0;
	}
	/* A later process of a run (a fork() child that calls _exit()) need not say it. */
	if (end == REC_END_GONE && p->rs.shm && p->first)
		trev_err("%s ended without exiting normally: every event it committed was read "
			 "from its buffer", rec->own_child ? rec->argv[0] : p->name);
	else if (end == REC_END_GONE && !p->rs.shm)
		trev_err("%s ended without exiting normally: its last events are lost",
			 p->first && rec->own_child ? rec->argv[0] : p->name);
	else if (end == REC_END_EXIT && p->attached)
		trev_err("process %d exited", (int)p->pid);
	if (p->attached && end != REC_END_GONE && end != REC_END_EXIT && rec_restore(p) < 0) {
		trev_err("process %d: its tracing settings could not all be restored", (int)p->pid);
		end = REC_END_FAILED;
	}
	if (end == REC_END_FAILED || end == REC_END_BROKEN || end == REC_END_WRITE ||
	    end == REC_END_NET)
		rec->failed++;
	p->end = end;
	p->ended = true;
	trev_remote_source_close(&p->rs);
	trev_remote_close(p->hold);	/* ends the exit hold */
	p->hold = NULL;
	trev_remote_close(p->r);
	p->r = NULL;
}

/*
 * One round of @p: the pages ready, whether it began to exit, and (without
 * the metadata thread) the once-a-second snapshot.
 * Return: the pages copied, or -1 once its recording ended.
 */
static long rec_proc_round(struct rec_proc *p)
{
	unsigned int flags = rec_read_flags(p);
	long got = rec_drain_once(p, flags);
	int held;

	/* -N: the pages that wait for more go when nothing more came, and at each flush. */
	if (p->net && got >= 0 && (got == 0 || !flags) && trev_net_flush(p->net) < 0) {
		p->net_broken = true;
		got = -ECOMM;
	}
	/* A flush: the pages copied reach the file on disk, as a killed recorder leaves it. */
	if (got >= 0 && !flags && p->dat && (got = trev__dat_sync(p->dat)) < 0)
		p->write_err = (int)got;
	if (p->write_err) {
		rec_proc_finish(p, REC_END_WRITE);
		return -1;
	}
	if (got < 0 && p->net_broken) {
		rec_proc_finish(p, REC_END_NET);
		return -1;
	}
	if (got < 0) {
		/* A process that dies takes its socket with it. */
		rec_proc_finish(p, got == -EPROTO ? REC_END_BROKEN : REC_END_GONE);
		return -1;
	}
	/* The listener went away while no page was sent. */
	if (p->net && trev_net_broken(p->net)) {
		p->net_broken = true;
		rec_proc_finish(p, REC_END_NET);
		return -1;
	}
	held = trev_remote_hold_wait(p->hold, 0);
	if (held != 0) {
		rec_proc_finish(p, held == 1 ? REC_END_EXIT
				   : held == -EPROTO ? REC_END_BROKEN : REC_END_GONE);
		return -1;
	}
	if (!p->meta && rec_now_ms() >= p->next_snapshot) {
		if (p->dat)
			trev_dat_snapshot(p->dat);
		rec_read_stats(p, true, false);
		p->next_snapshot = rec_now_ms() + rec_snapshot_ms(p->rec);
	}
	return got;
}

/* ------------------------------------------------------------------ */
/* Recording the session                                                */

/* A process that joined once we stop: let it go, untraced. */
static void rec_release_untraced(pid_t pid)
{
	struct trev_remote *r = NULL;
	char why[512];

	if (trev_remote_connect(pid, &r, why, sizeof(why)) == 0) {
		trev_remote_release(r);
		trev_remote_close(r);
	}
}

/* Whether process @pid is being recorded (or was, in this run). */
static bool rec_recorded(const struct rec *rec, pid_t pid)
{
	for (int i = 0; i < rec->nr_procs; i++)
		if (rec->procs[i]->pid == pid && !rec->procs[i]->ended)
			return true;
	return false;
}

/*
 * -a: the socket directory of user @uid's processes. Ours: as our processes
 * find it (trev__sock_dir()). Another's (root's -u): $TREV_SOCKET_DIR when
 * set, else $XDG_RUNTIME_DIR/trev of a login session (/run/user/UID/trev)
 * when there is one, else /tmp/trev-UID: where that user's processes put
 * their sockets by default (docs/control-socket.md).
 */
static int rec_all_dir(uid_t uid, char *dir, size_t size)
{
	const char *env = getenv("TREV_SOCKET_DIR");
	struct stat st;
	int n;

	if (uid == geteuid() || (env && *env))
		return trev__sock_dir(dir, size);
	n = snprintf(dir, size, "/run/user/%u/trev", (unsigned int)uid);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	n = snprintf(dir, size, "/tmp/trev-%u", (unsigned int)uid);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/*
 * -a: attach to every process of our user that serves trev now in our
 * socket directory (@dir: where processes that start join us too, so both
 * kinds are the same set); those that start later join (rec_take_joins()).
 * A process that another recorder consumes is left to it.
 */
static void rec_attach_all(struct rec *rec, const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		struct trev_remote *r;
		char why[512], *end;
		long pid = strtol(de->d_name, &end, 10);

		if (pid <= 0 || strcmp(end, ".sock") || pid == getpid() ||
		    rec_recorded(rec, (pid_t)pid))
			continue;
		/* Its socket, checked as every client checks it (a stale one refuses). */
		if (trev_remote_connect((pid_t)pid, &r, why, sizeof(why)) < 0)
			continue;
		trev_remote_close(r);
		rec_proc_start(rec, (pid_t)pid, true, false, false, true);
	}
	if (d)
		closedir(d);
}

/*
 * Take the processes that joined: each is recorded from its first event.
 * A process whose configuration is refused is reported and recorded with
 * what it took, unless it is the first of the run: then it and the command
 * are killed before anything ran traced, and the recording stops
 * (returns -1), as for a --no-follow command.
 */
static int rec_take_joins(struct rec *rec)
{
	struct trev_joiner j;
	char why[256];
	int ret;

	while (rec->session) {
		ret = trev_session_accept(rec->session, 0, &j, why, sizeof(why));
		if (why[0])
			trev_err("%s", why);
		if (ret != 1)
			break;
		if (rec->stopping || rec_recorded(rec, j.pid)) {
			rec_release_untraced(j.pid);
			continue;
		}
		/* -a: what we set is put back at the end, as for -p. */
		if (rec_proc_start(rec, j.pid, rec->all, j.forked, true,
				   rec->all || rec->nr_procs > 0) == -2) {
			kill(j.pid, SIGKILL);
			if (rec->cmd_pid > 0)
				kill(rec->cmd_pid, SIGKILL);
			rec->killed = true;
			return -1;
		}
	}
	return 0;
}

static int rec_live(const struct rec *rec)
{
	int n = 0;

	for (int i = 0; i < rec->nr_procs; i++)
		n += !rec->procs[i]->ended;
	return n;
}

/*
 * Copy pages until every process ended or we are stopped. Following a
 * command, the run ends when the command and every process it started have
 * ended; until then processes that join are recorded too.
 */
static void rec_loop(struct rec *rec)
{
	/* --stream: the lines are the progress (stdout may be the same terminal). */
	bool tty = isatty(STDERR_FILENO) && !rec->stream;
	int64_t start = rec_now_ms(), next_progress = start + REC_PROGRESS_MS, last_ms = start;
	uint64_t last_entries = 0;
	unsigned int idle_us = REC_IDLE_POLL_MS * 1000;
	int forwarded = 0;

	for (;;) {
		long got = 0;
		bool run_alive;

		if (rec_take_joins(rec) < 0) {
			rec->stopping = true;
			break;
		}
		for (int i = 0; i < rec->nr_procs; i++) {
			struct rec_proc *p = rec->procs[i];
			long n = p->ended ? 0 : rec_proc_round(p);

			if (n > 0)
				got += n;
		}
		/* The round's records, merged by time; a signal in a wait for stdout is seen below. */
		if (rec->stream)
			trev_stream_flush(rec->stream, false);
		/* A file that cannot be written (a full disk): every process runs on untraced. */
		if (rec->write_failed || rec->net_failed) {
			rec->stopping = true;
			break;
		}
		run_alive = rec_reap(rec);
		if (signals_seen > forwarded) {
			/*
			 * Our own command gets one SIGINT from us when the signal was
			 * sent to us alone (a terminal's Ctrl-C reached it already);
			 * we record until the run ends. A second signal, or -p, stops now.
			 */
			if (rec->own_child && forwarded == 0 && rec->cmd_pid > 0) {
				if (signal_from_kill)
					kill(rec->cmd_pid, SIGINT);
				forwarded = signals_seen;
			} else {
				rec->stopping = true;
				break;
			}
		}
		if (!rec->all && !rec_live(rec) && !run_alive) {
			/* A joiner is a process of the run: none can be waiting now; look once more. */
			if (rec_take_joins(rec) < 0 || !rec_live(rec))
				break;
		}
		if (tty && rec_now_ms() >= next_progress) {
			rec_progress(rec, start, &last_entries, &last_ms);
			next_progress += REC_PROGRESS_MS;
		}
		/*
		 * No page to copy: the data there is (if any) waits for its page
		 * to fill. Right after pages came the wait is short, doubling up
		 * to REC_IDLE_POLL_MS: a writer that fills pages fast fills a
		 * default buffer in a few milliseconds. Joins wake us at once.
		 */
		if (got == 0) {
			if (rec->session) {
				struct pollfd pf = { .fd = trev_session_fd(rec->session),
						     .events = POLLIN };

				poll(&pf, 1, (int)(idle_us / 1000) ? (int)(idle_us / 1000) : 1);
			} else {
				usleep(idle_us);
			}
			idle_us = idle_us * 2 < REC_IDLE_POLL_MS * 1000 ? idle_us * 2
								 : REC_IDLE_POLL_MS * 1000;
		} else {
			idle_us = REC_BUSY_POLL_US;
		}
	}
	for (int i = 0; i < rec->nr_procs; i++)
		if (!rec->procs[i]->ended)
			rec_proc_finish(rec->procs[i], REC_END_SIGNAL);
	if (rec->stream)
		trev_stream_flush(rec->stream, true);
	if (tty)
		fputs("\r\033[K", stderr);
}

/* This process's CPU time, user and system: what recording cost. */
static double rec_cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0.0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* The losses @p's process counted: overruns (commit overruns too), refused writes. */
static void rec_proc_losses(const struct rec_proc *p, uint64_t *overrun, uint64_t *dropped,
			    uint64_t *lost_pages)
{
	for (int cpu = 0; cpu < p->nr_cpus; cpu++) {
		*overrun += p->cpus[cpu].overrun + p->cpus[cpu].commit_overrun;
		*dropped += p->cpus[cpu].dropped;
		*lost_pages += p->cpus[cpu].t.lost_pages;
	}
}

/*
 * The table: per CPU for one process (as before sessions), per process for
 * several; then the totals, the rates and the file.
 */
static void rec_summary(const struct rec *rec, double seconds, int buffers, long long file_bytes)
{
	uint64_t entries, lost, pages, overrun = 0, dropped = 0, lost_pages = 0;
	const struct rec_proc *one = rec->nr_procs == 1 ? rec->procs[0] : NULL;

	if (one) {
		fprintf(stderr, "CPU %12s %10s %10s %10s %8s %12s\n", "entries", "lost", "overrun",
			"dropped", "pages", "bytes");
		for (int cpu = 0; cpu < one->nr_cpus; cpu++) {
			const struct rec_cpu *c = &one->cpus[cpu];

			fprintf(stderr, "%3d %12llu %10llu %10llu %10llu %8llu %12llu\n", cpu,
				(unsigned long long)c->t.entries, (unsigned long long)c->t.lost,
				(unsigned long long)c->overrun, (unsigned long long)c->dropped,
				(unsigned long long)c->t.pages,
				(unsigned long long)c->t.pages * TREV_DAT_PAGE_SIZE);
		}
	} else {
		fprintf(stderr, "%-24s %12s %10s %10s %10s %8s\n", "PROCESS", "entries", "lost",
			"overrun", "dropped", "pages");
	}
	for (int i = 0; i < rec->nr_procs; i++) {
		const struct rec_proc *p = rec->procs[i];
		uint64_t e = 0, l = 0, pg = 0, o = 0, d = 0, lp = 0;

		rec_proc_totals(p, &e, &l, &pg);
		rec_proc_losses(p, &o, &d, &lp);
		overrun += o;
		dropped += d;
		lost_pages += lp;
		if (!one)
			fprintf(stderr, "%-24s %12llu %10llu %10llu %10llu %8llu%s\n", p->name,
				(unsigned long long)e, (unsigned long long)l,
				(unsigned long long)o, (unsigned long long)d,
				(unsigned long long)pg,
				p->written || !rec->file ? "" : "  (not written)");
	}
	rec_totals(rec, &entries, &lost, &pages);
	fprintf(stderr, "trev: %llu events, %llu lost (in the %s; the process%s counted %llu "
		"overrun, %llu dropped)",
		(unsigned long long)entries, (unsigned long long)lost,
		rec->file ? "file" : "pages read", one ? "" : "es",
		(unsigned long long)overrun, (unsigned long long)dropped);
	if (lost_pages)
		fprintf(stderr, ", %llu pages with an unknown loss", (unsigned long long)lost_pages);
	fprintf(stderr, "\n");
	fprintf(stderr, "trev: %.2f s, %.0f events/s, %.2f MB/s, %.2f s of CPU\n", seconds,
		seconds > 0 ? (double)entries / seconds : 0.0,
		seconds > 0 ? (double)pages * TREV_DAT_PAGE_SIZE / 1e6 / seconds : 0.0,
		rec_cpu_seconds());
	if (rec->net) {
		uint64_t sent = 0;
		int conns = 0;

		for (int i = 0; i < rec->nr_procs; i++) {
			sent += rec->procs[i]->net_bytes;
			conns += rec->procs[i]->net_bytes > 0;
		}
		fprintf(stderr, "trev: sent %llu bytes to %s (%d file%s of the listener's, %.1f "
			"bytes per event)\n", (unsigned long long)sent, rec->net, conns,
			conns == 1 ? "" : "s", entries ? (double)sent / (double)entries : 0.0);
	}
	if (file_bytes >= 0 && buffers > 1)
		fprintf(stderr, "trev: wrote %s (version 7, %d processes, a buffer each, %lld "
			"bytes)\n", rec->output, buffers, file_bytes);
	else if (file_bytes >= 0)
		fprintf(stderr, "trev: wrote %s (version %d, %lld bytes)\n", rec->output,
			rec->version, file_bytes);
	if ((file_bytes >= 0 || !rec->file) && entries == 0)
		fprintf(stderr, "trev: warning: no event was recorded (is any enabled? trev list "
			"-p PID shows a process's events)\n");
}

/*
 * The files of several processes as one: the first process's (the
 * output) is the top buffer, each other's a buffer named after it
 * (dat_merge.c). Written beside the output, then renamed over it; the
 * parts go. Return: the number of buffers in the output, or -1 after a
 * message (the parts are left, and named).
 */
static int rec_merge(struct rec *rec)
{
	struct trev_merge_in *in = calloc((size_t)rec->nr_procs, sizeof(*in));
	struct trev_merge_stats st;
	char err[512], *tmp = NULL;
	int n = 0, ret;

	if (!in)
		return -1;
	for (int i = 0; i < rec->nr_procs; i++) {
		const struct rec_proc *p = rec->procs[i];

		if (!p->written)
			continue;
		in[n].path = p->path;
		in[n].name = n ? p->name : "";
		n++;
	}
	if (n <= 1) {
		/* One file, or none: nothing to join; a later process's file becomes the output. */
		ret = n && strcmp(in[0].path, rec->output) && rename(in[0].path, rec->output) < 0;
		if (ret)
			trev_err("%s: %s; the recording is %s", rec->output, strerror(errno),
				 in[0].path);
		free(in);
		return ret ? -1 : n;
	}
	if (asprintf(&tmp, "%s.merging", rec->output) < 0) {
		free(in);
		return -1;
	}
	ret = trev_dat_merge(tmp, in, n, &st, err, sizeof(err));
	if (!ret && rename(tmp, rec->output) < 0) {
		snprintf(err, sizeof(err), "%s: %s", rec->output, strerror(errno));
		ret = -1;
	}
	if (ret) {
		trev_err("joining the processes' files: %s; they are left as they are: %s and "
			 "%s.*", err, rec->output, rec->output);
		unlink(tmp);
		n = -1;
	} else {
		for (int i = 1; i < n; i++)
			unlink(in[i].path);
	}
	free(tmp);
	free(in);
	return n;
}

/* ------------------------------------------------------------------ */
/* The command                                                          */

/*
 * -K: both sides on one clock the kernel and trev share (trev's local is not
 * the kernel's local, docs/ring-buffer.md); the kernel's file beside ours.
 */
static int rec_parse_kernel(struct rec *rec)
{
	static const char *const shared[] = { "mono", "mono_raw", "boot" };
	const char *slash;
	bool ok = false;

	if (!rec->nr_kernel_specs) {
		if (rec->kernel_output) {
			trev_err("--kernel-output needs -K");
			return -1;
		}
		return 0;
	}
	if (!rec->clock)
		rec->clock = "mono";
	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++)
		ok |= strcmp(rec->clock, shared[i]) == 0;
	if (!ok) {
		trev_err("-K: -C %s is not on the kernel's time line; give mono, mono_raw or boot",
			 rec->clock);
		return -1;
	}
	if (!rec->kernel_output) {
		slash = strrchr(rec->output, '/');
		if (asprintf(&rec->kernel_output, "%.*skernel.dat",
			     slash ? (int)(slash - rec->output + 1) : 0, rec->output) < 0) {
			rec->kernel_output = NULL;
			return -1;
		}
	}
	if (strcmp(rec->kernel_output, rec->output) == 0) {
		trev_err("-K: the kernel's file and the program's are both %s (-o, --kernel-output)",
			 rec->output);
		return -1;
	}
	return 0;
}

/* -p PID[,PID...]: each once. */
static int rec_parse_pids(struct rec *rec, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int ret = copy ? 0 : -1;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		pid_t pid = trev_parse_pid(tok), *grown;
		bool seen = false;

		if (pid < 0) {
			ret = -1;
			break;
		}
		for (int i = 0; i < rec->nr_pids; i++)
			seen |= rec->pids[i] == pid;
		if (seen)
			continue;
		grown = realloc(rec->pids, (size_t)(rec->nr_pids + 1) * sizeof(*grown));
		if (!grown) {
			ret = -1;
			break;
		}
		rec->pids = grown;
		rec->pids[rec->nr_pids++] = pid;
	}
	if (!ret && copy && !rec->nr_pids) {
		trev_err("-p '%s': no process id", arg);
		ret = -1;
	}
	free(copy);
	return ret;
}

static int rec_parse(struct rec *rec, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "filter", required_argument, NULL, 'f' },
		{ "trigger", required_argument, NULL, 'T' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "clock", required_argument, NULL, 'C' },
		{ "tracer", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "file-version", required_argument, NULL, 'V' },
		{ "wait", required_argument, NULL, 'W' },
		{ "flush", required_argument, NULL, 'F' },
		{ "stream", no_argument, NULL, 'S' },
		{ "kernel", required_argument, NULL, 'K' },
		{ "kernel-output", required_argument, NULL, 'O' },
		{ "no-follow", no_argument, NULL, 'n' },
		{ "clear", no_argument, NULL, 'c' },
		{ "all", no_argument, NULL, 'a' },
		{ "user", required_argument, NULL, 'u' },
		{ "probe", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rec_event *e;
	char *end;
	long ms;
	int c;

	while ((c = getopt_long(argc, argv, "+e:f:T:t:b:C:o:p:K:N:au:h", opts, NULL)) != -1) {
		e = rec->nr_events ? &rec->events[rec->nr_events - 1] : NULL;
		switch (c) {
		case 'h':
			fputs(record_help, stdout);
			exit(0);
		case 'e':
			e = realloc(rec->events, (size_t)(rec->nr_events + 1) * sizeof(*e));
			if (!e)
				return -1;
			rec->events = e;
			memset(&e[rec->nr_events], 0, sizeof(*e));
			e[rec->nr_events++].spec = optarg;
			break;
		case 'f':
			if (!e || e->filter) {
				trev_err(e ? "-f: one filter per -e" : "-f needs an -e before it");
				return -1;
			}
			e->filter = optarg;
			break;
		case 'T':
			if (!e || e->nr_triggers == REC_MAX_TRIGGERS) {
				trev_err(e ? "-T: at most %d per -e" : "-T needs an -e before it",
					 REC_MAX_TRIGGERS);
				return -1;
			}
			e->triggers[e->nr_triggers++] = optarg;
			break;
		case 'b':
			strtoul(optarg, &end, 10);
			if (!*optarg || *end) {
				trev_err("-b takes a size in KB, not '%s'", optarg);
				return -1;
			}
			rec->buffer_kb = optarg;
			break;
		case 'C':
			rec->clock = optarg;
			break;
		case 'P': {
			const char **defs = realloc(rec->probes, (size_t)(rec->nr_probes + 1) *
						    sizeof(*defs));

			if (!defs)
				return -1;
			rec->probes = defs;
			defs[rec->nr_probes++] = optarg;
			break;
		}
		case 't':
			rec->tracer = optarg;
			break;
		case 'o':
			rec->output = optarg;
			rec->output_given = true;
			break;
		case 'S':
			rec->streaming = true;
			break;
		case 'p':
			if (rec_parse_pids(rec, optarg) < 0)
				return -1;
			break;
		case 'n':
			rec->follow = false;
			break;
		case 'N':
			rec->net = optarg;
			break;
		case 'c':
			rec->clear = true;
			break;
		case 'a':
			rec->all = true;
			break;
		case 'u': {
			struct passwd *pw = getpwnam(optarg);
			long uid = strtol(optarg, &end, 10);

			if (pw)
				uid = (long)pw->pw_uid;
			else if (!*optarg || *end || uid < 0)
				uid = -1;
			if (uid < 0) {
				trev_err("-u: no user '%s'", optarg);
				return -1;
			}
			rec->all_uid = uid;
			break;
		}
		case 'V':
			if (strcmp(optarg, "6") && strcmp(optarg, "7")) {
				trev_err("--file-version is 6 or 7, not '%s'", optarg);
				return -1;
			}
			rec->version = atoi(optarg);
			break;
		case 'W':
			/* Checked as a long: a cast first would take 4294967297 for 1. */
			ms = strtol(optarg, &end, 10);
			if (!*optarg || *end || ms <= 0 || ms > 3600) {
				trev_err("--wait takes 1..3600 seconds, not '%s'", optarg);
				return -1;
			}
			rec->wait_s = (int)ms;
			break;
		case 'K': {
			char **specs = realloc(rec->kernel_specs, (size_t)(rec->nr_kernel_specs + 1) *
					       sizeof(*specs));

			if (!specs)
				return -1;
			rec->kernel_specs = specs;
			specs[rec->nr_kernel_specs++] = optarg;
			break;
		}
		case 'O':
			free(rec->kernel_output);
			rec->kernel_output = strdup(optarg);
			if (!rec->kernel_output)
				return -1;
			break;
		case 'F':
			ms = strtol(optarg, &end, 10);
			if (!*optarg || *end || ms < 0 || ms > 3600000) {
				trev_err("--flush takes 0..3600000 milliseconds, not '%s'", optarg);
				return -1;
			}
			rec->flush_ms = (int)ms;
			break;
		default:
			return -1;
		}
	}
	rec->argv = argv + optind;
	rec->own_child = optind < argc;
	if (rec->own_child + (rec->nr_pids > 0) + rec->all != 1) {
		trev_err((rec->own_child + (rec->nr_pids > 0) + rec->all) ?
			 "-p, -a and a COMMAND: give one" : "give -p PID, -a or -- COMMAND");
		return -1;
	}
	if (rec->all_uid >= 0 && !rec->all) {
		trev_err("-u is for -a");
		return -1;
	}
	if (rec->all_uid >= 0 && (uid_t)rec->all_uid != geteuid() && geteuid() != 0) {
		trev_err("-u: recording another user's processes needs root");
		return -1;
	}
	if (rec->nr_probes && rec->all) {
		trev_err("--probe is for -- COMMAND and -p (-a records processes that start "
			 "without a preloaded libtrev)");
		return -1;
	}
	if (rec->nr_probes && !(rec->probe_taken = calloc((size_t)rec->nr_probes, sizeof(int))))
		return -1;
	if (rec->clear && !rec->nr_pids && !rec->all) {
		trev_err("--clear is for -p and -a (a command starts with an empty buffer)");
		return -1;
	}
	rec->follow = rec->follow && rec->own_child;
	/* --stream writes a file only when asked to (trace-cmd stream writes none). */
	rec->file = !rec->streaming || rec->output_given || rec->net;
	if (rec->flush_ms < 0)
		rec->flush_ms = rec->streaming ? REC_STREAM_FLUSH_MS : REC_FLUSH_MS;
	return rec_parse_kernel(rec);
}

/* Check that the output can be made, before anything starts. */
static int rec_check_output(const char *path)
{
	char *dir = strdup(path), *slash;
	struct stat st;
	int ret = 0;

	if (!dir)
		return -ENOMEM;
	if (trev_check_output(path) < 0) {
		free(dir);
		return -EACCES;
	}
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		ret = -EISDIR;
	else if (access(slash ? dir : ".", W_OK | X_OK) < 0)
		ret = -errno;
	else if (access(path, F_OK) == 0 && access(path, W_OK) < 0)
		ret = -errno;
	free(dir);
	if (ret)
		trev_err("%s: %s", path, strerror(-ret));
	return ret;
}

static void rec_free(struct rec *rec)
{
	for (int i = 0; i < rec->nr_procs; i++)
		rec_proc_free(rec->procs[i]);
	free(rec->procs);
	free(rec->pids);
	free(rec->events);
	free(rec->probes);
	free(rec->probe_taken);
	free(rec->preload);
	trev_probe_targets_free();
	free(rec->kernel_specs);
	free(rec->kernel_output);
	if (rec->net_dir) {
		rmdir(rec->net_dir);	/* only if empty: a kept recording stays */
		free((char *)rec->output);
		free(rec->net_dir);
	}
	trev_stream_close(rec->stream);
}

/*
 * -N without -o: the files are made (their metadata is what is sent) in a
 * directory of our own, and go at the end unless sending failed.
 */
static int rec_net_dir(struct rec *rec)
{
	const char *tmp = getenv("TMPDIR");
	char *out = NULL;

	if (asprintf(&rec->net_dir, "%s/trev-record.XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0) {
		rec->net_dir = NULL;
		return -1;
	}
	if (!mkdtemp(rec->net_dir) || asprintf(&out, "%s/trace.dat", rec->net_dir) < 0) {
		trev_err("%s: %s", rec->net_dir, strerror(errno));
		free(rec->net_dir);
		rec->net_dir = NULL;
		return -1;
	}
	rec->output = out;
	return 0;
}

/* -N without -o, everything sent: the local files go. Return: the processes sent. */
static int rec_net_dir_clean(struct rec *rec)
{
	int n = 0;

	for (int i = 0; i < rec->nr_procs; i++) {
		if (rec->procs[i]->written)
			n++;
		if (rec->procs[i]->path)
			unlink(rec->procs[i]->path);
	}
	return n;
}

/*
 * trev record: start or attach, record until the run ends or we are
 * stopped, write the file (joined, for several processes), say how it went.
 */
int cmd_record(int argc, char **argv)
{
	struct rec rec = { .output = "trace.dat", .version = 6, .wait_s = 5,
			   .flush_ms = -1, .follow = true, .cmd_status = -1,
			   .all_uid = -1 };
	struct sigaction sa = { .sa_sigaction = rec_on_signal, .sa_flags = SA_SIGINFO };
	int64_t start_ms = 0;
	struct stat st;
	int ret, status = 1, buffers = 0;
	bool kernel_failed = false;

	if (rec_parse(&rec, argc, argv) < 0) {
		fputs(record_help, stderr);
		rec_free(&rec);
		return 2;
	}
	/* --probe: the command and its processes preload libtrev (docs/probes.md). */
	if (rec.nr_probes && rec.own_child) {
		char lib[PATH_MAX], why[PATH_MAX + 128];

		if (trev_preload_library(lib, sizeof(lib), why, sizeof(why)) < 0) {
			trev_err("--probe: no libtrev to preload: %s", why);
			rec_free(&rec);
			return 1;
		}
		rec.preload = trev_preload_env(lib);
		if (!rec.preload) {
			trev_err("--probe: %s", strerror(ENOMEM));
			rec_free(&rec);
			return 1;
		}
	}
	if (rec.net && !rec.output_given && rec_net_dir(&rec) < 0) {
		rec_free(&rec);
		return 1;
	}
	if ((rec.file && rec_check_output(rec.output) < 0) ||
	    (rec.kernel_output && rec_check_output(rec.kernel_output) < 0)) {
		rec_free(&rec);
		return 1;
	}
	if (rec.streaming && trev_stream_open(&rec.stream, STDOUT_FILENO) < 0) {
		trev_err("--stream: %s", strerror(ENOMEM));
		rec_free(&rec);
		return 1;
	}
	/* Before the command starts: no root or no tracefs refuses the whole recording. */
	if (rec.nr_kernel_specs && trev_kernel_setup(&rec.kernel, rec.clock, rec.kernel_specs,
						     rec.nr_kernel_specs) < 0) {
		rec_free(&rec);
		return 1;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* --stream: a reader that goes is an EPIPE of ours to report (a handler, unlike
	 * SIG_IGN, is not inherited by the command). */
	if (rec.stream)
		sigaction(SIGPIPE, &(struct sigaction){ .sa_handler = rec_on_pipe }, NULL);

	if (rec.follow) {
		/* The run's orphans are ours to reap: we see when the last process of it ends. */
		ret = prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 ? -errno : 0;
		if (!ret)
			ret = trev_session_open(&rec.session);
		if (ret < 0) {
			trev_err("session: %s", strerror(-ret));
			goto out_free;
		}
	}
	/* The kernel's file covers the whole run: tracing goes on in it first. */
	if (rec.kernel && trev_kernel_start(rec.kernel, rec.kernel_output, rec.version,
					    rec.flush_ms) < 0)
		goto out_free;
	if (rec.own_child) {
		if (rec_spawn(&rec) < 0)
			goto out_free;
		if (!rec.follow) {
			if (rec_wait_child_socket(&rec) < 0)
				goto out_child;		/* not ours to stop: it runs on, untraced */
			ret = rec_proc_start(&rec, rec.cmd_pid, false, false, true, false);
			if (ret < 0) {
				/* Failed before recording: the held command must not run on untraced. */
				kill(rec.cmd_pid, SIGKILL);
				rec.killed = true;
				goto out_child;
			}
		}
	} else if (rec.all) {
		char path[PATH_MAX];
		uid_t uid = rec.all_uid >= 0 ? (uid_t)rec.all_uid : geteuid();

		ret = rec_all_dir(uid, path, sizeof(path) - sizeof("/" TREV_RECORD_ALL_SOCK));
		if (ret == 0) {
			strcat(path, "/" TREV_RECORD_ALL_SOCK);
			ret = trev_session_open_at(&rec.session, path, uid);
		}
		if (ret < 0) {
			trev_err("-a: %s: %s", path, ret == -EADDRINUSE ?
				 "another trev record -a records this user's processes" :
				 strerror(-ret));
			goto out_free;
		}
		/* Those that start from now on join; then those there already. */
		rec_take_joins(&rec);
		*strrchr(path, '/') = '\0';
		rec_attach_all(&rec, path);
		trev_err("recording every process of uid %u that serves trev (%d now); Ctrl-C to "
			 "stop", (unsigned int)uid, rec_live(&rec));
	} else {
		for (int i = 0; i < rec.nr_pids; i++)
			if (rec_proc_start(&rec, rec.pids[i], true, false, false, false) < 0)
				goto out_stop;
		/* As trace-cmd record without a command: the time to press Ctrl-C starts now. */
		if (rec.nr_pids == 1)
			trev_err("recording process %d; Ctrl-C to stop", (int)rec.pids[0]);
		else
			trev_err("recording %d processes; Ctrl-C to stop", rec.nr_pids);
	}
	start_ms = rec_now_ms();
	rec_loop(&rec);
	if (rec.own_child && !rec.nr_procs) {
		if (rec.preload)
			trev_err("no process of the run holds the target of a --probe (nor has "
				 "events of its own enabled): nothing was recorded");
		else
			trev_err("%s does not use trev, nor does any process it started",
				 rec.argv[0]);
		goto out_child;
	}
	/* The program's events are all in; the kernel's to the same moment. */
	if (rec.kernel && trev_kernel_finish(rec.kernel) < 0)
		kernel_failed = true;
	if (rec.net_dir)
		buffers = rec_net_dir_clean(&rec);	/* only sent: the files held metadata */
	else
		buffers = rec.file ? rec_merge(&rec) : rec.nr_procs;
	if (buffers > 0)
		rec_summary(&rec, (double)(rec_now_ms() - start_ms) / 1000.0, buffers,
			    rec.file && stat(rec.output, &st) == 0 ? (long long)st.st_size : -1LL);
	if (rec.stream)
		trev_stream_summary(rec.stream);
	for (int i = 0; i < rec.nr_probes && !rec.killed; i++)
		if (!rec.probe_taken[i])
			trev_err("warning: --probe '%s': no process of the run holds its target; "
				 "nothing of it was recorded", rec.probes[i]);
	status = buffers <= 0 || rec.failed;
	goto out_child;

out_stop:
	for (int i = 0; i < rec.nr_procs; i++)
		if (!rec.procs[i]->ended)
			rec_proc_finish(rec.procs[i], REC_END_SIGNAL);
	for (int i = 0; i < rec.nr_procs; i++)
		if (rec.procs[i]->written)
			unlink(rec.procs[i]->path);
	status = 1;
out_child:
	trev_session_close(rec.session);
	rec.session = NULL;
	if (rec.own_child) {
		rec_wait_command(&rec);
		/* Recorded: our status is the command's; our own errors are 1. */
		if (status == 0 && rec.cmd_status >= 0)
			status = rec_child_end(&rec, rec.cmd_status);
		else if (!rec.killed && rec.nr_procs && rec.cmd_status >= 0)
			rec_child_end(&rec, rec.cmd_status);
	}
	/* After the command is reaped: its exit hold is not cut short by our error. */
	if (kernel_failed)
		status = 1;
out_free:
	trev_session_close(rec.session);
	/* The kernel instance goes whatever happened: the kernel is left as it was. */
	if (trev_kernel_close(rec.kernel) < 0 && status == 0)
		status = 1;
	rec_free(&rec);
	return status;
}
