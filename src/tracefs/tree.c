/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tracefs tree's public C API: path resolution, open files (text made
 * whole at the first read, text formatted a page at a time, or bytes a
 * handler reads itself), directories, and instances/ (mkdir and rmdir).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "ftrace/ftrace.h"
#include "tracefs/tracefs_internal.h"
#include "trigger/trigger_internal.h"

static pthread_mutex_t tfs_lock = PTHREAD_MUTEX_INITIALIZER;

/* ------------------------------------------------------------------ */
/* Parsing helpers                                                      */

int trev__parse_ulong(const char *buf, size_t size, unsigned long *val)
{
	char tmp[32], *end;

	if (size && buf[size - 1] == '\n')
		size--;
	if (size == 0 || size >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, buf, size);
	tmp[size] = '\0';
	if (tmp[0] == '-' || tmp[0] == ' ' || tmp[0] == '+')
		return -EINVAL;
	errno = 0;
	*val = strtoul(tmp, &end, 0);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

char *trev__strip(const char *buf, size_t size)
{
	while (size && (buf[size - 1] == '\n' || buf[size - 1] == ' ' || buf[size - 1] == '\t'))
		size--;
	while (size && (*buf == ' ' || *buf == '\t')) {
		buf++;
		size--;
	}
	return strndup(buf, size);
}

/* Files open now, through every frontend (tfs_lock). */
static unsigned int tfs_files_open;

unsigned int trev__tfs_files_open(void)
{
	unsigned int n;

	pthread_mutex_lock(&tfs_lock);
	n = tfs_files_open;
	pthread_mutex_unlock(&tfs_lock);
	return n;
}

/* ------------------------------------------------------------------ */
/* Resolution                                                           */

static const struct tfs_node root_node = { "", 0755, NULL, &trev__instance_dir, false };

/* Under tfs_lock and the registry read lock. */
static int tfs_resolve(const char *path, struct tfs_loc *loc)
{
	char name[TFS_NAME_MAX];

	*loc = (struct tfs_loc){ .tr = trev__top_instance(), .node = &root_node,
				 .cpu = -1, .option = -1 };
	if (!loc->tr)
		return -ENOMEM;
	while (*path) {
		const struct tfs_dir *dir = loc->node->dir;
		const struct tfs_node *n;
		size_t len;

		while (*path == '/')
			path++;
		len = strcspn(path, "/");
		if (len == 0)
			break;
		if (!dir)
			return -ENOTDIR;
		if (len >= sizeof(name))
			return -ENAMETOOLONG;
		memcpy(name, path, len);
		name[len] = '\0';
		path += len;
		if (strcmp(name, ".") == 0)
			continue;
		for (n = dir->entries; n && n->name; n++) {
			if (n->top_only && *loc->tr->name)
				continue;
			if (strcmp(n->name, name) == 0)
				break;
		}
		if (n && n->name) {
			loc->node = n;
			continue;
		}
		if (!dir->lookup || dir->lookup(loc, name))
			return -ENOENT;
	}
	return 0;
}

static int tfs_resolve_locked(const char *path, struct tfs_loc *loc)
{
	int ret;

	if (!path)
		return -EINVAL;
	trev__events_read_lock();
	ret = tfs_resolve(path, loc);
	trev__events_read_unlock();
	return ret;
}

/* ------------------------------------------------------------------ */
/* Open files                                                           */

int trev__tfs_open(const char *path, int flags, struct trev_file **out)
{
	struct trev_file *f;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	pthread_mutex_lock(&tfs_lock);
	ret = tfs_resolve_locked(path, &f->loc);
	if (ret)
		goto out_free;
	if (f->loc.node->dir) {
		ret = -EISDIR;
		goto out_free;
	}
	f->fops = f->loc.node->fops;
	f->flags = flags;
	ret = -EACCES;
	if ((tfs_readable(f) && !(f->loc.node->mode & 0444)) ||
	    (tfs_writable(f) && !(f->loc.node->mode & 0222)))
		goto out_free;
	pthread_mutex_init(&f->lock, NULL);
	ret = f->fops->open ? f->fops->open(f) : 0;
	if (ret) {
		pthread_mutex_destroy(&f->lock);
		goto out_free;
	}
	f->loc.tr->ref++;
	tfs_files_open++;
	pthread_mutex_unlock(&tfs_lock);
	*out = f;
	return 0;

out_free:
	pthread_mutex_unlock(&tfs_lock);
	free(f);
	return ret;
}

/* How much a streamed file formats at a time: a page, as a seq_file's first buffer. */
#define TFS_STREAM_PIECE	4096

/*
 * A streamed file (->next): hand out what the last piece left in f->text,
 * and only when it is all read, format the next piece. f->text so holds a
 * page and at most one line more, whatever the size of the read and of
 * the file. Without tfs_lock: the position is the file's own, and f->lock
 * keeps its reads in order.
 */
static ssize_t tfs_read_stream(struct trev_file *f, char *buf, size_t size)
{
	size_t done = 0;

	while (done < size) {
		size_t n;

		if (f->pos == f->text.len) {
			int ret;

			trev__buf_reset(&f->text);
			f->pos = 0;
			ret = f->fops->next(f, &f->text, TFS_STREAM_PIECE);
			if (ret < 0)
				return done ? (ssize_t)done : ret;
			if (ret == 0)
				break;		/* the end of the text */
		}
		n = f->text.len - f->pos < size - done ? f->text.len - f->pos : size - done;
		memcpy(buf + done, f->text.data + f->pos, n);
		f->pos += n;
		done += n;
	}
	return (ssize_t)done;
}

ssize_t trev_file_read_flags(struct trev_file *f, void *buf, size_t size, unsigned int flags)
{
	ssize_t ret;

	if (!f || (!buf && size) || (flags & ~TREV_READ_FULL))
		return -EINVAL;
	if (!tfs_readable(f))
		return -EBADF;
	pthread_mutex_lock(&f->lock);
	if (f->fops->read) {
		ret = f->fops->read(f, buf, size, flags);
		goto out_unlock;
	}
	if (f->fops->next) {
		ret = tfs_read_stream(f, buf, size);
		goto out_unlock;
	}
	if (!f->shown) {
		if (!f->fops->show) {
			ret = -EINVAL;
			goto out_unlock;
		}
		trev__buf_reset(&f->text);	/* what a failed show left */
		pthread_mutex_lock(&tfs_lock);
		ret = f->fops->show(f, &f->text);
		pthread_mutex_unlock(&tfs_lock);
		if (ret)
			goto out_unlock;
		f->shown = true;
	}
	ret = (ssize_t)(f->text.len - f->pos < size ? f->text.len - f->pos : size);
	if (ret > 0)
		memcpy(buf, f->text.data + f->pos, (size_t)ret);
	f->pos += (size_t)ret;
out_unlock:
	pthread_mutex_unlock(&f->lock);
	return ret;
}

ssize_t trev_file_read(struct trev_file *f, void *buf, size_t size)
{
	return trev_file_read_flags(f, buf, size, 0);
}

ssize_t trev_file_write(struct trev_file *f, const void *buf, size_t size)
{
	ssize_t ret;

	if (!f || (!buf && size))
		return -EINVAL;
	if (!tfs_writable(f))
		return -EBADF;
	if (!f->fops->write)
		return -EINVAL;
	if (size == 0)
		return 0;
	pthread_mutex_lock(&f->lock);
	pthread_mutex_lock(&tfs_lock);
	ret = f->fops->write(f, buf, size);
	pthread_mutex_unlock(&tfs_lock);
	pthread_mutex_unlock(&f->lock);
	return ret;
}

int trev_file_poll(struct trev_file *f, int timeout_ms)
{
	if (!f)
		return -EINVAL;
	if (f->fops->poll)
		return f->fops->poll(f, timeout_ms);
	return POLLIN | POLLRDNORM;
}

void trev_file_wake(struct trev_file *f)
{
	if (!f)
		return;
	atomic_store(&f->woken, true);
	if (f->fops->wake)
		f->fops->wake(f);
}

int trev_file_close(struct trev_file *f)
{
	if (!f)
		return -EINVAL;
	pthread_mutex_lock(&tfs_lock);
	if (f->fops->release)
		f->fops->release(f);
	f->loc.tr->ref--;
	tfs_files_open--;
	pthread_mutex_unlock(&tfs_lock);
	pthread_mutex_destroy(&f->lock);
	trev__buf_free(&f->text);
	free(f);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Directories                                                          */

int trev__tfs_stat(const char *path, struct trev_stat *st)
{
	struct tfs_loc loc;
	int ret;

	if (!st)
		return -EINVAL;
	pthread_mutex_lock(&tfs_lock);
	ret = tfs_resolve_locked(path, &loc);
	pthread_mutex_unlock(&tfs_lock);
	if (ret)
		return ret;
	st->is_dir = loc.node->dir != NULL;
	st->mode = loc.node->mode;
	return 0;
}

/* trev__tfs_readdir()'s entries, gathered under tfs_lock and handed out after it. */
struct readdir_list {
	struct readdir_ent {
		char *name;
		struct trev_stat st;
	} *ents;
	size_t n, cap;
};

static int readdir_collect(const char *name, const struct trev_stat *st, void *arg)
{
	struct readdir_list *l = arg;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		struct readdir_ent *ents = realloc(l->ents, cap * sizeof(*ents));

		if (!ents)
			return -ENOMEM;
		l->ents = ents;
		l->cap = cap;
	}
	l->ents[l->n].name = strdup(name);
	if (!l->ents[l->n].name)
		return -ENOMEM;
	l->ents[l->n++].st = *st;
	return 0;
}

/*
 * The entries are copied under tfs_lock and @fn is called after it is
 * dropped, so that @fn may use the tree (trev__tfs_write(), trev__tfs_readdir() of a
 * subdirectory): it sees the directory as it was when listed.
 */
int trev__tfs_readdir(const char *path, trev_readdir_fn fn, void *arg)
{
	struct readdir_list list = { 0 };
	const struct tfs_dir *dir;
	struct tfs_loc loc;
	int ret;

	if (!fn)
		return -EINVAL;
	pthread_mutex_lock(&tfs_lock);
	trev__events_read_lock();
	ret = path ? tfs_resolve(path, &loc) : -EINVAL;
	if (ret)
		goto out_unlock;
	dir = loc.node->dir;
	if (!dir) {
		ret = -ENOTDIR;
		goto out_unlock;
	}
	for (const struct tfs_node *n = dir->entries; n && n->name; n++) {
		struct trev_stat st = { n->dir != NULL, n->mode };

		if (n->top_only && *loc.tr->name)
			continue;
		ret = readdir_collect(n->name, &st, &list);
		if (ret)
			goto out_unlock;
	}
	if (dir->list)
		ret = dir->list(&loc, readdir_collect, &list);
out_unlock:
	trev__events_read_unlock();
	pthread_mutex_unlock(&tfs_lock);
	for (size_t i = 0; i < list.n; i++) {
		if (!ret)
			ret = fn(list.ents[i].name, &list.ents[i].st, arg);
		free(list.ents[i].name);
	}
	free(list.ents);
	return ret;
}

/* "instances/<name>" → <name>, or NULL. */
static const char *instance_name(const char *path, char *name, size_t size)
{
	size_t len;

	while (*path == '/')
		path++;
	if (strncmp(path, "instances/", 10) != 0)
		return NULL;
	path += 10;
	len = strcspn(path, "/");
	if (len == 0 || len >= size || path[len + strspn(path + len, "/")] != '\0')
		return NULL;
	memcpy(name, path, len);
	name[len] = '\0';
	return name;
}

int trev__tfs_mkdir(const char *path)
{
	char name[TFS_NAME_MAX];
	struct trev_stat st;
	int ret;

	if (!path)
		return -EINVAL;
	if (trev__tfs_stat(path, &st) == 0)
		return -EEXIST;
	if (!instance_name(path, name, sizeof(name)))
		return -EPERM;	/* tracefs makes directories only under instances/ */
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EINVAL;
	pthread_mutex_lock(&tfs_lock);
	trev__events_write_lock();
	ret = trev__instance_create_locked(name);
	trev__events_write_unlock();
	pthread_mutex_unlock(&tfs_lock);
	return ret;
}

int trev__tfs_rmdir(const char *path)
{
	struct trev_trace_array *tr;
	char name[TFS_NAME_MAX];
	int ret;

	if (!path)
		return -EINVAL;
	if (!instance_name(path, name, sizeof(name)))
		return trev__tfs_stat(path, &(struct trev_stat){ 0 }) ? -ENOENT : -EPERM;
	pthread_mutex_lock(&tfs_lock);
	trev__events_read_lock();
	tr = trev__instance_lookup(name);
	trev__events_read_unlock();
	if (!tr) {
		ret = -ENOENT;
		goto out_unlock;
	}
	/* The kernel refuses while a file of the instance is open. */
	if (tr->ref) {
		ret = -EBUSY;
		goto out_unlock;
	}
	/* As the kernel's __remove_instance(): its function tracer stops (tracing_set_nop()). */
	trev__ftrace_instance_remove(tr);
	/* Triggers hold their events in soft mode: they go first. */
	trev__triggers_clear_instance(tr);
	trev__events_disable_all(tr);
	trev__events_write_lock();
	ret = trev__instance_remove_locked(tr);
	trev__events_write_unlock();
out_unlock:
	pthread_mutex_unlock(&tfs_lock);
	return ret;
}

static int instances_list(const struct tfs_loc *loc, trev_readdir_fn fn, void *arg);

struct instances_walk {
	trev_readdir_fn fn;
	void *arg;
};

static int instances_visit(struct trev_trace_array *tr, void *arg)
{
	struct instances_walk *w = arg;
	struct trev_stat st = { 1, 0750 };

	return w->fn(tr->name, &st, w->arg);
}

static int instances_list(const struct tfs_loc *loc, trev_readdir_fn fn, void *arg)
{
	struct instances_walk w = { fn, arg };

	(void)loc;
	return trev__instance_for_each(instances_visit, &w);
}

static const struct tfs_node instance_root = { "", 0750, NULL, &trev__instance_dir, false };

static int instances_lookup(struct tfs_loc *loc, const char *name)
{
	struct trev_trace_array *tr = trev__instance_lookup(name);

	if (!tr || !*name)
		return -ENOENT;
	loc->tr = tr;
	loc->node = &instance_root;
	return 0;
}

const struct tfs_dir trev__instances_dir = {
	.list = instances_list,
	.lookup = instances_lookup,
};

/* ------------------------------------------------------------------ */
/* One-call helpers                                                     */

static int tfs_write_text(const char *path, const char *text, int flags)
{
	struct trev_file *f;
	size_t len, done = 0;
	int ret;

	if (!text)
		return -EINVAL;
	ret = trev__tfs_open(path, O_WRONLY | flags, &f);
	if (ret)
		return ret;
	len = strlen(text);
	while (done < len) {
		ssize_t n = trev_file_write(f, text + done, len - done);

		if (n <= 0) {
			ret = n < 0 ? (int)n : -EIO;
			break;
		}
		done += (size_t)n;
	}
	trev_file_close(f);
	return ret;
}

int trev__tfs_write(const char *path, const char *text)
{
	return tfs_write_text(path, text, O_TRUNC);
}

int trev__tfs_append(const char *path, const char *text)
{
	return tfs_write_text(path, text, O_APPEND);
}

ssize_t trev__tfs_read(const char *path, char *buf, size_t size)
{
	struct trev_file *f;
	char scratch[4096];
	size_t used = 0, total = 0;
	int ret;

	if (!buf || size == 0)
		return -EINVAL;
	ret = trev__tfs_open(path, O_RDONLY | O_NONBLOCK, &f);
	if (ret)
		return ret;
	for (;;) {
		char *dst = used < size - 1 ? buf + used : scratch;
		size_t room = used < size - 1 ? size - 1 - used : sizeof(scratch);
		ssize_t n = trev_file_read(f, dst, room);

		if (n == -EAGAIN || n == 0)
			break;
		if (n < 0) {
			trev_file_close(f);
			return n;
		}
		if (dst != scratch)
			used += (size_t)n;
		total += (size_t)n;
	}
	buf[used] = '\0';
	trev_file_close(f);
	return (ssize_t)total;
}
