/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for trev convert's CTF writer (tools/trev/ctf.c) and its
 * JSON fields (tools/trev/json.c): the field descriptions come from a
 * trace.dat file's format text and the records from its pages, and both may
 * hold anything. The input is an event (its fields' types, offsets, sizes,
 * flags) and then one record, written to a stream, before and after lost
 * events; the packet's sizes are checked. The same record as JSON args: refused
 * exactly when CTF refuses it, else text with no raw control character and
 * only well-formed UTF-8.
 *
 * OFFSET SIZE MEANING
 *      0    1 number of fields (mod 9)
 *      1    1 bit 0: big-endian; bit 1: long is 4 bytes
 *      2  8*N per field: type (index into fz_types; 255: the 12 bytes after
 *             the field descriptions, as a string), flags (signed, array,
 *             dynamic, relative), offset (2), size (2), arraylen, unused
 *      -    - (a 12-byte type string when a field asked for it), the record
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctf.h"
#include "json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const fz_types[] = {
	"int", "unsigned int", "char[16]", "__data_loc char[]", "__data_loc int[]",
	"__data_loc unsigned long[]", "u32[]", "char[]", "const char *", "unsigned char[4]",
	"long", "unsigned short", "__rel_loc char[]", "__rel_loc u8[]", "struct foo",
	"bool", "s64", "", "[", "__data_loc ", "const volatile const",
};

/* __print_symbolic()/__print_flags() labels, some beyond a small integer, one negative. */
static const struct trev_ctf_label fz_labels[] = {
	{ 0, "ZERO" }, { 1, "ONE" }, { 300, "\"big\"" }, { (uint64_t)-1, "MINUS" },
	{ 1ull << 40, "FAR" },
};

/* Companion strings: NULL (""), and text. */
static const char *const fz_strs[] = { NULL, "main", "__libc_init_first+0x8a", NULL, "x",
				       "READ|SYNC", NULL, "", "y" };

static uint64_t fz_load(const unsigned char *p, bool big)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < 8; i++)
		v |= (uint64_t)p[big ? 7 - i : i] << (8 * i);
	return v;
}

/* Is @p (@n bytes) well-formed UTF-8 without a byte below 0x20? */
static bool fz_clean(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
			     c >= 0xf0 && c <= 0xf4 ? 4 : 0;

		if (c < 0x20 || !len || len > n - i)
			return false;
		for (size_t k = 1; k < len; k++)
			if ((p[i + k] & 0xc0) != 0x80)
				return false;
		i += len;
	}
	return true;
}

/* The record as JSON args: refused when CTF refused it (@ctf_ret), else clean text. */
static void fz_json(const struct trev_ctf_field *fields, unsigned int nr, const uint8_t *rec,
		    size_t size, bool big, int ctf_ret)
{
	static const char *const names[8] = { "f", "a b", "f", "a b", "f", "a b", "f", "a\"b" };
	struct trev_buf b = TREV_BUF_INIT;
	char why[160];
	int ret = trev_json_fields(&b, fields, names, nr, rec, size, big, why, sizeof(why));

	if (b.err == -ENOMEM) {
		trev__buf_free(&b);
		return;
	}
	if ((ret != 0) != (ctf_ret == -EINVAL) || (ret && ret != -EINVAL) || (ret && b.len))
		abort();
	if (!ret && (!fz_clean((const unsigned char *)b.data, b.len) ||
		     (nr && (b.len < 4 || b.data[0] != '"'))))
		abort();
	trev__buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trev_ctf_field fields[8];
	struct trev_ctf_event ev = { .id = 7, .name = (char *)"fz:\"ev\\", .fields = fields };
	const struct trev_ctf_event *list[1] = { &ev };
	struct trev_ctf_trace t = { .clock = "x86-tsc", .source = "f\n.dat" };
	struct trev_buf meta = TREV_BUF_INIT;
	struct trev_ctf_stream s;
	const struct trev_buf *pkt;
	char str_type[13] = "", why[128];
	unsigned int nr;
	size_t pos;
	int ret, first = 1;
	bool big;

	if (size < 2)
		return 0;
	nr = data[0] % 9;
	big = data[1] & 1;
	t.big_endian = big;
	pos = 2 + 8 * (size_t)nr;
	if (size < pos + 12)
		return 0;
	memcpy(str_type, data + pos, 12);
	pos += 12;

	for (unsigned int i = 0; i < nr; i++) {
		const uint8_t *d = data + 2 + 8 * i;
		struct trev_ctf_field_in in = {
			.type = d[0] == 255 ? str_type : fz_types[d[0] % (sizeof(fz_types) /
									sizeof(fz_types[0]))],
			.name = i & 1 ? "a b" : "f",
			.offset = d[2] | d[3] << 8,
			.size = d[4] | d[5] << 8,
			.arraylen = d[6],
			.is_signed = d[1] & 1,
			.is_array = d[1] & 2,
			.is_dynamic = d[1] & 4,
			.is_relative = d[1] & 8,
		};

		why[0] = '\0';
		if (trev_ctf_field_map(&fields[i], &in, data[1] & 2 ? 4 : 8, why, sizeof(why))) {
			if (!why[0] || !memchr(why, '\0', sizeof(why)))
				abort();
			return 0;
		}
		if (fields[i].name[0] != '_' || !memchr(fields[i].name, '\0', sizeof(fields[i].name)))
			abort();
		/* Labels (an enum, values the integer may not hold) and a companion string. */
		if (fields[i].kind == TREV_CTF_INT && d[1] & 16) {
			fields[i].labels = fz_labels;
			fields[i].nr_labels = sizeof(fz_labels) / sizeof(fz_labels[0]);
		}
		fields[i].companion = (enum trev_ctf_companion)(d[1] >> 5) % 3;
	}
	ev.nr_fields = nr;
	ev.text = data[1] & 4;
	if (trev_ctf_event_check(&ev, why, sizeof(why)))
		return 0;
	if (trev_ctf_metadata(&meta, &t, list, 1) || strlen(meta.data) != meta.len)
		abort();
	trev__buf_free(&meta);

	trev_ctf_stream_init(&s, 3, big, TREV_CTF_PACKET_MIN);
	pkt = trev_ctf_stream_lost(&s, 5, 100);	/* the empty first packet */
	if (!pkt || pkt->len != 52 || fz_load((const unsigned char *)pkt->data + 24, big) != 52 * 8)
		abort();
	for (int k = 0; k < 3; k++) {
		ret = trev_ctf_stream_event_strs(&s, &ev, data + pos, size - pos,
						 100 + (uint64_t)k, "text", k == 1 ? fz_strs : NULL,
						 why, sizeof(why));
		if (ret && ret != -EINVAL)
			abort();
		if (k == 0)
			first = ret;
		if (k == 1)
			trev_ctf_stream_lost(&s, 2, 101);
	}
	pkt = trev_ctf_stream_close(&s);
	if (pkt) {
		const unsigned char *p = (const unsigned char *)pkt->data;

		if (fz_load(p + 24, big) != pkt->len * 8 || fz_load(p + 32, big) != pkt->len * 8 ||
		    fz_load(p + 40, big) != 7)
			abort();
	}
	/* Time going back on the stream: refused (when the record itself is good). */
	ret = trev_ctf_stream_event(&s, &ev, data + pos, size - pos, 99, NULL, why, sizeof(why));
	if (ret != -ERANGE && ret != -EINVAL)
		abort();
	trev_ctf_stream_free(&s);
	fz_json(fields, nr, data + pos, size - pos, big, first);
	return 0;
}
