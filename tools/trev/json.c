/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* JSON text for trev convert --to json (json.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "json.h"

size_t trev_json_ts(char *buf, uint64_t ns)
{
	char tmp[TREV_JSON_TS_MAX], *p = tmp + sizeof(tmp);
	uint64_t us = ns / 1000;
	unsigned int frac = (unsigned int)(ns % 1000);
	size_t len;

	/* "%llu.%03u" of µs and ns, written here: a record's ts is in every JSON event. */
	*--p = (char)('0' + frac % 10);
	*--p = (char)('0' + frac / 10 % 10);
	*--p = (char)('0' + frac / 100);
	*--p = '.';
	do {
		*--p = (char)('0' + us % 10);
		us /= 10;
	} while (us);
	len = (size_t)(tmp + sizeof(tmp) - p);
	memcpy(buf, p, len);
	buf[len] = '\0';
	return len;
}

/*
 * The length of the well-formed UTF-8 sequence at @p (at most @n bytes), or
 * 0: overlong forms, surrogates and code points above U+10FFFF are not
 * well-formed (RFC 3629).
 */
static size_t json_utf8_len(const unsigned char *p, size_t n)
{
	unsigned int c = p[0];
	size_t len;
	unsigned int lo = 0x80, hi = 0xbf;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	/* The second byte's range rules out overlong forms, surrogates and > U+10FFFF. */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

void trev_json_str(struct trev_buf *b, const void *data, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = data;
	size_t n = strnlen(data, max), run = 0;

	trev__buf_putc(b, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		char esc[8];
		size_t len;

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			run++;
			i++;
			continue;
		}
		trev__buf_append(b, p + i - run, run);
		run = 0;
		if (c >= 0x80) {
			len = json_utf8_len(p + i, n - i);
			if (len) {
				trev__buf_append(b, p + i, len);
				i += len;
			} else {
				trev__buf_append(b, "\\ufffd", 6);
				i++;
			}
			continue;
		}
		switch (c) {
		case '"':  trev__buf_append(b, "\\\"", 2); break;
		case '\\': trev__buf_append(b, "\\\\", 2); break;
		case '\n': trev__buf_append(b, "\\n", 2); break;
		case '\t': trev__buf_append(b, "\\t", 2); break;
		case '\r': trev__buf_append(b, "\\r", 2); break;
		case '\b': trev__buf_append(b, "\\b", 2); break;
		case '\f': trev__buf_append(b, "\\f", 2); break;
		default:
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			trev__buf_append(b, esc, 6);
		}
		i++;
	}
	trev__buf_append(b, p + n - run, run);
	trev__buf_putc(b, '"');
}

void trev_json_cstr(struct trev_buf *b, const char *s)
{
	trev_json_str(b, s, strlen(s));
}

/* Decimal digits of @v, quoted when @quote. */
static void json_dec(struct trev_buf *b, uint64_t v, bool neg, bool quote)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	if (quote)
		*--p = '"';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg)
		*--p = '-';
	if (quote)
		*--p = '"';
	trev__buf_append(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

void trev_json_uint(struct trev_buf *b, uint64_t v)
{
	json_dec(b, v, false, v > TREV_JSON_INT_MAX);
}

void trev_json_int(struct trev_buf *b, int64_t v)
{
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;

	json_dec(b, mag, v < 0, mag > TREV_JSON_INT_MAX);
}

static void json_why(char *why, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void json_why(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (!why || !size)
		return;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

static uint64_t json_load(const uint8_t *p, unsigned int size, bool big)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < size; i++)
		v |= (uint64_t)p[big ? size - 1 - i : i] << (8 * i);
	return v;
}

/* One integer of @f's element size at @p, as @f says: signed, unsigned or "0x..". */
static void json_put_elem(struct trev_buf *b, const struct trev_ctf_field *f, const uint8_t *p,
			  bool big)
{
	uint64_t v = json_load(p, f->elem, big);
	char tmp[24];

	if (f->hex) {
		trev__buf_append(b, tmp, (size_t)snprintf(tmp, sizeof(tmp), "\"0x%" PRIx64 "\"", v));
	} else if (f->is_signed) {
		unsigned int shift = 64 - 8 * f->elem;

		/* Sign-extended through the unsigned type: no shift of a negative value. */
		trev_json_int(b, (int64_t)(shift ? (v ^ (1ull << (63 - shift))) -
						   (1ull << (63 - shift)) : v));
	} else {
		trev_json_uint(b, v);
	}
}

static void json_put_array(struct trev_buf *b, const struct trev_ctf_field *f, const uint8_t *p,
			   size_t count, bool big)
{
	trev__buf_putc(b, '[');
	for (size_t i = 0; i < count; i++) {
		if (i)
			trev__buf_putc(b, ',');
		json_put_elem(b, f, p + i * f->elem, big);
	}
	trev__buf_putc(b, ']');
}

/* Where a __data_loc/__rel_loc field's data lies: 0, or -EINVAL + @why. */
static int json_dyn_span(const struct trev_ctf_field *f, const char *name, const uint8_t *rec,
			 size_t size, bool big, size_t *off, size_t *len, char *why, size_t why_size)
{
	uint32_t loc = (uint32_t)json_load(rec + f->offset, 4, big);

	*off = (loc & 0xffff) + (f->relative ? f->offset + 4u : 0u);
	*len = loc >> 16;
	if (*off > size || *len > size - *off) {
		json_why(why, why_size, "field %s: its data at %zu, %zu bytes, is outside the "
			 "record (%zu bytes)", name, *off, *len, size);
		return -EINVAL;
	}
	return 0;
}

int trev_json_fields(struct trev_buf *b, const struct trev_ctf_field *fields,
		     const char *const *names, unsigned int nr, const uint8_t *rec, size_t size,
		     bool big, char *why, size_t why_size)
{
	size_t off, len;

	/* Every field inside the record before anything is appended. */
	for (unsigned int i = 0; i < nr; i++) {
		const struct trev_ctf_field *f = &fields[i];

		if (f->offset > size || f->size > size - f->offset) {
			json_why(why, why_size, "field %s at %u, %u bytes, is outside the record "
				 "(%zu bytes)", names[i], f->offset, f->size, size);
			return -EINVAL;
		}
		if ((f->kind == TREV_CTF_DYN_STR || f->kind == TREV_CTF_DYN_ARRAY) &&
		    json_dyn_span(f, names[i], rec, size, big, &off, &len, why, why_size))
			return -EINVAL;
	}
	for (unsigned int i = 0; i < nr; i++) {
		const struct trev_ctf_field *f = &fields[i];
		const uint8_t *p = rec + f->offset;

		if (i)
			trev__buf_putc(b, ',');
		trev_json_cstr(b, names[i]);
		trev__buf_putc(b, ':');
		switch (f->kind) {
		case TREV_CTF_INT:
			json_put_elem(b, f, p, big);
			break;
		case TREV_CTF_ARRAY:
			json_put_array(b, f, p, f->count, big);
			break;
		case TREV_CTF_STR:
			trev_json_str(b, p, f->size);
			break;
		case TREV_CTF_DYN_STR:
		case TREV_CTF_DYN_ARRAY:
			json_dyn_span(f, names[i], rec, size, big, &off, &len, NULL, 0);
			if (f->kind == TREV_CTF_DYN_STR)
				trev_json_str(b, rec + off, len);
			else
				json_put_array(b, f, rec + off, len / f->elem, big);
			break;
		case TREV_CTF_TAIL_STR:
			trev_json_str(b, p, size - f->offset);
			break;
		case TREV_CTF_TAIL_ARRAY:
			json_put_array(b, f, p, (size - f->offset) / f->elem, big);
			break;
		}
	}
	return 0;
}
