/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* TEMPORARY weak stand-ins; removed when the real modules land. */
#include <stdio.h>
#include <string.h>
#include "output/bprint.h"
#include "output/symbols.h"
__attribute__((weak)) int trev__bprint_compile(const char *fmt, void *spec) { (void)fmt; (void)spec; return -1; }
__attribute__((weak)) size_t trev__bprint_save(uint32_t *buf, size_t words, const void *spec, va_list ap) { (void)buf; (void)words; (void)spec; (void)ap; return 0; }
__attribute__((weak)) int trev__bprint_format(struct trev_seq *s, const char *fmt, const void *buf, size_t len) { (void)buf; (void)len; return trev_seq_puts(s, fmt); }
__attribute__((weak)) int trev__sym_print(struct trev_seq *s, unsigned long addr, int o) { (void)o; return trev_seq_printf(s, "0x%lx", addr); }
__attribute__((weak)) void trev_seq_init(struct trev_seq *s) { s->len = 0; s->full = 0; s->buffer[0] = 0; }
__attribute__((weak)) int trev_seq_vprintf(struct trev_seq *s, const char *fmt, va_list ap) { int n = vsnprintf(s->buffer + s->len, TREV_SEQ_SIZE - s->len, fmt, ap); if (n < 0 || (size_t)n >= TREV_SEQ_SIZE - s->len) { s->full = 1; s->buffer[s->len] = 0; return -1; } s->len += (size_t)n; return 0; }
__attribute__((weak)) int trev_seq_printf(struct trev_seq *s, const char *fmt, ...) { va_list ap; int r; va_start(ap, fmt); r = trev_seq_vprintf(s, fmt, ap); va_end(ap); return r; }
__attribute__((weak)) int trev_seq_puts(struct trev_seq *s, const char *str) { return trev_seq_printf(s, "%s", str); }
__attribute__((weak)) int trev_seq_putc(struct trev_seq *s, char c) { return trev_seq_printf(s, "%c", c); }
__attribute__((weak)) int trev_seq_putmem(struct trev_seq *s, const void *m, size_t l) { if (l + s->len >= TREV_SEQ_SIZE) { s->full = 1; return -1; } memcpy(s->buffer + s->len, m, l); s->len += l; s->buffer[s->len] = 0; return 0; }
__attribute__((weak)) const char *trev_print_flags_seq(struct trev_seq *p, const char *d, unsigned long f, const struct trev_print_flags *a) { (void)d; (void)a; const char *r = p->buffer + p->len; trev_seq_printf(p, "0x%lx", f); trev_seq_putc(p, 0); return r; }
__attribute__((weak)) const char *trev_print_symbols_seq(struct trev_seq *p, unsigned long f, const struct trev_print_flags *a) { (void)a; const char *r = p->buffer + p->len; trev_seq_printf(p, "0x%lx", f); trev_seq_putc(p, 0); return r; }
__attribute__((weak)) const char *trev_print_flags_seq_u64(struct trev_seq *p, const char *d, unsigned long long f, const struct trev_print_flags_u64 *a) { (void)d; (void)a; (void)f; return p->buffer; }
__attribute__((weak)) const char *trev_print_symbols_seq_u64(struct trev_seq *p, unsigned long long f, const struct trev_print_flags_u64 *a) { (void)a; (void)f; return p->buffer; }
__attribute__((weak)) const char *trev_print_bitmask_seq(struct trev_seq *p, const void *b, unsigned int n) { (void)b; (void)n; return p->buffer; }
__attribute__((weak)) const char *trev_print_hex_seq(struct trev_seq *p, const unsigned char *b, int n, int c) { (void)b; (void)n; (void)c; return p->buffer; }
__attribute__((weak)) const char *trev_print_array_seq(struct trev_seq *p, const void *b, int n, size_t e) { (void)b; (void)n; (void)e; return p->buffer; }
