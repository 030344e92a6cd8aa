/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Finding a process's control socket: where its environment put it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "remote.h"

/* The value of @name in /proc/@pid/environ, or NULL; *err on failure to read. */
static char *env_of(pid_t pid, const char *name, int *err)
{
	char path[64], *buf = NULL, *val = NULL;
	size_t len = 0, cap = 0, n = strlen(name);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	f = fopen(path, "r");
	if (!f) {
		*err = -errno;
		return NULL;
	}
	for (;;) {
		if (len == cap) {
			char *p = realloc(buf, cap = cap ? cap * 2 : 4096);

			if (!p)
				break;
			buf = p;
		}
		size_t got = fread(buf + len, 1, cap - len, f);

		if (got == 0)
			break;
		len += got;
	}
	fclose(f);
	for (size_t i = 0; buf && i < len; i += strnlen(buf + i, len - i) + 1)
		if (len - i > n && strncmp(buf + i, name, n) == 0 && buf[i + n] == '=') {
			val = strndup(buf + i + n + 1, len - i - n - 1);
			break;
		}
	free(buf);
	return val;
}

/* The effective uid of @pid. Return: 0 or -errno. */
static int uid_of(pid_t pid, uid_t *uid)
{
	char path[64], line[256];
	unsigned int real, eff;
	int ret = -ESRCH;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u %u", &real, &eff) == 2) {
			*uid = eff;
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

/* The socket path of @pid, as its server chose it (src/control/server.c). */
static int socket_path(pid_t pid, char *path, size_t size, char *why, size_t why_size)
{
	char *dir_env, *xdg, *sock;
	uid_t uid = 0;
	int err = 0, n, ret;

	ret = uid_of(pid, &uid);
	if (ret < 0) {
		snprintf(why, why_size, "no process %d", (int)pid);
		return ret;
	}
	if (uid != geteuid() && geteuid() != 0) {
		snprintf(why, why_size, "process %d belongs to another user", (int)pid);
		return -EPERM;
	}
	sock = env_of(pid, "TREV_SOCKET", &err);
	if (err) {
		snprintf(why, why_size, "cannot read the environment of process %d: %s",
			 (int)pid, strerror(-err));
		return err == -ENOENT ? -ESRCH : err;
	}
	if (sock && strcmp(sock, "0") == 0) {
		free(sock);
		snprintf(why, why_size, "process %d runs with TREV_SOCKET=0: no control socket",
			 (int)pid);
		return -ENOTSUP;
	}
	free(sock);
	dir_env = env_of(pid, "TREV_SOCKET_DIR", &err);
	xdg = env_of(pid, "XDG_RUNTIME_DIR", &err);
	if (dir_env && *dir_env)
		n = snprintf(path, size, "%s/%d.sock", dir_env, (int)pid);
	else if (xdg && *xdg)
		n = snprintf(path, size, "%s/trev/%d.sock", xdg, (int)pid);
	else
		n = snprintf(path, size, "/tmp/trev-%u/%d.sock", (unsigned int)uid, (int)pid);
	free(dir_env);
	free(xdg);
	if (n < 0 || (size_t)n >= size) {
		snprintf(why, why_size, "the socket path of process %d is too long", (int)pid);
		return -ENAMETOOLONG;
	}
	return 0;
}

int trev_remote_connect(pid_t pid, struct trev_remote **out, char *why, size_t why_size)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, ret;

	ret = socket_path(pid, addr.sun_path, sizeof(addr.sun_path), why, why_size);
	if (ret < 0)
		return ret;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		ret = -errno;
		if (ret == -ENOENT || ret == -ECONNREFUSED)
			snprintf(why, why_size, "process %d does not serve trev (no socket %s)",
				 (int)pid, addr.sun_path);
		else
			snprintf(why, why_size, "cannot connect to %s: %s", addr.sun_path,
				 strerror(-ret));
		if (ret == -ECONNREFUSED)
			ret = -ENOENT;
		if (fd >= 0)
			close(fd);
		return ret;
	}
	return trev_remote_from_fd(fd, pid, out, why, why_size);
}
