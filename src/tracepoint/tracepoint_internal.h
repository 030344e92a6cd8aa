/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tracepoint internals shared with the event registry. */
#ifndef TREV_TRACEPOINT_INTERNAL_H
#define TREV_TRACEPOINT_INTERNAL_H

#include <trev/tracepoint.h>

/*
 * A tracepoint's fields, wherever the layout of its object's ABI keeps them
 * (ABI 0 had no header; the probes an object's iterator reads, and the key
 * its trace_<name>() tests, are at that layout's offsets).
 */
struct trev__tp_ref {
	const char *name;
	int *enabled;				/* key.enabled */
	struct trev_tracepoint_func **funcs;	/* the RCU-protected probe array */
	int (*regfunc)(void);
	void (*unregfunc)(void);
	void *iterator;
};

/*
 * trev__tp_ref() - find @tp's fields
 * Context: any. Return: 0, or -EPROTO/-EINVAL for a tracepoint of an ABI
 * this library does not read (never written to).
 */
int trev__tp_ref(struct trev_tracepoint *tp, struct trev__tp_ref *ref);

/* Stands in for a probe that could not be removed for want of memory. */
void trev__tp_stub_func(void);

/*
 * trev__tp_remove_all() - drop every probe of @tp and wait a grace period
 * Used when the object holding @tp is unloaded. Context: not in a probe.
 */
void trev__tp_remove_all(struct trev_tracepoint *tp);

#endif /* TREV_TRACEPOINT_INTERNAL_H */
