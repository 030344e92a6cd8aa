/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The symbol table of one ELF file, sorted for lookups by address: what
 * symbols.c names this process's code with, and `trev record` another
 * process's (tools/trev/remote_symbols.c). Needs libelf only.
 */
#ifndef TREV_ELF_SYMTAB_H
#define TREV_ELF_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One symbol: its link-time address, size and name. */
struct trev_symtab_ent {
	uint64_t value;		/* st_value: the link-time address */
	uint64_t size;		/* st_size, or the distance to the next symbol */
	uint32_t name;		/* offset in trev_symtab.names */
	uint8_t rank;		/* preference among symbols at one address */
};

/* A file's PT_LOAD segment: where its bytes are in the file and in memory. */
struct trev_symtab_seg {
	uint64_t offset;	/* p_offset */
	uint64_t vaddr;		/* p_vaddr */
	uint64_t filesz;	/* p_filesz */
};

struct trev_symtab {
	struct trev_symtab_ent *syms;	/* sorted by value, the best one per address */
	size_t nsyms;			/* 0: no symbols (and syms NULL) */
	char *names;			/* every name, NUL-terminated, one after another */
	struct trev_symtab_seg *segs;	/* the PT_LOAD segments, in program header order */
	size_t nsegs;
	bool dynsym;			/* the symbols are .dynsym's: the file has no .symtab */
};

/*
 * trev__symtab_load() - read the symbols of the ELF file open on @fd: its
 * .symtab, or lacking one its .dynsym; defined functions and data, the
 * best symbol per address (global functions over local ones, over data)
 * @tab: filled in; trev__symtab_free() it, also after an error
 * @fd: not closed
 *
 * Context: any thread; reads the file.
 * Return: 0 (nsyms may be 0: a stripped file), -ENOEXEC (not an ELF file)
 * or -ENOMEM.
 */
int trev__symtab_load(struct trev_symtab *tab, int fd);

/* trev__symtab_find() - the symbol that holds link-time address @vaddr, or NULL. */
const struct trev_symtab_ent *trev__symtab_find(const struct trev_symtab *tab, uint64_t vaddr);

/*
 * trev__symtab_lookup() - the symbol to name link-time address @vaddr after:
 * the one that holds it (trev__symtab_find()); lacking one, in a table of
 * .dynsym only (a stripped file: Debian's libc), the nearest symbol below
 * it in the same PT_LOAD segment, as kallsyms names an address after the
 * symbol before it. .dynsym lists only the exported symbols, so the
 * static function that holds the address is not in it; the nearest
 * exported one and the offset are all the file tells.
 * @past_end: receives true when the symbol does not hold @vaddr (the
 *	      nearest one below it)
 * @size: receives the symbol's size; past its end, the distance from it
 *	  to the next symbol or the segment's end, as kallsyms counts it
 * Return: the symbol, or NULL: none to name @vaddr after.
 */
const struct trev_symtab_ent *trev__symtab_lookup(const struct trev_symtab *tab, uint64_t vaddr,
						 bool *past_end, uint64_t *size);

/*
 * trev__symtab_vaddr() - the link-time address of byte @offset of the file
 * Return: 0, or -ENOENT when no PT_LOAD segment holds it.
 */
int trev__symtab_vaddr(const struct trev_symtab *tab, uint64_t offset, uint64_t *vaddr);

void trev__symtab_free(struct trev_symtab *tab);

#endif /* TREV_ELF_SYMTAB_H */
