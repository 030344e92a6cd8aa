/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the client side of trace-cmd listen's protocol
 * (tools/trev/net_listen.c): the input is what a listener sends. Its first
 * byte picks the CPU count asked for (1..8); the rest comes over a socket
 * to the greeting and the port list as trev record -N reads them, and is
 * also parsed as a port list message and as a metadata beginning. Every
 * refusal must say why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net_listen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint16_t ports[8];
	size_t size_at, text_end;
	char err[512];
	int sv[2], cpus;

	if (size < 1)
		return 0;
	cpus = 1 + data[0] % 8;
	data++;
	size--;

	err[0] = '\0';
	if (trev_net_parse_rinit(data, size, cpus, ports, err, sizeof(err)) < 0 && !err[0])
		abort();
	if (trev_net_split_head(data, size, &size_at, &text_end) == 0 &&
	    (size_at + 8 > text_end || text_end > size))
		abort();

	/* The whole input is there, then the listener hangs up: no wait is ever long. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) < 0)
		abort();
	if (size && write(sv[1], data, size) != (ssize_t)size)
		abort();
	shutdown(sv[1], SHUT_WR);
	err[0] = '\0';
	if (trev_net_hello(sv[0], 0, err, sizeof(err)) < 0) {
		if (!err[0])
			abort();
	} else {
		err[0] = '\0';
		if (trev_net_init(sv[0], cpus, 0, ports, err, sizeof(err)) < 0 && !err[0])
			abort();
	}
	close(sv[0]);
	close(sv[1]);
	return 0;
}
