/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A tracefs tree served as a FUSE file system over a small backend interface
 * (src/tracefs/fuse_serve.c). Two users: trev_mount() serves the process's
 * own tree (src/frontend/fuse.c), `trev mount -p PID` serves another
 * process's tree over its control socket (tools/trev/cmd-mount.c, which is
 * compiled with this file and does not link the library).
 */
#ifndef TREV_TRACEFS_FUSE_SERVE_H
#define TREV_TRACEFS_FUSE_SERVE_H

/* 3.12: fuse_session_loop_mt() takes the fuse_loop_cfg_*() object (before, an older struct). */
#define FUSE_USE_VERSION 312

#include <signal.h>
#include <stdatomic.h>
#include <pthread.h>
#include <sys/queue.h>
#include <sys/types.h>
#include <time.h>

#include <fuse_lowlevel.h>

#include <trev/trev.h>	/* struct trev_stat, trev_readdir_fn: types only */

/*
 * The tree behind a mount. Every call returns 0 (or a count) or a negative
 * errno, as the tree API of <trev/trev.h> does, and is made from FUSE
 * worker or waiter threads, concurrently. @ctx is trev__fuse_start()'s.
 *
 * @open gets O_RDONLY/O_WRONLY/O_RDWR with O_TRUNC and O_APPEND; the file it
 * returns is never blocking: @read answers -EAGAIN rather than wait, and the
 * waiting is done in @poll, which sleeps at most @timeout_ms and returns
 * POLLIN bits, 0 on time-out, -EINTR when @wake (optional) woke it. A @poll
 * that cannot be woken should sleep in short slices: waiters look at their
 * flags (interrupted, closing, unmounting) between calls. Calls on one file
 * are serialised except @wake, which may come at any time.
 */
struct trev_fuse_backend {
	int (*stat)(void *ctx, const char *path, struct trev_stat *st);
	int (*readdir)(void *ctx, const char *path, trev_readdir_fn fn, void *arg);
	int (*mkdir)(void *ctx, const char *path);
	int (*rmdir)(void *ctx, const char *path);
	int (*open)(void *ctx, const char *path, int flags, void **file);
	ssize_t (*read)(void *file, void *buf, size_t size);
	ssize_t (*write)(void *file, const void *buf, size_t size);
	int (*poll)(void *file, int timeout_ms);
	void (*wake)(void *file);	/* optional */
	int (*close)(void *file);
	/* Optional: a line for a log ("session loop ended: ..."); @warn 1 or 0 (info). */
	void (*log)(void *ctx, int warn, const char *fmt, ...)
		__attribute__((format(printf, 3, 4)));
};

struct trev_fuse_file;
struct trev_fuse_dir;

/* A mount. Fields above @lock are set at trev__fuse_start() and then only read. */
struct trev_fuse_mnt {
	const struct trev_fuse_backend *be;	/* the tree */
	void *ctx;				/* its context */
	struct fuse_session *se;
	char *dir;			/* absolute mount point */
	int fuse_fd;			/* the session's /dev/fuse descriptor */
	struct timespec time;		/* mount time: every file's times */
	uid_t uid;			/* owner of every file */
	gid_t gid;

	pthread_mutex_t lock;		/* guards what follows */
	pthread_cond_t cond;		/* broadcast when waiters, flushed or loop_done change */
	int exiting;			/* unmount under way */
	int loop_done;			/* the loop thread has cleaned up */
	int abandoned;			/* trev__fuse_stop() gave up: the loop thread frees */
	unsigned int waiters;		/* waiter threads alive */
	unsigned int flushed;		/* open files closed by a process (FLUSH), not
					 * yet released: RELEASE comes after close() */
	LIST_HEAD(, trev_fuse_file) files;	/* open files */
	LIST_HEAD(, trev_fuse_dir) dirs;	/* open directories */

	pthread_mutex_t ino_lock;	/* guards the inode table */
	char **paths;			/* paths[ino - 1]; paths[0] is "" (root) */
	size_t nr_paths, cap_paths;
	fuse_ino_t *hash;		/* open addressing: ino, 0 = free slot */
	size_t hash_cap;		/* a power of two, at least twice nr_paths */
};

/*
 * trev__fuse_start() - mount @dir and serve it from a loop thread
 * @dir: an existing directory
 * @fsname: the mount's source name in /proc/mounts ("trev")
 *
 * Context: any thread. Return: 0 and *@out, or a negative errno (-EACCES
 * when /dev/fuse cannot be opened).
 */
int trev__fuse_start(const char *dir, const char *fsname, const struct trev_fuse_backend *be,
		     void *ctx, struct trev_fuse_mnt **out);

/*
 * trev__fuse_stop() - end blocked reads (EOF), refuse new requests, detach
 * the mount and wait up to @wait_ms for the loop thread. Return: 0 when the
 * mount is freed; -EBUSY when another process still holds a file open (the
 * loop thread frees the mount when it is closed).
 */
int trev__fuse_stop(struct trev_fuse_mnt *m, int wait_ms);

/* trev__fuse_detach() - detach the mount at @dir. Context: async-signal-safe. */
void trev__fuse_detach(const char *dir);

/*
 * Set (from a signal handler) when the process is about to die with its
 * mount detached and its device closed under the session: the loop then
 * leaves the session as it is, since tearing it down would unmount what is
 * gone and close a descriptor that may be another's by now.
 */
extern _Atomic int trev__fuse_dying;	/* lock-free: a handler may store it */

/* trev__fuse_free() - free a mount whose loop has ended (m->loop_done). */
void trev__fuse_free(struct trev_fuse_mnt *m);

#endif /* TREV_TRACEFS_FUSE_SERVE_H */
