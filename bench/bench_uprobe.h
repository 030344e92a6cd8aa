/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A kernel uprobe event on a function of this program (bench_ftrace.c:
 * beside trev's probe event, docs/benchmarks.md): `p:trev_bench/kup
 * EXE:OFFSET a=%di` written to /sys/kernel/tracing/uprobe_events and
 * enabled, so that each call traps into the kernel, which records the event
 * in its own ring buffer. Needs write access to tracefs (root, or a tracefs
 * made writable) and a kernel with CONFIG_UPROBE_EVENTS; else kup_start()
 * says why and the benchmark shows n/a. kup_stop() (also at exit) disables
 * and removes the event: nothing is left in the real tracefs.
 */
#ifndef TREV_BENCH_UPROBE_H
#define TREV_BENCH_UPROBE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KUP_TRACEFS	"/sys/kernel/tracing"
#define KUP_EVENT	"trev_bench/kup"

static bool kup_on;

/* Write @text to tracefs file @file (@append: O_APPEND, as `>>`). Return: 0 or -errno. */
static int kup_write(const char *file, const char *text, bool append)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), KUP_TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}

static void kup_stop(void)
{
	if (!kup_on)
		return;
	kup_write("events/trev_bench/kup/enable", "0", false);
	kup_write("uprobe_events", "-:" KUP_EVENT "\n", true);
	kup_on = false;
}

struct kup_where {
	uintptr_t addr;
	unsigned long off;
	bool found;
};

/* The program's PT_LOAD holding the function: its file offset. */
static int kup_where_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct kup_where *w = arg;

	(void)size;
	if (info->dlpi_name && *info->dlpi_name)
		return 0;	/* the program is the first, with no name */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && w->addr >= lo && w->addr < lo + ph->p_filesz) {
			w->off = ph->p_offset + (w->addr - lo);
			w->found = true;
		}
	}
	return 1;
}

/* The uprobe on @fn enabled. Return: 0, or -errno with @why set. */
static int kup_start(void *fn, const char **why)
{
	struct kup_where w = { (uintptr_t)fn, 0, false };
	char exe[4096], def[4200];
	ssize_t n;
	int ret;

	if (access(KUP_TRACEFS "/uprobe_events", W_OK)) {
		*why = "no writable " KUP_TRACEFS "/uprobe_events (not root, or no uprobe events)";
		return -EACCES;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		*why = "no /proc/self/exe";
		return -ENOENT;
	}
	exe[n] = '\0';
	dl_iterate_phdr(kup_where_cb, &w);
	if (!w.found) {
		*why = "the function is in no PT_LOAD of the program";
		return -ENOENT;
	}
	snprintf(def, sizeof(def), "p:" KUP_EVENT " %s:0x%lx a=%%di\n", exe, w.off);
	kup_write("uprobe_events", "-:" KUP_EVENT "\n", true);	/* a leftover, if any */
	ret = kup_write("uprobe_events", def, true);
	if (ret) {
		*why = "the kernel refused the uprobe definition";
		return ret;
	}
	kup_on = true;
	atexit(kup_stop);
	ret = kup_write("events/trev_bench/kup/enable", "1", false);
	if (ret) {
		*why = "the kernel refused to enable the uprobe event";
		kup_stop();
	}
	return ret;
}

/* The event's hits so far (uprobe_profile's third column), -1: not found. */
static long kup_hits(void)
{
	char line[4608], file[4096], name[128];
	long hits = -1, h;
	FILE *f = fopen(KUP_TRACEFS "/uprobe_profile", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %4095s %127s %ld", file, name, &h) == 3 && !strcmp(name, "kup"))
			hits = h;
	fclose(f);
	return hits;
}

#endif /* TREV_BENCH_UPROBE_H */
