/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Output files (out_file.h): a path walked a name at a time, each symlink
 * judged by the rule of the kernel's fs.protected_symlinks before it is
 * followed, and the last name opened without following anything.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/out_file.h"

#define OF_MAX_LINKS	40	/* as the kernel's MAXSYMLINKS */
#define OF_RETRIES	4	/* walks again when the last name became a link meanwhile */

/*
 * May the link @link (its lstat) in the directory @dirfd be followed?
 * The kernel's rule (fs.protected_symlinks=1): yes, unless the directory
 * is sticky and writable by others, and the link belongs neither to the
 * follower nor to the directory's owner. Return: 0, or -EACCES with @why.
 */
static int of_may_follow(int dirfd, const struct stat *link, const char *name, char *why,
			 size_t why_size)
{
	struct stat dir;

	if (fstat(dirfd, &dir) < 0)
		return -errno;
	if ((dir.st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH) ||
	    link->st_uid == geteuid() || link->st_uid == dir.st_uid)
		return 0;
	snprintf(why, why_size,
		 "refusing to follow the symlink %s of uid %u: it lies in a sticky directory "
		 "writable by all (mode 0%o, owner uid %u), and is neither ours nor the "
		 "directory's owner's", name, (unsigned int)link->st_uid,
		 (unsigned int)(dir.st_mode & 07777), (unsigned int)dir.st_uid);
	return -EACCES;
}

/* Replace *@dirfd by @fd. */
static void of_move(int *dirfd, int fd)
{
	close(*dirfd);
	*dirfd = fd;
}

/*
 * Walk @path: every directory on the way opened O_PATH without following
 * a link, every link judged (of_may_follow()) and its target walked in
 * its place. Return: 0 with *@dirfd (the last name's directory, the
 * caller closes it) and @leaf (the last name, which may not exist), or a
 * negative errno (with @why for a refused link).
 */
static int of_walk(const char *path, int *dirfd, char *leaf, size_t leaf_size, char *why,
		   size_t why_size)
{
	char rest[2 * PATH_MAX], target[PATH_MAX];
	int links = 0, ret;
	char *p = rest;

	if (!*path)
		return -ENOENT;
	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (path[strlen(path) - 1] == '/')
		return -EISDIR;		/* an output is a file */
	snprintf(rest, sizeof(rest), "%s", path);
	*dirfd = open(*p == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*dirfd < 0)
		return -errno;
	for (;;) {
		char name[NAME_MAX + 1];
		size_t n;
		bool last, more;
		struct stat st;
		int fd;
		ssize_t len;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n > NAME_MAX) {
			ret = -ENAMETOOLONG;
			goto out_close;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		while (*p == '/')
			p++;
		last = !*p;
		if (last && (!strcmp(name, ".") || !strcmp(name, ".."))) {
			ret = -EISDIR;
			goto out_close;
		}
		if (!strcmp(name, ".") || !strcmp(name, "..")) {
			/* ".." of where the walk is, as the kernel's own walk goes. */
			fd = openat(*dirfd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0) {
				ret = -errno;
				goto out_close;
			}
			of_move(dirfd, fd);
			continue;
		}
		fd = openat(*dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && last)
			goto out_leaf;		/* to be created */
		if (fd < 0) {
			ret = -errno;
			goto out_close;
		}
		if (fstat(fd, &st) < 0) {
			ret = -errno;
			close(fd);
			goto out_close;
		}
		if (S_ISDIR(st.st_mode) && !last) {
			of_move(dirfd, fd);
			continue;
		}
		if (!S_ISLNK(st.st_mode)) {
			close(fd);
			if (last)
				goto out_leaf;
			ret = -ENOTDIR;
			goto out_close;
		}
		ret = of_may_follow(*dirfd, &st, name, why, why_size);
		if (!ret && ++links > OF_MAX_LINKS)
			ret = -ELOOP;
		/* The link itself, through its O_PATH descriptor: not a later one at its name. */
		len = ret ? 0 : readlinkat(fd, "", target, sizeof(target) - 1);
		if (!ret && len < 0)
			ret = -errno;
		close(fd);
		if (ret)
			goto out_close;
		if (len == 0 || (size_t)len + 1 + strlen(p) + 1 > sizeof(rest)) {
			ret = len ? -ENAMETOOLONG : -ENOENT;
			goto out_close;
		}
		target[len] = '\0';
		/*
		 * The target in the link's place, before what is left of the path.
		 * @p points into @rest, which the copy overwrites: whether anything
		 * is left is known before it.
		 */
		more = *p != '\0';
		if (more)
			memmove(rest + len + 1, p, strlen(p) + 1);
		else
			rest[len] = '\0';
		memcpy(rest, target, (size_t)len);
		if (more)
			rest[len] = '/';
		p = rest;
		if (*p == '/') {
			fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0) {
				ret = -errno;
				goto out_close;
			}
			of_move(dirfd, fd);
		}
		continue;
out_leaf:
		if (strlen(name) >= leaf_size) {
			ret = -ENAMETOOLONG;
			goto out_close;
		}
		memcpy(leaf, name, strlen(name) + 1);
		return 0;
	}
out_close:
	close(*dirfd);
	*dirfd = -1;
	return ret;
}

int trev__out_open(const char *path, int flags, mode_t mode, char *why, size_t why_size)
{
	char leaf[NAME_MAX + 1];
	int dirfd, fd, ret;

	if (why_size)
		why[0] = '\0';
	for (int i = 0; i < OF_RETRIES; i++) {
		ret = of_walk(path, &dirfd, leaf, sizeof(leaf), why, why_size);
		if (ret)
			return ret;
		fd = openat(dirfd, leaf, flags | O_NOFOLLOW | O_CLOEXEC, mode);
		ret = fd < 0 ? -errno : fd;
		close(dirfd);
		/* A link put at the name since the walk: walk again and judge it. */
		if (ret != -ELOOP)
			return ret;
	}
	return ret;
}

int trev__out_check(const char *path, char *why, size_t why_size)
{
	char leaf[NAME_MAX + 1];
	int dirfd, ret;

	if (why_size)
		why[0] = '\0';
	ret = of_walk(path, &dirfd, leaf, sizeof(leaf), why, why_size);
	if (!ret)
		close(dirfd);
	return ret;
}
