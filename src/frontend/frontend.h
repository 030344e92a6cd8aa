/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The frontends (layer 5, docs/architecture.md): start-up, the TREV_*
 * environment, the crash writer, the flight recorder. Nothing below this
 * layer includes this header.
 */
#ifndef TREV_FRONTEND_H
#define TREV_FRONTEND_H

#include <stdbool.h>

#include <trev/trev.h>

#include "base/log.h"

struct sigaction;

/* Run once before anything else the library does; safe to call often. */
void trev__library_init(void);

/* Apply TREV_EVENTS to the events with ids from @min_id on (those just registered). */
void trev__env_apply_events(unsigned int min_id);
/* (Re)arm the exit work of TREV_OUTPUT; see env.c. */
void trev__env_at_exit(void);
/* Read TREV_* at start-up. */
void trev__env_init(void);
/* Apply the settings that go through the tree (TREV_CLOCK, ...); again after new events. */
void trev__env_control(void);
/* TREV_OUTPUT, NULL when it is not set. */
const char *trev__env_output(void);
/*
 * The TREV_OUTPUT text is printed once, by the exit or by a fatal signal:
 * claim() returns true to the one that prints it; release() lets it be
 * printed again (a signal the program's handler survived). Context: any,
 * async-signal-safe.
 */
bool trev__env_exit_claim(void);
void trev__env_exit_release(void);

/*
 * With TREV_OUTPUT set, a fatal signal or a default-action SIGINT/SIGTERM
 * writes the trace before the process dies (crash.c). Installs the
 * handlers; called once, from trev__env_init().
 */
void trev__crash_init(void);
/* @act is the handler crash.c installed (frontend/fuse.c chains to it). */
bool trev__crash_handler_is(const struct sigaction *act);

/*
 * The flight recorder (flight.c, TREV_FLIGHT). trev__flight_open(): the new
 * file the top instance's region goes in, or -1 (not asked for, or refused:
 * logged); trev__flight_abandon(): the buffer could not be made in it.
 * trev__flight_update(): rewrite NAME.meta (start-up, each object's events).
 */
int trev__flight_open(void);
void trev__flight_abandon(int fd);
void trev__flight_update(void);

#endif /* TREV_FRONTEND_H */
