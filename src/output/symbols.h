/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* TEMPORARY declarations until the symbols module lands. */
#ifndef TREV_SYMBOLS_H
#define TREV_SYMBOLS_H
#include <trev/trace_seq.h>
int trev__sym_print(struct trev_seq *s, unsigned long addr, int with_offset);
#endif
