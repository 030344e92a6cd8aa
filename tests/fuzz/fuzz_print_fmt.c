/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for trev report's print fmt steps (tools/trev/print_fmt.c):
 * the print fmt comes from a trace.dat file's format text and the records
 * from its pages. libtraceevent 1.7.1's own parser crashes on some bad
 * formats (docs/cli/trev-report.md), so the input chooses a print fmt made
 * of pieces that parse: literal runs with escapes, and conversions with any
 * flags, width, precision, length and letter, each of one argument of a
 * table (fields of every size, strings, __print_flags/__print_symbolic, an
 * operation); then a record. Where the steps compile, they print the record
 * without reading outside it, and where they print it (0), exactly what
 * tep_print_event() prints.
 *
 * OFFSET SIZE MEANING
 *      0    1 number of pieces (mod 9)
 *      1  4*N per piece: kind (even: literal, odd: conversion), then
 *             literal: its index; conversion: flags (bits: '-', '0', '#',
 *             width, precision), length modifier, letter and argument
 *             (index into fz_lens, fz_convs, fz_args)
 *      -    - the record (at most 256 bytes; its common_type is set)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dat_buffers.h"
#include "print_fmt.h"
#include "trev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The command's messages (trev.c), which dat_buffers.c's event table may send: none is shown. */
void trev_err(const char *fmt, ...)
{
	(void)fmt;
}
const char *__lsan_default_suppressions(void);

/* libtraceevent 1.7.1 leaks what it parsed of some bad formats (the scripts suppress it too). */
const char *__lsan_default_suppressions(void)
{
	return "leak:tep_parse_event\nleak:isoc99_vsscanf\n";
}

#define FZ_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n" \
	"\tfield:int i;\toffset:8;\tsize:4;\tsigned:1;\n" \
	"\tfield:unsigned int u;\toffset:12;\tsize:4;\tsigned:0;\n" \
	"\tfield:long l;\toffset:16;\tsize:8;\tsigned:1;\n" \
	"\tfield:short h;\toffset:24;\tsize:2;\tsigned:1;\n" \
	"\tfield:unsigned char c;\toffset:26;\tsize:1;\tsigned:0;\n" \
	"\tfield:char name[8];\toffset:28;\tsize:8;\tsigned:1;\n" \
	"\tfield:__data_loc char[] s;\toffset:36;\tsize:4;\tsigned:1;\n" \
	"\tfield:__rel_loc char[] r;\toffset:40;\tsize:4;\tsigned:1;\n" \
	"\tfield:u8 odd[3];\toffset:44;\tsize:3;\tsigned:0;\n"

static const char *const fz_lits[] = {
	"a=", " ", "\\t", "%%", "\\n", "|", "x\\\\y", "end", "\\\"q\\\"", "",
};
static const char *const fz_lens[] = { "", "h", "hh", "l", "ll", "z", "L", "lll" };
static const char fz_convs[] = "diuxXoscp";
static const char *const fz_args[] = {
	"REC->i", "REC->u", "REC->l", "REC->h", "REC->c", "REC->name", "__get_str(s)",
	"__get_rel_str(r)", "REC->odd",
	"__print_flags(REC->u, \"|\", { 1, \"A\" }, { 2, \"B\" }, { 4, \"C\" })",
	"__print_symbolic(REC->i, { 0, \"Z\" }, { 1, \"O\" }, { 0x7fffffff, \"M\" })",
	"__print_flags(REC->c, \"\", { 0x80, \"H\" }, { 0, \"N\" })",
	"REC->i + 1", "REC->l",
};

#define FZ_NR(a) (sizeof(a) / sizeof((a)[0]))

/* The print fmt the input chooses, into @fmt. Return: bytes of the input used. */
static size_t fz_format(const uint8_t *data, size_t size, char *fmt, size_t max)
{
	char text[1024] = "", args[4096] = "";
	size_t used = 1, tl = 0, al = 0;
	unsigned int n = size ? data[0] % 9 : 0;

	for (unsigned int k = 0; k < n && used + 4 <= size; k++, used += 4) {
		const uint8_t *p = data + used;

		if (!(p[0] & 1)) {
			tl += (size_t)snprintf(text + tl, sizeof(text) - tl, "%s",
					       fz_lits[p[1] % FZ_NR(fz_lits)]);
			continue;
		}
		tl += (size_t)snprintf(text + tl, sizeof(text) - tl, "%%%s%s%s%s%s%s%c",
				       p[1] & 1 ? "-" : "", p[1] & 2 ? "0" : "", p[1] & 4 ? "#" : "",
				       p[1] & 8 ? "7" : "", p[1] & 16 ? ".3" : "",
				       fz_lens[p[2] % FZ_NR(fz_lens)],
				       fz_convs[p[3] % (sizeof(fz_convs) - 1)]);
		al += (size_t)snprintf(args + al, sizeof(args) - al, ", %s",
				       fz_args[(p[3] / 16) % FZ_NR(fz_args)]);
	}
	snprintf(fmt, max, "\"%s\"%s", text, args);
	return used > size ? size : used;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tep_handle *tep;
	struct tep_event *ev;
	struct trev_pfmt *f;
	static char text[8192], fmt[6144];
	uint8_t rec_buf[256];
	struct tep_record rec = { .data = rec_buf };
	unsigned short id = 77;
	size_t used = fz_format(data, size, fmt, sizeof(fmt));
	int len;

	len = snprintf(text, sizeof(text), "name: fz\nID: 77\nformat:\n" FZ_FIELDS
		       "\nprint fmt: %s\n", fmt);
	tep = tep_alloc();
	if (!tep)
		return 0;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	if (tep_parse_event(tep, text, (unsigned long)len, "fz") || !(ev = tep_find_event(tep, 77))) {
		tep_free(tep);
		return 0;
	}
	f = trev_pfmt_compile(ev);
	if (f) {
		size_t n = size - used;
		struct trev_buf out = TREV_BUF_INIT;

		if (n > sizeof(rec_buf))
			n = sizeof(rec_buf);
		if (n < 2)
			n = 2;
		memset(rec_buf, 0, sizeof(rec_buf));
		memcpy(rec_buf, data + used, size - used < n ? size - used : n);
		memcpy(rec_buf, &id, 2);
		/* Exactly the record's bytes: a read past them is ASan's to see. */
		rec.data = malloc(n);
		if (rec.data) {
			memcpy(rec.data, rec_buf, n);
			rec.size = (int)n;
			/* As the callers do: only records whose fields lie inside them. */
			if (trev_tep_record_sane(ev, &rec) && trev_pfmt_print(f, &rec, &out) == 0) {
				struct trace_seq seq;

				trace_seq_init(&seq);
				tep_print_event(tep, &seq, &rec, "%s", TEP_PRINT_INFO);
				trace_seq_terminate(&seq);
				trev__buf_putc(&out, '\0');
				if (!out.err && strcmp(out.data, seq.buffer)) {
					fprintf(stderr, "print fmt %s: steps '%s', libtraceevent '%s'\n",
						fmt, out.data, seq.buffer);
					abort();
				}
				trace_seq_destroy(&seq);
			}
			free(rec.data);
		}
		trev__buf_free(&out);
		trev_pfmt_free(f);
	}
	tep_free(tep);
	return 0;
}
