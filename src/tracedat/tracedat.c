/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trace.dat writer: versions 6 and 7 exactly as docs/formats.md,
 * "trace.dat files" lays them out, from a struct trev_dat_source. Pages are copied as they came.
 *
 * Version 6 (one linear stream):
 *
 *   OFFSET  SIZE   MEANING
 *   0       3      17 08 44
 *   3       7      "tracing"
 *   10      2      "6\0"
 *   12      1      endianness (0 little, 1 big): the host's
 *   13      1      sizeof(long)
 *   14      4      page size (4096)
 *   18      ...    header info: "header_page\0" u64 len text "header_event\0" u64 len text
 *           ...    ftrace formats: u32 n, n × (u64 len, text)
 *           ...    event formats: u32 systems, per system "name\0" u32 n, n × (u64 len, text)
 *           ...    kallsyms: u32 len, text;  printk: u32 len, text
 *           ...    cmdlines: u64 len, text
 *           4      u32 number of CPUs
 *           10     "options  \0", options (u16 id, u32 len, data), u16 0
 *           10     "flyrecord\0"
 *           16×n   per CPU: u64 offset, u64 size
 *           8+L    u64 L + trace_clock text (present because TRACECLOCK is)
 *           ...    zeros to the page boundary, then CPU 0's pages, CPU 1's, ...
 *
 * Version 7: the same file header, "none\0\0", u64 offset of the options
 * section, then a gap-free chain of sections (u16 id, u16 flags, u32
 * description string id, u64 size, payload), written in this order:
 * 16 header info, 17 ftrace formats, 18 event formats, 19 kallsyms,
 * 20 printk, 21 cmdlines, 0 options, 3 flyrecord (zeros to the page
 * boundary, then the pages), 15 strings.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <trev/tracedat.h>

#include "base/buf.h"
#include "base/out_file.h"
#include "ring_buffer/rb_page.h"
#include "tracedat_internal.h"

#ifndef TREV_VERSION_STRING
#define TREV_VERSION_STRING "unknown"
#endif

/* Option ids (trace-cmd's TRACECMD_OPTION_*), also v7 section ids. */
enum {
	DAT_OPT_DONE = 0,
	DAT_OPT_CPUSTAT = 2,
	DAT_OPT_BUFFER = 3,
	DAT_OPT_TRACECLOCK = 4,
	DAT_OPT_UNAME = 5,
	DAT_OPT_CPUCOUNT = 8,
	DAT_OPT_VERSION = 9,
	DAT_OPT_PROCMAPS = 10,
	DAT_SEC_STRINGS = 15,
	DAT_OPT_HEADER_INFO = 16,
	DAT_OPT_FTRACE_EVENTS = 17,
	DAT_OPT_EVENT_FORMATS = 18,
	DAT_OPT_KALLSYMS = 19,
	DAT_OPT_PRINTK = 20,
	DAT_OPT_CMDLINES = 21,
};

#define DAT_SEC_HDR	16u	/* u16 id, u16 flags, u32 string id, u64 size */
#define DAT_MAX_IPS	4096	/* code addresses kept for kallsyms */
#define DAT_IP_BITS	13	/* their hash set: 2^13 slots, at most half full */
#define DAT_IP_SLOTS	(1u << DAT_IP_BITS)
#define DAT_MAX_IDS	65536	/* event ids are a u16 */
#define DAT_CODE_MAX	16	/* code-address fields kept per event */
#define DAT_BATCH	256	/* main-stream pages per write: 1 MiB ("The main stream") */
#define DAT_TMP_BATCH	64	/* another CPU's: 256 KiB */
#define DAT_MOVE_MAX	(8u << 20)	/* a main stream this small is moved by copying */
#define DAT_BASE_GUESS	(64u << 10)	/* the main stream's base without a snapshot */
#define DAT_REGIONS	8	/* CPUs writing into the file being made, at most */
#define DAT_REGION	(1ull << 40)	/* the room of each: 1 TiB, sparse ("The main stream") */
#define DAT_CK_FLY_END	((uint64_t)DAT_REGIONS * DAT_REGION)	/* a checkpoint's flyrecord section's end */
#define DAT_CK_TAIL	16	/* zeros a checkpoint writes after its metadata ("Checkpoints") */

/* A file pages are written to. */
struct dat_file {
	int fd;			/* -1: none */
	bool direct;		/* O_DIRECT: pages bypass the page cache */
};

/* One CPU's pages: in its temporary file, or (the first CPUs') in the file being made. */
struct dat_cpu {
	struct dat_file tmp;	/* its temporary file */
	struct dat_file *f;	/* where its pages go: &tmp or &dat->out.f */
	uint64_t base;		/* the offset of its first page in f */
	uint64_t limit;		/* in the file being made: its stream must end below this */
	uint64_t pages;		/* how many it has */
	uint64_t written;	/* how many of them are in f or queued for it (the rest in batch) */
	uint64_t durable;	/* under io.lock: how many of them a write has put in f */
	uint64_t durable_entries;	/* under io.lock: their data records (counted pages only) */
	uint64_t fill_entries;	/* the data records of the pages in batch (counted pages only) */
	unsigned char *batch;	/* pages waiting for one write, page-aligned; NULL until the first */
	unsigned int fill;	/* how many */
	unsigned int cap;	/* room in batch */
};

/*
 * The file being made, into which the first CPUs to have pages write them
 * (see "The main stream" below). f.fd -1: none; every CPU's pages go to
 * its temporary file and trev_dat_finish() writes the file at @path.
 */
struct dat_out {
	struct dat_file f;	/* O_TMPFILE in @path's directory, linked in at the end */
	int cpu;		/* the main CPU: the first to have a page; -1 none yet */
	int order[DAT_REGIONS];	/* the CPUs writing into f, by their first page: main first */
	int nr;			/* how many */
};

#define DAT_IO_BUFS	4	/* batches queued for the writer thread, at most */

/* One batch to write. */
struct dat_io_job {
	struct dat_cpu *c;	/* whose pages */
	struct dat_file *f;
	unsigned char *buf;
	size_t len;
	uint64_t at;
	uint64_t entries;	/* their data records */
};

/*
 * The writer thread (dat_io_run()): full batches are queued here and
 * written while trev_dat_add_page()'s caller reads on; it hands each
 * buffer back for the next batch. Started at the first full batch.
 */
struct dat_io {
	pthread_t thread;
	bool started;			/* the thread runs: only it touches the files */
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* a job queued, a job done, stop */
	struct dat_io_job jobs[DAT_IO_BUFS];	/* under lock: queued, from head */
	unsigned int head, nr;		/* under lock */
	unsigned char *spare[DAT_IO_BUFS];	/* under lock: buffers free for a batch */
	unsigned int nr_spare;		/* under lock */
	int err;			/* under lock: the first write's error, 0 */
	bool stop;			/* under lock: leave once the queue is empty */
};

/* One event's code-address field, as its format was read. */
struct dat_code_ent {
	uint16_t id;
	struct trev_dat_code_field f;
};

/* The code-address fields of every format read, and the highest id read. */
struct dat_code_list {
	struct dat_code_ent *p;
	size_t n, cap;
	long max_id;		/* -1: no format read */
	int err;
};

/*
 * Per event id, the fields its print fmt prints as code addresses
 * (code_fields.c): trev_dat_add_page() adds their values to kallsyms.
 * Made from the formats at trev_dat_open() and at each snapshot; an id at
 * or above nr_ids is an event registered since (dat->missed).
 */
struct dat_code_map {
	uint32_t nr_ids;			/* ids 0 .. nr_ids - 1 are known */
	uint32_t *first;			/* nr_ids + 1: id's fields are fields[first[id]] */
	struct trev_dat_code_field *fields;	/* ... up to fields[first[id + 1]] */
};

/*
 * The checkpoint: the file being made is a valid trace.dat on disk while
 * pages come ("Checkpoints" below). Made by whichever thread wrote pages
 * last; ck.lock serializes them.
 */
struct dat_ckpt {
	pthread_mutex_t lock;
	int fd;			/* the file being made again, without O_DIRECT; -1: no checkpoints */
	struct trev_buf head;	/* the metadata on disk, as the sizes last patched it, from 0 */
	unsigned int gen;	/* the snapshot head was made from; 0: none written */
	uint64_t tab_pos;	/* in head: CPU 0's offset and size (v6 table, v7 BUFFER option) */
	uint64_t he_pos;	/* in head: header_event's length, page 0's last field */
	uint64_t body, body_end;	/* in head: the body's bytes, what page 0 points at */
	bool flip;		/* page 0 can point at another body (its pointers end in page 0) */
	bool linked;		/* the file is at its name */
	uint64_t entries;	/* the data records of the pages the file shows */
};

struct trev_dat {
	const struct trev_dat_source *src;
	char *path;		/* the file to write */
	int version;		/* 6 or 7 */
	int nr_cpus;
	struct dat_cpu *cpus;
	int printk_ids[3];	/* ftrace print, bprint, bputs; -1 when unknown */
	int stack_id;		/* ftrace kernel_stack; -1 when unknown */
	/* trev_dat_snapshot() may run beside trev_dat_add_page(): ips_lock guards these. */
	pthread_mutex_t ips_lock;
	uint64_t *ips;		/* code addresses seen in pages: DAT_IP_SLOTS, 0 is free */
	size_t nr_ips;
	struct dat_code_map code;	/* replaced whole by each snapshot */
	uint8_t *missed;	/* DAT_MAX_IDS bits: ids seen at or above code.nr_ids, or NULL */
	/* snap_lock guards snap and snap_gen against a checkpoint that reads them */
	pthread_mutex_t snap_lock;
	struct dat_meta *snap;	/* trev_dat_snapshot()'s metadata, or NULL */
	unsigned int snap_gen;	/* counts the snapshots taken */
	struct dat_ckpt ck;
	struct dat_out out;
	struct dat_io io;
	uint64_t head_est;	/* atomic: the metadata's length at the last snapshot; 0 none */
	char *proc;		/* the PROCMAPS option's text (trev__dat_set_proc()), or NULL */
};

/* The metadata, read at a snapshot or at the end. */
struct dat_meta {
	struct trev_buf header_info;	/* section 16 */
	struct trev_buf ftrace;		/* 17 */
	struct trev_buf events;		/* 18 */
	struct trev_buf kallsyms;	/* 19 */
	struct trev_buf printk;		/* 20 */
	struct trev_buf cmdlines;	/* 21 */
	char *clock;			/* trace_clock text */
	char *clock_name;		/* the selected clock */
	char **cpustat;			/* per_cpu/cpu<N>/stats */
	int nr_cpus;
	struct dat_code_list code;	/* from the formats of 17 and 18 */
};

/*
 * Where the data starts and how the streams lie: at @l->start, the streams
 * of the file being made first (the main CPU's, then the others in their
 * order), then the temporary files' in CPU order.
 * @l->min_start: the data starts there at least (a main stream that keeps
 * its gap). @l->sizes false: a trial build for the metadata's size only
 * (trev_dat_snapshot(), beside trev_dat_add_page()): no page count is read.
 * A checkpoint's metadata (see "Checkpoints") has @l->pad bytes after the
 * header_event text and a v7 flyrecord section that ends at @l->fly_end.
 */
struct dat_layout {
	uint64_t min_start;	/* in */
	bool sizes;		/* in */
	bool given;		/* in: off and size are set already (a checkpoint's layout) */
	uint64_t pad;		/* in: bytes that header_event's length covers after its text */
	uint64_t fly_end;	/* in: v7, the flyrecord section's end; 0: its last stream's */
	uint64_t start;		/* out: the first stream's offset */
	uint64_t *off, *size;	/* out (in if given): per CPU */
	uint64_t tab_pos;	/* out: in the metadata, CPU 0's offset and size */
	uint64_t he_pos;	/* out: header_event's u64 length */
	uint64_t body;		/* out: the metadata after header_event's text and the pad */
	uint64_t meta_end;	/* out: the metadata's end (v6: the clock text's; v7: section 3's header's) */
};

static void meta_free(struct dat_meta *m);
static int dat_ckpt(struct trev_dat *dat, const struct dat_meta *final);
static int meta_formats(const struct trev_dat_source *src, struct dat_meta *m);
static void code_map_free(struct dat_code_map *map);
static int dat_code_install(struct trev_dat *dat, struct dat_code_list *l);

/* ------------------------------------------------------------------ */
/* Byte buffers                                                         */

/* The sections are built with one trev_buf each; its first failure is kept. */
static void buf_put(struct trev_buf *b, const void *data, size_t len)
{
	trev__buf_append(b, data, len);
}

/* Integers go in host order: the file's byte order is the host's (byte 12). */
static void buf_u16(struct trev_buf *b, uint16_t v)
{
	buf_put(b, &v, sizeof(v));
}

static void buf_u32(struct trev_buf *b, uint32_t v)
{
	buf_put(b, &v, sizeof(v));
}

static void buf_u64(struct trev_buf *b, uint64_t v)
{
	buf_put(b, &v, sizeof(v));
}

/* A string with its NUL. */
static void buf_str(struct trev_buf *b, const char *s)
{
	buf_put(b, s, strlen(s) + 1);
}

static void buf_zeros(struct trev_buf *b, size_t n)
{
	static const unsigned char zeros[256];

	while (n) {
		size_t k = n < sizeof(zeros) ? n : sizeof(zeros);

		buf_put(b, zeros, k);
		n -= k;
	}
}

static void buf_option(struct trev_buf *b, uint16_t id, const void *data, uint32_t len)
{
	buf_u16(b, id);
	buf_u32(b, len);
	buf_put(b, data, len);
}

static void buf_option_str(struct trev_buf *b, uint16_t id, const char *s)
{
	buf_option(b, id, s, (uint32_t)strlen(s) + 1);
}

static void buf_option_u64(struct trev_buf *b, uint16_t id, uint64_t v)
{
	buf_option(b, id, &v, sizeof(v));
}

static uint64_t round_up_page(uint64_t n)
{
	return (n + TREV_DAT_PAGE_SIZE - 1) / TREV_DAT_PAGE_SIZE * TREV_DAT_PAGE_SIZE;
}

/* ------------------------------------------------------------------ */
/* Code-address fields                                                  */

/* Note the code-address fields of one event's @format (any thread). */
static void code_list_add(struct dat_code_list *l, const char *format)
{
	struct trev_dat_code_field f[DAT_CODE_MAX];
	int id, n = trev__dat_code_fields(format, &id, f, DAT_CODE_MAX);

	if (n < 0 || id < 0 || id >= DAT_MAX_IDS)
		return;
	if (id > l->max_id)
		l->max_id = id;
	for (int i = 0; i < n && i < DAT_CODE_MAX && !l->err; i++) {
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 64;
			struct dat_code_ent *p = realloc(l->p, cap * sizeof(*p));

			if (!p) {
				l->err = -ENOMEM;
				return;
			}
			l->p = p;
			l->cap = cap;
		}
		l->p[l->n++] = (struct dat_code_ent){ .id = (uint16_t)id, .f = f[i] };
	}
}

static void code_list_free(struct dat_code_list *l)
{
	free(l->p);
	memset(l, 0, sizeof(*l));
	l->max_id = -1;
}

static void code_map_free(struct dat_code_map *map)
{
	free(map->first);
	free(map->fields);
	memset(map, 0, sizeof(*map));
}

static int code_ent_cmp(const void *a, const void *b)
{
	const struct dat_code_ent *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->f.offset < y->f.offset ? -1 : x->f.offset > y->f.offset;
}

/* The map of @l (whose entries it sorts): 0, or -ENOMEM. */
static int code_map_build(struct dat_code_list *l, struct dat_code_map *map)
{
	uint32_t nr_ids = (uint32_t)(l->max_id + 1), k = 0;

	memset(map, 0, sizeof(*map));
	if (l->err)
		return l->err;
	if (!nr_ids)
		return 0;
	if (l->n)	/* l->p is NULL when no format prints a code address */
		qsort(l->p, l->n, sizeof(*l->p), code_ent_cmp);
	map->first = malloc((nr_ids + 1) * sizeof(*map->first));
	map->fields = malloc((l->n ? l->n : 1) * sizeof(*map->fields));
	if (!map->first || !map->fields) {
		code_map_free(map);
		return -ENOMEM;
	}
	for (uint32_t id = 0; id <= nr_ids; id++) {
		map->first[id] = k;
		while (k < l->n && l->p[k].id == id) {
			map->fields[k] = l->p[k].f;
			k++;
		}
	}
	map->nr_ids = nr_ids;
	return 0;
}

/* Make dat->code from the formats just read. Context: takes ips_lock. */
static int dat_code_install(struct trev_dat *dat, struct dat_code_list *l)
{
	struct dat_code_map map, old;
	int ret = code_map_build(l, &map);

	if (ret)
		return ret;
	pthread_mutex_lock(&dat->ips_lock);
	old = dat->code;
	dat->code = map;
	pthread_mutex_unlock(&dat->ips_lock);
	code_map_free(&old);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Reading the source                                                   */

/* A per-instance file: the instance prefix, then @path. */
static ssize_t src_read_inst(const struct trev_dat_source *src, const char *path, char **text)
{
	const char *inst = src->instance ? src->instance : "";
	char full[512];

	if ((size_t)snprintf(full, sizeof(full), "%s%s", inst, path) >= sizeof(full))
		return -ENAMETOOLONG;
	return src->read_file(src, full, text);
}

/* A file that may be missing: "" then. */
static ssize_t src_read_opt(const struct trev_dat_source *src, const char *path, char **text)
{
	ssize_t n = src->read_file(src, path, text);

	if (n == -ENOENT) {
		*text = strdup("");
		return *text ? 0 : -ENOMEM;
	}
	return n;
}

static int dat_count_cpus(const struct trev_dat_source *src)
{
	int n;

	for (n = 0; n < 4096; n++) {
		char path[64], *text;
		ssize_t ret;

		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", n);
		ret = src_read_inst(src, path, &text);
		if (ret == -ENOENT)
			break;
		if (ret < 0)
			return (int)ret;
		free(text);
	}
	return n;
}

/* The event id in events/ftrace/@name/id, or -1. */
static int dat_ftrace_id(const struct trev_dat_source *src, const char *name)
{
	char path[64], *text;
	int id = -1;

	snprintf(path, sizeof(path), "events/ftrace/%s/id", name);
	if (src->read_file(src, path, &text) >= 0) {
		char *end;
		long v = strtol(text, &end, 10);

		if (end != text && v >= 0 && v <= 0xffff)
			id = (int)v;
		free(text);
	}
	return id;
}

/* ------------------------------------------------------------------ */
/* Open, pages                                                          */

/* @path's directory, in @dir (@size bytes); "" when it does not fit. */
static void dat_dir(const char *path, char *dir, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, size, ".");
	else if ((size_t)(slash - path) < size)
		snprintf(dir, size, "%.*s", slash == path ? 1 : (int)(slash - path), path);
	else
		dir[0] = '\0';
}

/* An unnamed file in @dir, O_DIRECT where the file system takes it. */
static int dat_unnamed(struct dat_file *f, const char *dir, mode_t mode)
{
	f->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC | O_DIRECT, mode);
	f->direct = f->fd >= 0;
	if (f->fd < 0)
		f->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
	return f->fd < 0 ? -errno : 0;
}

/*
 * A CPU's temporary file: unnamed, in @path's directory, so that the pages
 * go to the file system the trace goes to; in $TMPDIR (default /tmp) where
 * that is refused.
 */
static int dat_tmpfile(struct dat_file *f, const char *path)
{
	const char *tmpdir = getenv("TMPDIR");
	char dir[4096], name[4200];

	dat_dir(path, dir, sizeof(dir));
	if (dir[0] && dat_unnamed(f, dir, 0600) == 0)
		return 0;
	if (dat_unnamed(f, tmpdir && *tmpdir ? tmpdir : "/tmp", 0600) == 0)
		return 0;
	snprintf(name, sizeof(name), "%s/trev-dat-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	f->fd = mkostemp(name, O_CLOEXEC);
	f->direct = false;
	if (f->fd < 0)
		return -errno;
	unlink(name);
	return 0;
}

static void dat_file_close(struct dat_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

/* Buffered I/O from now on: a device that refuses our O_DIRECT, or an unaligned write. */
static int dat_file_buffered(struct dat_file *f)
{
	int fl;

	if (!f->direct)
		return 0;
	fl = fcntl(f->fd, F_GETFL);
	if (fl < 0 || fcntl(f->fd, F_SETFL, fl & ~O_DIRECT) < 0)
		return -errno;
	f->direct = false;
	return 0;
}

/*
 * Write @len bytes of @data at @at, all of them (EINTR, short writes);
 * @done (NULL: not wanted) adds what was written, also on error (a disk
 * that filled up midway).
 */
static int dat_pwrite_part(int fd, const void *data, size_t len, uint64_t at, size_t *done)
{
	const unsigned char *p = data;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		at += (uint64_t)n;
		len -= (size_t)n;
		if (done)
			*done += (size_t)n;
	}
	return 0;
}

static int dat_pwrite_all(int fd, const void *data, size_t len, uint64_t at)
{
	return dat_pwrite_part(fd, data, len, at, NULL);
}

/* Read @len bytes at @at, all of them. */
static int dat_pread_all(int fd, void *data, size_t len, uint64_t at)
{
	unsigned char *p = data;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENODATA;
		p += n;
		at += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Write @len bytes of @buf at @at on @f; where O_DIRECT refuses them (blocks
 * larger than a page, a short transfer that left the rest unaligned),
 * buffered. @done: as dat_pwrite_part()'s.
 */
static int dat_file_write(struct dat_file *f, const void *buf, size_t len, uint64_t at,
			  size_t *done)
{
	size_t part = 0;
	int ret = dat_pwrite_part(f->fd, buf, len, at, &part);

	if (ret == -EINVAL && f->direct) {
		ret = dat_file_buffered(f);
		if (!ret)
			ret = dat_pwrite_part(f->fd, (const unsigned char *)buf + part, len - part,
					      at + part, &part);
	}
	if (done)
		*done += part;
	return ret;
}

/* pwrite or pread (@write) @len bytes at @at on @f, as dat_file_write(). */
static int dat_file_io(struct dat_file *f, bool write, void *buf, size_t len, uint64_t at)
{
	int ret;

	if (write)
		return dat_file_write(f, buf, len, at, NULL);
	ret = dat_pread_all(f->fd, buf, len, at);
	if (ret == -EINVAL && f->direct) {
		ret = dat_file_buffered(f);
		if (!ret)
			ret = dat_pread_all(f->fd, buf, len, at);
	}
	return ret;
}

/* @n pages of @c (@entries records) are in its file now: a checkpoint may show them. */
static void dat_cpu_durable(struct trev_dat *dat, struct dat_cpu *c, uint64_t n, uint64_t entries)
{
	pthread_mutex_lock(&dat->io.lock);
	c->durable += n;
	c->durable_entries += entries;
	pthread_mutex_unlock(&dat->io.lock);
}

/* Write @c's batch after its pages in its file, here. */
static int dat_cpu_flush(struct trev_dat *dat, struct dat_cpu *c)
{
	int ret;

	if (!c->fill)
		return 0;
	ret = dat_file_io(c->f, true, c->batch, (size_t)c->fill * TREV_DAT_PAGE_SIZE,
			  c->base + c->written * TREV_DAT_PAGE_SIZE);
	if (ret)
		return ret;
	dat_cpu_durable(dat, c, c->fill, c->fill_entries);
	c->written += c->fill;
	c->fill = 0;
	c->fill_entries = 0;
	return 0;
}

static void dat_count_page(const unsigned char *page, struct trev__dat_page_count *cnt);

/* The data records of @n pages. */
static uint64_t dat_count_pages(const unsigned char *pages, size_t n)
{
	uint64_t entries = 0;

	for (size_t i = 0; i < n; i++) {
		struct trev__dat_page_count cnt;

		dat_count_page(pages + i * TREV_DAT_PAGE_SIZE, &cnt);
		entries += cnt.entries;
	}
	return entries;
}

static void *dat_io_run(void *arg)
{
	struct trev_dat *dat = arg;
	struct dat_io *io = &dat->io;

	pthread_mutex_lock(&io->lock);
	for (;;) {
		struct dat_io_job job;
		size_t done;
		int ret;

		while (!io->nr && !io->stop)
			pthread_cond_wait(&io->cond, &io->lock);
		if (!io->nr)
			break;
		job = io->jobs[io->head];
		io->head = (io->head + 1) % DAT_IO_BUFS;
		io->nr--;
		pthread_mutex_unlock(&io->lock);
		done = 0;
		ret = dat_file_write(job.f, job.buf, job.len, job.at, &done);
		/*
		 * The pages are in the file: the metadata may show them now. Of
		 * a batch cut short (no space), the whole pages that were written,
		 * with their records counted again.
		 */
		if (ret && done >= TREV_DAT_PAGE_SIZE)
			job.entries = dat_count_pages(job.buf, done / TREV_DAT_PAGE_SIZE);
		if (!ret || done >= TREV_DAT_PAGE_SIZE) {
			dat_cpu_durable(dat, job.c, done / TREV_DAT_PAGE_SIZE, job.entries);
			if (job.f == &dat->out.f)
				dat_ckpt(dat, NULL);
		}
		pthread_mutex_lock(&io->lock);
		if (ret && !io->err)
			io->err = ret;
		io->spare[io->nr_spare++] = job.buf;
		pthread_cond_broadcast(&io->cond);
	}
	pthread_mutex_unlock(&io->lock);
	return NULL;
}

/* Start the writer thread with its spare buffers (signals stay with the caller's threads). */
static int dat_io_start(struct trev_dat *dat)
{
	struct dat_io *io = &dat->io;
	sigset_t all, old;
	int err;

	for (unsigned int i = 0; i < DAT_IO_BUFS; i++) {
		io->spare[i] = aligned_alloc(TREV_DAT_PAGE_SIZE, (size_t)DAT_BATCH * TREV_DAT_PAGE_SIZE);
		if (!io->spare[i]) {
			while (i)
				free(io->spare[--i]);
			return -ENOMEM;
		}
	}
	io->nr_spare = DAT_IO_BUFS;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&io->thread, NULL, dat_io_run, dat);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		for (unsigned int i = 0; i < DAT_IO_BUFS; i++)
			free(io->spare[i]);
		io->nr_spare = 0;
		return -err;
	}
	io->started = true;
	return 0;
}

/* Let the thread write what is queued, and end it. Return: the first write error, or 0. */
static int dat_io_stop(struct dat_io *io)
{
	if (!io->started)
		return 0;
	pthread_mutex_lock(&io->lock);
	io->stop = true;
	pthread_cond_broadcast(&io->cond);
	pthread_mutex_unlock(&io->lock);
	pthread_join(io->thread, NULL);
	io->started = false;
	for (unsigned int i = 0; i < io->nr_spare; i++)
		free(io->spare[i]);
	io->nr_spare = 0;
	return io->err;
}

/*
 * @c's batch is full: queue it for the writer thread and take a spare
 * buffer, waiting for one while DAT_IO_BUFS are queued; written here
 * where the thread cannot be had.
 */
static int dat_cpu_submit(struct trev_dat *dat, struct dat_cpu *c)
{
	struct dat_io *io = &dat->io;
	int ret;

	if (!io->started && dat_io_start(dat) < 0) {
		ret = dat_cpu_flush(dat, c);
		if (!ret && c->f == &dat->out.f)
			dat_ckpt(dat, NULL);
		return ret;
	}
	pthread_mutex_lock(&io->lock);
	while (!io->nr_spare && !io->err)
		pthread_cond_wait(&io->cond, &io->lock);
	ret = io->err;
	if (!ret) {
		io->jobs[(io->head + io->nr) % DAT_IO_BUFS] = (struct dat_io_job){
			.c = c,
			.f = c->f,
			.entries = c->fill_entries,
			.buf = c->batch,
			.len = (size_t)c->fill * TREV_DAT_PAGE_SIZE,
			.at = c->base + c->written * TREV_DAT_PAGE_SIZE,
		};
		io->nr++;
		c->batch = io->spare[--io->nr_spare];
		pthread_cond_broadcast(&io->cond);
	}
	pthread_mutex_unlock(&io->lock);
	if (ret)
		return ret;
	c->written += c->fill;
	c->fill = 0;
	c->fill_entries = 0;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The main stream                                                      */

/*
 * A recording's pages mostly come from one CPU (one busy thread), so the
 * first CPU to have a page, the main CPU, writes its pages straight into
 * the file being made, an unnamed file beside @path that trev_dat_finish()
 * links in: no temporary file, no copy at the end. Its stream starts at
 * the main CPU's base, a guess at the metadata's size (the last snapshot's,
 * plus slack). The next CPUs to have pages (a thread that moved) write
 * into the file too, each at the start of a region of its own, DAT_REGION
 * (1 TiB) apart, up to DAT_REGIONS; the file is sparse in between. The
 * CPUs after those, and all of them where the file system refuses such
 * offsets, wait in temporary files:
 *
 *	0          start  base            1 TiB            2 TiB
 *	| metadata | gap | main CPU's pages | hole | 2nd CPU's | hole | 3rd CPU's ...
 *
 * and at the end:
 *
 *	| metadata | main CPU's | 2nd CPU's | ... | temp files' CPUs | (v7 strings)
 *
 * Every CPU's pages go out in batches (DAT_BATCH pages, 1 MiB, for the
 * main CPU; DAT_TMP_BATCH for the others), O_DIRECT where the file system
 * takes it, so that they pass no page cache, which costs more CPU per byte
 * than anything else in recording a flood; the copies at the end go the
 * same way. A full batch is written by a thread of the writer's own
 * (struct dat_io), up to DAT_IO_BUFS of them queued, so that the caller
 * reads pages on while the disk takes the last ones.
 *
 * At the end the metadata's real size decides where the data starts, and
 * the streams are brought there one after the other (dat_out_place()): by
 * fallocate()'s COLLAPSE_RANGE or INSERT_RANGE where the file system can
 * (ext4, XFS: no data moves, the holes go), else by copying (a tmpfs);
 * a small main stream is copied, and a large one that cannot be moved
 * keeps its gap, which the table's offsets skip (v6: zeros before the
 * first CPU's data; v7: inside the flyrecord section).
 */

static int dat_out_open(struct dat_out *o, const char *path)
{
	char dir[4096];
	struct stat st;

	o->f.fd = -1;
	o->cpu = -1;
	/* Not a plain file of ours alone (a device, a pipe, a symlink, hard links): write through it. */
	if (lstat(path, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_nlink > 1))
		return 0;
	dat_dir(path, dir, sizeof(dir));
	if (dir[0])
		dat_unnamed(&o->f, dir, 0644);
	return 0;
}

/*
 * The checkpoints' own descriptor of the file being made: the metadata is
 * written through the page cache, never through O_DIRECT (which would
 * refuse its sizes and turn the whole file buffered). -1: no checkpoints.
 */
static void dat_ckpt_open(struct trev_dat *dat)
{
	char proc[64];

	dat->ck.fd = -1;
	if (dat->out.f.fd < 0)
		return;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dat->out.f.fd);
	dat->ck.fd = open(proc, O_WRONLY | O_CLOEXEC);
}

/*
 * @cpu's first page: the first CPU becomes the main CPU, its stream
 * starting at a guess; the next ones write into the file too, each in a
 * region of its own, DAT_REGION apart (the file is sparse), while there
 * are regions and the file system takes an offset that far.
 */
static void dat_out_begin(struct trev_dat *dat, int cpu)
{
	uint64_t est = __atomic_load_n(&dat->head_est, __ATOMIC_RELAXED);
	struct dat_cpu *c = &dat->cpus[cpu];
	struct dat_out *o = &dat->out;

	uint64_t base;

	if (o->nr == DAT_REGIONS)
		return;
	if (o->nr == 0) {
		/*
		 * Room for the metadata twice (a checkpoint writes the new one
		 * beside the old, "Checkpoints"), and for what it gains by the
		 * end: thread names, symbols, new events.
		 */
		base = est ? round_up_page(2 * est + est / 8 + 16384) : DAT_BASE_GUESS;
		/*
		 * The room has its blocks before the first page: a checkpoint's
		 * metadata never runs out of space half-written. Without them,
		 * no checkpoints.
		 */
		pthread_mutex_lock(&dat->ck.lock);
		if (dat->ck.fd >= 0 && fallocate(o->f.fd, 0, 0, (off_t)base) < 0) {
			close(dat->ck.fd);
			dat->ck.fd = -1;
		}
		pthread_mutex_unlock(&dat->ck.lock);
		pthread_mutex_lock(&dat->io.lock);
		o->cpu = cpu;
		c->base = base;
	} else {
		struct rlimit fsize;

		c->base = (uint64_t)o->nr * DAT_REGION;
		/* Not past a file size limit (SIGXFSZ), nor past what the file system takes. */
		if (getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY &&
		    fsize.rlim_cur < c->base + DAT_REGION) {
			c->base = 0;
			return;
		}
		/* A block there now, or the temporary file (a file system with smaller files). */
		if (fallocate(o->f.fd, FALLOC_FL_KEEP_SIZE, (off_t)c->base, TREV_DAT_PAGE_SIZE) < 0) {
			c->base = 0;
			return;
		}
		pthread_mutex_lock(&dat->io.lock);
	}
	/* Under io.lock: a checkpoint in the writer thread reads the streams of the file. */
	c->limit = (uint64_t)(o->nr + 1) * DAT_REGION;
	c->f = &o->f;
	o->order[o->nr++] = cpu;
	pthread_mutex_unlock(&dat->io.lock);
}

/*
 * Copy @len bytes from @from in @src to @to in @dst (page-aligned; the same
 * file, any overlap), through @buf (@buf_len, page-aligned): backwards when
 * moving up within one file.
 */
static int dat_copy(struct dat_file *src, uint64_t from, struct dat_file *dst, uint64_t to,
		    uint64_t len, unsigned char *buf, size_t buf_len)
{
	bool back = src == dst && to > from;

	for (uint64_t done = 0; done < len;) {
		uint64_t n = len - done < buf_len ? len - done : buf_len;
		uint64_t at = back ? len - done - n : done;
		int ret = dat_file_io(src, false, buf, (size_t)n, from + at);

		if (!ret)
			ret = dat_file_io(dst, true, buf, (size_t)n, to + at);
		if (ret)
			return ret;
		done += n;
	}
	return 0;
}

/*
 * Bring the streams in the file being made together after the metadata,
 * which ends at @start: the main CPU's first, then the others in the order
 * of their regions, each right after the one before; a region stream's
 * move shifts the ones after it along with it.
 * Return: where the main stream lies now (@start, or its base when a large
 * stream keeps its gap), or a negative errno.
 */
static int64_t dat_out_place(struct trev_dat *dat, uint64_t start)
{
	struct dat_out *o = &dat->out;
	uint64_t cur = start, first = start;

	for (int i = 0; i < o->nr; i++) {
		struct dat_cpu *c = &dat->cpus[o->order[i]];
		uint64_t len = c->written * TREV_DAT_PAGE_SIZE, delta = 0;
		bool down = cur < c->base, moved = false;
		int ret;

		if (cur == c->base || !len)
			goto next;
		/* A small main stream is copied; that writes back nothing else first. */
		if (down && (i > 0 || len > DAT_MOVE_MAX)) {
			delta = c->base - cur;
			moved = fallocate(o->f.fd, FALLOC_FL_COLLAPSE_RANGE, (off_t)cur,
					  (off_t)delta) == 0;
			if (!moved && i == 0) {
				cur = c->base;		/* the gap stays */
				goto next;
			}
		} else if (!down) {
			delta = cur - c->base;
			moved = fallocate(o->f.fd, FALLOC_FL_INSERT_RANGE, (off_t)c->base,
					  (off_t)delta) == 0;
		}
		/* The streams after this one moved with it, where the file system did it. */
		for (int j = i + 1; moved && j < o->nr; j++) {
			struct dat_cpu *n = &dat->cpus[o->order[j]];

			n->base = down ? n->base - delta : n->base + delta;
		}
		if (!moved) {
			ret = dat_copy(c->f, c->base, c->f, cur, len, c->batch,
				       (size_t)DAT_BATCH * TREV_DAT_PAGE_SIZE);
			if (ret)
				return ret;
		}
		c->base = cur;
next:
		if (i == 0)
			first = cur;
		cur += len;
	}
	return (int64_t)first;
}

int trev_dat_open(struct trev_dat **datp, const char *path, int version,
		  const struct trev_dat_source *src)
{
	struct trev_dat *dat;
	char why[256];
	int n, ret;

	if (!datp || !path || !*path || !src || !src->read_file || (version != 6 && version != 7))
		return -EINVAL;
	/* Not through another user's symlink in a sticky directory (base/out_file.h). */
	ret = trev__out_check(path, why, sizeof(why));
	if (ret == -EACCES || ret == -ELOOP)
		return ret;
	n = dat_count_cpus(src);
	if (n < 0)
		return n;
	if (n == 0)
		return -EINVAL;
	dat = calloc(1, sizeof(*dat));
	if (!dat)
		return -ENOMEM;
	pthread_mutex_init(&dat->ips_lock, NULL);
	pthread_mutex_init(&dat->snap_lock, NULL);
	pthread_mutex_init(&dat->ck.lock, NULL);
	dat->ck.fd = -1;
	pthread_mutex_init(&dat->io.lock, NULL);
	pthread_cond_init(&dat->io.cond, NULL);
	dat->out.f.fd = -1;
	dat->src = src;
	dat->version = version;
	dat->nr_cpus = n;
	dat->path = strdup(path);
	dat->cpus = calloc((size_t)n, sizeof(*dat->cpus));
	if (!dat->path || !dat->cpus) {
		ret = -ENOMEM;
		goto out_abort;
	}
	for (int cpu = 0; cpu < n; cpu++)
		dat->cpus[cpu].tmp.fd = -1;
	for (int cpu = 0; cpu < n; cpu++) {
		dat->cpus[cpu].f = &dat->cpus[cpu].tmp;
		ret = dat_tmpfile(&dat->cpus[cpu].tmp, path);
		if (ret)
			goto out_abort;
	}
	ret = dat_out_open(&dat->out, path);
	if (ret)
		goto out_abort;
	dat_ckpt_open(dat);
	if (src->symbol) {
		static const char *const names[] = { "print", "bprint", "bputs" };
		struct dat_meta m = { .code.max_id = -1 };

		for (int i = 0; i < 3; i++)
			dat->printk_ids[i] = dat_ftrace_id(src, names[i]);
		dat->stack_id = dat_ftrace_id(src, "kernel_stack");
		/* The code-address fields of the events there are (none if this fails). */
		if (meta_formats(src, &m) == 0)
			dat_code_install(dat, &m.code);
		meta_free(&m);
	} else {
		dat->printk_ids[0] = dat->printk_ids[1] = dat->printk_ids[2] = -1;
		dat->stack_id = -1;
	}
	*datp = dat;
	return 0;

out_abort:
	trev_dat_abort(dat);
	return ret;
}

int trev_dat_nr_cpus(const struct trev_dat *dat)
{
	return dat->nr_cpus;
}

static bool dat_is_printk(const struct trev_dat *dat, unsigned int type)
{
	for (int i = 0; i < 3; i++)
		if (dat->printk_ids[i] >= 0 && (unsigned int)dat->printk_ids[i] == type)
			return true;
	return false;
}

/*
 * Add a code address to the set, unless it is there or the set is full.
 * Return: 1 if added, else 0. Context: holds ips_lock.
 */
static int dat_add_ip(struct trev_dat *dat, uint64_t ip)
{
	uint32_t slot;

	if (!ip)
		return 0;
	if (!dat->ips && !(dat->ips = calloc(DAT_IP_SLOTS, sizeof(*dat->ips))))
		return 0;
	/* Fibonacci hashing, then linear probing: the set is at most half full. */
	for (slot = (uint32_t)((ip * 0x9e3779b97f4a7c15ull) >> (64 - DAT_IP_BITS)); dat->ips[slot];
	     slot = (slot + 1) & (DAT_IP_SLOTS - 1))
		if (dat->ips[slot] == ip)
			return 0;
	if (dat->nr_ips == DAT_MAX_IPS)
		return 0;
	dat->ips[slot] = ip;
	dat->nr_ips++;
	return 1;
}

/*
 * A kernel_stack record: int size at 8 (the addresses in caller[]),
 * unsigned long caller[] at 16, innermost first, ended early by ULONG_MAX.
 */
static int dat_scan_stack(struct trev_dat *dat, const struct rb_rec *r)
{
	int size, added = 0;

	if (r->len < 16)
		return 0;
	memcpy(&size, r->payload + 8, sizeof(size));
	for (uint32_t off = 16; size > 0 && r->len - off >= sizeof(long);
	     off += sizeof(long), size--) {
		unsigned long ip;

		memcpy(&ip, r->payload + off, sizeof(ip));
		if (ip == ~0ul)
			break;
		added += dat_add_ip(dat, ip);
	}
	return added;
}

/* The values of the code-address fields of record @r of event @type. */
static int dat_scan_code(struct trev_dat *dat, const struct rb_rec *r, uint16_t type)
{
	const struct dat_code_map *map = &dat->code;
	int added = 0;

	for (uint32_t i = map->first[type]; i < map->first[type + 1]; i++) {
		const struct trev_dat_code_field *f = &map->fields[i];
		uint64_t ip;

		if ((uint32_t)f->offset + f->size > r->len)
			continue;
		if (f->size == 8) {
			memcpy(&ip, r->payload + f->offset, 8);
		} else {
			uint32_t v;

			memcpy(&v, r->payload + f->offset, 4);
			ip = v;
		}
		added += dat_add_ip(dat, ip);
	}
	return added;
}

/* Note that records of event @type came before its format was read. */
static void dat_note_missed(struct trev_dat *dat, uint16_t type)
{
	if (!dat->missed && !(dat->missed = calloc(DAT_MAX_IDS / 8, 1)))
		return;
	dat->missed[type / 8] |= (uint8_t)(1u << (type % 8));
}

static bool dat_was_missed(const struct trev_dat *dat, uint16_t type)
{
	return dat->missed && (dat->missed[type / 8] & (1u << (type % 8)));
}

/* The page's counts, once @w has walked it and found @entries data records. */
static void dat_count_end(struct trev__dat_page_count *cnt, const struct rb_walk *w,
			  uint64_t entries)
{
	uint64_t lost;
	bool stored = rb_walk_lost(w, &lost);

	cnt->entries = entries;
	cnt->lost = stored ? lost : 0;
	cnt->lost_unknown = !stored && (w->commit & RB_MISSED_EVENTS);
}

/* Count @page's data records and lost events only (no symbol() to name addresses for). */
static void dat_count_page(const unsigned char *page, struct trev__dat_page_count *cnt)
{
	struct rb_walk w;
	struct rb_rec r;
	uint64_t entries = 0;

	rb_page_for_each(&w, page, &r)
		entries += r.kind == RB_REC_DATA;
	dat_count_end(cnt, &w, entries);
}

/*
 * Note the code addresses readers name through kallsyms: the call sites of
 * trace_printk() records (ftrace print, bprint and bputs all start with
 * "unsigned long ip" after the common fields), the return addresses of the
 * stacktrace trigger's kernel_stack records, and the fields that events'
 * print fmts print with %pS and its kin (dat->code). @missed_only: only the
 * records of events in dat->missed (trev_dat_finish() reading the pages
 * again). Reads the page only; takes ips_lock once for the page.
 * Return: the number of addresses added.
 */
static int dat_scan_page(struct trev_dat *dat, const unsigned char *page, bool missed_only,
			 struct trev__dat_page_count *cnt)
{
	struct rb_walk w;
	struct rb_rec r;
	uint64_t entries = 0;
	int added = 0;

	pthread_mutex_lock(&dat->ips_lock);
	rb_page_for_each(&w, page, &r) {
		uint16_t type;
		unsigned long ip;

		if (r.kind != RB_REC_DATA)
			continue;
		entries++;
		if (r.len < 8)
			continue;
		memcpy(&type, r.payload, sizeof(type));
		if (missed_only && !dat_was_missed(dat, type))
			continue;
		if (dat_is_printk(dat, type)) {
			if (r.len >= 8 + sizeof(long)) {
				memcpy(&ip, r.payload + 8, sizeof(ip));
				added += dat_add_ip(dat, ip);
			}
		} else if (dat->stack_id >= 0 && type == (unsigned int)dat->stack_id) {
			added += dat_scan_stack(dat, &r);
		} else if (type < dat->code.nr_ids) {
			added += dat_scan_code(dat, &r, type);
		} else if (!missed_only) {
			dat_note_missed(dat, type);
		}
	}
	pthread_mutex_unlock(&dat->ips_lock);
	if (cnt)
		dat_count_end(cnt, &w, entries);
	return added;
}

/*
 * Read the pages again for the records of events whose formats came only
 * after them (registered since the last snapshot), now that dat->code
 * knows them. Context: trev_dat_finish(), no other thread.
 * Return: the number of addresses added (0 also on a read error: the names
 * are missing then, nothing else).
 */
static int dat_rescan_missed(struct trev_dat *dat)
{
	unsigned char *page;
	bool any = false;
	int added = 0;

	if (!dat->missed || !dat->src->symbol)
		return 0;
	for (uint32_t id = 0; id < dat->code.nr_ids && !any; id++)
		any = dat_was_missed(dat, (uint16_t)id) && dat->code.first[id + 1] > dat->code.first[id];
	if (!any || !(page = aligned_alloc(TREV_DAT_PAGE_SIZE, TREV_DAT_PAGE_SIZE)))
		return 0;
	/* Every page is in its file (trev_dat_finish() flushed them). */
	for (int cpu = 0; cpu < dat->nr_cpus; cpu++) {
		struct dat_cpu *c = &dat->cpus[cpu];

		for (uint64_t n = 0; n < c->written; n++) {
			if (dat_file_io(c->f, false, page, TREV_DAT_PAGE_SIZE,
					c->base + n * TREV_DAT_PAGE_SIZE))
				break;
			added += dat_scan_page(dat, page, true, NULL);
		}
	}
	free(page);
	return added;
}

int trev_dat_add_page(struct trev_dat *dat, int cpu, const void *page)
{
	return trev__dat_add_page(dat, cpu, page, NULL);
}

int trev__dat_add_page(struct trev_dat *dat, int cpu, const void *page,
		       struct trev__dat_page_count *cnt)
{
	struct dat_cpu *c;

	if (!dat || !page || cpu < 0 || cpu >= dat->nr_cpus)
		return -EINVAL;
	c = &dat->cpus[cpu];
	if (!c->batch) {
		if (dat->out.f.fd >= 0)
			dat_out_begin(dat, cpu);
		c->cap = c->f == &dat->out.f ? DAT_BATCH : DAT_TMP_BATCH;
		/* The writer thread's buffers are DAT_BATCH pages: any may come back here. */
		c->batch = aligned_alloc(TREV_DAT_PAGE_SIZE, (size_t)DAT_BATCH * TREV_DAT_PAGE_SIZE);
		if (!c->batch)
			return -ENOMEM;
	}
	if (c->limit && c->base + (c->pages + 1) * TREV_DAT_PAGE_SIZE > c->limit)
		return -EFBIG;		/* 1 TiB of one CPU's pages in one recording */
	/* Counted first: the batch's count goes with it to the writer thread. */
	if (dat->src->symbol)
		dat_scan_page(dat, page, false, cnt);
	else if (cnt)
		dat_count_page(page, cnt);
	memcpy(c->batch + (size_t)c->fill * TREV_DAT_PAGE_SIZE, page, TREV_DAT_PAGE_SIZE);
	c->fill_entries += cnt ? cnt->entries : 0;
	if (++c->fill == c->cap) {
		int ret = dat_cpu_submit(dat, c);

		if (ret) {
			c->fill--;
			c->fill_entries -= cnt ? cnt->entries : 0;
			return ret;
		}
	}
	c->pages++;
	return 0;
}

int trev__dat_scan_page(struct trev_dat *dat, const void *page, struct trev__dat_page_count *cnt)
{
	if (!dat || !page)
		return -EINVAL;
	if (dat->src->symbol)
		dat_scan_page(dat, page, false, cnt);
	else if (cnt)
		dat_count_page(page, cnt);
	return 0;
}

int trev__dat_sync(struct trev_dat *dat)
{
	int ret = 0;

	if (!dat || dat->out.f.fd < 0 || dat->ck.fd < 0)
		return 0;
	for (int i = 0; i < dat->out.nr && !ret; i++) {
		struct dat_cpu *c = &dat->cpus[dat->out.order[i]];

		if (c->fill)
			ret = dat_cpu_submit(dat, c);
	}
	return ret;
}

/* trev_dat_drain() with the source's read_page_any(): pages as they come. */
static long dat_drain_any(struct trev_dat *dat)
{
	unsigned char *page = malloc(TREV_DAT_PAGE_SIZE);
	long added = 0;
	int cpu, ret;

	if (!page)
		return -ENOMEM;
	while ((ret = dat->src->read_page_any(dat->src, page, &cpu, 0)) > 0) {
		ret = trev_dat_add_page(dat, cpu, page);
		if (ret < 0)
			break;
		added++;
	}
	free(page);
	return ret < 0 ? ret : added;
}

long trev_dat_drain(struct trev_dat *dat)
{
	unsigned char *page;
	bool *done;
	long added = 0;
	int left, ret = 0;

	if (!dat || !dat->src->read_page)
		return -EINVAL;
	if (dat->src->read_page_any)
		return dat_drain_any(dat);
	page = malloc(TREV_DAT_PAGE_SIZE);
	done = calloc((size_t)dat->nr_cpus, sizeof(*done));
	if (!page || !done) {
		ret = -ENOMEM;
		goto out_free;
	}
	/* One page of each CPU in turn, so no CPU's view stages the others' records for long. */
	left = dat->nr_cpus;
	while (left > 0 && !ret) {
		for (int cpu = 0; cpu < dat->nr_cpus && !ret; cpu++) {
			if (done[cpu])
				continue;
			ret = dat->src->read_page(dat->src, cpu, page, 0);
			if (ret == 0) {
				done[cpu] = true;
				left--;
			} else if (ret > 0) {
				ret = trev_dat_add_page(dat, cpu, page);
				added++;
			}
		}
	}
out_free:
	free(done);
	free(page);
	return ret < 0 ? ret : added;
}

void trev_dat_abort(struct trev_dat *dat)
{
	if (!dat)
		return;
	dat_io_stop(&dat->io);
	pthread_mutex_destroy(&dat->io.lock);
	pthread_cond_destroy(&dat->io.cond);
	for (int cpu = 0; dat->cpus && cpu < dat->nr_cpus; cpu++) {
		dat_file_close(&dat->cpus[cpu].tmp);
		free(dat->cpus[cpu].batch);
	}
	dat_file_close(&dat->out.f);
	if (dat->ck.fd >= 0)
		close(dat->ck.fd);
	trev__buf_free(&dat->ck.head);
	pthread_mutex_destroy(&dat->ck.lock);
	pthread_mutex_destroy(&dat->snap_lock);
	free(dat->cpus);
	free(dat->ips);
	free(dat->missed);
	code_map_free(&dat->code);
	pthread_mutex_destroy(&dat->ips_lock);
	free(dat->path);
	free(dat->proc);
	if (dat->snap)
		meta_free(dat->snap);
	free(dat->snap);
	free(dat);
}

/* ------------------------------------------------------------------ */
/* Metadata blocks (the same bytes in v6 and inside v7's sections)      */

static void meta_free(struct dat_meta *m)
{
	trev__buf_free(&m->header_info);
	trev__buf_free(&m->ftrace);
	trev__buf_free(&m->events);
	trev__buf_free(&m->kallsyms);
	trev__buf_free(&m->printk);
	trev__buf_free(&m->cmdlines);
	free(m->clock);
	free(m->clock_name);
	for (int i = 0; m->cpustat && i < m->nr_cpus; i++)
		free(m->cpustat[i]);
	free(m->cpustat);
	code_list_free(&m->code);
}

static int meta_header_info(const struct trev_dat_source *src, struct trev_buf *b)
{
	char *page, *event;
	ssize_t np, ne;

	np = src->read_file(src, "events/header_page", &page);
	if (np < 0)
		return (int)np;
	ne = src->read_file(src, "events/header_event", &event);
	if (ne < 0) {
		free(page);
		return (int)ne;
	}
	buf_put(b, "header_page", 12);
	buf_u64(b, (uint64_t)np);
	buf_put(b, page, (size_t)np);
	buf_put(b, "header_event", 13);
	buf_u64(b, (uint64_t)ne);
	buf_put(b, event, (size_t)ne);
	free(page);
	free(event);
	return b->err;
}

/* One system of available_events: its name and its events' names. */
struct dat_system {
	char *name;
	char **events;
	uint32_t nr;
};

static int systems_add(struct dat_system **systems, size_t *nr, const char *sys, size_t sys_len,
		       const char *ev, size_t ev_len)
{
	struct dat_system *s = NULL;
	char **events;

	for (size_t i = 0; i < *nr; i++) {
		if (strlen((*systems)[i].name) == sys_len &&
		    !memcmp((*systems)[i].name, sys, sys_len)) {
			s = &(*systems)[i];
			break;
		}
	}
	if (!s) {
		struct dat_system *grown = realloc(*systems, (*nr + 1) * sizeof(**systems));

		if (!grown)
			return -ENOMEM;
		*systems = grown;
		s = &grown[(*nr)++];
		memset(s, 0, sizeof(*s));
		s->name = strndup(sys, sys_len);
		if (!s->name)
			return -ENOMEM;
	}
	events = realloc(s->events, (s->nr + 1) * sizeof(*events));
	if (!events)
		return -ENOMEM;
	s->events = events;
	s->events[s->nr] = strndup(ev, ev_len);
	if (!s->events[s->nr])
		return -ENOMEM;
	s->nr++;
	return 0;
}

static void systems_free(struct dat_system *systems, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		for (uint32_t j = 0; j < systems[i].nr; j++)
			free(systems[i].events[j]);
		free(systems[i].events);
		free(systems[i].name);
	}
	free(systems);
}

/*
 * The "ftrace" events first (events/ftrace/ listed: available_events leaves
 * them out, as the kernel's does; without list_dir, the four trev has),
 * then available_events ("system:event" per line), grouped by system in
 * order of appearance.
 */
static int meta_systems(const struct trev_dat_source *src, struct dat_system **systems,
			size_t *nr)
{
	static const char *const ftrace_known[] = { "print", "bprint", "bputs", "raw_data" };
	char *text, *line, *next;
	ssize_t n;
	int ret = 0;

	*systems = NULL;
	*nr = 0;
	if (src->list_dir && src->list_dir(src, "events/ftrace", &text) >= 0) {
		for (line = text; *line && !ret; line = next) {
			char *end = strchr(line, '\n');

			next = end ? end + 1 : line + strlen(line);
			if (!end)
				end = next;
			if (end > line && memcmp(line, "enable", 6) && memcmp(line, "filter", 6))
				ret = systems_add(systems, nr, "ftrace", 6, line,
						  (size_t)(end - line));
		}
		free(text);
	} else {
		for (size_t i = 0; i < 4 && !ret; i++)
			ret = systems_add(systems, nr, "ftrace", 6, ftrace_known[i],
					  strlen(ftrace_known[i]));
	}
	if (ret)
		return ret;
	n = src->read_file(src, "available_events", &text);
	if (n < 0)
		return (int)n;
	for (line = text; *line && !ret; line = next) {
		char *colon, *end = strchr(line, '\n');

		next = end ? end + 1 : line + strlen(line);
		if (!end)
			end = next;
		colon = memchr(line, ':', (size_t)(end - line));
		if (!colon || colon == line || colon + 1 == end)
			continue;
		ret = systems_add(systems, nr, line, (size_t)(colon - line), colon + 1,
				  (size_t)(end - colon - 1));
	}
	free(text);
	return ret;
}

/*
 * Append the format text of one event with its u64 length, and note its
 * code-address fields in @code; 1 if added, 0 if gone.
 */
static int meta_format(const struct trev_dat_source *src, const char *sys, const char *ev,
		       struct trev_buf *b, struct dat_code_list *code)
{
	char path[512], *text;
	ssize_t n;

	if ((size_t)snprintf(path, sizeof(path), "events/%s/%s/format", sys, ev) >= sizeof(path))
		return 0;
	n = src->read_file(src, path, &text);
	if (n == -ENOENT)	/* unloaded since available_events was read */
		return 0;
	if (n < 0)
		return (int)n;
	buf_u64(b, (uint64_t)n);
	buf_put(b, text, (size_t)n);
	code_list_add(code, text);
	free(text);
	return b->err ? b->err : 1;
}

/* Sections 17 and 18: the "ftrace" system apart, as trace-cmd reads it, then every other. */
static int meta_formats(const struct trev_dat_source *src, struct dat_meta *m)
{
	struct dat_system *systems;
	size_t nr, nr_sys_pos;
	uint32_t nr_sys = 0;
	int ret;

	ret = meta_systems(src, &systems, &nr);
	if (ret)
		goto out_free;
	buf_u32(&m->ftrace, 0);
	buf_u32(&m->events, 0);
	nr_sys_pos = 0;
	for (size_t i = 0; i < nr && !ret; i++) {
		struct dat_system *s = &systems[i];
		bool ftrace = strcmp(s->name, "ftrace") == 0;
		struct trev_buf *b = ftrace ? &m->ftrace : &m->events;
		size_t count_pos;
		uint32_t count = 0;

		if (!ftrace)
			buf_str(b, s->name);
		count_pos = b->len;
		if (!ftrace)
			buf_u32(b, 0);
		for (uint32_t j = 0; j < s->nr && !ret; j++) {
			ret = meta_format(src, s->name, s->events[j], b, &m->code);
			if (ret > 0) {
				count++;
				ret = 0;
			}
		}
		if (b->err)
			break;
		if (ftrace) {
			uint32_t old;

			memcpy(&old, b->data, 4);
			old += count;
			memcpy(b->data, &old, 4);
		} else {
			memcpy(b->data + count_pos, &count, 4);
			nr_sys++;
		}
	}
	if (!m->events.err)
		memcpy(m->events.data + nr_sys_pos, &nr_sys, 4);
	ret = ret ?: m->ftrace.err ?: m->events.err;
out_free:
	systems_free(systems, nr);
	return ret;
}

/* One kallsyms line: a function's start and name. */
struct dat_sym {
	uint64_t start;
	char name[128];
};

static int dat_sym_cmp(const void *a, const void *b)
{
	const struct dat_sym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * kallsyms: the functions that hold the code addresses seen, as
 * /proc/kallsyms lines, sorted, and one end marker past the last, because
 * libtraceevent maps an address to the symbol below it only when a next
 * symbol bounds it. For the same reason an address that symbol() does not
 * know gets a line of its own, named as libtraceevent prints an unknown
 * address; it would take the name of the function below it otherwise.
 */
static int meta_kallsyms(struct trev_dat *dat, struct trev_buf *b)
{
	struct trev_buf text = TREV_BUF_INIT;
	struct dat_sym *syms = NULL;
	size_t n = 0, known = 0, nr_ips;

	/* The addresses as now, named outside the lock: symbol() is slow. */
	pthread_mutex_lock(&dat->ips_lock);
	nr_ips = dat->src->symbol ? dat->nr_ips : 0;
	if (nr_ips && (syms = calloc(nr_ips, sizeof(*syms))))
		for (size_t i = 0; i < DAT_IP_SLOTS && n < nr_ips; i++)
			if (dat->ips[i])
				syms[n++].start = dat->ips[i];
	pthread_mutex_unlock(&dat->ips_lock);
	if (!nr_ips) {
		buf_u32(b, 0);
		return b->err;
	}
	if (!syms)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct dat_sym *s = &syms[i];
		uint64_t ip = s->start;

		if (dat->src->symbol(dat->src, ip, s->name, sizeof(s->name), &s->start) == 0 &&
		    s->name[0]) {
			known++;
		} else {
			s->start = ip;
			snprintf(s->name, sizeof(s->name), "0x%llx", (unsigned long long)ip);
		}
	}
	if (!known)
		n = 0;
	qsort(syms, n, sizeof(*syms), dat_sym_cmp);
	for (size_t i = 0; i < n; i++) {
		char line[192];
		int len;

		if (i && syms[i].start == syms[i - 1].start)
			continue;
		len = snprintf(line, sizeof(line), "%016llx t %s\n",
			       (unsigned long long)syms[i].start, syms[i].name);
		buf_put(&text, line, (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1);
	}
	if (n)
		buf_put(&text, "ffffffffffffffff t __trev_kallsyms_end\n", 39);
	free(syms);
	if (text.err) {
		int err = text.err;

		trev__buf_free(&text);
		return err;
	}
	buf_u32(b, (uint32_t)text.len);
	buf_put(b, text.data, text.len);
	trev__buf_free(&text);
	return b->err;
}

/* The selected clock of a trace_clock text: the name in brackets. */
static char *clock_selected(const char *text)
{
	const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;

	if (!close)
		return strdup("local");
	return strndup(open + 1, (size_t)(close - open - 1));
}

static int meta_read(struct trev_dat *dat, struct dat_meta *m)
{
	const struct trev_dat_source *src = dat->src;
	char *text;
	ssize_t n;
	int ret;

	memset(m, 0, sizeof(*m));
	m->code.max_id = -1;
	ret = meta_header_info(src, &m->header_info);
	if (ret)
		return ret;
	ret = meta_formats(src, m);
	if (ret)
		return ret;
	ret = dat_code_install(dat, &m->code);
	if (ret)
		return ret;
	ret = meta_kallsyms(dat, &m->kallsyms);
	if (ret)
		return ret;

	n = src_read_opt(src, "printk_formats", &text);
	if (n < 0)
		return (int)n;
	buf_u32(&m->printk, (uint32_t)n);
	buf_put(&m->printk, text, (size_t)n);
	free(text);

	n = src_read_opt(src, "saved_cmdlines", &text);
	if (n < 0)
		return (int)n;
	buf_u64(&m->cmdlines, (uint64_t)n);
	buf_put(&m->cmdlines, text, (size_t)n);
	free(text);
	if (m->printk.err || m->cmdlines.err)
		return -ENOMEM;

	n = src_read_inst(src, "trace_clock", &m->clock);
	if (n < 0)
		return (int)n;
	/* A TRACECLOCK text must not be empty (docs/formats.md, "Options"). */
	if (!strchr(m->clock, '[')) {
		free(m->clock);
		m->clock = strdup("[local]\n");
	}
	m->clock_name = m->clock ? clock_selected(m->clock) : NULL;
	if (!m->clock || !m->clock_name)
		return -ENOMEM;

	m->cpustat = calloc((size_t)dat->nr_cpus, sizeof(*m->cpustat));
	if (!m->cpustat)
		return -ENOMEM;
	m->nr_cpus = dat->nr_cpus;
	for (int cpu = 0; cpu < dat->nr_cpus; cpu++) {
		char path[64];

		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
		n = src_read_inst(src, path, &m->cpustat[cpu]);
		if (n < 0)
			return (int)n;
	}
	return 0;
}

static int dat_build(const struct trev_dat *dat, const struct dat_meta *m, struct trev_buf *head,
		     struct trev_buf *tail, struct dat_layout *l);

/* The length of @m's metadata: the main stream's base follows from it (dat_out_begin()). */
static void dat_estimate(struct trev_dat *dat, const struct dat_meta *m)
{
	struct trev_buf head = TREV_BUF_INIT, tail = TREV_BUF_INIT;
	uint64_t *v = calloc(2 * (size_t)dat->nr_cpus, sizeof(*v));
	struct dat_layout l = { .sizes = false, .off = v, .size = v ? v + dat->nr_cpus : NULL };

	if (v && dat->out.f.fd >= 0 && dat_build(dat, m, &head, &tail, &l) == 0)
		__atomic_store_n(&dat->head_est, l.meta_end, __ATOMIC_RELAXED);
	trev__buf_free(&head);
	trev__buf_free(&tail);
	free(v);
}

int trev_dat_snapshot(struct trev_dat *dat)
{
	struct dat_meta *m, *old;
	int ret;

	if (!dat)
		return -EINVAL;
	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	ret = meta_read(dat, m);
	if (ret) {
		meta_free(m);
		free(m);
		return ret;
	}
	pthread_mutex_lock(&dat->snap_lock);
	old = dat->snap;
	dat->snap = m;
	dat->snap_gen++;
	pthread_mutex_unlock(&dat->snap_lock);
	if (old)
		meta_free(old);
	free(old);
	dat_estimate(dat, m);
	return 0;
}

/* Options both versions carry: CPUSTAT per CPU, TRACECLOCK, UNAME, VERSION, PROCMAPS. */
static void options_common(const struct trev_dat *dat, const struct dat_meta *m,
			   struct trev_buf *b)
{
	struct utsname u;
	char uname_text[5 * sizeof(u.release)];

	for (int cpu = 0; cpu < m->nr_cpus; cpu++)
		buf_option_str(b, DAT_OPT_CPUSTAT, m->cpustat[cpu]);
	buf_option_str(b, DAT_OPT_TRACECLOCK, m->clock);
	if (uname(&u) == 0) {
		snprintf(uname_text, sizeof(uname_text), "%s %s %s %s", u.sysname, u.nodename,
			 u.release, u.version);
		buf_option_str(b, DAT_OPT_UNAME, uname_text);
	}
	buf_option_str(b, DAT_OPT_VERSION, "trev " TREV_VERSION_STRING);
	if (dat->proc)
		buf_option_str(b, DAT_OPT_PROCMAPS, dat->proc);
}

/*
 * The longest line trace-cmd's reader takes in a PROCMAPS option
 * (STR_PROCMAP_LINE_MAX): a longer one makes it drop the whole option.
 */
#define DAT_PROC_LINE_MAX	4000

/*
 * One line of /proc/PID/maps, "START-END PERMS OFFSET DEV INODE [PATH]":
 * its range and the file it maps (NULL for an anonymous one, or a path
 * trace-cmd could not read back).
 */
static const char *proc_map_line(const char *line, size_t len, unsigned long long *start,
				 unsigned long long *end)
{
	char tmp[128];
	int path_at = 0;

	memcpy(tmp, line, len < sizeof(tmp) - 1 ? len : sizeof(tmp) - 1);
	tmp[len < sizeof(tmp) - 1 ? len : sizeof(tmp) - 1] = '\0';
	if (sscanf(tmp, "%llx-%llx %*s %*s %*s %*s %n", start, end, &path_at) < 2 || !path_at ||
	    (size_t)path_at >= len || line[path_at] != '/' || len - (size_t)path_at > DAT_PROC_LINE_MAX)
		return NULL;
	return line + path_at;
}

int trev__dat_set_proc(struct trev_dat *dat, int pid, const char *comm, const char *maps)
{
	struct trev_buf libs = TREV_BUF_INIT, text = TREV_BUF_INIT;
	unsigned long long start = 0, end = 0;
	const char *path = NULL;
	size_t path_len = 0;
	unsigned int nr = 0;
	int ret = 0;

	/* Each file's mappings in a row become one range, as trace-cmd record --proc-map's. */
	for (const char *p = maps ? maps : ""; *p && !ret;) {
		size_t len = strcspn(p, "\n");
		unsigned long long s0, e0;
		const char *f = proc_map_line(p, len, &s0, &e0);
		size_t flen = f ? len - (size_t)(f - p) : 0;

		if (f && path && flen == path_len && !memcmp(f, path, flen) && s0 == end) {
			end = e0;
		} else if (f) {
			if (path)
				ret = trev__buf_printf(&libs, "%llx %llx %.*s\n", start, end,
						       (int)path_len, path);
			nr += !!path;
			path = f;
			path_len = flen;
			start = s0;
			end = e0;
		}
		p += len + (p[len] == '\n');
	}
	if (path && !ret) {
		ret = trev__buf_printf(&libs, "%llx %llx %.*s\n", start, end, (int)path_len, path);
		nr++;
	}
	/* "PID COUNT COMM" in hex, as trace-cmd reads it; the name on one line. */
	ret = ret ?: trev__buf_printf(&text, "%x %x ", (unsigned int)pid, nr);
	for (const char *c = comm && *comm ? comm : "<...>"; *c && !ret; c++)
		ret = trev__buf_putc(&text, (unsigned char)*c < ' ' || *c == 0x7f ? '?' : *c);
	ret = ret ?: trev__buf_putc(&text, '\n');
	ret = ret ?: trev__buf_append(&text, libs.data ? libs.data : "", libs.len);
	ret = ret ?: trev__buf_putc(&text, '\0');
	trev__buf_free(&libs);
	if (ret) {
		trev__buf_free(&text);
		return ret;
	}
	free(dat->proc);
	dat->proc = (char *)text.data;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Writing                                                              */

static void file_header(struct trev_buf *b, int version)
{
	static const uint16_t one = 1;
	unsigned char endian = *(const unsigned char *)&one ? 0 : 1;
	unsigned char long_size = sizeof(long);

	buf_put(b, "\x17\x08\x44tracing", 10);
	buf_str(b, version == 7 ? "7" : "6");
	buf_put(b, &endian, 1);
	buf_put(b, &long_size, 1);
	buf_u32(b, TREV_DAT_PAGE_SIZE);
	if (version == 7) {
		buf_str(b, "none");
		buf_str(b, "");
	}
}

static int write_all(int fd, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Copy @len bytes of @in from its start to @fd's position in the kernel
 * (copy_file_range(): no copy through this process, and none at all where
 * the file system shares extents). Return: the bytes copied, which is less
 * than @len where the kernel cannot copy between these files (the caller
 * goes on with read() and write() from there), or -errno.
 */
static int64_t copy_in_kernel(int in, int fd, uint64_t len)
{
	loff_t in_off = 0;
	uint64_t done = 0;

	while (done < len) {
		size_t chunk = len - done > (1u << 30) ? (1u << 30) : (size_t)(len - done);
		ssize_t n = copy_file_range(in, &in_off, fd, NULL, chunk, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
			      errno == EOPNOTSUPP || errno == EBADF))
			break;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (uint64_t)n;
	}
	return (int64_t)done;
}

/*
 * Copy the pages of every CPU that has them in its temporary file (all but
 * the main CPU) to @to at @l->off[cpu], or, with @to NULL, one after the
 * other to @fd at its position, in CPU order (@l->off then says the same).
 */
static int write_pages(struct trev_dat *dat, struct dat_file *to, int fd, const struct dat_layout *l)
{
	const size_t chunk = (size_t)DAT_BATCH * TREV_DAT_PAGE_SIZE;
	unsigned char *buf = aligned_alloc(TREV_DAT_PAGE_SIZE, chunk);
	int ret = buf ? 0 : -ENOMEM;

	for (int cpu = 0; cpu < dat->nr_cpus && !ret; cpu++) {
		struct dat_cpu *c = &dat->cpus[cpu];
		uint64_t len = c->written * TREV_DAT_PAGE_SIZE;

		if (c->f == &dat->out.f || !len)
			continue;
		if (to) {
			ret = dat_copy(c->f, c->base, to, l->off[cpu], len, buf, chunk);
			continue;
		}
		for (uint64_t done = 0; done < len && !ret; done += chunk) {
			size_t n = len - done < chunk ? (size_t)(len - done) : chunk;

			ret = dat_file_io(c->f, false, buf, n, c->base + done);
			if (!ret)
				ret = write_all(fd, buf, n);
		}
	}
	free(buf);
	return ret;
}

static void cpu_layout(const struct trev_dat *dat, uint64_t start, struct dat_layout *l)
{
	/* The streams in the file being made first, in their order (none in a trial build). */
	int nr = l->sizes && dat->out.f.fd >= 0 ? dat->out.nr : 0;

	l->start = start > l->min_start ? start : l->min_start;
	if (l->given)
		return;
	start = l->start;
	for (int i = 0; i < nr + dat->nr_cpus; i++) {
		int cpu = i < nr ? dat->out.order[i] : i - nr;

		if (i >= nr && l->sizes && dat->cpus[cpu].f == &dat->out.f)
			continue;
		l->off[cpu] = start;
		l->size[cpu] = l->sizes ? dat->cpus[cpu].pages * TREV_DAT_PAGE_SIZE : 0;
		start += l->size[cpu];
	}
}

/*
 * header_page and header_event (section 16's payload), with @l->pad bytes
 * after header_event's text that its length covers: readers skip them
 * (libtracecmd reads header_event and drops it). A checkpoint moves the
 * rest of the metadata, the body, with them ("Checkpoints").
 */
static void put_header_info(struct trev_buf *b, const struct dat_meta *m, struct dat_layout *l)
{
	const struct trev_buf *h = &m->header_info;
	uint64_t np = 0, ne = 0, at = 12 + 8;

	if (h->len >= at)
		memcpy(&np, h->data + 12, 8);
	at += np + 13;
	if (h->len >= at + 8)
		memcpy(&ne, h->data + at, 8);
	if (h->len != at + 8 + ne) {	/* not as meta_header_info() makes it */
		buf_put(b, h->data, h->len);
		l->he_pos = 0;
		l->body = b->len;
		return;
	}
	l->he_pos = b->len + at;
	buf_put(b, h->data, (size_t)at);
	buf_u64(b, ne + l->pad);
	buf_put(b, h->data + at + 8, (size_t)ne);
	buf_zeros(b, (size_t)l->pad);
	l->body = b->len;
}

/* A version 6 file up to its "flyrecord": what trace-cmd listen takes as metadata. */
static void head_v6(const struct trev_dat *dat, const struct dat_meta *m, struct trev_buf *b,
		    struct dat_layout *l)
{
	file_header(b, 6);
	put_header_info(b, m, l);
	buf_put(b, m->ftrace.data, m->ftrace.len);
	buf_put(b, m->events.data, m->events.len);
	buf_put(b, m->kallsyms.data, m->kallsyms.len);
	buf_put(b, m->printk.data, m->printk.len);
	buf_put(b, m->cmdlines.data, m->cmdlines.len);
	buf_u32(b, (uint32_t)dat->nr_cpus);
	buf_put(b, "options  ", 10);
	options_common(dat, m, b);
	buf_u16(b, DAT_OPT_DONE);
}

static int build_v6(const struct trev_dat *dat, const struct dat_meta *m, struct trev_buf *b,
		    struct dat_layout *l)
{
	uint64_t table, start;

	head_v6(dat, m, b, l);
	buf_put(b, "flyrecord", 10);
	/* The table's size is known, so the data start is too: nothing to patch later. */
	table = b->len;
	cpu_layout(dat, round_up_page(table + 16ull * (uint64_t)dat->nr_cpus + 8 + strlen(m->clock)),
		   l);
	start = l->start;
	l->tab_pos = b->len;
	for (int cpu = 0; cpu < dat->nr_cpus; cpu++) {
		buf_u64(b, l->off[cpu]);
		buf_u64(b, l->size[cpu]);
	}
	/* TRACECLOCK is written, so its text follows the table (docs/formats.md, "Version 6"). */
	buf_u64(b, strlen(m->clock));
	buf_put(b, m->clock, strlen(m->clock));
	l->meta_end = b->len;
	if (!b->err)
		buf_zeros(b, (size_t)(start - b->len));
	return b->err;
}

int trev__dat_snapshot_head_v6(struct trev_dat *dat, struct trev_buf *out)
{
	int ret = -ENODATA;

	pthread_mutex_lock(&dat->snap_lock);
	if (dat->snap) {
		struct dat_layout l = { 0 };

		head_v6(dat, dat->snap, out, &l);
		ret = out->err;
	}
	pthread_mutex_unlock(&dat->snap_lock);
	return ret;
}

/* The section descriptions, NUL-separated: a string id is an offset here. */
static const char v7_strings[] =
	"headers\0ftrace events\0events format\0kallsyms\0printk\0command lines\0"
	"options\0flyrecord\0strings";

static uint32_t v7_string_id(const char *s)
{
	for (size_t i = 0; i < sizeof(v7_strings); i += strlen(v7_strings + i) + 1)
		if (!strcmp(v7_strings + i, s))
			return (uint32_t)i;
	return 0;
}

static void v7_section(struct trev_buf *b, uint16_t id, const char *desc, const void *payload,
		       uint64_t size)
{
	buf_u16(b, id);
	buf_u16(b, 0);		/* not compressed */
	buf_u32(b, v7_string_id(desc));
	buf_u64(b, size);
	if (payload)
		buf_put(b, payload, (size_t)size);
}

static int build_v7(const struct trev_dat *dat, const struct dat_meta *m, struct trev_buf *b,
		    struct dat_layout *l, struct trev_buf *tail)
{
	static const struct { uint16_t id; const char *desc; size_t field; } sections[] = {
		{ DAT_OPT_HEADER_INFO, "headers", offsetof(struct dat_meta, header_info) },
		{ DAT_OPT_FTRACE_EVENTS, "ftrace events", offsetof(struct dat_meta, ftrace) },
		{ DAT_OPT_EVENT_FORMATS, "events format", offsetof(struct dat_meta, events) },
		{ DAT_OPT_KALLSYMS, "kallsyms", offsetof(struct dat_meta, kallsyms) },
		{ DAT_OPT_PRINTK, "printk", offsetof(struct dat_meta, printk) },
		{ DAT_OPT_CMDLINES, "command lines", offsetof(struct dat_meta, cmdlines) },
	};
	uint64_t sec_off[6], opt_pos, opt_off, fly_off, start, end;
	struct trev_buf opts = TREV_BUF_INIT;
	size_t opt_ptr;

	file_header(b, 7);
	opt_ptr = b->len;
	buf_u64(b, 0);		/* the options section's offset, set below */
	for (int i = 0; i < 6; i++) {
		const struct trev_buf *s = (const void *)((const char *)m + sections[i].field);

		sec_off[i] = b->len;
		if (i > 0) {
			v7_section(b, sections[i].id, sections[i].desc, s->data, s->len);
			continue;
		}
		v7_section(b, sections[i].id, sections[i].desc, NULL, s->len + l->pad);
		put_header_info(b, m, l);
	}

	/* Options: where each section is, then what both versions carry, then the buffer. */
	for (int i = 0; i < 6; i++)
		buf_option_u64(&opts, sections[i].id, sec_off[i]);
	{
		uint32_t count = (uint32_t)dat->nr_cpus;

		buf_option(&opts, DAT_OPT_CPUCOUNT, &count, sizeof(count));
	}
	options_common(dat, m, &opts);
	opt_off = b->len;
	/* BUFFER's size: offset, "" name, clock, page size, count, 20 bytes per CPU. */
	{
		uint32_t buf_len = 8 + 1 + (uint32_t)strlen(m->clock_name) + 1 + 4 + 4 +
				   20u * (uint32_t)dat->nr_cpus;
		uint64_t opts_size = opts.len + 6 + buf_len + 6 + 8;

		fly_off = opt_off + DAT_SEC_HDR + opts_size;
		cpu_layout(dat, round_up_page(fly_off + DAT_SEC_HDR), l);
		start = l->start;
		buf_u16(&opts, DAT_OPT_BUFFER);
		buf_u32(&opts, buf_len);
		buf_u64(&opts, fly_off);
		buf_str(&opts, "");
		buf_str(&opts, m->clock_name);
		buf_u32(&opts, TREV_DAT_PAGE_SIZE);
		buf_u32(&opts, (uint32_t)dat->nr_cpus);
		/* In the file: the options section's header, then opts. */
		l->tab_pos = opt_off + DAT_SEC_HDR + opts.len;
		end = start;
		for (int cpu = 0; cpu < dat->nr_cpus; cpu++) {
			buf_u32(&opts, (uint32_t)cpu);
			buf_u64(&opts, l->off[cpu]);
			buf_u64(&opts, l->size[cpu]);
			if (l->size[cpu] && l->off[cpu] + l->size[cpu] > end)
				end = l->off[cpu] + l->size[cpu];
		}
		buf_option_u64(&opts, DAT_OPT_DONE, 0);	/* no further options section */
	}
	if (opts.err) {
		trev__buf_free(&opts);
		return opts.err;
	}
	v7_section(b, DAT_OPT_DONE, "options", opts.data, opts.len);
	trev__buf_free(&opts);
	if (b->err)
		return b->err;
	opt_pos = opt_off;
	memcpy(b->data + opt_ptr, &opt_pos, 8);

	/*
	 * The flyrecord section holds its own padding, so the chain has no gap
	 * (docs/formats.md, "Version 7"). It ends where its last stream does;
	 * a checkpoint's, past any page the file may have ("Checkpoints").
	 */
	if (l->fly_end)
		end = l->fly_end;
	v7_section(b, DAT_OPT_BUFFER, "flyrecord", NULL, end - (fly_off + DAT_SEC_HDR));
	l->meta_end = b->len;
	if (!b->err)
		buf_zeros(b, (size_t)(start - b->len));
	v7_section(tail, DAT_SEC_STRINGS, "strings", v7_strings, sizeof(v7_strings));
	return b->err ?: tail->err;
}

static int dat_build(const struct trev_dat *dat, const struct dat_meta *m, struct trev_buf *head,
		     struct trev_buf *tail, struct dat_layout *l)
{
	return dat->version == 7 ? build_v7(dat, m, head, l, tail) : build_v6(dat, m, head, l);
}

/*
 * Give the unnamed file in @fd its name @path: linked in, over an older
 * file by a rename (a new inode: whoever has the old one open keeps it).
 * Return: 0, or -errno (no /proc/self/fd to link through, ...).
 */
static int dat_out_name(int fd, const char *path)
{
	char proc[64], tmp[4200];
	int ret;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	ret = -errno;
	for (int i = 0; ret == -EEXIST && i < 100; i++) {
		snprintf(tmp, sizeof(tmp), "%s.%d.%d~", path, (int)getpid(), i);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) < 0)
			continue;
		if (rename(tmp, path) == 0)
			return 0;
		ret = -errno;
		unlink(tmp);
		return ret;
	}
	return ret;
}

/*
 * Give the finished file in @fd its name @path (dat_out_name()), or,
 * where /proc/self/fd cannot link it, copy it there whole (@len bytes).
 */
static int dat_out_link(int fd, const char *path, uint64_t len)
{
	char why[256];
	int ret, to;
	int64_t copied;

	if (dat_out_name(fd, path) == 0)
		return 0;
	to = trev__out_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644, why, sizeof(why));
	if (to < 0)
		return to;
	copied = copy_in_kernel(fd, to, len);
	ret = copied < 0 ? (int)copied : 0;
	if (!ret && (uint64_t)copied < len) {
		unsigned char *buf = malloc(64 * TREV_DAT_PAGE_SIZE);
		uint64_t at = (uint64_t)copied;

		ret = buf && lseek(to, (off_t)at, SEEK_SET) >= 0 ? 0 : buf ? -errno : -ENOMEM;
		while (!ret && at < len) {
			ssize_t n = pread(fd, buf, 64 * TREV_DAT_PAGE_SIZE, (off_t)at);

			if (n <= 0)
				ret = n < 0 ? -errno : -EIO;
			else
				ret = write_all(to, buf, (size_t)n);
			at += n > 0 ? (uint64_t)n : 0;
		}
		free(buf);
	}
	if (close(to) && !ret)
		ret = -errno;
	if (ret)
		unlink(path);
	return ret;
}


/* ------------------------------------------------------------------ */
/* Checkpoints                                                          */

/*
 * A recording is a valid trace.dat on disk while it goes, so that a
 * recorder that is killed (the OOM killer, a bug) or that runs out of
 * space leaves every page that reached the file:
 *
 *	0                                            main base       k TiB
 *	| prefix | body A | ... | body B | ...       | main CPU's pages | hole | k-th CPU's pages | ...
 *	  '-- page 0 says which body readers follow
 *
 * The metadata of the last snapshot is written in the room before the main
 * CPU's base, with a table (v6's flyrecord table, v7's BUFFER option) that
 * gives each stream of the file being made its base and the pages a write
 * has put there (durable); CPUs whose pages wait in temporary files have
 * size 0 until the end. A v7 checkpoint's flyrecord section runs to
 * DAT_CK_FLY_END, past any page the file can have: trace-cmd dump walks the
 * chain of sections to the end of the file, and a batch written past the
 * table's sizes (before its checkpoint) must not read as sections.
 *
 * The rule: every byte a reader follows is written before anything points
 * at it, and every write that changes what readers follow is one pwrite()
 * within one page. A SIGKILL cuts a write between two pages (the kernel
 * copies it page by page and checks for a fatal signal in between), never
 * inside one; the page cache shows the writes in order to whoever opens the
 * file after the kill. (Nothing is synced: a power cut is not covered.)
 *
 *   - The metadata is split in two: the prefix, from the file header to
 *     header_event's length, and the body, all the rest (v6: the formats up
 *     to the table and the clock; v7: sections 17 to 21, the options and
 *     the flyrecord section's header). header_event's length covers its
 *     text and the bytes up to the body, which readers skip (libtracecmd
 *     reads header_event and drops it); in v7, section 16's size and the
 *     options section's offset say the same. These fields all lie in page
 *     0 (before byte 4096 when header_page is shorter than about 4 KB).
 *   - After each batch is written (the writer thread, or trev__dat_sync()'s
 *     partial ones), only the table is rewritten: one pwrite() of a few
 *     bytes, placed where it does not cross a page (for up to 200 CPUs);
 *     an offset never changes once its stream has pages, and sizes only
 *     grow, so a table torn for more CPUs still shows pages that are there.
 *   - When a snapshot changed the metadata, the new body is written where
 *     no reader looks, beside the old one in the room (at the prefix's end
 *     if it fits before the old body, else after it), then one pwrite() of
 *     page 0's fields switches to it; the old body becomes bytes that
 *     header_event's length covers (or, when it lies after the new one,
 *     bytes between the metadata and the data, which readers skip). A body
 *     that fits neither waits for the end; the older one stays, with the
 *     new sizes. So does every body after the first when page 0's fields
 *     would end past its first page.
 *   - The first checkpoint writes the whole metadata into the zeros of the
 *     room before the file has its name; then it gives the file its name.
 *
 * The room's blocks are allocated before the first page, so these writes
 * never fail for space. trev_dat_finish() then moves the streams together
 * and writes the final metadata as before: a recorder killed in that last
 * step may leave a table that does not match.
 */

/* Put @v at @pos of @b (the header as last written). */
static void ck_patch(struct trev_buf *b, uint64_t pos, uint64_t v)
{
	if (pos + sizeof(v) <= b->len)
		memcpy(b->data + pos, &v, sizeof(v));
}

/*
 * Where a body of @len bytes whose table is at @tab in it (@tab_len bytes)
 * may start: at @from, or after it so that the table does not cross a page.
 */
static uint64_t ck_align(uint64_t from, uint64_t tab, uint64_t tab_len)
{
	uint64_t in_page = (from + tab) % TREV_DAT_PAGE_SIZE;

	if (tab_len <= TREV_DAT_PAGE_SIZE && in_page + tab_len > TREV_DAT_PAGE_SIZE)
		return from + TREV_DAT_PAGE_SIZE - in_page;
	return from;
}

/*
 * Where a new body goes: @head as @l built it with no pad (its body at the
 * prefix's end), and the metadata may use the room up to @base. The first
 * one at the prefix's end; the next ones not over the body on disk, behind
 * the same prefix (header_page and header_event do not change).
 * Return: the body's start, or 0 when it does not fit.
 */
static uint64_t ck_place(const struct trev_dat *dat, const struct trev_buf *head,
			 const struct dat_layout *l, uint64_t base)
{
	const struct dat_ckpt *ck = &dat->ck;
	uint64_t len = l->meta_end + DAT_CK_TAIL - l->body, tab = l->tab_pos - l->body;
	uint64_t tab_len = (uint64_t)dat->nr_cpus * (dat->version == 7 ? 20 : 16);
	uint64_t at = ck_align(l->body, tab, tab_len), from = dat->version == 7 ? 48 : 0;

	if (!ck->head.len)
		return at + len <= base ? at : 0;
	/* Page 0's fields: v7's options offset (24) and section 16's size (40), header_event's length. */
	if (!ck->flip || l->he_pos != ck->he_pos || ck->head.len < l->body ||
	    memcmp(head->data + from, ck->head.data + from, l->he_pos - from) ||
	    memcmp(head->data + l->he_pos + 8, ck->head.data + l->he_pos + 8,
		   l->body - l->he_pos - 8))
		return 0;
	if (at + len <= ck->body)
		return at;
	at = ck_align(ck->body_end, tab, tab_len);
	return at + len <= base ? at : 0;
}

/*
 * Build the checkpoint metadata of @m into @head (@l: given offsets and
 * sizes) with its body where ck_place() says. Return: 0, or -ENOSPC when it
 * does not fit the room, or another negative errno.
 */
static int ck_build(const struct trev_dat *dat, const struct dat_meta *m, struct trev_buf *head,
		    struct dat_layout *l, uint64_t base)
{
	struct trev_buf tail = TREV_BUF_INIT;
	uint64_t at;
	int ret;

	ret = dat_build(dat, m, head, &tail, l);
	if (ret || l->start != base)
		goto out_free;
	at = ck_place(dat, head, l, base);
	if (at && at != l->body) {
		trev__buf_free(head);
		trev__buf_free(&tail);
		l->pad = at - l->body;
		ret = dat_build(dat, m, head, &tail, l);
		if (ret || l->start != base || l->body != at)
			goto out_free;
	}
	if (at) {
		trev__buf_free(&tail);
		return 0;
	}
out_free:
	trev__buf_free(&tail);
	return ret ?: -ENOSPC;
}

/*
 * Write the checkpoint for the pages in the file now: with @final's
 * metadata (trev_dat_finish() on error), else the last snapshot's.
 * Context: any thread but one holding io.lock or snap_lock.
 * Return: 0 (also when there is nothing to show yet), or -errno.
 */
static int dat_ckpt(struct trev_dat *dat, const struct dat_meta *final)
{
	struct dat_ckpt *ck = &dat->ck;
	struct dat_out *o = &dat->out;
	const unsigned int stride = dat->version == 7 ? 20 : 16, at = dat->version == 7 ? 4 : 0;
	struct trev_buf head = TREV_BUF_INIT;
	struct dat_layout l = { 0 };
	uint64_t *off, *size, base, entries = 0;
	unsigned int gen = 0;
	bool whole = false;
	int nr, ret = 0;

	off = calloc(2 * (size_t)dat->nr_cpus, sizeof(*off));
	if (!off)
		return -ENOMEM;
	size = off + dat->nr_cpus;
	pthread_mutex_lock(&ck->lock);
	if (ck->fd < 0)
		goto out_unlock;
	pthread_mutex_lock(&dat->io.lock);
	nr = o->nr;
	base = nr ? dat->cpus[o->order[0]].base : 0;
	for (int cpu = 0; cpu < dat->nr_cpus; cpu++)
		off[cpu] = base;
	for (int i = 0; i < nr; i++) {
		const struct dat_cpu *c = &dat->cpus[o->order[i]];

		off[o->order[i]] = c->base;
		size[o->order[i]] = c->durable * TREV_DAT_PAGE_SIZE;
		entries += c->durable_entries;
	}
	pthread_mutex_unlock(&dat->io.lock);
	if (!nr)
		goto out_unlock;

	pthread_mutex_lock(&dat->snap_lock);
	if (final || (dat->snap && dat->snap_gen != ck->gen)) {
		l = (struct dat_layout){ .sizes = true, .given = true, .min_start = base,
					 .fly_end = DAT_CK_FLY_END, .off = off, .size = size };
		/* A metadata that outgrew the room waits for the end; the older one stays. */
		whole = ck_build(dat, final ? final : dat->snap, &head, &l, base) == 0;
		gen = dat->snap_gen;	/* the snapshot built, not one taken since */
	}
	pthread_mutex_unlock(&dat->snap_lock);
	if (whole) {
		if (!ck->head.len) {
			/* Nobody reads the file before it has its name: all of it at once. */
			ret = dat_pwrite_all(ck->fd, head.data, (size_t)(l.meta_end + DAT_CK_TAIL), 0);
		} else {
			/* The new body where nothing points, then page 0 points at it. */
			uint64_t from = dat->version == 7 ? 24 : l.he_pos;

			ret = dat_pwrite_all(ck->fd, head.data + l.body,
					     (size_t)(l.meta_end + DAT_CK_TAIL - l.body), l.body);
			if (!ret)
				ret = dat_pwrite_all(ck->fd, head.data + from,
						     (size_t)(l.he_pos + 8 - from), from);
		}
		if (ret)
			goto out_unlock;
		trev__buf_free(&ck->head);
		ck->head = head;
		head = (struct trev_buf)TREV_BUF_INIT;
		ck->tab_pos = l.tab_pos;
		ck->he_pos = l.he_pos;
		ck->body = l.body;
		ck->body_end = l.meta_end + DAT_CK_TAIL;
		ck->flip = l.he_pos && l.he_pos + 8 <= TREV_DAT_PAGE_SIZE;
		ck->gen = gen ? gen : 1;
	} else {
		if (!ck->head.len)
			goto out_unlock;
		for (int cpu = 0; cpu < dat->nr_cpus; cpu++) {
			ck_patch(&ck->head, ck->tab_pos + (uint64_t)cpu * stride + at, off[cpu]);
			ck_patch(&ck->head, ck->tab_pos + (uint64_t)cpu * stride + at + 8, size[cpu]);
		}
		ret = dat_pwrite_all(ck->fd, ck->head.data + ck->tab_pos,
				     (size_t)dat->nr_cpus * stride, ck->tab_pos);
		if (ret)
			goto out_unlock;
	}
	ck->entries = entries;
	if (!ck->linked) {
		/* Where the file cannot have its name now, it gets it at the end only. */
		if (dat_out_name(o->f.fd, dat->path) == 0) {
			ck->linked = true;
		} else {
			close(ck->fd);
			ck->fd = -1;
		}
	}
out_unlock:
	pthread_mutex_unlock(&ck->lock);
	trev__buf_free(&head);
	free(off);
	return ret;
}

/*
 * Make the file in out.f: the main stream placed after the metadata
 * (dat_out_place()), the other CPUs' pages after it, the metadata in front,
 * then link it in at dat->path.
 */
static int dat_out_finish(struct trev_dat *dat, const struct dat_meta *m, struct dat_layout *l)
{
	struct trev_buf head = TREV_BUF_INIT, tail = TREV_BUF_INIT;
	struct dat_out *o = &dat->out;
	uint64_t end;
	int64_t at;
	int ret;

	ret = dat_build(dat, m, &head, &tail, l);
	if (ret)
		goto out_free;
	at = dat_out_place(dat, l->start);
	if (at < 0) {
		ret = (int)at;
		goto out_free;
	}
	if ((uint64_t)at != l->start) {
		/* A large stream kept its gap: the metadata again, the data where it is. */
		trev__buf_free(&head);
		trev__buf_free(&tail);
		l->min_start = (uint64_t)at;
		ret = dat_build(dat, m, &head, &tail, l);
		if (ret)
			goto out_free;
	}
	end = l->start;
	for (int cpu = 0; cpu < dat->nr_cpus; cpu++)
		end += l->size[cpu];
	ret = write_pages(dat, &o->f, -1, l) ?: dat_file_buffered(&o->f);
	if (!ret)
		ret = dat_pwrite_all(o->f.fd, tail.data, tail.len, end);
	if (!ret && ftruncate(o->f.fd, (off_t)(end + tail.len)) < 0)
		ret = -errno;
	if (!ret)
		ret = dat_pwrite_all(o->f.fd, head.data, head.len, 0);
	/* A checkpoint gave it its name already. */
	if (!ret && !dat->ck.linked)
		ret = dat_out_link(o->f.fd, dat->path, end + tail.len);
out_free:
	trev__buf_free(&head);
	trev__buf_free(&tail);
	return ret;
}

int trev_dat_finish(struct trev_dat *dat)
{
	return trev__dat_finish(dat, NULL);
}

int trev__dat_finish(struct trev_dat *dat, struct trev__dat_kept *kept)
{
	uint64_t *off = NULL, *size = NULL;
	struct trev_buf head = TREV_BUF_INIT, tail = TREV_BUF_INIT;
	struct dat_layout l = { .sizes = true };
	struct dat_meta meta;
	char why[256];
	int fd = -1, ret;

	if (!dat)
		return -EINVAL;
	ret = meta_read(dat, &meta);
	if (ret && dat->snap) {
		struct trev_buf kallsyms = TREV_BUF_INIT;
		char *text = NULL;
		ssize_t n;

		/*
		 * The source is gone (or broken): the last snapshot stands in,
		 * with kallsyms made again for the addresses of the pages read
		 * since (symbol() answers from what the source kept), and the
		 * thread names again if the source still has them (a buffer
		 * that outlived its process has).
		 */
		meta_free(&meta);
		/* The writer thread's checkpoints read it until now. */
		pthread_mutex_lock(&dat->snap_lock);
		meta = *dat->snap;
		free(dat->snap);
		dat->snap = NULL;
		pthread_mutex_unlock(&dat->snap_lock);
		if (meta_kallsyms(dat, &kallsyms) == 0) {
			trev__buf_free(&meta.kallsyms);
			meta.kallsyms = kallsyms;
		} else {
			trev__buf_free(&kallsyms);
		}
		n = src_read_opt(dat->src, "saved_cmdlines", &text);
		if (n > 0) {
			struct trev_buf cmdlines = TREV_BUF_INIT;

			buf_u64(&cmdlines, (uint64_t)n);
			buf_put(&cmdlines, text, (size_t)n);
			if (!cmdlines.err) {
				trev__buf_free(&meta.cmdlines);
				meta.cmdlines = cmdlines;
			} else {
				trev__buf_free(&cmdlines);
			}
		}
		free(text);
		ret = 0;
	}
	if (ret)
		goto out_free;
	/* Every CPU's last pages; what follows reads and moves them. */
	ret = dat_io_stop(&dat->io);
	for (int cpu = 0; cpu < dat->nr_cpus && !ret; cpu++)
		ret = dat_cpu_flush(dat, &dat->cpus[cpu]);
	if (ret)
		goto out_keep;
	if (dat_rescan_missed(dat) > 0) {
		struct trev_buf kallsyms = TREV_BUF_INIT;

		ret = meta_kallsyms(dat, &kallsyms);
		if (ret) {
			trev__buf_free(&kallsyms);
			goto out_free;
		}
		trev__buf_free(&meta.kallsyms);
		meta.kallsyms = kallsyms;
	}
	if (kept && kept->head6) {
		struct dat_layout l6 = { 0 };

		head_v6(dat, &meta, kept->head6, &l6);
		ret = kept->head6->err;
		if (ret)
			goto out_free;
	}
	off = calloc((size_t)dat->nr_cpus, sizeof(*off));
	size = calloc((size_t)dat->nr_cpus, sizeof(*size));
	if (!off || !size) {
		ret = -ENOMEM;
		goto out_free;
	}
	l.off = off;
	l.size = size;
	if (dat->out.f.fd >= 0) {
		ret = dat_out_finish(dat, &meta, &l);
		if (ret)
			goto out_keep;
		goto out_free;
	}
	ret = dat_build(dat, &meta, &head, &tail, &l);
	if (ret)
		goto out_free;

	fd = trev__out_open(dat->path, O_WRONLY | O_CREAT | O_TRUNC, 0644, why, sizeof(why));
	if (fd < 0) {
		ret = fd;
		goto out_free;
	}
	ret = write_all(fd, head.data, head.len) ?: write_pages(dat, NULL, fd, &l) ?:
	      write_all(fd, tail.data, tail.len);
	if (close(fd) && !ret)
		ret = -errno;
	if (ret)
		unlink(dat->path);
	goto out_free;

out_keep:
	/*
	 * The file is what the pages written show (a write failed: no space,
	 * an I/O error): the last checkpoint, with this metadata if it fits.
	 */
	dat_ckpt(dat, &meta);
out_free:
	if (kept) {
		kept->kept = !ret || dat->ck.linked;
		kept->entries = dat->ck.entries;
	}
	free(off);
	free(size);
	trev__buf_free(&head);
	trev__buf_free(&tail);
	meta_free(&meta);
	trev_dat_abort(dat);
	return ret;
}
