/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The descriptors' ABI check and the translation of older ones (abi.c). */
#ifndef TREV_EVENTS_ABI_H
#define TREV_EVENTS_ABI_H

#include <stddef.h>

#include <trev/trace_event.h>

#include "base/abi_hdr.h"

/*
 * trev__abi_module() - check an object's module record, copy it into @out
 * Logs a refusal. Return: 0, -EPROTO or -EINVAL.
 */
int trev__abi_module(const struct trev_module *mod, struct trev_module *out);

/*
 * trev__abi_adopt_call() - the event the registry uses for @call
 *
 * @call itself when it is of this ABI (and so are its class and
 * tracepoint), a library-owned copy of an ABI 0 one, or NULL (logged) for
 * one the library cannot read. Context: registration.
 */
struct trev_event_call *trev__abi_adopt_call(struct trev_event_call *call);
/* Frees the copy trev__abi_adopt_call() made, if it made one. */
void trev__abi_release_call(struct trev_event_call *native, struct trev_event_call *orig);

/* The same for a TRACE_DEFINE_ENUM/SIZEOF descriptor. */
const struct trev_eval_map *trev__abi_adopt_eval(const struct trev_eval_map *map);
void trev__abi_release_eval(const struct trev_eval_map *native, const struct trev_eval_map *orig);

#endif /* TREV_EVENTS_ABI_H */
