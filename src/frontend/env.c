/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The start-up environment: TREV_EVENTS enables events (set_event syntax,
 * comma-separated) in the program and in every object loaded later;
 * TREV_OUTPUT receives the `trace` text when the program exits, or when
 * it dies of a signal (crash.c);
 * TREV_CLOCK, TREV_OPTIONS, TREV_WRITE and TREV_MOUNT go through the
 * tracefs tree as writes would; TREV_FLIGHT keeps the buffer in a file
 * that outlives the process (flight.c). A bad value gets one warning and
 * is ignored; the program runs on.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/out_file.h"
#include "frontend/frontend.h"
#include "events/events_internal.h"
#include "output/output.h"

struct env_term {
	char *spec;		/* one set_event term */
	bool matched;		/* it matched some event at least once */
};

static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;
static struct env_term *terms;
static int nr_terms;
static char *output_path;

/* The TREV_OUTPUT text was printed, or is being printed (the exit, or crash.c). */
static atomic_bool exit_done;

/* TREV_WRITE "path=value" pairs whose file does not exist yet (its events not loaded). */
struct env_write {
	char *path, *value;
};
static struct env_write *pending;
static int nr_pending;

static void env_at_exit(void)
{
	FILE *out;
	bool bad;
	struct trev_trace_array *tr;

	if (!trev__env_exit_claim())
		return;
	for (int i = 0; i < nr_terms; i++)
		if (!terms[i].matched)
			trev__log(TREV_LOG_WARN, "TREV_EVENTS: '%s' matched no event\n",
				  terms[i].spec);
	for (int i = 0; i < nr_pending; i++)
		if (pending[i].path)
			trev__log(TREV_LOG_WARN, "TREV_WRITE: %s: no such file\n", pending[i].path);
	if (!output_path)
		return;
	tr = trev__top_instance();
	if (!tr)
		return;
	if (strcmp(output_path, "stderr") == 0) {
		out = stderr;
	} else if (strcmp(output_path, "stdout") == 0) {
		out = stdout;
	} else {
		char why[256];
		int fd = trev__out_open(output_path, O_WRONLY | O_CREAT | O_TRUNC, 0666, why,
					sizeof(why));

		out = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!out) {
			trev__log(TREV_LOG_ERR, "TREV_OUTPUT: cannot open %s: %s\n", output_path,
				  fd < 0 && why[0] ? why : strerror(fd < 0 ? -fd : errno));
			if (fd >= 0)
				close(fd);
			return;
		}
	}
	errno = 0;
	trev__trace_print(tr, out);
	/* A full disk cuts the text short: say so, it is all the reader has. */
	bad = ferror(out) != 0;
	if (out == stderr || out == stdout)
		bad |= fflush(out) != 0;
	else
		bad |= fclose(out) != 0;
	if (bad)
		trev__log(TREV_LOG_ERR, "TREV_OUTPUT: writing %s: %s; the trace text is cut "
			  "short\n", output_path, strerror(errno ? errno : EIO));
}

bool trev__env_exit_claim(void)
{
	return !atomic_exchange(&exit_done, true);
}

void trev__env_exit_release(void)
{
	atomic_store(&exit_done, false);
}

const char *trev__env_output(void)
{
	return output_path;
}

void trev__env_init(void)
{
	const char *events = getenv("TREV_EVENTS");
	const char *output = getenv("TREV_OUTPUT");
	const char *kb = getenv("TREV_BUFFER_KB");

	/* Before anything can make the top instance: its size when it is made. */
	if (kb && *kb) {
		char *end;
		unsigned long v = strtoul(kb, &end, 10);

		if (*end || v == 0 || v > UINT_MAX || kb[0] == '-')
			trev__log(TREV_LOG_WARN, "TREV_BUFFER_KB: '%s' is not a size in KiB (ignored)\n",
				  kb);
		else
			trev__top_size_kb_set((unsigned int)v);
	}

	if (events && *events) {
		char *copy = strdup(events), *save = NULL;

		for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t;
		     t = strtok_r(NULL, ",", &save)) {
			struct env_term *n;

			t += strspn(t, " \t");
			if (!*t)
				continue;
			n = realloc(terms, (size_t)(nr_terms + 1) * sizeof(*n));
			if (!n)
				break;
			terms = n;
			terms[nr_terms].spec = strdup(t);
			terms[nr_terms].matched = false;
			if (terms[nr_terms].spec)
				nr_terms++;
		}
		free(copy);
	}
	if (output && *output)
		output_path = strdup(output);
	if (output_path)
		trev__crash_init();
	trev__env_at_exit();
}

/*
 * Arrange for the exit work (TREV_OUTPUT, unmatched terms) to run while the
 * events are still registered. exit() runs atexit handlers newest first
 * and only then the objects' destructors, which unregister their events,
 * but a handler registered from a shared object's constructor before
 * main() runs after them. So each object registration (the program's runs
 * once main is under way) adds the handler again; it runs once.
 */
void trev__env_at_exit(void)
{
	if (nr_terms || output_path || nr_pending)
		atexit(env_at_exit);
}

static void env_warn_write(const char *var, const char *path, const char *value, int err)
{
	trev__log(TREV_LOG_WARN, "%s: '%s' to %s refused: %s (ignored)\n", var, value, path,
		  strerror(-err));
}

/*
 * The next TREV_WRITE pair of *@s, cut at the first ';' not escaped, with
 * "\;" and "\\" taken as ';' and '\' (a synthetic event's definition has
 * ';' between its fields); *@s moves past it. NULL at the end.
 */
static char *env_next_pair(char **s)
{
	char *start = *s, *out = *s, *in = *s;

	if (!*in)
		return NULL;
	for (; *in && *in != ';'; in++) {
		if (in[0] == '\\' && (in[1] == ';' || in[1] == '\\'))
			in++;
		*out++ = *in;
	}
	*s = *in ? in + 1 : in;
	*out = '\0';
	return start;
}

/* Each TREV_WRITE pair; those whose file does not exist yet wait for more events. */
static void env_parse_writes(const char *spec)
{
	char *copy = strdup(spec), *rest = copy, *t;

	while (copy && (t = env_next_pair(&rest))) {
		char *eq = strchr(t, '=');
		struct env_write *n;

		t += strspn(t, " \t\n");
		if (!*t)
			continue;
		if (!eq) {
			trev__log(TREV_LOG_WARN, "TREV_WRITE: '%s' is not path=value (ignored)\n", t);
			continue;
		}
		*eq = '\0';
		n = realloc(pending, (size_t)(nr_pending + 1) * sizeof(*n));
		if (!n)
			break;
		pending = n;
		pending[nr_pending].path = strdup(t);
		pending[nr_pending].value = strdup(eq + 1);
		nr_pending++;
	}
	free(copy);
}

/* Apply the TREV_WRITE pairs still waiting, in order. Context: env_lock held. */
static void env_apply_writes(void)
{
	for (int i = 0; i < nr_pending; i++) {
		struct env_write *w = &pending[i];
		int ret;

		if (!w->path)
			continue;
		ret = trev_write(w->path, w->value);
		if (ret == -ENOENT)
			continue;
		if (ret)
			env_warn_write("TREV_WRITE", w->path, w->value, ret);
		free(w->path);
		free(w->value);
		w->path = w->value = NULL;
	}
}

static atomic_bool control_done;

/* Where a kernel with CONFIG_USER_EVENTS takes user-space event registrations. */
#define ENV_USER_EVENTS_DATA	"/sys/kernel/tracing/user_events_data"

/*
 * TREV_USER_EVENTS=1: the kernel's user_events (docs/tracefs.md). Only the
 * detection is in: one message either way, and the program runs on with
 * its events in trev's own buffers.
 */
static void env_user_events(const char *value)
{
	if (strcmp(value, "1") != 0) {
		trev__log(TREV_LOG_WARN, "TREV_USER_EVENTS: '%s' is not 1 (ignored)\n", value);
		return;
	}
	if (access(ENV_USER_EVENTS_DATA, F_OK) < 0)
		trev__log(TREV_LOG_WARN, "TREV_USER_EVENTS: %s: %s (a kernel without "
			  "CONFIG_USER_EVENTS, or no tracefs there): events stay in trev's own "
			  "buffers\n", ENV_USER_EVENTS_DATA, strerror(errno));
	else
		trev__log(TREV_LOG_WARN, "TREV_USER_EVENTS: %s is there, but trev does not "
			  "register events with the kernel yet: events stay in trev's own "
			  "buffers\n", ENV_USER_EVENTS_DATA);
}

/*
 * The settings that go through the tree. Runs once, after the library's
 * start-up (the tree needs it), and TREV_WRITE again each time an object
 * brings new events.
 */
void trev__env_control(void)
{
	const char *clock = getenv("TREV_CLOCK");
	const char *options = getenv("TREV_OPTIONS");
	const char *writes = getenv("TREV_WRITE");
	const char *mount = getenv("TREV_MOUNT");
	const char *user_events = getenv("TREV_USER_EVENTS");
	int ret;

	pthread_mutex_lock(&env_lock);
	if (atomic_exchange(&control_done, true)) {
		env_apply_writes();
		pthread_mutex_unlock(&env_lock);
		trev__flight_update();
		return;
	}
	if (user_events && *user_events)
		env_user_events(user_events);
	if (clock && *clock && (ret = trev_write("trace_clock", clock)))
		env_warn_write("TREV_CLOCK", "trace_clock", clock, ret);
	if (options && *options) {
		char *copy = strdup(options), *save = NULL;

		for (char *t = copy ? strtok_r(copy, ", ", &save) : NULL; t;
		     t = strtok_r(NULL, ", ", &save))
			if ((ret = trev_write("trace_options", t)))
				env_warn_write("TREV_OPTIONS", "trace_options", t, ret);
		free(copy);
	}
	if (writes && *writes) {
		env_parse_writes(writes);
		env_apply_writes();
	}
	pthread_mutex_unlock(&env_lock);
	if (mount && *mount && (ret = trev_mount(mount)))
		trev__log(TREV_LOG_WARN, "TREV_MOUNT: cannot mount the tree at %s: %s (ignored)\n",
			  mount, strerror(-ret));
	trev__env_at_exit();
	/* The flight recorder's metadata: its events are in, or more came. */
	trev__flight_update();
}

void trev__env_apply_events(unsigned int min_id)
{
	pthread_mutex_lock(&env_lock);
	for (int i = 0; i < nr_terms; i++)
		if (trev__set_event_from(terms[i].spec, min_id) == 0)
			terms[i].matched = true;
	pthread_mutex_unlock(&env_lock);
}
