/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the trigger parser (src/trigger/): each line of the
 * input is written to a trigger file (the first byte picks which, and
 * whether the top instance or an instance), events fire, then every
 * trigger is removed; the events must then be back out of soft mode.
 * (The fuzz corpus directory of ctest starts empty; seeds can be any
 * trigger lines, one per line after a first byte.)
 */
#include <errno.h>
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

static const char *const files[] = {
	"events/trev_test/tt_ints/trigger",
	"events/trev_test/tt_open/trigger",
	"instances/fz/events/trev_test/tt_ints/trigger",
	"instances/fz/events/trev_test/tt_close/trigger",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *save = NULL;
	unsigned int pick = size ? data[0] : 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	trev_set_log(NULL, NULL, 0);
	trev_mkdir("instances/fz");
	for (char *line = strtok_r(size ? text + 1 : text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		int ret = trev_append(files[pick++ % 4], line);

		if (ret != 0 && ret != -EINVAL && ret != -EEXIST && ret != -ENOMEM)
			abort();
	}
	trace_tt_ints(1, 2, 3);
	trace_tt_open(6, "fuzz");
	trace_tt_close(7, "fuzz");
	for (unsigned int i = 0; i < 4; i++)
		trev_write(files[i], "");
	if (trev_rmdir("instances/fz") != 0)
		abort();
	/* An event an enable_event trigger enabled stays enabled, as in the kernel. */
	trev_write("set_event", "");
	trev_write("tracing_on", "1");
	trev_write("snapshot", "0");
	if (trace_tt_ints_enabled() || trace_tt_open_enabled() || trace_tt_close_enabled())
		abort();
	free(text);
	return 0;
}
