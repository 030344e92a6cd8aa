/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the two halves of trace_printk()'s binary arguments share (the
 * layout and the differences from the kernel: bprint.c's top comment): the
 * decoder of a format, the text writer and the record-time %p texts, in
 * src/output (bprint.c, which formats at read time); the saving at record
 * time is the write path's (src/write/bprint_save.c), above it.
 */
#ifndef TREV_BPRINT_INTERNAL_H
#define TREV_BPRINT_INTERNAL_H

#include <stddef.h>

/* Number flags, as the kernel's vsprintf. */
#define BP_SIGN		1	/* signed conversion */
#define BP_LEFT		2	/* '-' */
#define BP_PLUS		4	/* '+' */
#define BP_SPACE	8	/* ' ' */
#define BP_ZEROPAD	16	/* '0' */
#define BP_SMALL	32	/* lower-case hex */
#define BP_SPECIAL	64	/* '#' */

#define BP_WIDTH_MAX	((1 << 23) - 1)	/* the kernel's FIELD_WIDTH_MAX */
#define BP_PREC_MAX	((1 << 15) - 1)	/* the kernel's PRECISION_MAX */
#define BP_PAGE_SIZE	4096ul		/* below it a pointer is "(efault)" */
#define BP_MAX_ERRNO	4095ul		/* the kernel's IS_ERR_VALUE() range */

enum bp_type {
	BP_END,		/* end of the format */
	BP_TEXT,	/* literal text */
	BP_PERCENT,	/* %% */
	BP_NUM,		/* d i u o x X */
	BP_CHAR,	/* c */
	BP_STR,		/* s */
	BP_PTR,		/* p and its extension letters */
	BP_INVALID,	/* anything else: the kernel stops here */
};

/* One piece of a format, as the kernel's format_decode() splits it. */
struct bp_conv {
	enum bp_type type;
	const char *text;	/* BP_TEXT: the text; BP_PTR: the letters after 'p' */
	size_t len;		/* BP_TEXT: its length */
	unsigned int flags;	/* BP_* flags */
	int width;		/* -1: none */
	int precision;		/* -1: none */
	unsigned char width_star;	/* the width is an argument */
	unsigned char prec_star;	/* the precision is an argument */
	unsigned char width_star_p;	/* 'p' follows the width's '*' */
	unsigned char prec_star_p;	/* 'p' follows the precision's '*' */
	unsigned char size;	/* BP_NUM: argument size, 1, 2, 4 or 8 */
	unsigned char base;	/* BP_NUM: 8, 10 or 16 */
	unsigned char qualifier;	/* length letter; 'H' for hh, 'L' for ll */
};

static inline int bp_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

static inline int bp_isalnum(char c)
{
	return bp_isdigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* A '*' width, as the kernel's set_field_width() clamps it. */
static inline int bp_clamp_width(int v)
{
	return v < -BP_WIDTH_MAX ? -BP_WIDTH_MAX : v > BP_WIDTH_MAX ? BP_WIDTH_MAX : v;
}

/* A %p whose pointer is saved and formatted at read time (kernel 6.1: S s x K e). */
static inline int bp_ptr_at_read(const struct bp_conv *c)
{
	switch (c->text[0]) {
	case 'S':
	case 's':
	case 'x':
	case 'K':
	case 'e':
		return 1;
	}
	return !bp_isalnum(c->text[0]);
}

/* Text output: the kernel's buf/end writers, counting past the end. */
struct bp_out {
	char *buf;
	size_t cap;		/* bytes that may be written at buf */
	size_t pos;		/* bytes produced, written or not */
};

/*
 * trev__bp_decode() - decode the piece of @fmt at its start into @c; return
 * the format after it. As the kernel's format_decode(), including its
 * quirks: '.' alone is no precision, "hh" and "ll" are the only doubled
 * lengths, and a conversion letter it does not know is BP_INVALID.
 */
const char *trev__bp_decode(const char *fmt, struct bp_conv *c);

/* The kernel's check_pointer_msg(): "(null)" or "(efault)" for a bad @ptr, else NULL. */
const char *trev__bp_bad_pointer(const void *ptr);

/*
 * trev__bp_pointer_record() - a record-time %p<letters> into @o, as the
 * kernel's pointer(), except %pB: its address is kept as text and looked up
 * at read time.
 */
void trev__bp_pointer_record(struct bp_out *o, const void *ptr, const struct bp_conv *c);

#endif /* TREV_BPRINT_INTERNAL_H */
