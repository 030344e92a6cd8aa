/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The control socket (server.c): the tree served to `trev -p PID`. */
#ifndef TREV_CONTROL_H
#define TREV_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * trev__control_start() - serve the tree on <dir>/<pid>.sock, unless
 * TREV_SOCKET=0. Return: 0, or a negative errno (a warning was logged;
 * the program runs on without the socket).
 * Context: library start-up, or a forked child.
 */
int trev__control_start(void);

/* Read TREV_ATTACH_WAIT (and unset it). Context: library_init(), once. */
void trev__control_env(void);

/*
 * trev__control_init() - the constructor's start: trev__control_start(),
 * and the start-up hold when TREV_ATTACH_WAIT is set (now, or deferred to
 * the program's event registration).
 */
void trev__control_init(void);

/* Whether @addr lies in the program itself (not in a shared object). Context: any. */
bool trev__control_in_main(const void *addr);

/*
 * Whether the program's file (/proc/self/exe) has a section named @name:
 * "__trev_events" (its own events), "__trev_lib" (libtrev linked into it).
 * Reads the file's section headers. Context: start-up.
 */
bool trev__control_main_has_section(const char *name);

/* An object registered its events; @section is in its event section. */
void trev__control_module_registered(const void *section);

/* The socket being served. Return: its length, or -ENOENT when none. */
ssize_t trev__control_path(char *buf, size_t size);

/* Answer protocol requests on connected socket @fd until the peer leaves. */
void trev__control_serve(int fd);

/*
 * Sessions (session.c). trev__session_env() reads TREV_SESSION once at
 * start-up (kept in the environment, for the program's children) and says
 * whether the process is in a recorder's session; trev__session_active()
 * says it later. trev__session_join() announces this process to the
 * recorder (@forked: a fork() child without exec).
 * Return: 0 when the recorder has the message and will release the
 * process, or a negative errno (no recorder: the process runs on untraced;
 * a `trev record -a` socket that refused is forgotten, so that
 * trev__session_active() is false from then on).
 */
bool trev__session_env(void);
bool trev__session_active(void);
int trev__session_join(bool forked);

#endif /* TREV_CONTROL_H */
