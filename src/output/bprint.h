/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace_printk()'s binary arguments, formatted at read time as the kernel's
 * bstr_printf() (bprint.c); saving them at record time in the kernel's
 * vbin_printf() layout is the write path's (write/bprint_save.h).
 */
#ifndef TREV_BPRINT_H
#define TREV_BPRINT_H

#include <stddef.h>
#include <stdint.h>

#include <trev/trace_seq.h>

/*
 * trev__bprint_format() - the arguments an ftrace:bprint record saved (@buf,
 * @len bytes; src/write/bprint_save.c saves them) formatted with @fmt into @s.
 */
int trev__bprint_format(struct trev_seq *s, const char *fmt, const void *buf, size_t len);

/* The kernel's %p extensions in a printf (TP_printk's): bprint.c formats them. */
const char *trev__kptr_parse(const char *fmt, int *stars);
size_t trev__kptr_snprint(char *buf, size_t size, const char *fmt, const int *star,
			  const void *ptr);

#endif /* TREV_BPRINT_H */
