/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the control socket's server: the input becomes a
 * stream of requests (each: op, handle, arg, payload length, payload; an
 * op byte of 0xff sends the raw bytes instead, header and all) sent over a
 * socketpair to trev__control_serve(), while a thread drains the replies.
 * The server must answer or hang up, never crash, leak or hang.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <trev/trev.h>

#include "control/control.h"
#include "control/proto.h"

static void *drain(void *arg)
{
	char buf[65536];
	int fd = *(int *)arg;

	while (read(fd, buf, sizeof(buf)) > 0)
		;
	return NULL;
}

/* Serialise the input into requests on @fd. */
static void send_requests(int fd, const uint8_t *data, size_t size)
{
	while (size >= 8) {
		struct trev_proto_hdr h = { .magic = TREV_PROTO_MAGIC };
		uint16_t len;
		int32_t arg;

		h.op = data[0] % 17;	/* 0 and 16 are unknown ops */
		h.handle = data[1] % (TREV_PROTO_MAX_HANDLES + 2);
		memcpy(&arg, data + 2, 4);
		memcpy(&len, data + 6, 2);
		h.arg = h.op == TREV_OP_READ ? arg % 8192 : arg;	/* READ: modest sizes */
		data += 8;
		size -= 8;
		h.len = len > size ? (uint32_t)size : len;
		if (data[-8] == 0xff) {
			if (write(fd, data, h.len) < 0)
				return;
		} else if (write(fd, &h, sizeof(h)) < 0 || (h.len && write(fd, data, h.len) < 0)) {
			return;
		}
		data += h.len;
		size -= h.len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int sv[2], client;
	pthread_t t;

	trev_set_log(NULL, NULL, 0);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return 0;
	client = sv[0];
	pthread_create(&t, NULL, drain, &client);
	send_requests(sv[0], data, size);
	shutdown(sv[0], SHUT_WR);	/* the client is done: the server sees its end */
	trev__control_serve(sv[1]);
	close(sv[1]);			/* the drain thread sees the end */
	pthread_join(t, NULL);
	close(sv[0]);
	return 0;
}
