/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The header every descriptor an object hands the library starts with
 * (TREV_ABI_HDR, <trev/trace_event.h>): which ABI the descriptor is of.
 * Below the tracepoints and the events, which both read descriptors; the
 * translation of older ones is src/events/abi.c's.
 */
#ifndef TREV_BASE_ABI_HDR_H
#define TREV_BASE_ABI_HDR_H

#include <stddef.h>

/*
 * trev__abi_of() - the ABI of the descriptor at @desc
 * @min_size: the size of the descriptor's type in this library's ABI
 * @abi: set to 0 (no header: it starts with a pointer) or its header's version
 *
 * Context: any, async-signal-safe; reads the first 8 bytes of @desc.
 * Return: 0; -EPROTO for an ABI newer than TREV_ABI_VERSION; -EINVAL for a
 * header that says ABI 0 or a size smaller than @min_size.
 */
int trev__abi_of(const void *desc, size_t min_size, unsigned int *abi);

#endif /* TREV_BASE_ABI_HDR_H */
