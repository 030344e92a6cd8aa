// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel's %p extensions in TP_printk (trev_seq_printf) and in
 * trace_printk (bprint save + format): a table of input value -> exact text,
 * both paths, then the kprint:kp_ptrs event's format file and trace text.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#include <trev/trev.h>

#include "output/bprint.h"
#include "sym/symbols.h"
#include "write/bprint_save.h"

#define CREATE_TRACE_POINTS
#include "kprint_events.h"

_Static_assert(sizeof(long) == 8 && sizeof(void *) == 8, "expectations written for LP64");

static const unsigned char mac[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const unsigned char ip4[4] = { 192, 168, 1, 20 };
static const unsigned char ip6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const unsigned char uuid[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
					0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
static const unsigned long bitmap[2] = { 0xf00000000000000fUL, 0x3UL };
static struct sockaddr_in sin4;
static struct sockaddr_in6 sin6;
static struct sockaddr_storage sa_unix;

#define NO_STAR	INT32_MIN

/* One conversion: its '*' value (or NO_STAR), its pointer, the kernel's text. */
struct kptr_case {
	const char *fmt;
	int star;
	const void *ptr;
	const char *want;
};

static const struct kptr_case kptr_cases[] = {
	{ "%pI4", NO_STAR, ip4, "192.168.1.20" },
	{ "%pi4", NO_STAR, ip4, "192.168.001.020" },
	{ "%pI6c", NO_STAR, ip6, "2001:db8::1" },
	{ "%pI6", NO_STAR, ip6, "2001:0db8:0000:0000:0000:0000:0000:0001" },
	{ "%pM", NO_STAR, mac, "00:11:22:33:44:55" },
	{ "%pMR", NO_STAR, mac, "55:44:33:22:11:00" },
	{ "%pU", NO_STAR, uuid, "00112233-4455-6677-8899-aabbccddeeff" },
	{ "%pUb", NO_STAR, uuid, "00112233-4455-6677-8899-aabbccddeeff" },
	{ "%pUB", NO_STAR, uuid, "00112233-4455-6677-8899-AABBCCDDEEFF" },
	{ "%pUl", NO_STAR, uuid, "33221100-5544-7766-8899-aabbccddeeff" },
	{ "%pUL", NO_STAR, uuid, "33221100-5544-7766-8899-AABBCCDDEEFF" },
	/* %pK: the address, as %px (userspace: nothing to restrict). */
	{ "%pK", NO_STAR, (void *)0x1234, "0000000000001234" },
	{ "%px", NO_STAR, (void *)0x1234, "0000000000001234" },
	{ "%20px", NO_STAR, (void *)0x1234, "                1234" },
	/* Bitmaps: the width is the bit count. */
	{ "%*pb", 70, bitmap, "03,f0000000,0000000f" },
	{ "%*pbl", 70, bitmap, "0-3,60-65" },
	{ "%*pb", 12, bitmap, "00f" },
	{ "%*pbl", 12, bitmap, "0-3" },
	/* struct sockaddr: the family decides; letters after 'S' add parts. */
	{ "%pISpc", NO_STAR, &sin4, "10.0.0.1:8080" },
	{ "%pIS", NO_STAR, &sin4, "10.0.0.1" },
	{ "%piS", NO_STAR, &sin4, "010.000.000.001" },
	{ "%pISpc", NO_STAR, &sin6, "[2001:db8::1]:443" },
	{ "%pISc", NO_STAR, &sin6, "2001:db8::1" },
	{ "%pIS", NO_STAR, &sin6, "2001:0db8:0000:0000:0000:0000:0000:0001" },
	{ "%pISpfsc", NO_STAR, &sin6, "[2001:db8::1]:443/74565%3" },
	{ "%piSp", NO_STAR, &sin6, "[20010db8000000000000000000000001]:443" },
	{ "%pISpc", NO_STAR, &sa_unix, "(einval)" },
	{ "%pISpc", NO_STAR, NULL, "(null)" },
	/* The kernel's number() of the port takes the conversion's width too. */
	{ "%20pISpc", NO_STAR, &sin4, "10.0.0.1:                8080" },
	/* 6.1: %pF is a plain pointer, %pf "(%pf?)" (fwnode only). */
	{ "%pF", NO_STAR, (void *)0x1234, "0000000000001234" },
	{ "%pf", NO_STAR, (void *)0x1234, "(%pf?)" },
	/* Symbols of no object: "0x%lx", with or without offset. */
	{ "%ps", NO_STAR, (void *)16, "0x10" },
	{ "%pS", NO_STAR, (void *)16, "0x10" },
	{ "%pB", NO_STAR, (void *)17, "0x11" },
	/* Every letter and digit after 'p' belongs to the conversion. */
	{ "%pMxyz9!", NO_STAR, mac, "00:11:22:33:44:55!" },
	{ "%pI4|", NO_STAR, NULL, "(null)|" },
	{ "%pM", NO_STAR, (void *)8, "(efault)" },
};

static void fill_sockaddrs(void)
{
	sin4.sin_family = AF_INET;
	sin4.sin_port = htons(8080);
	sin4.sin_addr.s_addr = htonl(0x0a000001);
	sin6.sin6_family = AF_INET6;
	sin6.sin6_port = htons(443);
	memcpy(&sin6.sin6_addr, ip6, 16);
	sin6.sin6_flowinfo = htonl(0xf0012345);	/* the top 4 bits are not the label */
	sin6.sin6_scope_id = 3;
	sa_unix.ss_family = AF_UNIX;
}

/* The TP_printk path; the format is the table's, so not a literal. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
static void seq_case(struct trev_seq *s, const struct kptr_case *c)
{
	trev_seq_init(s);
	if (c->star == NO_STAR)
		trev_seq_printf(s, c->fmt, c->ptr);
	else
		trev_seq_printf(s, c->fmt, c->star, c->ptr);
}
#pragma GCC diagnostic pop

/* The trace_printk path: saved as trace_printk() saves, formatted as the reader does. */
static size_t bprint_save(uint32_t *words, const char *fmt, ...)
{
	_Alignas(8) unsigned char spec[TREV_BPRINT_SPEC_SIZE];
	va_list ap;
	size_t n;

	assert_int_equal(trev__bprint_compile(fmt, spec), 0);
	va_start(ap, fmt);
	n = trev__bprint_save(words, TREV_BPRINT_MAX_WORDS, spec, ap);
	va_end(ap);
	return n;
}

static void bprint_case(struct trev_seq *s, const struct kptr_case *c)
{
	uint32_t words[TREV_BPRINT_MAX_WORDS];
	size_t n;

	if (c->star == NO_STAR)
		n = bprint_save(words, c->fmt, c->ptr);
	else
		n = bprint_save(words, c->fmt, c->star, c->ptr);
	assert_true(n <= TREV_BPRINT_MAX_WORDS);
	trev_seq_init(s);
	assert_int_equal(trev__bprint_format(s, c->fmt, words, n * 4), 0);
}

static void test_kptr_table(void **state)
{
	static struct trev_seq s;

	(void)state;
	fill_sockaddrs();
	for (size_t i = 0; i < sizeof(kptr_cases) / sizeof(kptr_cases[0]); i++) {
		const struct kptr_case *c = &kptr_cases[i];

		seq_case(&s, c);
		if (strcmp(s.buffer, c->want) != 0)
			fail_msg("TP_printk \"%s\": got \"%s\", want \"%s\"", c->fmt, s.buffer,
				 c->want);
		bprint_case(&s, c);
		if (strcmp(s.buffer, c->want) != 0)
			fail_msg("trace_printk \"%s\": got \"%s\", want \"%s\"", c->fmt, s.buffer,
				 c->want);
	}
}

static __attribute__((noinline, used)) int kp_target(int x)
{
	return x * 5 + (int)sin4.sin_port;
}

/* Symbols: the nearest ELF symbol of the process, as sprint_symbol() prints. */
static void test_kptr_symbols(void **state)
{
	static struct trev_seq s;
	uintptr_t fn = (uintptr_t)kp_target;
	struct trev_sym sym;
	char want[256];

	(void)state;
	assert_int_equal(trev__sym_lookup(fn, &sym), 0);
	assert_string_equal(sym.name, "kp_target");
	snprintf(want, sizeof(want),
		 "kp_target|kp_target+0x0/0x%lx|kp_target+0x2/0x%lx|kp_target+0x1/0x%lx|"
		 "kp_target+0x0/0x%lx|  kp_target|kp_target  |",
		 sym.size, sym.size, sym.size, sym.size);
	trev_seq_init(&s);
	trev_seq_printf(&s, "%ps|%pS|%pS|%pB|%pSR|%11ps|%-11ps|", (void *)fn, (void *)fn,
			(void *)(fn + 2), (void *)(fn + 1), (void *)fn, (void *)fn, (void *)fn);
	assert_string_equal(s.buffer, want);
}

/* Extensions among other conversions: every argument stays in step. */
static void test_kptr_mixed(void **state)
{
	static struct trev_seq s;

	(void)state;
	trev_seq_init(&s);
	trev_seq_printf(&s, "a=%d %pM b=%s %*pbl c=%lu %p %p end", 5, mac, "x", 70, bitmap, 7ul,
			(void *)0x10, NULL);
	/* A plain %p stays glibc's. */
	assert_string_equal(s.buffer, "a=5 00:11:22:33:44:55 b=x 0-3,60-65 c=7 0x10 (nil) end");

	/* Text that does not fit is not written, and marks the sequence full. */
	trev_seq_init(&s);
	memset(s.buffer, 'a', TREV_SEQ_SIZE - 10);
	s.len = TREV_SEQ_SIZE - 10;
	s.buffer[s.len] = '\0';
	assert_int_equal(trev_seq_printf(&s, "%pI6", ip6), -1);
	assert_true(s.full);
	assert_int_equal(s.len, TREV_SEQ_SIZE - 10);
}

/* The event: the format file keeps the conversions, the trace text has the kernel's. */
static void test_kptr_event(void **state)
{
	unsigned long bits = 0x80f;
	char *text = NULL, *buf = NULL, want[512];
	struct trev_sym sym;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(trev_event_format("kprint", "kp_ptrs", &text), 0);
	assert_non_null(strstr(text, "\nprint fmt: \"S=%pS s=%ps ip4=%pI4 ip6=%pI6c mac=%pM "
				     "uuid=%pU bits=%*pb list=%*pbl\", REC->fn, REC->fn, REC->ip4, "
				     "REC->ip6, REC->mac, REC->uuid, 12, REC->bits, 12, "
				     "REC->bits\n"));
	free(text);

	assert_int_equal(trev_trace_reset(), 0);
	assert_int_equal(trev_set_event("kprint:kp_ptrs"), 0);
	trace_kp_ptrs((void *)kp_target, ip4, ip6, mac, uuid, bits);
	trev_set_event("!kprint:kp_ptrs");
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(trev_trace_print(f), 0);
	fclose(f);
	assert_int_equal(trev__sym_lookup((uintptr_t)kp_target, &sym), 0);
	snprintf(want, sizeof(want),
		 "kp_ptrs: S=kp_target+0x0/0x%lx s=kp_target ip4=192.168.1.20 ip6=2001:db8::1 "
		 "mac=00:11:22:33:44:55 uuid=00112233-4455-6677-8899-aabbccddeeff bits=80f "
		 "list=0-3,11\n", sym.size);
	if (!strstr(buf, want))
		fail_msg("no line '%s' in:\n%s", want, buf);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kptr_table),
		cmocka_unit_test(test_kptr_symbols),
		cmocka_unit_test(test_kptr_mixed),
		cmocka_unit_test(test_kptr_event),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
