/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * struct trev_buf (src/base/buf.h): appends of every kind give the bytes
 * appended, NUL-terminated, across growths; printf that does not fit the
 * room left formats again after growing; the first error is kept; detach
 * and reset.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"

static void test_buf_append(void **state)
{
	struct trev_buf b = TREV_BUF_INIT;
	char expect[5000];
	size_t n = 0;

	(void)state;
	assert_null(b.data);
	/* Many small pieces across several growths. */
	for (int i = 0; i < 500; i++) {
		assert_int_equal(trev__buf_printf(&b, "%03d,", i), 0);
		n += (size_t)snprintf(expect + n, sizeof(expect) - n, "%03d,", i);
		assert_int_equal(b.len, n);
		assert_int_equal(b.data[b.len], '\0');
	}
	assert_string_equal(b.data, expect);
	assert_true(b.cap > b.len);
	assert_int_equal(trev__buf_puts(&b, "x"), 0);
	assert_int_equal(trev__buf_putc(&b, 'y'), 0);
	assert_int_equal(trev__buf_append(&b, "z\0w", 3), 0);
	assert_int_equal(b.len, n + 5);
	assert_memory_equal(b.data + n, "xyz\0w", 6);	/* bytes, then the NUL */
	trev__buf_free(&b);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
}

/* One piece larger than the room left and than a doubling of it. */
static void test_buf_printf_grows(void **state)
{
	struct trev_buf b = TREV_BUF_INIT;
	char big[3000];

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(trev__buf_puts(&b, "head:"), 0);
	assert_int_equal(trev__buf_printf(&b, "[%s]", big), 0);
	assert_int_equal(b.len, 5 + 2 + sizeof(big) - 1);
	assert_memory_equal(b.data, "head:[aaa", 9);
	assert_int_equal(b.data[b.len - 1], ']');
	assert_int_equal(b.data[b.len], '\0');
	assert_true(b.cap >= b.len + 1);
	trev__buf_free(&b);
}

static void test_buf_reserve(void **state)
{
	struct trev_buf b = TREV_BUF_INIT;
	size_t cap;

	(void)state;
	assert_int_equal(trev__buf_reserve(&b, 100), 0);
	assert_true(b.cap >= 101);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.data, "");
	cap = b.cap;
	assert_int_equal(trev__buf_reserve(&b, cap - 1), 0);
	assert_int_equal(b.cap, cap);		/* fits: no growth */
	assert_int_equal(trev__buf_reserve(&b, cap), 0);
	assert_true(b.cap >= cap + 1);
	trev__buf_free(&b);
}

/* A read into the room reserve() made, counted with extend(). */
static void test_buf_extend(void **state)
{
	struct trev_buf b = TREV_BUF_INIT;

	(void)state;
	assert_int_equal(trev__buf_room(&b), 0);
	assert_int_equal(trev__buf_puts(&b, "ab"), 0);
	assert_int_equal(trev__buf_reserve(&b, 10), 0);
	assert_true(trev__buf_room(&b) >= 10);
	memcpy(b.data + b.len, "cdefXXXX", 8);
	trev__buf_extend(&b, 4);
	assert_int_equal(b.len, 6);
	assert_string_equal(b.data, "abcdef");
	trev__buf_free(&b);
}

/* An impossible size fails, the failure is kept, and reset forgets it. */
static void test_buf_error_kept(void **state)
{
	struct trev_buf b = TREV_BUF_INIT;

	(void)state;
	assert_int_equal(trev__buf_puts(&b, "kept"), 0);
	assert_int_equal(trev__buf_reserve(&b, SIZE_MAX - 2), -ENOMEM);
	assert_int_equal(b.err, -ENOMEM);
	assert_int_equal(trev__buf_puts(&b, "more"), -ENOMEM);
	assert_int_equal(trev__buf_printf(&b, "%d", 1), -ENOMEM);
	assert_string_equal(b.data, "kept");	/* what was there stays readable */
	assert_null(trev__buf_detach(&b));	/* and the builder's outcome is the error */
	assert_null(b.data);
	assert_int_equal(trev__buf_puts(&b, "again"), 0);
	assert_int_equal(trev__buf_reserve(&b, SIZE_MAX), -ENOMEM);
	trev__buf_reset(&b);
	assert_int_equal(b.err, 0);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.data, "");
	assert_int_equal(trev__buf_puts(&b, "ok"), 0);
	assert_string_equal(b.data, "ok");
	trev__buf_free(&b);
}

static void test_buf_detach(void **state)
{
	struct trev_buf b = TREV_BUF_INIT;
	char *text;

	(void)state;
	text = trev__buf_detach(&b);		/* nothing added: "" */
	assert_non_null(text);
	assert_string_equal(text, "");
	free(text);
	assert_int_equal(trev__buf_printf(&b, "%s=%d\n", "n", 42), 0);
	text = trev__buf_detach(&b);
	assert_string_equal(text, "n=42\n");
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf_append),
		cmocka_unit_test(test_buf_printf_grows),
		cmocka_unit_test(test_buf_reserve),
		cmocka_unit_test(test_buf_extend),
		cmocka_unit_test(test_buf_error_kept),
		cmocka_unit_test(test_buf_detach),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
