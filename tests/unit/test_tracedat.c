/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trace.dat writer's structure, from a made-up source (no tracing at
 * all: the writer must depend on nothing but the source): 3 CPUs with CPU 1
 * empty, known texts and pages. Each file is read back byte by byte with
 * tests/tracedat/datfile.h: section offsets, sizes, option ids, CPU tables,
 * page alignment, and the pages themselves unchanged. Then the errors, and
 * the kallsyms section: which fields print fmts print as code addresses
 * (a table of print fmts), and their values named in the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <trev/trev.h>
#include <trev/tracedat.h>

#include "../tracedat/datfile.h"
#include "tracedat/tracedat_internal.h"

#define NR_CPUS 3

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
static const char fmt_a[] = "name: ev_a\nID: 1000\nformat:\n\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: \"x=%d\", REC->x\n";
static const char fmt_b[] = "name: ev_b\nID: 1001\nformat:\n\tfield:int y;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: \"y=%d\", REC->y\n";
static const char fmt_c[] = "name: other\nID: 1002\nformat:\n\tfield:int z;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: \"z=%d\", REC->z\n";
static const char fmt_print[] = "name: print\nID: 5\nformat:\n\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n\nprint fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

/* What the fake source serves; fail_path makes one file fail with fail_err. */
static const struct { const char *path, *text; } files[] = {
	{ "events/header_page", header_page },
	{ "events/header_event", "# compressed entry header\n" },
	{ "available_events", "sysa:ev_a\nsysb:other\nsysa:ev_b\n" },
	{ "events/sysa/ev_a/format", fmt_a },
	{ "events/sysa/ev_b/format", fmt_b },
	{ "events/sysb/other/format", fmt_c },
	{ "events/ftrace/print/format", fmt_print },
	{ "events/ftrace/print/id", "5\n" },
	{ "printk_formats", "0x1234 : \"hello %d\\n\"\n" },
	{ "saved_cmdlines", "100 main\n101 worker\n" },
	{ "trace_clock", "[local] mono counter\n" },
	{ "per_cpu/cpu0/stats", "entries: 0\noverrun: 5\n" },
	{ "per_cpu/cpu1/stats", "entries: 0\noverrun: 0\n" },
	{ "per_cpu/cpu2/stats", "entries: 0\noverrun: 0\n" },
};
static const char *fail_path;
static int fail_err;
static const char *cmdlines;	/* saved_cmdlines instead of the table's, if set */
static int pages_left[NR_CPUS];

static ssize_t fake_read_file(const struct trev_dat_source *src, const char *path, char **text)
{
	(void)src;
	if (fail_path && !strcmp(path, fail_path))
		return fail_err;
	if (cmdlines && !strcmp(path, "saved_cmdlines")) {
		*text = strdup(cmdlines);
		return (ssize_t)strlen(cmdlines);
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (!strcmp(files[i].path, path)) {
			*text = strdup(files[i].text);
			return (ssize_t)strlen(files[i].text);
		}
	}
	return -ENOENT;
}

static ssize_t fake_list_dir(const struct trev_dat_source *src, const char *path, char **text)
{
	(void)src;
	if (strcmp(path, "events/ftrace"))
		return -ENOENT;
	*text = strdup("enable\nprint\n");
	return 13;
}

/* Page n of CPU c: a time stamp, one 8-byte record, and a byte pattern. */
static void make_page(unsigned char *page, int cpu, int n)
{
	uint64_t ts = 1000000000ull * (uint64_t)(n + 1) + (uint64_t)cpu, commit = 12;

	memset(page, 0xa0 + cpu * 16 + n, TREV_DAT_PAGE_SIZE);
	memcpy(page, &ts, 8);
	if (cpu == 0 && n == 1)
		commit |= 1ull << 31;	/* lost events before it, no count */
	memcpy(page + 8, &commit, 8);
}

static int fake_read_page(const struct trev_dat_source *src, int cpu, void *page,
			  unsigned int flags)
{
	(void)src;
	(void)flags;
	if (pages_left[cpu] == 0)
		return 0;
	make_page(page, cpu, cpu == 0 ? 2 - pages_left[cpu] : 0);
	pages_left[cpu]--;
	return 1;
}

static const struct trev_dat_source fake = {
	.read_file = fake_read_file,
	.list_dir = fake_list_dir,
	.read_page = fake_read_page,
};

static char path[256];

static void *read_whole(const char *file, uint64_t *size)
{
	struct stat st;
	void *buf;
	int fd = open(file, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	*size = (uint64_t)st.st_size;
	return buf;
}

/* Record CPU 0: 2 pages, CPU 1: none, CPU 2: 1 page, and parse the file. */
static void *record(int version, struct datfile *df)
{
	struct trev_dat *dat;
	uint64_t size;
	void *map;

	pages_left[0] = 2;
	pages_left[1] = 0;
	pages_left[2] = 1;
	fail_path = NULL;
	assert_int_equal(trev_dat_open(&dat, path, version, &fake), 0);
	assert_int_equal(trev_dat_nr_cpus(dat), NR_CPUS);
	assert_int_equal(trev_dat_drain(dat), 3);
	assert_int_equal(trev_dat_finish(dat), 0);
	map = read_whole(path, &size);
	if (df_parse(df, map, size))
		fail_msg("v%d: %s", version, df->err);
	return map;
}

static void check_text(const struct df_text *t, const char *want)
{
	assert_int_equal(t->len, strlen(want));
	assert_memory_equal(t->p, want, t->len);
}

/* What both versions hold, read back. */
static void check_common(const struct datfile *df, int version)
{
	static const uint16_t want_ids[] = { 2, 2, 2, 4, 5, 9 };
	const struct df_option *o;
	unsigned char page[TREV_DAT_PAGE_SIZE];

	assert_int_equal(df->version, version);
	assert_int_equal(df->long_size, (int)sizeof(long));
	check_text(&df->header_page, header_page);
	check_text(&df->header_event, "# compressed entry header\n");
	/* ftrace first, then the systems in order of appearance, events grouped. */
	assert_int_equal(df->nr_ftrace, 1);
	assert_int_equal(df->nr_fmts, 4);
	assert_string_equal(df->fmts[0].system, "ftrace");
	check_text(&df->fmts[0].text, fmt_print);
	assert_string_equal(df->fmts[1].system, "sysa");
	check_text(&df->fmts[1].text, fmt_a);
	assert_string_equal(df->fmts[2].system, "sysa");
	check_text(&df->fmts[2].text, fmt_b);
	assert_string_equal(df->fmts[3].system, "sysb");
	check_text(&df->fmts[3].text, fmt_c);
	/* No trace_printk record in the pages: kallsyms is empty. */
	assert_int_equal(df->kallsyms.len, 0);
	check_text(&df->printk, "0x1234 : \"hello %d\\n\"\n");
	check_text(&df->cmdlines, "100 main\n101 worker\n");

	/* CPUSTAT per CPU, in order, TRACECLOCK, UNAME, VERSION, each NUL-terminated. */
	for (size_t i = 0; i < sizeof(want_ids) / sizeof(want_ids[0]); i++) {
		int nth = i < 3 ? (int)i : 0;

		o = df_option(df, want_ids[i], nth);
		assert_non_null(o);
		assert_true(o->len > 0);
		assert_int_equal(o->data[o->len - 1], '\0');
	}
	o = df_option(df, 2, 0);
	assert_string_equal((const char *)o->data, "entries: 0\noverrun: 5\n");
	assert_null(df_option(df, 2, 3));
	assert_string_equal((const char *)df_option(df, 4, 0)->data, "[local] mono counter\n");
	assert_memory_equal(df_option(df, 9, 0)->data, "trev ", 5);

	/* The CPU table: sizes, the empty CPU, and the pages as they came. */
	assert_int_equal(df->nr_cpus, NR_CPUS);
	assert_int_equal(df->cpu_size[0], 2 * TREV_DAT_PAGE_SIZE);
	assert_int_equal(df->cpu_size[1], 0);
	assert_int_equal(df->cpu_size[2], TREV_DAT_PAGE_SIZE);
	assert_int_equal(df->cpu_off[1] % TREV_DAT_PAGE_SIZE, 0);
	for (int n = 0; n < 2; n++) {
		make_page(page, 0, n);
		assert_memory_equal(df->map + df->cpu_off[0] + (uint64_t)n * TREV_DAT_PAGE_SIZE,
				    page, TREV_DAT_PAGE_SIZE);
	}
	make_page(page, 2, 0);
	assert_memory_equal(df->map + df->cpu_off[2], page, TREV_DAT_PAGE_SIZE);
	assert_int_equal(df->cpu_id[2], 2);
}

static void test_v6_layout(void **state)
{
	struct datfile *df = malloc(sizeof(*df));
	void *map;

	(void)state;
	map = record(6, df);
	check_common(df, 6);
	/* The byte offsets docs/formats.md, "Version 6" gives. */
	assert_memory_equal((const char *)map + 10, "6\0", 2);
	assert_memory_equal((const char *)map + 18, "header_page\0", 12);
	assert_int_equal(df->header_page.p - (const char *)map, 38);
	/* v6: the trace_clock text follows the CPU table (TRACECLOCK is there). */
	check_text(&df->clock, "[local] mono counter\n");
	/* The data starts at the first page boundary after it; CPU 2 follows CPU 0. */
	assert_int_equal(df->cpu_off[0], (uint64_t)(df->clock.p - (const char *)map + df->clock.len +
						    TREV_DAT_PAGE_SIZE - 1) / TREV_DAT_PAGE_SIZE *
						   TREV_DAT_PAGE_SIZE);
	assert_int_equal(df->cpu_off[2], df->cpu_off[0] + 2 * TREV_DAT_PAGE_SIZE);
	assert_int_equal(df->size, df->cpu_off[2] + TREV_DAT_PAGE_SIZE);
	/* No v7 option in a v6 file. */
	for (uint16_t id = 16; id <= 21; id++)
		assert_null(df_option(df, id, 0));
	assert_null(df_option(df, 3, 0));
	free(map);
	free(df);
}

static void test_v7_layout(void **state)
{
	static const uint16_t order[] = { 16, 17, 18, 19, 20, 21, 0, 3, 15 };
	struct datfile *df = malloc(sizeof(*df));
	const struct df_option *o;
	void *map;

	(void)state;
	map = record(7, df);
	check_common(df, 7);
	assert_memory_equal((const char *)map + 10, "7\0", 2);
	assert_memory_equal((const char *)map + 18, "none\0\0", 6);
	/* Sections in the order written, each right after the previous one. */
	for (size_t i = 1; i < sizeof(order) / sizeof(order[0]); i++)
		assert_int_equal(df->sec_off[order[i]],
				 df->sec_off[order[i - 1]] + 16 + df->sec_size[order[i - 1]]);
	assert_int_equal(df->sec_off[16], 32);
	assert_int_equal(df->sec_off[15] + 16 + df->sec_size[15], df->size);
	/* The flyrecord section holds the padding and every page. */
	assert_int_equal(df->cpu_off[0] % TREV_DAT_PAGE_SIZE, 0);
	assert_true(df->cpu_off[0] - (df->sec_off[3] + 16) < TREV_DAT_PAGE_SIZE);
	assert_int_equal(df->sec_off[3] + 16 + df->sec_size[3], df->cpu_off[2] + TREV_DAT_PAGE_SIZE);
	o = df_option(df, 8, 0);
	assert_non_null(o);
	assert_int_equal(o->len, 4);
	assert_int_equal(*(const uint32_t *)o->data, NR_CPUS);
	/* BUFFER names the clock alone. */
	o = df_option(df, 3, 0);
	assert_string_equal((const char *)o->data + 9, "local");
	/* The last option is DONE with a zero offset. */
	assert_int_equal(df->opts[df->nr_opts - 1].id, 0);
	assert_int_equal(df->opts[df->nr_opts - 1].len, 8);
	free(map);
	free(df);
}

/* The streaming calls and the errors: nothing written on failure. */
static void test_errors(void **state)
{
	struct trev_dat_source nocpu = fake;
	struct trev_dat *dat;
	unsigned char page[TREV_DAT_PAGE_SIZE] = { 0 };

	(void)state;
	fail_path = NULL;
	assert_int_equal(trev_dat_open(&dat, path, 5, &fake), -EINVAL);
	assert_int_equal(trev_dat_open(&dat, "", 6, &fake), -EINVAL);
	nocpu.instance = "instances/none/";
	assert_int_equal(trev_dat_open(&dat, path, 6, &nocpu), -EINVAL);

	unlink(path);
	assert_int_equal(trev_dat_open(&dat, path, 6, &fake), 0);
	assert_int_equal(trev_dat_add_page(dat, NR_CPUS, page), -EINVAL);
	assert_int_equal(trev_dat_add_page(dat, -1, page), -EINVAL);
	assert_int_equal(trev_dat_add_page(dat, 1, page), 0);
	fail_path = "saved_cmdlines";
	fail_err = -EIO;
	assert_int_equal(trev_dat_finish(dat), -EIO);
	assert_int_equal(access(path, F_OK), -1);

	fail_path = "events/sysa/ev_b/format";	/* gone since available_events: skipped */
	fail_err = -ENOENT;
	assert_int_equal(trev_dat_open(&dat, path, 7, &fake), 0);
	assert_int_equal(trev_dat_finish(dat), 0);
	fail_path = NULL;
	assert_int_equal(trev_dat_open(&dat, path, 6, &fake), 0);
	trev_dat_abort(dat);
}

/* trev_record_dat() on the real tree: an empty buffer makes a valid empty file. */
static void test_record_empty(void **state)
{
	struct datfile *df = malloc(sizeof(*df));
	uint64_t size;
	void *map;

	(void)state;
	for (int v = 6; v <= 7; v++) {
		assert_int_equal(trev_record_dat(NULL, path, v), 0);
		map = read_whole(path, &size);
		if (df_parse(df, map, size))
			fail_msg("v%d: %s", v, df->err);
		assert_true(df->nr_cpus >= 1);
		for (int cpu = 0; cpu < df->nr_cpus; cpu++)
			assert_int_equal(df->cpu_size[cpu], 0);
		assert_true(df->nr_ftrace >= 4);	/* print, bprint, bputs, raw_data */
		free(map);
	}
	assert_int_equal(trev_record_dat("instances/nosuch/", path, 6), -EINVAL);
	free(df);
}

/* ---- code-address fields ---------------------------------------------------------------- */

#define CF_FIELDS \
	"format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n" \
	"\n" \
	"\tfield:void * a;\toffset:8;\tsize:8;\tsigned:0;\n" \
	"\tfield:unsigned long b;\toffset:16;\tsize:8;\tsigned:0;\n" \
	"\tfield:unsigned int u32;\toffset:24;\tsize:4;\tsigned:0;\n" \
	"\tfield:short s16;\toffset:28;\tsize:2;\tsigned:1;\n" \
	"\tfield:unsigned long arr[2];\toffset:32;\tsize:16;\tsigned:0;\n" \
	"\tfield:__data_loc char[] name;\toffset:48;\tsize:4;\tsigned:0;\n" \
	"\tfield:int n;\toffset:52;\tsize:4;\tsigned:1;\n" \
	"\n" \
	"print fmt: "

/* Print fmts and the fields they print as code addresses: offsets, 0-terminated. */
static const struct {
	const char *fmt;
	int want[4];
} cf_cases[] = {
	{ "\"%ps %pS\", REC->a, REC->b", { 8, 16 } },
	{ "\"%pS\", (void *)REC->b", { 16 } },
	{ "\"%pF %pf %pB\", ((void *)(REC->a)), REC->u32, REC->b", { 8, 24, 16 } },
	{ "\"%pSR x\", REC->a", { 8 } },
	/* Every conversion and '*' takes an argument; "%%" none. */
	{ "\"%d %*pb %.*s %pS\", REC->n, REC->n, REC->arr, REC->n, __get_str(name), REC->b",
	  { 16 } },
	{ "\"100%% %%pS %ps\", REC->a", { 8 } },
	{ "\"%-08lx %5.3s %hhd %llu %zu %pS\", REC->b, \"x\", REC->n, REC->b, REC->b, REC->a",
	  { 8 } },
	/* Commas and parentheses inside arguments, quotes inside strings. */
	{ "\"%s \\\"%d\\\" %ps\", __print_symbolic(REC->n, { 1, \"a,(b\" }), f(REC->n, 2), REC->a",
	  { 8 } },
	/* Adjacent literals are one string. */
	{ "\"%d \" \"%pS\", REC->n, REC->b", { 16 } },
	/* Not a field alone, not a scalar of 4 or 8 bytes, not a code conversion: none. */
	{ "\"%pS\", REC->a + 4", { 0 } },
	{ "\"%pS\", (REC->a) + 4", { 0 } },
	{ "\"%pS\", REC->arr", { 0 } },
	{ "\"%pS\", REC->s16", { 0 } },
	{ "\"%pS\", REC->name", { 0 } },
	{ "\"%pS\", REC->nosuch", { 0 } },
	{ "\"%pS\", REC->common_pid", { 4 } },
	{ "\"%p %pK %pI4 %px\", REC->a, REC->a, REC->a, REC->b", { 0 } },
	{ "\"%pS\", RECX->a", { 0 } },
	{ "\"%d%\", REC->n, REC->a", { 0 } },
	{ "\"%ps\"", { 0 } },
};

static void test_code_fields(void **state)
{
	struct trev_dat_code_field f[8];
	char format[2048];
	int id;

	(void)state;
	for (size_t i = 0; i < sizeof(cf_cases) / sizeof(cf_cases[0]); i++) {
		int n, want_n = 0;

		snprintf(format, sizeof(format), "name: ev\nID: %zu\n" CF_FIELDS "%s\n", 40 + i,
			 cf_cases[i].fmt);
		while (want_n < 4 && cf_cases[i].want[want_n])
			want_n++;
		n = trev__dat_code_fields(format, &id, f, 8);
		if (n != want_n)
			fail_msg("case %zu (%s): %d fields, not %d", i, cf_cases[i].fmt, n, want_n);
		assert_int_equal(id, 40 + (int)i);
		for (int k = 0; k < n; k++) {
			assert_int_equal(f[k].offset, cf_cases[i].want[k]);
			assert_int_equal(f[k].size, f[k].offset == 24 || f[k].offset == 4 ? 4 : 8);
		}
	}
	/* No room: counted, not stored. */
	assert_int_equal(trev__dat_code_fields("ID: 7\n" CF_FIELDS "\"%ps %ps\", REC->a, REC->b\n",
					       &id, f, 1), 2);
	assert_int_equal(id, 7);
	assert_int_equal(f[0].offset, 8);
	assert_int_equal(trev__dat_code_fields("name: x\n" CF_FIELDS "\"%ps\", REC->a\n", &id, f, 8),
			 -EINVAL);
	assert_int_equal(trev__dat_code_fields("name: x\nID: 3\n", &id, f, 8), -EINVAL);
}

/*
 * A source whose event ev_code prints "func" with %ps and "data" with %p,
 * and whose format appears only once late_format is set (an event
 * registered after trev_dat_open()); symbol() names every address.
 */
static const char fmt_code[] =
	"name: ev_code\nID: 1003\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:void * func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:void * data;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\nprint fmt: \"func=%ps data=%p\", REC->func, REC->data\n";
static int late_format;

static ssize_t code_read_file(const struct trev_dat_source *src, const char *file, char **text)
{
	const char *t = NULL;

	if (!strcmp(file, "available_events"))
		t = late_format ? "sysa:ev_a\nsysc:ev_code\n" : "sysa:ev_a\n";
	else if (!strcmp(file, "events/sysc/ev_code/format") && late_format)
		t = fmt_code;
	if (!t)
		return fake_read_file(src, file, text);
	*text = strdup(t);
	return (ssize_t)strlen(t);
}

static int code_symbol(const struct trev_dat_source *src, uint64_t addr, char *name, size_t size,
		       uint64_t *start)
{
	(void)src;
	snprintf(name, size, "fn_%llx", (unsigned long long)addr);
	*start = addr;
	return 0;
}

/* A page of ev_code records, one per function address in @funcs (0-ended). */
static void make_code_page(unsigned char *page, const uint64_t *funcs)
{
	uint64_t ts = 1000, commit = 0;
	unsigned char *p = page + 16;

	memset(page, 0, TREV_DAT_PAGE_SIZE);
	for (; *funcs; funcs++) {
		uint32_t hdr = 24 / 4;		/* type_len: 6 words of payload, delta 0 */
		uint16_t type = 1003;
		uint64_t data = *funcs + 0x1000;

		memcpy(p, &hdr, 4);
		memcpy(p + 4, &type, 2);
		memcpy(p + 4 + 8, funcs, 8);
		memcpy(p + 4 + 16, &data, 8);
		p += 4 + 24;
		commit += 4 + 24;
	}
	memcpy(page, &ts, 8);
	memcpy(page + 8, &commit, 8);
}

static void test_code_kallsyms(void **state)
{
	static const uint64_t funcs[] = { 0x401000, 0x402000, 0x401000, 0 };
	static const char want[] =
		"0000000000401000 t fn_401000\n"
		"0000000000402000 t fn_402000\n"
		"ffffffffffffffff t __trev_kallsyms_end\n";
	struct trev_dat_source src = fake;
	unsigned char page[TREV_DAT_PAGE_SIZE];
	struct datfile *df = malloc(sizeof(*df));
	struct trev_dat *dat;
	uint64_t size;
	void *map;

	(void)state;
	src.read_file = code_read_file;
	src.symbol = code_symbol;
	fail_path = NULL;
	make_code_page(page, funcs);
	/* Known at the start; then registered late, found when the pages are read again. */
	for (int late = 0; late <= 1; late++) {
		late_format = !late;
		assert_int_equal(trev_dat_open(&dat, path, 7, &src), 0);
		assert_int_equal(trev_dat_add_page(dat, 1, page), 0);
		if (late) {
			/* A snapshot before the format exists names nothing yet. */
			assert_int_equal(trev_dat_snapshot(dat), 0);
			late_format = 1;
		}
		assert_int_equal(trev_dat_finish(dat), 0);
		map = read_whole(path, &size);
		if (df_parse(df, map, size))
			fail_msg("%s", df->err);
		check_text(&df->kallsyms, want);
		free(map);
	}
	free(df);
}

/*
 * The main stream (docs/formats.md, "CPU data"): the first CPU to have a
 * page goes first in the data, written in place; the others follow in CPU
 * order. @dir: where the file goes; @main_pages: the main CPU's (CPU 2's)
 * pages, @cmd_len: the bytes of saved_cmdlines at the end (a snapshot
 * before the pages saw a short one), so that the metadata ends before the
 * stream's start, or after it.
 */
static void main_stream(int version, const char *dir, uint64_t main_pages, size_t cmd_len)
{
	struct datfile *df = malloc(sizeof(*df));
	unsigned char page[TREV_DAT_PAGE_SIZE];
	char file[512], *names = NULL;
	struct trev_dat *dat;
	uint64_t size, meta_end;
	unsigned char *map;

	snprintf(file, sizeof(file), "%s/test_tracedat.%d.main.dat", dir, (int)getpid());
	fail_path = NULL;
	cmdlines = NULL;
	assert_int_equal(trev_dat_open(&dat, file, version, &fake), 0);
	assert_int_equal(trev_dat_snapshot(dat), 0);
	for (uint64_t n = 0; n < main_pages; n++) {
		make_page(page, 2, (int)n);
		assert_int_equal(trev_dat_add_page(dat, 2, page), 0);
		if (n == 0) {
			for (int k = 0; k < 2; k++) {
				make_page(page, 0, k);
				assert_int_equal(trev_dat_add_page(dat, 0, page), 0);
			}
		}
	}
	if (cmd_len) {
		names = malloc(cmd_len + 1);
		assert_non_null(names);
		for (size_t i = 0; i < cmd_len; i++)
			names[i] = i % 16 == 15 ? '\n' : 'a' + (char)(i % 7);
		names[cmd_len] = '\0';
		cmdlines = names;
	}
	assert_int_equal(trev_dat_finish(dat), 0);
	cmdlines = NULL;
	map = read_whole(file, &size);
	unlink(file);
	if (df_parse(df, map, size))
		fail_msg("v%d, %s, %llu pages: %s", version, dir, (unsigned long long)main_pages,
			 df->err);
	assert_int_equal(df->cmdlines.len, cmd_len ? cmd_len : strlen("100 main\n101 worker\n"));

	/* CPU 2 first, then CPU 0; every page as it came. */
	assert_int_equal(df->cpu_size[2], main_pages * TREV_DAT_PAGE_SIZE);
	assert_int_equal(df->cpu_size[1], 0);
	assert_int_equal(df->cpu_size[0], 2 * TREV_DAT_PAGE_SIZE);
	assert_int_equal(df->cpu_off[0], df->cpu_off[2] + df->cpu_size[2]);
	for (uint64_t n = 0; n < main_pages; n++) {
		make_page(page, 2, (int)n);
		assert_memory_equal(map + df->cpu_off[2] + n * TREV_DAT_PAGE_SIZE, page,
				    TREV_DAT_PAGE_SIZE);
	}
	for (int k = 0; k < 2; k++) {
		make_page(page, 0, k);
		assert_memory_equal(map + df->cpu_off[0] + (uint64_t)k * TREV_DAT_PAGE_SIZE, page,
				    TREV_DAT_PAGE_SIZE);
	}
	/* The file ends with the data (v6) or the strings section right after it (v7). */
	assert_int_equal(version == 6 ? df->size : df->sec_off[15], df->cpu_off[0] + 2 * TREV_DAT_PAGE_SIZE);
	/*
	 * The data starts at the page after the metadata; a large stream on a
	 * file system that cannot collapse a range keeps the slack it was
	 * given (the metadata's size again for a checkpoint's second copy,
	 * an eighth of it and 16 KB, rounded up: with this small metadata,
	 * less than the bound below).
	 */
	meta_end = version == 6 ? (uint64_t)(df->clock.p - (const char *)map) + df->clock.len
				: df->sec_off[3] + 16;
	assert_true(df->cpu_off[2] >= meta_end);
	if (main_pages * TREV_DAT_PAGE_SIZE <= (8u << 20))
		assert_true(df->cpu_off[2] - meta_end < TREV_DAT_PAGE_SIZE);
	else
		assert_true(df->cpu_off[2] - meta_end < TREV_DAT_PAGE_SIZE + meta_end / 8 + 20480);
	free(names);
	free(map);
	free(df);
}

static const char *tmp_dir(void)
{
	return getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
}

/* A small main stream, moved to the end of the metadata: smaller, then larger than guessed. */
static void test_main_stream(void **state)
{
	(void)state;
	for (int version = 6; version <= 7; version++) {
		main_stream(version, tmp_dir(), 3, 0);
		main_stream(version, tmp_dir(), 3, 300000);
	}
}

/*
 * A main stream over 8 MB: placed by fallocate() where the file system
 * can, or kept where it was written (a gap), or moved up past metadata
 * that grew; here and on a tmpfs, which has no COLLAPSE_RANGE.
 */
static void test_main_stream_large(void **state)
{
	struct stat st;

	(void)state;
	for (int version = 6; version <= 7; version++) {
		main_stream(version, tmp_dir(), 2100, 0);
		main_stream(version, tmp_dir(), 2100, 300000);
		if (stat("/dev/shm", &st) == 0 && access("/dev/shm", W_OK) == 0) {
			main_stream(version, "/dev/shm", 2100, 0);
			main_stream(version, "/dev/shm", 2100, 300000);
		}
	}
}

/* An output that is a symlink is written through it; an older file is replaced. */
static void test_output_paths(void **state)
{
	struct datfile *df = malloc(sizeof(*df));
	char target[300], old[] = "old";
	struct stat st;
	uint64_t size;
	void *map;
	int fd;

	(void)state;
	snprintf(target, sizeof(target), "%s.target", path);
	unlink(path);
	unlink(target);
	assert_int_equal(symlink(target, path), 0);
	free(record(6, df));
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	map = read_whole(target, &size);
	assert_int_equal(df_parse(df, map, size), 0);
	check_common(df, 6);
	free(map);
	unlink(path);
	unlink(target);

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, old, 3), 3);
	close(fd);
	map = record(7, df);
	check_common(df, 7);
	free(map);
	free(df);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_code_fields),
		cmocka_unit_test(test_code_kallsyms),
		cmocka_unit_test(test_v6_layout),
		cmocka_unit_test(test_v7_layout),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_record_empty),
		cmocka_unit_test(test_main_stream),
		cmocka_unit_test(test_main_stream_large),
		cmocka_unit_test(test_output_paths),
	};
	int ret;

	snprintf(path, sizeof(path), "%s/test_tracedat.%d.dat",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(path);
	return ret;
}
