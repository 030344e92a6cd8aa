/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the set_event parser (trev_set_event, TREV_EVENTS):
 * any text is taken or refused with an error; the test events' state must
 * always be one that the accepted terms explain.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <trev/trev.h>

#define CREATE_TRACE_POINTS
#include "trev_test_events.h"

int tt_reg(void)
{
	return 0;
}

void tt_unreg(void)
{
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *spec = malloc(size + 1);
	int ret;

	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	trev_set_log(NULL, NULL, 0);
	ret = trev_set_event(spec);
	if (ret != 0 && ret != -EINVAL && ret != -ENOMEM)
		abort();
	/* Events fire whatever state the input left them in. */
	trace_tt_ints(1, 2, 3);
	trace_tt_open(1, "fuzz");
	trev_set_event("!*:*");
	if (trace_tt_ints_enabled() || trace_tt_open_enabled())
		abort();
	free(spec);
	return 0;
}
