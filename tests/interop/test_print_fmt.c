/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev report's print fmt steps (tools/trev/print_fmt.c) against
 * libtraceevent's own tep_print_event(TEP_PRINT_INFO), table-driven: every
 * format the steps compile prints, for every record of the table (zero,
 * negative and large numbers, a char array without its NUL, empty and
 * missing strings, flags with bits left over), exactly the text
 * libtraceevent prints; the formats they leave to libtraceevent (pointers,
 * '*' widths, helpers, operations, %c, names as flag values) are refused;
 * a string whose NUL is outside the record is left to libtraceevent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "print_fmt.h"

#define FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n" \
	"\tfield:int i;\toffset:8;\tsize:4;\tsigned:1;\n" \
	"\tfield:unsigned int u;\toffset:12;\tsize:4;\tsigned:0;\n" \
	"\tfield:long l;\toffset:16;\tsize:8;\tsigned:1;\n" \
	"\tfield:unsigned long long q;\toffset:24;\tsize:8;\tsigned:0;\n" \
	"\tfield:short h;\toffset:32;\tsize:2;\tsigned:1;\n" \
	"\tfield:unsigned char c;\toffset:34;\tsize:1;\tsigned:0;\n" \
	"\tfield:char name[8];\toffset:36;\tsize:8;\tsigned:1;\n" \
	"\tfield:__data_loc char[] s;\toffset:44;\tsize:4;\tsigned:1;\n" \
	"\tfield:unsigned int fl;\toffset:48;\tsize:4;\tsigned:0;\n" \
	"\tfield:__rel_loc char[] r;\toffset:52;\tsize:4;\tsigned:1;\n"

#define STR_AT	56		/* the strings s and r, after the fields */

/* Formats the steps compile: each must print as libtraceevent does. */
static const char *const compiled[] = {
	"\"i=%d u=%u l=%ld q=%llu x=%x lx=%lx llx=%llx\", REC->i, REC->u, REC->l, REC->q, "
	"REC->u, REC->l, REC->q",
	"\"w=%08x %-6d| %5u %hd %hhx %#x %o %X %i %lli %.3d\", REC->u, REC->i, REC->u, REC->h, "
	"REC->c, REC->u, REC->u, REC->u, REC->i, REC->l, REC->i",
	"\"name=%s s=%s r=%s\\t%% end\\n\", REC->name, __get_str(s), __get_rel_str(r)",
	"\"flags=%s\", __print_flags(REC->fl, \"|\", { 1, \"A\" }, { 2, \"B\" }, { 0x4, \"C\" })",
	"\"sym=%s c=%d\", __print_symbolic(REC->u, { 0, \"ZERO\" }, { 1, \"ONE\" }, "
	"{ 0xffffffff, \"ALL\" }), REC->c",
	"\"%s%s\", __print_flags(REC->fl, \"\", { 0x10, \"X\" }, { 0, \"NONE\" }), REC->name",
	"\"h=%d %u %x c=%u %d\", REC->h, REC->h, REC->h, REC->c, REC->c",
	"\"plain text only\"",
};

/* Formats left to libtraceevent. */
static const char *const refused[] = {
	"\"p=%p\", REC->l",
	"\"w=%*d\", REC->i, REC->u",
	"\"c=%c\", REC->c",
	"\"%s\", __print_hex(REC->name, 8)",
	"\"%d\", REC->i + 1",
	"\"%s\", __print_symbolic(REC->i, { -1, \"M\" })",
	"\"%10s\", REC->name",
	"\"%zu\", REC->q",
	"\"trailing %\", REC->i",
};

struct rec_vals {
	int i;
	unsigned int u;
	long long l;
	unsigned long long q;
	short h;
	unsigned char c;
	char name[8];
	const char *s, *r;	/* NULL: a __data_loc of length 0 */
	unsigned int fl;
};

static const struct rec_vals records[] = {
	{ 0, 0, 0, 0, 0, 0, "", "", "", 0 },
	{ -1, 4294967295u, -1, ~0ull, -1, 255, "abcdefgh", "x", "y", 7 },
	{ -2147483647 - 1, 2147483648u, -9223372036854775807ll - 1, 1ull << 63, -32768, 128,
	  "ab", "a longer string", "rel", 0x13 },
	{ 42, 17, 123456789012ll, 987654321987ull, 300, 65, "worker", NULL, NULL, 0x20 },
	{ 7, 1, 5, 9, 12, 9, "io", "s", "r", 0x10 },
};

static int build(uint8_t *buf, int id, const struct rec_vals *v)
{
	unsigned short type = (unsigned short)id;
	int pid = 1234, size = STR_AT;
	uint32_t loc;
	size_t n;

	memset(buf, 0, 256);
	memcpy(buf, &type, 2);
	memcpy(buf + 4, &pid, 4);
	memcpy(buf + 8, &v->i, 4);
	memcpy(buf + 12, &v->u, 4);
	memcpy(buf + 16, &v->l, 8);
	memcpy(buf + 24, &v->q, 8);
	memcpy(buf + 32, &v->h, 2);
	buf[34] = v->c;
	memcpy(buf + 36, v->name, 8);
	n = v->s ? strlen(v->s) + 1 : 0;
	loc = (uint32_t)size | (uint32_t)n << 16;
	memcpy(buf + 44, &loc, 4);
	if (n)
		memcpy(buf + size, v->s, n);
	size += (int)n;
	memcpy(buf + 48, &v->fl, 4);
	/* __rel_loc: the offset counts from the end of the field. */
	n = v->r ? strlen(v->r) + 1 : 0;
	loc = (uint32_t)(size - 56) | (uint32_t)n << 16;
	memcpy(buf + 52, &loc, 4);
	if (n)
		memcpy(buf + size, v->r, n);
	return size + (int)n;
}

static struct tep_event *parse(struct tep_handle *tep, int id, const char *fmt)
{
	char text[4096];
	int len = snprintf(text, sizeof(text), "name: e%d\nID: %d\nformat:\n" FIELDS
			   "\nprint fmt: %s\n", id, id, fmt);

	assert_int_equal(tep_parse_event(tep, text, (unsigned long)len, "t"), 0);
	return tep_find_event(tep, id);
}

static const char *tep_text(struct tep_handle *tep, struct trace_seq *seq, struct tep_record *rec)
{
	trace_seq_reset(seq);
	tep_print_event(tep, seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(seq);
	return seq->buffer;
}

static void test_same_text(void **state)
{
	struct tep_handle *tep = tep_alloc();
	struct trace_seq seq;

	(void)state;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	trace_seq_init(&seq);
	for (size_t k = 0; k < sizeof(compiled) / sizeof(compiled[0]); k++) {
		int id = 100 + (int)k;
		struct tep_event *ev = parse(tep, id, compiled[k]);
		struct trev_pfmt *f;

		assert_non_null(ev);
		f = trev_pfmt_compile(ev);
		if (!f)
			fail_msg("format %zu not compiled: %s", k, compiled[k]);
		for (size_t i = 0; i < sizeof(records) / sizeof(records[0]); i++) {
			struct trev_buf out = TREV_BUF_INIT;
			uint8_t buf[256];
			struct tep_record rec = { .data = buf, .size = build(buf, id, &records[i]) };
			const char *want = tep_text(tep, &seq, &rec);

			assert_int_equal(trev_pfmt_print(f, &rec, &out), 0);
			trev__buf_putc(&out, '\0');
			if (strcmp(out.data, want))
				fail_msg("format %zu, record %zu: '%s', libtraceevent '%s'", k, i,
					 out.data, want);
			trev__buf_free(&out);
		}
		trev_pfmt_free(f);
	}
	trace_seq_destroy(&seq);
	tep_free(tep);
}

static void test_refused(void **state)
{
	struct tep_handle *tep = tep_alloc();

	(void)state;
	tep_set_long_size(tep, 8);
	for (size_t k = 0; k < sizeof(refused) / sizeof(refused[0]); k++) {
		struct tep_event *ev = parse(tep, 200 + (int)k, refused[k]);
		struct trev_pfmt *f = trev_pfmt_compile(ev);

		if (f)
			fail_msg("format %zu compiled: %s", k, refused[k]);
	}
	tep_free(tep);
}

/* A string without its NUL in the record: libtraceevent reads on, so it prints it. */
static void test_string_left(void **state)
{
	struct tep_handle *tep = tep_alloc();
	struct trev_buf out = TREV_BUF_INIT;
	struct tep_event *ev;
	struct trev_pfmt *f;
	uint8_t buf[256];
	struct tep_record rec = { .data = buf };
	static const struct rec_vals v = { 1, 2, 3, 4, 5, 6, "n", "abc", "r", 0 };

	(void)state;
	tep_set_long_size(tep, 8);
	ev = parse(tep, 300, "\"s=%s\", __get_str(s)");
	f = trev_pfmt_compile(ev);
	assert_non_null(f);
	build(buf, 300, &v);
	/* "abc" without its NUL: the __data_loc says 3 bytes, the record ends there. */
	memcpy(buf + 44, &(uint32_t){ STR_AT | 3u << 16 }, 4);
	rec.size = STR_AT + 3;
	trev__buf_puts(&out, "kept");
	assert_int_equal(trev_pfmt_print(f, &rec, &out), 1);
	assert_int_equal(out.len, 4);	/* as it was */
	rec.size = 40;			/* the field itself outside the record */
	assert_int_equal(trev_pfmt_print(f, &rec, &out), 1);
	trev_pfmt_free(f);
	trev__buf_free(&out);
	tep_free(tep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_text),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_string_left),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
