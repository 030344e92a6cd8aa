/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The recorder's session socket (rec_session.h): a listening Unix socket in
 * a directory of its own, and the join messages processes send to it
 * (src/control/proto.h, "Joining a recorder's session").
 */
#include <errno.h>
#include <stdbool.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "control/proto.h"
#include "rec_session.h"

#define SESSION_MSG_WAIT_MS	1000	/* a joiner sends its message at once */

struct trev_session {
	int fd;					/* listening */
	uid_t uid;				/* the user whose processes may join (ours, or -u's) */
	char dir[64];				/* the private directory, "" for -a's */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

int trev_session_open(struct trev_session **out)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct trev_session *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	s->fd = -1;
	s->uid = geteuid();
	snprintf(s->dir, sizeof(s->dir), "/tmp/trev-rec-XXXXXX");
	if (!mkdtemp(s->dir)) {
		ret = -errno;
		goto out_free;
	}
	snprintf(s->path, sizeof(s->path), "%s/join.sock", s->dir);
	memcpy(addr.sun_path, s->path, sizeof(s->path));
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(s->fd, SOMAXCONN) < 0) {
		ret = -errno;
		goto out_close;
	}
	*out = s;
	return 0;
out_close:
	if (s->fd >= 0)
		close(s->fd);
	unlink(s->path);
	rmdir(s->dir);
out_free:
	free(s);
	return ret;
}

int trev_session_fd(const struct trev_session *s)
{
	return s->fd;
}

int trev_session_open_at(struct trev_session **out, const char *path, uid_t uid)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct trev_session *s;
	char *slash, dir[sizeof(addr.sun_path)];
	struct stat st;
	bool made;
	mode_t old;
	int fd, ret;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	memcpy(addr.sun_path, path, strlen(path) + 1);
	memcpy(dir, path, strlen(path) + 1);
	slash = strrchr(dir, '/');
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	made = mkdir(dir, 0700) == 0;
	if (!made && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st) < 0)
		return -errno;
	/* The user's, as its processes would have made it: root made it for them just now. */
	if (made && st.st_uid != uid && lchown(dir, uid, (gid_t)-1) == 0)
		st.st_uid = uid;
	if (!S_ISDIR(st.st_mode) || st.st_uid != uid || (st.st_mode & 077))
		return -EPERM;
	/* A recorder that serves it: ours to leave alone; a dead one's: ours to replace. */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	ret = connect(fd, (struct sockaddr *)&addr, sizeof(addr));
	close(fd);
	if (ret == 0)
		return -EADDRINUSE;
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path);
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	memcpy(s->path, path, strlen(path) + 1);
	s->uid = uid;
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	old = umask(0177);	/* 0600 from the start */
	ret = s->fd < 0 || bind(s->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ? -errno : 0;
	umask(old);
	/* -u: the user's processes connect to it; they trust a socket of theirs or root's. */
	if (!ret && uid != geteuid() && chown(path, uid, (gid_t)-1) < 0)
		ret = -errno;
	if (!ret && listen(s->fd, SOMAXCONN) < 0)
		ret = -errno;
	if (ret) {
		if (s->fd >= 0)
			close(s->fd);
		free(s);
		return ret;
	}
	*out = s;
	return 0;
}

const char *trev_session_path(const struct trev_session *s)
{
	return s->path;
}

/* Read the join message of @fd within SESSION_MSG_WAIT_MS. Return: 0 or -errno. */
static int session_read_msg(int fd, struct trev_join_msg *m)
{
	size_t got = 0;

	while (got < sizeof(*m)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, SESSION_MSG_WAIT_MS) <= 0)
			return -ETIMEDOUT;
		n = recv(fd, (char *)m + got, sizeof(*m) - got, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return n < 0 ? -errno : got ? -EPIPE : -ENODATA;
		got += (size_t)n;
	}
	return 0;
}

int trev_session_accept(struct trev_session *s, int timeout_ms, struct trev_joiner *j,
			char *why, size_t why_size)
{
	struct pollfd p = { .fd = s->fd, .events = POLLIN };
	struct trev_join_msg m;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd, ret;

	if (why && why_size)
		why[0] = '\0';
	if (poll(&p, 1, timeout_ms) <= 0)
		return 0;
	fd = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return errno == EAGAIN || errno == EINTR || errno == ECONNABORTED ? 0 : -errno;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		ret = -errno;
		goto out_close;
	}
	/* Our directory is 0700: only our user or root can connect; check it anyway. */
	if (cred.uid != geteuid() && cred.uid != 0 && (!s->uid || cred.uid != s->uid)) {
		if (why)
			snprintf(why, why_size, "session: process %d of uid %u refused: not ours",
				 (int)cred.pid, (unsigned int)cred.uid);
		ret = 0;
		goto out_close;
	}
	ret = session_read_msg(fd, &m);
	/* Closed at once without a byte: another -a asking whether we serve (trev_session_open_at()). */
	if (ret == -ENODATA) {
		ret = 0;
		goto out_close;
	}
	if (ret < 0 || m.magic != TREV_JOIN_MAGIC || m.version != TREV_JOIN_VERSION ||
	    (m.flags & ~TREV_JOIN_FORKED) || m.pid != cred.pid || m.ppid < 0) {
		if (why)
			snprintf(why, why_size, "session: process %d sent no well-formed join: "
				 "ignored", (int)cred.pid);
		ret = 0;
		goto out_close;
	}
	j->pid = cred.pid;
	j->ppid = m.ppid;
	j->forked = m.flags & TREV_JOIN_FORKED;
	ret = 1;
out_close:
	close(fd);
	return ret;
}

void trev_session_close(struct trev_session *s)
{
	if (!s)
		return;
	close(s->fd);
	unlink(s->path);
	if (s->dir[0])
		rmdir(s->dir);	/* ours (trev_session_open()), not the socket directory */
	free(s);
}
