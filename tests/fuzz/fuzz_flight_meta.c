/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the flight recorder's metadata parser (trev recover,
 * tools/trev/flight_meta.c): the file is written by another process, or by
 * anyone who could write in its directory, and may hold anything. The
 * input is the file; every entry found is looked up again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flight_meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trev_flight_meta m;
	char why[256];
	size_t sum = 0;

	if (trev_flight_meta_parse(&m, data, size, why, sizeof(why)) < 0) {
		if (!memchr(why, '\0', sizeof(why)))
			abort();
		return 0;
	}
	for (uint32_t i = 0; i < m.nr; i++) {
		uint32_t len;
		const char *d = trev_flight_meta_get(&m, m.e[i].name, &len);

		if (!d || d[len] != '\0' || strlen(m.e[i].name) == 0)
			abort();
		sum += len;
	}
	if (sum > size)
		abort();
	trev_flight_meta_free(&m);
	return 0;
}
