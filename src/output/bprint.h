/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace_printk()'s binary arguments: saved at record time in the kernel's
 * vbin_printf() layout, formatted at read time as the kernel's bstr_printf().
 */
#ifndef TREV_BPRINT_H
#define TREV_BPRINT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <trev/trace_seq.h>

/* Storage for one compiled format: this many bytes, 8-byte aligned. */
#define TREV_BPRINT_SPEC_SIZE	40

/* The largest argument area of one record, in u32 (the kernel's TRACE_BUF_SIZE / 4). */
#define TREV_BPRINT_MAX_WORDS	256

int trev__bprint_compile(const char *fmt, void *spec);
size_t trev__bprint_save(uint32_t *buf, size_t words, const void *spec, va_list ap);
/* The number of arguments of @spec when each is saved as one int (u32), else -1. */
int trev__bprint_int_args(const void *spec);
int trev__bprint_format(struct trev_seq *s, const char *fmt, const void *buf, size_t len);

/* The kernel's %p extensions in a printf (TP_printk's): bprint.c formats them. */
const char *trev__kptr_parse(const char *fmt, int *stars);
size_t trev__kptr_snprint(char *buf, size_t size, const char *fmt, const int *star,
			  const void *ptr);

#endif /* TREV_BPRINT_H */
