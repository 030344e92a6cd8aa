/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The control socket: the process's tree served on a Unix socket,
 * <dir>/<pid>.sock (mode 0600, in a 0700 directory of the user), so that
 * the `trev` command can attach by pid. One thread accepts, one thread per
 * connection answers; the program's own threads never touch the socket,
 * except in the two holds a recorder asks for (start-up and exit, "Holds").
 * The protocol is in proto.h; docs/control-socket.md explains it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/sock_dir.h"
#include "control/control.h"
#include "control/proto.h"
#include "events/events_internal.h"
#include "ring_buffer/rb_shm.h"
#include "tracefs/tracefs_internal.h"

#define CTL_MAX_CONNS	16	/* connections served at once; more are refused */
#define CTL_WAIT_SLICE	100	/* ms between checks that a blocked reader's peer is there */
#define CTL_EXIT_HOLD_MS 10000	/* longest the exit waits for holding connections */
#define CTL_SESSION_WAIT_S 30	/* longest a process that joined a session waits for RELEASE */

/* One client. */
struct ctl_conn {
	int fd;					/* the accepted socket */
	struct trev_file *files[TREV_PROTO_MAX_HANDLES]; /* handle - 1 → open file */
	uint8_t *in;				/* request payload (+1 for a NUL) */
	uint8_t *out;				/* reply payload */
	uint32_t in_cap, out_cap;		/* their sizes: grown on demand */
	bool holding;				/* sent HOLD: counted in ctl.holders */
	bool mapped;				/* sent MAP: the buffer is lent */
	bool mapped_consume;			/* with TREV_MAP_CONSUME */
	struct ctl_conn *next;			/* ctl.conns */
};

static struct {
	pthread_mutex_t lock;		/* the fields below */
	int listen_fd;			/* -1: not serving */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)]; /* the socket, for unlink */
	pid_t pid;			/* the process that made it */
	int nr_conns;
	struct ctl_conn *conns;		/* open connections (closed by a forked child) */
	bool atexit_done;
	pthread_cond_t cond;		/* holders, exiting and released changed */
	int holders;			/* connections that sent HOLD and are still open */
	bool exiting;			/* exit() has begun: HOLD replies go out */
	bool released;			/* a client sent RELEASE */
} ctl = { PTHREAD_MUTEX_INITIALIZER, -1, "", 0, 0, NULL, false, PTHREAD_COND_INITIALIZER, 0,
	  false, false };

/* TREV_ATTACH_WAIT, read once at start-up (trev__control_env()). */
static struct {
	int wait_s;		/* seconds; 0: no start-up hold */
	bool asked;		/* TREV_ATTACH_WAIT gave wait_s (not a session alone) */
	bool main_registered;	/* the program's own events are registered */
	bool deferred;		/* the constructor left the socket and hold to that moment */
} attach;

/* ------------------------------------------------------------------ */
/* Where the socket lives                                               */

/* Make @dir if needed; it must be ours, a real directory, closed to others. */
static int ctl_dir_check(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return -EPERM;
	return 0;
}

/* False for a process that is gone or a zombie: it serves no socket any more. */
static bool ctl_pid_alive(pid_t pid)
{
	char path[64], buf[256], *paren;
	ssize_t n;
	int fd;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	/* "pid (comm) S ...": the state follows the last ')'. */
	paren = strrchr(buf, ')');
	return !(paren && paren[1] == ' ' && paren[2] == 'Z');
}

/* Remove the sockets of processes that are gone (a killed process leaves its own). */
static void ctl_dir_sweep(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end, path[PATH_MAX];
		long pid = strtol(de->d_name, &end, 10);

		if (pid <= 0 || strcmp(end, ".sock") != 0 || pid == getpid())
			continue;
		if (ctl_pid_alive((pid_t)pid))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) < (int)sizeof(path))
			unlink(path);
	}
	closedir(d);
}

/* ------------------------------------------------------------------ */
/* Messages                                                             */

static int ctl_reply(struct ctl_conn *c, const struct trev_proto_hdr *req, int32_t result,
		     const void *data, uint32_t len)
{
	struct trev_proto_hdr h = {
		.magic = TREV_PROTO_MAGIC,
		.op = (uint16_t)(req->op | TREV_OP_REPLY),
		.handle = req->handle,
		.arg = result,
		.len = len,
	};
	int ret = trev_proto_io(c->fd, &h, sizeof(h), true);

	if (!ret && len)
		ret = trev_proto_io(c->fd, (void *)data, len, true);
	return ret;
}

/* A reply that carries descriptors @fds[0..@nfds) (SCM_RIGHTS) with its first byte. */
static int ctl_reply_fds(struct ctl_conn *c, const struct trev_proto_hdr *req, const int *fds,
			 unsigned int nfds)
{
	struct trev_proto_hdr h = {
		.magic = TREV_PROTO_MAGIC,
		.op = (uint16_t)(req->op | TREV_OP_REPLY),
		.handle = req->handle,
	};
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(2 * sizeof(int))];
	} ctrl;
	struct iovec iov = { .iov_base = &h, .iov_len = sizeof(h) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctrl.buf,
			      .msg_controllen = CMSG_SPACE(nfds * sizeof(int)) };
	struct cmsghdr *cm;
	ssize_t n;

	memset(ctrl.buf, 0, sizeof(ctrl.buf));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	do
		n = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* The descriptor went with the first byte; the rest as usual. */
	return trev_proto_io(c->fd, (uint8_t *)&h + n, sizeof(h) - (size_t)n, true);
}

/* ------------------------------------------------------------------ */
/* Operations                                                           */

/* Make *@buf hold @size bytes. Return: 0 or -ENOMEM. */
static int ctl_room(uint8_t **buf, uint32_t *cap, uint32_t size)
{
	uint8_t *p;

	if (size <= *cap)
		return 0;
	p = realloc(*buf, size);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = size;
	return 0;
}

/* The request's payload as a path (NUL-terminated in place). Return: it, or NULL. */
static const char *ctl_path(struct ctl_conn *c, const struct trev_proto_hdr *h)
{
	/* An empty path is the root: only a directory operation may name it. */
	bool root_ok = h->op == TREV_OP_READDIR || h->op == TREV_OP_STAT;

	if ((h->len == 0 && !root_ok) || h->len > TREV_PROTO_MAX_PATH ||
	    memchr(c->in, '\0', h->len))
		return NULL;
	c->in[h->len] = '\0';
	return (const char *)c->in;
}

static struct trev_file *ctl_file(struct ctl_conn *c, uint32_t handle)
{
	if (handle == 0 || handle > TREV_PROTO_MAX_HANDLES)
		return NULL;
	return c->files[handle - 1];
}

static int32_t ctl_open(struct ctl_conn *c, const char *path, int32_t po)
{
	int flags, ret;
	unsigned int slot;

	if (po & ~(int32_t)TREV_PO_ALL || !(po & (TREV_PO_READ | TREV_PO_WRITE)))
		return -EINVAL;
	for (slot = 0; slot < TREV_PROTO_MAX_HANDLES && c->files[slot]; slot++)
		;
	if (slot == TREV_PROTO_MAX_HANDLES)
		return -EMFILE;
	flags = (po & TREV_PO_READ) && (po & TREV_PO_WRITE) ? O_RDWR :
		(po & TREV_PO_WRITE)			   ? O_WRONLY :
							     O_RDONLY;
	if (po & TREV_PO_TRUNC)
		flags |= O_TRUNC;
	if (po & TREV_PO_APPEND)
		flags |= O_APPEND;
	/* Always non-blocking here: READ and POLL wait in slices (ctl_wait()). */
	ret = trev__tfs_open(path, flags | O_NONBLOCK, &c->files[slot]);
	if (ret < 0)
		return ret;
	c->files[slot]->outside = true;	/* trace_marker's records carry the process's pid */
	return (int32_t)slot + 1;
}

/* 1 while the client is still connected and has sent nothing new. */
static bool ctl_peer_waiting(struct ctl_conn *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN | POLLRDHUP };

	return poll(&p, 1, 0) == 0;
}

static int64_t ctl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait on ctl.cond (ctl.lock held) for at most @ms. */
static void ctl_cond_wait_ms(int64_t ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_cond_timedwait(&ctl.cond, &ctl.lock, &ts);
}

/*
 * Wait until @file is readable, for up to @timeout_ms (-1: for ever), in
 * slices, giving up when the client goes away. Return: > 0 readable, 0 on
 * time-out, -ECONNRESET when the client left.
 */
static int ctl_wait(struct ctl_conn *c, struct trev_file *file, int32_t timeout_ms)
{
	int64_t end = timeout_ms < 0 ? INT64_MAX : ctl_now_ms() + timeout_ms;

	for (;;) {
		int64_t left = end - ctl_now_ms();
		int ret;

		if (left <= 0)
			return 0;
		if (!ctl_peer_waiting(c))
			return -ECONNRESET;
		ret = trev_file_poll(file, left < CTL_WAIT_SLICE ? (int)left : CTL_WAIT_SLICE);
		if (ret > 0)
			return ret;
		if (ret < 0 && ret != -EINTR)
			return ret;
	}
}

static int ctl_read(struct ctl_conn *c, const struct trev_proto_hdr *h)
{
	struct trev_file *file = ctl_file(c, h->handle);
	unsigned int rflags = 0;
	uint32_t pr = 0;
	int32_t timeout;
	ssize_t n;

	if (!file)
		return ctl_reply(c, h, -EBADF, NULL, 0);
	if ((h->len != sizeof(timeout) && h->len != sizeof(timeout) + sizeof(pr)) || h->arg < 0 ||
	    (uint32_t)h->arg > TREV_PROTO_MAX_PAYLOAD)
		return ctl_reply(c, h, -EINVAL, NULL, 0);
	memcpy(&timeout, c->in, sizeof(timeout));
	if (h->len > sizeof(timeout))
		memcpy(&pr, c->in + sizeof(timeout), sizeof(pr));
	/* A full-page read does not wait (the file has no wait for a full page). */
	if (pr & ~TREV_PR_ALL || ((pr & TREV_PR_FULL) && timeout != 0))
		return ctl_reply(c, h, -EINVAL, NULL, 0);
	if (pr & TREV_PR_FULL)
		rflags |= TREV_READ_FULL;
	if (ctl_room(&c->out, &c->out_cap, (uint32_t)h->arg) < 0)
		return ctl_reply(c, h, -ENOMEM, NULL, 0);
	for (;;) {
		int ret;

		n = trev_file_read_flags(file, c->out, (size_t)h->arg, rflags);
		if (n != -EAGAIN || timeout == 0)
			break;
		ret = ctl_wait(c, file, timeout);
		if (ret == -ECONNRESET)
			return ret;
		if (ret <= 0)
			break;
	}
	/*
	 * Then whatever else is there now, up to the size asked: one round
	 * trip carries many pages of trace_pipe_raw (one page per read, as in
	 * the kernel), which is what lets trev record keep up.
	 */
	while (n > 0 && (uint32_t)n < (uint32_t)h->arg) {
		ssize_t more = trev_file_read_flags(file, c->out + n, (size_t)h->arg - (size_t)n,
						    rflags);

		if (more <= 0)
			break;
		n += more;
	}
	if (n < 0)
		return ctl_reply(c, h, (int32_t)n, NULL, 0);
	return ctl_reply(c, h, (int32_t)n, c->out, (uint32_t)n);
}

static int ctl_poll(struct ctl_conn *c, const struct trev_proto_hdr *h)
{
	struct trev_file *file = ctl_file(c, h->handle);
	int ret;

	if (!file)
		return ctl_reply(c, h, -EBADF, NULL, 0);
	ret = trev_file_poll(file, 0);
	if (ret == 0 && h->arg != 0)
		ret = ctl_wait(c, file, h->arg);
	if (ret == -ECONNRESET)
		return ret;
	return ctl_reply(c, h, ret, NULL, 0);
}

/*
 * HOLD: count this connection as a holder and say so (TREV_HOLD_SET), then
 * answer again only when the process begins to exit (ctl_exit_hold()); the
 * exit then waits until the connection closes. A client that hangs up first
 * just stops holding.
 */
static int ctl_hold(struct ctl_conn *c, const struct trev_proto_hdr *h)
{
	int ret;

	pthread_mutex_lock(&ctl.lock);
	if (!c->holding) {
		c->holding = true;
		ctl.holders++;
	}
	pthread_mutex_unlock(&ctl.lock);
	/* Counted before the recorder goes on (to RELEASE, say): a program
	 * that then runs straight to its exit waits for it. */
	ret = ctl_reply(c, h, TREV_HOLD_SET, NULL, 0);
	if (ret < 0)
		return ret;
	pthread_mutex_lock(&ctl.lock);
	while (!ctl.exiting) {
		bool there;

		ctl_cond_wait_ms(CTL_WAIT_SLICE);
		if (ctl.exiting)
			break;
		pthread_mutex_unlock(&ctl.lock);
		there = ctl_peer_waiting(c);
		pthread_mutex_lock(&ctl.lock);
		if (!there) {
			pthread_mutex_unlock(&ctl.lock);
			return -ECONNRESET;
		}
	}
	pthread_mutex_unlock(&ctl.lock);
	return ctl_reply(c, h, 0, NULL, 0);
}

static void ctl_hold_end(struct ctl_conn *c)
{
	if (!c->holding)
		return;
	pthread_mutex_lock(&ctl.lock);
	ctl.holders--;
	pthread_cond_broadcast(&ctl.cond);
	pthread_mutex_unlock(&ctl.lock);
}

struct ctl_dirbuf {
	uint8_t *p;
	uint32_t len;
};

static int ctl_readdir_one(const char *name, const struct trev_stat *st, void *arg)
{
	struct ctl_dirbuf *d = arg;
	uint32_t is_dir = (uint32_t)st->is_dir, mode = st->mode;
	size_t n = strlen(name) + 1;

	if (d->len + 8 + n > TREV_PROTO_MAX_PAYLOAD)
		return -E2BIG;
	memcpy(d->p + d->len, &is_dir, 4);
	memcpy(d->p + d->len + 4, &mode, 4);
	memcpy(d->p + d->len + 8, name, n);
	d->len += 8 + (uint32_t)n;
	return 0;
}

/* Answer one request. Return: 0 to go on, < 0 to close the connection. */
/*
 * MAP: hand the ring buffer's memfd over. The peer was checked at accept
 * (ctl_peer_allowed(): our user or root), as for every other operation.
 */
static int ctl_map(struct ctl_conn *c, const struct trev_proto_hdr *h)
{
	bool consume = h->arg & TREV_MAP_CONSUME;
	int fds[2], ret;
	unsigned int nfds = 1;

	if (h->len || h->handle || h->arg & ~TREV_MAP_ALL)
		return ctl_reply(c, h, -EINVAL, NULL, 0);
	if (c->mapped)
		return ctl_reply(c, h, -EBUSY, NULL, 0);
	ret = trev__instance_lend(consume, &fds[0]);
	if (ret < 0)
		return ctl_reply(c, h, ret, NULL, 0);
	c->mapped = true;
	c->mapped_consume = consume;
	fds[1] = trev_rb_busy_memfd();
	if (h->arg & TREV_MAP_BUSY && fds[1] >= 0)
		nfds = 2;
	return ctl_reply_fds(c, h, fds, nfds);
}

/*
 * RESTAGE: the staged events of the client that consumes through MAP, back
 * into the buffer's staging queues; trev_rb_stage_import() checks them.
 */
static int ctl_restage(struct ctl_conn *c, const struct trev_proto_hdr *h)
{
	if (h->handle || h->arg || !c->mapped_consume)
		return ctl_reply(c, h, -EINVAL, NULL, 0);
	return ctl_reply(c, h, trev__instance_restage(c->in, h->len), NULL, 0);
}

/* UNSTAGE: the staged events go to the client that consumes through MAP. */
static int ctl_unstage(struct ctl_conn *c, const struct trev_proto_hdr *h)
{
	ssize_t n;

	if (h->handle || h->len || !c->mapped_consume || h->arg < 16384 ||
	    (uint32_t)h->arg > TREV_PROTO_MAX_PAYLOAD)
		return ctl_reply(c, h, -EINVAL, NULL, 0);
	if (ctl_room(&c->out, &c->out_cap, (uint32_t)h->arg) < 0)
		return ctl_reply(c, h, -ENOMEM, NULL, 0);
	n = trev__instance_unstage(c->out, (size_t)h->arg);
	return ctl_reply(c, h, (int32_t)n, c->out, n < 0 ? 0 : (uint32_t)n);
}

static int ctl_handle(struct ctl_conn *c, const struct trev_proto_hdr *h)
{
	const char *path = NULL;
	struct trev_file *file;
	int ret;

	switch (h->op) {
	case TREV_OP_HELLO: {
		uint32_t version = TREV_PROTO_VERSION, theirs;
		char text[64];
		int n = snprintf(text, sizeof(text), "trev %s pid %d\n", TREV_VERSION_STRING,
				 (int)getpid());

		/* An older client that we still speak gets its own version. */
		if (h->len == sizeof(theirs)) {
			memcpy(&theirs, c->in, sizeof(theirs));
			if (theirs >= TREV_PROTO_VERSION_MIN && theirs < TREV_PROTO_VERSION)
				version = theirs;
		}
		return ctl_reply(c, h, (int32_t)version, text, (uint32_t)n);
	}
	case TREV_OP_OPEN:
	case TREV_OP_STAT:
	case TREV_OP_READDIR:
	case TREV_OP_MKDIR:
	case TREV_OP_RMDIR:
		path = ctl_path(c, h);
		if (!path)
			return ctl_reply(c, h, -EINVAL, NULL, 0);
		break;
	default:
		break;
	}
	switch (h->op) {
	case TREV_OP_OPEN:
		return ctl_reply(c, h, ctl_open(c, path, h->arg), NULL, 0);
	case TREV_OP_READ:
		return ctl_read(c, h);
	case TREV_OP_WRITE:
		file = ctl_file(c, h->handle);
		if (!file)
			return ctl_reply(c, h, -EBADF, NULL, 0);
		return ctl_reply(c, h, (int32_t)trev_file_write(file, c->in, h->len), NULL, 0);
	case TREV_OP_POLL:
		return ctl_poll(c, h);
	case TREV_OP_CLOSE:
		file = ctl_file(c, h->handle);
		if (!file)
			return ctl_reply(c, h, -EBADF, NULL, 0);
		c->files[h->handle - 1] = NULL;
		return ctl_reply(c, h, trev_file_close(file), NULL, 0);
	case TREV_OP_STAT: {
		struct trev_stat st;
		uint32_t out[2];

		ret = trev__tfs_stat(path, &st);
		if (ret < 0)
			return ctl_reply(c, h, ret, NULL, 0);
		out[0] = (uint32_t)st.is_dir;
		out[1] = st.mode;
		return ctl_reply(c, h, 0, out, sizeof(out));
	}
	case TREV_OP_READDIR: {
		struct ctl_dirbuf d = { NULL, 0 };

		if (ctl_room(&c->out, &c->out_cap, TREV_PROTO_MAX_PAYLOAD) < 0)
			return ctl_reply(c, h, -ENOMEM, NULL, 0);
		d.p = c->out;
		ret = trev__tfs_readdir(path, ctl_readdir_one, &d);
		return ctl_reply(c, h, ret, d.p, ret < 0 ? 0 : d.len);
	}
	case TREV_OP_MKDIR:
		return ctl_reply(c, h, trev__tfs_mkdir(path), NULL, 0);
	case TREV_OP_RMDIR:
		return ctl_reply(c, h, trev__tfs_rmdir(path), NULL, 0);
	case TREV_OP_RELEASE:
		/* The reply goes first: once released, the program may run to
		 * its end (even be killed) before this thread is scheduled again,
		 * and the recorder would read a reset connection instead. */
		ret = ctl_reply(c, h, 0, NULL, 0);
		pthread_mutex_lock(&ctl.lock);
		ctl.released = true;
		pthread_cond_broadcast(&ctl.cond);
		pthread_mutex_unlock(&ctl.lock);
		return ret;
	case TREV_OP_HOLD:
		return ctl_hold(c, h);
	case TREV_OP_MAP:
		return ctl_map(c, h);
	case TREV_OP_RESTAGE:
		return ctl_restage(c, h);
	case TREV_OP_UNSTAGE:
		return ctl_unstage(c, h);
	default:
		return ctl_reply(c, h, -EOPNOTSUPP, NULL, 0);
	}
}

/*
 * trev__control_serve() - answer requests on @fd until the client leaves
 * or breaks the protocol; closes what the client left open.
 * Context: a connection thread, or a test/fuzz driver with a socketpair.
 */
void trev__control_serve(int fd)
{
	struct ctl_conn c = { .fd = fd };
	struct trev_proto_hdr h;

	for (;;) {
		int ret = trev_proto_io(fd, &h, sizeof(h), false);

		if (ret < 0)
			break;
		if (h.magic != TREV_PROTO_MAGIC || h.reserved || h.op & TREV_OP_REPLY ||
		    h.len > TREV_PROTO_MAX_PAYLOAD) {
			/* We cannot find the next message: say why and hang up. */
			ctl_reply(&c, &h, -EPROTO, NULL, 0);
			break;
		}
		if (ctl_room(&c.in, &c.in_cap, h.len + 1) < 0) {
			ctl_reply(&c, &h, -ENOMEM, NULL, 0);
			break;
		}
		if (h.len && trev_proto_io(fd, c.in, h.len, false) < 0)
			break;
		if (ctl_handle(&c, &h) < 0)
			break;
	}
	for (unsigned int i = 0; i < TREV_PROTO_MAX_HANDLES; i++)
		if (c.files[i])
			trev_file_close(c.files[i]);
	ctl_hold_end(&c);
	if (c.mapped)
		trev__instance_unlend(c.mapped_consume);
	free(c.in);
	free(c.out);
}

/* ------------------------------------------------------------------ */
/* Threads                                                              */

/* Only the process's user, or root, may attach. */
static bool ctl_peer_allowed(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return false;
	return cred.uid == geteuid() || cred.uid == 0;
}

static void ctl_refuse(int fd, int err)
{
	struct trev_proto_hdr h = { .magic = TREV_PROTO_MAGIC, .op = TREV_OP_REPLY, .arg = err };

	trev_proto_io(fd, &h, sizeof(h), true);
	close(fd);
}

static void *ctl_conn_main(void *arg)
{
	struct ctl_conn *link = arg;
	struct ctl_conn **pp;

	trev__control_serve(link->fd);
	pthread_mutex_lock(&ctl.lock);
	for (pp = &ctl.conns; *pp && *pp != link; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = link->next;
	ctl.nr_conns--;
	pthread_mutex_unlock(&ctl.lock);
	close(link->fd);
	free(link);
	return NULL;
}

static void *ctl_accept_main(void *arg)
{
	int lfd = (int)(intptr_t)arg;

	for (;;) {
		struct ctl_conn *link;
		pthread_attr_t attr;
		pthread_t t;
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE ||
			    errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				if (errno != EINTR && errno != ECONNABORTED)
					usleep(100000);	/* out of resources: do not spin */
				continue;
			}
			return NULL;	/* closed by a forked child's restart or by exit */
		}
		if (!ctl_peer_allowed(fd)) {
			ctl_refuse(fd, -EACCES);
			continue;
		}
		link = calloc(1, sizeof(*link));
		pthread_mutex_lock(&ctl.lock);
		if (!link || ctl.nr_conns >= CTL_MAX_CONNS) {
			pthread_mutex_unlock(&ctl.lock);
			free(link);
			ctl_refuse(fd, -EBUSY);
			continue;
		}
		link->fd = fd;
		link->next = ctl.conns;
		ctl.conns = link;
		ctl.nr_conns++;
		pthread_mutex_unlock(&ctl.lock);
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &attr, ctl_conn_main, link) != 0) {
			pthread_mutex_lock(&ctl.lock);
			ctl.conns = link->next;
			ctl.nr_conns--;
			pthread_mutex_unlock(&ctl.lock);
			free(link);
			ctl_refuse(fd, -EAGAIN);
		}
		pthread_attr_destroy(&attr);
	}
}

/*
 * The exit hold: answer every HOLD, then wait (at most CTL_EXIT_HOLD_MS)
 * until each holding connection has closed, so that a recorder drains the
 * last pages and reads the metadata while the buffers and events exist.
 * Called with ctl.lock held, from exit().
 */
static void ctl_exit_hold(void)
{
	int64_t end = ctl_now_ms() + CTL_EXIT_HOLD_MS;

	ctl.exiting = true;
	pthread_cond_broadcast(&ctl.cond);
	while (ctl.holders > 0) {
		int64_t left = end - ctl_now_ms();

		if (left <= 0) {
			trev__log(TREV_LOG_WARN,
				  "control socket: exit held %d ms by %d connection(s); exiting\n",
				  CTL_EXIT_HOLD_MS, ctl.holders);
			break;
		}
		ctl_cond_wait_ms(left);
	}
}

static void ctl_at_exit(void)
{
	pthread_mutex_lock(&ctl.lock);
	if (ctl.pid == getpid())
		ctl_exit_hold();
	if (ctl.pid == getpid() && ctl.path[0])
		unlink(ctl.path);
	ctl.path[0] = '\0';
	pthread_mutex_unlock(&ctl.lock);
}

static void ctl_release_wait(int wait_s, bool forked);

/* A forked child: the parent's socket and connections are not ours; serve our own. */
static void ctl_atfork_child(void)
{
	pthread_mutex_init(&ctl.lock, NULL);
	pthread_cond_init(&ctl.cond, NULL);
	ctl.holders = 0;
	ctl.exiting = false;
	if (ctl.listen_fd >= 0)
		close(ctl.listen_fd);
	ctl.listen_fd = -1;
	for (struct ctl_conn *c = ctl.conns, *next; c; c = next) {
		next = c->next;
		close(c->fd);
		free(c);
	}
	ctl.conns = NULL;
	ctl.nr_conns = 0;
	ctl.path[0] = '\0';
	trev__instance_lends_forget();
	/*
	 * Sanitizer builds leave forked children without a socket:
	 * ThreadSanitizer kills a child of a threaded process that starts a
	 * thread, and AddressSanitizer's allocator can stay locked in the
	 * child by a thread of the parent that was inside malloc at fork.
	 */
#if !defined(TREV_TSAN) && !defined(__SANITIZE_ADDRESS__)
	ctl.released = false;
	trev__control_start();
	/*
	 * In a recorder's session the child joins before it returns from
	 * fork(): its settings are its parent's, its buffers fresh, and the
	 * recorder maps them before the child writes its first event.
	 */
	if (trev__session_active())
		ctl_release_wait(CTL_SESSION_WAIT_S, true);
#endif
}

static pthread_once_t ctl_fork_once = PTHREAD_ONCE_INIT;

static void ctl_fork_register(void)
{
	pthread_atfork(NULL, NULL, ctl_atfork_child);
}

/* Bind the socket of this process. Return: the listening fd, or -errno. */
static int ctl_listen(const char *dir, char *path, size_t size)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	mode_t old;
	int fd, ret, n;

	n = snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%d.sock", dir, (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(addr.sun_path) || (size_t)n >= size)
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(addr.sun_path);	/* a dead process with our pid left it */
	old = umask(0177);	/* 0600 from the start: no window where others may connect */
	ret = bind(fd, (struct sockaddr *)&addr, sizeof(addr));
	umask(old);
	if (ret < 0 || listen(fd, SOMAXCONN) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	memcpy(path, addr.sun_path, (size_t)n + 1);
	return fd;
}

int trev__control_start(void)
{
	const char *env = getenv("TREV_SOCKET");
	char dir[PATH_MAX];
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t t;
	int fd, ret;

	if (env && strcmp(env, "1") != 0) {
		if (strcmp(env, "0") != 0)
			trev__log(TREV_LOG_WARN, "TREV_SOCKET=%s: not 0 or 1; ignored\n", env);
		else
			return 0;
	}
	/*
	 * A forked child of a session joins in our fork handler, which must
	 * run after the ring buffer's (fresh buffers, nothing lent): child
	 * handlers run in the order they were registered, and the ring
	 * buffer registers its own when the first buffer is made.
	 */
	if (trev__session_active())
		trev__top_instance();
	pthread_once(&ctl_fork_once, ctl_fork_register);
	ret = trev__sock_dir(dir, sizeof(dir));
	if (!ret)
		ret = ctl_dir_check(dir);
	if (ret < 0) {
		trev__log(TREV_LOG_WARN, "control socket: %s: %s; trev -p cannot attach\n", dir,
			  strerror(-ret));
		return ret;
	}
	ctl_dir_sweep(dir);
	pthread_mutex_lock(&ctl.lock);
	if (ctl.listen_fd >= 0) {
		pthread_mutex_unlock(&ctl.lock);
		return 0;
	}
	fd = ctl_listen(dir, ctl.path, sizeof(ctl.path));
	if (fd < 0) {
		pthread_mutex_unlock(&ctl.lock);
		trev__log(TREV_LOG_WARN, "control socket in %s: %s; trev -p cannot attach\n", dir,
			  strerror(-fd));
		return fd;
	}
	ctl.listen_fd = fd;
	ctl.pid = getpid();
	if (!ctl.atexit_done) {
		ctl.atexit_done = true;
		atexit(ctl_at_exit);
	}
	/*
	 * The thread takes no signal meant for the program. SIGTRAP stays
	 * open: the function tracer refuses to patch while a thread blocks it
	 * (docs/function-tracer.md), and an int3 kills a thread that does.
	 */
	sigfillset(&all);
	sigdelset(&all, SIGTRAP);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = -pthread_create(&t, &attr, ctl_accept_main, (void *)(intptr_t)fd);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret < 0) {
		unlink(ctl.path);
		ctl.path[0] = '\0';
		close(fd);
		ctl.listen_fd = -1;
	}
	pthread_mutex_unlock(&ctl.lock);
	return ret;
}

ssize_t trev__control_path(char *buf, size_t size)
{
	ssize_t n;

	pthread_mutex_lock(&ctl.lock);
	n = ctl.path[0] ? snprintf(buf, size, "%s", ctl.path) : -ENOENT;
	pthread_mutex_unlock(&ctl.lock);
	return n;
}

/* ------------------------------------------------------------------ */
/* Holds                                                                */

/*
 * The start-up hold lets `trev record -- COMMAND` configure tracing before
 * the program runs: with TREV_ATTACH_WAIT=<seconds> in the environment, the
 * socket appears only once the program's own events are registered, and the
 * start-up then blocks until a client sends RELEASE or the time passes.
 *
 * When is "registered"? A program linked with libtrev.so registers its
 * events in its own constructors, after the library's; a static link
 * usually runs the program's first. So the constructor holds at once
 * unless the program has a __trev_events section whose registration is
 * still to come; then trev__control_module_registered() holds instead.
 *
 * The exit hold (HOLD, ctl_exit_hold()) keeps exit() from tearing the
 * buffers down until the recorder has drained them.
 */

/* TREV_ATTACH_WAIT: read once, and removed so that the program's children do not wait. */
void trev__control_env(void)
{
	const char *env = getenv("TREV_ATTACH_WAIT");
	char *end;
	long s;

	/* A session's process holds until its recorder releases it: TREV_ATTACH_WAIT's hold. */
	if (trev__session_env())
		attach.wait_s = CTL_SESSION_WAIT_S;
	if (!env)
		return;
	s = strtol(env, &end, 10);
	if (!*env || *end || s <= 0 || s > 3600)
		trev__log(TREV_LOG_WARN, "TREV_ATTACH_WAIT=%s: not 1..3600 seconds; ignored\n", env);
	else
		attach.wait_s = (int)s, attach.asked = true;
	unsetenv("TREV_ATTACH_WAIT");
}

struct ctl_in_main {
	uintptr_t addr;
	bool found;
};

static int ctl_in_main_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct ctl_in_main *m = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && m->addr >= lo && m->addr - lo < ph->p_memsz)
			m->found = true;
	}
	return 1;	/* the first object is the program */
}

bool trev__control_in_main(const void *addr)
{
	struct ctl_in_main m = { (uintptr_t)addr, false };

	dl_iterate_phdr(ctl_in_main_cb, &m);
	return m.found;
}

bool trev__control_main_has_section(const char *name)
{
	bool found = false;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return false;
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *n;

			if (!gelf_getshdr(scn, &sh))
				continue;
			n = elf_strptr(elf, shstrndx, sh.sh_name);
			found = n && strcmp(n, name) == 0;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

/*
 * Wait for RELEASE or the time-out, once the socket serves. In a session,
 * first tell the recorder we are here (@forked: a fork() child); when no
 * recorder takes the message, nobody will release us: no hold.
 */
static void ctl_release_wait(int wait_s, bool forked)
{
	int64_t end = ctl_now_ms() + (int64_t)wait_s * 1000;
	bool released;

	pthread_mutex_lock(&ctl.lock);
	if (ctl.listen_fd < 0) {
		/* No socket (warned, or TREV_SOCKET=0): nobody can release us. */
		pthread_mutex_unlock(&ctl.lock);
		return;
	}
	pthread_mutex_unlock(&ctl.lock);
	/*
	 * A session that cannot be joined: run on, untraced. Unless it was a
	 * `trev record -a`'s socket left by a recorder that is gone (the join
	 * forgot it) and TREV_ATTACH_WAIT asks for a hold of its own.
	 */
	if (trev__session_active() && trev__session_join(forked) < 0 &&
	    (forked || !attach.asked || trev__session_active()))
		return;
	pthread_mutex_lock(&ctl.lock);
	while (!ctl.released) {
		int64_t left = end - ctl_now_ms();

		if (left <= 0)
			break;
		ctl_cond_wait_ms(left);
	}
	released = ctl.released;
	pthread_mutex_unlock(&ctl.lock);
	if (!released)
		trev__log(TREV_LOG_WARN, "%s: no RELEASE from a recorder within %d s; running on\n",
			  trev__session_active() ? "TREV_SESSION" : "TREV_ATTACH_WAIT", wait_s);
}

/* Serve the socket, then wait for RELEASE or the time-out. */
static void ctl_attach_hold(void)
{
	int wait_s = attach.wait_s;

	attach.wait_s = 0;
	trev__control_start();
	ctl_release_wait(wait_s, false);
}

/*
 * trev__control_init() - the library constructor's part: serve the socket,
 * and hold start-up if TREV_ATTACH_WAIT asks, now or when the program's
 * events are registered.
 */
void trev__control_init(void)
{
	if (!attach.wait_s) {
		trev__control_start();
		return;
	}
	if (!attach.main_registered && trev__control_main_has_section("__trev_events")) {
		attach.deferred = true;
		return;
	}
	ctl_attach_hold();
}

/*
 * trev__control_module_registered() - an object registered its events
 * (@section: an address in its event section); the deferred start-up hold
 * runs when the object is the program.
 * Context: the object's constructor (or dlopen()), no lock held.
 */
void trev__control_module_registered(const void *section)
{
	if (!attach.wait_s || attach.main_registered || !section || !trev__control_in_main(section))
		return;
	attach.main_registered = true;
	if (attach.deferred)
		ctl_attach_hold();
}
