/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * JSON pieces for `trev convert --to json` (docs/cli/trev-convert.md, "JSON"):
 * strings escaped per RFC 8259, time stamps in microseconds printed exactly
 * from nanoseconds, and a record's fields as the members of an "args"
 * object. Nothing here reads a file or links libtraceevent: the fields are
 * mapped by ctf.c (trev_ctf_field_map()), and the record bytes are trusted
 * no more than the file they came from.
 */
#ifndef TREV_TOOLS_JSON_H
#define TREV_TOOLS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/buf.h"
#include "ctf.h"

/* Room for trev_json_ts()'s text: 20 digits, '.', 3 digits, NUL. */
#define TREV_JSON_TS_MAX	32

/* The largest integer a JSON reader's double holds exactly: 2^53 - 1. */
#define TREV_JSON_INT_MAX	9007199254740991ull

/*
 * trev_json_ts() - @ns as microseconds with three decimals ("123456.789"),
 * made from the integer: no rounding. Return: the length written to @buf.
 */
size_t trev_json_ts(char *buf, uint64_t ns);

/*
 * trev_json_str() - append @p as a JSON string, quotes included: up to its
 * first NUL or @max bytes. '"', '\\' and control characters are escaped;
 * well-formed UTF-8 is copied; every byte that is not part of a well-formed
 * UTF-8 sequence becomes U+FFFD ("\ufffd").
 */
void trev_json_str(struct trev_buf *b, const void *p, size_t max);

/* trev_json_cstr() - trev_json_str() of a NUL-terminated string. */
void trev_json_cstr(struct trev_buf *b, const char *s);

/*
 * trev_json_uint(), trev_json_int() - a number; beyond what a double holds
 * exactly (±TREV_JSON_INT_MAX), a string of its decimal digits.
 */
void trev_json_uint(struct trev_buf *b, uint64_t v);
void trev_json_int(struct trev_buf *b, int64_t v);

/*
 * trev_json_fields() - the fields of one record as JSON object members,
 * `"name":value,...` (no braces; nothing for no field)
 * @fields, @names: @nr mapped fields and their names as the format has them
 * @rec, @size: the record (common fields first); @big: its byte order
 * @why, @why_size: on -EINVAL, which field is outside the record and how
 *
 * Integers are numbers (trev_json_uint()/trev_json_int()); pointers and the
 * bytes of types not known are "0x..." strings; char arrays and __data_loc
 * strings are strings; other arrays are arrays.
 * Return: 0, or -EINVAL with nothing appended.
 */
int trev_json_fields(struct trev_buf *b, const struct trev_ctf_field *fields,
		     const char *const *names, unsigned int nr, const uint8_t *rec, size_t size,
		     bool big, char *why, size_t why_size);

/*
 * trev_json_convert() - the trace.dat @file as the Trace Event Format on
 * @out (convert_json.c, with libtracecmd); @name: @out's name for messages
 * Return: 0, or -1 after a message (trev_err()); what was written to @out
 * is then incomplete.
 */
int trev_json_convert(const char *file, FILE *out, const char *name);

#endif /* TREV_TOOLS_JSON_H */
