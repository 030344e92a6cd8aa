/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the trev command's side of the control socket
 * (tools/trev/remote.c, remote_source.c): a hostile server. The input's
 * first bytes choose the client's operations (those the subcommands use:
 * the handshake, open, read, write, poll, close, stat, readdir, mkdir,
 * rmdir, read_file, write_file, release, hold, and trev record's page
 * batches); the rest becomes the replies of a thread that reads each
 * request over a socketpair and answers it from the input, well-formed
 * unless the input says otherwise (its magic, op, handle, reserved field,
 * result and length each replaceable, raw bytes, or a hang-up). The client
 * must refuse what is malformed and never read or write outside a buffer.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "control/proto.h"
#include "remote.h"
#include "remote_source.h"

/* The server's side: the input it answers from. */
struct fz_server {
	int fd;
	const uint8_t *data;
	size_t size;
};

static uint32_t fz_take(struct fz_server *s, unsigned int bytes)
{
	uint32_t v = 0;

	for (unsigned int i = 0; i < bytes && s->size; i++, s->data++, s->size--)
		v |= (uint32_t)s->data[0] << (8 * i);
	return v;
}

static int fz_send(int fd, const void *buf, size_t size)
{
	return trev_proto_io(fd, (void *)buf, size, true);
}

/* Send @len payload bytes: the input's, then zeros when it runs out. */
static int fz_send_payload(struct fz_server *s, uint32_t len)
{
	static const uint8_t zeros[4096];
	uint32_t from_input = len < s->size ? len : (uint32_t)s->size;

	if (from_input && fz_send(s->fd, s->data, from_input))
		return -1;
	s->data += from_input;
	s->size -= from_input;
	for (len -= from_input; len; ) {
		uint32_t n = len < sizeof(zeros) ? len : (uint32_t)sizeof(zeros);

		if (fz_send(s->fd, zeros, n))
			return -1;
		len -= n;
	}
	return 0;
}

/* Read the client's request (header and payload) and answer it, until the input ends. */
static void *fz_serve(void *arg)
{
	static const char banner[] = "trev 0.1.0 pid 4242\n";
	struct fz_server *s = arg;
	struct trev_proto_hdr q, h;
	uint8_t sink[4096];

	for (;;) {
		uint32_t left, flags;

		if (trev_proto_io(s->fd, &q, sizeof(q), false))
			break;
		for (left = q.len; left; ) {
			uint32_t n = left < sizeof(sink) ? left : (uint32_t)sizeof(sink);

			if (trev_proto_io(s->fd, sink, n, false))
				goto out;
			left -= n;
		}
		if (!s->size)
			break;
		flags = fz_take(s, 1);
		if (flags & 0x80)
			break;				/* hang up */
		if (flags & 0x40) {
			/* Raw bytes, then hang up (a half header would wait for ever). */
			fz_send_payload(s, fz_take(s, 1));
			break;
		}
		h = (struct trev_proto_hdr){ TREV_PROTO_MAGIC, (uint16_t)(q.op | TREV_OP_REPLY), 0,
					     q.handle, 0, 0 };
		if (flags & 0x01)
			h.magic = fz_take(s, 4);
		if (flags & 0x02)
			h.op = (uint16_t)fz_take(s, 2);
		if (flags & 0x04)
			h.handle = fz_take(s, 4);
		if (flags & 0x08)
			h.reserved = (uint16_t)fz_take(s, 2);
		if (flags & 0x20) {
			h.len = fz_take(s, 3) % (TREV_PROTO_MAX_PAYLOAD + 2);
		} else if (q.op == TREV_OP_READ) {
			/* Whole pages, some bytes, or nothing; up to what was asked. */
			uint32_t pages = fz_take(s, 1), bytes = fz_take(s, 1);

			h.len = pages % 65 * 4096 + (pages & 0x80 ? bytes : 0);
			if (q.arg >= 0 && h.len > (uint32_t)q.arg)
				h.len = (uint32_t)q.arg;
		} else if (q.op == TREV_OP_READDIR) {
			h.len = fz_take(s, 2);
		} else if (q.op == TREV_OP_STAT) {
			h.len = 8;
		} else if (q.op == TREV_OP_HELLO) {
			h.len = sizeof(banner) - 1;
		} else if (q.op == TREV_OP_UNSTAGE) {
			/* Records, up to what was asked, or a little past it. */
			h.len = fz_take(s, 3) % ((uint32_t)q.arg + 2);
		}
		if (flags & 0x10)
			h.arg = (int32_t)fz_take(s, 4);
		else if (q.op == TREV_OP_READ || q.op == TREV_OP_UNSTAGE)
			h.arg = (int32_t)h.len;
		else if (q.op == TREV_OP_HELLO)
			h.arg = TREV_PROTO_VERSION;
		else if (q.op == TREV_OP_OPEN)
			h.arg = 1 + (int32_t)(fz_take(s, 1) % TREV_PROTO_MAX_HANDLES);
		else if (q.op == TREV_OP_WRITE)
			h.arg = (int32_t)q.len;
		else if (q.op == TREV_OP_POLL)
			h.arg = 1;
		else if (q.op == TREV_OP_HOLD)
			h.arg = TREV_HOLD_SET;
		if (fz_send(s->fd, &h, sizeof(h)))
			break;
		if (q.op == TREV_OP_HELLO && !(flags & 0x20)) {
			if (fz_send(s->fd, banner, h.len))
				break;
		} else if (fz_send_payload(s, h.len)) {
			break;
		}
		/* HOLD's second reply, the exit, follows its first at once. */
		if (q.op == TREV_OP_HOLD && h.arg == TREV_HOLD_SET && h.len == 0) {
			h.arg = 0;
			if (fz_send(s->fd, &h, sizeof(h)))
				break;
		}
	}
out:
	shutdown(s->fd, SHUT_RDWR);
	return NULL;
}

static void fz_quiet(const char *line)
{
	/* The message is made (and so checked by the sanitizers); not shown. */
	if (!line[0])
		abort();
}

static int fz_entry(const char *name, int is_dir, unsigned int mode, void *arg)
{
	if (!name[0] || strchr(name, '/') || is_dir < 0 || is_dir > 1 || mode > 07777)
		abort();	/* remote.c lets none of these through */
	*(size_t *)arg += strlen(name);
	return 0;
}

/* The client's operations, one per byte of @ops. */
static void fz_client(struct trev_remote *r, const uint8_t *ops, size_t nr_ops)
{
	static uint8_t buf[TREV_PROTO_MAX_PAYLOAD];
	static uint8_t page[TREV_DAT_PAGE_SIZE];
	struct trev_remote_source rs;
	unsigned int mode;
	size_t names = 0;
	char *text;
	int h = 1, is_dir;
	ssize_t n;

	trev_remote_source_init(&rs, r, 0);
	for (size_t i = 0; i < nr_ops; i++) {
		switch (ops[i] % 20) {
		case 0:
			n = trev_remote_open(r, "trace", TREV_PO_READ);
			if (n > 0)
				h = (int)n;
			break;
		case 1:
			/* Every size the subcommands ask: 1 MiB (cat) down to a byte. */
			n = trev_remote_read(r, h, buf, sizeof(buf) >> (ops[i] / 17 % 21), 0);
			if (n > (ssize_t)(sizeof(buf) >> (ops[i] / 17 % 21)))
				abort();
			break;
		case 2:
			trev_remote_write(r, h, "1", 1);
			break;
		case 3:
			trev_remote_poll(r, h, 0);
			break;
		case 4:
			trev_remote_close_file(r, h);
			break;
		case 5:
			if (trev_remote_stat(r, "events", &is_dir, &mode) == 0 &&
			    (is_dir < 0 || is_dir > 1 || mode > 07777))
				abort();
			break;
		case 6:
			trev_remote_readdir(r, "events", fz_entry, &names);
			break;
		case 7:
			trev_remote_mkdir(r, "instances/fz");
			break;
		case 8:
			trev_remote_rmdir(r, "instances/fz");
			break;
		case 9:
			n = trev_remote_read_file(r, "available_events", &text);
			if (n >= 0) {
				if (strlen(text) > (size_t)n)
					abort();
				free(text);
			}
			break;
		case 10:
			trev_remote_write_file(r, "set_event", "fz:ev", ops[i] & 1);
			break;
		case 11:
			trev_remote_release(r);
			break;
		case 12:
			rs.src.read_page(&rs.src, ops[i] / 17 % 2, page, ops[i] / 34 % 2);
			break;
		case 13:
			if (rs.src.list_dir(&rs.src, "events", &text) >= 0)
				free(text);
			break;
		case 14:
			if (rs.src.read_file(&rs.src, "events/header_page", &text) >= 0)
				free(text);
			break;
		case 15:
			if (trev_remote_hold(r) == 0)
				trev_remote_hold_wait(r, -1);
			break;
		case 16:
			trev_remote_read(r, h, buf, 64 * 4096, -1);
			break;
		case 17: {
			/* A lying server sends no descriptor: refused, never used. */
			int fd = -1, busyfd = -1;

			if (trev_remote_map(r, ops[i] & 1, &fd, (ops[i] & 2) ? &busyfd : NULL) == 0)
				abort();
			if (fd != -1 || busyfd != -1)
				abort();
			break;
		}
		case 18:
			/* Staged events from a lying server: only a length it may send. */
			n = trev_remote_unstage(r, buf, (size_t)16384 << (ops[i] / 20 % 7));
			if (n > (ssize_t)((size_t)16384 << (ops[i] / 20 % 7)))
				abort();
			break;
		case 19:
			trev_remote_restage(r, buf, ops[i] / 20 % 2 ? 16 : 0);
			break;
		}
	}
	trev_remote_source_close(&rs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_server s;
	struct trev_remote *r = NULL;
	size_t nr_ops;
	char why[512];
	pthread_t t;
	int sv[2];

	if (size < 1)
		return 0;
	nr_ops = data[0] % 32;
	if (nr_ops > size - 1)
		nr_ops = size - 1;
	trev_remote_set_reporter(fz_quiet);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return 0;
	s = (struct fz_server){ sv[1], data + 1 + nr_ops, size - 1 - nr_ops };
	if (pthread_create(&t, NULL, fz_serve, &s)) {
		close(sv[0]);
		close(sv[1]);
		return 0;
	}
	/* sv[0] is trev_remote_from_fd()'s now: closed on failure or by trev_remote_close(). */
	if (trev_remote_from_fd(sv[0], 4242, &r, why, sizeof(why)) == 0) {
		fz_client(r, data + 1, nr_ops);
		trev_remote_close(r);
	} else if (!why[0]) {
		abort();	/* a failed handshake always says why */
	}
	pthread_join(t, NULL);
	close(sv[1]);
	return 0;
}
