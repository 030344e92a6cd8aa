/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Library-wide internals: start-up, logging, the start-up environment. */
#ifndef TREV_CORE_INTERNAL_H
#define TREV_CORE_INTERNAL_H

#include <trev/trev.h>

/* Run once before anything else the library does; safe to call often. */
void trev__library_init(void);

void trev__log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* In the child that writes a dying process's trace: the log's lock made anew. */
void trev__log_crash_child(void);

/* Apply TREV_EVENTS to the events with ids from @min_id on (those just registered). */
void trev__env_apply_events(unsigned int min_id);
/* (Re)arm the exit work of TREV_OUTPUT; see env.c. */
void trev__env_at_exit(void);
/* Read TREV_* at start-up. */
void trev__env_init(void);
/* Apply the settings that go through the tree (TREV_CLOCK, ...); again after new events. */
void trev__env_control(void);

#endif /* TREV_CORE_INTERNAL_H */
