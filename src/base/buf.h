/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * struct trev_buf: the one growable byte buffer of the library and the trev
 * command, for text and bytes built piece by piece (tracefs files, format
 * texts, trace.dat sections, whole files read in). Nothing here depends on
 * the rest of trev.
 *
 * The bytes are always followed by a NUL, so a text can be used as a string
 * at any time. The first failure is kept: once a growth failed, every later
 * call does nothing and returns that error, so a builder may append many
 * pieces and look at the outcome once (as the kernel's seq_buf keeps its
 * overflow). The fixed-size trev_seq of <trev/trace_seq.h> stays what it is
 * in the kernel: one page, an overflow flag, no allocation.
 *
 * Context: any thread, not a signal handler (it allocates); a buffer has
 * one user at a time, whose lock, if any, is the caller's.
 */
#ifndef TREV_BASE_BUF_H
#define TREV_BASE_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

struct trev_buf {
	char *data;		/* @len bytes, then a NUL; NULL until the first growth */
	size_t len;		/* bytes used, not counting the NUL */
	size_t cap;		/* bytes allocated at @data */
	int err;		/* 0, or the first failure (-ENOMEM; -EINVAL from vsnprintf) */
};

#define TREV_BUF_INIT	{ NULL, 0, 0, 0 }

static inline void trev__buf_init(struct trev_buf *b)
{
	*b = (struct trev_buf)TREV_BUF_INIT;
}

/*
 * trev__buf_reserve() - make room for @more bytes after the used ones (and
 * the NUL), doubling the allocation. Return: 0, or the kept error.
 */
int trev__buf_reserve(struct trev_buf *b, size_t more);

/*
 * Reading into the buffer: after trev__buf_reserve(), up to
 * trev__buf_room() bytes may be written at @data + @len, then counted with
 * trev__buf_extend(), which puts the NUL after them.
 */
static inline size_t trev__buf_room(const struct trev_buf *b)
{
	return b->cap ? b->cap - b->len - 1 : 0;
}

void trev__buf_extend(struct trev_buf *b, size_t n);

int trev__buf_append_slow(struct trev_buf *b, const void *data, size_t len);

/*
 * Append bytes, a string, a character, formatted text. Return: 0, or the
 * kept error. Appending is inline while it fits: the trace text appends
 * each line it formats.
 */
static inline int trev__buf_append(struct trev_buf *b, const void *data, size_t len)
{
	/* Room for the bytes and the NUL; cap is 0 until the first growth. */
	if (len && len < b->cap - b->len && !b->err) {
		memcpy(b->data + b->len, data, len);
		b->len += len;
		b->data[b->len] = '\0';
		return 0;
	}
	return trev__buf_append_slow(b, data, len);
}

int trev__buf_puts(struct trev_buf *b, const char *s);
int trev__buf_putc(struct trev_buf *b, char c);
int trev__buf_printf(struct trev_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int trev__buf_vprintf(struct trev_buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* Empty @b and forget its error; the memory stays for reuse. */
void trev__buf_reset(struct trev_buf *b);

/*
 * trev__buf_detach() - hand the text over: a malloc'd, NUL-terminated
 * string ("" when nothing was added) that the caller frees; @b is left
 * empty. On a kept error the text is freed and NULL returned.
 */
char *trev__buf_detach(struct trev_buf *b);

void trev__buf_free(struct trev_buf *b);

#endif /* TREV_BASE_BUF_H */
