/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev_seq: the text buffer every output function writes into (the kernel's
 * struct trace_seq), and the helpers TP_printk's __print_*() macros call.
 */
#ifndef TREV_TRACE_SEQ_H
#define TREV_TRACE_SEQ_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <trev/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Capacity of one trev_seq; a line that does not fit is cut and marked full. */
#define TREV_SEQ_SIZE	8192u

/*
 * A fixed buffer, as the kernel's trace_seq: no allocation, so output can run
 * anywhere. Once something did not fit, @full is set and later writes are
 * ignored; the text stays NUL-terminated at buffer[len].
 */
struct trev_seq {
	size_t len;			/* bytes used, not counting the NUL */
	int full;			/* a write did not fit */
	char buffer[TREV_SEQ_SIZE];	/* the text, always NUL-terminated */
};

/*
 * In C++, the braced pairs of __print_flags() and __print_symbolic() convert
 * their value as C's initialisation does ({ -1, "x" } is no narrowing error,
 * and becomes ULONG_MAX as in C): one constructor per integer type, so that
 * every value matches one exactly and every enum or narrower type by
 * promotion.
 */
#ifdef __cplusplus
#define TREV__PRINT_FLAGS_CTORS(type, mask_type)					\
	constexpr type(int m, const char *n) : mask((mask_type)m), name(n) {}			\
	constexpr type(unsigned int m, const char *n) : mask((mask_type)m), name(n) {}		\
	constexpr type(long m, const char *n) : mask((mask_type)m), name(n) {}			\
	constexpr type(unsigned long m, const char *n) : mask((mask_type)m), name(n) {}		\
	constexpr type(long long m, const char *n) : mask((mask_type)m), name(n) {}		\
	constexpr type(unsigned long long m, const char *n) : mask((mask_type)m), name(n) {}
#else
#define TREV__PRINT_FLAGS_CTORS(type, mask_type)
#endif

/* One name for a bit mask or a value (__print_flags, __print_symbolic). */
struct trev_print_flags {
	unsigned long mask;
	const char *name;
	TREV__PRINT_FLAGS_CTORS(trev_print_flags, unsigned long)
};

struct trev_print_flags_u64 {
	unsigned long long mask;
	const char *name;
	TREV__PRINT_FLAGS_CTORS(trev_print_flags_u64, unsigned long long)
};

/* trev_seq_init() - empty @s. Context: any. */
TREV_API void trev_seq_init(struct trev_seq *s);
/* trev_seq_printf() - append printf-formatted text. Return: 0, or -1 if it did not fit. */
TREV_API int trev_seq_printf(struct trev_seq *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
TREV_API int trev_seq_vprintf(struct trev_seq *s, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
TREV_API int trev_seq_puts(struct trev_seq *s, const char *str);
TREV_API int trev_seq_putc(struct trev_seq *s, char c);
TREV_API int trev_seq_putmem(struct trev_seq *s, const void *mem, size_t len);

/*
 * The __print_*() helpers. Each appends its text to @p, then a NUL, and
 * returns where its text starts, so that TP_printk can pass the result to a
 * "%s" (the kernel's trace_print_*_seq() do exactly this with iter->tmp_seq).
 * Output is the kernel's, character for character.
 */
TREV_API const char *trev_print_flags_seq(struct trev_seq *p, const char *delim,
					  unsigned long flags,
					  const struct trev_print_flags *flag_array);
TREV_API const char *trev_print_symbols_seq(struct trev_seq *p, unsigned long val,
					    const struct trev_print_flags *symbol_array);
TREV_API const char *trev_print_flags_seq_u64(struct trev_seq *p, const char *delim,
					      unsigned long long flags,
					      const struct trev_print_flags_u64 *flag_array);
TREV_API const char *trev_print_symbols_seq_u64(struct trev_seq *p, unsigned long long val,
						const struct trev_print_flags_u64 *symbol_array);
TREV_API const char *trev_print_bitmask_seq(struct trev_seq *p, const void *bitmask_ptr,
					    unsigned int bitmask_size);
TREV_API const char *trev_print_hex_seq(struct trev_seq *p, const unsigned char *buf,
					int buf_len, int concatenate);
TREV_API const char *trev_print_array_seq(struct trev_seq *p, const void *buf, int count,
					  size_t el_size);

#ifdef __cplusplus
}
#endif

#endif /* TREV_TRACE_SEQ_H */
