/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Joining a recorder's session: TREV_SESSION names the socket of the
 * `trev record` that runs the program (or an ancestor of it), or a `trev
 * record -a` listens in the user's socket directory; the process announces
 * itself there so that the recorder attaches before its first event
 * (proto.h, "Joining a recorder's session"; docs/sessions.md).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/log.h"
#include "base/sock_dir.h"
#include "control/control.h"
#include "control/proto.h"

static char session_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static bool session_all;	/* session_path is a `trev record -a`'s, not TREV_SESSION */

/*
 * No TREV_SESSION: a `trev record -a` of this user may be recording every
 * process that starts; its socket is in our socket directory
 * (sock_dir.h). One lstat() at start-up; a socket left by a recorder that
 * is gone refuses the connection, and nothing waits (trev__session_join()).
 */
static bool session_record_all(void)
{
	char dir[sizeof(session_path)];
	struct stat st;
	int n;

	if (trev__sock_dir(dir, sizeof(dir)) < 0)
		return false;
	n = snprintf(session_path, sizeof(session_path), "%s/%s", dir, TREV_RECORD_ALL_SOCK);
	if (n < 0 || (size_t)n >= sizeof(session_path) || lstat(session_path, &st) < 0 ||
	    !S_ISSOCK(st.st_mode)) {
		session_path[0] = '\0';
		return false;
	}
	session_all = true;
	return true;
}

bool trev__session_env(void)
{
	const char *env = getenv("TREV_SESSION");

	if (!env || !*env)
		return session_record_all();
	if (env[0] != '/' || strlen(env) >= sizeof(session_path)) {
		trev__log(TREV_LOG_WARN, "TREV_SESSION=%s: not an absolute socket path of at "
			  "most %zu bytes; ignored\n", env, sizeof(session_path) - 1);
		return false;
	}
	/* Kept in the environment: the program's children join the session too. */
	memcpy(session_path, env, strlen(env) + 1);
	return true;
}

bool trev__session_active(void)
{
	return session_path[0] != '\0';
}

/* A socket of ours or root's, served by a process of ours or root's. */
static bool session_trusted_uid(uid_t uid)
{
	return uid == geteuid() || uid == 0;
}

/* Announce this process at session_path. Return: 0 or -errno. */
static int session_send(bool forked)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct trev_join_msg msg = {
		.magic = TREV_JOIN_MAGIC,
		.version = TREV_JOIN_VERSION,
		.flags = forked ? TREV_JOIN_FORKED : 0,
		.pid = (int32_t)getpid(),
		.ppid = (int32_t)getppid(),
	};
	struct timeval tv = { .tv_sec = 1 };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct stat st;
	ssize_t n;
	int fd, ret;

	if (!session_path[0])
		return -ENOENT;
	/* A recorder that is gone left its socket, or nothing: run on, untraced. */
	if (lstat(session_path, &st) < 0)
		return -errno;
	if (!S_ISSOCK(st.st_mode) || !session_trusted_uid(st.st_uid))
		return -EPERM;
	memcpy(addr.sun_path, session_path, strlen(session_path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		ret = -errno;
		goto out_close;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
	    !session_trusted_uid(cred.uid)) {
		ret = -EPERM;
		goto out_close;
	}
	do
		n = send(fd, &msg, sizeof(msg), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	ret = n == (ssize_t)sizeof(msg) ? 0 : n < 0 ? -errno : -EIO;
out_close:
	close(fd);
	return ret;
}

/*
 * A `trev record -a` socket that refuses: its recorder is gone (or is not
 * ours), and the process is in no session from then on.
 */
int trev__session_join(bool forked)
{
	int ret = session_send(forked);

	if (ret < 0 && session_all)
		session_path[0] = '\0';
	return ret;
}
