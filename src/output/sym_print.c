/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Code addresses printed into a trace_seq (sym_print.h): the names come
 * from src/sym/ (symbols.c), the text is the kernel's.
 */
#include <trev/trace_seq.h>

#include "events/events_internal.h"
#include "output/sym_print.h"
#include "sym/symbols.h"

/**
 * trev__sym_print() - append the function holding an address, as the kernel's
 * trace_seq_print_sym()
 * @s: the sequence
 * @addr: the address
 * @with_offset: print "name+0x1a/0x40" (the sym-offset trace option), else "name"
 *
 * An unknown address prints as the kernel prints it there: "0x%lx" with
 * @with_offset (sprint_symbol's text), "0x%08lx" without. One past the end
 * of the nearest symbol below it (a stripped object's .dynsym) prints as
 * "name+0x8a" even without @with_offset.
 *
 * Context: as trev__sym_lookup().
 * Return: 0, or -1 if @s is full.
 */
int trev__sym_print(struct trev_seq *s, unsigned long addr, int with_offset)
{
	struct trev_sym sym;

	if (trev__sym_lookup(addr, &sym) < 0) {
		if (with_offset)
			return trev_seq_printf(s, "0x%lx", addr);
		return trev_seq_printf(s, "0x%08lx", addr);
	}
	/* Past the symbol's end (a stripped object): the offset says it is only the nearest. */
	if (!with_offset && sym.past_end)
		return trev_seq_printf(s, "%s+0x%lx", sym.name, addr - sym.start);
	if (!with_offset)
		return trev_seq_puts(s, sym.name);
	return trev_seq_printf(s, "%s+0x%lx/0x%lx", sym.name, addr - sym.start, sym.size);
}

void trev__sym_print_ip(struct trev_seq *s, unsigned long ip, unsigned long trace_flags)
{
	if (!ip) {
		trev_seq_putc(s, '0');
		return;
	}
	trev__sym_print(s, ip, !!(trace_flags & TREV_ITER_SYM_OFFSET));
	if (trace_flags & TREV_ITER_SYM_ADDR)
		trev_seq_printf(s, " <%016lx>", ip);
}
