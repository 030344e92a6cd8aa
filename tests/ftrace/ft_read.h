/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading the tree's files in the function tracer's tests: a file's whole
 * text into the test's buffer (the test fails when it cannot be read or
 * does not fit), and the text after its '#' header lines. Include after
 * <cmocka.h>.
 */
#ifndef FT_READ_H
#define FT_READ_H

#include <stddef.h>
#include <string.h>
#include <sys/types.h>

#include <trev/trev.h>

/* @path's text in @buf (@size bytes, NUL-terminated by trev_read()). */
static inline const char *ft_read(char *buf, size_t size, const char *path)
{
	ssize_t n = trev_read(path, buf, size);

	if (n < 0 || (size_t)n >= size)
		fail_msg("read %s: %zd", path, n);
	return buf;
}

/* @text after its header: the lines that start with '#' (trace's, graph's). */
static inline const char *ft_skip_header(const char *text)
{
	while (*text == '#') {
		text = strchr(text, '\n');
		assert_non_null(text);
		text++;
	}
	return text;
}

#endif
