/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The control socket's wire protocol: the tree's operations (open, read,
 * write, poll, close, stat, readdir, mkdir, rmdir) carried between the
 * `trev` command and a traced process. Shared by the server
 * (src/control/server.c) and the client (tools/trev/remote.c);
 * docs/control-socket.md describes it for other clients.
 */
#ifndef TREV_CONTROL_PROTO_H
#define TREV_CONTROL_PROTO_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/*
 * Every message, request or reply, is a header and @len payload bytes,
 * in the host's byte order (both ends are on one machine):
 *
 *	OFFSET	SIZE	MEANING
 *	0	4	magic, TREV_PROTO_MAGIC
 *	4	2	op: a TREV_OP_* in a request; the same | TREV_OP_REPLY in its reply
 *	6	2	reserved, 0
 *	8	4	handle: an open file (OPEN's reply gives it), else 0
 *	12	4	arg (signed): request: open flags, read size, time-out;
 *			reply: the result, >= 0 or a negative errno
 *	16	4	len: payload bytes that follow, <= TREV_PROTO_MAX_PAYLOAD
 *
 * A connection carries one request at a time; each request gets exactly
 * one reply, in order. A message the server cannot parse gets a reply
 * with -EPROTO and the connection is closed.
 */
struct trev_proto_hdr {
	uint32_t magic;		/* TREV_PROTO_MAGIC */
	uint16_t op;		/* TREV_OP_* (| TREV_OP_REPLY) */
	uint16_t reserved;	/* 0 */
	uint32_t handle;	/* open file, or 0 */
	int32_t arg;		/* see above */
	uint32_t len;		/* payload bytes */
};

#define TREV_PROTO_MAGIC	0x31565254u	/* "TRV1" in memory on little-endian */
/*
 * 2: HOLD is acknowledged at once. 3: READ may carry flags (TREV_PR_FULL),
 * and MAP hands over the ring buffer's memfd. 4: MAP may hand over the
 * busy words' memfd as well (TREV_MAP_BUSY). 5: UNSTAGE and RESTAGE move
 * the per-CPU staging queues with the consuming position.
 * HELLO agrees on a version: the server answers the client's when it speaks
 * it (MIN .. VERSION), else its own, which the client then refuses.
 */
#define TREV_PROTO_VERSION	5u
#define TREV_PROTO_VERSION_MIN	2u
#define TREV_PROTO_READ_FLAGS	3u	/* the first version whose READ takes flags */
#define TREV_PROTO_MAP_BUSY	4u	/* the first version whose MAP takes TREV_MAP_BUSY */
#define TREV_PROTO_RESTAGE	5u	/* the first version with UNSTAGE and RESTAGE */
#define TREV_PROTO_MAX_PAYLOAD	(1u << 20)	/* 1 MiB, both ways */
#define TREV_PROTO_MAX_PATH	4096u

/*
 * Joining a recorder's session (docs/sessions.md). A process whose
 * environment has TREV_SESSION=PATH (set by `trev record -- COMMAND` and
 * inherited by every descendant) connects to the recorder's socket at PATH
 * once its own control socket serves, sends one message, closes, and holds
 * its start until the recorder has configured it through the control
 * socket and sent RELEASE there. No reply comes on this connection.
 *
 *	OFFSET	SIZE	MEANING
 *	0	4	magic, TREV_JOIN_MAGIC
 *	4	2	version, TREV_JOIN_VERSION
 *	6	2	flags: TREV_JOIN_FORKED, the rest 0
 *	8	4	the joining process's pid (the recorder checks SO_PEERCRED's)
 *	12	4	its parent's pid
 */
struct trev_join_msg {
	uint32_t magic;		/* TREV_JOIN_MAGIC */
	uint16_t version;	/* TREV_JOIN_VERSION */
	uint16_t flags;		/* TREV_JOIN_* */
	int32_t pid;		/* the joiner */
	int32_t ppid;		/* its parent */
};

#define TREV_JOIN_MAGIC		0x4a565254u	/* "TRVJ" in memory on little-endian */
#define TREV_JOIN_VERSION	1u
/* A child of fork() without exec: its tracing settings are its parent's, already set. */
#define TREV_JOIN_FORKED	0x1u
#define TREV_PROTO_MAX_HANDLES	64u		/* open files per connection */
#define TREV_OP_REPLY		0x8000u
#define TREV_HOLD_SET		1	/* HOLD's first reply: the exit now waits for us */
#define TREV_MAP_CONSUME	1	/* MAP: the client consumes; local readers get EBUSY */
#define TREV_MAP_BUSY		2	/* MAP (version 4): the busy words' memfd too */
#define TREV_MAP_ALL		3

/*
 * The operations. Payloads (request → reply):
 *
 *	HELLO	u32 client version → arg: the version both speak (the
 *		client's if the server speaks it, else the server's); text
 *		"trev <ver> pid <pid>\n"
 *	OPEN	path, arg: TREV_PO_* flags → arg: handle (> 0)
 *	READ	handle, arg: max bytes (<= MAX_PAYLOAD); a u32 time-out in ms
 *		(-1 = until data, 0 = never block), then (version 3) an
 *		optional u32 of TREV_PR_* flags → the bytes; arg: their
 *		count, 0 at the end, -EAGAIN when nothing came in time
 *	WRITE	handle, the bytes → arg: bytes taken
 *	POLL	handle, arg: time-out ms → arg: POLLIN bits or 0
 *	CLOSE	handle → arg: 0
 *	STAT	path → u32 is_dir, u32 mode
 *	READDIR	path → entries, each: u32 is_dir, u32 mode, NUL-terminated name
 *	MKDIR	path → arg: 0
 *	RMDIR	path → arg: 0
 *	RELEASE	→ arg: 0; ends the start-up hold (TREV_ATTACH_WAIT)
 *	HOLD	→ two replies: arg TREV_HOLD_SET at once, once the hold counts,
 *		then arg 0 when the process begins to exit; from the first
 *		reply until this connection closes, the exit waits (server.c,
 *		"Holds"). The only request with two replies.
 *	MAP	arg: TREV_MAP_* flags → arg: 0, no payload, and with the
 *		reply's first byte one descriptor (SCM_RIGHTS): the memfd of
 *		the top instance's ring buffer, sealed against shrinking, for
 *		trev_rb_attach(). With TREV_MAP_CONSUME the client consumes
 *		it until this connection closes (trev_rb_lend_consumer());
 *		one MAP per connection. While any MAP is open, snapshot swaps
 *		are refused, so the region stays the one events go to.
 *		With TREV_MAP_BUSY (version 4) a second descriptor follows
 *		when the process has one: its busy words, sealed, for
 *		trev_rb_attach_busy().
 *	UNSTAGE	(version 5, after MAP with TREV_MAP_CONSUME on this
 *		connection) arg: max bytes (<= MAX_PAYLOAD, >= 16 KiB) → records
 *		of trev_rb_stage_export(): the events the process had staged
 *		per CPU, which leave its queues for the client's (their
 *		consumer now); arg: their bytes, 0 when none are left. The
 *		client stages them before it reads (trev_rb_stage_import(),
 *		which checks them).
 *	RESTAGE	(version 5, after MAP with TREV_MAP_CONSUME on this
 *		connection) records of trev_rb_stage_export(): the events the
 *		client staged while it read one CPU → arg: 0, or -EBADMSG and
 *		nothing taken (every record is checked first), -EINVAL without
 *		a consuming MAP. Staged events not handed back before the
 *		connection closes are counted lost (docs/ring-buffer.md).
 *
 * Paths are relative to the tree's root, as trev_file_open() takes them,
 * without a terminating NUL in the payload.
 */
#define TREV_PROTO_OPS(C)	\
	C(HELLO, 1)		\
	C(OPEN, 2)		\
	C(READ, 3)		\
	C(WRITE, 4)		\
	C(POLL, 5)		\
	C(CLOSE, 6)		\
	C(STAT, 7)		\
	C(READDIR, 8)		\
	C(MKDIR, 9)		\
	C(RMDIR, 10)		\
	C(RELEASE, 11)		\
	C(HOLD, 12)		\
	C(MAP, 13)		\
	C(RESTAGE, 14)		\
	C(UNSTAGE, 15)

#define TREV_PROTO_OP_ENUM(name, nr)	TREV_OP_##name = nr,
enum trev_proto_op { TREV_PROTO_OPS(TREV_PROTO_OP_ENUM) };
#undef TREV_PROTO_OP_ENUM

/* OPEN flags: fixed values, independent of the O_* of either end. */
#define TREV_PO_READ		0x01u
#define TREV_PO_WRITE		0x02u
#define TREV_PO_TRUNC		0x04u
#define TREV_PO_APPEND		0x08u
#define TREV_PO_NONBLOCK	0x10u
#define TREV_PO_ALL		0x1fu

/*
 * READ flags (version 3): fixed values. FULL: trace_pipe_raw hands out only
 * full pages (trev_file_read_flags(), TREV_READ_FULL); such a READ never
 * waits, so its time-out must be 0.
 */
#define TREV_PR_FULL		0x1u
#define TREV_PR_ALL		0x1u

/*
 * trev_proto_io() - send or receive exactly @size bytes on socket @fd,
 * through EINTR. Return: 0, -ECONNRESET at the peer's end, or -errno.
 */
static inline int trev_proto_io(int fd, void *buf, size_t size, bool sending)
{
	uint8_t *p = buf;

	while (size) {
		ssize_t n = sending ? send(fd, p, size, MSG_NOSIGNAL) : recv(fd, p, size, 0);

		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		size -= (size_t)n;
	}
	return 0;
}

#endif /* TREV_CONTROL_PROTO_H */
