/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev convert's CTF writer (tools/trev/ctf.c): each ftrace field type to its
 * CTF type, table-driven, with the refused ones and their reasons; a record
 * to the bytes of a CTF event, little- and big-endian; records whose fields
 * lie outside them refused, read from an exact-size copy so that ASan sees
 * any read past it; packets: sizes, the discarded counts around lost events.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctf.h"

/* ------------------------------------------------------------------ */
/* Field types                                                          */

struct map_case {
	struct trev_ctf_field_in in;
	int ret;
	enum trev_ctf_kind kind;
	unsigned int elem, count;
	bool is_signed, hex;
	const char *why;	/* on error: a part of the reason */
};

#define IN(t, o, s, n, sg, a, d, r) \
	{ .type = t, .name = "f", .offset = o, .size = s, .arraylen = n, .is_signed = sg, \
	  .is_array = a, .is_dynamic = d, .is_relative = r }

static const struct map_case map_cases[] = {
	{ IN("int", 8, 4, 0, 1, 0, 0, 0), 0, TREV_CTF_INT, 4, 0, 1, 0, NULL },
	{ IN("unsigned char", 2, 1, 0, 0, 0, 0, 0), 0, TREV_CTF_INT, 1, 0, 0, 0, NULL },
	{ IN("unsigned short", 0, 2, 0, 0, 0, 0, 0), 0, TREV_CTF_INT, 2, 0, 0, 0, NULL },
	{ IN("u64", 8, 8, 0, 0, 0, 0, 0), 0, TREV_CTF_INT, 8, 0, 0, 0, NULL },
	{ IN("const char *", 16, 8, 0, 0, 0, 0, 0), 0, TREV_CTF_INT, 8, 0, 0, 1, NULL },
	{ IN("char[16]", 8, 16, 16, 1, 1, 0, 0), 0, TREV_CTF_STR, 1, 16, 1, 0, NULL },
	{ IN("unsigned char[4]", 24, 4, 4, 0, 1, 0, 0), 0, TREV_CTF_ARRAY, 1, 4, 0, 0, NULL },
	{ IN("unsigned long[8]", 16, 64, 8, 0, 1, 0, 0), 0, TREV_CTF_ARRAY, 8, 8, 0, 0, NULL },
	{ IN("__data_loc char[]", 8, 4, 0, 1, 1, 1, 0), 0, TREV_CTF_DYN_STR, 0, 0, 1, 0, NULL },
	{ IN("__data_loc int[]", 12, 4, 0, 1, 1, 1, 0), 0, TREV_CTF_DYN_ARRAY, 4, 0, 1, 0, NULL },
	{ IN("__data_loc unsigned long[]", 16, 4, 0, 0, 1, 1, 0), 0, TREV_CTF_DYN_ARRAY, 8, 0,
	  0, 0, NULL },
	{ IN("__data_loc cpumask_t", 16, 4, 0, 0, 0, 1, 0), 0, TREV_CTF_DYN_ARRAY, 1, 0, 0, 1,
	  NULL },
	{ IN("__rel_loc char[]", 8, 4, 0, 1, 1, 1, 1), 0, TREV_CTF_DYN_STR, 0, 0, 1, 0, NULL },
	{ IN("char[]", 16, 0, 0, 1, 1, 0, 0), 0, TREV_CTF_TAIL_STR, 1, 0, 1, 0, NULL },
	{ IN("u32[]", 24, 0, 0, 0, 1, 0, 0), 0, TREV_CTF_TAIL_ARRAY, 4, 0, 0, 0, NULL },
	{ IN("struct foo", 8, 12, 0, 0, 0, 0, 0), 0, TREV_CTF_ARRAY, 1, 12, 0, 1, NULL },
	{ IN("int", -1, 4, 0, 1, 0, 0, 0), -EINVAL, 0, 0, 0, 0, 0, "not inside a record" },
	{ IN("int", 65534, 4, 0, 1, 0, 0, 0), -EINVAL, 0, 0, 0, 0, 0, "not inside a record" },
	{ IN("__data_loc char[]", 8, 8, 0, 1, 1, 1, 0), -EINVAL, 0, 0, 0, 0, 0, "not 4" },
	{ IN("int[3]", 8, 10, 3, 1, 1, 0, 0), -EINVAL, 0, 0, 0, 0, 0, "not 3 elements" },
	{ IN("int[0]", 8, 4, 0, 1, 1, 0, 0), -EINVAL, 0, 0, 0, 0, 0, "not 0 elements" },
	{ IN("char[3]", 8, 24, 3, 1, 1, 0, 0), 0, TREV_CTF_ARRAY, 8, 3, 1, 0, NULL },
	{ IN("int", 8, 0, 0, 1, 0, 0, 0), -EINVAL, 0, 0, 0, 0, 0, "size 0 and not an array" },
};

static void test_field_map(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(map_cases) / sizeof(map_cases[0]); i++) {
		const struct map_case *c = &map_cases[i];
		struct trev_ctf_field f;
		char why[160] = "";
		int ret = trev_ctf_field_map(&f, &c->in, 8, why, sizeof(why));

		if (ret != c->ret) {
			print_error("case %zu (%s): %d, want %d (%s)\n", i, c->in.type, ret, c->ret,
				    why);
			fail();
		}
		if (ret) {
			if (!strstr(why, c->why) || strncmp(why, "field f: ", 9)) {
				print_error("case %zu: reason '%s', want '%s'\n", i, why, c->why);
				fail();
			}
			continue;
		}
		if (f.kind != c->kind || (c->elem && f.elem != c->elem) || f.count != c->count ||
		    f.is_signed != c->is_signed || f.hex != c->hex || strcmp(f.name, "_f")) {
			print_error("case %zu (%s): kind %d elem %u count %u signed %d hex %d\n", i,
				    c->in.type, f.kind, f.elem, f.count, f.is_signed, f.hex);
			fail();
		}
	}
}

static void test_names(void **state)
{
	struct trev_ctf_field_in in = IN("int", 8, 4, 0, 1, 0, 0, 0);
	struct trev_ctf_field f[3];
	struct trev_ctf_event ev = { .id = 1, .name = (char *)"s:e", .fields = f, .nr_fields = 2 };
	char why[160];

	(void)state;
	/* Not an identifier: made one. */
	in.name = "a-b.c";
	assert_int_equal(trev_ctf_field_map(&f[0], &in, 8, why, sizeof(why)), 0);
	assert_string_equal(f[0].name, "_a_b_c");
	/* "x_len" collides with the length field of the sequence "x". */
	in.name = "x_len";
	assert_int_equal(trev_ctf_field_map(&f[0], &in, 8, why, sizeof(why)), 0);
	in = (struct trev_ctf_field_in)IN("__data_loc int[]", 12, 4, 0, 1, 1, 1, 0);
	in.name = "x";
	assert_int_equal(trev_ctf_field_map(&f[1], &in, 8, why, sizeof(why)), 0);
	assert_int_equal(trev_ctf_event_check(&ev, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "two fields are named x_len in CTF");
	/* "text" of the printk events against a field named text. */
	in = (struct trev_ctf_field_in)IN("int", 8, 4, 0, 1, 0, 0, 0);
	in.name = "text";
	assert_int_equal(trev_ctf_field_map(&f[0], &in, 8, why, sizeof(why)), 0);
	ev.text = true;
	assert_int_equal(trev_ctf_event_check(&ev, why, sizeof(why)), -EINVAL);
	ev.text = false;
	assert_int_equal(trev_ctf_event_check(&ev, why, sizeof(why)), 0);
}

/* ------------------------------------------------------------------ */
/* Records                                                              */

/*
 * An event like demo_batch plus a string and a tail: common_pid (int, 4),
 * name (char[8] at 8), n (int at 16), lat (__data_loc int[] at 20), path
 * (__data_loc char[] at 24), tail (u16[] of size 0 at 28).
 */
static void batch_event(struct trev_ctf_event *ev, struct trev_ctf_field *f)
{
	static const char *const names[] = { "common_pid", "name", "n", "lat", "path", "tail" };
	struct trev_ctf_field_in in[] = {
		IN("int", 4, 4, 0, 1, 0, 0, 0),
		IN("char[8]", 8, 8, 8, 1, 1, 0, 0),
		IN("int", 16, 4, 0, 1, 0, 0, 0),
		IN("__data_loc int[]", 20, 4, 0, 1, 1, 1, 0),
		IN("__data_loc char[]", 24, 4, 0, 1, 1, 1, 0),
		IN("u16[]", 28, 0, 0, 0, 1, 0, 0),
	};
	char why[160];

	for (unsigned int i = 0; i < 6; i++) {
		in[i].name = names[i];
		assert_int_equal(trev_ctf_field_map(&f[i], &in[i], 8, why, sizeof(why)), 0);
	}
	*ev = (struct trev_ctf_event){ .id = 0x1002, .name = (char *)"demo:batch", .fields = f,
				       .nr_fields = 6 };
}

/* The record, little-endian: lat = {1, 2} at 36, path "ab" at 44, tail {7, 8} at 28. */
static const uint8_t batch_le[48] = {
	0x02, 0x10, 0, 0, 0x39, 0x30, 0, 0,		/* common_type, flags, pc, pid 12345 */
	'w', 'k', 0, 'x', 'x', 'x', 'x', 'x',		/* name: "wk", junk after the NUL */
	2, 0, 0, 0,					/* n */
	36, 0, 8, 0,					/* lat: offset 36, 8 bytes */
	44, 0, 3, 0,					/* path: offset 44, 3 bytes */
	7, 0, 8, 0,					/* tail: two u16 ... */
	0, 0, 0, 0,					/* ... and two more, 0 */
	1, 0, 0, 0, 2, 0, 0, 0,				/* lat */
	'a', 'b', 0, 0,					/* path */
};

/* The CTF event: id, time, then the fields (no padding, strings NUL-ended). */
static const uint8_t batch_ctf_le[] = {
	0x02, 0x10, 0, 0,				/* id */
	0x15, 0xcd, 0x5b, 0x07, 0, 0, 0, 0,		/* timestamp 123456789 */
	0x39, 0x30, 0, 0,				/* common_pid */
	'w', 'k', 0,					/* name */
	2, 0, 0, 0,					/* n */
	2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0,		/* lat_len, lat */
	'a', 'b', 0,					/* path */
	10, 0, 0, 0,					/* tail_len: (48 - 28) / 2 */
	7, 0, 8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 'a', 'b', 0, 0,
};

static void *exact_copy(const void *src, size_t n)
{
	void *p = malloc(n ? n : 1);

	assert_non_null(p);
	memcpy(p, src, n);
	return p;
}

static uint64_t load(const void *p, unsigned int size, bool big)
{
	const uint8_t *b = p;
	uint64_t v = 0;

	for (unsigned int i = 0; i < size; i++)
		v |= (uint64_t)b[big ? size - 1 - i : i] << (8 * i);
	return v;
}

static void test_record_le(void **state)
{
	struct trev_ctf_field f[6];
	struct trev_ctf_event ev;
	struct trev_ctf_stream s;
	const struct trev_buf *pkt;
	char why[160];

	(void)state;
	batch_event(&ev, f);
	trev_ctf_stream_init(&s, 1, false, TREV_CTF_PACKET_SIZE);
	assert_int_equal(trev_ctf_stream_event(&s, &ev, batch_le, sizeof(batch_le), 123456789,
					       NULL, why, sizeof(why)), 0);
	pkt = trev_ctf_stream_close(&s);
	assert_non_null(pkt);
	assert_int_equal(pkt->len, 52 + sizeof(batch_ctf_le));
	assert_memory_equal(pkt->data + 52, batch_ctf_le, sizeof(batch_ctf_le));
	assert_int_equal(load(pkt->data, 4, false), 0xc1fc1fc1);
	assert_int_equal(load(pkt->data + 8, 8, false), 123456789);	/* timestamp_begin */
	assert_int_equal(load(pkt->data + 16, 8, false), 123456789);	/* timestamp_end */
	assert_int_equal(load(pkt->data + 24, 8, false), pkt->len * 8);	/* content_size */
	assert_int_equal(load(pkt->data + 32, 8, false), pkt->len * 8);	/* packet_size */
	assert_int_equal(load(pkt->data + 40, 8, false), 0);		/* events_discarded */
	assert_int_equal(load(pkt->data + 48, 4, false), 1);		/* cpu_id */
	assert_null(trev_ctf_stream_close(&s));
	trev_ctf_stream_free(&s);
}

/* The same record big-endian: integers stay as the file has them, lengths are written big. */
static void test_record_be(void **state)
{
	struct trev_ctf_field f[6];
	struct trev_ctf_event ev;
	struct trev_ctf_stream s;
	const struct trev_buf *pkt;
	uint8_t rec[sizeof(batch_le)];
	char why[160];

	(void)state;
	memcpy(rec, batch_le, sizeof(rec));
	/* The locations, big-endian: (len << 16) | offset. */
	rec[20] = 0; rec[21] = 8; rec[22] = 0; rec[23] = 36;
	rec[24] = 0; rec[25] = 3; rec[26] = 0; rec[27] = 44;
	batch_event(&ev, f);
	trev_ctf_stream_init(&s, 0, true, TREV_CTF_PACKET_SIZE);
	assert_int_equal(trev_ctf_stream_event(&s, &ev, rec, sizeof(rec), 5, NULL, why,
					       sizeof(why)), 0);
	pkt = trev_ctf_stream_close(&s);
	assert_non_null(pkt);
	assert_int_equal(load(pkt->data, 4, true), 0xc1fc1fc1);
	assert_int_equal(load(pkt->data + 52, 4, true), 0x1002);
	assert_int_equal(load(pkt->data + 56, 8, true), 5);
	/* common_pid, name, n as they were; lat_len 2 big-endian. */
	assert_memory_equal(pkt->data + 64, batch_le + 4, 4);
	assert_int_equal(load(pkt->data + 64 + 4 + 3 + 4, 4, true), 2);
	assert_int_equal(load(pkt->data + 24, 8, true), pkt->len * 8);
	trev_ctf_stream_free(&s);
}

/* Every cut of the record, and locations pointing out of it: refused, nothing read past it. */
static void test_record_bad(void **state)
{
	struct trev_ctf_field f[6];
	struct trev_ctf_event ev;
	struct trev_ctf_stream s;
	uint8_t rec[sizeof(batch_le)];
	char why[160];

	(void)state;
	batch_event(&ev, f);
	trev_ctf_stream_init(&s, 0, false, TREV_CTF_PACKET_SIZE);
	for (size_t len = 0; len < sizeof(batch_le); len++) {
		void *copy = exact_copy(batch_le, len);
		int ret = trev_ctf_stream_event(&s, &ev, copy, len, 1, NULL, why, sizeof(why));

		free(copy);
		/* From 47 bytes on, path's 3 bytes at 44 fit: the tail is what is left. */
		if (len >= 47)
			assert_int_equal(ret, 0);
		else
			assert_int_equal(ret, -EINVAL);
	}
	memcpy(rec, batch_le, sizeof(rec));
	rec[22] = 13;		/* lat: 13 bytes at 36 */
	assert_int_equal(trev_ctf_stream_event(&s, &ev, rec, sizeof(rec), 2, NULL, why,
					       sizeof(why)), -EINVAL);
	assert_string_equal(why, "field lat: its data at 36, 13 bytes, is outside the record "
				 "(48 bytes)");
	/* Time going back. */
	assert_int_equal(trev_ctf_stream_event(&s, &ev, batch_le, sizeof(batch_le), 0, NULL, why,
					       sizeof(why)), -ERANGE);
	trev_ctf_stream_free(&s);
}

/* Lost events: the packets' cumulative counts, an empty first packet when nothing came before. */
static void test_lost(void **state)
{
	struct trev_ctf_field f[6];
	struct trev_ctf_event ev;
	struct trev_ctf_stream s;
	const struct trev_buf *pkt;
	char why[160];

	(void)state;
	batch_event(&ev, f);
	trev_ctf_stream_init(&s, 0, false, TREV_CTF_PACKET_SIZE);
	pkt = trev_ctf_stream_lost(&s, 5, 100);
	assert_non_null(pkt);
	assert_int_equal(pkt->len, 52);
	assert_int_equal(load(pkt->data + 8, 8, false), 100);
	assert_int_equal(load(pkt->data + 40, 8, false), 0);
	assert_int_equal(trev_ctf_stream_event(&s, &ev, batch_le, sizeof(batch_le), 100, NULL,
					       why, sizeof(why)), 0);
	assert_int_equal(trev_ctf_stream_event(&s, &ev, batch_le, sizeof(batch_le), 150, NULL,
					       why, sizeof(why)), 0);
	pkt = trev_ctf_stream_lost(&s, 3, 200);
	assert_non_null(pkt);
	assert_int_equal(load(pkt->data + 8, 8, false), 100);
	assert_int_equal(load(pkt->data + 16, 8, false), 150);
	assert_int_equal(load(pkt->data + 40, 8, false), 5);
	assert_int_equal(trev_ctf_stream_event(&s, &ev, batch_le, sizeof(batch_le), 200, NULL,
					       why, sizeof(why)), 0);
	pkt = trev_ctf_stream_close(&s);
	assert_int_equal(load(pkt->data + 8, 8, false), 200);
	assert_int_equal(load(pkt->data + 40, 8, false), 8);
	trev_ctf_stream_free(&s);
}

static void test_metadata(void **state)
{
	struct trev_ctf_field f[6];
	struct trev_ctf_event ev;
	const struct trev_ctf_event *list[1] = { &ev };
	struct trev_ctf_trace t = { .big_endian = true, .clock = "x86-tsc",
				    .source = "a \"b\"\n.dat" };
	struct trev_buf b = TREV_BUF_INIT;

	(void)state;
	batch_event(&ev, f);
	ev.name = (char *)"sys:\"odd\"";
	ev.text = true;
	assert_int_equal(trev_ctf_metadata(&b, &t, list, 1), 0);
	assert_non_null(strstr(b.data, "/* CTF 1.8 */\n"));
	assert_non_null(strstr(b.data, "byte_order = be;"));
	assert_non_null(strstr(b.data, "trace_dat = \"a \\\"b\\\"\\x0a.dat\";"));
	assert_non_null(strstr(b.data, "name = x86_tsc;"));
	assert_non_null(strstr(b.data, "map = clock.x86_tsc.value;"));
	assert_non_null(strstr(b.data, "name = \"sys:\\\"odd\\\"\";\n\tid = 4098;"));
	assert_non_null(strstr(b.data, "\t\tinteger { size = 32; align = 8; signed = true; "
				       "base = 10; } _common_pid;\n"
				       "\t\tstring { encoding = UTF8; } _name;\n"));
	assert_non_null(strstr(b.data, "\t\tuint32_t _lat_len;\n\t\tinteger { size = 32; "
				       "align = 8; signed = true; base = 10; } _lat[_lat_len];\n"));
	assert_non_null(strstr(b.data, "_tail[_tail_len];\n\t\tstring { encoding = UTF8; } "
				       "_text;\n\t};\n};\n"));
	trev__buf_free(&b);
}

/*
 * Labels and companions (docs/cli/trev-convert.md, "Names"): an enum in the
 * metadata, values the integer cannot hold left out; a companion string
 * after its field, in the metadata and in the record; a companion named as
 * another field refused.
 */
static void test_labels(void **state)
{
	static const struct trev_ctf_label labels[] = {
		{ 0, "IDLE" }, { 1, "BU\"SY" }, { 300, "BIG" },
	};
	static const uint8_t rec[] = { 0x2a, 0, 0, 0, 1, 0x10, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t want[] = { 1, 0x10, 0, 0, 0, 0, 0, 0, 0, 'm', 'a', 'i', 'n', 0 };
	const char *strs[3] = { NULL, NULL, "main" };
	struct trev_ctf_field f[3];
	struct trev_ctf_event ev = { .id = 7, .name = (char *)"s:e", .fields = f, .nr_fields = 3 };
	const struct trev_ctf_event *list[] = { &ev };
	struct trev_ctf_trace t = { .clock = "local" };
	struct trev_buf b = TREV_BUF_INIT;
	struct trev_ctf_field_in in;
	struct trev_ctf_stream s;
	const struct trev_buf *pkt;
	char why[160];

	(void)state;
	in = (struct trev_ctf_field_in)IN("unsigned char", 4, 1, 0, 0, 0, 0, 0);
	in.name = "state";
	assert_int_equal(trev_ctf_field_map(&f[0], &in, 8, why, sizeof(why)), 0);
	f[0].labels = labels;
	f[0].nr_labels = 3;
	in = (struct trev_ctf_field_in)IN("unsigned long", 5, 8, 0, 0, 0, 0, 0);
	in.name = "ip";
	assert_int_equal(trev_ctf_field_map(&f[1], &in, 8, why, sizeof(why)), 0);
	f[1].companion = TREV_CTF_COMP_SYM;
	/* A field named as ip's companion. */
	in = (struct trev_ctf_field_in)IN("int", 0, 4, 0, 1, 0, 0, 0);
	in.name = "ip_sym";
	assert_int_equal(trev_ctf_field_map(&f[2], &in, 8, why, sizeof(why)), 0);
	assert_int_equal(trev_ctf_event_check(&ev, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "two fields are named ip_sym in CTF");
	ev.nr_fields = 2;
	assert_int_equal(trev_ctf_event_check(&ev, why, sizeof(why)), 0);
	assert_int_equal(trev_ctf_metadata(&b, &t, list, 1), 0);
	assert_non_null(strstr(b.data, "\t\tenum : integer { size = 8; align = 8; signed = false; "
				       "base = 10; } { \"IDLE\" = 0, \"BU\\\"SY\" = 1 } _state;\n"
				       "\t\tinteger { size = 64; align = 8; signed = false; "
				       "base = 10; } _ip;\n"
				       "\t\tstring { encoding = UTF8; } _ip_sym;\n"));
	trev__buf_free(&b);
	trev_ctf_stream_init(&s, 0, false, TREV_CTF_PACKET_SIZE);
	strs[1] = strs[2];
	assert_int_equal(trev_ctf_stream_event_strs(&s, &ev, rec, sizeof(rec), 1, NULL, strs,
						    why, sizeof(why)), 0);
	pkt = trev_ctf_stream_close(&s);
	assert_non_null(pkt);
	assert_int_equal(pkt->len, 52 + 12 + sizeof(want));
	assert_memory_equal(pkt->data + 52 + 12, want, sizeof(want));
	trev_ctf_stream_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field_map),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_record_le),
		cmocka_unit_test(test_record_be),
		cmocka_unit_test(test_record_bad),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_metadata),
		cmocka_unit_test(test_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
