/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the TRACE_DEFINE_ENUM substitution on print fmt: any
 * name, value and print fmt give 0 or -ENOSPC, never a longer text, and
 * never a read or write outside the string.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Compiled into this target so that libFuzzer sees the scan's coverage. */
#include "events/eval_map.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Input: 8 bytes of value, the name up to a NUL, then the print fmt. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long value = 0;
	const uint8_t *nul;
	size_t name_len, fmt_len;
	char *name, *fmt;
	int ret;

	if (size < sizeof(value))
		return 0;
	memcpy(&value, data, sizeof(value));
	data += sizeof(value);
	size -= sizeof(value);
	nul = memchr(data, '\0', size);
	name_len = nul ? (size_t)(nul - data) : size;
	fmt_len = nul ? size - name_len - 1 : 0;
	name = malloc(name_len + 1);
	fmt = malloc(fmt_len + 1);
	if (!name || !fmt)
		abort();
	memcpy(name, data, name_len);
	name[name_len] = '\0';
	memcpy(fmt, data + name_len + (nul ? 1 : 0), fmt_len);
	fmt[fmt_len] = '\0';
	ret = trev__eval_update_printk(fmt, name, value);
	if ((ret != 0 && ret != -ENOSPC) || strlen(fmt) > fmt_len)
		abort();
	free(name);
	free(fmt);
	return 0;
}
