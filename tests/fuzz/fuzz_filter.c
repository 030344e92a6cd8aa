/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the filter language: the input is split at its
 * first NUL into a filter text and a record. The text is compiled against
 * an event with every field kind (tests/events/filter_test_events.h);
 * what compiles is run on the record, whatever its length and whatever its
 * __data_loc words say. A compile must succeed or refuse with a message
 * and a column inside the text; a run must not read outside the record.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <trev/trev.h>

#include "events/events_internal.h"
#include "filter/filter.h"

#define CREATE_TRACE_POINTS
#include "filter_test_events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t tlen = nul ? (size_t)(nul - data) : size;
	size_t rlen = nul ? size - tlen - 1 : 0;
	struct trev_event_call *calls[] = { &trev_event_ft_all, &trev_event_ft_eight };
	struct trev_filter_error err;
	struct trev_filter *f;
	char *text = malloc(tlen + 1);
	uint8_t *rec;
	int ret;

	if (!text)
		return 0;
	memcpy(text, data, tlen);
	text[tlen] = '\0';
	/* The record in its own allocation, so ASan sees any read past it. */
	rec = malloc(rlen ? rlen : 1);
	if (!rec) {
		free(text);
		return 0;
	}
	if (rlen)
		memcpy(rec, nul + 1, rlen);
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		ret = trev__filter_compile(calls[i], text, &f, &err);
		if (ret == -EINVAL) {
			if (!err.msg || err.pos < 0 || (size_t)err.pos > tlen + 1)
				abort();
			continue;
		}
		if (ret)
			abort();
		if (!f)
			continue;	/* "0" */
		if (strcmp(trev__filter_text(f), text))
			abort();
		(void)trev__filter_match(f, rec, (unsigned int)rlen, 0);
		trev__filter_free(f);
	}
	free(rec);
	free(text);
	return 0;
}
