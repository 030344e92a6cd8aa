/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The header that every descriptor compiled into a program and handed to
 * libtrev starts with: its size and the ABI version it was built for, so
 * that a newer library can read an older program's descriptors and refuse
 * a newer one's (docs/events.md, "ABI").
 */
#ifndef TREV_ABI_H
#define TREV_ABI_H

#include <stdint.h>

/*
 * The layout of the descriptors the TRACE_EVENT stages, DEFINE_TRACE() and
 * trace_printk() emit. 0 is the unversioned layout of trev 0.1.0, whose
 * structs have no header; 1 is the first with one. Bumped when a field of a
 * descriptor moves, changes type or goes away, or when a shape the generated
 * code shares with the library without a header changes (docs/events.md).
 * Appending a field does not bump it: the header's size tells.
 */
#define TREV_ABI_VERSION	1

/* "trev", little-endian: bytes 4-7 of every versioned descriptor. */
#define TREV_ABI_MAGIC		0x76657274u

/*
 * The first 8 bytes of a versioned descriptor:
 *
 *	OFFSET	SIZE	MEANING
 *	0	2	size: sizeof the struct where the object was compiled
 *	2	2	abi: TREV_ABI_VERSION there
 *	4	4	magic: TREV_ABI_MAGIC
 *
 * An unversioned (ABI 0) descriptor starts with a pointer instead. Read as
 * a 64-bit word, a versioned header has its top byte 0x76: no user-space
 * pointer on a 64-bit Linux ABI has any of its top 8 bits set, so the magic
 * can never be the upper half of an ABI 0 descriptor's first pointer.
 */
struct trev_abi_hdr {
	uint16_t size;		/* sizeof the descriptor as compiled */
	uint16_t abi;		/* TREV_ABI_VERSION it was compiled for */
	uint32_t magic;		/* TREV_ABI_MAGIC */
};

/* The header of a descriptor of type @type, as an initialiser. */
#define TREV_ABI_HDR(type)							\
	{ (uint16_t)sizeof(type), (uint16_t)TREV_ABI_VERSION, (uint32_t)TREV_ABI_MAGIC }

#endif /* TREV_ABI_H */
