/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the probe events' ELF reader (src/sym/elf_find.c):
 * any image is looked up by name, by address and by file offset without a
 * read outside it; what a lookup finds is consistent (the function found by
 * its name holds its own first byte).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sym/elf_find.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "ps_push_rbp", "ps_seven", "main", "", "a" };
	/* A copy of exactly @size bytes (8-aligned by malloc), so that ASan catches a read past it. */
	uint8_t *img = malloc(size ? size : 1);
	struct trev_elf_func f, g;
	uint64_t v = 0, off = 0;
	int ret;

	if (!img)
		return 0;
	memcpy(img, data, size);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ret = trev__elf_func_by_name(img, size, names[i], &f);
		if (ret && ret != -ENOENT && ret != -ENOEXEC)
			abort();
		if (!ret && f.size) {
			if (trev__elf_func_at(img, size, f.value, &g) || g.value > f.value ||
			    f.value - g.value >= g.size)
				abort();
		}
	}
	if (size >= 8)
		memcpy(&off, data + size - 8, 8);
	ret = trev__elf_offset_vaddr(img, size, off % (size + 1), &v);
	if (ret && ret != -ENOENT && ret != -ENOEXEC)
		abort();
	ret = trev__elf_func_at(img, size, off, &g);
	if (ret && ret != -ENOENT && ret != -ENOEXEC)
		abort();
	if (!ret && (off < g.value || off - g.value >= g.size))
		abort();
	free(img);
	return 0;
}
