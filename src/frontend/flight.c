/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The flight recorder that outlives the process (TREV_FLIGHT): the top
 * instance's ring buffer region in a file under /dev/shm instead of an
 * anonymous memfd, and beside it NAME.meta (src/frontend/flight_meta.h), what
 * `trev recover` needs to make a trace.dat of the region once the process
 * is gone. A normal exit removes both (unless TREV_FLIGHT_KEEP=1); a crash
 * or SIGKILL leaves them.
 *
 * The files are made in a directory checked once and then used through a
 * descriptor (openat, renameat, unlinkat), so a path swapped later does
 * not lead elsewhere: the directory is the user's and writable by nobody
 * else, or sticky (/dev/shm, /tmp), where O_CREAT | O_EXCL | O_NOFOLLOW
 * refuses a name someone else made first and nobody else can remove or
 * replace ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trev/tracedat.h>

#include "base/buf.h"
#include "frontend/frontend.h"
#include "frontend/flight_meta.h"
#include "events/events_internal.h"

/*
 * Lock order: flight_update_lock, then the tree's locks (meta_build() reads
 * files), then flight_lock, which guards the state below and is taken
 * under the tree's lock too (trev__flight_open(), when the top instance is
 * made): so flight_lock is never held while the tree is read.
 */
static pthread_mutex_t flight_update_lock = PTHREAD_MUTEX_INITIALIZER;	/* one rewrite at a time */
static pthread_mutex_t flight_lock = PTHREAD_MUTEX_INITIALIZER;
static int flight_dirfd = -1;	/* the checked directory (O_PATH) */
static char *flight_name;	/* the region file's name in it */
static char *flight_path;	/* its whole path, for messages */
static pid_t flight_pid;	/* the process the files are of (not a fork child) */
static bool flight_keep;	/* TREV_FLIGHT_KEEP=1: a normal exit leaves them */

static void flight_meta_name(char *buf, size_t size, const char *suffix)
{
	snprintf(buf, size, "%s.meta%s", flight_name, suffix);
}

static void flight_at_exit(void)
{
	char meta[NAME_MAX + 1];

	pthread_mutex_lock(&flight_lock);
	if (flight_name && getpid() == flight_pid && !flight_keep) {
		flight_meta_name(meta, sizeof(meta), "");
		unlinkat(flight_dirfd, flight_name, 0);
		unlinkat(flight_dirfd, meta, 0);
	}
	pthread_mutex_unlock(&flight_lock);
}

/* The program's name as a file name part: [A-Za-z0-9._-], others '_'. */
static void flight_comm(char comm[16])
{
	int fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, comm, 15) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		n = (ssize_t)snprintf(comm, 16, "trev");
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	for (char *c = comm; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-'))
			*c = '_';
}

/* Is the directory @st one where our file cannot be swapped or removed by another user? */
static bool flight_dir_safe(const struct stat *st)
{
	if (!S_ISDIR(st->st_mode))
		return false;
	if (st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH)))
		return true;
	return (st->st_mode & S_ISVTX) && (st->st_uid == 0 || st->st_uid == geteuid());
}

int trev__flight_open(void)
{
	const char *v = getenv("TREV_FLIGHT"), *keep = getenv("TREV_FLIGHT_KEEP");
	char path[PATH_MAX], comm[16], *slash;
	const char *base;
	struct stat st;
	int dirfd, fd;

	if (!v || !*v || strcmp(v, "0") == 0)
		return -1;
	if (strcmp(v, "1") == 0) {
		flight_comm(comm);
		snprintf(path, sizeof(path), "/dev/shm/trev-%s-%d", comm, (int)getpid());
	} else if (v[0] == '/' && strlen(v) < sizeof(path)) {
		snprintf(path, sizeof(path), "%s", v);
	} else {
		trev__log(TREV_LOG_WARN, "TREV_FLIGHT: '%s' is neither 1 nor an absolute path "
			  "(ignored)\n", v);
		return -1;
	}
	slash = strrchr(path, '/');
	base = slash + 1;
	/* Room for ".meta.tmp" after the name. */
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..") || strlen(base) > NAME_MAX - 9) {
		trev__log(TREV_LOG_WARN, "TREV_FLIGHT: '%s' does not end in a file name (ignored)\n",
			  path);
		return -1;
	}
	*slash = '\0';
	dirfd = open(slash == path ? "/" : path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	*slash = '/';
	if (dirfd < 0 || fstat(dirfd, &st) < 0) {
		trev__log(TREV_LOG_WARN, "TREV_FLIGHT: %s: %s (ignored)\n", path, strerror(errno));
		goto out_close_dir;
	}
	if (!flight_dir_safe(&st)) {
		trev__log(TREV_LOG_WARN, "TREV_FLIGHT: %s: its directory is writable by others and "
			  "not sticky (ignored)\n", path);
		goto out_close_dir;
	}
	fd = openat(dirfd, base, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		trev__log(TREV_LOG_WARN, "TREV_FLIGHT: cannot create %s: %s (the buffer stays in "
			  "memory only)\n", path, strerror(errno));
		goto out_close_dir;
	}
	pthread_mutex_lock(&flight_lock);
	flight_dirfd = dirfd;
	flight_name = strdup(base);
	flight_path = strdup(path);
	flight_pid = getpid();
	flight_keep = keep && strcmp(keep, "1") == 0;
	pthread_mutex_unlock(&flight_lock);
	if (!flight_name || !flight_path) {
		trev__flight_abandon(fd);
		return -1;
	}
	atexit(flight_at_exit);
	return fd;

out_close_dir:
	if (dirfd >= 0)
		close(dirfd);
	return -1;
}

void trev__flight_abandon(int fd)
{
	pthread_mutex_lock(&flight_lock);
	if (flight_name) {
		unlinkat(flight_dirfd, flight_name, 0);
		close(flight_dirfd);
		flight_dirfd = -1;
	}
	free(flight_name);
	free(flight_path);
	flight_name = flight_path = NULL;
	pthread_mutex_unlock(&flight_lock);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* NAME.meta                                                            */

struct meta_buf {
	struct trev_buf bytes;	/* the file */
	uint32_t nr;		/* entries in it */
	int err;		/* the first failure: -EFBIG past TREV_FLIGHT_META_MAX, -ENOMEM */
};

static void meta_put(struct meta_buf *b, const void *data, size_t n)
{
	if (b->err)
		return;
	if (b->bytes.len + n > TREV_FLIGHT_META_MAX) {
		b->err = -EFBIG;
		return;
	}
	b->err = trev__buf_append(&b->bytes, data, n);
}

static void meta_entry(struct meta_buf *b, const char *name, const char *data, size_t n)
{
	uint32_t lens[2] = { (uint32_t)strlen(name), (uint32_t)n };

	meta_put(b, lens, sizeof(lens));
	meta_put(b, name, lens[0]);
	meta_put(b, data, n);
	b->nr++;
}

/* A file of the tree as an entry; a missing one is left out. */
static void meta_file(struct meta_buf *b, const struct trev_dat_source *src, const char *path)
{
	char *text;
	ssize_t n = src->read_file(src, path, &text);

	if (n < 0)
		return;
	meta_entry(b, path, text, (size_t)n);
	free(text);
}

static void meta_number(struct meta_buf *b, const char *name, unsigned long long v)
{
	char text[32];

	meta_entry(b, name, text, (size_t)snprintf(text, sizeof(text), "%llu", v));
}

/* Field 22 of /proc/self/stat: when the process started, in clock ticks after boot. */
static unsigned long long meta_start_time(void)
{
	char buf[1024], *p;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the name may hold spaces and parentheses */
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* The formats of the events in @list (lines "sys:event", or names in @sys). */
static void meta_formats(struct meta_buf *b, const struct trev_dat_source *src, const char *list,
			 const char *sys)
{
	for (const char *line = list, *next; *line; line = next) {
		const char *end = strchr(line, '\n');
		char path[512];
		int len;

		next = end ? end + 1 : line + strlen(line);
		len = (int)((end ? end : next) - line);
		if (len == 0 || (sys && (!strncmp(line, "enable", 6) || !strncmp(line, "filter", 6))))
			continue;
		if (sys) {
			snprintf(path, sizeof(path), "events/%s/%.*s/format", sys, len, line);
		} else {
			const char *colon = memchr(line, ':', (size_t)len);

			if (!colon)
				continue;
			snprintf(path, sizeof(path), "events/%.*s/%.*s/format", (int)(colon - line),
				 line, (int)(line + len - colon - 1), colon + 1);
		}
		meta_file(b, src, path);
	}
}

/* Everything trev_dat_open() and the file's metadata read, as the tree has it now. */
static int meta_build(struct meta_buf *b)
{
	static const char *const files[] = {
		"events/header_page", "events/header_event", "printk_formats", "saved_cmdlines",
		"trace_clock", "events/ftrace/print/id", "events/ftrace/bprint/id",
		"events/ftrace/bputs/id", "events/ftrace/kernel_stack/id",
	};
	uint32_t hdr[4] = { TREV_FLIGHT_META_MAGIC, TREV_FLIGHT_META_VERSION, 0, 0 };
	struct trev_dat_source src;
	char comm[16], *text;
	int cpus;

	trev_dat_source_local(&src, NULL);
	meta_put(b, hdr, sizeof(hdr));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		meta_file(b, &src, files[i]);
	if (src.list_dir(&src, "events/ftrace", &text) >= 0) {
		meta_entry(b, "events/ftrace/", text, strlen(text));
		meta_formats(b, &src, text, "ftrace");
		free(text);
	}
	if (src.read_file(&src, "available_events", &text) >= 0) {
		meta_entry(b, "available_events", text, strlen(text));
		meta_formats(b, &src, text, NULL);
		free(text);
	}
	for (cpus = 0; cpus < 4096; cpus++) {
		char path[64];

		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpus);
		if (src.read_file(&src, path, &text) < 0)
			break;
		free(text);
	}
	meta_number(b, "@nr_cpus", (unsigned long long)cpus);
	meta_number(b, "@pid", (unsigned long long)getpid());
	meta_number(b, "@start", meta_start_time());
	flight_comm(comm);
	meta_entry(b, "@comm", comm, strlen(comm));
	if (!b->err)
		memcpy(b->bytes.data + 8, &b->nr, sizeof(b->nr));
	return b->err;
}

/* Write @b as NAME.meta: a temporary file, then renamed over the old one. */
static int meta_write(const struct meta_buf *b)
{
	char tmp[NAME_MAX + 1], meta[NAME_MAX + 1];
	size_t off = 0;
	int fd, err = 0;

	flight_meta_name(tmp, sizeof(tmp), ".tmp");
	flight_meta_name(meta, sizeof(meta), "");
	unlinkat(flight_dirfd, tmp, 0);	/* ours, left by a write that failed */
	fd = openat(flight_dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (off < b->bytes.len && !err) {
		ssize_t n = write(fd, b->bytes.data + off, b->bytes.len - off);

		if (n < 0 && errno != EINTR)
			err = -errno;
		else if (n > 0)
			off += (size_t)n;
	}
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && renameat(flight_dirfd, tmp, flight_dirfd, meta) < 0)
		err = -errno;
	if (err)
		unlinkat(flight_dirfd, tmp, 0);
	return err;
}

void trev__flight_update(void)
{
	const char *v = getenv("TREV_FLIGHT");
	struct meta_buf b = { TREV_BUF_INIT, 0, 0 };
	bool live;
	int err;

	if (!v || !*v || strcmp(v, "0") == 0)
		return;
	/* The region file is made with the top instance's buffer: now, if not yet. */
	if (!trev__top_instance())
		return;
	/* Rewrites in the order their trees were read: a later one is never overwritten. */
	pthread_mutex_lock(&flight_update_lock);
	pthread_mutex_lock(&flight_lock);
	live = flight_name && getpid() == flight_pid;
	pthread_mutex_unlock(&flight_lock);
	if (!live)
		goto out_unlock;	/* no file, or a child of fork(), whose buffer is its own */
	err = meta_build(&b);
	pthread_mutex_lock(&flight_lock);
	if (!err && flight_name)	/* not abandoned meanwhile */
		err = meta_write(&b);
	if (err)
		trev__log(TREV_LOG_WARN, "TREV_FLIGHT: cannot write %s.meta: %s\n",
			  flight_path ? flight_path : "?", strerror(-err));
	pthread_mutex_unlock(&flight_lock);
out_unlock:
	pthread_mutex_unlock(&flight_update_lock);
	trev__buf_free(&b.bytes);
}
