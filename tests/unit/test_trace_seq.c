/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev_seq and the __print_*() helpers: every expectation is what the
 * kernel's trace_seq.c / trace_output.c print for the same input (the rule
 * each case checks is named beside it), and the full/overflow behaviour.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <trev/trace_seq.h>

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
