/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A trace.dat writer killed at any point of its checkpoints (tracedat.c,
 * "Checkpoints"; tests/scripts/tracedat_ckpt_cut.sh checks what it leaves).
 *
 * Linked with -Wl,--wrap=pwrite: every pwrite() of the writer goes out in
 * pieces that end at page boundaries, which is where the kernel may cut one
 * short when the writer is killed (generic_perform_write() checks for a
 * fatal signal before each page or folio: a SIGKILL lands between two of
 * them, never inside one). Piece number CUT is not written: the process
 * SIGKILLs itself there. And -Wl,--wrap=pthread_create fails, so that the
 * writer writes each batch and its checkpoint in the caller's thread
 * (dat_cpu_submit()'s fallback, in the order its thread would): every run
 * writes the same pieces in the same order.
 *
 * The recording, from a made-up source of 2 CPUs whose metadata changes at
 * each snapshot (the CPUSTAT texts, thread names that grow and shrink, an
 * event that appears), so that the checkpoints rewrite it whole and its
 * layout moves:
 *
 *   snapshot 1; CPU 0: 3 pages; sync
 *   snapshot 2; CPU 0: 2 pages, CPU 1: 2 pages; sync
 *   snapshot 3; CPU 0: 1 page, CPU 1: 1 page; sync
 *
 * then it ends without trev_dat_finish(), as a recorder killed after its
 * last checkpoint. Each page holds PAGE_EVENTS ckpt:tick events, cpu=C
 * seq=N, N counting from 0 on each CPU.
 *
 *   dat_ckpt_cut VERSION FILE CUT
 *
 * CUT 0: no cut. Prints "pieces N" (the pieces written) when it ends
 * without being cut.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trev/tracedat.h>

#include "tracedat/tracedat_internal.h"

#define NR_CPUS		2
#define PAGE_EVENTS	5
#define CUT_PAGE	4096u	/* the kernel copies a write page by page at least */

static unsigned long cut;	/* 0: none */
static unsigned long pieces;	/* written so far */

ssize_t __real_pwrite(int fd, const void *buf, size_t len, off_t at);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t len, off_t at);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg);

/* One piece, up to the next page boundary; the writer's loop writes the rest. */
ssize_t __wrap_pwrite(int fd, const void *buf, size_t len, off_t at)
{
	size_t room = CUT_PAGE - (size_t)at % CUT_PAGE;

	if (len > room)
		len = room;
	if (++pieces == cut) {
		kill(getpid(), SIGKILL);
		for (;;)
			pause();
	}
	return __real_pwrite(fd, buf, len, at);
}

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg)
{
	(void)t;
	(void)attr;
	(void)fn;
	(void)arg;
	return EAGAIN;
}

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";
#define COMMON_FIELDS								\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"	\
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"	\
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
static const char fmt_tick[] =
	"name: tick\nID: 1000\nformat:\n" COMMON_FIELDS
	"\tfield:int cpu;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int seq;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"cpu=%d seq=%d\", REC->cpu, REC->seq\n";

/* The snapshot being taken: 1, 2, 3 (what the source serves changes with it). */
static int phase;

/* Event @i's format: "ckpt:late" from snapshot 2 on; several fillers make the metadata pages long. */
static char *format_text(const char *name)
{
	char *text;
	int id;

	if (!strcmp(name, "tick"))
		return strdup(fmt_tick);
	if (sscanf(name, "filler%d", &id) != 1 && strcmp(name, "late"))
		return NULL;
	if (!strcmp(name, "late"))
		id = 99;
	if (asprintf(&text, "name: %s\nID: %d\nformat:\n" COMMON_FIELDS
		     "\tfield:unsigned long a_rather_long_field_name_%d;\toffset:8;\tsize:8;\tsigned:0;\n"
		     "\tfield:unsigned long another_rather_long_field_name_%d;\toffset:16;\tsize:8;\tsigned:0;\n\n"
		     "print fmt: \"a=%%lu b=%%lu\", REC->a_rather_long_field_name_%d, "
		     "REC->another_rather_long_field_name_%d\n",
		     name, 1001 + id, id, id, id, id) < 0)
		return NULL;
	return text;
}

static ssize_t fake_read_file(const struct trev_dat_source *src, const char *path, char **text)
{
	char name[64];
	int cpu;

	(void)src;
	*text = NULL;
	if (!strcmp(path, "events/header_page")) {
		*text = strdup(header_page);
	} else if (!strcmp(path, "events/header_event")) {
		*text = strdup(header_event);
	} else if (!strcmp(path, "available_events")) {
		char list[1024] = "ckpt:tick\n";

		for (int i = 0; i < 12; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 "ckpt:filler%d\n", i);
		if (phase >= 2)
			strcat(list, "ckpt:late\n");
		*text = strdup(list);
	} else if (sscanf(path, "events/ckpt/%63[^/]/format", name) == 1) {
		if (!strcmp(name, "late") && phase < 2)
			return -ENOENT;
		*text = format_text(name);
		if (!*text)
			return -ENOENT;
	} else if (!strcmp(path, "saved_cmdlines")) {
		/* Thread names: 40 at first, 200 at snapshot 2, 60 at 3. */
		int n = phase == 2 ? 200 : phase == 3 ? 60 : 40;
		size_t len = 0;

		*text = malloc((size_t)n * 32);
		for (int i = 0; *text && i < n; i++)
			len += (size_t)sprintf(*text + len, "%d worker-%d\n", 1000 + i, i);
	} else if (!strcmp(path, "trace_clock")) {
		*text = strdup("[local] global counter mono\n");
	} else if (sscanf(path, "per_cpu/cpu%d/stats", &cpu) == 1) {
		if (cpu < 0 || cpu >= NR_CPUS)
			return -ENOENT;
		if (asprintf(text, "entries: %d\noverrun: 0\nread events: %d\n", phase,
			     1000 * phase + cpu) < 0)
			*text = NULL;
	} else {
		return -ENOENT;
	}
	return *text ? (ssize_t)strlen(*text) : -ENOMEM;
}

static ssize_t fake_list_dir(const struct trev_dat_source *src, const char *path, char **text)
{
	(void)src;
	(void)path;
	*text = strdup("enable\n");
	return *text ? 7 : -ENOMEM;
}

static int fake_read_page(const struct trev_dat_source *src, int cpu, void *page,
			  unsigned int flags)
{
	(void)src;
	(void)cpu;
	(void)page;
	(void)flags;
	return 0;
}

static const struct trev_dat_source fake = {
	.read_file = fake_read_file,
	.list_dir = fake_list_dir,
	.read_page = fake_read_page,
};

static uint64_t next_seq[NR_CPUS];

/* The next page of @cpu: PAGE_EVENTS ckpt:tick records, 1 us apart. */
static void make_page(unsigned char *page, int cpu)
{
	uint64_t seq = next_seq[cpu], ts = 1000000000ull + seq * 1000, commit = 0;

	memset(page, 0, TREV_DAT_PAGE_SIZE);
	memcpy(page, &ts, 8);
	for (int i = 0; i < PAGE_EVENTS; i++) {
		/* type_len 4: 16 bytes of data; time_delta 0 for the first, then 1000 ns. */
		uint32_t head = 4u | (uint32_t)(i ? 1000 : 0) << 5;
		uint16_t type = 1000;
		int32_t pid = 1000 + cpu, c = cpu, s = (int32_t)(seq + (uint64_t)i);
		unsigned char *r = page + 16 + commit;

		memcpy(r, &head, 4);
		memcpy(r + 4, &type, 2);
		memcpy(r + 8, &pid, 4);
		memcpy(r + 12, &c, 4);
		memcpy(r + 16, &s, 4);
		commit += 20;
	}
	memcpy(page + 8, &commit, 8);
	next_seq[cpu] += PAGE_EVENTS;
}

static void must(int ret, const char *what)
{
	if (ret < 0) {
		fprintf(stderr, "dat_ckpt_cut: %s: %s\n", what, strerror(-ret));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static const int steps[3][NR_CPUS] = { { 3, 0 }, { 2, 2 }, { 1, 1 } };
	unsigned char page[TREV_DAT_PAGE_SIZE];
	struct trev_dat *dat;

	if (argc != 4 || (strcmp(argv[1], "6") && strcmp(argv[1], "7"))) {
		fprintf(stderr, "usage: dat_ckpt_cut 6|7 FILE CUT\n");
		return 2;
	}
	cut = strtoul(argv[3], NULL, 10);
	must(trev_dat_open(&dat, argv[2], atoi(argv[1]), &fake), "trev_dat_open");
	for (phase = 1; phase <= 3; phase++) {
		must(trev_dat_snapshot(dat), "trev_dat_snapshot");
		for (int cpu = 0; cpu < NR_CPUS; cpu++) {
			for (int i = 0; i < steps[phase - 1][cpu]; i++) {
				make_page(page, cpu);
				must(trev_dat_add_page(dat, cpu, page), "trev_dat_add_page");
			}
		}
		must(trev__dat_sync(dat), "trev__dat_sync");
	}
	/* Killed after the last checkpoint: the file stays as it made it. */
	printf("pieces %lu\n", pieces);
	fflush(stdout);
	_exit(0);
}
