/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * per_cpu/cpu<N>/: per-CPU views of the per-thread buffers. Every record
 * holds the CPU it ran on, so a CPU's view is the records of that CPU.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefs/tracefs_internal.h"

extern const struct tfs_fops trev__trace_fops;
extern const struct tfs_fops trev__buffer_size_fops;

static const struct tfs_node cpu_entries[] = {
	{ "buffer_size_kb", 0640, &trev__buffer_size_fops, NULL, false },
	{ "trace", 0640, &trev__trace_fops, NULL, false },
	{ NULL, 0, NULL, NULL, false },
};

static const struct tfs_dir cpu_dir = { .entries = cpu_entries };
static const struct tfs_node cpu_node = { "", 0750, NULL, &cpu_dir, false };

static int nr_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
}

static int per_cpu_list(const struct tfs_loc *loc, trev_readdir_fn fn, void *arg)
{
	(void)loc;
	for (int cpu = 0; cpu < nr_cpus(); cpu++) {
		struct trev_stat st = { 1, cpu_node.mode };
		char name[32];
		int ret;

		snprintf(name, sizeof(name), "cpu%d", cpu);
		ret = fn(name, &st, arg);
		if (ret)
			return ret;
	}
	return 0;
}

static int per_cpu_lookup(struct tfs_loc *loc, const char *name)
{
	char *end;
	long cpu;

	if (strncmp(name, "cpu", 3) || !name[3] || name[3] == '-' || name[3] == '+')
		return -ENOENT;
	cpu = strtol(name + 3, &end, 10);
	if (*end || cpu < 0 || cpu >= nr_cpus() || (name[3] == '0' && name[4]))
		return -ENOENT;
	loc->cpu = (int)cpu;
	loc->node = &cpu_node;
	return 0;
}

const struct tfs_dir trev__per_cpu_dir = {
	.list = per_cpu_list,
	.lookup = per_cpu_lookup,
};
