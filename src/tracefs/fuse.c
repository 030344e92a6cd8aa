/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev_mount(): the tracefs tree as a FUSE file system (libfuse3, low-level
 * API), served from background threads of the process. A thin translation:
 * every request becomes one call of <trev/trev.h>'s tree API (trev_path_stat,
 * trev_readdir, trev_mkdir, trev_file_open/read/write/poll/wake/close);
 * nothing here knows what any file does.
 *
 * Threads. trev_mount() starts one loop thread with every signal blocked;
 * it runs fuse_session_loop_mt(), whose workers inherit that mask, so the
 * application's signal handlers only ever run in its own threads. No
 * request handler blocks a worker for long (RESEARCH.md §1, pitfall 2: a
 * reader blocked in a worker uses up the pool, and then not even the
 * INTERRUPT that would free it is served).
 *
 * Blocking reads. Every file is opened O_NONBLOCK in the tree, so a READ
 * handler only ever tries; when the tree says -EAGAIN and the reader did not
 * ask for O_NONBLOCK (the kernel sends the file's current flags with every
 * READ), the request goes to a waiter thread of its own that sleeps in
 * trev_file_poll() and tries again when the file is readable. A thread per
 * blocked request because the tree's only way to wait is a blocking call per
 * file: N blocked readers need N sleeping calls whatever we do, a pool would
 * only cache threads, and blocking is the slow path (a pipe with data is read
 * inline). Trying non-blocking reads only (rather than checking readiness and
 * then reading in blocking mode) also keeps two readers of one trace_pipe
 * racing for the same data from stranding the loser inside a worker.
 *
 *	READ ──► trev_file_read (non-blocking) ──► data/error ──► reply
 *	             │ -EAGAIN, reader not O_NONBLOCK
 *	             ▼
 *	 fuse_req_interrupt_func(rd_interrupt) ── already interrupted? ──► EINTR
 *	             │
 *	             ▼
 *	 waiter thread: loop { trev_file_poll(WAIT_MS); trev_file_read }
 *	   ends on data/error, on INTERRUPT (rd_interrupt sets ->interrupted and
 *	   calls trev_file_wake), on release of the file, on unmount (EOF)
 *	             │
 *	             ▼
 *	 fuse_req_interrupt_func(NULL) (waits out a running rd_interrupt), reply
 *
 * The interrupt callback is registered before the waiter exists and
 * unregistered before the reply: libfuse runs it under the request's lock,
 * which fuse_req_interrupt_func() also takes, so the waiter's state outlives
 * every call of it (registering later would let a reply free the request
 * first). The waiter polls with a time-out so that a wake-up that lands
 * between its flag check and its sleep costs at most WAIT_MS.
 *
 * Poll. POLL replies with trev_file_poll(file, 0); when nothing is ready and
 * the kernel passed a handle, one poll waiter per open file sleeps in
 * trev_file_poll() and then calls fuse_lowlevel_notify_poll() with the newest
 * handle (one notification clears all earlier ones).
 *
 * Release, unmount. Waiters are counted per file and per mount. RELEASE marks
 * the file closing, wakes its waiters until none is left, then closes it.
 * trev_unmount() marks the mount exiting (blocked reads end with EOF, new
 * requests get ENODEV), detaches the mount (umount2(MNT_DETACH) as root,
 * `fusermount3 -u -z` otherwise) so the kernel ends the connection and the
 * loop returns; the loop thread then waits out the waiters, closes what is
 * still open and destroys the session. If another process still holds a file
 * of the mount open, the lazily detached connection lives on until it closes
 * (RESEARCH.md pitfall 3): trev_unmount() stops waiting after UNMOUNT_WAIT_MS
 * and the loop thread cleans up by itself when that file is closed.
 *
 * Signals. No signal handler of the application is replaced: at mount, for
 * SIGTERM, SIGINT and SIGHUP whose action is still SIG_DFL, a handler is
 * installed that detaches the mount (async-signal-safe system calls only),
 * restores SIG_DFL and re-raises, so the process dies as it would have,
 * without leaving a stale mount. An application that installs its own
 * handler later takes the signal over; exit() unmounts (atexit). auto_unmount
 * is not used: libfuse would fork a fusermount3 child of the application
 * (even as root), whose exit an application reaping with waitpid(-1) or
 * ignoring SIGCHLD would interfere with. After SIGKILL the mount is stale:
 * `fusermount3 -u DIR` or `umount -l DIR` (docs/fuse.md).
 *
 * Inodes. ino 1 is the root; every other path seen by LOOKUP, READDIR or
 * MKDIR gets the next number, kept for the life of the mount, so a path always
 * has the same ino (FORGET is ignored). A path that has gone (rmdir of an
 * instance, dlclose of a library with events) still has its number, but
 * LOOKUP and GETATTR ask the tree and answer ENOENT.
 */
/* 3.12: fuse_session_loop_mt() takes the fuse_loop_cfg_*() object (before, an older struct). */
#define FUSE_USE_VERSION 312

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fuse_lowlevel.h>

#include "core/core_internal.h"

#define ATTR_TIMEOUT 1.0	/* seconds the kernel may cache attributes and entries */
#define WAIT_MS 250		/* longest sleep of a waiter between checks of its flags */
#define UNMOUNT_WAIT_MS 1000	/* how long trev_unmount() waits for the loop to end */
#define MAX_READ (1U << 20)	/* bytes one READ reply carries at most */
#define LOOP_MAX_THREADS 8	/* FUSE worker threads */

struct fmnt;

/* One open file of the mount (fi->fh). */
struct ffile {
	struct trev_file *file;		/* the tree's open file */
	struct fmnt *m;			/* the mount it belongs to */
	int accmode;			/* O_RDONLY, O_WRONLY or O_RDWR */
	pthread_mutex_t io_lock;	/* serialises the tree's read and write calls */
	/* Guarded by m->lock: */
	unsigned int waiters;		/* read and poll waiter threads using the file */
	int closing;			/* RELEASE under way: waiters end */
	int poll_waiter;		/* a poll waiter thread runs */
	struct fuse_pollhandle *ph;	/* newest handle to notify, or NULL */
	struct ffile *prev, *next;	/* m->files */
};

/* A READ handed to a waiter thread. */
struct fread_req {
	fuse_req_t req;			/* the request, answered by the waiter */
	struct ffile *f;		/* the file read */
	size_t size;			/* bytes asked for */
	int interrupted;		/* INTERRUPT came (guarded by m->lock) */
};

/* A directory listing, made at OPENDIR and read by offset (fi->fh). */
struct fdir {
	char **names;			/* entry names, "." and ".." first */
	struct stat *st;		/* their st_ino and st_mode */
	size_t nr, cap;
	const char *path;		/* the directory (for the entries' paths) */
	struct fmnt *m;
	struct fdir *prev, *next;	/* m->dirs (guarded by m->lock) */
};

/* The mount. */
struct fmnt {
	struct fuse_session *se;
	char *dir;			/* absolute mount point */
	struct timespec time;		/* mount time: every file's times */
	uid_t uid;			/* owner of every file */
	gid_t gid;

	pthread_mutex_t lock;		/* guards what follows */
	pthread_cond_t cond;		/* broadcast when waiters or loop_done change */
	int exiting;			/* unmount under way */
	int loop_done;			/* the loop thread has cleaned up */
	int abandoned;			/* trev_unmount() gave up waiting: the loop thread frees */
	unsigned int waiters;		/* waiter threads alive */
	struct ffile *files;		/* open files */
	struct fdir *dirs;		/* open directories */

	pthread_mutex_t ino_lock;	/* guards the inode table */
	char **paths;			/* paths[ino - 1]; paths[0] is "" (root) */
	size_t nr_paths, cap_paths;
	fuse_ino_t *hash;		/* open addressing: ino, 0 = free slot */
	size_t hash_cap;		/* a power of two, at least twice nr_paths */
};

static pthread_mutex_t mount_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fmnt *mounted;		/* guarded by mount_lock */

/* ---- inode table ---------------------------------------------------------------------------- */

static size_t path_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return (size_t)h;
}

static fuse_ino_t *ino_slot(struct fmnt *m, const char *path)
{
	size_t i = path_hash(path) & (m->hash_cap - 1);

	while (m->hash[i] && strcmp(m->paths[m->hash[i] - 1], path))
		i = (i + 1) & (m->hash_cap - 1);
	return &m->hash[i];
}

static int ino_grow(struct fmnt *m)
{
	size_t cap = m->hash_cap ? m->hash_cap * 2 : 64;
	fuse_ino_t *old = m->hash;
	size_t old_cap = m->hash_cap;

	m->hash = calloc(cap, sizeof(*m->hash));
	if (!m->hash) {
		m->hash = old;
		return -ENOMEM;
	}
	m->hash_cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i])
			*ino_slot(m, m->paths[old[i] - 1]) = old[i];
	free(old);
	return 0;
}

/* The inode number of @path, given one if it has none. Return 0 when out of memory. */
static fuse_ino_t ino_get(struct fmnt *m, const char *path)
{
	fuse_ino_t *slot, ino = 0;
	char *copy;

	pthread_mutex_lock(&m->ino_lock);
	if (!m->hash_cap && ino_grow(m))
		goto out_unlock;
	slot = ino_slot(m, path);
	if (*slot) {
		ino = *slot;
		goto out_unlock;
	}
	if (m->nr_paths == m->cap_paths) {
		size_t cap = m->cap_paths ? m->cap_paths * 2 : 64;
		char **p = realloc(m->paths, cap * sizeof(*p));

		if (!p)
			goto out_unlock;
		m->paths = p;
		m->cap_paths = cap;
	}
	if ((m->nr_paths + 1) * 2 > m->hash_cap) {
		if (ino_grow(m))
			goto out_unlock;
		slot = ino_slot(m, path);
	}
	copy = strdup(path);
	if (!copy)
		goto out_unlock;
	m->paths[m->nr_paths++] = copy;
	ino = *slot = m->nr_paths;
out_unlock:
	pthread_mutex_unlock(&m->ino_lock);
	return ino;
}

/* The path of @ino, malloc'd, or NULL (unknown number, out of memory). */
static char *ino_path(struct fmnt *m, fuse_ino_t ino)
{
	char *path = NULL;

	pthread_mutex_lock(&m->ino_lock);
	if (ino >= 1 && ino <= m->nr_paths)
		path = strdup(m->paths[ino - 1]);
	pthread_mutex_unlock(&m->ino_lock);
	return path;
}

/* "@dir/@name" as the tree spells it (the root is ""), malloc'd. */
static char *path_join(const char *dir, const char *name)
{
	char *path;

	if (!*dir)
		return strdup(name);
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return NULL;
	return path;
}

static void ino_free(struct fmnt *m)
{
	for (size_t i = 0; i < m->nr_paths; i++)
		free(m->paths[i]);
	free(m->paths);
	free(m->hash);
}

/* ---- attributes ----------------------------------------------------------------------------- */

static void fill_stat(struct fmnt *m, fuse_ino_t ino, const struct trev_stat *ts, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_mode = (ts->is_dir ? S_IFDIR : S_IFREG) | (ts->mode & 07777);
	st->st_nlink = ts->is_dir ? 2 : 1;
	st->st_uid = m->uid;
	st->st_gid = m->gid;
	st->st_size = 0;	/* as on tracefs: the size of generated text is not known */
	st->st_blksize = 4096;
	st->st_atim = st->st_mtim = st->st_ctim = m->time;
}

/* trev_path_stat(), and the root is a directory even if the tree does not list "" itself. */
static int tree_stat(const char *path, struct trev_stat *ts)
{
	int ret = trev_path_stat(path, ts);

	if (ret && !*path) {
		ts->is_dir = 1;
		ts->mode = 0755;
		ret = 0;
	}
	return ret;
}

static struct fmnt *req_mnt(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* Requests after trev_unmount() began are refused: the tree may be going away. */
static int mnt_exiting(struct fmnt *m)
{
	int exiting;

	pthread_mutex_lock(&m->lock);
	exiting = m->exiting;
	pthread_mutex_unlock(&m->lock);
	return exiting;
}

/*
 * The path of @ino, or NULL when the request is already answered: ENODEV
 * while unmounting, ENOENT for an inode we never gave out.
 */
static char *req_path(fuse_req_t req, struct fmnt *m, fuse_ino_t ino)
{
	char *path;

	if (mnt_exiting(m)) {
		fuse_reply_err(req, ENODEV);
		return NULL;
	}
	path = ino_path(m, ino);
	if (!path)
		fuse_reply_err(req, ENOENT);
	return path;
}

/* The path of @name in directory @parent, or NULL when the request is already answered. */
static char *req_child_path(fuse_req_t req, struct fmnt *m, fuse_ino_t parent, const char *name)
{
	char *dir, *path;

	if (mnt_exiting(m)) {
		fuse_reply_err(req, ENODEV);
		return NULL;
	}
	dir = ino_path(m, parent);
	path = dir ? path_join(dir, name) : NULL;
	if (!path)
		fuse_reply_err(req, dir ? ENOMEM : ENOENT);
	free(dir);
	return path;
}

/* Reply to LOOKUP or MKDIR with the entry of @path. */
static void reply_entry(fuse_req_t req, struct fmnt *m, const char *path)
{
	struct fuse_entry_param e;
	struct trev_stat ts;
	int ret = tree_stat(path, &ts);

	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = ino_get(m, path);
	if (!e.ino) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	fill_stat(m, e.ino, &ts, &e.attr);
	e.attr_timeout = ATTR_TIMEOUT;
	e.entry_timeout = ATTR_TIMEOUT;
	fuse_reply_entry(req, &e);
}

/* ---- directory operations ------------------------------------------------------------------- */

static void fs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fmnt *m = req_mnt(req);
	char *path = req_child_path(req, m, parent, name);

	if (path)
		reply_entry(req, m, path);
	free(path);
}

static void fs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fmnt *m = req_mnt(req);
	struct trev_stat ts;
	struct stat st;
	char *path;
	int ret;

	(void)fi;
	path = req_path(req, m, ino);
	if (!path)
		return;
	ret = tree_stat(path, &ts);
	free(path);
	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	fill_stat(m, ino, &ts, &st);
	fuse_reply_attr(req, &st, ATTR_TIMEOUT);
}

/*
 * Only truncation to 0 does something: the kernel sends it instead of
 * O_TRUNC when atomic O_TRUNC is off (and for truncate(1)). It is an open
 * with O_TRUNC, as on tracefs. Time changes are accepted and forgotten
 * (touch works); mode and owner cannot change.
 */
static void fs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		       struct fuse_file_info *fi)
{
	struct fmnt *m = req_mnt(req);
	struct trev_file *file;
	char *path;
	int ret;

	(void)attr;
	if (mnt_exiting(m)) {
		fuse_reply_err(req, ENODEV);
		return;
	}
	if (to_set & (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)) {
		fuse_reply_err(req, EPERM);
		return;
	}
	path = req_path(req, m, ino);
	if (!path)
		return;
	if (to_set & FUSE_SET_ATTR_SIZE) {
		if (attr->st_size != 0) {
			ret = -EINVAL;
			goto out_reply;
		}
		ret = trev_file_open(path, O_WRONLY | O_TRUNC | O_NONBLOCK, &file);
		if (ret)
			goto out_reply;
		ret = trev_file_close(file);
		if (ret)
			goto out_reply;
	}
	free(path);
	fs_getattr(req, ino, fi);
	return;
out_reply:
	free(path);
	fuse_reply_err(req, -ret);
}

static void fs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	struct fmnt *m = req_mnt(req);
	char *path;
	int ret;

	(void)mode;
	path = req_child_path(req, m, parent, name);
	if (!path)
		return;
	ret = trev_mkdir(path);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		reply_entry(req, m, path);
	free(path);
}

static void fs_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fmnt *m = req_mnt(req);
	char *path = req_child_path(req, m, parent, name);

	if (path)
		fuse_reply_err(req, -trev_rmdir(path));
	free(path);
}

/* New files cannot be made, nor names changed: the errors tracefs's missing inode operations give. */
static void fs_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		      struct fuse_file_info *fi)
{
	(void)parent, (void)name, (void)mode, (void)fi;
	fuse_reply_err(req, EACCES);
}

static void fs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
	(void)parent, (void)name, (void)mode, (void)rdev;
	fuse_reply_err(req, EACCES);
}

static void fs_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	(void)link, (void)parent, (void)name;
	fuse_reply_err(req, EPERM);
}

static void fs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	(void)parent, (void)name;
	fuse_reply_err(req, EPERM);
}

static void fs_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
		      const char *newname, unsigned int flags)
{
	(void)parent, (void)name, (void)newparent, (void)newname, (void)flags;
	fuse_reply_err(req, EPERM);
}

static void fs_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	(void)ino, (void)newparent, (void)newname;
	fuse_reply_err(req, EPERM);
}

static int dir_add(struct fdir *d, const char *name, const struct stat *st)
{
	if (d->nr == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 32;
		char **names = realloc(d->names, cap * sizeof(*names));
		struct stat *sts;

		if (!names)
			return -ENOMEM;
		d->names = names;
		sts = realloc(d->st, cap * sizeof(*sts));
		if (!sts)
			return -ENOMEM;
		d->st = sts;
		d->cap = cap;
	}
	d->names[d->nr] = strdup(name);
	if (!d->names[d->nr])
		return -ENOMEM;
	d->st[d->nr++] = *st;
	return 0;
}

static int dir_entry(const char *name, const struct trev_stat *ts, void *arg)
{
	struct fdir *d = arg;
	char *path = path_join(d->path, name);
	struct stat st;
	fuse_ino_t ino;

	if (!path)
		return -ENOMEM;
	ino = ino_get(d->m, path);
	free(path);
	if (!ino)
		return -ENOMEM;
	memset(&st, 0, sizeof(st));
	st.st_ino = ino;
	st.st_mode = (ts->is_dir ? S_IFDIR : S_IFREG) | (ts->mode & 07777);
	return dir_add(d, name, &st);
}

static void dir_free(struct fdir *d)
{
	for (size_t i = 0; i < d->nr; i++)
		free(d->names[i]);
	free(d->names);
	free(d->st);
	free(d);
}

/* Take @d off m->dirs and free it. Called with m->lock held. */
static void dir_release(struct fmnt *m, struct fdir *d)
{
	if (d->prev)
		d->prev->next = d->next;
	else
		m->dirs = d->next;
	if (d->next)
		d->next->prev = d->prev;
	dir_free(d);
}

/* The listing is taken once per OPENDIR, so offsets stay valid while it is read in pages. */
static void fs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fmnt *m = req_mnt(req);
	struct fdir *d;
	struct stat st;
	char *path;
	int ret;

	path = req_path(req, m, ino);
	if (!path)
		return;
	d = calloc(1, sizeof(*d));
	if (!d) {
		ret = -ENOMEM;
		goto out_free_path;
	}
	d->path = path;
	d->m = m;
	memset(&st, 0, sizeof(st));
	st.st_ino = ino;
	st.st_mode = S_IFDIR;
	ret = dir_add(d, ".", &st);
	if (!ret) {
		char *slash = strrchr(path, '/');

		if (slash) {
			*slash = 0;
			st.st_ino = ino_get(m, path);
			*slash = '/';
		} else if (*path) {
			st.st_ino = FUSE_ROOT_ID;
		}
		ret = dir_add(d, "..", &st);
	}
	if (!ret)
		ret = trev_readdir(path, dir_entry, d);
	if (ret)
		goto out_free_dir;
	d->path = NULL;
	free(path);
	/* Listed so that the loop's end frees it when no RELEASEDIR comes (unmount). */
	pthread_mutex_lock(&m->lock);
	d->next = m->dirs;
	if (m->dirs)
		m->dirs->prev = d;
	m->dirs = d;
	pthread_mutex_unlock(&m->lock);
	fi->fh = (uintptr_t)d;
	fi->cache_readdir = 0;
	if (fuse_reply_open(req, fi) == -ENOENT) {	/* the opener was interrupted */
		pthread_mutex_lock(&m->lock);
		dir_release(m, d);
		pthread_mutex_unlock(&m->lock);
	}
	return;
out_free_dir:
	dir_free(d);
out_free_path:
	free(path);
	fuse_reply_err(req, -ret);
}

static void fs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct fdir *d = (struct fdir *)(uintptr_t)fi->fh;
	size_t used = 0;
	char *buf;

	(void)ino;
	if (size > MAX_READ)
		size = MAX_READ;
	buf = malloc(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	/* Entry i is followed by offset i + 1: the kernel asks for the next page from there. */
	for (size_t i = off < 0 ? 0 : (size_t)off; i < d->nr; i++) {
		size_t len = fuse_add_direntry(req, buf + used, size - used, d->names[i], &d->st[i],
					       (off_t)(i + 1));

		if (len > size - used)
			break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static void fs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fmnt *m = req_mnt(req);

	(void)ino;
	pthread_mutex_lock(&m->lock);
	dir_release(m, (struct fdir *)(uintptr_t)fi->fh);
	pthread_mutex_unlock(&m->lock);
	fuse_reply_err(req, 0);
}

/* ---- files ---------------------------------------------------------------------------------- */

/* Take @f off m->files. Called with m->lock held. */
static void file_unlink(struct fmnt *m, struct ffile *f)
{
	if (f->prev)
		f->prev->next = f->next;
	else
		m->files = f->next;
	if (f->next)
		f->next->prev = f->prev;
}

/* Close an unlinked file without waiters. */
static void file_close(struct ffile *f)
{
	if (f->ph)
		fuse_pollhandle_destroy(f->ph);
	trev_file_close(f->file);
	pthread_mutex_destroy(&f->io_lock);
	free(f);
}

static void fs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fmnt *m = req_mnt(req);
	int flags = fi->flags & (O_ACCMODE | O_TRUNC | O_APPEND);
	struct ffile *f;
	char *path;
	int ret;

	path = req_path(req, m, ino);
	if (!path)
		return;
	f = calloc(1, sizeof(*f));
	if (!f) {
		ret = -ENOMEM;
		goto out_free_path;
	}
	/* Non-blocking always: blocking is done here, off the worker threads (see the top). */
	ret = trev_file_open(path, flags | O_NONBLOCK, &f->file);
	if (ret)
		goto out_free_file;
	free(path);
	f->m = m;
	f->accmode = flags & O_ACCMODE;
	pthread_mutex_init(&f->io_lock, NULL);
	pthread_mutex_lock(&m->lock);
	f->next = m->files;
	if (m->files)
		m->files->prev = f;
	m->files = f;
	pthread_mutex_unlock(&m->lock);

	fi->fh = (uintptr_t)f;
	fi->direct_io = 1;	/* no page cache: the text is made at each read, and st_size is 0 */
	fi->keep_cache = 0;
	fi->nonseekable = 1;	/* the tree reads in order, as a seq_file; READ offsets are ignored */
	if (fuse_reply_open(req, fi) == -ENOENT) {
		/* The opener was interrupted: no RELEASE will come. */
		pthread_mutex_lock(&m->lock);
		file_unlink(m, f);
		pthread_mutex_unlock(&m->lock);
		file_close(f);
	}
	return;
out_free_file:
	free(f);
out_free_path:
	free(path);
	fuse_reply_err(req, -ret);
}

static ssize_t file_try_read(struct ffile *f, void *buf, size_t size)
{
	ssize_t n;

	pthread_mutex_lock(&f->io_lock);
	n = trev_file_read(f->file, buf, size);
	pthread_mutex_unlock(&f->io_lock);
	return n;
}

/* A waiter thread is done with @f: after this neither @f nor the mount may be touched. */
static void waiter_done(struct ffile *f)
{
	struct fmnt *m = f->m;

	pthread_mutex_lock(&m->lock);
	f->waiters--;
	m->waiters--;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

/* Is the waiter's work over (interrupted, file closing, unmount)? */
static int waiter_stop(struct ffile *f, const struct fread_req *r)
{
	int stop;

	pthread_mutex_lock(&f->m->lock);
	stop = (r && r->interrupted) || f->closing || f->m->exiting;
	pthread_mutex_unlock(&f->m->lock);
	return stop;
}

/* INTERRUPT of a READ a waiter holds: runs under the request's lock (libfuse). */
static void rd_interrupt(fuse_req_t req, void *data)
{
	struct fread_req *r = data;

	(void)req;
	pthread_mutex_lock(&r->f->m->lock);
	r->interrupted = 1;
	pthread_mutex_unlock(&r->f->m->lock);
	trev_file_wake(r->f->file);
}

static void *read_waiter(void *arg)
{
	struct fread_req *r = arg;
	struct ffile *f = r->f;
	ssize_t n = -EAGAIN;
	char *buf = malloc(r->size);

	if (!buf)
		n = -ENOMEM;
	while (buf && !waiter_stop(f, r)) {
		int ret = trev_file_poll(f->file, WAIT_MS);

		if (ret == 0 || ret == -EINTR)
			continue;	/* time-out or wake-up: check the flags */
		if (ret > 0)
			n = file_try_read(f, buf, r->size);
		else
			n = ret;
		if (n != -EAGAIN)
			break;		/* another reader may have taken the data: wait again */
	}
	fuse_req_interrupt_func(r->req, NULL, NULL);
	if (n >= 0)
		fuse_reply_buf(r->req, buf, (size_t)n);
	else if (n != -EAGAIN)
		fuse_reply_err(r->req, (int)-n);
	else if (r->interrupted)
		fuse_reply_err(r->req, EINTR);
	else
		fuse_reply_buf(r->req, NULL, 0);	/* closing or unmounting: end of file */
	free(buf);
	free(r);
	waiter_done(f);
	return NULL;
}

/* Start a detached thread with every signal blocked (workers have them blocked already). */
static int start_thread(void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	pthread_t thread;
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = pthread_create(&thread, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -ret;
}

static void read_defer(fuse_req_t req, struct ffile *f, size_t size)
{
	struct fmnt *m = f->m;
	struct fread_req *r = calloc(1, sizeof(*r));
	int ret;

	if (!r) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	r->req = req;
	r->f = f;
	r->size = size;
	/* Before the waiter can reply; runs rd_interrupt at once if INTERRUPT came already. */
	fuse_req_interrupt_func(req, rd_interrupt, r);
	/* rd_interrupt takes m->lock under the request's lock: ask libfuse first. */
	ret = fuse_req_interrupted(req) ? -EINTR : 0;
	pthread_mutex_lock(&m->lock);
	if (ret || r->interrupted) {
		ret = -EINTR;
		goto out_unlock;
	}
	f->waiters++;
	m->waiters++;
	ret = start_thread(read_waiter, r);
	if (ret) {
		f->waiters--;
		m->waiters--;
		goto out_unlock;
	}
	pthread_mutex_unlock(&m->lock);
	return;
out_unlock:
	pthread_mutex_unlock(&m->lock);
	fuse_req_interrupt_func(req, NULL, NULL);
	fuse_reply_err(req, -ret);
	free(r);
}

static void fs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct ffile *f = (struct ffile *)(uintptr_t)fi->fh;
	ssize_t n;
	char *buf;

	(void)ino;
	(void)off;	/* the tree reads sequentially; the kernel still advances off */
	if (mnt_exiting(f->m)) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	if (size > MAX_READ)
		size = MAX_READ;
	buf = malloc(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	n = file_try_read(f, buf, size);
	if (n >= 0)
		fuse_reply_buf(req, buf, (size_t)n);
	else if (n == -EAGAIN && !(fi->flags & O_NONBLOCK))
		read_defer(req, f, size);
	else
		fuse_reply_err(req, (int)-n);
	free(buf);
}

static void fs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct ffile *f = (struct ffile *)(uintptr_t)fi->fh;
	ssize_t n;

	(void)ino;
	(void)off;	/* each write is parsed on its own, as the kernel's handlers do */
	if (mnt_exiting(f->m)) {
		fuse_reply_err(req, ENODEV);
		return;
	}
	pthread_mutex_lock(&f->io_lock);
	n = trev_file_write(f->file, buf, size);
	pthread_mutex_unlock(&f->io_lock);
	if (n >= 0)
		fuse_reply_write(req, (size_t)n);
	else
		fuse_reply_err(req, (int)-n);
}

static void *poll_waiter(void *arg)
{
	struct ffile *f = arg;
	struct fuse_pollhandle *ph;

	while (!waiter_stop(f, NULL)) {
		int ret = trev_file_poll(f->file, WAIT_MS);

		if (ret > 0 || (ret < 0 && ret != -EINTR))
			break;
	}
	pthread_mutex_lock(&f->m->lock);
	ph = f->ph;
	f->ph = NULL;
	f->poll_waiter = 0;
	pthread_mutex_unlock(&f->m->lock);
	/* Also on close or unmount: the poller looks again and finds out. */
	if (ph) {
		fuse_lowlevel_notify_poll(ph);
		fuse_pollhandle_destroy(ph);
	}
	waiter_done(f);
	return NULL;
}

static void fs_poll(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		    struct fuse_pollhandle *ph)
{
	struct ffile *f = (struct ffile *)(uintptr_t)fi->fh;
	struct fmnt *m = f->m;
	unsigned int revents = 0;
	int ret;

	(void)ino;
	/* Writable whenever open for writing, as a file without ->poll is on tracefs. */
	if (f->accmode != O_RDONLY)
		revents |= POLLOUT | POLLWRNORM;
	ret = mnt_exiting(m) ? POLLIN | POLLRDNORM : trev_file_poll(f->file, 0);
	if (ret < 0) {
		if (ph)
			fuse_pollhandle_destroy(ph);
		fuse_reply_err(req, -ret);
		return;
	}
	revents |= (unsigned int)ret;
	if (ret > 0 || !ph) {
		if (ph)
			fuse_pollhandle_destroy(ph);
		fuse_reply_poll(req, revents);
		return;
	}
	pthread_mutex_lock(&m->lock);
	if (f->ph)
		fuse_pollhandle_destroy(f->ph);
	f->ph = ph;
	if (!f->poll_waiter) {
		f->waiters++;
		m->waiters++;
		f->poll_waiter = 1;
		if (start_thread(poll_waiter, f)) {
			f->waiters--;
			m->waiters--;
			f->poll_waiter = 0;
			f->ph = NULL;
			fuse_pollhandle_destroy(ph);
			revents |= POLLIN | POLLRDNORM;	/* cannot notify later: make them read */
		}
	}
	pthread_mutex_unlock(&m->lock);
	fuse_reply_poll(req, revents);
}

/* Wake @f's waiters until none is left. Called with m->lock held. */
static void file_drain(struct fmnt *m, struct ffile *f)
{
	while (f->waiters) {
		struct timespec ts;

		trev_file_wake(f->file);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50 * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&m->cond, &m->lock, &ts);
	}
}

static void fs_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ffile *f = (struct ffile *)(uintptr_t)fi->fh;
	struct fmnt *m = f->m;

	(void)ino;
	pthread_mutex_lock(&m->lock);
	f->closing = 1;
	file_drain(m, f);
	file_unlink(m, f);
	pthread_mutex_unlock(&m->lock);
	file_close(f);
	fuse_reply_err(req, 0);
}

static void fs_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	/* Text is made per read: no splicing, no write-back caching. */
	conn->want &= ~(FUSE_CAP_SPLICE_READ | FUSE_CAP_SPLICE_WRITE | FUSE_CAP_SPLICE_MOVE |
			FUSE_CAP_WRITEBACK_CACHE);
}

static const struct fuse_lowlevel_ops fs_ops = {
	.init = fs_init,
	.lookup = fs_lookup,
	.getattr = fs_getattr,
	.setattr = fs_setattr,
	.mknod = fs_mknod,
	.mkdir = fs_mkdir,
	.unlink = fs_unlink,
	.rmdir = fs_rmdir,
	.symlink = fs_symlink,
	.rename = fs_rename,
	.link = fs_link,
	.open = fs_open,
	.read = fs_read,
	.write = fs_write,
	.release = fs_release,
	.opendir = fs_opendir,
	.readdir = fs_readdir,
	.releasedir = fs_releasedir,
	.create = fs_create,
	.poll = fs_poll,
};

/* ---- mount, unmount, signals ---------------------------------------------------------------- */

/* Set at mount for the signal handler, which may only read them. */
static char sig_dir[PATH_MAX];
static char fusermount_path[64];
static volatile sig_atomic_t sig_armed;
static volatile sig_atomic_t sig_fuse_fd = -1;	/* the session's /dev/fuse descriptor */
static const int term_signals[] = { SIGTERM, SIGINT, SIGHUP };
static int sig_installed[3];		/* guarded by mount_lock */

/*
 * Detach the mount at @dir from the name space, so that the kernel ends the
 * connection once nothing uses it. Async-signal-safe: the signal handler
 * calls it. Root unmounts itself; others need the setuid fusermount3.
 */
static void mnt_detach(const char *dir)
{
	char *const argv[] = { "fusermount3", "-u", "-q", "-z", "--", (char *)dir, NULL };
	pid_t pid;
	int status;

	if (umount2(dir, MNT_DETACH) == 0 || errno != EPERM || !fusermount_path[0])
		return;
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
	pid = _Fork();
#else
	pid = fork();
#endif
	if (pid == 0) {
		execv(fusermount_path, argv);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
}

static void on_term_signal(int sig)
{
	struct sigaction dfl;
	int saved_errno = errno;

	if (sig_armed) {
		sig_armed = 0;
		mnt_detach(sig_dir);
		/*
		 * A thread of this process blocked reading its own mount would
		 * otherwise keep the process from ever ending: its request waits
		 * for an answer only the dying process could give, and the device
		 * closes only when that thread is gone. Without our descriptor the
		 * device is released when the killed workers leave their read(),
		 * which ends the connection and fails the waiting request. The
		 * workers are in read() on it and the process dies next: a raw
		 * close(2), which ThreadSanitizer does not take for a race.
		 */
		if (sig_fuse_fd >= 0)
			syscall(SYS_close, sig_fuse_fd);
	}
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	raise(sig);	/* blocked in here: delivered with SIG_DFL when the handler returns */
	errno = saved_errno;
}

/* Called with mount_lock held. */
static void signals_arm(const char *dir, int fuse_fd)
{
	static const char *const fusermounts[] = { "/usr/bin/fusermount3", "/bin/fusermount3",
						    "/usr/local/bin/fusermount3" };

	fusermount_path[0] = 0;
	for (size_t i = 0; i < sizeof(fusermounts) / sizeof(fusermounts[0]); i++)
		if (access(fusermounts[i], X_OK) == 0) {
			strcpy(fusermount_path, fusermounts[i]);
			break;
		}
	strcpy(sig_dir, dir);	/* dir is shorter than PATH_MAX: realpath() made it */
	sig_fuse_fd = fuse_fd;
	sig_armed = 1;
	for (size_t i = 0; i < sizeof(term_signals) / sizeof(term_signals[0]); i++) {
		struct sigaction old, act;

		if (sigaction(term_signals[i], NULL, &old) || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue;	/* the application's choice stays */
		memset(&act, 0, sizeof(act));
		act.sa_handler = on_term_signal;
		sigemptyset(&act.sa_mask);
		act.sa_flags = SA_RESTART;
		sig_installed[i] = sigaction(term_signals[i], &act, NULL) == 0;
	}
}

/* Called with mount_lock held: put SIG_DFL back where our handler still is. */
static void signals_disarm(void)
{
	sig_armed = 0;
	sig_fuse_fd = -1;
	for (size_t i = 0; i < sizeof(term_signals) / sizeof(term_signals[0]); i++) {
		struct sigaction old, dfl;

		if (!sig_installed[i])
			continue;
		sig_installed[i] = 0;
		if (sigaction(term_signals[i], NULL, &old) || old.sa_handler != on_term_signal)
			continue;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(term_signals[i], &dfl, NULL);
	}
}

static void mnt_free(struct fmnt *m)
{
	ino_free(m);
	pthread_cond_destroy(&m->cond);
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->ino_lock);
	free(m->dir);
	free(m);
}

static void *loop_thread(void *arg)
{
	struct fmnt *m = arg;
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();
	int ret, abandoned;

	if (cfg) {
		fuse_loop_cfg_set_max_threads(cfg, LOOP_MAX_THREADS);
		/* One device descriptor, which the signal handler can close (libfuse
		 * 3.14's default gives each worker a clone of its own). */
		fuse_loop_cfg_set_clone_fd(cfg, 0);
		ret = fuse_session_loop_mt(m->se, cfg);
		fuse_loop_cfg_destroy(cfg);
	} else {
		ret = fuse_session_loop(m->se);
	}
	if (ret < 0)
		trev__log(TREV_LOG_WARN, "fuse: %s: session loop ended: %s\n", m->dir,
			  strerror(-ret));

	/* No request comes any more: end the waiters, close what is still open. */
	pthread_mutex_lock(&m->lock);
	m->exiting = 1;
	for (struct ffile *f = m->files; f; f = f->next)
		f->closing = 1;
	while (m->files) {
		struct ffile *f = m->files;

		file_drain(m, f);
		file_unlink(m, f);
		pthread_mutex_unlock(&m->lock);
		file_close(f);
		pthread_mutex_lock(&m->lock);
	}
	while (m->dirs)
		dir_release(m, m->dirs);
	pthread_mutex_unlock(&m->lock);
	/* The connection is gone: this only closes the device (or unmounts after an error). */
	fuse_session_unmount(m->se);
	fuse_session_destroy(m->se);
	m->se = NULL;

	pthread_mutex_lock(&m->lock);
	m->loop_done = 1;
	abandoned = m->abandoned;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
	if (abandoned) {
		trev__log(TREV_LOG_INFO, "fuse: %s: connection closed\n", m->dir);
		mnt_free(m);
	}
	return NULL;
}

static void unmount_at_exit(void)
{
	trev_unmount();
}

int trev_mount(const char *dir)
{
	static int atexit_done;
	char *args_v[] = { "trev", "-o", "fsname=trev,subtype=trev,default_permissions", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, args_v);
	struct fmnt *m;
	int ret;

	trev__library_init();
	if (!dir)
		return -EINVAL;
	pthread_mutex_lock(&mount_lock);
	if (mounted) {
		if (!mounted->loop_done) {
			ret = -EBUSY;
			goto out_unlock;
		}
		mnt_free(mounted);	/* unmounted from outside (umount, fusermount3 -u) */
		mounted = NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->ino_lock, NULL);
	pthread_cond_init(&m->cond, NULL);
	m->dir = realpath(dir, NULL);
	if (!m->dir) {
		ret = -errno;
		goto out_free_mnt;
	}
	if (!ino_get(m, "")) {	/* the root: ino 1, FUSE_ROOT_ID */
		ret = -ENOMEM;
		goto out_free_mnt;
	}
	clock_gettime(CLOCK_REALTIME, &m->time);
	m->uid = geteuid();
	m->gid = getegid();

	m->se = fuse_session_new(&args, &fs_ops, sizeof(fs_ops), m);
	fuse_opt_free_args(&args);
	if (!m->se) {
		ret = -ENOMEM;
		goto out_free_mnt;
	}
	errno = 0;
	if (fuse_session_mount(m->se, m->dir)) {
		ret = errno ? -errno : -EIO;
		if (access("/dev/fuse", R_OK | W_OK))
			ret = -errno;
		trev__log(TREV_LOG_ERR, "fuse: cannot mount at %s: %s\n", m->dir, strerror(-ret));
		goto out_destroy_session;
	}
	ret = start_thread(loop_thread, m);
	if (ret) {
		trev__log(TREV_LOG_ERR, "fuse: cannot start the loop thread: %s\n", strerror(-ret));
		fuse_session_unmount(m->se);
		goto out_destroy_session;
	}
	mounted = m;
	signals_arm(m->dir, fuse_session_fd(m->se));
	if (!atexit_done)
		atexit_done = atexit(unmount_at_exit) == 0;
	trev__log(TREV_LOG_INFO, "fuse: tracefs tree mounted at %s\n", m->dir);
	pthread_mutex_unlock(&mount_lock);
	return 0;

out_destroy_session:
	fuse_session_destroy(m->se);
out_free_mnt:
	mnt_free(m);
out_unlock:
	pthread_mutex_unlock(&mount_lock);
	return ret;
}

int trev_unmount(void)
{
	struct fmnt *m;
	struct timespec deadline;
	int ret = 0;

	pthread_mutex_lock(&mount_lock);
	m = mounted;
	if (!m) {
		pthread_mutex_unlock(&mount_lock);
		return -ENOENT;
	}
	mounted = NULL;
	signals_disarm();

	/* Blocked reads end with EOF, new requests are refused. */
	pthread_mutex_lock(&m->lock);
	m->exiting = 1;
	for (struct ffile *f = m->files; f; f = f->next)
		trev_file_wake(f->file);
	if (!m->loop_done) {
		pthread_mutex_unlock(&m->lock);
		mnt_detach(m->dir);
		pthread_mutex_lock(&m->lock);
	}
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += UNMOUNT_WAIT_MS / 1000;
	deadline.tv_nsec += (UNMOUNT_WAIT_MS % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	while (!m->loop_done)
		if (pthread_cond_timedwait(&m->cond, &m->lock, &deadline) == ETIMEDOUT)
			break;
	if (!m->loop_done) {
		/* Another process holds a file open (RESEARCH.md pitfall 3): the loop
		 * thread frees the mount when the connection finally closes. */
		m->abandoned = 1;
		trev__log(TREV_LOG_WARN,
			  "fuse: %s: unmounted, but a file is still open; served until closed\n",
			  m->dir);
		ret = -EBUSY;
	}
	pthread_mutex_unlock(&m->lock);
	if (!ret)
		mnt_free(m);
	pthread_mutex_unlock(&mount_lock);
	return ret;
}
