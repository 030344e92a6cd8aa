/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for `trev list --usdt`'s SDT note decoder
 * (tools/trev/usdt_note.c): any descriptor decodes to 0, with three strings
 * that end inside it and arguments that lie inside the third, or to -EINVAL
 * with a reason; never a read outside it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "usdt_note.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly @size bytes, so that ASan catches a read past it. */
	uint8_t *desc = malloc(size ? size : 1);
	const char *why = NULL, *end;
	struct usdt_note n;
	int ret;

	if (!desc)
		return 0;
	memcpy(desc, data, size);
	end = (const char *)desc + size;
	ret = usdt_note_parse(desc, size, &n, &why);
	if (ret == 0) {
		size_t args_len = strlen(n.args);

		if (n.provider < (const char *)desc + 24 || n.args + args_len >= end ||
		    !*n.provider || !*n.name || n.nr_args > USDT_MAX_ARGS)
			abort();
		for (unsigned int i = 0; i < n.nr_args; i++) {
			int sz = abs(n.arg[i].size);

			if (n.arg[i].op < n.args || !n.arg[i].op_len ||
			    n.arg[i].op + n.arg[i].op_len > n.args + args_len ||
			    (sz != 1 && sz != 2 && sz != 4 && sz != 8) ||
			    memchr(n.arg[i].op, ' ', n.arg[i].op_len))
				abort();
		}
	} else if (ret != -EINVAL || !why || !*why) {
		abort();
	}
	free(desc);
	return 0;
}
