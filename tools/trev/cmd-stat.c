/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev stat -p PID: for the top instance and each instances/NAME of a
 * running process, its buffer settings, the kernel's per_cpu/cpuN/stats as a
 * table, and trev's per_thread_stats (docs/cli/trev-stat.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trev/ring_buffer.h>

#include "control/proto.h"
#include "remote.h"
#include "ring_buffer/rb_shm.h"
#include "trev.h"

static const char stat_help[] =
	"usage: trev stat -p PID[,PID...] [-p PID]...\n"
	"\n"
	"Print, for each trace instance of each process PID, the buffer settings, the\n"
	"entries and losses per CPU (per_cpu/cpuN/stats) and per thread\n"
	"(per_thread_stats); several processes one after the other (a recorded run's:\n"
	"trev ps lists them).\n";

/* The kernel's stats fields, in the order of the table's columns. */
static const char *const stat_fields[] = {
	"entries", "overrun", "commit overrun", "dropped events", "read events", "bytes",
};
static const char *const stat_columns[] = {
	"ENTRIES", "OVERRUN", "COMMIT_OVR", "DROPPED", "READ", "BYTES",
};
#define NR_FIELDS (sizeof(stat_fields) / sizeof(stat_fields[0]))

/* A small file's text without its last newline, or NULL after an error message. */
static char *read_text(struct trev_remote *r, const char *path)
{
	char *text;
	ssize_t n = trev_remote_read_file(r, path, &text);

	if (n < 0) {
		trev_err("%s: %s", path, strerror((int)-n));
		return NULL;
	}
	while (n > 0 && text[n - 1] == '\n')
		text[--n] = '\0';
	return text;
}

/* The selected clock of trace_clock's "[local] global ...". */
static void clock_name(char *text)
{
	char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;

	if (close) {
		*close = '\0';
		memmove(text, open + 1, strlen(open + 1) + 1);
	}
}

static int count_cpu(const char *name, int is_dir, unsigned int mode, void *arg)
{
	(void)mode;
	if (is_dir && !strncmp(name, "cpu", 3))
		++*(int *)arg;
	return 0;
}

/* One row of the per-CPU table from per_cpu/cpu@cpu/stats. Return: 0 or 1. */
static int print_cpu(struct trev_remote *r, const char *prefix, int cpu)
{
	char path[512], *text, *line;
	unsigned long long val[NR_FIELDS] = { 0 };

	snprintf(path, sizeof(path), "%sper_cpu/cpu%d/stats", prefix, cpu);
	text = read_text(r, path);
	if (!text)
		return 1;
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = '\0';
		for (size_t i = 0; i < NR_FIELDS; i++)
			if (!strcmp(line, stat_fields[i]))
				val[i] = strtoull(colon + 1, NULL, 10);
	}
	free(text);
	printf("  %5d", cpu);
	for (size_t i = 0; i < NR_FIELDS; i++)
		printf(" %11llu", val[i]);
	putchar('\n');
	return 0;
}

/* One row of the per-CPU table from @st. */
static void print_cpu_stats(int cpu, const struct trev_rb_stats *st)
{
	const unsigned long long val[NR_FIELDS] = {
		st->entries, st->overrun, st->commit_overrun, st->dropped_events,
		st->read_events, st->bytes,
	};

	printf("  %5d", cpu);
	for (size_t i = 0; i < NR_FIELDS; i++)
		printf(" %11llu", val[i]);
	putchar('\n');
}

/*
 * The top instance's per-CPU statistics from its ring buffer mapped here
 * (MAP without consuming): the process copies nothing, and nothing of its
 * readers moves. Return: 0 with @nr_cpus rows in @st (malloc'd), or a
 * negative errno: the caller reads per_cpu/cpuN/stats over the socket (an
 * older process, a flight recorder's file, or a buffer lent to a
 * consumer, whose share of the events is not in the mapping).
 */
static int mapped_stats(struct trev_remote *r, int nr_cpus, struct trev_rb_stats **out)
{
	struct trev_rb_stats *st;
	struct trev_rb *rb;
	int fd, busyfd, ret;

	if (trev_remote_version(r) < TREV_PROTO_RESTAGE)
		return -EOPNOTSUPP;	/* its views are not published in the region */
	ret = trev_remote_map(r, 0, &fd, &busyfd);
	if (ret < 0)
		return ret;
	if (busyfd >= 0)
		close(busyfd);
	ret = trev_rb_attach(&rb, fd);
	close(fd);
	if (ret < 0)
		return ret;
	st = calloc((size_t)nr_cpus, sizeof(*st));
	if (!st)
		ret = -ENOMEM;
	else if (trev_rb_nr_cpus(rb) != nr_cpus)
		ret = -ERANGE;	/* not the per_cpu directories it has */
	for (int cpu = 0; st && ret == 0 && cpu < nr_cpus; cpu++)
		ret = trev_rb_cpu_stats(rb, cpu, &st[cpu]);
	trev_rb_destroy(rb);
	if (ret < 0) {
		free(st);
		return ret;
	}
	*out = st;
	return 0;
}

/* Everything of one instance; @prefix is "" or "instances/NAME/". Return: 0 or 1. */
static int print_instance(struct trev_remote *r, const char *name, const char *prefix)
{
	static const char *const settings[] = { "tracing_on", "trace_clock", "buffer_size_kb",
						"buffer_total_size_kb" };
	char path[512], *text, *line;
	struct trev_rb_stats *st = NULL;
	int nr_cpus = 0, ret;

	printf("instance %s\n", name);
	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", prefix, settings[i]);
		text = read_text(r, path);
		if (!text)
			return 1;
		if (i == 1)
			clock_name(text);
		printf("  %s: %s%s\n", settings[i], text, i == 2 ? " (per thread)" : "");
		free(text);
	}

	snprintf(path, sizeof(path), "%sper_cpu", prefix);
	ret = trev_remote_readdir(r, path, count_cpu, &nr_cpus);
	if (ret < 0) {
		trev_err("%s: %s", path, strerror(-ret));
		return 1;
	}
	if (!*prefix && mapped_stats(r, nr_cpus, &st) < 0)
		st = NULL;
	printf("  per CPU (per_cpu/cpuN/stats%s):\n  %5s", st ? ", from the mapped buffer" : "",
	       "CPU");
	for (size_t i = 0; i < NR_FIELDS; i++)
		printf(" %11s", stat_columns[i]);
	putchar('\n');
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		if (st)
			print_cpu_stats(cpu, &st[cpu]);
		else if (print_cpu(r, prefix, cpu))
			return 1;
	}
	free(st);

	snprintf(path, sizeof(path), "%sper_thread_stats", prefix);
	text = read_text(r, path);
	if (!text)
		return 1;
	printf("  per thread (per_thread_stats):\n");
	printf("  %9s %-16s %10s %10s %10s %10s\n", "TID", "COMM", "ENTRIES", "READ", "OVERRUN",
	       "DROPPED");
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		if (line[0] != '#')
			printf("  %s\n", line);
	free(text);
	putchar('\n');
	return 0;
}

struct names {
	char **v;
	size_t nr;
};

static int add_instance(const char *name, int is_dir, unsigned int mode, void *arg)
{
	struct names *n = arg;
	char **v;

	(void)mode;
	if (!is_dir)
		return 0;
	v = realloc(n->v, (n->nr + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	n->v = v;
	n->v[n->nr] = strdup(name);
	return n->v[n->nr++] ? 0 : -ENOMEM;
}

/* Everything of process @pid. Return: 0 or 1. */
static int stat_one(pid_t pid)
{
	struct names inst = { NULL, 0 };
	struct trev_remote *r = trev_attach(pid);
	int ret;

	if (!r)
		return 1;
	ret = trev_remote_readdir(r, "instances", add_instance, &inst);
	if (ret < 0) {
		trev_err("instances: %s", strerror(-ret));
		ret = 1;
		goto out_free;
	}
	printf("process %d (%s)\n"
	       "Overwritten events are counted per thread; those lost from the per-CPU\n"
	       "staging queues only per CPU.\n\n", (int)pid, trev_remote_banner(r));
	ret = print_instance(r, "top", "");
	for (size_t i = 0; i < inst.nr && !ret; i++) {
		char prefix[300];

		snprintf(prefix, sizeof(prefix), "instances/%s/", inst.v[i]);
		ret = print_instance(r, inst.v[i], prefix);
	}
out_free:
	for (size_t i = 0; i < inst.nr; i++)
		free(inst.v[i]);
	free(inst.v);
	trev_remote_close(r);
	return ret;
}

int cmd_stat(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	pid_t pids[256];
	int c, n = 0, ret = 0;

	while ((c = getopt_long(argc, argv, "+p:h", opts, NULL)) != -1) {
		char *save = NULL;

		if (c == 'h') {
			fputs(stat_help, stdout);
			return 0;
		}
		if (c != 'p') {
			fputs(stat_help, stderr);
			return 2;
		}
		/* -p PID,PID: as trev record takes it. */
		for (char *tok = strtok_r(optarg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (n == (int)(sizeof(pids) / sizeof(pids[0])) ||
			    (pids[n++] = trev_parse_pid(tok)) < 0) {
				fputs(stat_help, stderr);
				return 2;
			}
		}
	}
	if (!n || optind != argc) {
		fputs(stat_help, stderr);
		return 2;
	}
	for (int i = 0; i < n; i++) {
		if (i)
			putchar('\n');
		ret |= stat_one(pids[i]);
	}
	return ret;
}
