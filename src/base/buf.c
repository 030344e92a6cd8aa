/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * struct trev_buf (buf.h): growth by doubling, the NUL kept after the bytes,
 * the first error kept.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

/* The first allocation: a line of text or a small section, without regrowing. */
#define BUF_MIN_CAP	256u

int trev__buf_reserve(struct trev_buf *b, size_t more)
{
	size_t need, cap;
	char *n;

	if (b->err)
		return b->err;
	if (more > SIZE_MAX - 1 - b->len) {
		b->err = -ENOMEM;
		return b->err;
	}
	need = b->len + more + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : BUF_MIN_CAP;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	n = realloc(b->data, cap);
	if (!n) {
		b->err = -ENOMEM;
		return b->err;
	}
	if (!b->data)
		n[0] = '\0';
	b->data = n;
	b->cap = cap;
	return 0;
}

void trev__buf_extend(struct trev_buf *b, size_t n)
{
	if (n > trev__buf_room(b))
		n = trev__buf_room(b);	/* a caller's bug; the NUL stays inside */
	b->len += n;
	if (b->data)
		b->data[b->len] = '\0';
}

int trev__buf_append_slow(struct trev_buf *b, const void *data, size_t len)
{
	int ret;

	if (!len)
		return b->err;	/* nothing to add: no allocation either */
	ret = trev__buf_reserve(b, len);
	if (ret)
		return ret;
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int trev__buf_puts(struct trev_buf *b, const char *s)
{
	return trev__buf_append(b, s, strlen(s));
}

int trev__buf_putc(struct trev_buf *b, char c)
{
	return trev__buf_append(b, &c, 1);
}

int trev__buf_vprintf(struct trev_buf *b, const char *fmt, va_list ap)
{
	size_t room = b->cap > b->len ? b->cap - b->len : 0;
	va_list again;
	int n;

	if (b->err)
		return b->err;
	/* Most pieces fit in what is left: one formatting pass, no measuring pass. */
	va_copy(again, ap);
	n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, again);
	va_end(again);
	if (n < 0) {
		if (b->data)
			b->data[b->len] = '\0';
		b->err = -EINVAL;
		return b->err;
	}
	if ((size_t)n >= room) {
		if (trev__buf_reserve(b, (size_t)n)) {
			/* The cut-off attempt overwrote the NUL. */
			if (b->data)
				b->data[b->len] = '\0';
			return b->err;
		}
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	}
	b->len += (size_t)n;
	return 0;
}

int trev__buf_printf(struct trev_buf *b, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = trev__buf_vprintf(b, fmt, ap);
	va_end(ap);
	return ret;
}

void trev__buf_reset(struct trev_buf *b)
{
	b->len = 0;
	b->err = 0;
	if (b->data)
		b->data[0] = '\0';
}

char *trev__buf_detach(struct trev_buf *b)
{
	char *text;

	if (!b->err)
		trev__buf_reserve(b, 0);
	if (b->err) {
		trev__buf_free(b);
		return NULL;
	}
	text = b->data;
	trev__buf_init(b);
	return text;
}

void trev__buf_free(struct trev_buf *b)
{
	free(b->data);
	trev__buf_init(b);
}
