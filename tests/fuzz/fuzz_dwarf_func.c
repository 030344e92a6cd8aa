/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the DWARF reader of probe arguments and `trev list
 * --functions` (src/sym/dwarf_func.c): the input is an ELF file (the seed:
 * an object with DWARF of structs, typedefs, bitfields, anonymous unions),
 * read as `trev list --functions` reads one; every function's parameters,
 * their places and C types, the return type, and the members of each
 * pointed-to struct are walked. libdw parses the bytes; what this reader
 * does with them (type chains, references, member offsets) must end and
 * stay inside them whatever they are.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sym/dwarf_func.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fz_func(const char *name, uint64_t addr, struct trev_dwarf_func *f, void *arg)
{
	struct trev_dwarf_param p[16];
	char buf[256];
	int n;

	(void)addr, (void)arg;
	if (!name || !f)
		return 0;
	if (trev__dwarf_type_name(&f->die, buf, sizeof(buf)) == 0 && strlen(buf) >= sizeof(buf))
		abort();
	n = trev__dwarf_params(f, f->low_pc, p, 16);
	for (int i = 0; i < n; i++) {
		struct trev_dwarf_type t, pointee;
		Dwarf_Die m, first;
		unsigned int bs, bo;
		long off;

		trev__dwarf_type_name(&p[i].die, buf, sizeof(buf));
		if (p[i].where == TREV_DW_IN_REG && (p[i].reg < 0 || p[i].reg > 15))
			abort();
		if (trev__dwarf_type(&p[i].die, &t) || t.kind != TREV_DW_PTR ||
		    trev__dwarf_type(&t.die, &pointee) || pointee.kind != TREV_DW_STRUCT)
			continue;
		/* Each member by its name, as "->name" looks it up. */
		if (dwarf_child(&pointee.die, &first) != 0)
			continue;
		do {
			const char *mn = dwarf_diename(&first);

			if (mn && trev__dwarf_member(&pointee.die, mn, &m, &off, &bs, &bo) == 0 &&
			    (bo >= 8 || bs > 64))
				abort();
		} while (dwarf_siblingof(&first, &first) == 0);
		trev__dwarf_member(&pointee.die, "no_such_member", &m, &off, &bs, &bo);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz_dwarf_func", MFD_CLOEXEC);
	struct trev_dwarf *d;
	char path[64];

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (trev__dwarf_open_file(path, &d) == 0) {
		trev__dwarf_for_each_func(d, fz_func, NULL);
		trev__dwarf_close(d);
	}
	close(fd);
	return 0;
}
