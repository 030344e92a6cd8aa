/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the recorder's session socket (tools/trev/rec_session.c,
 * docs/sessions.md): any process of the user can connect to it and send
 * anything. The input is what a connection sends before it closes; a join
 * is taken only when it is the well-formed message of the process that
 * connected (this one), and whatever else comes is dropped, with a reason.
 * An input whose last byte is even gets this process's pid in the pid
 * field, so that the fuzzer reaches the accepted path too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "control/proto.h"
#include "rec_session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct trev_session *session;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	static uint8_t buf[4096];
	struct trev_join_msg m;
	struct trev_joiner j;
	char why[256];
	int fd, ret;

	if (!session && trev_session_open(&session) < 0)
		abort();
	if (size > sizeof(buf))
		size = sizeof(buf);
	memcpy(buf, data, size);
	if (size >= 12 && !(buf[size - 1] & 1)) {
		int32_t pid = (int32_t)getpid();

		memcpy(buf + 8, &pid, 4);
	}
	data = buf;
	strncpy(addr.sun_path, trev_session_path(session), sizeof(addr.sun_path) - 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		abort();
	if (size && send(fd, data, size, MSG_NOSIGNAL) != (ssize_t)size)
		abort();
	shutdown(fd, SHUT_WR);
	ret = trev_session_accept(session, 5000, &j, why, sizeof(why));
	close(fd);
	if (ret < 0)
		abort();
	memset(&m, 0, sizeof(m));
	memcpy(&m, data, size < sizeof(m) ? size : sizeof(m));
	if (ret == 1) {
		/* Taken: only our own well-formed join. */
		if (size < sizeof(m) || m.magic != TREV_JOIN_MAGIC || m.version != TREV_JOIN_VERSION ||
		    (m.flags & ~TREV_JOIN_FORKED) || j.pid != getpid() || m.pid != getpid() ||
		    j.forked != !!(m.flags & TREV_JOIN_FORKED))
			abort();
	} else if (!why[0] && size) {
		abort();	/* a connection dropped says why, but one that sent nothing */
	}
	return 0;
}
