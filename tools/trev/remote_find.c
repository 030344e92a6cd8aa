/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Finding a process's control socket and deciding whether to trust it:
 * where the process put it (its environment, through its root, so another
 * mount namespace is reached too), who owns the directory and the socket,
 * and who listens on it, all checked before a byte is sent.
 *
 * The checks and the use are on one object: /proc/PID is opened once and
 * everything of the process is read relative to it; the directory is
 * opened (O_PATH, not following a last symlink), checked with fstat(),
 * and connected to through /proc/self/fd/N/PID.sock, so it cannot be
 * swapped between the check and the connect (and a long path in another
 * mount namespace still fits sun_path's 108 bytes).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/buf.h"
#include "remote.h"

/* What the process's /proc files say. */
struct rfind_proc {
	pid_t pid;		/* ours: the pid the user gave */
	pid_t ns_pid;		/* its own (NSpid's last): the socket's name */
	uid_t uid;		/* effective: the owner its directory and socket must have */
	int procfd;		/* /proc/PID */
	int rootfd;		/* /proc/PID/root: its root directory */
	char shown[32];		/* "" or "/proc/PID/root" when its root is not ours */
};

/* A whole small file of /proc/PID. Return: its length (malloc'd, NUL-ended), or -errno. */
static ssize_t rfind_read(int procfd, const char *name, char **text)
{
	struct trev_buf b = TREV_BUF_INIT;
	ssize_t n;
	size_t len;
	int fd = openat(procfd, name, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (;;) {
		/* Small files: one that goes on past 16 MiB is refused. */
		if (b.len >= (1u << 24) || trev__buf_reserve(&b, 4096)) {
			n = -ENOMEM;
			break;
		}
		n = read(fd, b.data + b.len, trev__buf_room(&b));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			break;
		}
		if (n == 0)
			break;
		trev__buf_extend(&b, (size_t)n);
	}
	close(fd);
	if (n < 0) {
		trev__buf_free(&b);
		return n;
	}
	len = b.len;
	*text = trev__buf_detach(&b);
	return *text ? (ssize_t)len : -ENOMEM;
}

/* The value of @name in the environment block @env (@len bytes), or NULL. */
static char *rfind_env(const char *env, size_t len, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < len; i += strnlen(env + i, len - i) + 1)
		if (len - i > n && strncmp(env + i, name, n) == 0 && env[i + n] == '=')
			return strndup(env + i + n + 1, len - i - n - 1);
	return NULL;
}

/* The effective uid and the innermost pid, from status. Return: 0 or -errno. */
static int rfind_status(struct rfind_proc *p)
{
	char *text, *line;
	unsigned int real, eff;
	bool have_uid = false;
	ssize_t n = rfind_read(p->procfd, "status", &text);

	if (n < 0)
		return (int)n;
	p->ns_pid = p->pid;
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (sscanf(line, "Uid: %u %u", &real, &eff) == 2) {
			p->uid = eff;
			have_uid = true;
		} else if (strncmp(line, "NSpid:", 6) == 0) {
			/* "NSpid: 4242 7": the last is the pid the process sees itself as. */
			const char *end = strchr(line, '\n'), *last = NULL;

			for (const char *c = line + 6; c < (end ? end : line + strlen(line)); c++)
				if ((*c == ' ' || *c == '\t') && c[1] >= '0' && c[1] <= '9')
					last = c + 1;
			if (last)
				p->ns_pid = (pid_t)strtol(last, NULL, 10);
		}
	}
	free(text);
	return have_uid && p->ns_pid > 0 ? 0 : -ESRCH;
}

/* Whether the process's root is ours (same mount namespace, same directory). */
static bool rfind_same_root(const struct rfind_proc *p)
{
	struct stat ours, theirs, ns_ours, ns_theirs;

	if (fstat(p->rootfd, &theirs) || stat("/", &ours) ||
	    theirs.st_dev != ours.st_dev || theirs.st_ino != ours.st_ino)
		return false;
	if (stat("/proc/self/ns/mnt", &ns_ours) || fstatat(p->procfd, "ns/mnt", &ns_theirs, 0))
		return false;
	return ns_ours.st_ino == ns_theirs.st_ino && ns_ours.st_dev == ns_theirs.st_dev;
}

/*
 * Open @dir as the process names it: an absolute path inside its root
 * (symlinks resolved there, not in ours), a relative one from its working
 * directory; the last component is not followed. Return: an O_PATH fd or -errno.
 */
static int rfind_open_dir(const struct rfind_proc *p, const char *dir)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int base = p->rootfd, fd, cwd = -1;

	if (dir[0] == '/') {
		while (dir[0] == '/')
			dir++;
		if (!*dir)
			dir = ".";
		fd = (int)syscall(SYS_openat2, base, dir, &how, sizeof(how));
		if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
			return fd < 0 ? -errno : fd;
		/* No openat2 (before Linux 5.6, or a seccomp filter): resolved in our root. */
	} else {
		cwd = openat(p->procfd, "cwd", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (cwd < 0)
			return -errno;
		base = cwd;
	}
	fd = openat(base, dir, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	if (cwd >= 0)
		close(cwd);
	return fd;
}

/*
 * The socket's directory, as the process's environment chose it
 * (src/control/server.c): $TREV_SOCKET_DIR, $XDG_RUNTIME_DIR/trev, or
 * /tmp/trev-<euid>. Return: 0, or a negative errno after @why.
 */
static int rfind_dir_name(struct rfind_proc *p, char *dir, size_t size, char *why,
			  size_t why_size)
{
	char *env, *sock, *dir_env, *xdg;
	ssize_t len = rfind_read(p->procfd, "environ", &env);
	int n;

	if (len < 0) {
		snprintf(why, why_size, "cannot read the environment of process %d: %s",
			 (int)p->pid, strerror((int)-len));
		return len == -ENOENT || len == -ESRCH ? -ESRCH : (int)len;
	}
	sock = rfind_env(env, (size_t)len, "TREV_SOCKET");
	dir_env = rfind_env(env, (size_t)len, "TREV_SOCKET_DIR");
	xdg = rfind_env(env, (size_t)len, "XDG_RUNTIME_DIR");
	free(env);
	if (sock && strcmp(sock, "0") == 0)
		n = -1;
	else if (dir_env && *dir_env)
		n = snprintf(dir, size, "%s", dir_env);
	else if (xdg && *xdg)
		n = snprintf(dir, size, "%s/trev", xdg);
	else
		n = snprintf(dir, size, "/tmp/trev-%u", (unsigned int)p->uid);
	free(sock);
	free(dir_env);
	free(xdg);
	if (n == -1) {
		snprintf(why, why_size, "process %d runs with TREV_SOCKET=0: no control socket",
			 (int)p->pid);
		return -ENOTSUP;
	}
	if (n < 0 || (size_t)n >= size) {
		snprintf(why, why_size, "the socket directory of process %d is too long",
			 (int)p->pid);
		return -ENAMETOOLONG;
	}
	return 0;
}

/*
 * The directory and the socket in it: opened, and owned by the process's
 * uid, closed to others. Return: the directory's O_PATH fd, or a negative
 * errno after @why (-ENOENT: no socket there, -EPERM: not to be trusted).
 */
static int rfind_check_dir(const struct rfind_proc *p, const char *dir, char *why,
			   size_t why_size)
{
	struct stat st;
	char sock[32];
	int fd, ret;

	snprintf(sock, sizeof(sock), "%d.sock", (int)p->ns_pid);
	fd = rfind_open_dir(p, dir);
	if (fd == -ENOENT || fd == -ENOTDIR) {
		snprintf(why, why_size, "process %d does not serve trev (no socket %s%s/%s)",
			 (int)p->pid, p->shown, dir, sock);
		return -ENOENT;
	}
	if (fd < 0) {
		snprintf(why, why_size, "cannot open %s%s: %s", p->shown, dir, strerror(-fd));
		return fd;
	}
	ret = -EPERM;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		snprintf(why, why_size, "cannot stat %s%s: %s", p->shown, dir, strerror(errno));
	} else if (!S_ISDIR(st.st_mode)) {
		snprintf(why, why_size, "refusing %s%s: not a directory", p->shown, dir);
	} else if (st.st_uid != p->uid) {
		snprintf(why, why_size, "refusing %s%s: owned by uid %u, not the process's uid %u",
			 p->shown, dir, (unsigned int)st.st_uid, (unsigned int)p->uid);
	} else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, why_size, "refusing %s%s: writable by group or others (mode %04o)",
			 p->shown, dir, (unsigned int)(st.st_mode & 07777));
	} else if (fstatat(fd, sock, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		ret = errno == ENOENT ? -ENOENT : -errno;
		if (ret == -ENOENT)
			snprintf(why, why_size,
				 "process %d does not serve trev (no socket %s%s/%s)", (int)p->pid,
				 p->shown, dir, sock);
		else
			snprintf(why, why_size, "cannot stat %s%s/%s: %s", p->shown, dir, sock,
				 strerror(errno));
	} else if (!S_ISSOCK(st.st_mode)) {
		snprintf(why, why_size, "refusing %s%s/%s: not a socket", p->shown, dir, sock);
	} else if (st.st_uid != p->uid) {
		snprintf(why, why_size,
			 "refusing %s%s/%s: owned by uid %u, not the process's uid %u", p->shown,
			 dir, sock, (unsigned int)st.st_uid, (unsigned int)p->uid);
	} else {
		return fd;
	}
	close(fd);
	return ret;
}

/*
 * Connect to the socket in the checked directory @dirfd and check who
 * listens: the listener's credentials are those of the process that
 * called listen(), and the library's server listens in the process itself
 * (a forked child listens anew, in the child), so it must be @p->pid; any
 * other listener, even of the same user, is refused.
 * Return: the connected socket, or a negative errno after @why.
 */
static int rfind_connect(const struct rfind_proc *p, int dirfd, const char *dir, char *why,
			 size_t why_size)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd, ret;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "/proc/self/fd/%d/%d.sock", dirfd,
		 (int)p->ns_pid);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		snprintf(why, why_size, "socket: %s", strerror(errno));
		return ret;
	}
	/*
	 * A listener whose backlog is full (it does not accept) makes
	 * connect() wait; SO_SNDTIMEO bounds that wait, which then ends
	 * with EAGAIN.
	 */
	if (trev_remote_timeout()) {
		struct timeval tv = { .tv_sec = trev_remote_timeout() / 1000,
				      .tv_usec = trev_remote_timeout() % 1000 * 1000 };

		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	}
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		ret = -errno;
		if (ret == -EAGAIN && trev_remote_timeout()) {
			snprintf(why, why_size,
				 "process %d did not accept the connection within %g s",
				 (int)p->pid, trev_remote_timeout() / 1000.0);
			ret = -ETIMEDOUT;
		} else if (ret == -ENOENT || ret == -ECONNREFUSED) {
			snprintf(why, why_size,
				 "process %d does not serve trev (no socket %s%s/%d.sock)",
				 (int)p->pid, p->shown, dir, (int)p->ns_pid);
			ret = -ENOENT;
		} else {
			snprintf(why, why_size, "cannot connect to %s%s/%d.sock: %s", p->shown, dir,
				 (int)p->ns_pid, strerror(-ret));
		}
		goto out_close;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		ret = -errno;
		snprintf(why, why_size, "%s%s/%d.sock: SO_PEERCRED: %s", p->shown, dir,
			 (int)p->ns_pid, strerror(-ret));
		goto out_close;
	}
	if (cred.pid != p->pid) {
		snprintf(why, why_size,
			 "refusing %s%s/%d.sock: served by process %d (uid %u), not by process %d",
			 p->shown, dir, (int)p->ns_pid, (int)cred.pid, (unsigned int)cred.uid,
			 (int)p->pid);
		ret = -EPERM;
		goto out_close;
	}
	return fd;
out_close:
	close(fd);
	return ret;
}

int trev_remote_connect(pid_t pid, struct trev_remote **out, char *why, size_t why_size)
{
	struct rfind_proc p = { .pid = pid, .procfd = -1, .rootfd = -1 };
	char path[64], dir[4096];
	int ret, dirfd, fd;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	p.procfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ret = p.procfd < 0 ? -errno : rfind_status(&p);
	if (ret < 0) {
		snprintf(why, why_size, "no process %d", (int)pid);
		ret = ret == -ENOENT ? -ESRCH : ret;
		goto out_close;
	}
	if (p.uid != geteuid() && geteuid() != 0) {
		snprintf(why, why_size, "process %d belongs to another user", (int)pid);
		ret = -EPERM;
		goto out_close;
	}
	ret = rfind_dir_name(&p, dir, sizeof(dir), why, why_size);
	if (ret < 0)
		goto out_close;
	p.rootfd = openat(p.procfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (p.rootfd < 0) {
		ret = -errno;
		/* A zombie has no root any more. */
		if (ret == -ENOENT || ret == -ESRCH) {
			snprintf(why, why_size, "no process %d", (int)pid);
			ret = -ESRCH;
		} else {
			snprintf(why, why_size, "cannot reach the files of process %d: %s",
				 (int)pid, strerror(-ret));
		}
		goto out_close;
	}
	if (!rfind_same_root(&p))
		snprintf(p.shown, sizeof(p.shown), "/proc/%d/root", (int)pid);
	dirfd = rfind_check_dir(&p, dir, why, why_size);
	if (dirfd < 0) {
		ret = dirfd;
		goto out_close;
	}
	fd = rfind_connect(&p, dirfd, dir, why, why_size);
	close(dirfd);
	if (fd < 0) {
		ret = fd;
		goto out_close;
	}
	ret = trev_remote_from_fd(fd, pid, out, why, why_size);
out_close:
	if (p.rootfd >= 0)
		close(p.rootfd);
	if (p.procfd >= 0)
		close(p.procfd);
	return ret;
}
