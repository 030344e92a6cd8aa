/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace_printk()'s binary arguments at record time: the kernel's
 * vbin_printf(), a format compiled once per call site
 * (trev__bprint_compile()) and its arguments saved into the u32 buf[] of an
 * ftrace:bprint record (trev__bprint_save()), in the layout and with the
 * differences from the kernel that src/output/bprint.c describes; reading
 * them back (bstr_printf()) is bprint.c's. The format decoder and the
 * record-time %p texts are shared with it (output/bprint_internal.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "output/bprint.h"
#include "output/bprint_internal.h"
#include "write/bprint_save.h"

/* How one argument is saved: the code of each argument in a spec. */
enum {
	BP_ARG_1 = 1,	/* char: 1 byte */
	BP_ARG_2,	/* short: 2 bytes, 2-aligned */
	BP_ARG_4,	/* int: 4 bytes, 4-aligned */
	BP_ARG_8,	/* long long: 8 bytes, 4-aligned */
	BP_ARG_STR,	/* string, copied with its NUL */
};

#define BP_MAX_CODES	56

/* A compiled format: the code of each argument, two per byte. */
struct bp_spec {
	const char *fmt;	/* the format, for the slow path */
	uint8_t nargs;		/* arguments in @codes */
	uint8_t slow;		/* save by walking @fmt: record-time %p, or too many arguments */
	uint8_t all_int;	/* every argument is BP_ARG_4: words = nargs */
	uint8_t reserved;
	uint8_t codes[BP_MAX_CODES / 2];	/* argument i: (codes[i / 2] >> 4 * (i % 2)) & 15 */
};

_Static_assert(sizeof(struct bp_spec) <= TREV_BPRINT_SPEC_SIZE, "spec does not fit");
_Static_assert(_Alignof(struct bp_spec) <= 8, "spec needs more than 8-byte alignment");

static inline unsigned int bp_code_of(unsigned int size)
{
	switch (size) {
	case 1:
		return BP_ARG_1;
	case 2:
		return BP_ARG_2;
	case 4:
		return BP_ARG_4;
	}
	return BP_ARG_8;
}

static void bp_spec_add(struct bp_spec *sp, unsigned int code)
{
	if (sp->nargs == BP_MAX_CODES) {
		sp->slow = 1;
		return;
	}
	sp->codes[sp->nargs / 2] |= (uint8_t)(code << 4 * (sp->nargs % 2));
	if (code != BP_ARG_4)
		sp->all_int = 0;
	sp->nargs++;
}

/**
 * trev__bprint_compile() - prepare a format for trev__bprint_save()
 * @fmt: a printf format, with the kernel's conversions; must outlive @spec
 * @spec: TREV_BPRINT_SPEC_SIZE bytes, 8-byte aligned
 *
 * Records how each argument is saved, so that saving does not parse @fmt
 * (except for record-time %p extensions and more than 56 arguments).
 *
 * Context: any thread; async-signal-safe.
 * Return: 0, or -EINVAL when @fmt has a conversion vbin_printf() cannot save
 * (floating point, %n, %ls, an unknown letter, a lone '%' at the end): the
 * caller then formats the text at record time instead.
 */
int trev__bprint_compile(const char *fmt, void *spec)
{
	struct bp_spec *sp = spec;
	struct bp_conv c;

	memset(sp, 0, sizeof(*sp));
	if (!fmt)
		return -EINVAL;
	sp->fmt = fmt;
	sp->all_int = 1;
	for (;;) {
		fmt = trev__bp_decode(fmt, &c);
		if (c.type == BP_END)
			return 0;
		if (c.type == BP_INVALID)
			return -EINVAL;
		if (c.width_star)
			bp_spec_add(sp, BP_ARG_4);
		if (c.prec_star)
			bp_spec_add(sp, BP_ARG_4);
		switch (c.type) {
		case BP_NUM:
			bp_spec_add(sp, bp_code_of(c.size));
			break;
		case BP_CHAR:
			bp_spec_add(sp, BP_ARG_1);
			break;
		case BP_STR:
			if (c.qualifier == 'l')
				return -EINVAL;
			bp_spec_add(sp, BP_ARG_STR);
			break;
		case BP_PTR:
			if (!bp_ptr_at_read(&c))
				sp->slow = 1;
			bp_spec_add(sp, bp_code_of(sizeof(void *)));
			break;
		default:
			break;
		}
	}
}

/* The writer of one save: a byte area and the offset reached. */
struct bp_save {
	unsigned char *buf;
	size_t cap;		/* bytes in @buf */
	size_t off;		/* bytes used, written or not */
};

/* Store @n bytes at the next multiple of @align; the gap is zeroed, not left stale. */
static inline void save_bytes(struct bp_save *w, size_t align, const void *v, size_t n)
{
	size_t off = (w->off + align - 1) & ~(align - 1);

	if (off + n <= w->cap) {
		while (w->off < off)
			w->buf[w->off++] = 0;
		memcpy(w->buf + off, v, n);
	}
	w->off = off + n;
}

static inline void save_int(struct bp_save *w, int v)
{
	uint32_t u = (uint32_t)v;

	save_bytes(w, 4, &u, 4);
}

static void save_str(struct bp_save *w, const char *s)
{
	const char *bad = trev__bp_bad_pointer(s);
	size_t len;

	if (bad)
		s = bad;
	len = strlen(s) + 1;
	save_bytes(w, 1, s, len);
}

/*
 * One argument by its code; @ap is a va_list lvalue. A macro, not a function
 * taking a va_list *, so that the fast path needs no va_copy().
 */
#define BP_SAVE_ARG(w, code, ap)						\
	do {									\
		switch (code) {							\
		case BP_ARG_1: {						\
			unsigned char v_ = (unsigned char)va_arg(ap, int);	\
										\
			save_bytes(w, 1, &v_, 1);				\
			break;							\
		}								\
		case BP_ARG_2: {						\
			unsigned short v_ = (unsigned short)va_arg(ap, int);	\
										\
			save_bytes(w, 2, &v_, 2);				\
			break;							\
		}								\
		case BP_ARG_4:							\
			save_int(w, va_arg(ap, int));				\
			break;							\
		case BP_ARG_8: {						\
			unsigned long long v_ = va_arg(ap, unsigned long long);	\
										\
			save_bytes(w, 4, &v_, 8);				\
			break;							\
		}								\
		case BP_ARG_STR:						\
			save_str(w, va_arg(ap, const char *));			\
			break;							\
		}								\
	} while (0)

/* The record-time text of a %p<letters>, then its NUL. */
static void save_ptr_text(struct bp_save *w, const void *ptr, const struct bp_conv *c)
{
	struct bp_out o = {
		.buf = (char *)w->buf + w->off,
		.cap = w->off < w->cap ? w->cap - w->off : 0,
	};

	trev__bp_pointer_record(&o, ptr, c);
	w->off += o.pos;
	if (w->off < w->cap)
		w->buf[w->off] = '\0';
	w->off++;
}

/* vbin_printf() itself: walk the format. */
static void bp_save_slow(struct bp_save *w, const char *fmt, va_list *ap)
{
	struct bp_conv c;

	for (;;) {
		fmt = trev__bp_decode(fmt, &c);
		if (c.type == BP_END || c.type == BP_INVALID)
			return;
		if (c.type == BP_TEXT || c.type == BP_PERCENT)
			continue;
		/*
		 * vbin_printf() keeps a '*' value as the field width only where
		 * 'p' follows the '*' (a record-time %p needs it): a width it did
		 * not keep becomes 1, left-justified; a precision becomes 0.
		 */
		if (c.width_star) {
			int v = bp_clamp_width(va_arg(*ap, int));

			save_int(w, v);
			c.width = c.width_star_p ? v : -1;
			if (c.width < 0) {
				c.width = -c.width;
				c.flags |= BP_LEFT;
			}
		}
		if (c.prec_star) {
			int v = va_arg(*ap, int);

			save_int(w, v);
			if (c.prec_star_p)
				c.width = bp_clamp_width(v);
			c.precision = 0;
		}
		switch (c.type) {
		case BP_NUM:
			BP_SAVE_ARG(w, bp_code_of(c.size), *ap);
			break;
		case BP_CHAR:
			BP_SAVE_ARG(w, BP_ARG_1, *ap);
			break;
		case BP_STR:
			BP_SAVE_ARG(w, BP_ARG_STR, *ap);
			break;
		case BP_PTR:
			if (bp_ptr_at_read(&c))
				BP_SAVE_ARG(w, bp_code_of(sizeof(void *)), *ap);
			else
				save_ptr_text(w, va_arg(*ap, const void *), &c);
			break;
		default:
			break;
		}
	}
}

/**
 * trev__bprint_save() - save the arguments of a format as vbin_printf() does
 * @buf: the argument area, @words u32
 * @words: its size
 * @spec: from trev__bprint_compile()
 * @ap: the arguments of the format
 *
 * Lays the arguments out as the kernel's vbin_printf() (see the table at the
 * top of this file). Like it, an argument that does not fit is not written but
 * still counted, so the return value says how much room the record needed.
 *
 * Context: any thread; async-signal-safe: no allocation, no lock. Reads the
 * strings and the record-time %p arguments the caller passed.
 * Return: the words the arguments take, the last one padded. More than @words
 * means they did not fit: @buf is then not a valid record and the record is
 * to be dropped, as the kernel's trace_vbprintk() drops it.
 */
int trev__bprint_int_args(const void *spec)
{
	const struct bp_spec *sp = spec;

	return sp->all_int && !sp->slow ? (int)sp->nargs : -1;
}

size_t trev__bprint_save(uint32_t *buf, size_t words, const void *spec, va_list ap)
{
	const struct bp_spec *sp = spec;
	struct bp_save w = { .buf = (unsigned char *)buf, .cap = words * 4 };

	if (trev_likely(sp->all_int && !sp->slow)) {
		size_t n = sp->nargs;

		for (size_t i = 0; i < n; i++) {
			int v = va_arg(ap, int);

			if (i < words)
				buf[i] = (uint32_t)v;
		}
		return n;
	}
	if (trev_unlikely(sp->slow)) {
		va_list aq;

		va_copy(aq, ap);
		bp_save_slow(&w, sp->fmt, &aq);
		va_end(aq);
	} else {
		for (unsigned int i = 0; i < sp->nargs; i++)
			BP_SAVE_ARG(&w, (sp->codes[i / 2] >> 4 * (i % 2)) & 15, ap);
	}
	for (size_t end = (w.off + 3) & ~(size_t)3; w.off < end && w.off < w.cap; w.off++)
		w.buf[w.off] = 0;
	return (w.off + 3) / 4;
}
