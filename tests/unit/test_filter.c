/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The filter language (src/filter/): table-driven {expression, record,
 * expected} cases for every operator, integer size and signedness, string
 * kind and glob form, CPU, COMM and the common fields; precedence checked
 * against both parenthesisations; short circuits (which predicates run);
 * records whose __data_loc points outside them; every error with its
 * column; and filters set through the tree dropping events.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <cmocka.h>

#include <trev/trev.h>

#include "events/events_internal.h"
#include "filter/filter.h"

#define CREATE_TRACE_POINTS
#include "filter_test_events.h"

/* ------------------------------------------------------------------ */
/* Records                                                              */

/* The values of one ft_all record; strings NULL read as "". */
struct vals {
	unsigned char u8;
	signed char s8;
	unsigned short u16;
	short s16;
	unsigned int u32;
	int s32;
	unsigned long long u64;
	long long s64;
	const char *name;	/* char name[16]: copied without a NUL when 16 long */
	const char *str;	/* __string */
	unsigned short type, pid_lo;
	unsigned char flags, preempt;
	int pid;
};

static unsigned char recbuf[4096] __attribute__((aligned(8)));

/* Build the ft_all record of @v in recbuf; return its length. */
static unsigned int make_rec(const struct vals *v)
{
	struct trev_event_raw_ft_all *r = (void *)recbuf;
	const char *str = v->str ? v->str : "";
	unsigned int slen = (unsigned int)strlen(str) + 1;

	memset(recbuf, 0, sizeof(recbuf));
	r->ent.type = v->type;
	r->ent.flags = v->flags;
	r->ent.preempt_count = v->preempt;
	r->ent.pid = v->pid;
	r->u8 = v->u8;
	r->s8 = v->s8;
	r->u16 = v->u16;
	r->s16 = v->s16;
	r->u32 = v->u32;
	r->s32 = v->s32;
	r->u64 = v->u64;
	r->s64 = v->s64;
	if (v->name)
		memcpy(r->name, v->name, strnlen(v->name, sizeof(r->name)));
	r->__data_loc_str = (slen << 16) | (unsigned int)sizeof(*r);
	memcpy(recbuf + sizeof(*r), str, slen);
	return (unsigned int)sizeof(*r) + slen;
}

static struct trev_filter *compile_ok(struct trev_event_call *call, const char *text)
{
	struct trev_filter_error err = { NULL, 0 };
	struct trev_filter *f = NULL;
	int ret = trev__filter_compile(call, text, &f, &err);

	if (ret)
		fail_msg("'%s' refused: %d %s at %d", text, ret, err.msg ? err.msg : "", err.pos);
	assert_non_null(f);
	assert_string_equal(trev__filter_text(f), text);
	return f;
}

/* The CPU eval_all() hands the matcher, for CPU predicates. */
static int rec_cpu;

static bool eval_all(const char *text, const struct vals *v)
{
	struct trev_filter *f = compile_ok(&trev_event_ft_all, text);
	unsigned int len = make_rec(v);
	bool m = trev__filter_match(f, recbuf, len, rec_cpu);

	trev__filter_free(f);
	return m;
}

struct match_case {
	const char *expr;
	struct vals v;
	bool match;
};

static void run_cases(const struct match_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (eval_all(c[i].expr, &c[i].v) != c[i].match)
			fail_msg("'%s' case %zu: expected %s", c[i].expr, i,
				 c[i].match ? "match" : "no match");
	}
}

#define N(a)	(sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ */
/* Numbers                                                              */

static void test_numeric_ops(void **state)
{
	static const struct match_case cases[] = {
		{ "s32 == 5", { .s32 = 5 }, true },
		{ "s32 == 5", { .s32 = 6 }, false },
		{ "s32 != 5", { .s32 = 5 }, false },
		{ "s32 != 5", { .s32 = 6 }, true },
		{ "s32 < 5", { .s32 = 4 }, true },
		{ "s32 < 5", { .s32 = 5 }, false },
		{ "s32 <= 5", { .s32 = 5 }, true },
		{ "s32 <= 5", { .s32 = 6 }, false },
		{ "s32 > 5", { .s32 = 6 }, true },
		{ "s32 > 5", { .s32 = 5 }, false },
		{ "s32 >= 5", { .s32 = 5 }, true },
		{ "s32 >= 5", { .s32 = 4 }, false },
		{ "s32 & 4", { .s32 = 6 }, true },
		{ "s32 & 4", { .s32 = 3 }, false },
		{ "u32 & 0x80000000", { .u32 = 0x80000001u }, true },
		/* No spaces, hex, octal, negative. */
		{ "s32==-7", { .s32 = -7 }, true },
		{ "u32 == 0x1F", { .u32 = 31 }, true },
		{ "u32 == 0X1f", { .u32 = 31 }, true },
		{ "u32 == 017", { .u32 = 15 }, true },
		{ "u32 == 017", { .u32 = 17 }, false },
		{ "u32 == 0", { .u32 = 0 }, true },
		{ "s64 < -0x10", { .s64 = -17 }, true },
		{ "s64 < -0x10", { .s64 = -16 }, false },
	};

	(void)state;
	run_cases(cases, N(cases));
}

static void test_numeric_sizes(void **state)
{
	static const struct match_case cases[] = {
		/* Unsigned: large values are large. */
		{ "u8 > 127", { .u8 = 200 }, true },
		{ "u8 == 255", { .u8 = 255 }, true },
		{ "u16 > 32767", { .u16 = 40000 }, true },
		{ "u16 == 65535", { .u16 = 65535 }, true },
		{ "u32 > 2147483647", { .u32 = 3000000000u }, true },
		{ "u64 > 9223372036854775807", { .u64 = 9223372036854775808ull }, true },
		{ "u64 == 18446744073709551615", { .u64 = ~0ull }, true },
		{ "u64 == 0xffffffffffffffff", { .u64 = ~0ull }, true },
		/* Signed: negative values are small. */
		{ "s8 < 0", { .s8 = -1 }, true },
		{ "s8 == -128", { .s8 = -128 }, true },
		{ "s8 > -2", { .s8 = 127 }, true },
		{ "s16 < 0", { .s16 = -300 }, true },
		{ "s16 == -32768", { .s16 = -32768 }, true },
		{ "s32 < 0", { .s32 = -1 }, true },
		{ "s32 == -2147483648", { .s32 = INT32_MIN }, true },
		{ "s64 < 0", { .s64 = -1 }, true },
		{ "s64 == -9223372036854775808", { .s64 = INT64_MIN }, true },
		{ "s64 > 9223372036854775806", { .s64 = INT64_MAX }, true },
		/* Comparisons no value passes, or every value does (empty and full ranges). */
		{ "u8 < 0", { .u8 = 0 }, false },
		{ "u64 < 0", { .u64 = 0 }, false },
		{ "u64 >= 0", { .u64 = UINT64_MAX }, true },
		{ "u64 > 18446744073709551615", { .u64 = UINT64_MAX }, false },
		{ "u64 <= 18446744073709551615", { .u64 = UINT64_MAX }, true },
		{ "s64 > 9223372036854775807", { .s64 = INT64_MAX }, false },
		{ "s64 < -9223372036854775808", { .s64 = INT64_MIN }, false },
		{ "s64 >= -9223372036854775808", { .s64 = INT64_MIN }, true },
		{ "!(u8 < 0)", { .u8 = 0 }, true },
		{ "u8 < 0 || u8 == 3", { .u8 = 3 }, true },
		{ "s8 <= -128", { .s8 = -128 }, true },
		{ "s8 <= -128", { .s8 = -127 }, false },
		{ "s8 >= 127", { .s8 = 127 }, true },
		{ "s8 >= 127", { .s8 = 126 }, false },
		/* The value is cut to the field's type, as the kernel's (type)val. */
		{ "u8 == 257", { .u8 = 1 }, true },
		{ "s8 == 255", { .s8 = -1 }, true },
		{ "u16 == 65537", { .u16 = 1 }, true },
		{ "s32 == 4294967295", { .s32 = -1 }, true },
		/* Fields next to each other do not leak into each other. */
		{ "u8 == 0 && s8 == 0 && u16 == 0", { .s16 = -1, .u32 = ~0u }, true },
	};

	(void)state;
	run_cases(cases, N(cases));
}

static void test_common_fields(void **state)
{
	static const struct match_case cases[] = {
		{ "common_type == 1234", { .type = 1234 }, true },
		{ "common_type == 1234", { .type = 1235 }, false },
		{ "common_flags & 8", { .flags = 8 }, true },
		{ "common_flags & 8", { .flags = 0 }, false },
		{ "common_preempt_count == 2", { .preempt = 2 }, true },
		{ "common_pid == 4242", { .pid = 4242 }, true },
		{ "common_pid < 0", { .pid = -5 }, true },	/* signed, as in format */
		{ "common_pid != 4242", { .pid = 4242 }, false },
	};

	(void)state;
	run_cases(cases, N(cases));
}

/* ------------------------------------------------------------------ */
/* Strings                                                              */

static void test_strings(void **state)
{
	static const struct match_case cases[] = {
		/* char name[16] */
		{ "name == \"eth0\"", { .name = "eth0" }, true },
		{ "name == 'eth0'", { .name = "eth0" }, true },
		{ "name == \"eth\"", { .name = "eth0" }, false },
		{ "name == \"eth00\"", { .name = "eth0" }, false },
		{ "name != \"eth0\"", { .name = "eth0" }, false },
		{ "name != \"eth0\"", { .name = "eth1" }, true },
		{ "name == \"\"", { .name = NULL }, true },
		/* 16 chars, no NUL: compared within the array only. */
		{ "name == \"abcdefghijklmnop\"", { .name = "abcdefghijklmnop" }, true },
		{ "name ~ \"*mnop\"", { .name = "abcdefghijklmnop" }, true },
		/* == is literal: no glob. */
		{ "name == \"eth*\"", { .name = "eth0" }, false },
		{ "name == \"eth*\"", { .name = "eth*" }, true },
		/* Globs: prefix, suffix, middle, full. */
		{ "name ~ \"eth*\"", { .name = "eth0" }, true },
		{ "name ~ \"eth*\"", { .name = "wlan0" }, false },
		{ "name ~ \"*0\"", { .name = "eth0" }, true },
		{ "name ~ \"*0\"", { .name = "eth1" }, false },
		{ "name ~ \"*th*\"", { .name = "eth0" }, true },
		{ "name ~ \"*x*\"", { .name = "eth0" }, false },
		{ "name ~ \"*\"", { .name = "anything" }, true },
		{ "name ~ \"*\"", { .name = NULL }, true },
		{ "name ~ \"eth0\"", { .name = "eth0" }, true },
		{ "name ~ \"e?h0\"", { .name = "eth0" }, true },
		{ "name ~ \"e?h0\"", { .name = "eh0" }, false },
		{ "name ~ \"eth[0-3]\"", { .name = "eth2" }, true },
		{ "name ~ \"eth[0-3]\"", { .name = "eth7" }, false },
		{ "name ~ \"eth[!0-3]\"", { .name = "eth7" }, true },
		{ "name ~ \"eth[!0-3]\"", { .name = "eth2" }, false },
		{ "name ~ \"eth[]x]\"", { .name = "eth]" }, true },
		{ "name ~ \"e*h*0\"", { .name = "eeehhh0" }, true },
		{ "name ~ \"e*h*0\"", { .name = "eeehhh1" }, false },
		{ "name ~ \"a\\*b\"", { .name = "a*b" }, true },
		{ "name ~ \"a\\*b\"", { .name = "axb" }, false },
		{ "name ~ \"eth[0\"", { .name = "eth[0" }, true },
		/* A leading ! in a glob negates it, as the kernel's regex. */
		{ "name ~ \"!eth*\"", { .name = "eth0" }, false },
		{ "name ~ \"!eth*\"", { .name = "lo" }, true },
		/* __data_loc char[] */
		{ "str == \"hello world\"", { .str = "hello world" }, true },
		{ "str == \"hello\"", { .str = "hello world" }, false },
		{ "str != \"hello\"", { .str = "hello world" }, true },
		{ "str ~ \"hello*\"", { .str = "hello world" }, true },
		{ "str ~ \"*world\"", { .str = "hello world" }, true },
		{ "str ~ \"*o w*\"", { .str = "hello world" }, true },
		{ "str ~ \"h?llo [vw]orld\"", { .str = "hello world" }, true },
		{ "str ~ \"h?llo [!w]orld\"", { .str = "hello world" }, false },
		{ "str == ''", { .str = "" }, true },
		{ "str ~ '*'", { .str = "" }, true },
		{ "str == \"a&&b||c)\"", { .str = "a&&b||c)" }, true },
		{ "str == 'say \"hi\"'", { .str = "say \"hi\"" }, true },
	};

	(void)state;
	run_cases(cases, N(cases));
}

/* A __data_loc outside the record reads as "": no byte past len is read. */
static void test_data_loc_bounds(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct trev_event_raw_ft_all *r;
	unsigned int len = sizeof(*r);
	struct trev_filter *eq, *ne, *any, *glob;

	(void)state;
	assert_true(map != MAP_FAILED);
	/* The record ends where the guard page starts. */
	assert_int_equal(mprotect(map + page, (size_t)page, PROT_NONE), 0);
	r = (void *)(map + page - len);
	memset(r, 0, len);
	eq = compile_ok(&trev_event_ft_all, "str == \"\"");
	ne = compile_ok(&trev_event_ft_all, "str != \"x\"");
	any = compile_ok(&trev_event_ft_all, "str ~ \"*x*\"");
	glob = compile_ok(&trev_event_ft_all, "str ~ \"?*\"");
	/* Offset past the end, length past the end, both at the limit. */
	static const uint32_t locs[] = {
		(4u << 16) | 0xffffu, (0xffffu << 16) | 8u, 1u << 16,
		(16u << 16) | (unsigned int)sizeof(*r),
	};
	for (size_t i = 0; i < N(locs); i++) {
		r->__data_loc_str = locs[i];
		if (i == 2) {
			/* In bounds: the first byte of the record, common_type's low byte = 0. */
			assert_true(trev__filter_match(eq, r, len, 0));
			continue;
		}
		assert_true(trev__filter_match(eq, r, len, 0));
		assert_true(trev__filter_match(ne, r, len, 0));
		assert_false(trev__filter_match(any, r, len, 0));
		assert_false(trev__filter_match(glob, r, len, 0));
	}
	/* The string runs exactly to the end of the record, without a NUL. */
	memcpy(map + page - 3, "abc", 3);
	r->__data_loc_str = (3u << 16) | (unsigned int)(len - 3);
	assert_true(trev__filter_match(any, r, len, 0) == false);
	assert_true(trev__filter_match(glob, r, len, 0));
	/* A record too short to hold the field never matches. */
	assert_false(trev__filter_match(eq, r,
					offsetof(struct trev_event_raw_ft_all, __data_loc_str) + 3, 0));
	trev__filter_free(eq);
	trev__filter_free(ne);
	trev__filter_free(any);
	trev__filter_free(glob);
	munmap(map, (size_t)page * 2);
}

/* ------------------------------------------------------------------ */
/* CPU, COMM                                                            */

static void test_cpu_comm(void **state)
{
	struct vals v = { 0 };

	(void)state;
	/* CPU is the one the caller passes (test_tree_cpu: the library's). */
	rec_cpu = 5;
	assert_true(eval_all("CPU == 5", &v));
	assert_true(eval_all("cpu == 5", &v));
	assert_false(eval_all("CPU != 5", &v));
	assert_false(eval_all("CPU > 5", &v));
	assert_true(eval_all("CPU >= 0", &v));
	assert_true(eval_all("CPU < 100000", &v));
	rec_cpu = 300;
	assert_true(eval_all("CPU > 255", &v));
	assert_false(eval_all("CPU == 5", &v));
	assert_true(eval_all("CPU == 300 && u8 == 0", &v));
	rec_cpu = 0;

	assert_int_equal(prctl(PR_SET_NAME, "flt-worker-7"), 0);
	assert_true(eval_all("COMM == \"flt-worker-7\"", &v));
	assert_true(eval_all("comm == \"flt-worker-7\"", &v));
	assert_true(eval_all("COMM ~ \"flt-*\"", &v));
	assert_true(eval_all("COMM ~ \"*-[0-9]\"", &v));
	assert_false(eval_all("COMM != \"flt-worker-7\"", &v));
	assert_false(eval_all("COMM == \"bash\"", &v));
}

/* ------------------------------------------------------------------ */
/* Precedence and short circuits (ft_eight: a..h)                       */

static bool eval8(const char *text, const int vals[8], unsigned char visited[16])
{
	struct trev_filter *f = compile_ok(&trev_event_ft_eight, text);
	struct trev_event_raw_ft_eight r;
	bool m;

	memset(&r, 0, sizeof(r));
	r.a = vals[0], r.b = vals[1], r.c = vals[2], r.d = vals[3];
	r.e = vals[4], r.f = vals[5], r.g = vals[6], r.h = vals[7];
	memset(visited, 0, 16);
	m = trev__filter_match_visits(f, &r, sizeof(r), 0, visited);
	/* The plain loop gives the same answer. */
	assert_int_equal(m, trev__filter_match(f, &r, sizeof(r), 0));
	trev__filter_free(f);
	return m;
}

/* Every combination of a..c (or a..d) in {0, 1}. */
static void values_of(unsigned int bits, int vals[8])
{
	for (int i = 0; i < 8; i++)
		vals[i] = (bits >> i) & 1;
}

struct prec_case {
	const char *expr;	/* without parentheses */
	const char *same;	/* the parenthesisation the kernel's precedence gives */
	const char *other;	/* the other one */
	int nvars;
	bool differs;		/* some record tells them apart */
};

static void test_precedence(void **state)
{
	static const struct prec_case cases[] = {
		{ "a == 1 && b == 1 || c == 1", "(a == 1 && b == 1) || c == 1",
		  "a == 1 && (b == 1 || c == 1)", 3, true },
		{ "a == 1 || b == 1 && c == 1", "a == 1 || (b == 1 && c == 1)",
		  "(a == 1 || b == 1) && c == 1", 3, true },
		{ "a == 1 && b == 1 && c == 1", "(a == 1 && b == 1) && c == 1",
		  "a == 1 && (b == 1 && c == 1)", 3, false },
		{ "a == 1 || b == 1 || c == 1", "(a == 1 || b == 1) || c == 1",
		  "a == 1 || (b == 1 || c == 1)", 3, false },
		{ "a == 1 || b == 1 && c == 1 || d == 1", "a == 1 || (b == 1 && c == 1) || d == 1",
		  "(a == 1 || b == 1) && (c == 1 || d == 1)", 4, true },
		{ "!a == 1 && b == 1", "(!a == 1) && b == 1", "!(a == 1 && b == 1)", 2, true },
		{ "!a == 1 || b == 1", "(!a == 1) || b == 1", "!(a == 1 || b == 1)", 2, true },
		{ "a == 1 && !b == 1 || c == 1", "(a == 1 && (!b == 1)) || c == 1",
		  "a == 1 && !(b == 1 || c == 1)", 3, true },
		{ "a == 1&&b == 1||c == 1", "((a == 1) && (b == 1)) || (c == 1)",
		  "(a == 1) && ((b == 1) || (c == 1))", 3, true },
	};
	unsigned char visited[16];
	int vals[8];

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		bool differ = false;

		for (unsigned int bits = 0; bits < (1u << cases[i].nvars); bits++) {
			bool plain, same, other, expect;
			int a, b, c, d;

			values_of(bits, vals);
			a = vals[0], b = vals[1], c = vals[2], d = vals[3];
			plain = eval8(cases[i].expr, vals, visited);
			same = eval8(cases[i].same, vals, visited);
			other = eval8(cases[i].other, vals, visited);
			if (plain != same)
				fail_msg("'%s' != '%s' at a..d=%d%d%d%d", cases[i].expr,
					 cases[i].same, a, b, c, d);
			differ |= plain != other;
			/* And C's own precedence agrees. */
			switch (i) {
			case 0: expect = (a && b) || c; break;
			case 1: expect = a || (b && c); break;
			case 2: expect = a && b && c; break;
			case 3: expect = a || b || c; break;
			case 4: expect = a || (b && c) || d; break;
			case 5: expect = !a && b; break;
			case 6: expect = !a || b; break;
			case 7: expect = (a && !b) || c; break;
			default: expect = (a && b) || c; break;
			}
			if (plain != expect)
				fail_msg("'%s' at a..d=%d%d%d%d", cases[i].expr, a, b, c, d);
		}
		if (differ != cases[i].differs)
			fail_msg("'%s' vs '%s': %s", cases[i].expr, cases[i].other,
				 cases[i].differs ? "should differ" : "should agree");
	}
}

static void test_nesting(void **state)
{
	char deep[40000];
	size_t n = 0;
	unsigned char visited[16];
	int vals[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };

	(void)state;
	assert_true(eval8("((((a == 1))))", vals, visited));
	assert_false(eval8("!((((a == 1))))", vals, visited));
	assert_true(eval8("!!a == 1", vals, visited));
	assert_true(eval8("!(!(a == 1) || !(b == 1))", vals, visited));
	assert_false(eval8("!(a == 1 && (b == 1 && !(c == 0)))", vals, visited));
	/* 10000 levels: no recursion in the compiler or the loop. */
	for (int i = 0; i < 10000; i++)
		deep[n++] = '(';
	n += (size_t)sprintf(deep + n, "a == 1");
	for (int i = 0; i < 10000; i++)
		deep[n++] = ')';
	deep[n] = '\0';
	assert_true(eval8(deep, vals, visited));
}

/* Which predicates run: those a short circuit skips are never evaluated. */
static void test_short_circuit(void **state)
{
	static const struct {
		const char *expr;
		int vals[8];
		bool match;
		const char *visited;	/* predicates evaluated, by letter */
	} cases[] = {
		{ "a == 1 && b == 1 && c == 1 && d == 1", { 0, 1, 1, 1 }, false, "a" },
		{ "a == 1 && b == 1 && c == 1 && d == 1", { 1, 1, 0, 1 }, false, "abc" },
		{ "a == 1 && b == 1 && c == 1 && d == 1", { 1, 1, 1, 1 }, true, "abcd" },
		{ "a == 1 || b == 1 || c == 1 || d == 1", { 1, 0, 0, 0 }, true, "a" },
		{ "a == 1 || b == 1 || c == 1 || d == 1", { 0, 0, 1, 0 }, true, "abc" },
		{ "a == 1 || b == 1 || c == 1 || d == 1", { 0, 0, 0, 0 }, false, "abcd" },
		{ "(a == 1 || b == 1) && (c == 1 || d == 1)", { 1, 0, 1, 0 }, true, "ac" },
		{ "(a == 1 || b == 1) && (c == 1 || d == 1)", { 0, 0, 1, 1 }, false, "ab" },
		{ "(a == 1 && b == 1) || (c == 1 && d == 1)", { 0, 1, 1, 1 }, true, "acd" },
		{ "(a == 1 && b == 1) || (c == 1 && d == 1)", { 1, 1, 0, 0 }, true, "ab" },
		{ "(a == 1 && b == 1) || (c == 1 && d == 1) || (e == 1 && f == 1)",
		  { 0, 0, 0, 0, 1, 1 }, true, "ace" "f" },
		{ "!(a == 1 && b == 1) && c == 1", { 0, 1, 1 }, true, "ac" },
		{ "!(a == 1 || b == 1) || c == 1", { 1, 0, 0 }, false, "ac" },
		{ "((((a == 1 && b == 1) || c == 1) && d == 1) || e == 1) && f == 1",
		  { 0, 0, 1, 0, 0, 1 }, false, "acde" },
		{ "((((a == 1 && b == 1) || c == 1) && d == 1) || e == 1) && f == 1",
		  { 1, 1, 0, 1, 0, 1 }, true, "abdf" },
	};
	unsigned char visited[16];

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		char got[17];
		size_t n = 0;

		if (eval8(cases[i].expr, cases[i].vals, visited) != cases[i].match)
			fail_msg("'%s' case %zu: wrong result", cases[i].expr, i);
		for (int k = 0; k < 16; k++)
			if (visited[k])
				got[n++] = (char)('a' + k);
		got[n] = '\0';
		if (strcmp(got, cases[i].visited))
			fail_msg("'%s' case %zu: evaluated '%s', expected '%s'", cases[i].expr, i,
				 got, cases[i].visited);
	}
}

/* A short circuit skips a __data_loc that points out of the record: the answer stays right. */
static void test_short_circuit_data_loc(void **state)
{
	struct trev_filter *f = compile_ok(&trev_event_ft_all, "s32 == 1 || str == \"x\"");
	struct trev_filter *g = compile_ok(&trev_event_ft_all, "s32 == 1 && str == \"\"");
	struct trev_event_raw_ft_all *r = (void *)recbuf;
	unsigned char visited[2];

	(void)state;
	make_rec(&(struct vals){ .s32 = 1 });
	r->__data_loc_str = 0xffffffffu;
	memset(visited, 0, sizeof(visited));
	assert_true(trev__filter_match_visits(f, r, sizeof(*r), 0, visited));
	assert_int_equal(visited[1], 0);
	r->s32 = 0;
	memset(visited, 0, sizeof(visited));
	assert_false(trev__filter_match_visits(f, r, sizeof(*r), 0, visited));
	assert_int_equal(visited[1], 1);
	assert_false(trev__filter_match_visits(g, r, sizeof(*r), 0, visited));
	r->s32 = 1;
	assert_true(trev__filter_match(g, r, sizeof(*r), 0));
	trev__filter_free(f);
	trev__filter_free(g);
}

/* ------------------------------------------------------------------ */
/* Errors                                                               */

static void test_errors(void **state)
{
	static const struct {
		const char *expr;
		const char *msg;
		int pos;
	} cases[] = {
		/* Columns are the kernel's: inside a predicate, one past the character at fault. */
		{ "s32 = 5", "Invalid operator", 5 },
		{ "s32 5", "Invalid operator", 5 },
		{ "((s32 == 5)", "Too many '('", 0 },
		{ "(s32 == 5) && (u8 == 1", "Too many '('", 14 },
		{ "s32 == 5)", "Too few '('", 8 },
		{ "(s32 == 5)) && (u8 == 1", "Too few '('", 10 },
		{ "name == \"eth0", "Missing matching quote", 8 },
		{ "name == 'a\" && s32 == 1", "Missing matching quote", 8 },
		{ "s32 == 123456789012345678901234", "Operand too long", 32 },
		{ "name == 5", "Expecting string field", 9 },
		{ "str == -1", "Expecting string field", 8 },
		{ "COMM == 1", "Expecting string field", 9 },
		{ "s32 == \"5\"", "Expecting numeric field", 8 },
		{ "CPU == \"1\"", "Expecting numeric field", 8 },
		{ "name < \"x\"", "Illegal operation for field type", 8 },
		{ "s32 ~ 5", "Illegal operation for field type", 7 },
		{ "ptr == \"x\"", "Illegal operation for field type", 8 },
		{ "arr == 1", "Illegal operation for field type", 8 },
		{ "nosuch == 1", "Field not found", 7 },
		{ "s32 == 1 && bogus == 2", "Field not found", 18 },
		{ "s32 == 12ab", "Illegal integer value", 8 },
		{ "u32 == -1", "Illegal integer value", 8 },
		{ "u8 == 0x", "Illegal integer value", 7 },
		{ "s32 == 09", "Illegal integer value", 8 },
		{ "u64 == 18446744073709551616", "Illegal integer value", 8 },
		{ "s64 == 9223372036854775808", "Illegal integer value", 8 },
		{ "s32 == 1 s32 == 2", "Too many terms in predicate expression", 9 },
		{ "s32 == 1 & s32 == 2", "Too many terms in predicate expression", 9 },
		{ "s32 & & 1", "Invalid value (did you forget quotes)?", 7 },
		{ "s32 == 1 &&", "Meaningless filter expression", 11 },
		{ "&& s32 == 1", "Meaningless filter expression", 0 },
		{ "()", "No filter found", 0 },
		{ "() && s32 == 1", "Meaningless filter expression", 1 },
		{ "!", "Meaningless filter expression", 1 },
		{ "", "No filter found", 0 },
		{ "s32 == abc", "Invalid value (did you forget quotes)?", 8 },
		{ "name == eth0", "Invalid value (did you forget quotes)?", 9 },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		struct trev_filter_error err = { NULL, -1 };
		struct trev_filter *f = (void *)1;
		int ret = trev__filter_compile(&trev_event_ft_all, cases[i].expr, &f, &err);

		if (ret != -EINVAL || f != NULL)
			fail_msg("'%s' compiled (%d)", cases[i].expr, ret);
		if (!err.msg || strcmp(err.msg, cases[i].msg) || err.pos != cases[i].pos)
			fail_msg("'%s': got \"%s\" at %d, expected \"%s\" at %d", cases[i].expr,
				 err.msg ? err.msg : "(none)", err.pos, cases[i].msg, cases[i].pos);
	}
}

static void test_too_many_terms(void **state)
{
	size_t cap = 16385 * 12 + 1, n = 0;
	char *text = malloc(cap);
	struct trev_filter_error err;
	struct trev_filter *f;

	(void)state;
	assert_non_null(text);
	for (int i = 0; i < 16385; i++)
		n += (size_t)sprintf(text + n, "%su8 == 1", i ? "||" : "");
	assert_int_equal(trev__filter_compile(&trev_event_ft_all, text, &f, &err), -EINVAL);
	assert_string_equal(err.msg, "Too many terms in predicate expression");
	/* 16384 is still fine. */
	text[n - strlen("||u8 == 1")] = '\0';
	assert_int_equal(trev__filter_compile(&trev_event_ft_all, text, &f, &err), 0);
	assert_int_equal(trev__filter_nr_preds(f), 16384);
	trev__filter_free(f);
	free(text);
}

static void test_clear(void **state)
{
	struct trev_filter_error err;
	struct trev_filter *f = (void *)1;

	(void)state;
	assert_int_equal(trev__filter_compile(&trev_event_ft_all, "0", &f, &err), 0);
	assert_null(f);
}

/* ------------------------------------------------------------------ */
/* Through the tree: events are dropped                                 */

static size_t count_lines(const char *text, const char *what)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, what)) != NULL; p++)
		n++;
	return n;
}

static void test_tree(void **state)
{
	static char buf[1 << 16];

	(void)state;
	assert_int_equal(trev_write("events/ftest/ft_all/filter", "u8 > 2 && str ~ \"ok*\""), 0);
	assert_true(trev_read("events/ftest/ft_all/filter", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "u8 > 2 && str ~ \"ok*\"\n");
	assert_int_equal(trev_write("events/ftest/ft_all/enable", "1"), 0);
	assert_int_equal(trev_write("trace", ""), 0);
	for (unsigned char i = 0; i < 6; i++)
		trace_ft_all(i, 0, 0, 0, 0, 0, 0, 0, "n", i & 1 ? "ok-odd" : "no", NULL);
	assert_true(trev_read("trace", buf, sizeof(buf)) > 0);
	assert_int_equal(count_lines(buf, "ft_all:"), 2);	/* u8 = 3 and 5 */
	assert_non_null(strstr(buf, "u8=3 "));
	assert_non_null(strstr(buf, "u8=5 "));
	/* A bad filter: EINVAL, and the old one stays. */
	assert_int_equal(trev_write("events/ftest/ft_all/filter", "u8 >> 2"), -EINVAL);
	assert_true(trev_read("events/ftest/ft_all/filter", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "u8 > 2 && str ~ \"ok*\"\n");
	assert_true(trev_read("error_log", buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "event filter parse error: error: Invalid value (did you "
				    "forget quotes)?\n  Command: u8 >> 2\n"));
	/* Cleared: everything is kept, and the record path is the fast one again. */
	assert_int_equal(trev_write("events/ftest/ft_all/filter", "0"), 0);
	assert_int_equal(atomic_load(&trev__event_rt(&trev_event_ft_all)->file.flags) &
			 TREV_FILE_FL_FILTERED, 0);
	assert_int_equal(trev_write("trace", ""), 0);
	for (unsigned char i = 0; i < 4; i++)
		trace_ft_all(i, 0, 0, 0, 0, 0, 0, 0, "n", "s", NULL);
	assert_true(trev_read("trace", buf, sizeof(buf)) > 0);
	assert_int_equal(count_lines(buf, "ft_all:"), 4);
	assert_true(trev_read("events/ftest/ft_all/filter", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "none\n");
	assert_int_equal(trev_write("events/ftest/ft_all/enable", "0"), 0);
}

/*
 * common_flags and common_preempt_count are the ring's nesting level at
 * the time of the event, on both paths that build a record before it is
 * reserved: the probe's stack (ft_eight) and the scratch area (ft_all).
 * A signal handler writes while ft_hook's record is reserved: level 1.
 */
static void hook_raise(void)
{
	raise(SIGUSR1);
}

static void level_handler(int sig)
{
	(void)sig;
	trace_ft_eight(7, 0, 0, 0, 0, 0, 0, 0);
	trace_ft_all(9, 0, 0, 0, 0, 0, 0, 0, "n", "in handler", NULL);
}

static void test_tree_level(void **state)
{
	static char buf[1 << 16];
	struct sigaction sa = { .sa_handler = level_handler }, old;

	(void)state;
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	assert_int_equal(trev_write("events/ftest/ft_eight/filter",
				    "common_preempt_count == 1 && a == 7"), 0);
	assert_int_equal(trev_write("events/ftest/ft_all/filter",
				    "common_flags & 8 && u8 == 9"), 0);
	assert_int_equal(trev_write("events/ftest/enable", "1"), 0);
	assert_int_equal(trev_write("trace", ""), 0);
	/* Level 0: rejected. */
	trace_ft_eight(7, 0, 0, 0, 0, 0, 0, 0);
	trace_ft_all(9, 0, 0, 0, 0, 0, 0, 0, "n", "outside", NULL);
	ft_assign_hook = hook_raise;
	trace_ft_hook("outer");
	ft_assign_hook = NULL;
	assert_true(trev_read("trace", buf, sizeof(buf)) > 0);
	assert_int_equal(count_lines(buf, "ft_eight:"), 1);
	assert_int_equal(count_lines(buf, "ft_all:"), 1);
	assert_int_equal(count_lines(buf, "ft_hook:"), 1);
	assert_non_null(strstr(buf, "str=in handler"));
	/* The kept records carry the level the filter saw. */
	assert_int_equal(count_lines(buf, "] ..h1 "), 2);
	assert_int_equal(trev_write("events/ftest/filter", "0"), 0);
	assert_int_equal(trev_write("events/ftest/enable", "0"), 0);
	assert_int_equal(sigaction(SIGUSR1, &old, NULL), 0);
}

/*
 * CPU in filters set through the tree is the CPU the ring buffer records:
 * on both paths that build a record before it is reserved (ft_eight on the
 * probe's stack, its filter alone; ft_all in the scratch area, with
 * triggers) and in triggers' conditions.
 */
static void fire_cpu_events(void)
{
	trace_ft_eight(7, 0, 0, 0, 0, 0, 0, 0);
	trace_ft_eight(8, 0, 0, 0, 0, 0, 0, 0);
	trace_ft_all(1, 0, 0, 0, 0, 0, 0, 0, "n", "cpu", NULL);
}

static void test_tree_cpu(void **state)
{
	static char buf[1 << 16];
	char text[64], col[16];
	cpu_set_t set, old;
	int cpu;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	cpu = sched_getcpu();
	assert_true(cpu >= 0);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);	/* stay here */
	snprintf(col, sizeof(col), "[%03d] ", cpu);

	snprintf(text, sizeof(text), "CPU == %d && a == 7", cpu);
	assert_int_equal(trev_write("events/ftest/ft_eight/filter", text), 0);
	snprintf(text, sizeof(text), "cpu == %d", cpu);
	assert_int_equal(trev_write("events/ftest/ft_all/filter", text), 0);
	snprintf(text, sizeof(text), "hist:keys=u8 if CPU == %d", cpu);
	assert_int_equal(trev_write("events/ftest/ft_all/trigger", text), 0);
	snprintf(text, sizeof(text), "traceoff if CPU != %d", cpu);
	assert_int_equal(trev_append("events/ftest/ft_all/trigger", text), 0);
	assert_int_equal(trev_write("events/ftest/enable", "1"), 0);
	assert_int_equal(trev_write("trace", ""), 0);
	fire_cpu_events();
	assert_true(trev_read("trace", buf, sizeof(buf)) > 0);
	assert_int_equal(count_lines(buf, "ft_eight:"), 1);
	assert_int_equal(count_lines(buf, "ft_all:"), 1);
	assert_int_equal(count_lines(buf, col), 2);
	assert_true(trev_read("tracing_on", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "1\n");
	assert_true(trev_read("events/ftest/ft_all/hist", buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "Hits: 1\n"));
	assert_int_equal(trev_append("events/ftest/ft_all/trigger", "!hist:keys=u8"), 0);
	assert_int_equal(trev_append("events/ftest/ft_all/trigger", "!traceoff"), 0);

	/* Every other CPU: nothing is kept, and the trigger fires. */
	snprintf(text, sizeof(text), "CPU != %d", cpu);
	assert_int_equal(trev_write("events/ftest/ft_eight/filter", text), 0);
	assert_int_equal(trev_write("events/ftest/ft_all/filter", text), 0);
	snprintf(text, sizeof(text), "hist:keys=u8 if CPU != %d", cpu);
	assert_int_equal(trev_write("events/ftest/ft_all/trigger", text), 0);
	snprintf(text, sizeof(text), "traceoff if CPU == %d", cpu);
	assert_int_equal(trev_append("events/ftest/ft_all/trigger", text), 0);
	assert_int_equal(trev_write("trace", ""), 0);
	fire_cpu_events();
	assert_true(trev_read("trace", buf, sizeof(buf)) > 0);
	assert_int_equal(count_lines(buf, "ft_"), 0);
	assert_true(trev_read("tracing_on", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "0\n");
	assert_true(trev_read("events/ftest/ft_all/hist", buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "Hits: 0\n"));

	assert_int_equal(trev_append("events/ftest/ft_all/trigger", "!hist:keys=u8"), 0);
	assert_int_equal(trev_append("events/ftest/ft_all/trigger", "!traceoff"), 0);
	assert_int_equal(trev_write("tracing_on", "1"), 0);
	assert_int_equal(trev_write("events/ftest/filter", "0"), 0);
	assert_int_equal(trev_write("events/ftest/enable", "0"), 0);
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numeric_ops),
		cmocka_unit_test(test_numeric_sizes),
		cmocka_unit_test(test_common_fields),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_data_loc_bounds),
		cmocka_unit_test(test_cpu_comm),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_short_circuit),
		cmocka_unit_test(test_short_circuit_data_loc),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_too_many_terms),
		cmocka_unit_test(test_clear),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_tree_level),
		cmocka_unit_test(test_tree_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
