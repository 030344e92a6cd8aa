/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Made-up trace.dat files for `trev convert --to json` (tests/scripts/
 * convert_json.sh, bench/bench_convert_json.c), written by trev's writer
 * from a source of fixed formats and pages built here: every byte, time
 * stamp and thread id known, so the JSON can be compared with a golden file.
 *
 *   json_dat golden DIR    DIR/app.dat (process 100: threads 100 "app" on
 *                          CPU 0, 101 "worker" on CPU 1) and DIR/child.dat
 *                          (process 200 "child"): strings to escape, numbers
 *                          beyond 2^53, arrays, __print_symbolic, function
 *                          and function_graph records with an exit lost, an
 *                          exit without its entry and a call never ended,
 *                          trace_marker, lost events counted and not
 *   json_dat flood FILE N  N records over 2 CPUs and 4 threads: half
 *                          jt:sample, half funcgraph entry/exit pairs
 *   json_dat short FILE    a jt:sample record, then an ftrace:function
 *                          record of 12 bytes: its fields lie outside it
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trev/tracedat.h>

#define HDR_COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

enum { ID_FUNCTION = 1, ID_PRINT = 5, ID_FG_EXIT = 10, ID_FG_ENTRY = 11, ID_SAMPLE = 500 };

static const struct { const char *path, *text; } files[] = {
	{ "events/header_page",
	  "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	  "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	  "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	  "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n" },
	{ "events/header_event",
	  "# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
	  "\tarray       :   32 bits\n\n\tpadding     : type == 29\n"
	  "\ttime_extend : type == 30\n\ttime_stamp : type == 31\n\tdata max type_len  == 28\n" },
	{ "available_events", "jt:sample\n" },
	{ "events/jt/sample/format",
	  "name: sample\nID: 500\nformat:\n" HDR_COMMON
	  "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:int mode;\toffset:12;\tsize:4;\tsigned:1;\n"
	  "\tfield:unsigned long long big;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:char name[8];\toffset:24;\tsize:8;\tsigned:1;\n"
	  "\tfield:__data_loc char[] path;\toffset:32;\tsize:4;\tsigned:1;\n"
	  "\tfield:__data_loc int[] lat;\toffset:36;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"value=%d mode=%s big=%llu name=%s path=%s\", REC->value, "
	  "__print_symbolic(REC->mode, { 0, \"READ\" }, { 1, \"WRITE\" }), REC->big, REC->name, "
	  "__get_str(path)\n" },
	{ "events/ftrace/function/format",
	  "name: function\nID: 1\nformat:\n" HDR_COMMON
	  "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip\n" },
	{ "events/ftrace/function/id", "1\n" },
	{ "events/ftrace/print/format",
	  "name: print\nID: 5\nformat:\n" HDR_COMMON
	  "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:1;\n\n"
	  "print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n" },
	{ "events/ftrace/print/id", "5\n" },
	{ "events/ftrace/funcgraph_exit/format",
	  "name: funcgraph_exit\nID: 10\nformat:\n" HDR_COMMON
	  "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
	  "\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
	  "\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"<-- %ps (%u) (start: %llx  end: %llx) over: %u\", (void *)REC->func, "
	  "REC->depth, REC->calltime, REC->rettime, REC->depth\n" },
	{ "events/ftrace/funcgraph_exit/id", "10\n" },
	{ "events/ftrace/funcgraph_entry/format",
	  "name: funcgraph_entry\nID: 11\nformat:\n" HDR_COMMON
	  "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n\n"
	  "print fmt: \"--> %ps (%u)\", (void *)REC->func, REC->depth\n" },
	{ "events/ftrace/funcgraph_entry/id", "11\n" },
	{ "printk_formats", "" },
	{ "trace_clock", "[local] mono counter\n" },
	{ "per_cpu/cpu0/stats", "entries: 0\noverrun: 0\n" },
	{ "per_cpu/cpu1/stats", "entries: 0\noverrun: 0\n" },
};

/* The functions of the made-up program: name, start (each 0x100 long). */
static const struct { const char *name; uint64_t start; } syms[] = {
	{ "outer", 0x401000 }, { "inner", 0x401100 }, { "leaf", 0x401200 }, { "main", 0x401300 },
};

#define F_OUTER	0x401000
#define F_INNER	0x401100
#define F_LEAF	0x401200
#define F_MAIN	0x401300

/* A CPU's pages, built ahead (golden) or one at a time (flood). */
struct cpu_pages {
	uint8_t (*pages)[TREV_DAT_PAGE_SIZE];
	size_t nr, next;
	uint8_t cur[TREV_DAT_PAGE_SIZE];
	size_t len;		/* data bytes in cur */
	uint64_t last_ts;
	long long lost;		/* before cur's first record: > 0 a count, -1 unknown */
};

static const char *cmdlines;
static struct cpu_pages cpus[2];
/* flood: the records to make, and each CPU's next one */
static unsigned long long flood_n, flood_next[2];

static void die(const char *what, int err)
{
	fprintf(stderr, "json_dat: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static ssize_t src_read_file(const struct trev_dat_source *src, const char *path, char **text)
{
	const char *t = NULL;

	(void)src;
	if (!strcmp(path, "saved_cmdlines"))
		t = cmdlines;
	for (size_t i = 0; !t && i < sizeof(files) / sizeof(files[0]); i++)
		if (!strcmp(files[i].path, path))
			t = files[i].text;
	if (!t)
		return -ENOENT;
	*text = strdup(t);
	return *text ? (ssize_t)strlen(t) : -ENOMEM;
}

static ssize_t src_list_dir(const struct trev_dat_source *src, const char *path, char **text)
{
	static const char list[] = "enable\nfunction\nprint\nfuncgraph_exit\nfuncgraph_entry\n";

	(void)src;
	if (strcmp(path, "events/ftrace"))
		return -ENOENT;
	*text = strdup(list);
	return *text ? (ssize_t)strlen(list) : -ENOMEM;
}

static int src_symbol(const struct trev_dat_source *src, uint64_t addr, char *name, size_t size,
		      uint64_t *start)
{
	(void)src;
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		if (addr >= syms[i].start && addr < syms[i].start + 0x100) {
			snprintf(name, size, "%s", syms[i].name);
			*start = syms[i].start;
			return 0;
		}
	}
	return -ENOENT;
}

/* Close the page being built: its commit, lost flags and count; kept (golden). */
static void page_close(struct cpu_pages *c, uint8_t *out)
{
	uint64_t commit = c->len;

	if (c->lost > 0) {
		uint64_t n = (uint64_t)c->lost;

		commit |= 3ull << 30;	/* MISSED_EVENTS, MISSED_STORED */
		memcpy(c->cur + 16 + c->len, &n, 8);
	} else if (c->lost < 0) {
		commit |= 1ull << 31;
	}
	memcpy(c->cur + 8, &commit, 8);
	memcpy(out, c->cur, TREV_DAT_PAGE_SIZE);
	memset(c->cur, 0, sizeof(c->cur));
	c->len = 0;
	c->lost = 0;
}

static void page_keep(struct cpu_pages *c)
{
	void *p = realloc(c->pages, (c->nr + 1) * sizeof(*c->pages));

	if (!p)
		die("realloc", ENOMEM);
	c->pages = p;
	page_close(c, c->pages[c->nr++]);
}

/* Room for @len payload bytes (and a stored lost count) in the page being built? */
static bool page_room(const struct cpu_pages *c, size_t len)
{
	return 16 + c->len + 4 + 4 + 8 + ((len + 3) & ~3ul) + 8 <= TREV_DAT_PAGE_SIZE;
}

/* Append a record of @len bytes at @ts (the page has room). */
static void page_add(struct cpu_pages *c, uint64_t ts, const void *data, size_t len)
{
	size_t padded = (len + 3) & ~3ul;
	uint8_t *p = c->cur + 16 + c->len;
	uint64_t delta = c->len ? ts - c->last_ts : 0;
	uint32_t w;

	if (!c->len)
		memcpy(c->cur, &ts, 8);
	if (delta >= (1u << 27)) {
		w = 30 | (uint32_t)(delta & ((1u << 27) - 1)) << 5;
		memcpy(p, &w, 4);
		w = (uint32_t)(delta >> 27);
		memcpy(p + 4, &w, 4);
		p += 8;
		c->len += 8;
		delta = 0;
	}
	if (padded <= 112) {
		w = (uint32_t)(padded / 4) | (uint32_t)delta << 5;
		memcpy(p, &w, 4);
		p += 4;
		c->len += 4;
	} else {
		w = (uint32_t)delta << 5;
		memcpy(p, &w, 4);
		w = (uint32_t)padded + 4;
		memcpy(p + 4, &w, 4);
		p += 8;
		c->len += 8;
	}
	memset(p, 0, padded);
	memcpy(p, data, len);
	c->len += padded;
	c->last_ts = ts;
}

static void common(uint8_t *r, uint16_t type, int32_t pid)
{
	memset(r, 0, 8);
	memcpy(r, &type, 2);
	memcpy(r + 4, &pid, 4);
}

static size_t rec_sample(uint8_t *r, int pid, int32_t value, int32_t mode, uint64_t big,
			 const char *name, const char *path, const int32_t *lat, unsigned int nlat)
{
	size_t plen = strlen(path) + 1, off = 40;
	uint32_t loc;

	common(r, ID_SAMPLE, pid);
	memcpy(r + 8, &value, 4);
	memcpy(r + 12, &mode, 4);
	memcpy(r + 16, &big, 8);
	memset(r + 24, 0, 8);
	memcpy(r + 24, name, strnlen(name, 8));
	loc = (uint32_t)(plen << 16 | off);
	memcpy(r + 32, &loc, 4);
	memcpy(r + off, path, plen);
	off += plen;
	loc = (uint32_t)(nlat * 4 << 16 | off);
	memcpy(r + 36, &loc, 4);
	if (nlat)
		memcpy(r + off, lat, nlat * 4);
	return off + nlat * 4;
}

static size_t rec_fg_entry(uint8_t *r, int pid, uint64_t func, uint32_t depth)
{
	common(r, ID_FG_ENTRY, pid);
	memcpy(r + 8, &func, 8);
	memcpy(r + 16, &depth, 4);
	memset(r + 20, 0, 4);
	return 24;
}

static size_t rec_fg_exit(uint8_t *r, int pid, uint64_t func, uint32_t depth, uint64_t call,
			  uint64_t ret)
{
	uint32_t overrun = 0;

	common(r, ID_FG_EXIT, pid);
	memcpy(r + 8, &func, 8);
	memcpy(r + 16, &depth, 4);
	memcpy(r + 20, &overrun, 4);
	memcpy(r + 24, &call, 8);
	memcpy(r + 32, &ret, 8);
	return 40;
}

static size_t rec_function(uint8_t *r, int pid, uint64_t ip, uint64_t parent)
{
	common(r, ID_FUNCTION, pid);
	memcpy(r + 8, &ip, 8);
	memcpy(r + 16, &parent, 8);
	return 24;
}

static size_t rec_print(uint8_t *r, int pid, uint64_t ip, const char *text)
{
	common(r, ID_PRINT, pid);
	memcpy(r + 8, &ip, 8);
	memcpy(r + 16, text, strlen(text) + 1);
	return 16 + strlen(text) + 1;
}

#define T0	1000000000ull

static void add(int cpu, uint64_t ts, const uint8_t *r, size_t len)
{
	page_add(&cpus[cpu], T0 + ts, r, len);
}

/* The golden trace of process 100 (see the top of the file). */
static void golden_app(void)
{
	static const int32_t lat[3] = { 1, -2, 3 };
	uint8_t r[256];

	add(0, 0, r, rec_sample(r, 100, -5, 1, 1ull << 60, "main",
				"/a \"q\" \\ \t\x01 caf\xc3\xa9 \xff end", lat, 3));
	add(0, 500, r, rec_fg_entry(r, 100, F_OUTER, 0));
	add(0, 600, r, rec_fg_entry(r, 100, F_INNER + 0x10, 1));
	add(0, 700, r, rec_fg_entry(r, 100, F_LEAF, 2));
	add(0, 800, r, rec_fg_exit(r, 100, F_LEAF, 2, T0 + 700, T0 + 800));
	/* inner's exit is not recorded */
	add(0, 900, r, rec_fg_exit(r, 100, F_OUTER, 0, T0 + 500, T0 + 900));
	add(0, 1000, r, rec_function(r, 100, F_LEAF + 0x10, F_OUTER + 0x20));
	add(0, 1100, r, rec_print(r, 100, F_MAIN, "hello\n"));
	page_keep(&cpus[0]);
	cpus[0].lost = 7;
	add(0, 2000, r, rec_fg_exit(r, 100, F_INNER, 1, T0 + 1900, T0 + 2000));
	add(0, 2100, r, rec_fg_entry(r, 100, 0x999000, 0));
	add(0, 2200, r, rec_sample(r, 100, 3, 7, 5, "xxxxxxxx", "", NULL, 0));
	page_keep(&cpus[0]);

	add(1, 300, r, rec_sample(r, 101, 1, 0, (1ull << 53) - 1, "w", "/w", lat, 1));
	page_keep(&cpus[1]);
	cpus[1].lost = -1;
	add(1, 3000, r, rec_sample(r, 101, 2, 1, 1ull << 53, "w", "/w2", lat + 1, 2));
	page_keep(&cpus[1]);
}

static void golden_child(void)
{
	uint8_t r[256];

	add(0, 400, r, rec_sample(r, 200, 200, 0, 0, "child", "/c", NULL, 0));
	add(0, 2500, r, rec_function(r, 200, F_MAIN, F_OUTER));
	page_keep(&cpus[0]);
}

/*
 * flood: record i (of N) is on CPU (i / 2) % 2, so each CPU has pairs in
 * turn: two jt:sample records, or a funcgraph entry and its exit.
 */
static size_t flood_record(uint8_t *r, unsigned long long i, uint64_t *ts)
{
	static const int32_t lat[2] = { 7, 8 };
	int cpu = (int)(i / 2 % 2);
	int pid = 1000 + cpu * 2 + (int)(i / 4 % 2);

	*ts = T0 + i * 100;
	if (i / 4 % 2 == 0)
		return rec_sample(r, pid, (int32_t)i, (int32_t)(i & 1), i, "flood", "/x/y", lat, 2);
	if (i % 2 == 0)
		return rec_fg_entry(r, pid, F_OUTER, 0);
	return rec_fg_exit(r, pid, F_OUTER, 0, *ts - 100, *ts);
}

static int src_read_page(const struct trev_dat_source *src, int cpu, void *page,
			 unsigned int flags)
{
	struct cpu_pages *c;

	(void)src;
	(void)flags;
	if (cpu < 0 || cpu > 1)
		return 0;
	c = &cpus[cpu];
	if (flood_n) {
		uint8_t r[256];

		for (;;) {
			/* The k-th record of this CPU: i = (k / 2) * 4 + cpu * 2 + k % 2. */
			unsigned long long k = flood_next[cpu];
			unsigned long long i = k / 2 * 4 + (unsigned long long)cpu * 2 + k % 2;
			uint64_t ts;
			size_t len;

			if (i >= flood_n)
				break;
			len = flood_record(r, i, &ts);
			if (!page_room(c, len))
				break;
			page_add(c, ts, r, len);
			flood_next[cpu]++;
		}
		if (!c->len)
			return 0;
		page_close(c, page);
		return 1;
	}
	if (c->next == c->nr)
		return 0;
	memcpy(page, c->pages[c->next++], TREV_DAT_PAGE_SIZE);
	return 1;
}

static const struct trev_dat_source src = {
	.read_file = src_read_file,
	.list_dir = src_list_dir,
	.read_page = src_read_page,
	.symbol = src_symbol,
};

static void write_file(const char *path)
{
	struct trev_dat *dat;
	long n;
	int ret = trev_dat_open(&dat, path, 7, &src);

	if (ret)
		die(path, ret);
	do {
		n = trev_dat_drain(dat);
		if (n < 0)
			die("trev_dat_drain", (int)n);
	} while (n > 0);
	ret = trev_dat_finish(dat);
	if (ret)
		die(path, ret);
	for (int i = 0; i < 2; i++) {
		free(cpus[i].pages);
		memset(&cpus[i], 0, sizeof(cpus[i]));
	}
}

int main(int argc, char **argv)
{
	char path[4096];

	if (argc == 3 && !strcmp(argv[1], "golden")) {
		cmdlines = "100 app\n101 worker\n";
		golden_app();
		snprintf(path, sizeof(path), "%s/app.dat", argv[2]);
		write_file(path);
		cmdlines = "200 child\n";
		golden_child();
		snprintf(path, sizeof(path), "%s/child.dat", argv[2]);
		write_file(path);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "flood")) {
		flood_n = strtoull(argv[3], NULL, 10);
		cmdlines = "1000 flood-a\n1001 flood-b\n1002 flood-c\n1003 flood-d\n";
		if (!flood_n)
			die("flood: N", EINVAL);
		write_file(argv[2]);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "short")) {
		static const int32_t lat[1] = { 1 };
		uint8_t r[256];

		cmdlines = "100 app\n";
		add(0, 0, r, rec_sample(r, 100, 1, 0, 0, "s", "/s", lat, 1));
		add(0, 100, r, rec_function(r, 100, F_LEAF, F_OUTER) - 12);
		page_keep(&cpus[0]);
		write_file(argv[2]);
		return 0;
	}
	fprintf(stderr, "usage: json_dat golden DIR | json_dat flood FILE N | json_dat short FILE\n");
	return 2;
}
