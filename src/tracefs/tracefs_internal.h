/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tracefs object model: directories and files with open/show/read/
 * write/poll handlers, like the kernel's tracefs file_operations. The C
 * API, the FUSE mount and the control socket translate onto these; nothing
 * about a control file is written twice.
 *
 * The tree is mostly virtual: a path resolves to a struct tfs_loc (the
 * instance, the system and event, the CPU, the option it names) and the
 * static node that gives its handlers. Events and instances come and go, so
 * nothing holds a pointer to them across calls: an event file names its
 * event and looks it up again under the registry lock each time.
 *
 * Locking: tfs_lock (the kernel's event_mutex and trace_types_lock in one)
 * serialises resolution, open/close, every write and every show; a
 * blocking read (trace_pipe) and a streamed one (trace) run without it.
 */
#ifndef TREV_TRACEFS_INTERNAL_H
#define TREV_TRACEFS_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

#include <trev/trev.h>

#include "base/buf.h"
#include "events/events_internal.h"

#define TFS_NAME_MAX	TREV_NAME_MAX

/* Where a path points. */
struct tfs_loc {
	struct trev_trace_array *tr;	/* the instance */
	const struct tfs_node *node;	/* the file or directory */
	char system[TFS_NAME_MAX];	/* events/<system>/... */
	char event[TFS_NAME_MAX];	/* events/<system>/<event>/... */
	int cpu;			/* per_cpu/cpu<N>/..., else -1 */
	int option;			/* options/<name>, else -1 */
};

struct tfs_fops {
	/* Set up per-open state; O_TRUNC effects (clear the buffer) happen here. */
	int (*open)(struct trev_file *f);
	/* Build the whole text of the file (tfs_lock held). */
	int (*show)(struct trev_file *f, struct trev_buf *out);
	/*
	 * Or stream it, as a seq_file: append the next piece of the text to
	 * @out, at least @want bytes unless the text ends first, from the
	 * position ->open set up. Called without tfs_lock, one call per file
	 * at a time. Return: 1, 0 at the end (nothing appended), or -errno.
	 */
	int (*next)(struct trev_file *f, struct trev_buf *out, size_t want);
	/* Stream instead of show (pipes); called without tfs_lock. @flags:
	 * trev_file_read_flags()'s (TREV_READ_FULL), 0 for trev_file_read(). */
	ssize_t (*read)(struct trev_file *f, char *buf, size_t size, unsigned int flags);
	/* Parse one write (tfs_lock held). Return bytes taken or -errno. */
	ssize_t (*write)(struct trev_file *f, const char *buf, size_t size);
	/* Readiness, for files that can block; without tfs_lock. */
	int (*poll)(struct trev_file *f, int timeout_ms);
	/* Make a blocked read or poll return -EINTR. */
	void (*wake)(struct trev_file *f);
	void (*release)(struct trev_file *f);
};

struct tfs_dir;

/* A node: a file (fops) or a directory (dir). */
struct tfs_node {
	const char *name;		/* NULL ends a table */
	unsigned int mode;		/* permission bits */
	const struct tfs_fops *fops;
	const struct tfs_dir *dir;
	bool top_only;			/* only in the top instance (instances/) */
};

/* A directory: fixed entries, then entries that depend on the state. */
struct tfs_dir {
	const struct tfs_node *entries;
	/* List the variable entries; each gets st for trev_readdir. */
	int (*list)(const struct tfs_loc *loc, trev_readdir_fn fn, void *arg);
	/* Resolve variable entry @name below @loc: fill @loc (node, ...) or -ENOENT. */
	int (*lookup)(struct tfs_loc *loc, const char *name);
};

/* An open file (struct trev_file of the public API). */
struct trev_file {
	struct tfs_loc loc;
	const struct tfs_fops *fops;
	int flags;			/* open(2) flags */
	pthread_mutex_t lock;		/* one read or write at a time */
	struct trev_buf text;		/* what ->show built, or ->next's piece not yet read */
	size_t pos;			/* read position in text */
	bool shown;
	void *priv;			/* the handler's per-open state */
	atomic_bool woken;		/* trev_file_wake() was called */
	bool outside;			/* opened for a writer outside the process (FUSE, socket) */
};

static inline bool tfs_readable(const struct trev_file *f)
{
	return (f->flags & O_ACCMODE) != O_WRONLY;
}

static inline bool tfs_writable(const struct trev_file *f)
{
	return (f->flags & O_ACCMODE) != O_RDONLY;
}

/*
 * The C API's calls that take a path (<trev/trev.h>: trev_file_open(),
 * trev_path_stat(), trev_readdir(), trev_mkdir(), trev_rmdir(), trev_write(),
 * trev_append(), trev_read()) are frontend/api.c's: they start the library
 * up, then call these, which do the work and never start anything.
 */
int trev__tfs_open(const char *path, int flags, struct trev_file **out);
int trev__tfs_stat(const char *path, struct trev_stat *st);
int trev__tfs_readdir(const char *path, trev_readdir_fn fn, void *arg);
int trev__tfs_mkdir(const char *path);
int trev__tfs_rmdir(const char *path);
int trev__tfs_write(const char *path, const char *text);
int trev__tfs_append(const char *path, const char *text);
ssize_t trev__tfs_read(const char *path, char *buf, size_t size);

/*
 * trev__tfs_files_open() - how many tracefs files are open now, through any
 * frontend. For tests that close a file through a FUSE mount, whose RELEASE
 * the kernel sends after close() has returned. Context: any thread.
 */
unsigned int trev__tfs_files_open(void);

/* The directories; trev__instance_dir is the root of every instance. */
extern const struct tfs_dir trev__instance_dir;
extern const struct tfs_dir trev__events_dir;
extern const struct tfs_dir trev__options_dir;
extern const struct tfs_dir trev__per_cpu_dir;
extern const struct tfs_dir trev__instances_dir;

/*
 * trev__tfs_wait_data() - wait until @f's buffer (its CPU's view for a
 * per_cpu file) has data to consume. The buffer lock is held in slices of
 * 100 ms, so a snapshot swap waits for a blocked reader at most that long.
 * Return: 1, 0 on time-out, -EINTR when woken by trev_file_wake().
 */
int trev__tfs_wait_data(struct trev_file *f, int timeout_ms);
/* Wake every reader blocked on @f's buffer (the ->wake of the pipe files). */
void trev__tfs_wake_readers(struct trev_file *f);

/* Parse an unsigned number as kstrtoul does (one trailing newline allowed). */
int trev__parse_ulong(const char *buf, size_t size, unsigned long *val);
/* Copy @buf without the trailing whitespace into a NUL-terminated string. */
char *trev__strip(const char *buf, size_t size);

/* The trace_options names (also options/<name>). */
struct tfs_option {
	const char *name;
	unsigned long bit;		/* TREV_ITER_*, 0 for overwrite */
};
extern const struct tfs_option trev__options[];
extern const int trev__nr_options;
int trev__option_get(struct trev_trace_array *tr, int i);
int trev__option_set(struct trev_trace_array *tr, int i, bool on);

#endif /* TREV_TRACEFS_INTERNAL_H */
