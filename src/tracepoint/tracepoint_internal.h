/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tracepoint internals shared with the event registry. */
#ifndef TREV_TRACEPOINT_INTERNAL_H
#define TREV_TRACEPOINT_INTERNAL_H

#include <trev/tracepoint.h>

/* Stands in for a probe that could not be removed for want of memory. */
void trev__tp_stub_func(void);

/*
 * trev__tp_remove_all() - drop every probe of @tp and wait a grace period
 * Used when the object holding @tp is unloaded. Context: not in a probe.
 */
void trev__tp_remove_all(struct trev_tracepoint *tp);

#endif /* TREV_TRACEPOINT_INTERNAL_H */
