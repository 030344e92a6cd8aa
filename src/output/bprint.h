/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* TEMPORARY declarations until the bprint module lands. */
#ifndef TREV_BPRINT_H
#define TREV_BPRINT_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <trev/trace_seq.h>
#define TREV_BPRINT_SPEC_SIZE 40
#define TREV_BPRINT_MAX_WORDS 256
int trev__bprint_compile(const char *fmt, void *spec);
size_t trev__bprint_save(uint32_t *buf, size_t words, const void *spec, va_list ap);
int trev__bprint_format(struct trev_seq *s, const char *fmt, const void *buf, size_t len);
#endif
