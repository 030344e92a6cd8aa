/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev_seq and the __print_*() helpers: every expectation is what the
 * kernel's trace_seq.c / trace_output.c print for the same input (the rule
 * each case checks is named beside it), and the full/overflow behaviour.
 * trev_seq_printf() formats the common conversions itself: it must print
 * what glibc's snprintf prints, so the tests compare the two.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <wchar.h>

#include <cmocka.h>

#include <trev/trace_seq.h>

#include "output/fmt_num.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The bitmask cases spell out 64-bit longs. */
_Static_assert(sizeof(long) == 8, "expectations written for LP64");

static struct trev_seq seq;

/* ------------------------------------------------------------------ */
/* __print_flags                                                        */

static const struct trev_print_flags abc[] = {
	{ 1, "A" }, { 2, "B" }, { 4, "C" }, { (unsigned long)-1, NULL },
};
static const struct trev_print_flags multi[] = {
	{ 3, "AB" }, { 1, "A" }, { 2, "B" }, { (unsigned long)-1, NULL },
};
static const struct trev_print_flags zero_first[] = {
	{ 0, "NONE" }, { 1, "A" }, { (unsigned long)-1, NULL },
};
static const struct trev_print_flags empty[] = {
	{ (unsigned long)-1, NULL },
};

static const struct {
	const struct trev_print_flags *array;
	const char *delim;
	unsigned long flags;
	const char *expect;
} flags_cases[] = {
	/* The loop runs while flags != 0: a value of 0 prints nothing. */
	{ abc, "|", 0, "" },
	{ abc, "|", 1, "A" },
	{ abc, "|", 5, "A|C" },
	{ abc, "|", 7, "A|B|C" },
	/* Bits no entry takes: "0x%lx", after a delimiter if a name came first. */
	{ abc, "|", 8, "0x8" },
	{ abc, "|", 0x19, "A|0x18" },
	{ abc, " | ", 3, "A | B" },
	/* delim NULL: names run together. */
	{ abc, NULL, 3, "AB" },
	{ abc, NULL, 9, "A0x8" },
	/* Entries in order; a multi-bit mask matches only when all its bits are set. */
	{ multi, "|", 3, "AB" },
	{ multi, "|", 1, "A" },
	{ multi, "|", 7, "AB|0x4" },
	/* A mask of 0 matches any non-zero value ((flags & 0) == 0). */
	{ zero_first, "|", 1, "NONE|A" },
	{ zero_first, "|", 2, "NONE|0x2" },
	{ zero_first, "|", 0, "" },
	{ empty, "|", 0xff, "0xff" },
	{ abc, "|", 0xf, "A|B|C|0x8" },
};

static void test_print_flags(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(flags_cases); i++) {
		const char *r;

		trev_seq_init(&seq);
		r = trev_print_flags_seq(&seq, flags_cases[i].delim, flags_cases[i].flags,
					 flags_cases[i].array);
		assert_string_equal(r, flags_cases[i].expect);
		/* The text, then the NUL the kernel's trace_seq_putc(p, 0) adds. */
		assert_int_equal(seq.len, strlen(flags_cases[i].expect) + 1);
	}
}

static void test_print_flags_u64(void **state)
{
	static const struct trev_print_flags_u64 f[] = {
		{ 1ull << 63, "HIGH" }, { 1ull << 32, "MID" }, { 1, "LOW" }, { 0, NULL },
	};

	(void)state;
	trev_seq_init(&seq);
	assert_string_equal(trev_print_flags_seq_u64(&seq, ",", (1ull << 63) | 1, f), "HIGH,LOW");
	assert_string_equal(trev_print_flags_seq_u64(&seq, ",", 1ull << 32 | 1ull << 40, f),
			    "MID,0x10000000000");
	assert_string_equal(trev_print_flags_seq_u64(&seq, ",", 0, f), "");
}

/* ------------------------------------------------------------------ */
/* __print_symbolic                                                     */

static void test_print_symbols(void **state)
{
	static const struct trev_print_flags s[] = {
		{ 0, "ZERO" }, { 1, "ONE" }, { 2, "" }, { 1, "ONE_AGAIN" }, { 0, NULL },
	};
	static const struct trev_print_flags_u64 s64[] = {
		{ 1ull << 40, "BIG" }, { 0, NULL },
	};

	(void)state;
	trev_seq_init(&seq);
	assert_string_equal(trev_print_symbols_seq(&seq, 0, s), "ZERO");
	/* The first match wins. */
	assert_string_equal(trev_print_symbols_seq(&seq, 1, s), "ONE");
	/* Unknown: "0x%lx". */
	assert_string_equal(trev_print_symbols_seq(&seq, 5, s), "0x5");
	/* A match whose name prints nothing falls through to "0x%lx". */
	assert_string_equal(trev_print_symbols_seq(&seq, 2, s), "0x2");
	assert_string_equal(trev_print_symbols_seq_u64(&seq, 1ull << 40, s64), "BIG");
	assert_string_equal(trev_print_symbols_seq_u64(&seq, 7, s64), "0x7");
}

/* ------------------------------------------------------------------ */
/* __print_bitmask (%*pb)                                               */

static void test_print_bitmask(void **state)
{
	unsigned long one[1] = { 0x0000000fUL };
	unsigned long two[2] = { 0xdeadbeef00000001UL, 0x12UL };
	unsigned char bytes[5] = { 0x01, 0x02, 0x03, 0x04, 0x05 };
	unsigned char byte = 0x5;

	(void)state;
	trev_seq_init(&seq);
	/* 64 bits: two 32-bit chunks, most significant first, 8 digits each. */
	assert_string_equal(trev_print_bitmask_seq(&seq, one, sizeof(one)), "00000000,0000000f");
	assert_string_equal(trev_print_bitmask_seq(&seq, two, sizeof(two)),
			    "00000000,00000012,deadbeef,00000001");
	/* 32 bits: one chunk. */
	assert_string_equal(trev_print_bitmask_seq(&seq, one, 4), "0000000f");
	/* 40 bits: the first chunk has 8 bits, so 2 digits. */
	assert_string_equal(trev_print_bitmask_seq(&seq, bytes, sizeof(bytes)), "05,04030201");
	/* 8 bits: "%02x". */
	assert_string_equal(trev_print_bitmask_seq(&seq, &byte, 1), "05");
	/* 0 bits: nothing. */
	assert_string_equal(trev_print_bitmask_seq(&seq, &byte, 0), "");
}

/* ------------------------------------------------------------------ */
/* __print_hex, __print_hex_str (%*ph, %*phN)                           */

static void test_print_hex(void **state)
{
	unsigned char b[20];

	(void)state;
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)(i * 17);
	trev_seq_init(&seq);
	assert_string_equal(trev_print_hex_seq(&seq, b, 3, 0), "00 11 22");
	assert_string_equal(trev_print_hex_seq(&seq, b, 3, 1), "001122");
	/* 16 bytes per %*ph, a space between the pieces: the same as one run. */
	assert_string_equal(trev_print_hex_seq(&seq, b, 18, 0),
			    "00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff 10 21");
	assert_string_equal(trev_print_hex_seq(&seq, b, 18, 1),
			    "00112233445566778899aabbccddeeff1021");
	assert_string_equal(trev_print_hex_seq(&seq, b, 0, 0), "");
	assert_string_equal(trev_print_hex_seq(&seq, b, -4, 0), "");
	/* check_pointer(): "(null)" padded to the piece's width (its byte count). */
	assert_string_equal(trev_print_hex_seq(&seq, NULL, 3, 0), "(null)");
	assert_string_equal(trev_print_hex_seq(&seq, NULL, 20, 0), "          (null) (null)");
}

/* ------------------------------------------------------------------ */
/* __print_array                                                        */

static void test_print_array(void **state)
{
	uint8_t u8[] = { 1, 2, 0xff };
	uint16_t u16[] = { 0x100, 0xffff };
	uint32_t u32[] = { 0, 0xdeadbeef };
	uint64_t u64[] = { 0x1122334455667788ull };
	uint8_t odd[] = { 1, 2, 3, 4, 5, 6 };

	(void)state;
	trev_seq_init(&seq);
	assert_string_equal(trev_print_array_seq(&seq, u8, 3, 1), "{0x1,0x2,0xff}");
	assert_string_equal(trev_print_array_seq(&seq, u16, 2, 2), "{0x100,0xffff}");
	assert_string_equal(trev_print_array_seq(&seq, u32, 2, 4), "{0x0,0xdeadbeef}");
	assert_string_equal(trev_print_array_seq(&seq, u64, 1, 8), "{0x1122334455667788}");
	assert_string_equal(trev_print_array_seq(&seq, u8, 0, 1), "{}");
	assert_string_equal(trev_print_array_seq(&seq, u8, -1, 1), "{}");
	/* Another size: "BAD SIZE", then byte by byte through count * el_size bytes. */
	assert_string_equal(trev_print_array_seq(&seq, odd, 2, 3),
			    "{BAD SIZE:3 0x1,0x2,0x3,0x4,0x5,0x6}");
}

/* Several helpers in one TP_printk: each text stays, each with its NUL. */
static void test_helpers_chain(void **state)
{
	uint8_t u8[] = { 7 };
	const char *a, *b, *c;

	(void)state;
	trev_seq_init(&seq);
	a = trev_print_flags_seq(&seq, "|", 3, abc);
	b = trev_print_array_seq(&seq, u8, 1, 1);
	c = trev_print_symbols_seq(&seq, 9, abc);
	assert_string_equal(a, "A|B");
	assert_string_equal(b, "{0x7}");
	assert_string_equal(c, "0x9");
	assert_ptr_equal(b, a + 4);
	assert_ptr_equal(c, b + 6);
	assert_int_equal(seq.len, 4 + 6 + 4);
}

/* ------------------------------------------------------------------ */
/* trev_seq: writes, full, overflow                                     */

/* Fill @s so that exactly @room text bytes are left. */
static void fill_to_room(struct trev_seq *s, size_t room)
{
	trev_seq_init(s);
	memset(s->buffer, 'x', TREV_SEQ_SIZE - 1 - room);
	s->len = TREV_SEQ_SIZE - 1 - room;
	s->buffer[s->len] = '\0';
}

static void test_seq_basic(void **state)
{
	(void)state;
	trev_seq_init(&seq);
	assert_int_equal(seq.len, 0);
	assert_string_equal(seq.buffer, "");
	assert_int_equal(trev_seq_printf(&seq, "%d-%s", 42, "x"), 0);
	assert_int_equal(trev_seq_puts(&seq, "ab"), 0);
	assert_int_equal(trev_seq_putc(&seq, 'c'), 0);
	assert_int_equal(trev_seq_putmem(&seq, "d\0e", 3), 0);
	assert_int_equal(seq.len, 10);
	assert_memory_equal(seq.buffer, "42-xabcd\0e", 11);
	assert_false(seq.full);
}

static void test_seq_overflow(void **state)
{
	(void)state;
	/* Exactly fits. */
	fill_to_room(&seq, 5);
	assert_int_equal(trev_seq_printf(&seq, "%s", "12345"), 0);
	assert_int_equal(seq.len, TREV_SEQ_SIZE - 1);
	assert_int_equal(seq.buffer[seq.len], '\0');
	assert_false(seq.full);

	/* One byte too many: nothing written, full, still terminated. */
	fill_to_room(&seq, 5);
	assert_int_equal(trev_seq_printf(&seq, "%s", "123456"), -1);
	assert_int_equal(seq.len, TREV_SEQ_SIZE - 1 - 5);
	assert_int_equal(seq.buffer[seq.len], '\0');
	assert_true(seq.full);
	/* Once full, writes that would fit are ignored too. */
	assert_int_equal(trev_seq_puts(&seq, "a"), -1);
	assert_int_equal(trev_seq_putc(&seq, 'a'), -1);
	assert_int_equal(trev_seq_putmem(&seq, "a", 1), -1);
	assert_int_equal(seq.len, TREV_SEQ_SIZE - 1 - 5);

	fill_to_room(&seq, 2);
	assert_int_equal(trev_seq_puts(&seq, "abc"), -1);
	assert_true(seq.full);
	assert_int_equal(seq.buffer[seq.len], '\0');

	fill_to_room(&seq, 1);
	assert_int_equal(trev_seq_putc(&seq, 'a'), 0);
	assert_int_equal(trev_seq_putc(&seq, 'b'), -1);
	assert_true(seq.full);
	assert_int_equal(seq.len, TREV_SEQ_SIZE - 1);

	fill_to_room(&seq, 3);
	assert_int_equal(trev_seq_putmem(&seq, "abcd", 4), -1);
	assert_int_equal(seq.len, TREV_SEQ_SIZE - 1 - 3);
}

/* A helper that runs out of room returns a terminated (possibly short) text. */
static void test_helpers_full(void **state)
{
	unsigned long two[2] = { 1, 2 };
	const char *r;

	(void)state;
	/* "A|B|C" needs 5 + 1: with 4 left, "A|B|" fits and "C" does not. */
	fill_to_room(&seq, 4);
	r = trev_print_flags_seq(&seq, "|", 7, abc);
	assert_true(seq.full);
	assert_string_equal(r, "A|B|");

	/* The bitmask is one %*pb: all of it or none of it. */
	fill_to_room(&seq, 10);
	r = trev_print_bitmask_seq(&seq, two, sizeof(two));
	assert_true(seq.full);
	assert_string_equal(r, "");

	fill_to_room(&seq, 0);
	r = trev_print_hex_seq(&seq, (const unsigned char *)"ab", 2, 0);
	assert_string_equal(r, "");
	assert_true(seq.full);
}

/* ------------------------------------------------------------------ */
/* fmt_num.h: the digits behind trev_seq_printf and the line prefix     */

static void test_fmt_num(void **state)
{
	static const struct {
		unsigned long long v;
		int width;
		char pad;
		const char *expect;
	} cases[] = {
		{ 0, 0, ' ', "0" },
		{ 0, 6, '0', "000000" },
		{ 7, 3, '0', "007" },
		{ 9, 0, ' ', "9" },
		{ 10, 0, ' ', "10" },
		{ 99, 0, ' ', "99" },
		{ 100, 0, ' ', "100" },
		{ 101, 5, ' ', "  101" },
		{ 1234, 5, ' ', " 1234" },
		{ 12345, 5, ' ', "12345" },
		{ 123456, 5, ' ', "123456" },	/* wider than the width: not cut */
		{ 999999, 6, '0', "999999" },
		{ 1000000, 6, '0', "1000000" },
		{ 4294967295ull, 0, ' ', "4294967295" },
		{ 4294967296ull, 0, ' ', "4294967296" },
		{ 9223372036854775808ull, 0, ' ', "9223372036854775808" },	/* -INT64_MIN */
		{ UINT64_MAX, 0, ' ', "18446744073709551615" },
		{ UINT64_MAX, 22, '0', "0018446744073709551615" },
	};
	char buf[64], *end;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		end = fmt_udec(buf, cases[i].v, cases[i].width, cases[i].pad);
		*end = '\0';
		assert_string_equal(buf, cases[i].expect);
	}
	end = buf + sizeof(buf) - 1;
	*end = '\0';
	assert_string_equal(fmt_uhex_rev(end, 0, "0123456789abcdef"), "0");
	assert_string_equal(fmt_uhex_rev(end, 0xdeadBEEFull, "0123456789abcdef"), "deadbeef");
	assert_string_equal(fmt_uhex_rev(end, UINT64_MAX, "0123456789ABCDEF"), "FFFFFFFFFFFFFFFF");
	assert_string_equal(fmt_uhex_rev(end, 1ull << 63, "0123456789abcdef"), "8000000000000000");

	/* The digit counts around every power of 2 and of 10. */
	for (int k = 0; k < 64; k++) {
		unsigned long long pow2 = 1ull << k, pow10 = 1;

		for (int j = 0; j < k % 20; j++)
			pow10 *= 10;
		for (unsigned long long v = pow2 - 1; v != pow2 + 2; v++) {
			assert_int_equal(fmt_udec_len(v), snprintf(buf, sizeof(buf), "%llu", v));
			assert_int_equal(fmt_uhex_len(v), snprintf(buf, sizeof(buf), "%llx", v));
		}
		for (unsigned long long v = pow10 - 1; v != pow10 + 2; v++)
			assert_int_equal(fmt_udec_len(v), snprintf(buf, sizeof(buf), "%llu", v));
	}
	assert_int_equal(fmt_udec_len(UINT64_MAX), 20);
	assert_int_equal(fmt_uhex_len(UINT64_MAX), 16);
}

/* ------------------------------------------------------------------ */
/* trev_seq_printf against snprintf                                    */

/* trev_seq_printf(fmt, ...) must append exactly what snprintf(fmt, ...) gives. */
#define CHECK_PRINTF(fmt, ...)							\
	do {									\
		static char want[2 * TREV_SEQ_SIZE];				\
		int n = snprintf(want, sizeof(want), fmt, __VA_ARGS__);		\
										\
		trev_seq_init(&seq);						\
		trev_seq_puts(&seq, "<");					\
		assert_int_equal(trev_seq_printf(&seq, fmt, __VA_ARGS__), 0);	\
		assert_int_equal(seq.len, 1 + (size_t)n);			\
		assert_memory_equal(seq.buffer + 1, want, (size_t)n + 1);	\
	} while (0)

/* The same for formats -Wformat rightly frowns on: glibc still prints them. */
#ifdef __clang__
#define IGNORE_FORMAT_WARNINGS	_Pragma("clang diagnostic ignored \"-Wformat\"")
#else
#define IGNORE_FORMAT_WARNINGS	_Pragma("GCC diagnostic ignored \"-Wformat\"")		\
				_Pragma("GCC diagnostic ignored \"-Wformat-overflow\"")	\
				_Pragma("GCC diagnostic ignored \"-Wformat-truncation\"")
#endif
#define CHECK_PRINTF_ODD(fmt, ...)						\
	do {									\
		_Pragma("GCC diagnostic push")					\
		IGNORE_FORMAT_WARNINGS						\
		CHECK_PRINTF(fmt, __VA_ARGS__);					\
		_Pragma("GCC diagnostic pop")					\
	} while (0)

static void test_printf_fixed(void **state)
{
	static const char text[] = "hello";
	int x = 0;

	(void)state;
	CHECK_PRINTF("%s", "");
	CHECK_PRINTF("a=%d b=%d c=%d", 0, -1, INT_MIN);
	CHECK_PRINTF("%d %i %u %x %X", INT_MAX, INT_MIN, UINT_MAX, UINT_MAX, 0xabcdefu);
	CHECK_PRINTF("%lld %lld %llu %llx", (long long)INT64_MIN, (long long)INT64_MAX,
		     (unsigned long long)UINT64_MAX, (unsigned long long)UINT64_MAX);
	CHECK_PRINTF("%ld %lu %lx", LONG_MIN, ULONG_MAX, 0x7fUL);
	/* hh and h cut the int they are given. */
	CHECK_PRINTF_ODD("%hhd %hhu %hhx %hd %hu %hx", 200, 511, -1, 40000, -1, 0x12345);
	CHECK_PRINTF("%zd %zu %zx %jd %ju %td %tu", (ssize_t)-5, (size_t)SIZE_MAX, (size_t)255,
		     (intmax_t)INT64_MIN, (uintmax_t)UINT64_MAX, (ptrdiff_t)-3, (ptrdiff_t)-3);
	/* Widths, '-', '0', '0' ignored beside '-', the sign before the zeros. */
	CHECK_PRINTF("[%5d|%-5d|%05d|%05d|%5d]", 42, 42, 42, -42, -42);
	CHECK_PRINTF_ODD("[%-05d|%00d|%0-3d|%--3d|%-0-4d]", 42, 7, 7, 7, -7);
	CHECK_PRINTF("[%1d|%2d|%3d|%02d|%020lld]", -1, -1, -1, -1, (long long)INT64_MIN);
	CHECK_PRINTF("[%08x|%-8X|%3u|%03u]", 0xbeefu, 0xbeefu, 0u, 0u);
	CHECK_PRINTF("[%21llu|%-21lld|%021llu]", (unsigned long long)UINT64_MAX,
		     (long long)INT64_MIN, (unsigned long long)UINT64_MAX);
	/* %c, including a NUL, which is stored and counted. */
	CHECK_PRINTF("[%c|%3c|%-3c]", 'a', 'b', 'c');
	CHECK_PRINTF("[%c]", 0);
	/* %s: widths, precisions, NULL ("(null)" unless the precision is under 6). */
	CHECK_PRINTF("[%s|%8s|%-8s|%.2s|%.0s|%.s|%8.3s|%-8.3s|%.10s]", text, text, text, text,
		     text, text, text, text, text);
	CHECK_PRINTF_ODD("[%s|%.5s|%.6s|%.7s|%10s|%-10s|%3.5s]", (char *)NULL, (char *)NULL,
		     (char *)NULL, (char *)NULL, (char *)NULL, (char *)NULL, (char *)NULL);
	/* %p: "0x..." or "(nil)", padded with spaces. */
	CHECK_PRINTF("[%p|%p|%20p|%-20p|%8p|%-8p]", (void *)&x, (void *)NULL, (void *)&x,
		     (void *)&x, (void *)NULL, (void *)NULL);
	CHECK_PRINTF("[%p]", (void *)UINTPTR_MAX);
	CHECK_PRINTF("100%% %d%%", 5);
	/* Left to vsnprintf, from that conversion on, with the arguments not yet taken. */
	CHECK_PRINTF("a=%d b=%#x c=%s d=%d", 1, 255u, "s", -4);
	CHECK_PRINTF("%+d % d %.3d %*d %-*d %.*s %o %#o", 5, 5, 5, 4, 5, 4, 5, 2, "abc", 8u, 8u);
	CHECK_PRINTF("%s %f %e %g %Lf", "x", 1.5, 1.5, 1.5, (long double)2.5);
	CHECK_PRINTF("%1$d %2$s %1$d", 3, "pos");
	CHECK_PRINTF_ODD("%05s|%05c|%05p|%5.1c|%.3p|%5%", "ab", 'c', (void *)&x, 'd', (void *)&x);
	CHECK_PRINTF_ODD("%ls|%lc|%qd|%Lx|%hs", L"wide", (wint_t)'w', 9LL, 10ULL, "h");
	CHECK_PRINTF("[%d %hhn]%d", 1, &(signed char){ 0 }, 2);
	/* Up to the buffer's size widths are formatted here, longer ones by vsnprintf. */
	CHECK_PRINTF("%8000d|%-100s|%.9000s", 2, text, text);
	CHECK_PRINTF("%d|%8187d", -1, 2);	/* "<" and this fill the buffer */
}

/* Every flag, width and length in front of each integer conversion, over edge values. */
static void test_printf_ints(void **state)
{
	static const char *const flags[] = { "", "-", "0", "-0", "0-", "00", "--" };
	static const char *const widths[] = { "", "1", "3", "11", "21", "25" };
	static const char *const lens[] = { "hh", "h", "", "l", "ll", "z", "j", "t" };
	static const char convs[] = "diuxX";
	static const unsigned long long values[] = {
		0, 1, 9, 10, 99, 100, 127, 128, 255, 256, 32767, 32768, 65535, 65536,
		INT_MAX, (unsigned int)INT_MIN, UINT_MAX, 1ull << 32, 999999999999ull,
		(unsigned long long)INT64_MAX, 1ull << 63, UINT64_MAX, (unsigned long long)-1000,
	};

	(void)state;
	for (size_t fl = 0; fl < ARRAY_SIZE(flags); fl++)
	for (size_t w = 0; w < ARRAY_SIZE(widths); w++)
	for (size_t l = 0; l < ARRAY_SIZE(lens); l++)
	for (size_t c = 0; c < sizeof(convs) - 1; c++)
	for (size_t v = 0; v < ARRAY_SIZE(values); v++) {
		unsigned long long u = values[v];
		char fmt[32], want[64];
		int n;

		snprintf(fmt, sizeof(fmt), "<%%%s%s%s%c>", flags[fl], widths[w], lens[l], convs[c]);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		trev_seq_init(&seq);
		/* Each length's argument type, as the caller passes it. */
		if (strchr("hh h", lens[l][0] ? lens[l][0] : 'x') || !lens[l][0]) {
			n = snprintf(want, sizeof(want), fmt, (int)u);
			assert_int_equal(trev_seq_printf(&seq, fmt, (int)u), 0);
		} else if (lens[l][0] == 'l' && !lens[l][1]) {
			n = snprintf(want, sizeof(want), fmt, (long)u);
			assert_int_equal(trev_seq_printf(&seq, fmt, (long)u), 0);
		} else if (lens[l][0] == 'z') {
			n = snprintf(want, sizeof(want), fmt, (size_t)u);
			assert_int_equal(trev_seq_printf(&seq, fmt, (size_t)u), 0);
		} else if (lens[l][0] == 'j') {
			n = snprintf(want, sizeof(want), fmt, (intmax_t)u);
			assert_int_equal(trev_seq_printf(&seq, fmt, (intmax_t)u), 0);
		} else if (lens[l][0] == 't') {
			n = snprintf(want, sizeof(want), fmt, (ptrdiff_t)u);
			assert_int_equal(trev_seq_printf(&seq, fmt, (ptrdiff_t)u), 0);
		} else {
			n = snprintf(want, sizeof(want), fmt, (long long)u);
			assert_int_equal(trev_seq_printf(&seq, fmt, (long long)u), 0);
		}
#pragma GCC diagnostic pop
		assert_int_equal(seq.len, (size_t)n);
		assert_string_equal(seq.buffer, want);
	}
}

/* Formatted by hand or not, text that does not fit is not written at all. */
static void test_printf_overflow(void **state)
{
	static const struct {
		size_t room;
		int ok;
	} rooms[] = { { 0, 0 }, { 1, 0 }, { 20, 0 }, { 21, 0 }, { 22, 1 }, { 30, 1 } };

	(void)state;
	/* "a=-1 s=xyz p=(nil)  %" is 21 bytes: fits in a room of 21, not 20. */
	for (size_t i = 0; i < ARRAY_SIZE(rooms); i++) {
		size_t before = TREV_SEQ_SIZE - 1 - rooms[i].room;
		int fits = rooms[i].room >= 21;

		fill_to_room(&seq, rooms[i].room);
		assert_int_equal(trev_seq_printf(&seq, "a=%d s=%s p=%-6p %%", -1, "xyz",
						 (void *)NULL), fits ? 0 : -1);
		assert_int_equal(seq.len, before + (fits ? 21 : 0));
		assert_int_equal(seq.full, !fits);
		assert_int_equal(seq.buffer[seq.len], '\0');
		if (fits)
			assert_string_equal(seq.buffer + before, "a=-1 s=xyz p=(nil)  %");
	}
	/* Widths past the buffer. */
	trev_seq_init(&seq);
	assert_int_equal(trev_seq_printf(&seq, "%8191d", 1), 0);
	assert_int_equal(seq.len, TREV_SEQ_SIZE - 1);
	trev_seq_init(&seq);
	assert_int_equal(trev_seq_printf(&seq, "%8192d", 1), -1);
	assert_int_equal(seq.len, 0);
	assert_true(seq.full);
	trev_seq_init(&seq);
	assert_int_equal(trev_seq_printf(&seq, "%-99999s", "x"), -1);
	assert_int_equal(seq.len, 0);
	/* A padded number, and a field cut by the end of the buffer. */
	fill_to_room(&seq, 4);
	assert_int_equal(trev_seq_printf(&seq, "%05d", 1), -1);
	assert_int_equal(seq.len, TREV_SEQ_SIZE - 1 - 4);
	fill_to_room(&seq, 4);
	assert_int_equal(trev_seq_printf(&seq, "%04d", 1), 0);
	assert_string_equal(seq.buffer + TREV_SEQ_SIZE - 1 - 4, "0001");
	/* The vsnprintf part that does not fit takes the hand-made part with it. */
	fill_to_room(&seq, 6);
	assert_int_equal(trev_seq_printf(&seq, "%d%+d", 123, 456), -1);
	assert_int_equal(seq.len, TREV_SEQ_SIZE - 1 - 6);
	assert_int_equal(seq.buffer[seq.len], '\0');
	fill_to_room(&seq, 7);
	assert_int_equal(trev_seq_printf(&seq, "%d%+d", 123, 456), 0);
	assert_string_equal(seq.buffer + TREV_SEQ_SIZE - 1 - 7, "123+456");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_print_flags),
		cmocka_unit_test(test_print_flags_u64),
		cmocka_unit_test(test_print_symbols),
		cmocka_unit_test(test_print_bitmask),
		cmocka_unit_test(test_print_hex),
		cmocka_unit_test(test_print_array),
		cmocka_unit_test(test_helpers_chain),
		cmocka_unit_test(test_seq_basic),
		cmocka_unit_test(test_seq_overflow),
		cmocka_unit_test(test_helpers_full),
		cmocka_unit_test(test_fmt_num),
		cmocka_unit_test(test_printf_fixed),
		cmocka_unit_test(test_printf_ints),
		cmocka_unit_test(test_printf_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
