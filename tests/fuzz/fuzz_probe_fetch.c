/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the probe fetch interpreter (src/probe/probe_arg.c,
 * docs/probes.md): the input's first 168 bytes are the registers (struct
 * trev_regs), the next 256 a memory block whose address the registers may
 * hold (a register word whose low byte is 0xb1 is replaced by the block's
 * address plus its next byte), the rest the fetch arguments of one
 * definition "p x ARGS". Every argument is fetched into a record and
 * printed: wild pointers read as faults (no crash), strings stay inside
 * the record and end at their NUL, every __data_loc points inside it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trev/ring_buffer.h>
#include <trev/trace_seq.h>

#include "probe/probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char block[256];
	static struct trev_seq seq;
	unsigned char rec[TREV_RB_MAX_EVENT];
	struct trev_probe_error err;
	struct trev_probe_def def;
	struct trev_regs regs;
	unsigned long *w = (unsigned long *)(void *)&regs;
	char *line;
	bool uprobe;

	if (size < sizeof(regs) + sizeof(block))
		return 0;
	memcpy(&regs, data, sizeof(regs));
	memcpy(block, data + sizeof(regs), sizeof(block));
	for (size_t i = 0; i < sizeof(regs) / sizeof(*w); i++)
		if ((w[i] & 0xff) == 0xb1)
			w[i] = (unsigned long)block + ((w[i] >> 8) & 0xff);
	data += sizeof(regs) + sizeof(block);
	size -= sizeof(regs) + sizeof(block);
	line = malloc(size + 5);
	if (!line)
		return 0;
	memcpy(line, "p x ", 4);
	memcpy(line + 4, data, size);
	line[size + 4] = '\0';
	if (trev__probe_parse(line, TREV_PROBE_UPROBE, &def, &err, &uprobe) == 0) {
		unsigned int base = 16, len = base + def.size;

		if (len <= sizeof(rec)) {
			memset(rec, 0, len);
			for (unsigned int i = 0; i < def.nr_args; i++)
				len += trev__probe_fetch(&def.args[i], &regs, rec + base + def.args[i].offset,
							 rec + len, len, (unsigned int)sizeof(rec) - len);
			if (len > sizeof(rec))
				abort();
			for (unsigned int i = 0; i < def.nr_args; i++) {
				const struct trev_probe_arg *a = &def.args[i];

				for (unsigned int e = 0; a->dynamic && e < (a->count ? a->count : 1); e++) {
					uint32_t loc, off, n;

					memcpy(&loc, rec + base + a->offset + 4 * e, 4);
					off = loc & 0xffff;
					n = loc >> 16;
					if (n && (off + n > len || rec[off + n - 1] != '\0'))
						abort();
				}
				trev_seq_init(&seq);
				trev__probe_print_arg(&seq, a, rec, len, base);
			}
		}
		trev__probe_def_free(&def);
	}
	free(line);
	return 0;
}
