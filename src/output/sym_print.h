/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Code addresses printed into a trace_seq, by their names (src/sym/): the
 * printing half of symbols, above the lookup so that the lookup needs no
 * trace_seq (sym_print.c).
 */
#ifndef TREV_SYM_PRINT_H
#define TREV_SYM_PRINT_H

#include <trev/trace_seq.h>

/* trev__sym_print() - the function holding @addr, as trace_seq_print_sym() (sym_print.c). */
int trev__sym_print(struct trev_seq *s, unsigned long addr, int with_offset);
/*
 * trev__sym_print_ip() - a record's code address as the kernel's
 * seq_print_ip_sym(): "0" for none, else the name, "+off/size" with the
 * option sym-offset and " <addr>" with sym-addr (@trace_flags: TREV_ITER_*).
 */
void trev__sym_print_ip(struct trev_seq *s, unsigned long ip, unsigned long trace_flags);

#endif /* TREV_SYM_PRINT_H */
