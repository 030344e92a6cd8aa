/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The start-up environment: TREV_EVENTS enables events (set_event syntax,
 * comma-separated) in the program and in every object loaded later;
 * TREV_OUTPUT receives the `trace` text when the program exits.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_internal.h"
#include "events/events_internal.h"

struct env_term {
	char *spec;		/* one set_event term */
	bool matched;		/* it matched some event at least once */
};

static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;
static struct env_term *terms;
static int nr_terms;
static char *output_path;

static bool exit_done;

static void env_at_exit(void)
{
	FILE *out;
	struct trev_trace_array *tr;

	pthread_mutex_lock(&env_lock);
	if (exit_done) {
		pthread_mutex_unlock(&env_lock);
		return;
	}
	exit_done = true;
	pthread_mutex_unlock(&env_lock);

	for (int i = 0; i < nr_terms; i++)
		if (!terms[i].matched)
			trev__log(TREV_LOG_WARN, "TREV_EVENTS: '%s' matched no event\n",
				  terms[i].spec);
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
		out = fopen(output_path, "we");
		if (!out) {
			trev__log(TREV_LOG_ERR, "TREV_OUTPUT: cannot open %s: %s\n", output_path,
				  strerror(errno));
			return;
		}
	}
	trev__trace_print(tr, out);
	if (out == stderr || out == stdout)
		fflush(out);
	else
		fclose(out);
}

void trev__env_init(void)
{
	const char *events = getenv("TREV_EVENTS");
	const char *output = getenv("TREV_OUTPUT");

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
	if (nr_terms || output_path)
		atexit(env_at_exit);
}

void trev__env_apply_events(unsigned int min_id)
{
	pthread_mutex_lock(&env_lock);
	for (int i = 0; i < nr_terms; i++)
		if (trev__set_event_from(terms[i].spec, min_id) == 0)
			terms[i].matched = true;
	pthread_mutex_unlock(&env_lock);
}
