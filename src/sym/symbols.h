/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Code addresses to function names, as the kernel's kallsyms prints them for
 * %ps, %pS and %pB: dladdr(), then the object's ELF .symtab (cached).
 */
#ifndef TREV_SYMBOLS_H
#define TREV_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>

/* What trev__sym_snprint() prints, as the kernel's printk pointer extensions. */
enum trev_sym_mode {
	TREV_SYM_NAME,		/* %ps: "name" */
	TREV_SYM_OFFSET,	/* %pS: "name+0x1a/0x40" */
	TREV_SYM_BACKTRACE,	/* %pB: as %pS for a return address (looks up addr - 1) */
};

/* One symbol found by trev__sym_lookup(). */
struct trev_sym {
	const char *name;	/* symbol name; valid while its object stays loaded */
	unsigned long start;	/* its run-time address */
	unsigned long size;	/* its size in bytes, 0 when unknown; past_end: to the next symbol */
	const char *object;	/* path of the object that holds it ("" if unknown) */
	bool past_end;		/* the address is past its end: only the nearest symbol below
				 * it in a stripped object's .dynsym (trev__symtab_lookup()) */
};

int trev__sym_lookup(unsigned long addr, struct trev_sym *sym);
int trev__sym_snprint(char *buf, size_t size, unsigned long addr, enum trev_sym_mode mode);
/* In the child that writes a dying process's trace: the table's lock made anew. */
void trev__sym_crash_child(void);

#endif /* TREV_SYMBOLS_H */
