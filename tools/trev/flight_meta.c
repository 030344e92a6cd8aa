/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A flight recorder's metadata file, parsed without trusting it (fuzz_flight_meta). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/flight_meta.h"
#include "flight_meta.h"

static uint32_t fm_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void trev_flight_meta_free(struct trev_flight_meta *m)
{
	for (uint32_t i = 0; i < m->nr; i++) {
		free(m->e[i].name);
		free(m->e[i].data);
	}
	free(m->e);
	m->e = NULL;
	m->nr = 0;
}

static int fm_name_cmp(const void *a, const void *b)
{
	const struct trev_flight_entry *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/*
 * A name given twice: which entry stands is anyone's guess, so the file is
 * refused (its writer never repeats one). Sorted, not compared pairwise:
 * there may be 65536 entries. Return: true, with @why said.
 */
static bool fm_duplicate(const struct trev_flight_meta *m, char *why, size_t why_size)
{
	const struct trev_flight_entry **by_name;
	bool dup = false;

	if (m->nr < 2)
		return false;
	by_name = malloc(m->nr * sizeof(*by_name));
	if (!by_name) {
		snprintf(why, why_size, "no memory to check its %u names", m->nr);
		return true;
	}
	for (uint32_t i = 0; i < m->nr; i++)
		by_name[i] = &m->e[i];
	qsort(by_name, m->nr, sizeof(*by_name), fm_name_cmp);
	for (uint32_t i = 1; i < m->nr && !dup; i++) {
		if (strcmp(by_name[i - 1]->name, by_name[i]->name) == 0) {
			snprintf(why, why_size, "entries %td and %td have the same name, %.64s",
				 by_name[i - 1] - m->e, by_name[i] - m->e, by_name[i]->name);
			dup = true;
		}
	}
	free(by_name);
	return dup;
}

int trev_flight_meta_parse(struct trev_flight_meta *m, const void *buf, size_t len, char *why,
			   size_t why_size)
{
	const uint8_t *p = buf;
	uint32_t count;
	size_t off = TREV_FLIGHT_META_HDR;

	m->e = NULL;
	m->nr = 0;
	if (len < TREV_FLIGHT_META_HDR || fm_u32(p) != TREV_FLIGHT_META_MAGIC) {
		snprintf(why, why_size, "not a trev flight recorder metadata file");
		return -EINVAL;
	}
	if (fm_u32(p + 4) != TREV_FLIGHT_META_VERSION) {
		snprintf(why, why_size, "version %u, not %u", fm_u32(p + 4),
			 TREV_FLIGHT_META_VERSION);
		return -EPROTO;
	}
	if (len > TREV_FLIGHT_META_MAX) {
		snprintf(why, why_size, "%zu bytes, more than %u", len, TREV_FLIGHT_META_MAX);
		return -EINVAL;
	}
	count = fm_u32(p + 8);
	if (count > TREV_FLIGHT_META_MAX_ENTRIES || (size_t)count * 9 > len - off) {
		snprintf(why, why_size, "%u entries do not fit in %zu bytes", count, len);
		return -EINVAL;
	}
	m->e = calloc(count ? count : 1, sizeof(*m->e));
	if (!m->e)
		return -ENOMEM;
	for (uint32_t i = 0; i < count; i++) {
		struct trev_flight_entry *e = &m->e[i];
		uint32_t nlen, dlen;

		if (len - off < 8) {
			snprintf(why, why_size, "offset %zu: entry %u of %u is cut short", off, i,
				 count);
			goto out_malformed;
		}
		nlen = fm_u32(p + off);
		dlen = fm_u32(p + off + 4);
		off += 8;
		if (nlen == 0 || nlen > TREV_FLIGHT_META_MAX_NAME || nlen > len - off ||
		    dlen > len - off - nlen) {
			snprintf(why, why_size, "offset %zu: entry %u: name of %u and data of %u "
				 "bytes do not fit", off - 8, i, nlen, dlen);
			goto out_malformed;
		}
		if (memchr(p + off, '\0', nlen)) {
			snprintf(why, why_size, "offset %zu: entry %u: a NUL in its name", off, i);
			goto out_malformed;
		}
		e->name = strndup((const char *)p + off, nlen);
		e->data = malloc((size_t)dlen + 1);
		m->nr = i + 1;
		if (!e->name || !e->data) {
			trev_flight_meta_free(m);
			return -ENOMEM;
		}
		memcpy(e->data, p + off + nlen, dlen);
		e->data[dlen] = '\0';
		e->len = dlen;
		off += (size_t)nlen + dlen;
	}
	if (off != len) {
		snprintf(why, why_size, "offset %zu: %zu bytes after the last entry", off, len - off);
		goto out_malformed;
	}
	if (fm_duplicate(m, why, why_size))
		goto out_malformed;
	return 0;

out_malformed:
	trev_flight_meta_free(m);
	return -EINVAL;
}

const char *trev_flight_meta_get(const struct trev_flight_meta *m, const char *name,
				 uint32_t *len)
{
	for (uint32_t i = 0; i < m->nr; i++)
		if (strcmp(m->e[i].name, name) == 0) {
			if (len)
				*len = m->e[i].len;
			return m->e[i].data;
		}
	return NULL;
}
