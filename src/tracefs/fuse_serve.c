/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A tracefs tree as a FUSE file system (libfuse3, low-level API), served from
 * background threads over the small backend interface of fuse_serve.h: the
 * process's own tree for trev_mount() (fuse.c), another process's tree over
 * its control socket for `trev mount` (tools/trev/cmd-mount.c). A thin
 * translation: every request becomes one backend call (stat, readdir, mkdir,
 * rmdir, open/read/write/poll/wake/close); nothing here knows what any file
 * does.
 *
 * Threads. trev__fuse_start() starts one loop thread with every signal
 * blocked; it runs fuse_session_loop_mt(), whose workers inherit that mask,
 * so the application's signal handlers only ever run in its own threads. No
 * request handler blocks a worker for long (docs/fuse.md, "Measured facts",
 * 2: a reader blocked in a worker uses up the pool, and then not even the
 * INTERRUPT that would free it is served).
 *
 * Blocking reads. The backend's files never block, so a READ handler only
 * ever tries; when the backend says -EAGAIN and the reader did not ask for
 * O_NONBLOCK (the kernel sends the file's current flags with every READ),
 * the request goes to a waiter thread of its own that sleeps in the
 * backend's poll and tries again when the file is readable. A thread per
 * blocked request because the backend's only way to wait is a blocking call
 * per file: N blocked readers need N sleeping calls whatever we do, a pool
 * would only cache threads, and blocking is the slow path (a pipe with data
 * is read inline). Trying non-blocking reads only (rather than checking
 * readiness and then reading in blocking mode) also keeps two readers of one
 * trace_pipe racing for the same data from stranding the loser inside a
 * worker.
 *
 *	READ ──► be->read (non-blocking) ──► data/error ──► reply
 *	             │ -EAGAIN, reader not O_NONBLOCK
 *	             ▼
 *	 fuse_req_interrupt_func(rd_interrupt) ── already interrupted? ──► EINTR
 *	             │
 *	             ▼
 *	 waiter thread: loop { be->poll(WAIT_MS); be->read }
 *	   ends on data/error, on INTERRUPT (rd_interrupt sets ->interrupted and
 *	   calls be->wake), on release of the file, on unmount (EOF)
 *	             │
 *	             ▼
 *	 fuse_req_interrupt_func(NULL) (waits out a running rd_interrupt), reply
 *
 * The interrupt callback is registered before the waiter exists and
 * unregistered before the reply: libfuse runs it under the request's lock,
 * which fuse_req_interrupt_func() also takes, so the waiter's state outlives
 * every call of it (registering later would let a reply free the request
 * first). The waiter polls with a time-out so that a wake-up that lands
 * between its flag check and its sleep (or a backend without wake) costs at
 * most WAIT_MS.
 *
 * Poll. POLL replies with be->poll(file, 0); when nothing is ready and the
 * kernel passed a handle, one poll waiter per open file sleeps in be->poll
 * and then calls fuse_lowlevel_notify_poll() with the newest handle (one
 * notification clears all earlier ones).
 *
 * Release, unmount. Waiters are counted per file and per mount. RELEASE marks
 * the file closing, wakes its waiters until none is left, then closes it.
 * trev__fuse_stop() marks the mount exiting (blocked reads end with EOF, new
 * requests get ENODEV), detaches the mount (umount2(MNT_DETACH) as root,
 * `fusermount3 -u -z` otherwise) so the kernel ends the connection and the
 * loop returns; the loop thread then waits out the waiters, closes what is
 * still open and destroys the session. If another process still holds a file
 * of the mount open, the lazily detached connection lives on until it closes
 * (docs/fuse.md, "Measured facts", 4): trev__fuse_stop() stops waiting after
 * its time-out and the loop thread cleans up by itself when that file is
 * closed.
 *
 * Inodes. ino 1 is the root; every other path seen by LOOKUP, READDIR or
 * MKDIR gets the next number, kept for the life of the mount, so a path always
 * has the same ino (FORGET is ignored). A path that has gone (rmdir of an
 * instance, dlclose of a library with events) still has its number, but
 * LOOKUP and GETATTR ask the tree and answer ENOENT.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tracefs/fuse_serve.h"

#define ATTR_TIMEOUT 1.0	/* seconds the kernel may cache attributes and entries */
#define WAIT_MS 250		/* longest sleep of a waiter between checks of its flags */
#define MAX_READ (1U << 20)	/* bytes one READ reply carries at most */
#define LOOP_MAX_THREADS 8	/* FUSE worker threads */

/* One open file of the mount (fi->fh). */
struct trev_fuse_file {
	void *file;			/* the backend's open file */
	struct trev_fuse_mnt *m;	/* the mount it belongs to */
	int accmode;			/* O_RDONLY, O_WRONLY or O_RDWR */
	pthread_mutex_t io_lock;	/* serialises the tree's read and write calls */
	/* Guarded by m->lock: */
	unsigned int waiters;		/* read and poll waiter threads using the file */
	int closing;			/* RELEASE under way: waiters end */
	int flushed;			/* a FLUSH came: counted in m->flushed */
	int poll_waiter;		/* a poll waiter thread runs */
	struct fuse_pollhandle *ph;	/* newest handle to notify, or NULL */
	LIST_ENTRY(trev_fuse_file) link; /* m->files */
};

/* A READ handed to a waiter thread. */
struct fread_req {
	fuse_req_t req;			/* the request, answered by the waiter */
	struct trev_fuse_file *f;		/* the file read */
	size_t size;			/* bytes asked for */
	int interrupted;		/* INTERRUPT came (guarded by m->lock) */
};

/* A directory listing, made at OPENDIR and read by offset (fi->fh). */
struct trev_fuse_dir {
	char **names;			/* entry names, "." and ".." first */
	struct stat *st;		/* their st_ino and st_mode */
	size_t nr, cap;
	const char *path;		/* the directory (for the entries' paths) */
	struct trev_fuse_mnt *m;
	LIST_ENTRY(trev_fuse_dir) link;	/* m->dirs (guarded by m->lock) */
};


/* ---- inode table ---------------------------------------------------------------------------- */

static size_t path_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return (size_t)h;
}

static fuse_ino_t *ino_slot(struct trev_fuse_mnt *m, const char *path)
{
	size_t i = path_hash(path) & (m->hash_cap - 1);

	while (m->hash[i] && strcmp(m->paths[m->hash[i] - 1], path))
		i = (i + 1) & (m->hash_cap - 1);
	return &m->hash[i];
}

static int ino_grow(struct trev_fuse_mnt *m)
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
static fuse_ino_t ino_get(struct trev_fuse_mnt *m, const char *path)
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
static char *ino_path(struct trev_fuse_mnt *m, fuse_ino_t ino)
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

static void ino_free(struct trev_fuse_mnt *m)
{
	for (size_t i = 0; i < m->nr_paths; i++)
		free(m->paths[i]);
	free(m->paths);
	free(m->hash);
}

/* ---- attributes ----------------------------------------------------------------------------- */

static void fill_stat(struct trev_fuse_mnt *m, fuse_ino_t ino, const struct trev_stat *ts,
		      struct stat *st)
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

/* The backend's stat, and the root is a directory even if the tree does not list "" itself. */
static int tree_stat(struct trev_fuse_mnt *m, const char *path, struct trev_stat *ts)
{
	int ret = m->be->stat(m->ctx, path, ts);

	if (ret && !*path) {
		ts->is_dir = 1;
		ts->mode = 0755;
		ret = 0;
	}
	return ret;
}

static struct trev_fuse_mnt *req_mnt(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* Requests after trev_unmount() began are refused: the tree may be going away. */
static int mnt_exiting(struct trev_fuse_mnt *m)
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
static char *req_path(fuse_req_t req, struct trev_fuse_mnt *m, fuse_ino_t ino)
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
static char *req_child_path(fuse_req_t req, struct trev_fuse_mnt *m, fuse_ino_t parent,
			    const char *name)
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

/*
 * Seconds the kernel may keep @path's entry and attributes. A dynamic
 * event's directory (a synthetic event, a probe in a group of any name:
 * docs/probes.md) goes when a line written to synthetic_events,
 * dynamic_events, uprobe_events or kprobe_events removes it, not by an
 * operation on the mount that the kernel would see: the entries under
 * events/ are never cached, so `test -d` right after the removal says
 * what tracefs says.
 */
static double path_timeout(const char *path)
{
	return strncmp(path, "events/", 7) == 0 || strstr(path, "/events/") ? 0.0 : ATTR_TIMEOUT;
}

/* Reply to LOOKUP or MKDIR with the entry of @path. */
static void reply_entry(fuse_req_t req, struct trev_fuse_mnt *m, const char *path)
{
	struct fuse_entry_param e;
	struct trev_stat ts;
	int ret = tree_stat(m, path, &ts);

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
	e.attr_timeout = path_timeout(path);
	e.entry_timeout = path_timeout(path);
	fuse_reply_entry(req, &e);
}

/* ---- directory operations ------------------------------------------------------------------- */

static void fs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct trev_fuse_mnt *m = req_mnt(req);
	char *path = req_child_path(req, m, parent, name);

	if (path)
		reply_entry(req, m, path);
	free(path);
}

static void fs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct trev_fuse_mnt *m = req_mnt(req);
	struct trev_stat ts;
	struct stat st;
	double timeout;
	char *path;
	int ret;

	(void)fi;
	path = req_path(req, m, ino);
	if (!path)
		return;
	ret = tree_stat(m, path, &ts);
	timeout = path_timeout(path);
	free(path);
	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	fill_stat(m, ino, &ts, &st);
	fuse_reply_attr(req, &st, timeout);
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
	struct trev_fuse_mnt *m = req_mnt(req);
	void *file;
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
		ret = m->be->open(m->ctx, path, O_WRONLY | O_TRUNC, &file);
		if (ret)
			goto out_reply;
		ret = m->be->close(file);
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
	struct trev_fuse_mnt *m = req_mnt(req);
	char *path;
	int ret;

	(void)mode;
	path = req_child_path(req, m, parent, name);
	if (!path)
		return;
	ret = m->be->mkdir(m->ctx, path);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		reply_entry(req, m, path);
	free(path);
}

/*
 * Wait until every file a process has closed (FLUSH) is released, for at
 * most RMDIR_RELEASE_WAIT_MS. Return: true when none is left.
 */
#define RMDIR_RELEASE_WAIT_MS	1000
static bool flushed_wait(struct trev_fuse_mnt *m)
{
	struct timespec until;
	bool none;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += RMDIR_RELEASE_WAIT_MS / 1000;
	pthread_mutex_lock(&m->lock);
	while (m->flushed && !m->exiting)
		if (pthread_cond_timedwait(&m->cond, &m->lock, &until) == ETIMEDOUT)
			break;
	none = m->flushed == 0;
	pthread_mutex_unlock(&m->lock);
	return none;
}

/*
 * rmdir of an instance is refused while one of its files is open. The
 * kernel sends a file's RELEASE after close() has returned, so `cat
 * instances/foo/trace; rmdir instances/foo` may find the file still open:
 * when the tree says busy and files closed by their process are still to
 * be released, rmdir waits for their RELEASE and asks again.
 */
static void fs_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct trev_fuse_mnt *m = req_mnt(req);
	char *path = req_child_path(req, m, parent, name);
	int ret;

	if (!path)
		return;
	ret = m->be->rmdir(m->ctx, path);
	if (ret == -EBUSY && flushed_wait(m))
		ret = m->be->rmdir(m->ctx, path);
	fuse_reply_err(req, -ret);
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

static int dir_add(struct trev_fuse_dir *d, const char *name, const struct stat *st)
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
	struct trev_fuse_dir *d = arg;
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

static void dir_free(struct trev_fuse_dir *d)
{
	for (size_t i = 0; i < d->nr; i++)
		free(d->names[i]);
	free(d->names);
	free(d->st);
	free(d);
}

/* Take @d off m->dirs and free it. Called with m->lock held. */
static void dir_release(struct trev_fuse_dir *d)
{
	LIST_REMOVE(d, link);
	dir_free(d);
}

/* The listing is taken once per OPENDIR, so offsets stay valid while it is read in pages. */
static void fs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct trev_fuse_mnt *m = req_mnt(req);
	struct trev_fuse_dir *d;
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
		ret = m->be->readdir(m->ctx, path, dir_entry, d);
	if (ret)
		goto out_free_dir;
	d->path = NULL;
	free(path);
	/* Listed so that the loop's end frees it when no RELEASEDIR comes (unmount). */
	pthread_mutex_lock(&m->lock);
	LIST_INSERT_HEAD(&m->dirs, d, link);
	pthread_mutex_unlock(&m->lock);
	fi->fh = (uintptr_t)d;
	fi->cache_readdir = 0;
	if (fuse_reply_open(req, fi) == -ENOENT) {	/* the opener was interrupted */
		pthread_mutex_lock(&m->lock);
		dir_release(d);
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
	struct trev_fuse_dir *d = (struct trev_fuse_dir *)(uintptr_t)fi->fh;
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
	struct trev_fuse_mnt *m = req_mnt(req);

	(void)ino;
	pthread_mutex_lock(&m->lock);
	dir_release((struct trev_fuse_dir *)(uintptr_t)fi->fh);
	pthread_mutex_unlock(&m->lock);
	fuse_reply_err(req, 0);
}

/* ---- files ---------------------------------------------------------------------------------- */

/* Make a poll of @f's backend return early, where the backend can. */
static void file_wake(struct trev_fuse_file *f)
{
	if (f->m->be->wake)
		f->m->be->wake(f->file);
}

/* Close an unlinked file without waiters. */
static void file_close(struct trev_fuse_file *f)
{
	if (f->ph)
		fuse_pollhandle_destroy(f->ph);
	f->m->be->close(f->file);
	pthread_mutex_destroy(&f->io_lock);
	free(f);
}

static void fs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct trev_fuse_mnt *m = req_mnt(req);
	int flags = fi->flags & (O_ACCMODE | O_TRUNC | O_APPEND);
	struct trev_fuse_file *f;
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
	/* The backend never blocks: blocking is done here, off the worker threads (see the top). */
	ret = m->be->open(m->ctx, path, flags, &f->file);
	if (ret)
		goto out_free_file;
	free(path);
	f->m = m;
	f->accmode = flags & O_ACCMODE;
	pthread_mutex_init(&f->io_lock, NULL);
	pthread_mutex_lock(&m->lock);
	LIST_INSERT_HEAD(&m->files, f, link);
	pthread_mutex_unlock(&m->lock);

	fi->fh = (uintptr_t)f;
	fi->direct_io = 1;	/* no page cache: the text is made at each read, and st_size is 0 */
	fi->keep_cache = 0;
	fi->nonseekable = 1;	/* the tree reads in order, as a seq_file; READ offsets are ignored */
	if (fuse_reply_open(req, fi) == -ENOENT) {
		/* The opener was interrupted: no RELEASE will come. */
		pthread_mutex_lock(&m->lock);
		LIST_REMOVE(f, link);
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

static ssize_t file_try_read(struct trev_fuse_file *f, void *buf, size_t size)
{
	ssize_t n;

	pthread_mutex_lock(&f->io_lock);
	n = f->m->be->read(f->file, buf, size);
	pthread_mutex_unlock(&f->io_lock);
	return n;
}

/* A waiter thread is done with @f: after this neither @f nor the mount may be touched. */
static void waiter_done(struct trev_fuse_file *f)
{
	struct trev_fuse_mnt *m = f->m;

	pthread_mutex_lock(&m->lock);
	f->waiters--;
	m->waiters--;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

/* Is the waiter's work over (interrupted, file closing, unmount)? */
static int waiter_stop(struct trev_fuse_file *f, const struct fread_req *r)
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
	file_wake(r->f);
}

static void *read_waiter(void *arg)
{
	struct fread_req *r = arg;
	struct trev_fuse_file *f = r->f;
	ssize_t n = -EAGAIN;
	char *buf = malloc(r->size);

	if (!buf)
		n = -ENOMEM;
	while (buf && !waiter_stop(f, r)) {
		int ret = f->m->be->poll(f->file, WAIT_MS);

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

/*
 * Start a detached thread with every signal blocked (workers have them
 * blocked already) but SIGTRAP, which the function tracer needs open in
 * every thread (docs/function-tracer.md).
 */
static int start_thread(void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	pthread_t thread;
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	sigdelset(&all, SIGTRAP);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = pthread_create(&thread, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -ret;
}

static void read_defer(fuse_req_t req, struct trev_fuse_file *f, size_t size)
{
	struct trev_fuse_mnt *m = f->m;
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
	struct trev_fuse_file *f = (struct trev_fuse_file *)(uintptr_t)fi->fh;
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
	struct trev_fuse_file *f = (struct trev_fuse_file *)(uintptr_t)fi->fh;
	ssize_t n;

	(void)ino;
	(void)off;	/* each write is parsed on its own, as the kernel's handlers do */
	if (mnt_exiting(f->m)) {
		fuse_reply_err(req, ENODEV);
		return;
	}
	pthread_mutex_lock(&f->io_lock);
	n = f->m->be->write(f->file, buf, size);
	pthread_mutex_unlock(&f->io_lock);
	if (n >= 0)
		fuse_reply_write(req, (size_t)n);
	else
		fuse_reply_err(req, (int)-n);
}

static void *poll_waiter(void *arg)
{
	struct trev_fuse_file *f = arg;
	struct fuse_pollhandle *ph;

	while (!waiter_stop(f, NULL)) {
		int ret = f->m->be->poll(f->file, WAIT_MS);

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
	struct trev_fuse_file *f = (struct trev_fuse_file *)(uintptr_t)fi->fh;
	struct trev_fuse_mnt *m = f->m;
	unsigned int revents = 0;
	int ret;

	(void)ino;
	/* Writable whenever open for writing, as a file without ->poll is on tracefs. */
	if (f->accmode != O_RDONLY)
		revents |= POLLOUT | POLLWRNORM;
	ret = mnt_exiting(m) ? POLLIN | POLLRDNORM : m->be->poll(f->file, 0);
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
static void file_drain(struct trev_fuse_mnt *m, struct trev_fuse_file *f)
{
	while (f->waiters) {
		struct timespec ts;

		file_wake(f);
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
	struct trev_fuse_file *f = (struct trev_fuse_file *)(uintptr_t)fi->fh;
	struct trev_fuse_mnt *m = f->m;

	int flushed;

	(void)ino;
	pthread_mutex_lock(&m->lock);
	f->closing = 1;
	file_drain(m, f);
	LIST_REMOVE(f, link);
	flushed = f->flushed;
	pthread_mutex_unlock(&m->lock);
	file_close(f);
	/* Closed in the tree: an rmdir waiting for it may ask again. */
	if (flushed) {
		pthread_mutex_lock(&m->lock);
		m->flushed--;
		pthread_cond_broadcast(&m->cond);
		pthread_mutex_unlock(&m->lock);
	}
	fuse_reply_err(req, 0);
}

/*
 * A process closed a descriptor of the file (close(2) waits for this
 * reply). Others may still hold it (dup, fork): only RELEASE closes it.
 */
static void fs_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct trev_fuse_file *f = (struct trev_fuse_file *)(uintptr_t)fi->fh;
	struct trev_fuse_mnt *m = f->m;

	(void)ino;
	pthread_mutex_lock(&m->lock);
	if (!f->flushed) {
		f->flushed = 1;
		m->flushed++;
	}
	pthread_mutex_unlock(&m->lock);
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
	.flush = fs_flush,
	.release = fs_release,
	.opendir = fs_opendir,
	.readdir = fs_readdir,
	.releasedir = fs_releasedir,
	.create = fs_create,
	.poll = fs_poll,
};

/* ---- session: start, loop, stop ------------------------------------------------------------- */

/* Found at the first trev__fuse_start(), for trev__fuse_detach(), which may only read it. */
static char fusermount_path[64];

void trev__fuse_detach(const char *dir)
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

static void find_fusermount(void)
{
	static const char *const fusermounts[] = { "/usr/bin/fusermount3", "/bin/fusermount3",
						    "/usr/local/bin/fusermount3" };
	if (fusermount_path[0])
		return;
	for (size_t i = 0; i < sizeof(fusermounts) / sizeof(fusermounts[0]); i++)
		if (access(fusermounts[i], X_OK) == 0) {
			strcpy(fusermount_path, fusermounts[i]);
			break;
		}
}

void trev__fuse_free(struct trev_fuse_mnt *m)
{
	ino_free(m);
	pthread_cond_destroy(&m->cond);
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->ino_lock);
	free(m->dir);
	free(m);
}

_Atomic int trev__fuse_dying;

static void *loop_thread(void *arg)
{
	struct trev_fuse_mnt *m = arg;
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();
	struct trev_fuse_file *f;
	int ret, abandoned;

	if (cfg) {
		fuse_loop_cfg_set_max_threads(cfg, LOOP_MAX_THREADS);
		/* One device descriptor, which a signal handler can close (libfuse
		 * 3.14's default gives each worker a clone of its own). */
		fuse_loop_cfg_set_clone_fd(cfg, 0);
		ret = fuse_session_loop_mt(m->se, cfg);
		fuse_loop_cfg_destroy(cfg);
	} else {
		ret = fuse_session_loop(m->se);
	}
	if (atomic_load(&trev__fuse_dying))
		return NULL;	/* the process dies next: touch nothing */
	if (ret < 0 && m->be->log)
		m->be->log(m->ctx, 1, "fuse: %s: session loop ended: %s\n", m->dir, strerror(-ret));

	/* No request comes any more: end the waiters, close what is still open. */
	pthread_mutex_lock(&m->lock);
	m->exiting = 1;
	LIST_FOREACH(f, &m->files, link)
		f->closing = 1;
	while (!LIST_EMPTY(&m->files)) {
		f = LIST_FIRST(&m->files);
		file_drain(m, f);
		LIST_REMOVE(f, link);
		pthread_mutex_unlock(&m->lock);
		file_close(f);
		pthread_mutex_lock(&m->lock);
	}
	while (!LIST_EMPTY(&m->dirs))
		dir_release(LIST_FIRST(&m->dirs));
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
		if (m->be->log)
			m->be->log(m->ctx, 0, "fuse: %s: connection closed\n", m->dir);
		trev__fuse_free(m);
	}
	return NULL;
}

int trev__fuse_start(const char *dir, const char *fsname, const struct trev_fuse_backend *be,
		     void *ctx, struct trev_fuse_mnt **out)
{
	char opts[256];
	char *args_v[] = { "trev", "-o", opts, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, args_v);
	struct trev_fuse_mnt *m;
	int ret;

	snprintf(opts, sizeof(opts), "fsname=%s,subtype=trev,default_permissions", fsname);
	find_fusermount();
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->be = be;
	m->ctx = ctx;
	m->fuse_fd = -1;
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
		goto out_destroy_session;
	}
	m->fuse_fd = fuse_session_fd(m->se);
	ret = start_thread(loop_thread, m);
	if (ret) {
		fuse_session_unmount(m->se);
		goto out_destroy_session;
	}
	*out = m;
	return 0;

out_destroy_session:
	fuse_session_destroy(m->se);
out_free_mnt:
	trev__fuse_free(m);
	return ret;
}

int trev__fuse_stop(struct trev_fuse_mnt *m, int wait_ms)
{
	struct trev_fuse_file *f;
	struct timespec deadline;
	int ret = 0;

	/* Blocked reads end with EOF, new requests are refused. */
	pthread_mutex_lock(&m->lock);
	m->exiting = 1;
	LIST_FOREACH(f, &m->files, link)
		file_wake(f);
	if (!m->loop_done) {
		pthread_mutex_unlock(&m->lock);
		trev__fuse_detach(m->dir);
		pthread_mutex_lock(&m->lock);
	}
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += wait_ms / 1000;
	deadline.tv_nsec += (wait_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	while (!m->loop_done)
		if (pthread_cond_timedwait(&m->cond, &m->lock, &deadline) == ETIMEDOUT)
			break;
	if (!m->loop_done) {
		/* Another process holds a file open (docs/fuse.md, "Measured facts",
		 * 4): the loop thread frees the mount when the connection finally
		 * closes. */
		m->abandoned = 1;
		ret = -EBUSY;
	}
	pthread_mutex_unlock(&m->lock);
	if (!ret)
		trev__fuse_free(m);
	return ret;
}
