// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trev's side of the kernel-header corpus test: linked with one kernel event header compiled
 * with trev (the two include lines changed) and with the calls gen_fire.py generated for it.
 * Through the tracefs tree it enables every event of every system but ftrace, writes each
 * event's format to DIR/trev/<event>.format, fires every event once (kh_fire_all()), then
 * writes the `trace` text to DIR/trace.txt and the same records to DIR/trace.dat (version 6),
 * for trace-cmd report.
 *
 * Usage: trev_main DIR
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trev/trev.h>

void kh_fire_all(void);

/*
 * The tree's lock is held while trev_readdir() calls back, so names are collected first and
 * the files opened after.
 */
struct kh_names {
	char name[256][128];
	int n;
};

static int kh_collect(const char *name, const struct trev_stat *st, void *arg)
{
	struct kh_names *names = arg;

	if (st->is_dir && names->n < 256)
		snprintf(names->name[names->n++], sizeof(names->name[0]), "%s", name);
	return 0;
}

/* Enable every event of @system and write its formats to @dir/trev/. */
static int kh_system(const char *dir, const char *system)
{
	static struct kh_names events;
	char path[4096];
	int failed = 0;
	int ret;
	int i;

	snprintf(path, sizeof(path), "events/%s/enable", system);
	ret = trev_write(path, "1");
	if (ret) {
		fprintf(stderr, "trev_main: %s: %s\n", path, strerror(-ret));
		return -1;
	}
	snprintf(path, sizeof(path), "events/%s", system);
	events.n = 0;
	ret = trev_readdir(path, kh_collect, &events);
	if (ret) {
		fprintf(stderr, "trev_main: %s: %s\n", path, strerror(-ret));
		return -1;
	}
	for (i = 0; i < events.n; i++) {
		char *text;
		FILE *f;

		ret = trev_event_format(system, events.name[i], &text);
		if (ret) {
			fprintf(stderr, "trev_main: format of %s:%s: %s\n", system, events.name[i],
				strerror(-ret));
			failed = 1;
			continue;
		}
		snprintf(path, sizeof(path), "%s/trev/%s.format", dir, events.name[i]);
		f = fopen(path, "w");
		if (!f || fputs(text, f) == EOF || fclose(f)) {
			perror(path);
			failed = 1;
		}
		free(text);
	}
	return failed ? -1 : 0;
}

int main(int argc, char **argv)
{
	static struct kh_names systems;
	char path[4096];
	FILE *f;
	int ret;
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	ret = trev_readdir("events", kh_collect, &systems);
	if (ret) {
		fprintf(stderr, "trev_main: events: %s\n", strerror(-ret));
		return 1;
	}
	for (i = 0; i < systems.n; i++)
		if (strcmp(systems.name[i], "ftrace") && kh_system(argv[1], systems.name[i]))
			return 1;

	kh_fire_all();

	snprintf(path, sizeof(path), "%s/trace.txt", argv[1]);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	ret = trev_trace_print(f);
	if (fclose(f) || ret) {
		fprintf(stderr, "trev_main: trace text: %s\n", strerror(ret ? -ret : errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/trace.dat", argv[1]);
	ret = trev_record_dat(NULL, path, 6);
	if (ret) {
		fprintf(stderr, "trev_main: %s: %s\n", path, strerror(-ret));
		return 1;
	}
	return 0;
}
