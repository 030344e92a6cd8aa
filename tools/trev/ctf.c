/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CTF 1.8 for `trev convert --to ctf`: ftrace field types as CTF types, the
 * TSDL metadata, and records as CTF events in packets (ctf.h). Every
 * offset and length a record gives is checked against the record.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ctf.h"

/*
 * The packet layout this file writes (every field byte-aligned, in the
 * trace.dat file's byte order):
 *
 * OFFSET SIZE MEANING
 *      0    4 magic, 0xc1fc1fc1             packet header
 *      4    4 stream_id, 0
 *      8    8 timestamp_begin (ns)         packet context
 *     16    8 timestamp_end (ns)
 *     24    8 content_size (bits)
 *     32    8 packet_size (bits), = content_size
 *     40    8 events_discarded (cumulative, per stream)
 *     48    4 cpu_id
 *     52    - events: id (4), timestamp (8), then the fields
 */
#define CTF_MAGIC		0xc1fc1fc1u
#define CTF_OFF_TS_BEGIN	8
#define CTF_OFF_TS_END		16
#define CTF_OFF_CONTENT		24
#define CTF_OFF_PACKET		32
#define CTF_OFF_DISCARDED	40
#define CTF_HEADER_SIZE		52

/* ------------------------------------------------------------------ */
/* Field types                                                          */

static void ctf_why(char *why, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void ctf_why(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (!size)
		return;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

/* An element type's C name and size; 0: sizeof(long) of the traced machine. */
static const struct {
	const char *name;
	unsigned int size;
} ctf_types[] = {
	{ "char", 1 }, { "signed char", 1 }, { "unsigned char", 1 }, { "bool", 1 },
	{ "_Bool", 1 }, { "u8", 1 }, { "s8", 1 }, { "__u8", 1 }, { "__s8", 1 },
	{ "uint8_t", 1 }, { "int8_t", 1 },
	{ "short", 2 }, { "unsigned short", 2 }, { "u16", 2 }, { "s16", 2 },
	{ "__u16", 2 }, { "__s16", 2 }, { "uint16_t", 2 }, { "int16_t", 2 },
	{ "int", 4 }, { "unsigned int", 4 }, { "unsigned", 4 }, { "signed", 4 },
	{ "u32", 4 }, { "s32", 4 }, { "__u32", 4 }, { "__s32", 4 }, { "uint32_t", 4 },
	{ "int32_t", 4 }, { "pid_t", 4 }, { "uid_t", 4 }, { "gid_t", 4 },
	{ "long long", 8 }, { "unsigned long long", 8 }, { "u64", 8 }, { "s64", 8 },
	{ "__u64", 8 }, { "__s64", 8 }, { "uint64_t", 8 }, { "int64_t", 8 },
	{ "long", 0 }, { "unsigned long", 0 }, { "size_t", 0 }, { "ssize_t", 0 },
};

/*
 * The element type of @type ("__data_loc int[]", "u32[]", "char[16]",
 * "const char *"): its size in bytes (0 when not known) and whether it is
 * char. Qualifiers and the brackets are ignored.
 */
static unsigned int ctf_elem_size(const char *type, int long_size, bool *is_char)
{
	char base[64];
	size_t n = 0;
	const char *p = type;

	*is_char = false;
	for (const char *pre = NULL;;) {
		while (*p == ' ')
			p++;
		pre = !strncmp(p, "__data_loc ", 11) ? "__data_loc " :
		      !strncmp(p, "__rel_loc ", 10) ? "__rel_loc " :
		      !strncmp(p, "const ", 6) ? "const " :
		      !strncmp(p, "volatile ", 9) ? "volatile " : NULL;
		if (!pre)
			break;
		p += strlen(pre);
	}
	if (strchr(p, '*'))
		return (unsigned int)long_size;
	while (*p && *p != '[' && n < sizeof(base) - 1)
		base[n++] = *p++;
	while (n && base[n - 1] == ' ')
		n--;
	base[n] = '\0';
	for (size_t i = 0; i < sizeof(ctf_types) / sizeof(ctf_types[0]); i++) {
		if (strcmp(base, ctf_types[i].name))
			continue;
		*is_char = !strcmp(base, "char");
		return ctf_types[i].size ? ctf_types[i].size : (unsigned int)long_size;
	}
	return 0;
}

static bool ctf_int_size(unsigned int size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

int trev_ctf_field_map(struct trev_ctf_field *out, const struct trev_ctf_field_in *in,
		       int long_size, char *why, size_t why_size)
{
	const char *name = in->name ? in->name : "";
	const char *type = in->type ? in->type : "";
	bool is_char;
	unsigned int elem = ctf_elem_size(type, long_size, &is_char);
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	if (!*name) {
		ctf_why(why, why_size, "a field has no name");
		return -EINVAL;
	}
	if (in->offset < 0 || in->size < 0 || in->offset > 65535 || in->size > 65535 - in->offset) {
		ctf_why(why, why_size, "field %s: offset %d, size %d: not inside a record", name,
			in->offset, in->size);
		return -EINVAL;
	}
	out->name[n++] = '_';
	for (const char *p = name; *p && n < sizeof(out->name) - 1; p++)
		out->name[n++] = isalnum((unsigned char)*p) ? *p : '_';
	out->offset = (unsigned int)in->offset;
	out->size = (unsigned int)in->size;
	out->is_signed = in->is_signed;
	out->hex = strchr(type, '*') != NULL;
	out->relative = in->is_relative;

	if (in->is_dynamic) {
		if (in->size != 4) {
			ctf_why(why, why_size, "field %s: a __data_loc field of %d bytes, not 4",
				name, in->size);
			return -EINVAL;
		}
		if (is_char) {
			out->kind = TREV_CTF_DYN_STR;
			return 0;
		}
		out->kind = TREV_CTF_DYN_ARRAY;
		/* An element type not known: its bytes, in hexadecimal. */
		out->elem = ctf_int_size(elem) ? elem : 1;
		out->hex |= !ctf_int_size(elem);
		return 0;
	}
	if (in->is_array && in->size == 0) {
		/* A flexible array at the end (ftrace's print and bprint): the rest of the record. */
		out->kind = is_char ? TREV_CTF_TAIL_STR : TREV_CTF_TAIL_ARRAY;
		out->elem = ctf_int_size(elem) ? elem : 1;
		out->hex |= !ctf_int_size(elem);
		return 0;
	}
	if (in->is_array) {
		if (!in->arraylen || in->size % in->arraylen ||
		    !ctf_int_size((unsigned int)in->size / in->arraylen)) {
			ctf_why(why, why_size, "field %s: %d bytes are not %u elements of 1, 2, 4 "
				"or 8 bytes", name, in->size, in->arraylen);
			return -EINVAL;
		}
		out->elem = (unsigned int)in->size / in->arraylen;
		out->count = in->arraylen;
		out->kind = is_char && out->elem == 1 ? TREV_CTF_STR : TREV_CTF_ARRAY;
		return 0;
	}
	if (ctf_int_size((unsigned int)in->size)) {
		out->kind = TREV_CTF_INT;
		out->elem = (unsigned int)in->size;
		return 0;
	}
	if (in->size == 0) {
		ctf_why(why, why_size, "field %s: size 0 and not an array", name);
		return -EINVAL;
	}
	/* Another size (a struct, an odd integer): its bytes. */
	out->kind = TREV_CTF_ARRAY;
	out->elem = 1;
	out->count = (unsigned int)in->size;
	out->is_signed = false;
	out->hex = true;
	return 0;
}

static bool ctf_is_sequence(const struct trev_ctf_field *f)
{
	return f->kind == TREV_CTF_DYN_ARRAY || f->kind == TREV_CTF_TAIL_ARRAY;
}

/* A sequence's length field: "_NAME_len" (read as "NAME_len"). */
static void ctf_len_name(char *buf, size_t size, const struct trev_ctf_field *f)
{
	snprintf(buf, size, "%s_len", f->name);
}

/* A field's companion string: "_NAME_sym" or "_NAME_str". */
static void ctf_comp_name(char *buf, size_t size, const struct trev_ctf_field *f)
{
	snprintf(buf, size, "%s_%s", f->name, f->companion == TREV_CTF_COMP_SYM ? "sym" : "str");
}

/*
 * Name @i of @ev's 3n+1: its fields, their length fields, their companions,
 * "_text"; "" for one it does not have.
 */
static void ctf_nth_name(char *buf, size_t size, const struct trev_ctf_event *ev, unsigned int i)
{
	unsigned int n = ev->nr_fields;

	buf[0] = '\0';
	if (i == 3 * n)
		snprintf(buf, size, "%s", ev->text ? "_text" : "");
	else if (i >= 2 * n && ev->fields[i - 2 * n].companion != TREV_CTF_COMP_NONE)
		ctf_comp_name(buf, size, &ev->fields[i - 2 * n]);
	else if (i >= n && i < 2 * n && ctf_is_sequence(&ev->fields[i - n]))
		ctf_len_name(buf, size, &ev->fields[i - n]);
	else if (i < n)
		snprintf(buf, size, "%s", ev->fields[i].name);
}

int trev_ctf_event_check(const struct trev_ctf_event *ev, char *why, size_t why_size)
{
	unsigned int n = ev->nr_fields;
	char a[80], b[80];

	/* Every name against every other: length fields, companions and "text" included. */
	for (unsigned int i = 0; i < 3 * n + 1; i++) {
		ctf_nth_name(a, sizeof(a), ev, i);
		if (!a[0])
			continue;
		for (unsigned int k = 0; k < i; k++) {
			ctf_nth_name(b, sizeof(b), ev, k);
			if (!strcmp(a, b)) {
				ctf_why(why, why_size, "two fields are named %s in CTF", a + 1);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Metadata                                                             */

/* @s in a TSDL string literal: quotes, backslashes and controls escaped. */
static void ctf_put_literal(struct trev_buf *out, const char *s)
{
	trev__buf_putc(out, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			trev__buf_printf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			trev__buf_printf(out, "\\x%02x", c);
		else
			trev__buf_putc(out, (char)c);
	}
	trev__buf_putc(out, '"');
}

static void ctf_put_int(struct trev_buf *out, const struct trev_ctf_field *f)
{
	trev__buf_printf(out, "integer { size = %u; align = 8; signed = %s; base = %u; }",
			 f->elem * 8, f->is_signed ? "true" : "false", f->hex ? 16 : 10);
}

/*
 * An integer with labels as a CTF enum: `enum : integer {...} { "IDLE" = 0,
 * ... }`; babeltrace2 prints `( "IDLE" : container = 0 )`. A value the
 * integer cannot hold is left out.
 */
static void ctf_put_enum(struct trev_buf *out, const struct trev_ctf_field *f)
{
	unsigned int bits = f->elem * 8;

	trev__buf_puts(out, "enum : ");
	ctf_put_int(out, f);
	trev__buf_puts(out, " {");
	for (unsigned int i = 0, n = 0; i < f->nr_labels; i++) {
		uint64_t v = f->labels[i].value;

		if (bits < 64 && !f->is_signed && v >> bits)
			continue;
		if (bits < 64 && f->is_signed &&
		    ((int64_t)v < -((int64_t)1 << (bits - 1)) ||
		     (int64_t)v >= ((int64_t)1 << (bits - 1))))
			continue;
		trev__buf_puts(out, n++ ? ", " : " ");
		ctf_put_literal(out, f->labels[i].label);
		if (f->is_signed)
			trev__buf_printf(out, " = %" PRId64, (int64_t)v);
		else
			trev__buf_printf(out, " = %" PRIu64, v);
	}
	trev__buf_puts(out, " }");
}

static void ctf_put_field(struct trev_buf *out, const struct trev_ctf_field *f)
{
	char len[80];

	trev__buf_puts(out, "\t\t");
	switch (f->kind) {
	case TREV_CTF_INT:
		if (f->nr_labels)
			ctf_put_enum(out, f);
		else
			ctf_put_int(out, f);
		trev__buf_printf(out, " %s;\n", f->name);
		break;
	case TREV_CTF_STR:
	case TREV_CTF_DYN_STR:
	case TREV_CTF_TAIL_STR:
		trev__buf_printf(out, "string { encoding = UTF8; } %s;\n", f->name);
		break;
	case TREV_CTF_ARRAY:
		ctf_put_int(out, f);
		trev__buf_printf(out, " %s[%u];\n", f->name, f->count);
		break;
	case TREV_CTF_DYN_ARRAY:
	case TREV_CTF_TAIL_ARRAY:
		ctf_len_name(len, sizeof(len), f);
		trev__buf_printf(out, "uint32_t %s;\n\t\t", len);
		ctf_put_int(out, f);
		trev__buf_printf(out, " %s[%s];\n", f->name, len);
		break;
	}
	if (f->companion != TREV_CTF_COMP_NONE) {
		ctf_comp_name(len, sizeof(len), f);
		trev__buf_printf(out, "\t\tstring { encoding = UTF8; } %s;\n", len);
	}
}

/* A clock name as a TSDL identifier ("x86-tsc" -> "x86_tsc"). */
static void ctf_put_ident(struct trev_buf *out, const char *s)
{
	if (!*s || isdigit((unsigned char)*s))
		trev__buf_putc(out, '_');
	for (; *s; s++)
		trev__buf_putc(out, isalnum((unsigned char)*s) ? *s : '_');
}

int trev_ctf_metadata(struct trev_buf *out, const struct trev_ctf_trace *t,
		      const struct trev_ctf_event *const *events, unsigned int nr_events)
{
	const char *clock = t->clock && *t->clock ? t->clock : "local";

	trev__buf_puts(out,
		"/* CTF 1.8 */\n"
		"/* Written by trev convert (docs/cli/trev-convert.md). */\n\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n\n"
		"trace {\n\tmajor = 1;\n\tminor = 8;\n");
	trev__buf_printf(out, "\tbyte_order = %s;\n", t->big_endian ? "be" : "le");
	trev__buf_puts(out, "\tpacket.header := struct {\n\t\tuint32_t magic;\n"
			    "\t\tuint32_t stream_id;\n\t};\n};\n\n");
	trev__buf_puts(out, "env {\n\tdomain = \"ftrace\";\n\ttracer_name = \"trev\";\n");
	if (t->hostname) {
		trev__buf_puts(out, "\thostname = ");
		ctf_put_literal(out, t->hostname);
		trev__buf_puts(out, ";\n");
	}
	if (t->source) {
		trev__buf_puts(out, "\ttrace_dat = ");
		ctf_put_literal(out, t->source);
		trev__buf_puts(out, ";\n");
	}
	trev__buf_puts(out, "\ttrace_clock = ");
	ctf_put_literal(out, clock);
	trev__buf_puts(out, ";\n};\n\n");

	/* The record's time stamp in nanoseconds, as trev report prints it: no offset. */
	trev__buf_puts(out, "clock {\n\tname = ");
	ctf_put_ident(out, clock);
	trev__buf_puts(out, ";\n\tdescription = ");
	ctf_put_literal(out, "the trace.dat file's trace clock, in ns as trev report prints it");
	trev__buf_puts(out, ";\n\tfreq = 1000000000;\n\tprecision = 0;\n"
			    "\toffset_s = 0;\n\toffset = 0;\n\tabsolute = false;\n};\n\n");
	trev__buf_puts(out, "typealias integer { size = 64; align = 8; signed = false; map = clock.");
	ctf_put_ident(out, clock);
	trev__buf_puts(out, ".value; } := uint64_clock_t;\n\n");

	trev__buf_puts(out,
		"stream {\n\tid = 0;\n"
		"\tpacket.context := struct {\n"
		"\t\tuint64_clock_t timestamp_begin;\n"
		"\t\tuint64_clock_t timestamp_end;\n"
		"\t\tuint64_t content_size;\n"
		"\t\tuint64_t packet_size;\n"
		"\t\tuint64_t events_discarded;\n"
		"\t\tuint32_t cpu_id;\n"
		"\t};\n"
		"\tevent.header := struct {\n"
		"\t\tuint32_t id;\n"
		"\t\tuint64_clock_t timestamp;\n"
		"\t};\n};\n");

	for (unsigned int i = 0; i < nr_events; i++) {
		const struct trev_ctf_event *ev = events[i];

		trev__buf_puts(out, "\nevent {\n\tname = ");
		ctf_put_literal(out, ev->name);
		trev__buf_printf(out, ";\n\tid = %u;\n\tstream_id = 0;\n\tfields := struct {\n",
				 ev->id);
		for (unsigned int k = 0; k < ev->nr_fields; k++)
			ctf_put_field(out, &ev->fields[k]);
		if (ev->text)
			trev__buf_puts(out, "\t\tstring { encoding = UTF8; } _text;\n");
		trev__buf_puts(out, "\t};\n};\n");
	}
	return out->err;
}

/* ------------------------------------------------------------------ */
/* Streams                                                              */

static void ctf_store(unsigned char *p, uint64_t v, unsigned int size, bool big)
{
	for (unsigned int i = 0; i < size; i++)
		p[big ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static uint64_t ctf_load(const unsigned char *p, unsigned int size, bool big)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < size; i++)
		v |= (uint64_t)p[big ? size - 1 - i : i] << (8 * i);
	return v;
}

static void ctf_put(struct trev_buf *b, uint64_t v, unsigned int size, bool big)
{
	unsigned char tmp[8];

	ctf_store(tmp, v, size, big);
	trev__buf_append(b, tmp, size);
}

void trev_ctf_stream_init(struct trev_ctf_stream *s, unsigned int cpu, bool big_endian,
			  size_t packet_max)
{
	memset(s, 0, sizeof(*s));
	trev__buf_init(&s->pkt);
	s->cpu = cpu;
	s->big_endian = big_endian;
	s->packet_max = packet_max;
}

void trev_ctf_stream_free(struct trev_ctf_stream *s)
{
	trev__buf_free(&s->pkt);
}

static int ctf_stream_open(struct trev_ctf_stream *s, uint64_t ts)
{
	bool big = s->big_endian;

	trev__buf_reset(&s->pkt);
	ctf_put(&s->pkt, CTF_MAGIC, 4, big);
	ctf_put(&s->pkt, 0, 4, big);
	ctf_put(&s->pkt, ts, 8, big);		/* timestamp_begin */
	ctf_put(&s->pkt, ts, 8, big);		/* timestamp_end, set when closed */
	ctf_put(&s->pkt, 0, 8, big);		/* content_size, set when closed */
	ctf_put(&s->pkt, 0, 8, big);		/* packet_size, set when closed */
	ctf_put(&s->pkt, s->discarded, 8, big);
	ctf_put(&s->pkt, s->cpu, 4, big);
	if (s->pkt.err)
		return s->pkt.err;
	s->open = true;
	s->any = true;
	s->ts_last = ts;
	return 0;
}

const struct trev_buf *trev_ctf_stream_close(struct trev_ctf_stream *s)
{
	unsigned char *p = (unsigned char *)s->pkt.data;

	if (!s->open)
		return NULL;
	s->open = false;
	ctf_store(p + CTF_OFF_TS_END, s->ts_last, 8, s->big_endian);
	ctf_store(p + CTF_OFF_CONTENT, (uint64_t)s->pkt.len * 8, 8, s->big_endian);
	ctf_store(p + CTF_OFF_PACKET, (uint64_t)s->pkt.len * 8, 8, s->big_endian);
	return &s->pkt;
}

bool trev_ctf_stream_full(const struct trev_ctf_stream *s)
{
	return s->open && s->pkt.len >= s->packet_max;
}

const struct trev_buf *trev_ctf_stream_lost(struct trev_ctf_stream *s, uint64_t n, uint64_t ts)
{
	const struct trev_buf *closed = NULL;

	if (s->open)
		closed = trev_ctf_stream_close(s);
	else if (!s->any && ctf_stream_open(s, ts) == 0)
		closed = trev_ctf_stream_close(s);
	s->discarded += n;
	return closed;
}

/* Where a __data_loc/__rel_loc field's data lies: 0, or -EINVAL + @why. */
static int ctf_dyn_span(const struct trev_ctf_field *f, const uint8_t *rec, size_t size, bool big,
			size_t *off, size_t *len, char *why, size_t why_size)
{
	uint32_t loc = (uint32_t)ctf_load(rec + f->offset, 4, big);

	*off = (loc & 0xffff) + (f->relative ? f->offset + 4u : 0u);
	*len = loc >> 16;
	if (*off > size || *len > size - *off) {
		ctf_why(why, why_size, "field %s: its data at %zu, %zu bytes, is outside the "
			"record (%zu bytes)", f->name + 1, *off, *len, size);
		return -EINVAL;
	}
	return 0;
}

static void ctf_put_string(struct trev_buf *b, const uint8_t *p, size_t max)
{
	size_t n = strnlen((const char *)p, max);

	trev__buf_append(b, p, n);
	trev__buf_putc(b, '\0');
}

int trev_ctf_stream_event(struct trev_ctf_stream *s, const struct trev_ctf_event *ev,
			  const uint8_t *rec, size_t size, uint64_t ts, const char *text,
			  char *why, size_t why_size)
{
	return trev_ctf_stream_event_strs(s, ev, rec, size, ts, text, NULL, why, why_size);
}

int trev_ctf_stream_event_strs(struct trev_ctf_stream *s, const struct trev_ctf_event *ev,
			       const uint8_t *rec, size_t size, uint64_t ts, const char *text,
			       const char *const *strs, char *why, size_t why_size)
{
	bool big = s->big_endian;
	size_t start, off, len;
	int ret;

	/* The fixed part of every field inside the record, before anything is appended. */
	for (unsigned int i = 0; i < ev->nr_fields; i++) {
		const struct trev_ctf_field *f = &ev->fields[i];

		if (f->offset > size || f->size > size - f->offset) {
			ctf_why(why, why_size, "field %s at %u, %u bytes, is outside the record "
				"(%zu bytes)", f->name + 1, f->offset, f->size, size);
			return -EINVAL;
		}
		if ((f->kind == TREV_CTF_DYN_STR || f->kind == TREV_CTF_DYN_ARRAY) &&
		    ctf_dyn_span(f, rec, size, big, &off, &len, why, why_size))
			return -EINVAL;
	}
	if (s->any && ts < s->ts_last) {
		ctf_why(why, why_size, "its time stamp %" PRIu64 " is before the CPU's previous "
			"record's, %" PRIu64, ts, s->ts_last);
		return -ERANGE;
	}
	if (!s->open && (ret = ctf_stream_open(s, ts)))
		return ret;

	start = s->pkt.len;
	ctf_put(&s->pkt, ev->id, 4, big);
	ctf_put(&s->pkt, ts, 8, big);
	for (unsigned int i = 0; i < ev->nr_fields; i++) {
		const struct trev_ctf_field *f = &ev->fields[i];
		const uint8_t *p = rec + f->offset;

		switch (f->kind) {
		case TREV_CTF_INT:
		case TREV_CTF_ARRAY:
			trev__buf_append(&s->pkt, p, f->size);
			break;
		case TREV_CTF_STR:
			ctf_put_string(&s->pkt, p, f->size);
			break;
		case TREV_CTF_DYN_STR:
		case TREV_CTF_DYN_ARRAY:
			ctf_dyn_span(f, rec, size, big, &off, &len, NULL, 0);
			if (f->kind == TREV_CTF_DYN_STR) {
				ctf_put_string(&s->pkt, rec + off, len);
				break;
			}
			ctf_put(&s->pkt, len / f->elem, 4, big);
			trev__buf_append(&s->pkt, rec + off, len / f->elem * f->elem);
			break;
		case TREV_CTF_TAIL_STR:
			ctf_put_string(&s->pkt, p, size - f->offset);
			break;
		case TREV_CTF_TAIL_ARRAY:
			len = (size - f->offset) / f->elem;
			ctf_put(&s->pkt, len, 4, big);
			trev__buf_append(&s->pkt, p, len * f->elem);
			break;
		}
		if (f->companion != TREV_CTF_COMP_NONE) {
			const char *str = strs && strs[i] ? strs[i] : "";

			trev__buf_append(&s->pkt, str, strlen(str) + 1);
		}
	}
	if (ev->text) {
		text = text ? text : "";
		trev__buf_append(&s->pkt, text, strlen(text) + 1);
	}
	if (s->pkt.err) {
		ret = s->pkt.err;
		s->pkt.len = start;
		return ret;
	}
	s->ts_last = ts;
	return 0;
}
