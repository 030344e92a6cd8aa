/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The client side of the control socket: find a process's socket, talk to it. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "control/proto.h"
#include "remote.h"

struct trev_remote {
	int fd;			/* connected socket */
	char banner[64];	/* from HELLO */
};

/* ------------------------------------------------------------------ */
/* Finding the socket                                                   */

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

/* ------------------------------------------------------------------ */
/* Messages                                                             */

/*
 * One request and its reply. The reply's payload goes to @out (up to
 * @out_size; a longer one is a protocol error). Return: the reply's arg,
 * or a negative errno of the transport; *@out_len gets the payload length.
 */
static int64_t call(struct trev_remote *r, uint16_t op, uint32_t handle, int32_t arg,
		    const void *p1, uint32_t len1, const void *p2, uint32_t len2, void *out,
		    size_t out_size, uint32_t *out_len)
{
	struct trev_proto_hdr h = { TREV_PROTO_MAGIC, op, 0, handle, arg, len1 + len2 };
	int ret;

	if ((uint64_t)len1 + len2 > TREV_PROTO_MAX_PAYLOAD)
		return -E2BIG;
	ret = trev_proto_io(r->fd, &h, sizeof(h), true);
	if (!ret && len1)
		ret = trev_proto_io(r->fd, (void *)p1, len1, true);
	if (!ret && len2)
		ret = trev_proto_io(r->fd, (void *)p2, len2, true);
	if (!ret)
		ret = trev_proto_io(r->fd, &h, sizeof(h), false);
	if (ret)
		return ret;
	if (h.magic != TREV_PROTO_MAGIC || h.op != (op | TREV_OP_REPLY) || h.len > out_size)
		return -EPROTO;
	if (h.len && (ret = trev_proto_io(r->fd, out, h.len, false)))
		return ret;
	if (out_len)
		*out_len = h.len;
	return h.arg;
}

int trev_remote_connect(pid_t pid, struct trev_remote **out, char *why, size_t why_size)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct trev_remote *r;
	uint32_t version = TREV_PROTO_VERSION, len = 0;
	int64_t ret;

	ret = socket_path(pid, addr.sun_path, sizeof(addr.sun_path), why, why_size);
	if (ret < 0)
		return (int)ret;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (r->fd < 0 || connect(r->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		ret = -errno;
		if (ret == -ENOENT || ret == -ECONNREFUSED)
			snprintf(why, why_size, "process %d does not serve trev (no socket %s)",
				 (int)pid, addr.sun_path);
		else
			snprintf(why, why_size, "cannot connect to %s: %s", addr.sun_path,
				 strerror((int)-ret));
		if (ret == -ECONNREFUSED)
			ret = -ENOENT;
		goto out_free;
	}
	ret = call(r, TREV_OP_HELLO, 0, 0, &version, sizeof(version), NULL, 0, r->banner,
		   sizeof(r->banner) - 1, &len);
	if (ret < 0) {
		snprintf(why, why_size, "process %d refused the connection: %s", (int)pid,
			 strerror((int)-ret));
		goto out_free;
	}
	if (ret != TREV_PROTO_VERSION) {
		snprintf(why, why_size, "process %d speaks protocol %d, not %u", (int)pid,
			 (int)ret, TREV_PROTO_VERSION);
		ret = -EPROTO;
		goto out_free;
	}
	r->banner[len] = '\0';
	r->banner[strcspn(r->banner, "\n")] = '\0';
	*out = r;
	return 0;
out_free:
	if (r->fd >= 0)
		close(r->fd);
	free(r);
	return (int)ret;
}

void trev_remote_close(struct trev_remote *r)
{
	if (!r)
		return;
	close(r->fd);
	free(r);
}

const char *trev_remote_banner(const struct trev_remote *r)
{
	return r->banner;
}

int trev_remote_open(struct trev_remote *r, const char *path, unsigned int po)
{
	return (int)call(r, TREV_OP_OPEN, 0, (int32_t)po, path, (uint32_t)strlen(path), NULL, 0,
			 NULL, 0, NULL);
}

ssize_t trev_remote_read(struct trev_remote *r, int h, void *buf, size_t size, int timeout_ms)
{
	int32_t t = timeout_ms;

	if (size > TREV_PROTO_MAX_PAYLOAD)
		size = TREV_PROTO_MAX_PAYLOAD;
	return (ssize_t)call(r, TREV_OP_READ, (uint32_t)h, (int32_t)size, &t, sizeof(t), NULL, 0,
			     buf, size, NULL);
}

ssize_t trev_remote_write(struct trev_remote *r, int h, const void *buf, size_t size)
{
	if (size > TREV_PROTO_MAX_PAYLOAD)
		return -E2BIG;
	return (ssize_t)call(r, TREV_OP_WRITE, (uint32_t)h, 0, buf, (uint32_t)size, NULL, 0,
			     NULL, 0, NULL);
}

int trev_remote_poll(struct trev_remote *r, int h, int timeout_ms)
{
	return (int)call(r, TREV_OP_POLL, (uint32_t)h, timeout_ms, NULL, 0, NULL, 0, NULL, 0,
			 NULL);
}

int trev_remote_close_file(struct trev_remote *r, int h)
{
	return (int)call(r, TREV_OP_CLOSE, (uint32_t)h, 0, NULL, 0, NULL, 0, NULL, 0, NULL);
}

int trev_remote_readdir(struct trev_remote *r, const char *path,
			int (*fn)(const char *name, int is_dir, unsigned int mode, void *arg),
			void *arg)
{
	uint8_t *buf = malloc(TREV_PROTO_MAX_PAYLOAD);
	uint32_t len = 0, off = 0;
	int64_t ret;

	if (!buf)
		return -ENOMEM;
	ret = call(r, TREV_OP_READDIR, 0, 0, path, (uint32_t)strlen(path), NULL, 0, buf,
		   TREV_PROTO_MAX_PAYLOAD, &len);
	while (ret >= 0 && off + 9 <= len) {
		uint32_t is_dir, mode;
		const char *name = (const char *)buf + off + 8;
		size_t n = strnlen(name, len - off - 8);

		if (n == len - off - 8) {
			ret = -EPROTO;
			break;
		}
		memcpy(&is_dir, buf + off, 4);
		memcpy(&mode, buf + off + 4, 4);
		ret = fn(name, (int)is_dir, mode, arg);
		if (ret)
			break;
		off += 8 + (uint32_t)n + 1;
	}
	free(buf);
	return (int)ret;
}

int trev_remote_stat(struct trev_remote *r, const char *path, int *is_dir, unsigned int *mode)
{
	uint32_t out[2], len = 0;
	int64_t ret = call(r, TREV_OP_STAT, 0, 0, path, (uint32_t)strlen(path), NULL, 0, out,
			   sizeof(out), &len);

	if (ret < 0)
		return (int)ret;
	if (len != sizeof(out))
		return -EPROTO;
	*is_dir = (int)out[0];
	*mode = out[1];
	return 0;
}

int trev_remote_mkdir(struct trev_remote *r, const char *path)
{
	return (int)call(r, TREV_OP_MKDIR, 0, 0, path, (uint32_t)strlen(path), NULL, 0, NULL, 0,
			 NULL);
}

int trev_remote_rmdir(struct trev_remote *r, const char *path)
{
	return (int)call(r, TREV_OP_RMDIR, 0, 0, path, (uint32_t)strlen(path), NULL, 0, NULL, 0,
			 NULL);
}

int trev_remote_write_file(struct trev_remote *r, const char *path, const char *text,
			   int append)
{
	int h = trev_remote_open(r, path, TREV_PO_WRITE | (append ? TREV_PO_APPEND : TREV_PO_TRUNC));
	ssize_t n;
	int ret;

	if (h < 0)
		return h;
	n = trev_remote_write(r, h, text, strlen(text));
	ret = trev_remote_close_file(r, h);
	return n < 0 ? (int)n : ret;
}

ssize_t trev_remote_read_file(struct trev_remote *r, const char *path, char **text)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	ssize_t n;
	int h = trev_remote_open(r, path, TREV_PO_READ | TREV_PO_NONBLOCK);

	if (h < 0)
		return h;
	for (;;) {
		if (cap - len < 65536) {
			char *p = realloc(buf, cap += 65536 + 1);

			if (!p) {
				n = -ENOMEM;
				break;
			}
			buf = p;
		}
		n = trev_remote_read(r, h, buf + len, cap - len - 1, 0);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	trev_remote_close_file(r, h);
	if (n == -EAGAIN)
		n = 0;	/* a pipe file with nothing more to give */
	if (n < 0) {
		free(buf);
		return n;
	}
	if (!buf && !(buf = malloc(1)))
		return -ENOMEM;
	buf[len] = '\0';
	*text = buf;
	return (ssize_t)len;
}

int trev_remote_release(struct trev_remote *r)
{
	return (int)call(r, TREV_OP_RELEASE, 0, 0, NULL, 0, NULL, 0, NULL, 0, NULL);
}

int trev_remote_hold(struct trev_remote *r)
{
	struct trev_proto_hdr h = { TREV_PROTO_MAGIC, TREV_OP_HOLD, 0, 0, 0, 0 };

	return trev_proto_io(r->fd, &h, sizeof(h), true);
}

int trev_remote_hold_wait(struct trev_remote *r, int timeout_ms)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	struct trev_proto_hdr h;
	int ret = poll(&p, 1, timeout_ms);

	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	if (ret == 0)
		return 0;
	ret = trev_proto_io(r->fd, &h, sizeof(h), false);
	if (ret)
		return ret;
	if (h.magic != TREV_PROTO_MAGIC || h.op != (TREV_OP_HOLD | TREV_OP_REPLY) || h.len)
		return -EPROTO;
	return h.arg < 0 ? h.arg : 1;
}
