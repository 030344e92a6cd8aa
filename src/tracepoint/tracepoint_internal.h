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

/*
 * trev__jl_set() - the jump label sites of @tp (jump_label.c) to jmp (@on)
 * or nop5, all in one batch; the sites of objects registered later follow.
 * Context: holds tp_mutex; not in a signal handler.
 * Return: 0, or when turning on -EBUSY (a thread blocks SIGTRAP), -ENOSYS
 * (no membarrier SYNC_CORE), -ENOMEM or a write's errno, and then every
 * site is as it was. Turning off always returns 0: a site that cannot be
 * put back stays a jmp into a guard that finds no probes.
 */
int trev__jl_set(struct trev_tracepoint *tp, bool on);

#endif /* TREV_TRACEPOINT_INTERNAL_H */
