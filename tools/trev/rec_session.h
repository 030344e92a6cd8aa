/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The recorder's end of a session (docs/sessions.md): the socket whose path
 * TREV_SESSION carries to every process of the run, where each process
 * that uses trev announces itself before its first event.
 */
#ifndef TREV_REC_SESSION_H
#define TREV_REC_SESSION_H

#include <stdbool.h>
#include <sys/types.h>

struct trev_session;

/* A process that joined. */
struct trev_joiner {
	pid_t pid;		/* checked: the process that connected */
	pid_t ppid;		/* as it said */
	bool forked;		/* a fork() child: its settings are its parent's */
};

/*
 * trev_session_open() - listen on a new socket in a private directory
 * (mode 0700) under /tmp. Return: 0 and *@out, or a negative errno.
 */
int trev_session_open(struct trev_session **out);

/*
 * trev_session_open_at() - listen at @path (`trev record -a`: the socket
 * directory of user @uid, ours or, for root's -u, another's; made if
 * missing, it must be that user's and closed to others), for the
 * processes of @uid. A socket there that nobody serves is replaced.
 * Return: 0 and *@out; -EADDRINUSE when a live recorder serves it; or a
 * negative errno.
 */
int trev_session_open_at(struct trev_session **out, const char *path, uid_t uid);

/* The listening socket, for poll(): readable when a process joins. */
int trev_session_fd(const struct trev_session *s);

/* The socket's path, for TREV_SESSION. */
const char *trev_session_path(const struct trev_session *s);

/*
 * trev_session_accept() - the next process that joined, waiting up to
 * @timeout_ms (0: not at all). A connection that is not a well-formed join
 * of a process of our user (or root) within a second (its magic, version,
 * flags, and a pid that SO_PEERCRED confirms) is dropped and reported in
 * @why (when not NULL, a sentence; "" when nothing was dropped, or the
 * connection closed without a byte: another recorder's check).
 * Return: 1 with @j set, 0 when no process joined in time, or a negative errno.
 */
int trev_session_accept(struct trev_session *s, int timeout_ms, struct trev_joiner *j,
			char *why, size_t why_size);

/* trev_session_close() - stop listening; later joiners find no socket and run on untraced. */
void trev_session_close(struct trev_session *s);

#endif /* TREV_REC_SESSION_H */
