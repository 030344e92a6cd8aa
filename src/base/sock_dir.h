/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where the control sockets of a user's processes live (layer 0, shared by
 * the library's server and the trev command; docs/control-socket.md,
 * "Where the socket is"), and the one socket there that is not a
 * process's: `trev record -a`'s, which processes that start join
 * (docs/sessions.md, "-a").
 */
#ifndef TREV_BASE_SOCK_DIR_H
#define TREV_BASE_SOCK_DIR_H

#include <stddef.h>

/* The name of `trev record -a`'s session socket in that directory. */
#define TREV_RECORD_ALL_SOCK	"record-all.sock"

/*
 * trev__sock_dir() - the directory of the sockets of processes run with
 * this environment: $TREV_SOCKET_DIR, else $XDG_RUNTIME_DIR/trev, else
 * /tmp/trev-<euid>. Context: any thread. Return: 0, or -ENAMETOOLONG.
 */
int trev__sock_dir(char *dir, size_t size);

#endif /* TREV_BASE_SOCK_DIR_H */
