/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace_printk's binary arguments: save + format against glibc's snprintf
 * where the kernel's printf agrees with it, against the kernel's text where
 * it does not, the saved bytes against vbin_printf()'s layout, and formatting
 * of every shorter or corrupt argument area without reading past it. Also the
 * symbol lookups behind %ps/%pS/%pB.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "output/bprint.h"
#include "output/sym_print.h"
#include "sym/symbols.h"
#include "write/bprint_save.h"

_Static_assert(sizeof(long) == 8 && sizeof(void *) == 8, "expectations written for LP64");

static struct trev_seq seq;

/* A heap copy of exactly @n bytes, so ASan sees any read past it. */
static void *exact_copy(const void *src, size_t n)
{
	void *p = malloc(n ? n : 1);

	assert_non_null(p);
	memcpy(p, src, n);
	return p;
}

/*
 * Format @words saved words and compare with @want (@want_len bytes); then
 * format every shorter area: each must end in 0 with the same text, or -1.
 */
static void check_format(const char *file, int line, const char *fmt, const uint32_t *words,
			 size_t n, const char *want, size_t want_len)
{
	for (size_t len = 0; len <= n * 4; len++) {
		void *copy = exact_copy(words, len);
		int ret;

		trev_seq_init(&seq);
		ret = trev__bprint_format(&seq, fmt, copy, len);
		free(copy);
		if (len == n * 4 && ret != 0) {
			print_error("%s:%d: \"%s\": format returned %d\n", file, line, fmt, ret);
			fail();
		}
		if (ret == 0 && (seq.len != want_len || memcmp(seq.buffer, want, want_len))) {
			print_error("%s:%d: \"%s\" (%zu of %zu bytes): got \"%s\", want \"%s\"\n",
				    file, line, fmt, len, n * 4, seq.buffer, want);
			fail();
		}
		if (ret != 0 && ret != -1) {
			print_error("%s:%d: \"%s\": format returned %d\n", file, line, fmt, ret);
			fail();
		}
	}
}

static size_t save(const char *fmt, uint32_t *words, size_t max, va_list ap)
{
	_Alignas(8) unsigned char spec[TREV_BPRINT_SPEC_SIZE];

	assert_int_equal(trev__bprint_compile(fmt, spec), 0);
	return trev__bprint_save(words, max, spec, ap);
}

/* Save, format, and compare with glibc's vsnprintf of the same arguments. */
static void __attribute__((format(printf, 3, 4)))
check_glibc(const char *file, int line, const char *fmt, ...)
{
	uint32_t words[TREV_BPRINT_MAX_WORDS];
	char want[4096];
	va_list ap, aq;
	size_t n;
	int len;

	va_start(ap, fmt);
	va_copy(aq, ap);
	n = save(fmt, words, TREV_BPRINT_MAX_WORDS, ap);
	len = vsnprintf(want, sizeof(want), fmt, aq);
	va_end(aq);
	va_end(ap);
	assert_true(n <= TREV_BPRINT_MAX_WORDS);
	assert_in_range(len, 0, sizeof(want) - 1);
	check_format(file, line, fmt, words, n, want, (size_t)len);
}

/* Save, format, and compare with what the kernel prints (@want). */
static void check_kernel(const char *file, int line, const char *want, const char *fmt, ...)
{
	uint32_t words[TREV_BPRINT_MAX_WORDS];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = save(fmt, words, TREV_BPRINT_MAX_WORDS, ap);
	va_end(ap);
	assert_true(n <= TREV_BPRINT_MAX_WORDS);
	check_format(file, line, fmt, words, n, want, strlen(want));
}

#define GLIBC(...)		check_glibc(__FILE__, __LINE__, __VA_ARGS__)
#define KERNEL(want, ...)	check_kernel(__FILE__, __LINE__, want, __VA_ARGS__)

/* ------------------------------------------------------------------ */
/* Where the kernel and glibc agree                                     */

static void test_glibc_integers(void **state)
{
	(void)state;
	GLIBC("plain text");
	GLIBC("%d %i %u %x %X %o", -5, 7, 8u, 0xbeefu, 0xbeefu, 8u);
	GLIBC("%d %d %u %x", INT_MIN, INT_MAX, UINT_MAX, 0u);
	GLIBC("[%5d|%-5d|%05d|%+d|% d|%+5d|%-+5d|% 05d|%+05d]", 42, 42, 42, 42, 42, -42, 42, 3, -3);
	GLIBC("[%#x|%#X|%#o|%#10x|%#010x|%-#10x|%#o]", 0x1fu, 0x1fu, 8u, 0x1fu, 0x1fu, 0x1fu, 1u);
	GLIBC("[%.3d|%.5x|%8.3d|%-8.3d|%.1d|%3.5d]", 7, 0xau, -7, 7, 123, 9);
	/* Out-of-range ints for hh/h on purpose: both printfs truncate them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
	GLIBC("[%hhd|%hhu|%hd|%hu|%hhx|%hX]", 300, 300, 70000, 70000, -1, -1);
	GLIBC("[%hhd|%hd]", -129, -32769);
#pragma GCC diagnostic pop
	GLIBC("[%ld|%lu|%lx|%lld|%llu|%llx]", LONG_MIN, ULONG_MAX, 0x1234567890abcdefUL,
	      LLONG_MIN, ULLONG_MAX, 0xfedcba9876543210ULL);
	GLIBC("[%zu|%zd|%zx|%td|%jd|%ju]", (size_t)-1, (ssize_t)-2, (size_t)0x10, (ptrdiff_t)-3,
	      (intmax_t)-4, (uintmax_t)5);
	GLIBC("[%20lld|%-20llx|%020llu]", -1LL, 0xabcULL, 12345ULL);
	GLIBC("100%% %d%%", 5);
}

static void test_glibc_text(void **state)
{
	(void)state;
	GLIBC("[%c|%5c|%-5c|%c%c]", 'a', 'b', 'c', 'x', 'y');
	GLIBC("[%s|%10s|%-10s|%.2s|%10.2s|%-10.2s|%s]", "", "hello", "hello", "hello", "hello",
	      "hello", "end");
	GLIBC("[%.0s|%.10s]", "abc", "abc");
	GLIBC("[%*d|%-*d|%*d|%*s|%-*s]", 5, 1, 5, 2, -5, 3, 4, "ab", 4, "ab");
	GLIBC("[%.*d|%.*s|%*.*d|%*.*s]", 3, 7, 2, "abcdef", 6, 3, 9, 6, 2, "abcdef");
	/* Every alignment: 1, 8, 2, string, 4, 1, 8. */
	GLIBC("%c%lld%hd%s%d%c%lu", 'q', -9LL, (short)-300, "str", 77, 'z', 0x1234UL);
	GLIBC("%s%s%s", "a", "", "bcd");
}

/* More arguments than a compiled spec holds: the save walks the format. */
static void test_glibc_many(void **state)
{
#define D10 "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d;"
#define A10(x) x, x + 1, x + 2, x + 3, x + 4, x + 5, x + 6, x + 7, x + 8, x + 9
	(void)state;
	GLIBC(D10 D10 D10 D10 D10 D10, A10(0), A10(10), A10(20), A10(30), A10(40), A10(50));
	GLIBC(D10 D10 D10 D10 D10 "%s %lld %c", A10(0), A10(10), A10(20), A10(30), A10(40),
	      "tail", 1LL << 40, 'k');
	GLIBC(D10 D10 D10 D10 D10 D10 "%s", A10(0), A10(10), A10(20), A10(30), A10(40), A10(50),
	      "after sixty");
#undef D10
#undef A10
}

/* ------------------------------------------------------------------ */
/* Where the kernel's vsprintf differs from glibc (lib/vsprintf.c)      */

static void test_kernel_numbers(void **state)
{
	(void)state;
	/* number(): "0x" is printed for SPECIAL hex even when the value is 0. */
	KERNEL("0x0|0X0|0", "%#x|%#X|%#o", 0u, 0u, 0u);
	/* ZEROPAD is not dropped by a precision. */
	KERNEL("00000005|-0000005", "%08.3d|%08.3d", 5, -5);
	/* A precision never drops the digit of 0. */
	KERNEL("0|0|    0", "%.0d|%.0x|%5.0u", 0, 0u, 0u);
	/* '#' octal: the "0" prefix comes on top of the precision. */
	KERNEL("0010", "%#.3o", 8u);
	/* format_decode(): '.' without digits is no precision. */
	KERNEL("0|abc", "%.d|%.s", 0, "abc");
	/* A negative '*' precision is 0. */
	KERNEL("|0", "%.*s|%.*d", -1, "abc", -1, 0);
	/* %c pads with spaces whatever the flags. */
	KERNEL("    a|b    ", "%05c|%-05c", 'a', 'b');
	/* 'L' is long long for integers. */
	KERNEL("-1|18446744073709551615", "%Ld|%Lu", -1LL, ~0ULL);
	/* 'h' applies to the saved short; '+' and ' ' only to signed conversions. */
	KERNEL("ffff|65535|7", "%hx|%+hu|% x", -1, -1, 7u);
}

static void test_kernel_pointers(void **state)
{
	void *p = (void *)0x1234;

	(void)state;
	/* pointer_string(): 16 digits, zero-padded, no "0x" (%p unhashed here). */
	KERNEL("0000000000001234 0000000000001234 0000000000001234", "%p %px %pK", p, p, p);
	KERNEL("0000000000000000", "%p", NULL);
	/* A width replaces the default 16 digits and the zero padding. */
	KERNEL("                1234|1234                |00000000000000001234", "%20p|%-20px|%020p",
	       p, p, p);
	/* SPECIAL: "0x" counts in the 16. */
	KERNEL("0x00000000001234", "%#p", p);
	/* %pe: the errno name, or the number, or else the pointer. */
	KERNEL("-ENOMEM|-600|0000000000001234|   -EINVAL", "%pe|%pe|%pe|%10pe", (void *)-ENOMEM,
	       (void *)-600L, p, (void *)-EINVAL);
	/* vbin_printf(): a NULL string is saved as "(null)", a low address as "(efault)". */
	KERNEL("(null)|(efault)|  (null)", "%s|%s|%8s", (char *)NULL, (char *)16, (char *)NULL);
	/* Other %p letters are text at record time: unsupported ones are the address. */
	KERNEL("0000000000001234|0000000000001234", "%pd|%pV", p, p);
}

static void test_kernel_record_time(void **state)
{
	static const unsigned char bytes[70] = { 0x01, 0x02, 0x03, 0xff, [69] = 0x45 };
	static const unsigned char mac[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };
	static const unsigned char ip4[4] = { 192, 168, 1, 20 };
	static const unsigned char lo6[16] = { [15] = 1 };
	static const unsigned char any6[16] = { 0 };
	static const unsigned char map6[16] = { [10] = 0xff, [11] = 0xff, 1, 2, 3, 4 };
	static const unsigned char two6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
						0, 1, 0, 0, 0, 0, 0, 1 };
	static const unsigned char one0[16] = { 0, 1, 0, 0, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7 };
	static const unsigned char uuid[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
						0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
	unsigned long bitmap[2] = { 0xf00000000000000fUL, 0x3UL };
	char hex64[64 * 3 + 1];

	(void)state;
	/* hex_string(): the field width is the byte count, 1 without one, 64 at most. */
	KERNEL("01 02 03 ff|01:02:03|01-02|0102|01|", "%*ph|%*phC|%*phD|%*phN|%ph|%*ph", 4, bytes,
	       3, bytes, 2, bytes, 2, bytes, bytes, 0, bytes);
	for (int i = 0; i < 64; i++)
		snprintf(hex64 + 3 * i, 4, "%02x ", bytes[i]);
	hex64[64 * 3 - 1] = '\0';
	KERNEL(hex64, "%*ph", 70, bytes);
	KERNEL("01 02", "%2ph", bytes);
	/* bitmap_string(): 32-bit chunks, the first as wide as its bits. */
	KERNEL("03,f0000000,0000000f|0-3,60-65|0000000f|", "%*pb|%*pbl|%32pb|%pb", 70, bitmap, 70,
	       bitmap, bitmap, bitmap);
	/* mac_address_string() */
	KERNEL("00:11:22:33:44:55|00-11-22-33-44-55|55:44:33:22:11:00|001122334455|554433221100",
	       "%pM|%pMF|%pMR|%pm|%pmR", mac, mac, mac, mac, mac);
	/* ip4_string(): 'i' pads to 3 digits; 'h' is host order, 'l' little-endian. */
	KERNEL("192.168.1.20|192.168.001.020|20.1.168.192|20.1.168.192|192.168.1.20",
	       "%pI4|%pi4|%pI4h|%pI4l|%pI4n", ip4, ip4, ip4, ip4, ip4);
	/* ip6_string() and ip6_compressed_string() */
	KERNEL("0000:0000:0000:0000:0000:0000:0000:0001|00000000000000000000000000000001",
	       "%pI6|%pi6", lo6, lo6);
	/* The first longest run of zeros; a single zero word stays. */
	KERNEL("::1|::|::ffff:1.2.3.4|2001:db8::1:0:0:1|1:0:2:3:4:5:6:7",
	       "%pI6c|%pI6c|%pI6c|%pI6c|%pI6c", lo6, any6, map6, two6, one0 + 0);
	KERNEL("(%pI?)", "%pIx", ip4);
	/* uuid_string() */
	KERNEL("00112233-4455-6677-8899-aabbccddeeff|00112233-4455-6677-8899-AABBCCDDEEFF|"
	       "33221100-5544-7766-8899-aabbccddeeff|33221100-5544-7766-8899-AABBCCDDEEFF",
	       "%pU|%pUB|%pUl|%pUL", uuid, uuid, uuid, uuid);
	/* Width and precision apply when the text is made, at record time. */
	KERNEL("       192.168.1.20|00:11:22:33:44:55   |192.1", "%19pI4|%-20pM|%.5pI4", ip4, mac,
	       ip4);
	/* check_pointer() */
	KERNEL("(null)|(efault)|(null)", "%pM|%pI4|%*ph", NULL, (void *)8, 3, NULL);
	/* vbin_printf() keeps a '*' value as a width only where 'p' follows the '*'. */
	KERNEL("01 02 03|01|             00:11:22:33:44:55", "%.*ph|%*.5ph|%*pM", 3, bytes, 4,
	       bytes, 30, mac);
}

/* ------------------------------------------------------------------ */
/* Symbols: %ps %pS %pB and trev__sym_*()                               */

static __attribute__((noinline, used)) int sym_target(int x)
{
	return x * 3 + (int)seq.len;
}

static void test_symbols(void **state)
{
	char want[256], buf[256];
	struct trev_sym sym;
	uintptr_t fn = (uintptr_t)sym_target;

	(void)state;
	/* A static function of an executable without -rdynamic: from .symtab. */
	assert_int_equal(trev__sym_lookup(fn, &sym), 0);
	assert_string_equal(sym.name, "sym_target");
	assert_int_equal(sym.start, fn);
	assert_true(sym.size > 1);
	assert_int_equal(trev__sym_lookup(fn + 1, &sym), 0);
	assert_string_equal(sym.name, "sym_target");

	/* sprint_symbol(): "+%#lx/%#lx", so an offset of 0 is "0x0". */
	snprintf(want, sizeof(want), "sym_target|sym_target+0x0/0x%lx|sym_target+0x1/0x%lx",
		 sym.size, sym.size);
	KERNEL(want, "%ps|%pS|%pS", (void *)fn, (void *)fn, (void *)(fn + 1));
	/* %pB looks up address - 1 and prints offset + 1: a return address. */
	snprintf(want, sizeof(want), "sym_target+0x1/0x%lx|sym_target+0x%lx/0x%lx", sym.size,
		 sym.size, sym.size);
	KERNEL(want, "%pB|%pB", (void *)(fn + 1), (void *)(fn + sym.size));
	/*
	 * %pf and %pF, once the names of %ps and %pS: 6.1 knows %pf only as
	 * %pfw (fwnode) and prints "(%pf?)"; %pF is a plain pointer. Both are
	 * formatted at record time.
	 */
	snprintf(want, sizeof(want), "(%%pf?)|%016lx", (unsigned long)fn);
	KERNEL(want, "%pf|%pF", (void *)fn, (void *)fn);
	/* string_nocheck(): width and precision. */
	KERNEL("  sym_target|sym|sym_target  ", "%12ps|%.3ps|%-12ps", (void *)fn, (void *)fn,
	       (void *)fn);
	/* Unknown: "0x%lx", with or without offset. */
	KERNEL("0x10|0x10|0x11", "%ps|%pS|%pB", (void *)16, (void *)16, (void *)17);

	/* A function of a shared library, found by dladdr(). */
	assert_int_equal(trev__sym_lookup((uintptr_t)cmocka_set_message_output, &sym), 0);
	assert_string_equal(sym.name, "cmocka_set_message_output");
	assert_non_null(strstr(sym.object, "cmocka"));

	/* trev__sym_print(): trace_seq_print_sym(), used for the ip of trace_printk. */
	trev_seq_init(&seq);
	trev__sym_print(&seq, fn, 0);
	trev_seq_putc(&seq, '|');
	trev__sym_print(&seq, 0x10, 0);
	trev_seq_putc(&seq, '|');
	trev__sym_print(&seq, 0x10, 1);
	trev_seq_putc(&seq, '|');
	trev__sym_print(&seq, fn + 2, 1);
	assert_int_equal(trev__sym_lookup(fn, &sym), 0);
	snprintf(want, sizeof(want), "sym_target|0x00000010|0x10|sym_target+0x2/0x%lx", sym.size);
	assert_string_equal(seq.buffer, want);

	assert_int_equal(trev__sym_snprint(buf, 5, fn, TREV_SYM_NAME), 10);
	assert_string_equal(buf, "sym_");
}

static void *sym_thread(void *arg)
{
	struct trev_sym sym;

	(void)arg;
	for (int i = 0; i < 2000; i++) {
		if (trev__sym_lookup((uintptr_t)sym_target + (unsigned int)i % 8, &sym) < 0 ||
		    strcmp(sym.name, "sym_target") != 0)
			return (void *)1;
	}
	return NULL;
}

/* The table of an object is read once, by whichever thread comes first. */
static void test_symbols_threads(void **state)
{
	pthread_t t[4];
	void *ret;

	(void)state;
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, sym_thread, NULL), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], &ret), 0);
		assert_null(ret);
	}
}

/* ------------------------------------------------------------------ */
/* The saved bytes: vbin_printf()'s layout                              */

static void check_layout(const char *file, int line, const void *want, size_t want_words,
			 const char *fmt, ...)
{
	uint32_t words[TREV_BPRINT_MAX_WORDS];
	va_list ap;
	size_t n;

	memset(words, 0xaa, sizeof(words));
	va_start(ap, fmt);
	n = save(fmt, words, TREV_BPRINT_MAX_WORDS, ap);
	va_end(ap);
	if (n != want_words || memcmp(words, want, n * 4)) {
		const unsigned char *b = (const unsigned char *)words;

		print_error("%s:%d: \"%s\": %zu words:", file, line, fmt, n);
		for (size_t i = 0; i < n * 4; i++)
			print_error(" %02x", b[i]);
		print_error("\n");
		fail();
	}
}

#define LAYOUT(want, ...) check_layout(__FILE__, __LINE__, want, (sizeof(want) - 1) / 4, __VA_ARGS__)

static void test_layout(void **state)
{
	(void)state;
	/* char at 0; short at 2; int at 4; long long at 8 (4-aligned, two u32). */
	LAYOUT("a\0\x34\x12" "\x88\x77\x66\x55" "\x88\x77\x66\x55\x44\x33\x22\x11",
	       "%c%hd%d%lld", 'a', (short)0x1234, 0x55667788, 0x1122334455667788LL);
	/* An 8-byte value right after a char: aligned to 4, not 8. */
	LAYOUT("x\0\0\0" "\x88\x77\x66\x55\x44\x33\x22\x11", "%c%p", 'x',
	       (void *)0x1122334455667788);
	/* Strings inline with their NUL, no alignment; the total padded to 4. */
	LAYOUT("ab\0\0" "\x07\0\0\0", "%s|%d", "ab", 7);
	LAYOUT("ab\0c\0\0\0\0", "%s%s", "ab", "c");
	LAYOUT("(null)\0\0", "%s", (char *)NULL);
	/* '*' values are ints, before the value. */
	LAYOUT("\x05\0\0\0" "\x09\0\0\0", "%*d", 5, 9);
	LAYOUT("\x02\0\0\0" "abcdef\0\0", "%.*s", 2, "abcdef");
	/* Chars and shorts pack. */
	LAYOUT("\x01\x02\x03\0", "%hhd%hhd%hd", 1, 2, 3);
	LAYOUT("\x01\0\x02\0" "\x03\0\0\0", "%hhd%hd%d", 1, 2, 3);
	/* size_t, ptrdiff_t, long: 8 bytes; j: 8 bytes. */
	LAYOUT("\x01\0\0\0\0\0\0\0" "\x02\0\0\0\0\0\0\0" "\x03\0\0\0\0\0\0\0"
	       "\x04\0\0\0\0\0\0\0", "%zu%td%lu%jd", (size_t)1, (ptrdiff_t)2, 3UL, (intmax_t)4);
	/* A record-time %p: its text and NUL, after the '*' width. */
	LAYOUT("\x01\0\0\0" "\x02\0\0\0" "ab cd\0\0\0", "%d%*ph", 1, 2, "\xab\xcd");
	/* %ps, %pS, %px, %pK, %pe: the pointer, read at read time. */
	LAYOUT("\x10\0\0\0\0\0\0\0" "\x20\0\0\0\0\0\0\0", "%ps%pK", (void *)16, (void *)32);
	/* %pF and %pf: text (6.1's vbin_printf() saves only S s x K e as pointers). */
	LAYOUT("0000000000000010\0(%pf?)\0", "%pF%pf", (void *)16, (void *)16);
	/* %pB: the address as text. */
	LAYOUT("0x1234\0\0", "%pB", (void *)0x1234);
	/* %% and text take nothing. */
	LAYOUT("", "100%% done");
}

static size_t save_into(uint32_t *words, size_t max, const char *fmt, ...)
{
	_Alignas(8) unsigned char spec[TREV_BPRINT_SPEC_SIZE];
	va_list ap;
	size_t n;

	assert_int_equal(trev__bprint_compile(fmt, spec), 0);
	va_start(ap, fmt);
	n = trev__bprint_save(words, max, spec, ap);
	va_end(ap);
	return n;
}

/* Arguments that do not fit are counted but not written; nothing past @words. */
static void test_save_short_area(void **state)
{
	uint32_t words[8];
	unsigned char *b = (unsigned char *)words;

	(void)state;
	/* 13 bytes of string, then an int at 16: 5 words needed, 2 given. */
	memset(words, 0xaa, sizeof(words));
	assert_int_equal(save_into(words, 2, "%s|%d", "abcdefghijkl", 7), 5);
	for (size_t i = 8; i < sizeof(words); i++)
		assert_int_equal(b[i], 0xaa);
	/* The all-int fast path: 4 needed, 3 given. */
	memset(words, 0xaa, sizeof(words));
	assert_int_equal(save_into(words, 3, "%d %d %d %d", 1, 2, 3, 4), 4);
	assert_int_equal(words[2], 3);
	assert_int_equal(words[3], 0xaaaaaaaa);
	/* A record-time %p that does not fit. */
	memset(words, 0xaa, sizeof(words));
	assert_int_equal(save_into(words, 1, "%pM", "\x01\x02\x03\x04\x05\x06"), 5);
	for (size_t i = 4; i < sizeof(words); i++)
		assert_int_equal(b[i], 0xaa);
	/* Nothing at all. */
	assert_int_equal(save_into(NULL, 0, "%lld", 1LL), 2);
}

static void test_compile(void **state)
{
	_Alignas(8) unsigned char spec[TREV_BPRINT_SPEC_SIZE];
	static const char *const bad[] = {
		"%f", "%e", "%g", "%a", "%Lf", "%n", "%ls", "abc%", "%y", "%m", "%5", "%-",
		"%hhf", "%lf", "%q", "%Z",
	};
	static const char *const good[] = {
		"", "text", "%%", "%d%i%u%o%x%X%c%s%p", "%lc", "%hhd%hd%ld%lld%Ld%zd%td%jd",
		"%-+ #0*.*d", "%pS%ps%pB%px%pK%pe%ph%pM%pI4%pU%pd", "%*phN",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(trev__bprint_compile(bad[i], spec), -EINVAL);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_int_equal(trev__bprint_compile(good[i], spec), 0);
	assert_int_equal(trev__bprint_compile(NULL, spec), -EINVAL);
}

/* A conversion the kernel does not know ends the output; -1 only when arguments run out. */
static void test_format_edges(void **state)
{
	uint32_t w[2] = { 5, 6 };

	(void)state;
	trev_seq_init(&seq);
	assert_int_equal(trev__bprint_format(&seq, "ab%yc%d", w, sizeof(w)), 0);
	assert_string_equal(seq.buffer, "ab");

	trev_seq_init(&seq);
	assert_int_equal(trev__bprint_format(&seq, "x=%d y=%d z=%d", w, sizeof(w)), -1);
	assert_string_equal(seq.buffer, "x=5 y=6 z=");

	trev_seq_init(&seq);
	assert_int_equal(trev__bprint_format(&seq, "%s", NULL, 0), -1);
	/* A string without its NUL inside the area. */
	trev_seq_init(&seq);
	assert_int_equal(trev__bprint_format(&seq, "%s", "abcd", 4), -1);

	/* Output that does not fit: nothing written, full (trace_seq_bprintf). */
	trev_seq_init(&seq);
	memset(seq.buffer, 'x', TREV_SEQ_SIZE - 4);
	seq.len = TREV_SEQ_SIZE - 4;
	seq.buffer[seq.len] = '\0';
	assert_int_equal(trev__bprint_format(&seq, "%d%d", w, sizeof(w)), 0);
	assert_false(seq.full);
	assert_int_equal(seq.len, TREV_SEQ_SIZE - 2);
	assert_int_equal(trev__bprint_format(&seq, "%d%d", w, sizeof(w)), 0);
	assert_true(seq.full);
	assert_int_equal(seq.len, TREV_SEQ_SIZE - 2);
	assert_int_equal(seq.buffer[seq.len], '\0');

	/* Huge '*' widths are clamped, and cost no more than the buffer. */
	{
		int32_t big[2] = { INT_MAX, 1 };

		trev_seq_init(&seq);
		assert_int_equal(trev__bprint_format(&seq, "%*d", big, sizeof(big)), 0);
		assert_true(seq.full);
	}
}

/* Random bytes as the argument area of formats of every kind: no read past it. */
static void test_format_garbage(void **state)
{
	static const char *const fmts[] = {
		"%s %s %s %s", "%d %lld %c %hd %s %p", "%*.*s|%*d", "%pS %ps %pB %ph %pM",
		"%.*s%.*s%.*s", "%*ph %pe %pB %s", "%c%c%c%c%c%c%c%c%c%s",
	};
	unsigned int rnd = 12345;

	(void)state;
	for (int iter = 0; iter < 3000; iter++) {
		size_t len = (size_t)(rnd % 48);
		unsigned char *b = malloc(len ? len : 1);

		assert_non_null(b);
		for (size_t i = 0; i < len; i++) {
			rnd = rnd * 1103515245u + 12345u;
			/* Mostly small bytes, so strings end and widths stay sane. */
			b[i] = (unsigned char)((rnd >> 16) % 5 == 0 ? 0 : (rnd >> 8) & 0x7f);
		}
		rnd = rnd * 1103515245u + 12345u;
		trev_seq_init(&seq);
		int ret = trev__bprint_format(&seq, fmts[iter % (sizeof(fmts) / sizeof(fmts[0]))],
					      b, len);
		assert_true(ret == 0 || ret == -1);
		assert_int_equal(seq.buffer[seq.len], '\0');
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glibc_integers),
		cmocka_unit_test(test_glibc_text),
		cmocka_unit_test(test_glibc_many),
		cmocka_unit_test(test_kernel_numbers),
		cmocka_unit_test(test_kernel_pointers),
		cmocka_unit_test(test_kernel_record_time),
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_symbols_threads),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_save_short_area),
		cmocka_unit_test(test_compile),
		cmocka_unit_test(test_format_edges),
		cmocka_unit_test(test_format_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
