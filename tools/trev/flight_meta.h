/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A flight recorder's metadata file (NAME.meta, src/frontend/flight_meta.h),
 * parsed for `trev recover` without trusting it: every length and count
 * is checked against the bytes there are.
 */
#ifndef TREV_TOOLS_FLIGHT_META_H
#define TREV_TOOLS_FLIGHT_META_H

#include <stddef.h>
#include <stdint.h>

struct trev_flight_entry {
	char *name;		/* NUL-terminated, no NUL inside */
	char *data;		/* its bytes and a NUL after them (text may hold NULs) */
	uint32_t len;		/* bytes of data */
};

struct trev_flight_meta {
	struct trev_flight_entry *e;
	uint32_t nr;
};

/*
 * trev_flight_meta_parse() - the entries of a metadata file's bytes
 * @buf, @len: the whole file
 * @why: receives what is wrong with it (offset and reason), @why_size bytes
 * Return: 0, -EINVAL (malformed: @why says how), -EPROTO (another version)
 * or -ENOMEM. On error @m is empty.
 */
int trev_flight_meta_parse(struct trev_flight_meta *m, const void *buf, size_t len, char *why,
			   size_t why_size);

/* The data of the first entry named @name, or NULL; its length in @len. */
const char *trev_flight_meta_get(const struct trev_flight_meta *m, const char *name,
				 uint32_t *len);

void trev_flight_meta_free(struct trev_flight_meta *m);

#endif /* TREV_TOOLS_FLIGHT_META_H */
