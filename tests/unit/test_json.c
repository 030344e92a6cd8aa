/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev convert --to json's JSON pieces (tools/trev/json.c), table-driven:
 * strings escaped per RFC 8259 with ill-formed UTF-8 as U+FFFD, time stamps
 * in microseconds exactly, integers beyond 2^53 as strings, and a record's
 * fields as args, with a field outside the record refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "json.h"

static const char *str_of(struct trev_buf *b)
{
	trev__buf_putc(b, '\0');
	assert_int_equal(b->err, 0);
	return b->data;
}

static void test_strings(void **state)
{
	static const struct { const char *in; size_t max; const char *want; } t[] = {
		{ "plain", 100, "\"plain\"" },
		{ "a\"b\\c", 100, "\"a\\\"b\\\\c\"" },
		{ "\n\t\r\b\f\x01\x1f\x7f", 100, "\"\\n\\t\\r\\b\\f\\u0001\\u001f\x7f\"" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 100, "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"" },
		{ "\xff\xfe", 100, "\"\\ufffd\\ufffd\"" },
		{ "\xc0\xaf", 100, "\"\\ufffd\\ufffd\"" },		/* overlong '/' */
		{ "\xed\xa0\x80", 100, "\"\\ufffd\\ufffd\\ufffd\"" },	/* a surrogate */
		{ "\xf4\x90\x80\x80", 100, "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },	/* > U+10FFFF */
		{ "\xe2\x82", 100, "\"\\ufffd\\ufffd\"" },		/* cut at the end */
		{ "\xc3\xa9", 1, "\"\\ufffd\"" },			/* cut by max */
		{ "abc", 2, "\"ab\"" },
		{ "", 10, "\"\"" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct trev_buf b = TREV_BUF_INIT;

		trev_json_str(&b, t[i].in, t[i].max);
		assert_string_equal(str_of(&b), t[i].want);
		trev__buf_free(&b);
	}
}

static void test_numbers(void **state)
{
	static const struct { uint64_t ns; const char *want; } ts[] = {
		{ 0, "0.000" }, { 999, "0.999" }, { 1000, "1.000" }, { 123456789, "123456.789" },
		{ UINT64_MAX, "18446744073709551.615" },
	};
	struct trev_buf b = TREV_BUF_INIT;
	char buf[TREV_JSON_TS_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		assert_int_equal(trev_json_ts(buf, ts[i].ns), strlen(ts[i].want));
		assert_string_equal(buf, ts[i].want);
	}
	trev_json_uint(&b, 0);
	trev__buf_putc(&b, ' ');
	trev_json_uint(&b, TREV_JSON_INT_MAX);
	trev__buf_putc(&b, ' ');
	trev_json_uint(&b, TREV_JSON_INT_MAX + 1);
	trev__buf_putc(&b, ' ');
	trev_json_int(&b, -(int64_t)TREV_JSON_INT_MAX);
	trev__buf_putc(&b, ' ');
	trev_json_int(&b, -(int64_t)TREV_JSON_INT_MAX - 1);
	trev__buf_putc(&b, ' ');
	trev_json_int(&b, INT64_MIN);
	assert_string_equal(str_of(&b), "0 9007199254740991 \"9007199254740992\" "
			    "-9007199254740991 \"-9007199254740992\" \"-9223372036854775808\"");
	trev__buf_free(&b);
}

static void map(struct trev_ctf_field *f, const char *type, const char *name, int offset,
		int size, unsigned int arraylen, bool is_signed, bool is_array, bool is_dynamic)
{
	struct trev_ctf_field_in in = {
		.type = type, .name = name, .offset = offset, .size = size, .arraylen = arraylen,
		.is_signed = is_signed, .is_array = is_array, .is_dynamic = is_dynamic,
	};
	char why[128];

	assert_int_equal(trev_ctf_field_map(f, &in, 8, why, sizeof(why)), 0);
}

static void test_fields(void **state)
{
	struct trev_ctf_field f[7];
	static const char *const names[7] = { "s8", "u64", "ptr", "name", "path", "lat", "tail" };
	uint8_t rec[64] = { 0 };
	struct trev_buf b = TREV_BUF_INIT;
	uint64_t big = 1ull << 60, ptr = 0x7f00dead;
	int32_t lat[2] = { -1, 70000 };
	uint32_t loc;
	char why[160];

	(void)state;
	map(&f[0], "s8", "s8", 8, 1, 0, true, false, false);
	map(&f[1], "u64", "u64", 9, 8, 0, false, false, false);
	map(&f[2], "void *", "ptr", 17, 8, 0, false, false, false);
	map(&f[3], "char[4]", "name", 25, 4, 4, true, true, false);
	map(&f[4], "__data_loc char[]", "path", 29, 4, 0, true, true, true);
	map(&f[5], "__data_loc int[]", "lat", 33, 4, 0, true, true, true);
	map(&f[6], "char[]", "tail", 37, 0, 0, true, true, false);
	rec[8] = 0xfe;
	memcpy(rec + 9, &big, 8);
	memcpy(rec + 17, &ptr, 8);
	memcpy(rec + 25, "abcd", 4);	/* no NUL: all 4 */
	loc = 3u << 16 | 44;
	memcpy(rec + 29, &loc, 4);
	memcpy(rec + 44, "x\"", 3);
	loc = 8u << 16 | 48;
	memcpy(rec + 33, &loc, 4);
	memcpy(rec + 48, lat, 8);
	memcpy(rec + 37, "t\n", 3);
	assert_int_equal(trev_json_fields(&b, f, names, 7, rec, 56, false, why, sizeof(why)), 0);
	assert_string_equal(str_of(&b), "\"s8\":-2,\"u64\":\"1152921504606846976\","
			    "\"ptr\":\"0x7f00dead\",\"name\":\"abcd\",\"path\":\"x\\\"\","
			    "\"lat\":[-1,70000],\"tail\":\"t\\n\"");
	trev__buf_reset(&b);
	/* lat's data past the record's end: refused, nothing appended. */
	assert_int_equal(trev_json_fields(&b, f, names, 7, rec, 52, false, why, sizeof(why)),
			 -EINVAL);
	assert_int_equal(b.len, 0);
	assert_string_equal(why, "field lat: its data at 48, 8 bytes, is outside the record "
			    "(52 bytes)");
	/* A fixed field past the end. */
	assert_int_equal(trev_json_fields(&b, f, names, 7, rec, 20, false, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "field ptr at 17, 8 bytes, is outside the record (20 bytes)");
	trev__buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
