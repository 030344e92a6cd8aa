/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Function symbols of an ELF file image by name and by address, and a file
 * offset as a link-time address (elf_find.c): what the probe events resolve
 * their targets with (docs/probes.md). The image is hostile input: every
 * offset, size and index is checked against the image's length before it is
 * used. ELF64, little-endian only (x86-64).
 */
#ifndef TREV_ELF_FIND_H
#define TREV_ELF_FIND_H

#include <stddef.h>
#include <stdint.h>

/* A function: [value, value + size) at link time. */
struct trev_elf_func {
	uint64_t value;
	uint64_t size;
};

/*
 * trev__elf_func_by_name() - the defined function (STT_FUNC, STT_GNU_IFUNC)
 * @name of .symtab, else of .dynsym ("name@VERSION" is not matched: the
 * symbol tables hold the bare name).
 * Return: 0 with @f; -ENOENT (no such function), -ENOEXEC (not an ELF64
 * little-endian image, or a table that does not fit in it).
 */
int trev__elf_func_by_name(const void *img, size_t len, const char *name,
			   struct trev_elf_func *f);

/*
 * trev__elf_funcs() - call @cb for each defined function of .symtab, then of
 * .dynsym, in table order, with its name (NUL-ended inside the image) until
 * @cb returns non-zero. Return: 0, @cb's value, or -ENOEXEC.
 */
int trev__elf_funcs(const void *img, size_t len,
		    int (*cb)(void *arg, const char *name, const struct trev_elf_func *f),
		    void *arg);

/*
 * trev__elf_func_at() - the defined function of .symtab or .dynsym whose
 * [value, value + size) holds link-time address @vaddr, among those
 * trev__elf_funcs() lists (the one starting nearest below it when several
 * do).
 * Return: 0 with @f, -ENOENT, -ENOEXEC.
 */
int trev__elf_func_at(const void *img, size_t len, uint64_t vaddr, struct trev_elf_func *f);

/*
 * trev__elf_offset_vaddr() - the link-time address of file offset @off, in
 * an executable PT_LOAD segment's file bytes.
 * Return: 0 with @vaddr; -ENOENT (no executable segment holds it), -ENOEXEC.
 */
int trev__elf_offset_vaddr(const void *img, size_t len, uint64_t off, uint64_t *vaddr);

/*
 * trev__elf_read() - the whole file @path into a new buffer (free() it),
 * at most 1 GiB. Return: 0 with @img and @len; -errno.
 */
int trev__elf_read(const char *path, void **img, size_t *len);

#endif /* TREV_ELF_FIND_H */
