/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev recover FILE: a flight recorder's file (TREV_FLIGHT, src/frontend/flight.c)
 * left under /dev/shm by a process that died with nobody recording, into
 * trace.dat. Nothing in the files is trusted: the region is copied into a
 * sealed memfd of our own (so nobody can truncate what we map: no SIGBUS)
 * and read by trev_rb_attach(), which checks every value; the metadata
 * file is parsed with every length checked (flight_meta.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trev/ring_buffer.h>
#include <trev/tracedat.h>

#include "frontend/flight_meta.h"
#include "flight_meta.h"
#include "ring_buffer/rb_page.h"
#include "pages.h"
#include "ring_buffer/rb_shm.h"
#include "trev.h"

static const char recover_help[] =
	"usage: trev recover [-o FILE] [--file-version 6|7] REGION\n"
	"\n"
	"Write the events a flight recorder left in REGION (a program run with\n"
	"TREV_FLIGHT, e.g. /dev/shm/trev-COMM-PID) into a trace.dat file, with the\n"
	"event formats, trace_printk formats and clock from REGION.meta beside it.\n"
	"Every event the program had committed is there, up to the buffer's size:\n"
	"in overwrite mode (the default) older ones may have been overwritten.\n"
	"A process still running is read as it is now: a snapshot.\n"
	"\n"
	"  -o FILE              output file (default trace.dat)\n"
	"  --file-version 6|7   trace.dat version (default 6)\n"
	"\n"
	"Exit status: 0, 1 when the files cannot be read or the output written,\n"
	"2 for bad usage.\n";

/* The largest region copied: 64 GiB of address space, of which only the data is read. */
#define RCV_MAX_REGION	(64ull << 30)
#define RCV_CHUNK	(1u << 20)

struct rcv {
	struct trev_dat_source src;
	struct trev_rb *rb;		/* the attached private copy */
	struct trev_flight_meta meta;
	int nr_cpus;
	struct trev_page_tally *cpus;
};

static struct rcv *rcv_of(const struct trev_dat_source *src)
{
	return (struct rcv *)src;	/* src is the first member */
}

/* ------------------------------------------------------------------ */
/* The region: a private, sealed copy                                   */

/* Copy [@from, @to) of @fd into @memfd; stop early where the file ends. */
static int rcv_copy_range(int fd, int memfd, off_t from, off_t to, char *buf)
{
	while (from < to) {
		size_t want = (size_t)(to - from) < RCV_CHUNK ? (size_t)(to - from) : RCV_CHUNK;
		ssize_t n = pread(fd, buf, want, from);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;	/* truncated meanwhile: the rest stays zero */
		for (ssize_t done = 0; done < n;) {
			ssize_t w = pwrite(memfd, buf + done, (size_t)(n - done), from + done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -errno;
			done += w;
		}
		from += n;
	}
	return 0;
}

/*
 * The region file's bytes in a new memfd, sealed at its size: only the
 * data extents are read (the region is sparse), and what another process
 * does to the file from now on cannot reach our mapping.
 * Return: the memfd, or a negative errno (@why says more).
 */
static int rcv_copy_region(const char *path, char *why, size_t why_size)
{
	struct stat st;
	int fd, memfd = -1, ret = 0;
	char *buf = NULL;
	off_t off = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		ret = -errno;
		snprintf(why, why_size, "%s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < 4096 || (uint64_t)st.st_size > RCV_MAX_REGION) {
		ret = -EINVAL;
		snprintf(why, why_size, "not a ring buffer region (a regular file of 4 KiB to "
			 "%llu GiB)", RCV_MAX_REGION >> 30);
		goto out;
	}
	memfd = memfd_create("trev-recover", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	buf = malloc(RCV_CHUNK);
	if (memfd < 0 || !buf || ftruncate(memfd, st.st_size) < 0) {
		ret = buf ? -errno : -ENOMEM;
		snprintf(why, why_size, "a copy of %lld bytes: %s", (long long)st.st_size,
			 strerror(-ret));
		goto out;
	}
	while (off < st.st_size) {
		off_t data = lseek(fd, off, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			break;	/* only a hole is left */
		if (data < 0) {	/* no SEEK_DATA here: every byte is data */
			data = off;
			hole = st.st_size;
		} else {
			hole = lseek(fd, data, SEEK_HOLE);
			if (hole < 0 || hole > st.st_size)
				hole = st.st_size;
		}
		if (data >= st.st_size)
			break;
		ret = rcv_copy_range(fd, memfd, data, hole, buf);
		if (ret < 0) {
			snprintf(why, why_size, "%s", strerror(-ret));
			goto out;
		}
		if (hole <= off)
			break;
		off = hole;
	}
	if (fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		ret = -errno;
		snprintf(why, why_size, "sealing the copy: %s", strerror(errno));
	}
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	if (ret < 0) {
		if (memfd >= 0)
			close(memfd);
		return ret;
	}
	return memfd;
}

/* ------------------------------------------------------------------ */
/* The metadata file                                                    */

static int rcv_read_meta(struct rcv *rcv, const char *path, char *why, size_t why_size)
{
	size_t len = 0, cap = TREV_FLIGHT_META_MAX + 1;
	struct stat st;
	char *buf;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(why, why_size, "%s", strerror(errno));
		ret = -errno;
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(why, why_size, "not a regular file");
		return -EINVAL;
	}
	if ((uint64_t)st.st_size < cap)
		cap = (size_t)st.st_size + 1;	/* one more, to see it grew */
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (len < cap) {
		ssize_t n = read(fd, buf + len, cap - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len > TREV_FLIGHT_META_MAX) {
		free(buf);
		snprintf(why, why_size, "more than %u bytes", TREV_FLIGHT_META_MAX);
		return -EINVAL;
	}
	ret = trev_flight_meta_parse(&rcv->meta, buf, len, why, why_size);
	free(buf);
	return ret;
}

/* A decimal "@name" of the metadata, or 0. */
static unsigned long long rcv_meta_number(const struct rcv *rcv, const char *name)
{
	const char *text = trev_flight_meta_get(&rcv->meta, name, NULL);
	char *end;
	unsigned long long v;

	if (!text)
		return 0;
	errno = 0;
	v = strtoull(text, &end, 10);
	return errno || end == text || *end ? 0 : v;
}

/* ------------------------------------------------------------------ */
/* The trace.dat source                                                 */

/* trace_clock with the region's clock selected (it may have changed after the metadata). */
static ssize_t rcv_trace_clock(const struct rcv *rcv, char **text)
{
	int clock = trev_rb_clock(rcv->rb);
	size_t len = 0, cap = 256;
	char *out;

	if (clock < 0 || clock >= TREV_CLOCK__COUNT || !trev_clock_name(clock))
		return -ENOENT;
	out = malloc(cap);
	if (!out)
		return -ENOMEM;
	for (int c = 0; c < TREV_CLOCK__COUNT; c++) {
		const char *name = trev_clock_name(c);

		if (name && len < cap)
			len += (size_t)snprintf(out + len, cap - len, c == clock ? "%s[%s]" : "%s%s",
						len ? " " : "", name);
	}
	if (len >= cap - 1)
		len = cap - 2;
	out[len++] = '\n';
	out[len] = '\0';
	*text = out;
	return (ssize_t)len;
}

static ssize_t rcv_stats(const struct rcv *rcv, int cpu, char **text)
{
	struct trev_rb_stats st;

	if (trev_rb_cpu_stats(rcv->rb, cpu, &st) < 0)
		memset(&st, 0, sizeof(st));
	if (asprintf(text, "entries: %llu\noverrun: %llu\ncommit overrun: %llu\nbytes: %llu\n"
		     "dropped events: %llu\nread events: %llu\n", (unsigned long long)st.entries,
		     (unsigned long long)st.overrun, (unsigned long long)st.commit_overrun,
		     (unsigned long long)st.bytes, (unsigned long long)st.dropped_events,
		     (unsigned long long)st.read_events) < 0)
		return -ENOMEM;
	return (ssize_t)strlen(*text);
}

static ssize_t rcv_from_meta(const struct rcv *rcv, const char *name, char **text)
{
	uint32_t len;
	const char *data = trev_flight_meta_get(&rcv->meta, name, &len);

	if (!data)
		return -ENOENT;
	*text = malloc((size_t)len + 1);
	if (!*text)
		return -ENOMEM;
	memcpy(*text, data, (size_t)len + 1);
	return (ssize_t)len;
}

static ssize_t rcv_read_file(const struct trev_dat_source *src, const char *path, char **text)
{
	struct rcv *rcv = rcv_of(src);
	int cpu, end = 0;

	if (sscanf(path, "per_cpu/cpu%d/stats%n", &cpu, &end) == 1 && path[end] == '\0')
		return cpu >= 0 && cpu < rcv->nr_cpus ? rcv_stats(rcv, cpu, text) : -ENOENT;
	if (strcmp(path, "trace_clock") == 0) {
		ssize_t n = rcv_trace_clock(rcv, text);

		return n == -ENOENT ? rcv_from_meta(rcv, path, text) : n;
	}
	if (strcmp(path, "saved_cmdlines") == 0) {
		ssize_t n = trev_mapped_cmdlines(rcv->rb, text);

		if (n != 0)
			return n;
		free(*text);
	}
	return rcv_from_meta(rcv, path, text);
}

static ssize_t rcv_list_dir(const struct trev_dat_source *src, const char *path, char **text)
{
	char name[TREV_FLIGHT_META_MAX_NAME + 2];

	if ((size_t)snprintf(name, sizeof(name), "%s/", path) >= sizeof(name))
		return -ENAMETOOLONG;
	return rcv_from_meta(rcv_of(src), name, text);
}

static int rcv_read_page(const struct trev_dat_source *src, int cpu, void *page,
			 unsigned int flags)
{
	int ret;

	(void)flags;
	ret = trev_rb_read_page_cpu(rcv_of(src)->rb, cpu, page);
	return ret == -EAGAIN ? 0 : ret;
}

/* Every page of every CPU into @dat. Return: 0 or a negative errno. */
static int rcv_drain(struct rcv *rcv, struct trev_dat *dat)
{
	static unsigned char page[TREV_DAT_PAGE_SIZE];
	long added;

	do {
		added = 0;
		for (int cpu = 0; cpu < rcv->nr_cpus; cpu++) {
			int ret;

			while ((ret = rcv->src.read_page(&rcv->src, cpu, page, 0)) == 1) {
				ret = trev_dat_add_page(dat, cpu, page);
				if (ret < 0)
					return ret;
				trev_page_tally_add(&rcv->cpus[cpu], page);
				added++;
			}
			if (ret < 0)
				return ret;
		}
	} while (added > 0);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The command                                                          */

/* Is the process the metadata names still running (the same one, not a reused pid)? */
static bool rcv_alive(const struct rcv *rcv, pid_t pid)
{
	unsigned long long start = rcv_meta_number(rcv, "@start");
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	if (pid <= 0 || (kill(pid, 0) < 0 && errno != EPERM))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	return !p || !start || strtoull(p + 1, NULL, 10) == start;
}

static void rcv_summary(const struct rcv *rcv, const char *region, FILE *log)
{
	uint64_t entries = 0, lost = 0, lost_pages = 0, overrun = 0;
	const char *comm = trev_flight_meta_get(&rcv->meta, "@comm", NULL);
	pid_t pid = (pid_t)rcv_meta_number(rcv, "@pid");

	for (int cpu = 0; cpu < rcv->nr_cpus; cpu++) {
		const struct trev_page_tally *c = &rcv->cpus[cpu];
		struct trev_rb_stats st;

		entries += c->entries;
		lost += c->lost;
		lost_pages += c->lost_pages;
		if (trev_rb_cpu_stats(rcv->rb, cpu, &st) == 0)
			overrun += st.overrun;
		if (c->entries || c->lost || c->lost_pages)
			fprintf(log, "trev:   CPU %d: %llu events, %llu lost%s\n", cpu,
				(unsigned long long)c->entries, (unsigned long long)c->lost,
				c->lost_pages ? " (and more: a page said so)" : "");
	}
	fprintf(log, "trev: recovered %llu events of process %d (%s) from %s; %llu lost, "
		"%llu overwritten\n", (unsigned long long)entries, (int)pid,
		comm && *comm ? comm : "?", region, (unsigned long long)lost,
		(unsigned long long)overrun);
	if (lost_pages)
		fprintf(log, "trev: %llu pages say events were lost before them without a count\n",
			(unsigned long long)lost_pages);
	if (rcv_alive(rcv, pid))
		fprintf(log, "trev: process %d is still running: this is a snapshot of its "
			"buffer\n", (int)pid);
	else
		fprintf(log, "trev: process %d is gone\n", (int)pid);
}

int trev_recover_files(const char *region, const char *output, int version, FILE *log)
{
	struct rcv rcv = { 0 };
	char why[512] = "", *meta_path = NULL;
	struct trev_dat *dat = NULL;
	int memfd, ret, status = 1;
	struct stat st;

	if (asprintf(&meta_path, "%s.meta", region) < 0) {
		trev_err("%s", strerror(ENOMEM));
		return 1;
	}
	ret = rcv_read_meta(&rcv, meta_path, why, sizeof(why));
	if (ret < 0) {
		trev_err("%s: %s", meta_path, why[0] ? why : strerror(-ret));
		goto out;
	}
	memfd = rcv_copy_region(region, why, sizeof(why));
	if (memfd < 0) {
		trev_err("%s: %s", region, why[0] ? why : strerror(-memfd));
		goto out;
	}
	ret = trev_rb_attach(&rcv.rb, memfd);
	close(memfd);
	if (ret < 0) {
		trev_err("%s: %s", region, ret == -EPROTO ?
			 "not a trev ring buffer region of this version (or a damaged one)" :
			 strerror(-ret));
		goto out;
	}
	/* A copy: a write in flight in it never ends, whether the process lives or not. */
	trev_rb_writers_gone(rcv.rb);
	rcv.nr_cpus = trev_rb_nr_cpus(rcv.rb);
	rcv.cpus = calloc((size_t)(rcv.nr_cpus > 0 ? rcv.nr_cpus : 1), sizeof(*rcv.cpus));
	if (rcv.nr_cpus <= 0 || !rcv.cpus) {
		trev_err("%s: %s", region, strerror(ENOMEM));
		goto out;
	}
	rcv.src.read_file = rcv_read_file;
	rcv.src.list_dir = rcv_list_dir;
	rcv.src.read_page = rcv_read_page;
	if (trev_check_output(output) < 0) {
		ret = -EACCES;
		goto out;
	}
	ret = trev_dat_open(&dat, output, version, &rcv.src);
	if (ret < 0) {
		trev_err("%s: %s", output, strerror(-ret));
		goto out;
	}
	ret = rcv_drain(&rcv, dat);
	if (ret == -EUCLEAN && trev_mapped_damage(rcv.rb, why, sizeof(why))) {
		trev_err("%s: damaged: %s", region, why);
		trev_dat_abort(dat);
		goto out;
	}
	if (ret < 0) {
		trev_err("%s: reading its pages: %s", region, strerror(-ret));
		trev_dat_abort(dat);
		goto out;
	}
	ret = trev_dat_finish(dat);
	if (ret < 0) {
		trev_err("%s: %s (is %s complete?)", output, strerror(-ret), meta_path);
		goto out;
	}
	rcv_summary(&rcv, region, log);
	fprintf(log, "trev: wrote %s (version %d, %lld bytes)\n", output, version,
		stat(output, &st) == 0 ? (long long)st.st_size : -1LL);
	status = 0;
out:
	trev_rb_destroy(rcv.rb);
	trev_flight_meta_free(&rcv.meta);
	free(rcv.cpus);
	free(meta_path);
	return status;
}

int cmd_recover(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "file-version", required_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = "trace.dat";
	int c, version = 6;

	while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(recover_help, stdout);
			return 0;
		case 'o':
			output = optarg;
			break;
		case 'V':
			if (strcmp(optarg, "6") && strcmp(optarg, "7")) {
				trev_err("--file-version is 6 or 7, not '%s'", optarg);
				return 2;
			}
			version = atoi(optarg);
			break;
		default:
			fputs(recover_help, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(recover_help, stderr);
		return 2;
	}
	return trev_recover_files(argv[optind], output, version, stderr);
}
