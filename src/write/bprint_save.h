/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace_printk()'s binary arguments saved at record time, in the kernel's
 * vbin_printf() layout (bprint_save.c; output/bprint.h formats them).
 */
#ifndef TREV_BPRINT_SAVE_H
#define TREV_BPRINT_SAVE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Storage for one compiled format: this many bytes, 8-byte aligned. */
#define TREV_BPRINT_SPEC_SIZE	40

/* The largest argument area of one record, in u32 (the kernel's TRACE_BUF_SIZE / 4). */
#define TREV_BPRINT_MAX_WORDS	256

/* Compile @fmt into @spec (TREV_BPRINT_SPEC_SIZE bytes); kernel-doc in bprint_save.c. */
int trev__bprint_compile(const char *fmt, void *spec);
/* Save the arguments @ap of @spec into @buf (@words u32 at most). Return: the u32 used. */
size_t trev__bprint_save(uint32_t *buf, size_t words, const void *spec, va_list ap);
/* The number of arguments of @spec when each is saved as one int (u32), else -1. */
int trev__bprint_int_args(const void *spec);

#endif /* TREV_BPRINT_SAVE_H */
