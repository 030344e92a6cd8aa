/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An event's print fmt as steps (print_fmt.h): the format is cut as
 * libtraceevent 1.7.1 cuts it (literal runs with their escapes, one
 * conversion per argument), each conversion bound to its field once, so a
 * record costs a few reads and appends instead of libtraceevent's walk of
 * the argument tree and a vsnprintf() per piece. Only the parts whose text
 * is certain are compiled: numbers of a field (%d %u %x ..., any width or
 * flags through snprintf() with libtraceevent's cast), strings (__get_str,
 * char arrays) and __print_flags/__print_symbolic of a field, with a plain
 * %s. Anything else leaves the whole event to tep_print_event().
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "print_fmt.h"

enum pf_kind {
	PF_TEXT,	/* literal text */
	PF_NUM,		/* a number field, by a %d-like conversion */
	PF_STR_DYN,	/* a __data_loc (or __rel_loc) string field, %s */
	PF_STR_ARRAY,	/* a char array field, %s */
	PF_FLAGS,	/* __print_flags(field, delim, ...), %s */
	PF_SYMBOL,	/* __print_symbolic(field, ...), %s */
};

/* One value of __print_flags or __print_symbolic. */
struct pf_sym {
	long long val;		/* as libtraceevent's eval_flag() reads it */
	const char *str;	/* libtraceevent's string (lives as long as the tep handle) */
	size_t len;
};

struct pf_step {
	enum pf_kind kind;
	char *text;		/* PF_TEXT: the text; PF_NUM: the conversion ("%08lx") */
	size_t len;		/* PF_TEXT: its length */
	char conv;		/* PF_NUM: d i u x X o */
	int ls;			/* PF_NUM: length modifier as libtraceevent counts it (-2..2) */
	bool plain;		/* PF_NUM: no width, precision or flag: printed here */
	int offset, size;	/* the field */
	bool relative;		/* PF_STR_DYN: __rel_loc */
	const char *delim;	/* PF_FLAGS: between flags, or NULL */
	struct pf_sym *syms;	/* PF_FLAGS, PF_SYMBOL */
	unsigned int nr_syms;
};

struct trev_pfmt {
	struct tep_handle *tep;
	struct pf_step *steps;
	unsigned int nr;
};

void trev_pfmt_free(struct trev_pfmt *f)
{
	if (!f)
		return;
	for (unsigned int i = 0; i < f->nr; i++) {
		free(f->steps[i].text);
		free(f->steps[i].syms);
	}
	free(f->steps);
	free(f);
}

static struct pf_step *pf_add(struct trev_pfmt *f, enum pf_kind kind)
{
	struct pf_step *s = realloc(f->steps, (f->nr + 1) * sizeof(*s));

	if (!s)
		return NULL;
	f->steps = s;
	s = &f->steps[f->nr++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	return s;
}

/*
 * A literal run from @p: up to a '%' that starts a conversion, "%%" as '%',
 * and the escapes libtraceevent's parse_arg_string() knows. Return: the
 * characters taken, or -1 (out of memory, or a '\' that ends the format).
 */
static int pf_text(struct trev_pfmt *f, const char *p)
{
	const char *start = p;
	struct pf_step *s;
	char *t = malloc(strlen(p) + 1);
	size_t n = 0;

	if (!t)
		return -1;
	for (; *p; p++) {
		if (*p == '\\') {
			switch (*++p) {
			case 'n':  t[n++] = '\n'; break;
			case 't':  t[n++] = '\t'; break;
			case 'r':  t[n++] = '\r'; break;
			case '\0': free(t); return -1;
			default:   t[n++] = *p; break;
			}
		} else if (*p == '%') {
			if (p[1] != '%')
				break;
			t[n++] = '%';
			p++;
		} else {
			t[n++] = *p;
		}
	}
	s = pf_add(f, PF_TEXT);
	if (!s) {
		free(t);
		return -1;
	}
	s->text = t;
	s->len = n;
	return (int)(p - start);
}

/* A number field @arg names (not a cast, an operation or a helper), or NULL. */
static struct tep_format_field *pf_num_field(struct tep_event *ev, struct tep_print_arg *arg)
{
	struct tep_format_field *field;

	if (!arg || arg->type != TEP_PRINT_FIELD)
		return NULL;
	field = arg->field.field ? arg->field.field : tep_find_any_field(ev, arg->field.name);
	if (!field || field->offset < 0 || field->size <= 0)
		return NULL;
	return field;
}

/* The values of __print_flags/__print_symbolic, when each is a number. Return: 0 or -1. */
static int pf_syms(struct pf_step *s, struct tep_print_flag_sym *list)
{
	unsigned int n = 0;

	for (struct tep_print_flag_sym *fs = list; fs; fs = fs->next)
		n++;
	s->syms = calloc(n ? n : 1, sizeof(*s->syms));
	if (!s->syms)
		return -1;
	for (struct tep_print_flag_sym *fs = list; fs; fs = fs->next) {
		/* eval_flag() reads digits as a number; names come from a table of its own. */
		if (!fs->value || !fs->str || !isdigit((unsigned char)fs->value[0]))
			return -1;
		s->syms[s->nr_syms++] = (struct pf_sym){
			(long long)strtoull(fs->value, NULL, 0), fs->str, strlen(fs->str)
		};
	}
	return 0;
}

/* A %s conversion of @arg. Return: 0 or -1 (not one compiled here). */
static int pf_string(struct trev_pfmt *f, struct tep_event *ev, struct tep_print_arg *arg)
{
	struct tep_format_field *field;
	struct pf_step *s;

	switch (arg->type) {
	case TEP_PRINT_STRING:
		field = arg->string.field ? arg->string.field :
			tep_find_any_field(ev, arg->string.string);
		if (!field || field->size != 4 || field->offset < 0)
			return -1;
		s = pf_add(f, PF_STR_DYN);
		if (!s)
			return -1;
		s->relative = field->flags & TEP_FIELD_IS_RELATIVE;
		break;
	case TEP_PRINT_FIELD:
		field = arg->field.field ? arg->field.field :
			tep_find_any_field(ev, arg->field.name);
		/* Not an array: libtraceevent prints it as a pointer. */
		if (!field || !(field->flags & TEP_FIELD_IS_ARRAY) || field->size <= 0 ||
		    field->offset < 0)
			return -1;
		s = pf_add(f, PF_STR_ARRAY);
		if (!s)
			return -1;
		break;
	case TEP_PRINT_FLAGS:
	case TEP_PRINT_SYMBOL:
		field = pf_num_field(ev, arg->type == TEP_PRINT_FLAGS ? arg->flags.field :
				     arg->symbol.field);
		if (!field)
			return -1;
		s = pf_add(f, arg->type == TEP_PRINT_FLAGS ? PF_FLAGS : PF_SYMBOL);
		if (!s)
			return -1;
		if (arg->type == TEP_PRINT_FLAGS)
			s->delim = arg->flags.delim;
		if (pf_syms(s, arg->type == TEP_PRINT_FLAGS ? arg->flags.flags :
			    arg->symbol.symbols))
			return -1;
		break;
	default:
		return -1;
	}
	s->offset = field->offset;
	s->size = field->size;
	return 0;
}

/*
 * A conversion at @p ('%'), of the argument *@arg (then the next one), as
 * libtraceevent's parse_arg_format() reads it. Return: the characters
 * taken, or -1 for one not compiled here.
 */
static int pf_conv(struct trev_pfmt *f, struct tep_event *ev, const char *p,
		   struct tep_print_arg **arg)
{
	struct tep_format_field *field;
	bool plain = true;
	struct pf_step *s;
	int ls = 0;
	size_t n;

	for (n = 1; p[n]; n++) {
		switch (p[n]) {
		case 'h':
			ls--;
			plain = false;
			continue;
		case 'l':
			ls++;
			continue;
		case '#': case '.': case '-': case '0' ... '9':
			plain = false;
			continue;
		case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
			break;
		case 's':
			/* Only a plain %s: no width, no precision. */
			if (n != 1 || !*arg || pf_string(f, ev, *arg))
				return -1;
			*arg = (*arg)->next;
			return 2;
		default:	/* p, *, z, L, c and the rest: libtraceevent's own ways */
			return -1;
		}
		break;
	}
	if (!p[n] || n + 1 > 30 || ls < -2 || ls > 2)
		return -1;
	field = pf_num_field(ev, *arg);
	if (!field)
		return -1;
	s = pf_add(f, PF_NUM);
	if (!s)
		return -1;
	s->text = strndup(p, n + 1);
	if (!s->text)
		return -1;
	s->conv = p[n];
	s->ls = ls;
	s->plain = plain && p[n] != 'X' && p[n] != 'o';
	s->offset = field->offset;
	s->size = field->size;
	*arg = (*arg)->next;
	return (int)n + 1;
}

struct trev_pfmt *trev_pfmt_compile(struct tep_event *ev)
{
	struct tep_print_arg *arg = ev->print_fmt.args;
	const char *p = ev->print_fmt.format;
	struct trev_pfmt *f;

	/* What tep_print_event() does otherwise: handlers, raw, bprint, a failed parse. */
	if (!p || !*p || ev->handler ||
	    (ev->flags & (TEP_EVENT_FL_ISBPRINT | TEP_EVENT_FL_FAILED | TEP_EVENT_FL_PRINTRAW)))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->tep = ev->tep;
	while (*p) {
		int n;

		/* A '%' that ends the format prints nothing in libtraceevent: left to it. */
		if (*p == '%' && p[1] != '%')
			n = p[1] ? pf_conv(f, ev, p, &arg) : -1;
		else
			n = pf_text(f, p);
		if (n <= 0) {
			trev_pfmt_free(f);
			return NULL;
		}
		p += n;
	}
	return f;
}

/* ------------------------------------------------------------------ */
/* Printing                                                             */

static int pf_udec(struct trev_buf *out, unsigned long long v)
{
	char b[24], *e = b + sizeof(b), *q = e;

	do {
		*--q = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return trev__buf_append(out, q, (size_t)(e - q));
}

static int pf_dec(struct trev_buf *out, long long v)
{
	if (v >= 0)
		return pf_udec(out, (unsigned long long)v);
	if (trev__buf_append(out, "-", 1))
		return out->err;
	return pf_udec(out, 0ull - (unsigned long long)v);
}

static int pf_hex(struct trev_buf *out, unsigned long long v)
{
	static const char digits[] = "0123456789abcdef";
	char b[16], *e = b + sizeof(b), *q = e;

	do {
		*--q = digits[v & 15];
		v >>= 4;
	} while (v);
	return trev__buf_append(out, q, (size_t)(e - q));
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
/* A number as print_arg_number() prints it: cast by the length modifier, then the format. */
static int pf_num(struct trev_buf *out, const struct pf_step *s, unsigned long long val)
{
	if (s->plain) {
		switch (s->conv) {
		case 'd':
		case 'i':
			return pf_dec(out, s->ls == 0 ? (long long)(int)val : (long long)val);
		case 'u':
			return pf_udec(out, s->ls == 0 ? (unsigned int)val : val);
		default:	/* 'x' */
			return pf_hex(out, s->ls == 0 ? (unsigned int)val : val);
		}
	}
	switch (s->ls) {
	case -2:
		return trev__buf_printf(out, s->text, (char)val);
	case -1:
		return trev__buf_printf(out, s->text, (short)val);
	case 0:
		return trev__buf_printf(out, s->text, (int)val);
	case 1:
		return trev__buf_printf(out, s->text, (long)val);
	default:
		return trev__buf_printf(out, s->text, (long long)val);
	}
}
#pragma GCC diagnostic pop

/* __print_flags as print_str_arg() prints it. */
static int pf_flags(struct trev_buf *out, const struct pf_step *s, long long val)
{
	bool print = false;

	for (unsigned int i = 0; i < s->nr_syms; i++) {
		long long fval = s->syms[i].val;

		if (!val && fval < 0) {
			trev__buf_append(out, s->syms[i].str, s->syms[i].len);
			break;
		}
		if (fval > 0 && (val & fval) == fval) {
			if (print && s->delim)
				trev__buf_puts(out, s->delim);
			trev__buf_append(out, s->syms[i].str, s->syms[i].len);
			print = true;
			val &= ~fval;
		}
	}
	if (val) {
		if (print && s->delim)
			trev__buf_puts(out, s->delim);
		trev__buf_append(out, "0x", 2);
		pf_hex(out, (unsigned long long)val);
	}
	return out->err;
}

static int pf_symbol(struct trev_buf *out, const struct pf_step *s, long long val)
{
	for (unsigned int i = 0; i < s->nr_syms; i++)
		if (val == s->syms[i].val)
			return trev__buf_append(out, s->syms[i].str, s->syms[i].len);
	trev__buf_append(out, "0x", 2);
	return pf_hex(out, (unsigned long long)val);
}

int trev_pfmt_print(const struct trev_pfmt *f, const struct tep_record *rec,
		    struct trev_buf *out)
{
	const char *data = rec->data;
	size_t start = out->len;
	int size = rec->size;

	for (unsigned int i = 0; i < f->nr; i++) {
		const struct pf_step *s = &f->steps[i];
		unsigned long long val = 0;
		unsigned int off, len;
		const char *str, *nul;

		if (s->kind != PF_TEXT && s->offset + s->size > size)
			goto out_leave;	/* libtraceevent warns and prints 0 */
		if (s->kind != PF_TEXT && s->kind != PF_STR_ARRAY)
			val = tep_read_number(f->tep, data + s->offset, s->size);
		switch (s->kind) {
		case PF_TEXT:
			trev__buf_append(out, s->text, s->len);
			break;
		case PF_NUM:
			pf_num(out, s, val);
			break;
		case PF_STR_DYN:
			/* dynamic_offset_field(): a string out of the record is empty. */
			off = (unsigned int)(val & 0xffff);
			len = (unsigned int)(val >> 16);
			if (off + len > (unsigned int)size)
				len = 0;
			if (off > (unsigned int)size)
				off = 0;
			if (s->relative)
				off += (unsigned int)(s->offset + s->size);
			if (!len)
				break;
			/* Its NUL must be inside the record; else libtraceevent reads on. */
			if (off >= (unsigned int)size)
				goto out_leave;
			str = data + off;
			nul = memchr(str, '\0', (size_t)size - off);
			if (!nul)
				goto out_leave;
			trev__buf_append(out, str, (size_t)(nul - str));
			break;
		case PF_STR_ARRAY:
			str = data + s->offset;
			trev__buf_append(out, str, strnlen(str, (size_t)s->size));
			break;
		case PF_FLAGS:
			pf_flags(out, s, (long long)val);
			break;
		case PF_SYMBOL:
			pf_symbol(out, s, (long long)val);
			break;
		}
	}
	return out->err;
out_leave:
	out->len = start;
	if (out->data)
		out->data[start] = '\0';
	return 1;
}
