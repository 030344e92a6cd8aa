/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which fields of an event its print fmt prints as code addresses (%pS
 * %ps %pB %pF %pf, any letters after), read from its format text: the
 * trace.dat writer puts the functions that hold their values in kallsyms,
 * so that readers print names, as trev's own `trace` text does.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tracedat_internal.h"

#define CF_MAX_CODE_ARGS 32	/* code-address arguments looked at per event */

/* One field line of a format: "\tfield:TYPE NAME;\toffset:N;\tsize:N;..." */
struct cf_field {
	const char *name;	/* in the format text */
	size_t name_len;
	unsigned long offset, size;
	bool scalar;		/* neither an array nor __data_loc / __rel_loc */
};

static const char *cf_skip_space(const char *p, const char *end)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p;
}

static bool cf_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The value after "@key:" in [@p, @end), or false. */
static bool cf_number_after(const char *p, const char *end, const char *key, unsigned long *v)
{
	size_t klen = strlen(key);
	char *num_end;

	for (; p + klen < end; p++) {
		if (!memcmp(p, key, klen)) {
			*v = strtoul(p + klen, &num_end, 10);
			return num_end > p + klen && num_end <= end;
		}
	}
	return false;
}

/* Parse the field line in [@p, @end) ("field:" already at @p). */
static bool cf_parse_field(const char *p, const char *end, struct cf_field *f)
{
	const char *decl = p + strlen("field:"), *semi = memchr(decl, ';', (size_t)(end - decl));
	const char *q;

	if (!semi)
		return false;
	memset(f, 0, sizeof(*f));
	f->scalar = strncmp(decl, "__data_loc", 10) && strncmp(decl, "__rel_loc", 9);
	q = semi;
	while (q > decl && isspace((unsigned char)q[-1]))
		q--;
	if (q > decl && q[-1] == ']') {		/* NAME[N] */
		f->scalar = false;
		while (q > decl && q[-1] != '[')
			q--;
		if (q > decl)
			q--;
	}
	while (q > decl && cf_ident_char(q[-1]))
		q--, f->name_len++;
	f->name = q;
	return f->name_len && cf_number_after(semi, end, "offset:", &f->offset) &&
	       cf_number_after(semi, end, "size:", &f->size);
}

/* The field named [@name, +@len) among the format's lines, or false. */
static bool cf_find_field(const char *format, const char *name, size_t len, struct cf_field *out)
{
	const char *line, *next;

	for (line = format; *line; line = next) {
		const char *end = strchr(line, '\n'), *p;

		next = end ? end + 1 : line + strlen(line);
		if (!end)
			end = next;
		p = cf_skip_space(line, end);
		if ((size_t)(end - p) > 6 && !memcmp(p, "field:", 6) && cf_parse_field(p, end, out) &&
		    out->name_len == len && !memcmp(out->name, name, len))
			return true;
		if ((size_t)(end - p) >= 10 && !memcmp(p, "print fmt:", 10))
			break;
	}
	return false;
}

/*
 * One printf conversion starting after its '%' at @p: how many arguments it
 * takes (@nargs, 0 for "%%") and whether it prints a code address; returns
 * the position after it.
 */
static const char *cf_conversion(const char *p, const char *end, int *nargs, bool *code)
{
	*nargs = 0;
	*code = false;
	if (p < end && *p == '%')
		return p + 1;
	while (p < end && strchr("-+ #0'", *p))
		p++;
	if (p < end && *p == '*')
		p++, (*nargs)++;
	while (p < end && isdigit((unsigned char)*p))
		p++;
	if (p < end && *p == '.') {
		p++;
		if (p < end && *p == '*')
			p++, (*nargs)++;
		while (p < end && isdigit((unsigned char)*p))
			p++;
	}
	while (p < end && strchr("hlLqjzZt", *p))
		p++;
	if (p >= end || *p == '"')	/* a '%' that ends the string: nothing */
		return p;
	(*nargs)++;
	if (*p == 'p' && p + 1 < end && p[1] && strchr("SsBFf", p[1]))
		*code = true;
	return p + 1;
}

/* The end of the argument that starts at @p: a top-level ',' or @end. */
static const char *cf_arg_end(const char *p, const char *end)
{
	int depth = 0;

	for (; p < end; p++) {
		if (*p == '"' || *p == '\'') {
			char quote = *p;

			for (p++; p < end && *p != quote; p++)
				if (*p == '\\')
					p++;
		} else if (strchr("([{", *p)) {
			depth++;
		} else if (strchr(")]}", *p)) {
			depth--;
		} else if (*p == ',' && depth == 0) {
			return p;
		}
	}
	return end;
}

/* The ')' matching the '(' at @p, or NULL. */
static const char *cf_close_paren(const char *p, const char *end)
{
	int depth = 0;

	for (; p < end; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth == 0)
			return p;
	}
	return NULL;
}

/*
 * If the argument [@p, @end) is a field alone ("REC->name", in parentheses
 * or after casts), its name; else NULL.
 */
static const char *cf_arg_field(const char *p, const char *end, size_t *len)
{
	for (;;) {
		const char *close;

		p = cf_skip_space(p, end);
		while (end > p && isspace((unsigned char)end[-1]))
			end--;
		if (p >= end || *p != '(')
			break;
		close = cf_close_paren(p, end);
		if (!close)
			return NULL;
		if (close + 1 == end) {		/* (expr) */
			p++;
			end--;
		} else {			/* (type) expr */
			p = close + 1;
		}
	}
	if ((size_t)(end - p) <= 5 || memcmp(p, "REC->", 5))
		return NULL;
	p += 5;
	for (const char *q = p; q < end; q++)
		if (!cf_ident_char(*q))
			return NULL;
	*len = (size_t)(end - p);
	return p;
}

int trev__dat_code_fields(const char *format, int *id, struct trev_dat_code_field *fields,
			  size_t max)
{
	const char *id_line = strstr(format, "\nID: "), *p, *end, *fmt_end;
	int code_args[CF_MAX_CODE_ARGS], nr_code = 0, arg = 0, found = 0;

	if (!strncmp(format, "ID: ", 4))
		id_line = format - 1;
	p = strstr(format, "\nprint fmt: \"");
	if (!id_line || !p)
		return -EINVAL;
	*id = atoi(id_line + 5);
	end = p + strlen(p);

	/* The format string (adjacent literals are one): the arguments each conversion takes. */
	p += strlen("\nprint fmt: ");
	while (p < end && *p == '"') {
		for (p++; p < end && *p != '"'; p++) {
			int nargs;
			bool code;

			if (*p == '\\') {
				p++;
				continue;
			}
			if (*p != '%')
				continue;
			p = cf_conversion(p + 1, end, &nargs, &code) - 1;
			if (code && nr_code < CF_MAX_CODE_ARGS)
				code_args[nr_code++] = arg + nargs - 1;
			arg += nargs;
		}
		p = cf_skip_space(p + 1, end);
	}
	if (!nr_code)
		return 0;
	fmt_end = p;

	/* The arguments, in order: those the code conversions take. */
	for (arg = 0, p = fmt_end; p < end && *p == ','; arg++) {
		const char *arg_end = cf_arg_end(p + 1, end), *name;
		struct cf_field f;
		size_t len;

		for (int i = 0; i < nr_code; i++) {
			if (code_args[i] != arg)
				continue;
			name = cf_arg_field(p + 1, arg_end, &len);
			if (name && cf_find_field(format, name, len, &f) && f.scalar &&
			    (f.size == 4 || f.size == 8) && f.offset <= UINT16_MAX - f.size) {
				if ((size_t)found < max)
					fields[found] = (struct trev_dat_code_field){
						.offset = (uint16_t)f.offset,
						.size = (uint16_t)f.size,
					};
				found++;
			}
		}
		p = arg_end;
	}
	return found;
}
