/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The client side of the control socket's messages: each request and its
 * reply, every reply checked against the request it answers before the
 * callers see any of it. Finding and trusting the socket is remote_find.c.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "control/proto.h"
#include "remote.h"

#define RMT_BANNER_MAX	63	/* HELLO's text: "trev <version> pid <pid>\n" */
#define RMT_NAME_MAX	255	/* a READDIR entry's name */
#define RMT_MAX_ERRNO	4095	/* a negative result below -4095 is no errno */

struct trev_remote {
	int fd;			/* connected socket */
	pid_t pid;		/* the process, for messages */
	int broken;		/* 0, or the error every call returns from now on */
	bool quiet;		/* during the handshake: the message goes to the caller */
	uint32_t version;	/* the protocol version HELLO agreed on */
	char banner[RMT_BANNER_MAX + 1];	/* from HELLO */
	char error[256];	/* the last malformed or missing reply, explained */
};

/* How long a reply may take beyond the request's own wait (0: for ever). */
static int rmt_timeout_ms = TREV_REMOTE_TIMEOUT_MS;

void trev_remote_set_timeout(int ms)
{
	rmt_timeout_ms = ms > 0 ? ms : 0;
}

int trev_remote_timeout(void)
{
	return rmt_timeout_ms;
}

static const char *const rmt_op_names[] = {
#define RMT_OP_NAME(name, nr) [nr] = #name,
	TREV_PROTO_OPS(RMT_OP_NAME)
#undef RMT_OP_NAME
};

static const char *rmt_op_name(uint16_t op)
{
	if (op < sizeof(rmt_op_names) / sizeof(rmt_op_names[0]) && rmt_op_names[op])
		return rmt_op_names[op];
	return "?";
}

static void rmt_report_stderr(const char *line)
{
	fprintf(stderr, "trev: %s\n", line);
}

static void (*rmt_report)(const char *line) = rmt_report_stderr;

void trev_remote_set_reporter(void (*fn)(const char *line))
{
	rmt_report = fn ? fn : rmt_report_stderr;
}

/*
 * The connection is of no more use: the stream cannot be resynchronised
 * (a malformed reply, or a transport error half-way through a message).
 * Every later call returns @err without touching the socket.
 */
static int rmt_break(struct trev_remote *r, int err)
{
	if (!r->broken) {
		r->broken = err;
		shutdown(r->fd, SHUT_RDWR);
	}
	return err;
}

__attribute__((format(printf, 3, 0)))
static int rmt_vmalformed(struct trev_remote *r, uint16_t op, const char *fmt, va_list ap)
{
	int n = snprintf(r->error, sizeof(r->error), "process %d sent a malformed reply to %s: ",
			 (int)r->pid, rmt_op_name(op));

	if (n > 0 && (size_t)n < sizeof(r->error))
		vsnprintf(r->error + n, sizeof(r->error) - (size_t)n, fmt, ap);
	if (!r->broken && !r->quiet)
		rmt_report(r->error);
	return rmt_break(r, -EPROTO);
}

__attribute__((format(printf, 3, 4)))
static int rmt_malformed(struct trev_remote *r, uint16_t op, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = rmt_vmalformed(r, op, fmt, ap);
	va_end(ap);
	return ret;
}

int trev_remote_malformed(struct trev_remote *r, unsigned int op, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = rmt_vmalformed(r, (uint16_t)op, fmt, ap);
	va_end(ap);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Deadlines                                                            */

/*
 * A request's deadline, in CLOCK_MONOTONIC ms: now, plus the request's
 * own wait @wait_ms (a READ's or POLL's time-out; -1: it may wait for
 * ever), plus the time-out. 0: none.
 */
static int64_t rmt_deadline(int wait_ms)
{
	struct timespec ts;

	if (!rmt_timeout_ms || wait_ms < 0)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + wait_ms + rmt_timeout_ms;
}

/* The ms left until @deadline for poll(): -1 without one, 0 when it passed. */
static int rmt_left(int64_t deadline)
{
	struct timespec ts;
	int64_t now;

	if (!deadline)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	return now >= deadline ? 0 : (int)(deadline - now);
}

/*
 * Wait until @fd is ready for @events, up to @deadline.
 * Return: 0, -ETIMEDOUT, or a negative errno.
 */
static int rmt_wait(int fd, short events, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		int n = poll(&p, 1, rmt_left(deadline));

		if (n > 0)
			return 0;
		if (n == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

/*
 * Send or receive exactly @size bytes by @deadline (0: none), as
 * trev_proto_io() does without one. Return: 0, -ECONNRESET at the peer's
 * end, -ETIMEDOUT, or a negative errno.
 */
static int rmt_io(int fd, void *buf, size_t size, bool sending, int64_t deadline)
{
	uint8_t *p = buf;

	while (size) {
		ssize_t n;
		int ret = rmt_wait(fd, sending ? POLLOUT : POLLIN, deadline);

		if (ret)
			return ret;
		n = sending ? send(fd, p, size, MSG_NOSIGNAL | MSG_DONTWAIT)
			    : recv(fd, p, size, MSG_DONTWAIT);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		p += n;
		size -= (size_t)n;
	}
	return 0;
}

/*
 * A transport error of @op's exchange: a time-out is reported once
 * ("process N did not answer OP within S s"), as a malformed reply is;
 * the connection is given up either way.
 */
static int rmt_failed(struct trev_remote *r, uint16_t op, int err, int wait_ms)
{
	if (err == -ETIMEDOUT) {
		snprintf(r->error, sizeof(r->error), "process %d did not answer %s within %g s",
			 (int)r->pid, rmt_op_name(op), (wait_ms + rmt_timeout_ms) / 1000.0);
		if (!r->broken && !r->quiet)
			rmt_report(r->error);
	}
	return rmt_break(r, err);
}

/* ------------------------------------------------------------------ */
/* Messages                                                             */

/* One request, and room for its reply's payload. */
struct rmt_req {
	uint16_t op;		/* TREV_OP_* */
	uint32_t handle;	/* the file, or 0 */
	int32_t arg;
	const void *p1, *p2;	/* the payload, in two pieces */
	uint32_t len1, len2;
	void *out;		/* the reply's payload */
	uint32_t out_size;	/* the most it may be; 0: none */
	uint32_t out_len;	/* what came */
	int wait_ms;		/* how long the process may wait before it answers; -1: for ever */
};

/*
 * The reply's header against its request, before its payload is read.
 * Return: 0, 1 for HELLO from another protocol version (its payload is
 * not ours to judge; the caller hangs up), or -EPROTO after a message.
 */
static int rmt_check_header(struct trev_remote *r, const struct rmt_req *q,
			    const struct trev_proto_hdr *h)
{
	uint16_t op = q->op;

	if (h->magic != TREV_PROTO_MAGIC)
		return rmt_malformed(r, op, "magic 0x%08x, not 0x%08x", h->magic, TREV_PROTO_MAGIC);
	if (h->reserved)
		return rmt_malformed(r, op, "reserved field 0x%04x, not 0", h->reserved);
	/* The server refuses a connection (not its user's, or too many) before reading HELLO. */
	if (op == TREV_OP_HELLO && h->op == TREV_OP_REPLY && !h->handle && !h->len &&
	    h->arg < 0 && h->arg >= -RMT_MAX_ERRNO)
		return 0;
	if (h->op != (op | TREV_OP_REPLY))
		return rmt_malformed(r, op, "it answers op 0x%04x", h->op);
	if (h->handle != q->handle)
		return rmt_malformed(r, op, "handle %u, not %u", h->handle, q->handle);
	if (h->arg < -RMT_MAX_ERRNO)
		return rmt_malformed(r, op, "result %d is no errno", h->arg);
	if (h->arg < 0) {
		if (h->len)
			return rmt_malformed(r, op, "error %d with %u bytes", h->arg, h->len);
		return 0;
	}
	if (op == TREV_OP_HELLO &&
	    ((uint32_t)h->arg < TREV_PROTO_VERSION_MIN || (uint32_t)h->arg > TREV_PROTO_VERSION))
		return 1;
	if ((op == TREV_OP_READ || op == TREV_OP_UNSTAGE) && (uint32_t)h->arg != h->len)
		return rmt_malformed(r, op, "%d bytes announced, %u received", h->arg, h->len);
	if (h->len > q->out_size) {
		if (op == TREV_OP_READ)
			return rmt_malformed(r, op, "%u bytes, more than the %u asked", h->len,
					     q->out_size);
		return rmt_malformed(r, op, "%u bytes of payload, at most %u expected", h->len,
				     q->out_size);
	}
	switch (op) {
	case TREV_OP_OPEN:
		if (h->arg == 0 || (uint32_t)h->arg > TREV_PROTO_MAX_HANDLES)
			return rmt_malformed(r, op, "handle %d, not 1..%u", h->arg,
					     TREV_PROTO_MAX_HANDLES);
		break;
	case TREV_OP_WRITE:
		if ((uint32_t)h->arg > q->len1 + q->len2)
			return rmt_malformed(r, op, "%d bytes taken of %u sent", h->arg,
					     q->len1 + q->len2);
		break;
	case TREV_OP_POLL:
		if (h->arg & ~0xffff)
			return rmt_malformed(r, op, "poll bits 0x%x", (unsigned int)h->arg);
		break;
	case TREV_OP_HELLO:
	case TREV_OP_READ:
	case TREV_OP_UNSTAGE:
		break;
	case TREV_OP_HOLD:
		if (h->arg != 0 && h->arg != TREV_HOLD_SET)
			return rmt_malformed(r, op, "result %d, not 0 or %d", h->arg, TREV_HOLD_SET);
		break;
	case TREV_OP_STAT:
		if (h->arg == 0 && h->len != 2 * sizeof(uint32_t))
			return rmt_malformed(r, op, "%u bytes, not 8", h->len);
		/* fall through */
	default:
		if (h->arg != 0)
			return rmt_malformed(r, op, "result %d, not 0", h->arg);
		break;
	}
	return 0;
}

/* HELLO's text: printable, one line. Return: 0 or -EPROTO after a message. */
static int rmt_check_banner(struct trev_remote *r, const char *text, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if ((c < 0x20 || c > 0x7e) && !(c == '\n' && i == len - 1))
			return rmt_malformed(r, TREV_OP_HELLO, "byte 0x%02x at %u of its banner",
					     c, i);
	}
	return 0;
}

/* STAT's u32 is_dir, u32 mode. */
static int rmt_check_stat(struct trev_remote *r, const uint32_t *st)
{
	if (st[0] > 1)
		return rmt_malformed(r, TREV_OP_STAT, "is_dir %u", st[0]);
	if (st[1] & ~07777u)
		return rmt_malformed(r, TREV_OP_STAT, "mode 0%o", st[1]);
	return 0;
}

/*
 * READDIR's entries, all of them before any is used: u32 is_dir, u32
 * mode, a name of 1..255 bytes without '/', not "." or "..", NUL-ended;
 * nothing after the last.
 */
static int rmt_check_dirents(struct trev_remote *r, const uint8_t *buf, uint32_t len)
{
	uint32_t off = 0;

	while (off < len) {
		uint32_t st[2];
		const char *name = (const char *)buf + off + 8;
		size_t n;

		if (len - off < 8 + 2)
			return rmt_malformed(r, TREV_OP_READDIR, "a truncated entry at byte %u",
					     off);
		n = strnlen(name, len - off - 8);
		if (n == len - off - 8)
			return rmt_malformed(r, TREV_OP_READDIR,
					     "the name at byte %u has no NUL", off + 8);
		memcpy(st, buf + off, sizeof(st));
		if (rmt_check_stat(r, st))
			return -EPROTO;
		if (n == 0 || n > RMT_NAME_MAX || memchr(name, '/', n) || !strcmp(name, ".") ||
		    !strcmp(name, ".."))
			return rmt_malformed(r, TREV_OP_READDIR,
					     "the name at byte %u is not a file name", off + 8);
		off += 8 + (uint32_t)n + 1;
	}
	return 0;
}

/*
 * One request and its reply, checked (rmt_check_header(), and the payload
 * of HELLO, STAT and READDIR). Return: the reply's result (>= 0, or the
 * process's negative errno), -EPROTO for a malformed reply (reported), or
 * a negative errno of the transport. q->out_len gets the payload's length.
 */
static int64_t rmt_call(struct trev_remote *r, struct rmt_req *q)
{
	struct trev_proto_hdr h = { TREV_PROTO_MAGIC, q->op, 0, q->handle, q->arg,
				    q->len1 + q->len2 };
	int64_t deadline = rmt_deadline(q->wait_ms);
	int ret;

	if (r->broken)
		return r->broken;
	if ((uint64_t)q->len1 + q->len2 > TREV_PROTO_MAX_PAYLOAD)
		return -E2BIG;
	ret = rmt_io(r->fd, &h, sizeof(h), true, deadline);
	if (!ret && q->len1)
		ret = rmt_io(r->fd, (void *)q->p1, q->len1, true, deadline);
	if (!ret && q->len2)
		ret = rmt_io(r->fd, (void *)q->p2, q->len2, true, deadline);
	if (!ret)
		ret = rmt_io(r->fd, &h, sizeof(h), false, deadline);
	if (ret)
		return rmt_failed(r, q->op, ret, q->wait_ms);
	ret = rmt_check_header(r, q, &h);
	if (ret < 0)
		return ret;
	if (ret == 1)
		return h.arg;	/* HELLO of another version: the payload stays unread */
	if (h.len && (ret = rmt_io(r->fd, q->out, h.len, false, deadline)))
		return rmt_failed(r, q->op, ret, q->wait_ms);
	q->out_len = h.len;
	if (h.arg < 0)
		return h.arg;
	if (q->op == TREV_OP_HELLO && rmt_check_banner(r, q->out, h.len))
		return -EPROTO;
	if (q->op == TREV_OP_STAT && rmt_check_stat(r, q->out))
		return -EPROTO;
	if (q->op == TREV_OP_READDIR && rmt_check_dirents(r, q->out, h.len))
		return -EPROTO;
	return h.arg;
}

/* A request whose reply carries no payload. */
static int rmt_simple(struct trev_remote *r, uint16_t op, uint32_t handle, int32_t arg,
		      const char *path)
{
	struct rmt_req q = { .op = op, .handle = handle, .arg = arg, .p1 = path,
			     .len1 = path ? (uint32_t)strnlen(path, TREV_PROTO_MAX_PATH + 1) : 0 };

	if (op == TREV_OP_POLL)
		q.wait_ms = arg;	/* the process polls that long before it answers */
	return (int)rmt_call(r, &q);
}

/* ------------------------------------------------------------------ */
/* Connections                                                          */

int trev_remote_from_fd(int fd, pid_t pid, struct trev_remote **out, char *why, size_t why_size)
{
	uint32_t version = TREV_PROTO_VERSION;
	struct rmt_req q = { .op = TREV_OP_HELLO, .p1 = &version, .len1 = sizeof(version) };
	struct trev_remote *r;
	int64_t ret;

	r = calloc(1, sizeof(*r));
	if (!r) {
		close(fd);
		snprintf(why, why_size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	r->fd = fd;
	r->pid = pid;
	r->quiet = true;
	q.out = r->banner;
	q.out_size = RMT_BANNER_MAX;
	ret = rmt_call(r, &q);
	if ((ret == -EPROTO || ret == -ETIMEDOUT) && r->error[0]) {
		snprintf(why, why_size, "%s", r->error);
		goto out_free;
	}
	if (ret < 0) {
		snprintf(why, why_size, "process %d refused the connection: %s", (int)pid,
			 strerror((int)-ret));
		goto out_free;
	}
	if (ret < TREV_PROTO_VERSION_MIN || ret > TREV_PROTO_VERSION) {
		snprintf(why, why_size, "process %d speaks protocol %d, not %u..%u", (int)pid,
			 (int)ret, TREV_PROTO_VERSION_MIN, TREV_PROTO_VERSION);
		ret = -EPROTO;
		goto out_free;
	}
	r->version = (uint32_t)ret;
	r->banner[q.out_len] = '\0';
	r->banner[strcspn(r->banner, "\n")] = '\0';
	r->quiet = false;
	*out = r;
	return 0;
out_free:
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

/* ------------------------------------------------------------------ */
/* Operations                                                           */

int trev_remote_open(struct trev_remote *r, const char *path, unsigned int po)
{
	return rmt_simple(r, TREV_OP_OPEN, 0, (int32_t)po, path);
}

ssize_t trev_remote_read_flags(struct trev_remote *r, int h, void *buf, size_t size,
			      int timeout_ms, unsigned int pr)
{
	int32_t t = timeout_ms;
	struct rmt_req q = { .op = TREV_OP_READ, .handle = (uint32_t)h, .p1 = &t,
			     .len1 = sizeof(t), .out = buf, .wait_ms = timeout_ms };

	if (pr & ~TREV_PR_ALL)
		return -EINVAL;
	/* Version 2 has no flags: such a process reads as without them. */
	if (pr && r->version >= TREV_PROTO_READ_FLAGS) {
		q.p2 = &pr;
		q.len2 = sizeof(pr);
	}
	if (size > TREV_PROTO_MAX_PAYLOAD)
		size = TREV_PROTO_MAX_PAYLOAD;
	q.arg = (int32_t)size;
	q.out_size = (uint32_t)size;
	return (ssize_t)rmt_call(r, &q);
}

ssize_t trev_remote_read(struct trev_remote *r, int h, void *buf, size_t size, int timeout_ms)
{
	return trev_remote_read_flags(r, h, buf, size, timeout_ms, 0);
}

ssize_t trev_remote_write(struct trev_remote *r, int h, const void *buf, size_t size)
{
	struct rmt_req q = { .op = TREV_OP_WRITE, .handle = (uint32_t)h, .p1 = buf };

	if (size > TREV_PROTO_MAX_PAYLOAD)
		return -E2BIG;
	q.len1 = (uint32_t)size;
	return (ssize_t)rmt_call(r, &q);
}

int trev_remote_poll(struct trev_remote *r, int h, int timeout_ms)
{
	return rmt_simple(r, TREV_OP_POLL, (uint32_t)h, timeout_ms, NULL);
}

int trev_remote_close_file(struct trev_remote *r, int h)
{
	return rmt_simple(r, TREV_OP_CLOSE, (uint32_t)h, 0, NULL);
}

int trev_remote_readdir(struct trev_remote *r, const char *path,
			int (*fn)(const char *name, int is_dir, unsigned int mode, void *arg),
			void *arg)
{
	struct rmt_req q = { .op = TREV_OP_READDIR, .p1 = path,
			     .len1 = (uint32_t)strnlen(path, TREV_PROTO_MAX_PATH + 1),
			     .out_size = TREV_PROTO_MAX_PAYLOAD };
	uint8_t *buf = malloc(TREV_PROTO_MAX_PAYLOAD);
	uint32_t off = 0;
	int64_t ret;

	if (!buf)
		return -ENOMEM;
	q.out = buf;
	ret = rmt_call(r, &q);
	/* Every entry is well-formed (rmt_check_dirents()). */
	while (ret >= 0 && off < q.out_len) {
		uint32_t st[2];
		const char *name = (const char *)buf + off + 8;

		memcpy(st, buf + off, sizeof(st));
		ret = fn(name, (int)st[0], st[1], arg);
		if (ret)
			break;
		off += 8 + (uint32_t)strlen(name) + 1;
	}
	free(buf);
	return (int)ret;
}

int trev_remote_stat(struct trev_remote *r, const char *path, int *is_dir, unsigned int *mode)
{
	uint32_t st[2];
	struct rmt_req q = { .op = TREV_OP_STAT, .p1 = path,
			     .len1 = (uint32_t)strnlen(path, TREV_PROTO_MAX_PATH + 1),
			     .out = st, .out_size = sizeof(st) };
	int64_t ret = rmt_call(r, &q);

	if (ret < 0)
		return (int)ret;
	*is_dir = (int)st[0];
	*mode = st[1];
	return 0;
}

int trev_remote_mkdir(struct trev_remote *r, const char *path)
{
	return rmt_simple(r, TREV_OP_MKDIR, 0, 0, path);
}

int trev_remote_rmdir(struct trev_remote *r, const char *path)
{
	return rmt_simple(r, TREV_OP_RMDIR, 0, 0, path);
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
	struct trev_buf b = TREV_BUF_INIT;
	size_t len;
	ssize_t n;
	int h = trev_remote_open(r, path, TREV_PO_READ | TREV_PO_NONBLOCK);

	if (h < 0)
		return h;
	for (;;) {
		size_t ask;

		if (b.len >= TREV_REMOTE_MAX_FILE) {
			n = -EFBIG;	/* a file that never ends */
			break;
		}
		if (trev__buf_reserve(&b, 65536)) {
			n = -ENOMEM;
			break;
		}
		/* At most what is asked for (rmt_check_header()). */
		ask = trev__buf_room(&b) < 65536 ? trev__buf_room(&b) : 65536;
		n = trev_remote_read(r, h, b.data + b.len, ask, 0);
		if (n <= 0)
			break;
		trev__buf_extend(&b, (size_t)n);
	}
	trev_remote_close_file(r, h);
	if (n == -EAGAIN)
		n = 0;	/* a pipe file with nothing more to give */
	if (n < 0) {
		trev__buf_free(&b);
		return n;
	}
	len = b.len;
	*text = trev__buf_detach(&b);
	return *text ? (ssize_t)len : -ENOMEM;
}

int trev_remote_release(struct trev_remote *r)
{
	return rmt_simple(r, TREV_OP_RELEASE, 0, 0, NULL);
}

int trev_remote_hold(struct trev_remote *r)
{
	struct rmt_req q = { .op = TREV_OP_HOLD };
	int64_t ret = rmt_call(r, &q);

	if (ret < 0)
		return (int)ret;
	if (ret != TREV_HOLD_SET)
		return rmt_malformed(r, TREV_OP_HOLD, "result %d before the exit, not %d", (int)ret,
				     TREV_HOLD_SET);
	return 0;
}

/*
 * Receive a reply header and the descriptors that came with its first
 * byte. Return: 0 with *@fds (up to @max, the rest closed) and *@nfds set,
 * or a negative errno; -EPROTO when descriptors were cut off.
 */
static int rmt_recv_hdr_fds(struct trev_remote *r, struct trev_proto_hdr *h, int *fds, int max,
			    int *nfds, int64_t deadline)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(4 * sizeof(int))];
	} ctrl;
	struct iovec iov = { .iov_base = h, .iov_len = sizeof(*h) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctrl.buf,
			      .msg_controllen = sizeof(ctrl.buf) };
	ssize_t n;

	*nfds = 0;
	do {
		int ret = rmt_wait(r->fd, POLLIN, deadline);

		if (ret)
			return ret;
		n = recvmsg(r->fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	} while (n < 0 && (errno == EINTR || errno == EAGAIN));
	if (n == 0)
		return -ECONNRESET;
	if (n < 0)
		return -errno;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		size_t count;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS ||
		    cm->cmsg_len < CMSG_LEN(0))
			continue;
		count = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < count; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (*nfds < max)
				fds[(*nfds)++] = fd;
			else
				close(fd);
		}
	}
	if (msg.msg_flags & MSG_CTRUNC) {
		while (*nfds)
			close(fds[--*nfds]);
		return -EPROTO;
	}
	if ((size_t)n < sizeof(*h)) {
		int ret = rmt_io(r->fd, (uint8_t *)h + n, sizeof(*h) - (size_t)n, false, deadline);

		if (ret) {
			while (*nfds)
				close(fds[--*nfds]);
			return ret;
		}
	}
	return 0;
}

int trev_remote_map(struct trev_remote *r, unsigned int flags, int *memfd, int *busyfd)
{
	struct rmt_req q = { .op = TREV_OP_MAP };
	struct trev_proto_hdr h = { TREV_PROTO_MAGIC, TREV_OP_MAP, 0, 0, 0, 0 };
	int64_t deadline = rmt_deadline(0);
	int fds[4], nfds, ret, most;

	if (r->broken)
		return r->broken;
	if (busyfd) {
		*busyfd = -1;
		if (r->version >= TREV_PROTO_MAP_BUSY)
			flags |= TREV_MAP_BUSY;
	}
	q.arg = h.arg = (int32_t)flags;
	most = flags & TREV_MAP_BUSY ? 2 : 1;
	ret = rmt_io(r->fd, &h, sizeof(h), true, deadline);
	if (!ret)
		ret = rmt_recv_hdr_fds(r, &h, fds, 4, &nfds, deadline);
	if (ret == -EPROTO)
		return rmt_malformed(r, TREV_OP_MAP, "more descriptors than fit the message");
	if (ret)
		return rmt_failed(r, TREV_OP_MAP, ret, 0);
	ret = rmt_check_header(r, &q, &h);
	if (ret == 0 && h.arg == 0 && (nfds < 1 || nfds > most))
		ret = rmt_malformed(r, TREV_OP_MAP, "%d descriptors, not %s", nfds,
				    most == 1 ? "1" : "1 or 2");
	else if (ret == 0 && h.arg < 0 && nfds)
		ret = rmt_malformed(r, TREV_OP_MAP, "error %d with %d descriptors", h.arg, nfds);
	if (ret < 0 || h.arg < 0) {
		while (nfds)
			close(fds[--nfds]);
		return ret < 0 ? ret : h.arg;
	}
	*memfd = fds[0];
	if (nfds == 2)
		*busyfd = fds[1];
	return 0;
}

int trev_remote_hold_wait(struct trev_remote *r, int timeout_ms)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	const struct rmt_req q = { .op = TREV_OP_HOLD };
	struct trev_proto_hdr h;
	int ret;

	if (r->broken)
		return r->broken;
	ret = poll(&p, 1, timeout_ms);
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	if (ret == 0)
		return 0;
	/* The reply has begun: the rest of its header is due within the time-out. */
	ret = rmt_io(r->fd, &h, sizeof(h), false, rmt_deadline(0));
	if (ret)
		return rmt_failed(r, TREV_OP_HOLD, ret, 0);
	ret = rmt_check_header(r, &q, &h);
	if (ret < 0)
		return ret;
	if (h.arg == TREV_HOLD_SET)
		return rmt_malformed(r, TREV_OP_HOLD, "a second acknowledgement, not the exit");
	return h.arg < 0 ? h.arg : 1;
}

int trev_remote_restage(struct trev_remote *r, const void *buf, size_t len)
{
	struct rmt_req q = { .op = TREV_OP_RESTAGE, .p1 = buf };

	if (r->version < TREV_PROTO_RESTAGE)
		return -EOPNOTSUPP;
	if (len > TREV_PROTO_MAX_PAYLOAD)
		return -E2BIG;
	q.len1 = (uint32_t)len;
	return (int)rmt_call(r, &q);
}

unsigned int trev_remote_version(const struct trev_remote *r)
{
	return r->version;
}

bool trev_remote_hung_up(struct trev_remote *r)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN | POLLRDHUP };

	if (r->broken)
		return true;
	/* Nothing comes unasked on a connection between requests: any sign
	 * on it is its end. */
	return poll(&p, 1, 0) > 0;
}

ssize_t trev_remote_unstage(struct trev_remote *r, void *buf, size_t size)
{
	struct rmt_req q = { .op = TREV_OP_UNSTAGE, .out = buf };

	if (r->version < TREV_PROTO_RESTAGE)
		return -EOPNOTSUPP;
	if (size > TREV_PROTO_MAX_PAYLOAD)
		size = TREV_PROTO_MAX_PAYLOAD;
	q.arg = (int32_t)size;
	q.out_size = (uint32_t)size;
	return (ssize_t)rmt_call(r, &q);
}
