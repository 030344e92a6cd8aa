/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev record: configure a process's tracing over its control socket (a
 * command it starts, held at start-up, or a running pid), copy its raw
 * pages into a trace.dat file while it runs, and stop when it exits or on
 * a signal. docs/cli/trev-record.md is the manual.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <trev/ring_buffer.h>

#include "control/proto.h"
#include "kernel_rec.h"
#include "remote.h"
#include "remote_source.h"
#include "ring_buffer/rb_page.h"
#include "tracedat/tracedat_internal.h"
#include "pages.h"
#include "trev.h"

static const char record_help[] =
	"usage: trev record [-e EVENT [-f FILTER] [-T TRIGGER]...]... [-t TRACER] [-b KB] [-C CLOCK]\n"
	"                   [-o FILE] [--file-version 6|7] [--flush MS] [--wait SEC]\n"
	"                   [-K KEVENT]... [--kernel-output FILE]\n"
	"                   (-p PID | -- COMMAND ARGS...)\n"
	"\n"
	"Record the events of a program that uses trev into a trace.dat file (default\n"
	"trace.dat) while it runs; stop when it exits, or on Ctrl-C.\n"
	"\n"
	"  -e EVENT   enable events, set_event syntax: sys:event, sys, sys:*, event\n"
	"  -f FILTER  filter for the -e before it (events/.../filter)\n"
	"  -T TRIGGER trigger for the -e before it (events/.../trigger); repeatable\n"
	"  -t TRACER  current_tracer (function, function_graph: docs/function-tracer.md)\n"
	"  -b KB      buffer_size_kb\n"
	"  -C CLOCK   trace_clock\n"
	"  -o FILE    output file (default trace.dat)\n"
	"  --file-version 6|7   trace.dat version (default 6)\n"
	"  --flush MS pages are copied as they fill; partial ones at least every MS\n"
	"             milliseconds, and at the end (default 1000; 0: every round)\n"
	"  --wait SEC how long COMMAND has to serve its socket (default 5)\n"
	"  -p PID     attach to a running process; its settings are restored at the end\n"
	"  -- COMMAND start COMMAND, held at start-up until tracing is configured\n"
	"  -K, --kernel KEVENT  also record the kernel's events (set_event syntax,\n"
	"             repeatable; root), on the same clock (-C mono, mono_raw or boot;\n"
	"             default mono), in a kernel trace instance of their own\n"
	"  --kernel-output FILE the kernel's file (default kernel.dat beside -o)\n"
	"\n"
	"Without -e, the events the process already has enabled are recorded.\n"
	"Progress (events/s, bytes, lost) shows on stderr when it is a terminal; a\n"
	"summary with per-CPU counts always ends the run.\n"
	"\n"
	"Exit status: COMMAND's (128 + N if signal N killed it) once the file is\n"
	"written; 1 on an error of trev record's own, 2 on a usage error.\n";

#define REC_MAX_TRIGGERS	8
#define REC_PROGRESS_MS		500	/* progress line refresh */
#define REC_SNAPSHOT_MS		1000	/* metadata kept for a process that gets killed */
#define REC_IDLE_POLL_MS	5	/* wait when no CPU has had a page to copy for a while */
#define REC_BUSY_POLL_US	250	/* the first wait after a round that copied pages */
#define REC_FLUSH_MS		1000	/* --flush: partial pages copied this often */
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

struct rec {
	struct rec_event *events;
	int nr_events;
	const char *buffer_kb;
	const char *clock;
	const char *tracer;		/* -t: current_tracer */
	const char *output;
	char **kernel_specs;		/* -K */
	int nr_kernel_specs;
	char *kernel_output;		/* --kernel-output, or kernel.dat beside the output */
	struct trev_kernel *kernel;	/* the kernel's recording */
	int version;
	int wait_s;
	int flush_ms;			/* --flush */
	int64_t next_flush;		/* when partial pages are copied next (ms) */
	pid_t pid;			/* -p, or the command */
	bool own_child;			/* -- COMMAND */
	char **argv;			/* the command */

	struct trev_remote *r;		/* control and pages */
	struct trev_remote *hold;	/* HOLD's connection */
	struct trev_remote_source rs;
	struct trev_dat *dat;
	int write_err;			/* the file's first write error (-errno), 0 */
	int nr_cpus;
	struct rec_cpu *cpus;
	struct rec_meta *meta;		/* the metadata thread, with the buffer mapped */

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
	struct rec_saved_list settings;		/* buffer_size_kb, trace_clock, current_tracer */
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

static int64_t rec_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------------ */
/* Configuration                                                        */

/* Write @text to @path (@append: >>); a refusal gets its line and error_log entry. */
static int rec_write(struct rec *rec, const char *path, const char *text, bool append)
{
	int ret = trev_remote_write_file(rec->r, path, text, append);

	if (ret < 0) {
		trev_err("%s: '%s': %s", path, text, strerror(-ret));
		trev_show_error_log(rec->r, path);
	}
	return ret;
}

/* A file's text without its trailing newline. Return: malloc'd text or NULL. */
static char *rec_read_line(struct rec *rec, const char *path)
{
	char *text = NULL;

	if (trev_remote_read_file(rec->r, path, &text) < 0)
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
static int rec_event_dirs(struct rec *rec, const char *spec, bool system_ok, char ***dirs)
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
		    trev_remote_stat(rec->r, path, &is_dir, &mode) == 0 && is_dir) {
			*dirs = calloc(1, sizeof(char *));
			if (!*dirs || !((*dirs)[0] = strdup(path)))
				return -ENOMEM;
			return 1;
		}
	}
	if (trev_remote_read_file(rec->r, "available_events", &avail) < 0)
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
static int rec_save_setting(struct rec *rec, const char *file, const char *value)
{
	char *old, name[64];

	if (!value)
		return 0;
	old = rec_read_line(rec, file);
	if (!old)
		return -EIO;
	if (strcmp(file, "trace_clock") == 0) {
		rec_clock_name(old, name, sizeof(name));
		free(old);
		old = strdup(name);
	}
	return rec_saved_add(&rec->settings, file, old, false);
}

/*
 * -p: keep the filter of @dir, an event's directory or a subsystem's, once:
 * the first value found is the one put back. A subsystem's filter file is
 * also written to each of its events' (the kernel's semantics), so their
 * own filters are kept too. An event without a filter reads "none", a
 * subsystem without one the "### global filter ###" text: "0" clears both.
 */
static int rec_save_filter(struct rec *rec, const char *dir)
{
	bool is_sys = !strchr(dir + strlen("events/"), '/');
	struct rec_saved_list *l = is_sys ? &rec->sys_filters : &rec->filters;
	char path[600], spec[300], **evs = NULL, *old;
	int n, ret;

	snprintf(path, sizeof(path), "%s/filter", dir);
	if (rec_saved_has(l, path))
		return 0;
	old = rec_read_line(rec, path);
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
	n = rec_event_dirs(rec, spec, false, &evs);
	ret = n < 0 ? n : 0;
	for (int i = 0; i < n; i++) {
		if (!ret)
			ret = rec_save_filter(rec, evs[i]);
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
static int rec_note_enabled(struct rec *rec)
{
	char *now = NULL, *line, *save = NULL;
	int ret = 0;

	if (trev_remote_read_file(rec->r, "set_event", &now) < 0)
		return -EIO;
	for (line = strtok_r(now, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		bool known = rec_has_line(rec->old_set_event, line);

		for (int i = 0; i < rec->enabled.n && !known; i++)
			known = strcmp(rec->enabled.v[i].text + 1, line) == 0;
		if (!known)
			ret = rec_saved_add(&rec->enabled, "set_event", rec_strdup2("!", line), true);
	}
	free(now);
	return ret;
}

/* Write -f or a -T of @e into each of its directories' @file; -p keeps what it changes. */
static int rec_apply(struct rec *rec, const struct rec_event *e, const char *file,
		     const char *text)
{
	bool trigger = strcmp(file, "trigger") == 0;
	char **dirs = NULL, path[700];
	int n = rec_event_dirs(rec, e->spec, !trigger, &dirs), ret = 0;

	if (n <= 0) {
		trev_err("-e %s: no such event (for its %s)", e->spec, file);
		free(dirs);
		return -ENOENT;
	}
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], file);
		if (!ret && !rec->own_child && !trigger)
			ret = rec_save_filter(rec, dirs[i]);
		if (!ret)
			ret = rec_write(rec, path, text, trigger);
		/* Only a trigger we added is removed: one that was there already stays. */
		if (!ret && !rec->own_child && trigger)
			ret = rec_saved_add(&rec->triggers, path, rec_strdup2("!", text), true);
		free(dirs[i]);
	}
	free(dirs);
	return ret;
}

/* Set up buffer size, clock, events, filters and triggers; -p also saves what it changes. */
static int rec_configure(struct rec *rec)
{
	int ret;

	if (!rec->own_child) {
		ret = trev_remote_read_file(rec->r, "set_event", &rec->old_set_event);
		if (ret >= 0)
			ret = rec_save_setting(rec, "buffer_size_kb", rec->buffer_kb);
		if (ret >= 0)
			ret = rec_save_setting(rec, "trace_clock", rec->clock);
		if (ret >= 0)
			ret = rec_save_setting(rec, "current_tracer", rec->tracer);
		if (ret < 0) {
			trev_err("process %d: cannot read its tracing settings", (int)rec->pid);
			return ret;
		}
	}
	if (rec->buffer_kb && (ret = rec_write(rec, "buffer_size_kb", rec->buffer_kb, false)) < 0)
		return ret;
	if (rec->clock && (ret = rec_write(rec, "trace_clock", rec->clock, false)) < 0)
		return ret;
	if (rec->tracer && (ret = rec_write(rec, "current_tracer", rec->tracer, false)) < 0)
		return ret;
	for (int i = 0; i < rec->nr_events; i++) {
		const struct rec_event *e = &rec->events[i];

		/* Filter and triggers first: no event gets in unfiltered. */
		ret = e->filter ? rec_apply(rec, e, "filter", e->filter) : 0;
		for (int t = 0; !ret && t < e->nr_triggers; t++)
			ret = rec_apply(rec, e, "trigger", e->triggers[t]);
		if (!ret) {
			/* A glob may have enabled some events before it failed. */
			ret = rec_write(rec, "set_event", e->spec, true);
			if (!rec->own_child && rec_note_enabled(rec) < 0 && !ret)
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
static int rec_restore(struct rec *rec)
{
	const struct rec_saved_list *lists[] = {
		&rec->triggers, &rec->sys_filters, &rec->filters, &rec->enabled, &rec->settings,
	};
	int ret = 0;

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		for (int j = 0; j < lists[i]->n; j++) {
			const struct rec_saved *s = &lists[i]->v[j];
			int err = trev_remote_write_file(rec->r, s->path, s->text, s->append);

			if (err < 0) {
				trev_err("process %d: %s: '%s' could not be put back: %s",
					 (int)rec->pid, s->path, s->text, strerror(-err));
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
 * Fork and exec the command with TREV_ATTACH_WAIT set, so that it waits
 * for our RELEASE once its socket is up. Return: 0, or -errno of exec
 * (reported; the child is reaped).
 */
static int rec_spawn(struct rec *rec)
{
	int pipefd[2], err = 0;
	char wait_text[16];
	ssize_t n;

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		trev_err("pipe: %s", strerror(errno));
		return -errno;
	}
	rec->pid = fork();
	if (rec->pid < 0) {
		err = -errno;
		trev_err("fork: %s", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		return err;
	}
	if (rec->pid == 0) {
		/* Longer than we wait for its socket: we release it, or give up first. */
		snprintf(wait_text, sizeof(wait_text), "%d", rec->wait_s + 10);
		setenv("TREV_ATTACH_WAIT", wait_text, 1);
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
		waitpid(rec->pid, NULL, 0);
		rec->pid = 0;
		return -err;
	}
	return 0;
}

/* Reap the command (@block: wait for it). Return: its wait status, or -1 while it runs. */
static int rec_reap(struct rec *rec, bool block)
{
	int status;
	pid_t p;

	if (!rec->own_child || rec->pid <= 0)
		return -1;
	do
		p = waitpid(rec->pid, &status, block ? 0 : WNOHANG);
	while (p < 0 && errno == EINTR);
	if (p != rec->pid)
		return -1;
	rec->pid = 0;
	return status;
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

/* Connect to the command once its socket is up. Return: 0, or -1 after a message. */
static int rec_connect_child(struct rec *rec)
{
	int64_t end = rec_now_ms() + (int64_t)rec->wait_s * 1000;
	char why[512];
	pid_t pid = rec->pid;

	for (;;) {
		int ret = trev_remote_connect(pid, &rec->r, why, sizeof(why));

		if (ret == 0)
			return 0;
		if (rec_reap(rec, false) >= 0) {
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
/* Recording                                                            */

/*
 * What a round of reads copies: full pages only, as trace-cmd record does
 * through the kernel's splice read, so that the file holds whole pages and
 * not a page per event; but once every --flush interval the partial pages
 * too (of CPUs with at most REC_BURST pages to copy), so that a process
 * killed mid-run loses about that much at most. The final drain takes
 * everything (flags 0). A page source takes the flag as an argument of
 * read_page(), whichever it is.
 */
static unsigned int rec_read_flags(struct rec *rec)
{
	int64_t now = rec_now_ms();

	if (now < rec->next_flush)
		return TREV_DAT_READ_FULL;
	rec->next_flush = now + rec->flush_ms;
	return 0;
}

/* Write @page to the file and count it: one walk over its records does both. */
static int rec_add_page(struct rec *rec, int cpu, const unsigned char *page)
{
	struct trev__dat_page_count cnt;
	struct trev_page_tally *t = &rec->cpus[cpu].t;
	int ret = trev__dat_add_page(rec->dat, cpu, page, &cnt);

	if (ret < 0) {
		rec->write_err = ret;
		return ret;
	}
	t->pages++;
	t->entries += cnt.entries;
	t->lost += cnt.lost;
	t->lost_pages += cnt.lost_unknown;
	return 0;
}

/*
 * Read pages until none is ready: with the buffer mapped, whichever CPU's
 * comes next (read_page_any()), at most REC_BURST per CPU in a round;
 * over the socket, each CPU in turn, at most REC_BURST pages of one CPU at
 * a time. @flags: read_page()'s, rec_read_flags().
 * Return: the pages added, or a negative errno.
 */
static long rec_drain_once(struct rec *rec, unsigned int flags)
{
	static unsigned char page[TREV_DAT_PAGE_SIZE];
	const struct trev_dat_source *src = &rec->rs.src;
	long added = 0;
	int cpu;

	/* As many pages in one round either way: then the caller looks around. */
	while (src->read_page_any && added < (long)REC_BURST * rec->nr_cpus) {
		int ret = src->read_page_any(src, page, &cpu, flags);

		if (ret <= 0)
			return ret < 0 ? ret : added;
		if (cpu >= rec->nr_cpus)
			return -ERANGE;
		ret = rec_add_page(rec, cpu, page);
		if (ret < 0)
			return ret;
		added++;
	}
	if (src->read_page_any)
		return added;
	for (cpu = 0; cpu < rec->nr_cpus; cpu++) {
		for (int i = 0; i < REC_BURST; i++) {
			int ret = rec->rs.src.read_page(&rec->rs.src, cpu, page, flags);

			if (ret < 0)
				return ret;
			if (ret == 0)
				break;
			ret = rec_add_page(rec, cpu, page);
			if (ret < 0)
				return ret;
			added++;
		}
	}
	return added;
}

static void rec_totals(const struct rec *rec, uint64_t *entries, uint64_t *lost, uint64_t *pages)
{
	*entries = *lost = *pages = 0;
	for (int cpu = 0; cpu < rec->nr_cpus; cpu++) {
		*entries += rec->cpus[cpu].t.entries;
		*lost += rec->cpus[cpu].t.lost;
		*pages += rec->cpus[cpu].t.pages;
	}
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
	*last_entries = entries;
	*last_ms = now;
}

/*
 * The losses per_cpu/cpuN/stats counts, for the summary. With the buffer
 * mapped here, overruns are met by our reads, so our view counts them (and
 * still does once the process is gone); refused writes are counted in the
 * process only.
 */
static void rec_read_stats(struct rec *rec, bool alive, bool final)
{
	for (int cpu = 0; cpu < rec->nr_cpus; cpu++) {
		char path[64], *text = NULL, *p;
		struct rec_cpu *c = &rec->cpus[cpu];
		struct trev_rb_stats st;

		/* The mapping outlives the process: read it at the end only. */
		if (final && rec->rs.shm && trev_rb_cpu_stats(rec->rs.shm, cpu, &st) == 0)
			c->overrun = st.overrun;
		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
		if (!alive || trev_remote_read_file(rec->r, path, &text) < 0)
			continue;
		if (!rec->rs.shm && (p = strstr(text, "\noverrun: ")))
			c->overrun = strtoull(p + 10, NULL, 10);
		if ((p = strstr(text, "commit overrun: ")))
			c->commit_overrun = strtoull(p + 16, NULL, 10);
		if ((p = strstr(text, "dropped events: ")))
			c->dropped = strtoull(p + 16, NULL, 10);
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
	struct rec *rec;
};

static void *rec_meta_run(void *arg)
{
	struct rec_meta *m = arg;
	struct timespec due;

	clock_gettime(CLOCK_MONOTONIC, &due);
	pthread_mutex_lock(&m->lock);
	for (;;) {
		due.tv_sec += REC_SNAPSHOT_MS / 1000;
		while (!m->stop && pthread_cond_timedwait(&m->cond, &m->lock, &due) != ETIMEDOUT)
			;
		if (m->stop)
			break;
		pthread_mutex_unlock(&m->lock);
		trev_dat_snapshot(m->rec->dat);
		rec_read_stats(m->rec, true, false);
		pthread_mutex_lock(&m->lock);
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

/* Start the thread (signals stay with the main thread). NULL: do it inline. */
static struct rec_meta *rec_meta_start(struct rec *rec)
{
	struct rec_meta *m = calloc(1, sizeof(*m));
	pthread_condattr_t ca;
	sigset_t all, old;
	int err;

	if (!m)
		return NULL;
	m->rec = rec;
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

enum rec_end {
	REC_END_EXIT,		/* the process began to exit (exit hold) */
	REC_END_GONE,		/* the process vanished without exiting normally */
	REC_END_SIGNAL,		/* we were told to stop */
	REC_END_BROKEN,		/* it sent a malformed reply (reported): the connection is given up */
	REC_END_WRITE,		/* the file could not be written (rec->write_err): stop reading */
};

/* Copy pages until the process exits or we are stopped; drain what is left. */
static int rec_loop(struct rec *rec, enum rec_end *end)
{
	bool tty = isatty(STDERR_FILENO);
	int64_t start = rec_now_ms(), next_progress = start + REC_PROGRESS_MS;
	int64_t next_snapshot = start + REC_SNAPSHOT_MS, last_ms = start;
	uint64_t last_entries = 0;
	unsigned int idle_us = REC_IDLE_POLL_MS * 1000;
	int forwarded = 0;
	long got;

	rec->next_flush = start + rec->flush_ms;
	if (rec->rs.shm)
		rec->meta = rec_meta_start(rec);
	for (;;) {
		unsigned int flags = rec_read_flags(rec);
		int held;

		got = rec_drain_once(rec, flags);
		/* A flush: the pages copied reach the file on disk, as a killed recorder leaves it. */
		if (got >= 0 && !flags && (got = trev__dat_sync(rec->dat)) < 0)
			rec->write_err = (int)got;
		if (rec->write_err) {
			*end = REC_END_WRITE;
			break;
		}
		if (got < 0) {
			/* A process that dies takes its socket with it. */
			*end = got == -EPROTO ? REC_END_BROKEN : REC_END_GONE;
			break;
		}
		held = trev_remote_hold_wait(rec->hold, 0);
		if (held == 1) {
			*end = REC_END_EXIT;
			break;
		}
		if (held < 0) {
			*end = held == -EPROTO ? REC_END_BROKEN : REC_END_GONE;
			break;
		}
		if (signals_seen > forwarded) {
			/*
			 * Our own command gets one SIGINT from us when the signal was
			 * sent to us alone (a terminal's Ctrl-C reached it already);
			 * we record until it exits. A second signal, or -p, stops now.
			 */
			if (rec->own_child && forwarded == 0 && rec->pid > 0) {
				if (signal_from_kill)
					kill(rec->pid, SIGINT);
				forwarded = signals_seen;
			} else {
				*end = REC_END_SIGNAL;
				break;
			}
		}
		if (tty && rec_now_ms() >= next_progress) {
			rec_progress(rec, start, &last_entries, &last_ms);
			next_progress += REC_PROGRESS_MS;
		}
		if (!rec->meta && rec_now_ms() >= next_snapshot) {
			trev_dat_snapshot(rec->dat);
			rec_read_stats(rec, true, false);
			next_snapshot = rec_now_ms() + REC_SNAPSHOT_MS;
		}
		/*
		 * No page to copy: the data there is (if any) waits for its page
		 * to fill. Right after pages came the wait is short, doubling up
		 * to REC_IDLE_POLL_MS: a writer that fills pages fast fills a
		 * default buffer in a few milliseconds.
		 */
		if (got == 0) {
			usleep(idle_us);
			idle_us = idle_us * 2 < REC_IDLE_POLL_MS * 1000 ? idle_us * 2
								 : REC_IDLE_POLL_MS * 1000;
		} else {
			idle_us = REC_BUSY_POLL_US;
		}
	}
	rec_meta_stop(rec->meta);
	rec->meta = NULL;
	if (*end != REC_END_BROKEN && *end != REC_END_WRITE && (*end != REC_END_GONE || rec->rs.shm)) {
		/*
		 * The last pages, partial ones too: read until every CPU is empty.
		 * A buffer mapped here outlives its process: a process that died
		 * leaves every event it committed.
		 */
		int64_t until = rec_now_ms() + REC_FINAL_DRAIN_MS;

		/* A write its death cut short never ends: nothing to wait for. */
		if (*end == REC_END_GONE)
			trev_rb_writers_gone(rec->rs.shm);
		while ((got = rec_drain_once(rec, 0)) > 0) {
			/* -p, stopped by us: the process may write on for ever. */
			if (*end == REC_END_SIGNAL && rec_now_ms() >= until) {
				trev_err("process %d is still writing: stopped reading after %d ms",
					 (int)rec->pid, REC_FINAL_DRAIN_MS);
				break;
			}
		}
		if (rec->write_err)
			*end = REC_END_WRITE;
		else if (got < 0)
			*end = got == -EPROTO ? REC_END_BROKEN : REC_END_GONE;
	}
	rec_read_stats(rec, *end != REC_END_GONE && *end != REC_END_BROKEN, true);
	if (tty)
		fputs("\r\033[K", stderr);
	return 0;
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

static void rec_summary(const struct rec *rec, double seconds, long long file_bytes)
{
	uint64_t entries, lost, pages, overrun = 0, dropped = 0, lost_pages = 0;

	fprintf(stderr, "CPU %12s %10s %10s %10s %8s %12s\n", "entries", "lost", "overrun",
		"dropped", "pages", "bytes");
	for (int cpu = 0; cpu < rec->nr_cpus; cpu++) {
		const struct rec_cpu *c = &rec->cpus[cpu];

		fprintf(stderr, "%3d %12llu %10llu %10llu %10llu %8llu %12llu\n", cpu,
			(unsigned long long)c->t.entries, (unsigned long long)c->t.lost,
			(unsigned long long)c->overrun, (unsigned long long)c->dropped,
			(unsigned long long)c->t.pages,
			(unsigned long long)c->t.pages * TREV_DAT_PAGE_SIZE);
		overrun += c->overrun + c->commit_overrun;
		dropped += c->dropped;
		lost_pages += c->t.lost_pages;
	}
	rec_totals(rec, &entries, &lost, &pages);
	fprintf(stderr, "trev: %llu events, %llu lost (in the file; the process counted %llu "
		"overrun, %llu dropped)",
		(unsigned long long)entries, (unsigned long long)lost, (unsigned long long)overrun,
		(unsigned long long)dropped);
	if (lost_pages)
		fprintf(stderr, ", %llu pages with an unknown loss", (unsigned long long)lost_pages);
	fprintf(stderr, "\n");
	fprintf(stderr, "trev: %.2f s, %.0f events/s, %.2f MB/s, %.2f s of CPU\n", seconds,
		seconds > 0 ? (double)entries / seconds : 0.0,
		seconds > 0 ? (double)pages * TREV_DAT_PAGE_SIZE / 1e6 / seconds : 0.0,
		rec_cpu_seconds());
	if (file_bytes >= 0)
		fprintf(stderr, "trev: wrote %s (version %d, %lld bytes)\n", rec->output,
			rec->version, file_bytes);
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
		{ "kernel", required_argument, NULL, 'K' },
		{ "kernel-output", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rec_event *e;
	char *end;
	long ms;
	int c;

	while ((c = getopt_long(argc, argv, "+e:f:T:t:b:C:o:p:K:h", opts, NULL)) != -1) {
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
		case 't':
			rec->tracer = optarg;
			break;
		case 'o':
			rec->output = optarg;
			break;
		case 'p':
			rec->pid = trev_parse_pid(optarg);
			if (rec->pid < 0)
				return -1;
			break;
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
	if (rec->own_child == (rec->pid > 0)) {
		trev_err(rec->pid > 0 ? "-p and a COMMAND: give one" : "give -p PID or -- COMMAND");
		return -1;
	}
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
	rec_saved_free(&rec->triggers);
	rec_saved_free(&rec->sys_filters);
	rec_saved_free(&rec->filters);
	rec_saved_free(&rec->enabled);
	rec_saved_free(&rec->settings);
	free(rec->old_set_event);
	free(rec->cpus);
	free(rec->events);
	free(rec->kernel_specs);
	free(rec->kernel_output);
}

int cmd_record(int argc, char **argv)
{
	struct rec rec = { .output = "trace.dat", .version = 6, .wait_s = 5,
			   .flush_ms = REC_FLUSH_MS };
	struct sigaction sa = { .sa_sigaction = rec_on_signal, .sa_flags = SA_SIGINFO };
	enum rec_end end = REC_END_SIGNAL;
	int64_t start_ms;
	struct stat st;
	int ret, status = 1, wstatus;
	bool keep_child = false, kernel_failed = false, released = false;
	struct trev__dat_kept kept = { 0 };
	char pid_text[32];

	if (rec_parse(&rec, argc, argv) < 0) {
		fputs(record_help, stderr);
		rec_free(&rec);
		return 2;
	}
	if (rec_check_output(rec.output) < 0 ||
	    (rec.kernel_output && rec_check_output(rec.kernel_output) < 0)) {
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

	if (rec.own_child) {
		if (rec_spawn(&rec) < 0)
			goto out_free;
		if (rec_connect_child(&rec) < 0) {
			/* Not ours to stop: it runs to its end, untraced. */
			keep_child = true;
			goto out_child;
		}
	} else {
		rec.r = trev_attach(rec.pid);
		if (!rec.r)
			goto out_free;
	}
	trev_remote_source_init(&rec.rs, rec.r, rec.pid);
	/* Before anything is changed: a process has one consumer at a time. */
	ret = trev_remote_source_map(&rec.rs);
	if (ret == -EBUSY) {
		trev_err("process %d is being recorded already (another trev record consumes "
			 "its buffer)", (int)rec.pid);
		goto out_close;
	}
	if (ret < 0)
		trev_err("process %d: its buffer cannot be mapped here (%s); pages come over the "
			 "socket, and end with the process", (int)rec.pid, strerror(-ret));
	else if (!rec.rs.busy_mapped)
		trev_err("process %d: its writers' busy words cannot be mapped here (an older "
			 "trev?): a CPU's events may be out of time order where a writer was "
			 "preempted mid-event", (int)rec.pid);
	if (rec_configure(&rec) < 0)
		goto out_restore;
	ret = trev_dat_open(&rec.dat, rec.output, rec.version, &rec.rs.src);
	if (ret < 0) {
		trev_err("%s: %s", rec.output, strerror(-ret));
		goto out_restore;
	}
	rec.nr_cpus = trev_dat_nr_cpus(rec.dat);
	rec.cpus = calloc((size_t)rec.nr_cpus, sizeof(*rec.cpus));
	if (rec.nr_cpus > TREV_REMOTE_MAX_CPUS || !rec.cpus) {
		trev_err("%d CPUs: more than one connection reads (%d)", rec.nr_cpus,
			 TREV_REMOTE_MAX_CPUS);
		goto out_abort;
	}
	/* The exit hold, on a connection of its own: its reply says the process is exiting. */
	{
		char why[512];

		ret = trev_remote_connect(rec.pid, &rec.hold, why, sizeof(why));
		if (ret < 0 || (ret = trev_remote_hold(rec.hold)) < 0) {
			trev_err("%s", ret < 0 && why[0] ? why : strerror(-ret));
			goto out_abort;
		}
	}
	trev_dat_snapshot(rec.dat);
	if (rec.kernel && trev_kernel_start(rec.kernel, rec.kernel_output, rec.version,
					    rec.flush_ms) < 0)
		goto out_abort;
	if (rec.own_child && (ret = trev_remote_release(rec.r)) < 0) {
		trev_err("%s: release: %s", rec.argv[0], strerror(-ret));
		goto out_abort;
	}
	released = rec.own_child;
	/* As trace-cmd record without a command: the time to press Ctrl-C starts now. */
	if (!rec.own_child)
		trev_err("recording process %d; Ctrl-C to stop", (int)rec.pid);
	start_ms = rec_now_ms();
	rec_loop(&rec, &end);
	/* The program's events are all in; the kernel's to the same moment. */
	if (rec.kernel && trev_kernel_finish(rec.kernel) < 0)
		kernel_failed = true;
	snprintf(pid_text, sizeof(pid_text), "process %d", (int)rec.pid);
	ret = trev__dat_finish(rec.dat, &kept);
	rec.dat = NULL;
	if (end == REC_END_WRITE || ret < 0) {
		uint64_t entries, lost, pages;

		/* The program goes on (without us): a file that cannot be written is ours to report. */
		rec_totals(&rec, &entries, &lost, &pages);
		if (end == REC_END_WRITE)
			trev_err("writing %s: %s; recording stopped after %llu events; %s runs on "
				 "untraced", rec.output, strerror(-rec.write_err),
				 (unsigned long long)entries, rec.own_child ? "the program" : pid_text);
		else
			trev_err("writing %s: %s; its last pages are not in it", rec.output,
				 strerror(-ret));
		if (kept.kept && ret < 0)
			trev_err("%s keeps the %llu events written before (a valid trace.dat)",
				 rec.output, (unsigned long long)kept.entries);
		else if (!kept.kept)
			trev_err("%s: nothing was written", rec.output);
	} else {
		rec_summary(&rec, (double)(rec_now_ms() - start_ms) / 1000.0,
			    stat(rec.output, &st) == 0 ? (long long)st.st_size : -1LL);
		status = end == REC_END_BROKEN;
	}
	if (end == REC_END_GONE && rec.rs.shm)
		trev_err("%s ended without exiting normally: every event it committed was read "
			 "from its buffer", rec.own_child ? rec.argv[0] : pid_text);
	else if (end == REC_END_GONE && rec.own_child && !rec.rs.shm)
		trev_err("%s ended without exiting normally: its last events are lost", rec.argv[0]);
	else if (end == REC_END_GONE && !rec.rs.shm)
		trev_err("process %d ended without exiting normally: its last events are lost",
			 (int)rec.pid);
	else if (end == REC_END_EXIT && !rec.own_child)
		trev_err("process %d exited", (int)rec.pid);
	goto out_restore;

out_abort:
	trev_dat_abort(rec.dat);
	rec.dat = NULL;
out_restore:
	if (!rec.own_child && end != REC_END_GONE && end != REC_END_EXIT && rec_restore(&rec) < 0) {
		trev_err("process %d: its tracing settings could not all be restored", (int)rec.pid);
		status = 1;
	}
out_close:
	trev_remote_source_close(&rec.rs);
	trev_remote_close(rec.hold);	/* ends the exit hold */
	trev_remote_close(rec.r);
out_child:
	if (rec.own_child && rec.pid > 0) {
		/*
		 * Failed before recording: the held command must not run on
		 * untraced. Once released it is never killed: it runs to its end.
		 */
		if (status != 0 && !keep_child && !released)
			kill(rec.pid, SIGKILL);
		wstatus = rec_reap(&rec, true);
		/* Recorded: our status is the command's; our own errors are 1. */
		if (status == 0 && wstatus >= 0)
			status = rec_child_end(&rec, wstatus);
		else if (released && wstatus >= 0)
			rec_child_end(&rec, wstatus);
	}
	/* After the command is reaped: its exit hold is not cut short by our error. */
	if (kernel_failed)
		status = 1;
out_free:
	/* The kernel instance goes whatever happened: the kernel is left as it was. */
	if (trev_kernel_close(rec.kernel) < 0 && status == 0)
		status = 1;
	rec_free(&rec);
	return status;
}
