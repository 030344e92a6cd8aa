/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A strict, independent parser of the trace.dat files trev writes (v6 and
 * v7, docs/formats.md, "trace.dat files"), for the tests: every length, offset, section and
 * option is checked against the bytes, and the first violation is reported
 * with its file offset. Header-only; the host's byte order is assumed.
 */
#ifndef TREV_TEST_DATFILE_H
#define TREV_TEST_DATFILE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DF_MAX_FMTS	1024
#define DF_MAX_OPTS	256
#define DF_MAX_CPUS	256

struct df_text {
	const char *p;
	uint64_t len;
};

struct df_option {
	uint16_t id;
	uint32_t len;
	const uint8_t *data;
	uint64_t pos;			/* file offset of its id */
};

struct datfile {
	const uint8_t *map;
	uint64_t size;
	int version;
	int long_size;
	uint32_t page_size;
	struct df_text header_page, header_event;
	struct { struct df_text text; const char *system; } fmts[DF_MAX_FMTS];
	int nr_fmts, nr_ftrace;
	struct df_text kallsyms, printk, cmdlines;
	struct df_option opts[DF_MAX_OPTS];
	int nr_opts;
	int nr_cpus;
	uint64_t cpu_off[DF_MAX_CPUS], cpu_size[DF_MAX_CPUS];
	uint32_t cpu_id[DF_MAX_CPUS];
	struct df_text clock;		/* v6: the text after the CPU table */
	uint64_t sec_off[32];		/* v7: section id -> offset of its header (0 none) */
	uint64_t sec_size[32];
	uint64_t options_off;		/* v7 */
	char err[256];
};

struct df_cur {
	struct datfile *df;
	uint64_t pos, end;
};

static bool df_fail(struct df_cur *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool df_fail(struct df_cur *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->df->err[0])
		return false;
	n = snprintf(c->df->err, sizeof(c->df->err), "at %llu: ", (unsigned long long)c->pos);
	va_start(ap, fmt);
	vsnprintf(c->df->err + n, sizeof(c->df->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return false;
}

static bool df_bytes(struct df_cur *c, void *out, uint64_t n)
{
	if (c->end - c->pos < n)
		return df_fail(c, "%llu bytes past the end", (unsigned long long)n);
	if (out)
		memcpy(out, c->df->map + c->pos, n);
	c->pos += n;
	return true;
}

static bool df_expect(struct df_cur *c, const void *want, uint64_t n, const char *what)
{
	if (c->end - c->pos < n || memcmp(c->df->map + c->pos, want, n))
		return df_fail(c, "expected %s", what);
	c->pos += n;
	return true;
}

static bool df_u16(struct df_cur *c, uint16_t *v) { return df_bytes(c, v, 2); }
static bool df_u32(struct df_cur *c, uint32_t *v) { return df_bytes(c, v, 4); }
static bool df_u64(struct df_cur *c, uint64_t *v) { return df_bytes(c, v, 8); }

/* A NUL-terminated string. */
static bool df_str(struct df_cur *c, const char **s)
{
	const uint8_t *p = c->df->map + c->pos, *nul = memchr(p, 0, c->end - c->pos);

	if (!nul)
		return df_fail(c, "unterminated string");
	*s = (const char *)p;
	c->pos += (uint64_t)(nul - p) + 1;
	return true;
}

static bool df_text64(struct df_cur *c, struct df_text *t)
{
	if (!df_u64(c, &t->len))
		return false;
	t->p = (const char *)c->df->map + c->pos;
	return df_bytes(c, NULL, t->len);
}

static bool df_text32(struct df_cur *c, struct df_text *t)
{
	uint32_t len = 0;

	if (!df_u32(c, &len))
		return false;
	t->len = len;
	t->p = (const char *)c->df->map + c->pos;
	return df_bytes(c, NULL, t->len);
}

static bool df_header_info(struct df_cur *c)
{
	return df_expect(c, "header_page", 12, "\"header_page\\0\"") &&
	       df_text64(c, &c->df->header_page) &&
	       df_expect(c, "header_event", 13, "\"header_event\\0\"") &&
	       df_text64(c, &c->df->header_event);
}

static bool df_add_fmt(struct df_cur *c, const char *system)
{
	struct datfile *df = c->df;

	if (df->nr_fmts == DF_MAX_FMTS)
		return df_fail(c, "too many formats");
	df->fmts[df->nr_fmts].system = system;
	if (!df_text64(c, &df->fmts[df->nr_fmts].text))
		return false;
	df->nr_fmts++;
	return true;
}

static bool df_ftrace(struct df_cur *c)
{
	uint32_t n = 0;

	if (!df_u32(c, &n))
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (!df_add_fmt(c, "ftrace"))
			return false;
	c->df->nr_ftrace = (int)n;
	return true;
}

static bool df_events(struct df_cur *c)
{
	uint32_t nsys = 0, n = 0;
	const char *sys;

	if (!df_u32(c, &nsys))
		return false;
	for (uint32_t i = 0; i < nsys; i++) {
		if (!df_str(c, &sys) || !df_u32(c, &n))
			return false;
		for (uint32_t j = 0; j < n; j++)
			if (!df_add_fmt(c, sys))
				return false;
	}
	return true;
}

/* Options until DONE; v7's DONE carries a u64 (the next options section, 0 here). */
static bool df_options(struct df_cur *c)
{
	struct datfile *df = c->df;

	for (;;) {
		struct df_option *o = &df->opts[df->nr_opts];
		uint64_t pos = c->pos;
		uint16_t id = 0;

		if (!df_u16(c, &id))
			return false;
		if (id == 0 && df->version == 6)
			return true;
		if (df->nr_opts == DF_MAX_OPTS)
			return df_fail(c, "too many options");
		o->id = id;
		o->pos = pos;
		if (!df_u32(c, &o->len))
			return false;
		o->data = df->map + c->pos;
		if (!df_bytes(c, NULL, o->len))
			return false;
		df->nr_opts++;
		if (id == 0) {
			uint64_t next;

			if (o->len != 8)
				return df_fail(c, "DONE of %u bytes", o->len);
			memcpy(&next, o->data, 8);
			if (next)
				return df_fail(c, "a second options section at %llu",
					       (unsigned long long)next);
			return true;
		}
	}
}

static const struct df_option *df_option(const struct datfile *df, uint16_t id, int nth)
{
	for (int i = 0; i < df->nr_opts; i++)
		if (df->opts[i].id == id && nth-- == 0)
			return &df->opts[i];
	return NULL;
}

/* Every CPU stream page-aligned, whole pages, inside the file (docs/formats.md, "CPU data"). */
static bool df_check_cpus(struct df_cur *c, uint64_t lo, uint64_t hi)
{
	struct datfile *df = c->df;

	for (int i = 0; i < df->nr_cpus; i++) {
		if (df->cpu_off[i] % df->page_size)
			return df_fail(c, "CPU %d data at %llu, not page-aligned", i,
				       (unsigned long long)df->cpu_off[i]);
		if (df->cpu_size[i] % df->page_size)
			return df_fail(c, "CPU %d size %llu, not whole pages", i,
				       (unsigned long long)df->cpu_size[i]);
		if (df->cpu_size[i] && (df->cpu_off[i] < lo || df->cpu_off[i] > hi ||
					hi - df->cpu_off[i] < df->cpu_size[i]))
			return df_fail(c, "CPU %d data [%llu, +%llu) outside [%llu, %llu)", i,
				       (unsigned long long)df->cpu_off[i],
				       (unsigned long long)df->cpu_size[i],
				       (unsigned long long)lo, (unsigned long long)hi);
		/* In any order (trev puts its main CPU first), but apart. */
		for (int j = 0; j < i; j++)
			if (df->cpu_size[j] && df->cpu_size[i] &&
			    df->cpu_off[i] < df->cpu_off[j] + df->cpu_size[j] &&
			    df->cpu_off[j] < df->cpu_off[i] + df->cpu_size[i])
				return df_fail(c, "CPU %d data overlaps CPU %d's", i, j);
	}
	return true;
}

static bool df_parse_v6(struct df_cur *c)
{
	struct datfile *df = c->df;
	uint32_t n = 0;
	uint64_t last = 0;

	if (!df_header_info(c) || !df_ftrace(c) || !df_events(c) ||
	    !df_text32(c, &df->kallsyms) || !df_text32(c, &df->printk) ||
	    !df_text64(c, &df->cmdlines) || !df_u32(c, &n))
		return false;
	if (n == 0 || n > DF_MAX_CPUS)
		return df_fail(c, "%u CPUs", n);
	df->nr_cpus = (int)n;
	if (!df_expect(c, "options  ", 10, "\"options  \\0\"") || !df_options(c) ||
	    !df_expect(c, "flyrecord", 10, "\"flyrecord\\0\""))
		return false;
	for (int i = 0; i < df->nr_cpus; i++) {
		df->cpu_id[i] = (uint32_t)i;
		if (!df_u64(c, &df->cpu_off[i]) || !df_u64(c, &df->cpu_size[i]))
			return false;
	}
	if (df_option(df, 4, 0) && !df_text64(c, &df->clock))
		return false;
	/* Only zeros up to the first page of data. */
	for (uint64_t p = c->pos; p < df->size && p % df->page_size; p++)
		if (df->map[p])
			return df_fail(c, "non-zero padding byte at %llu", (unsigned long long)p);
	if (!df_check_cpus(c, (c->pos + df->page_size - 1) / df->page_size * df->page_size,
			   df->size))
		return false;
	for (int i = 0; i < df->nr_cpus; i++)
		if (df->cpu_size[i] && df->cpu_off[i] + df->cpu_size[i] > last)
			last = df->cpu_off[i] + df->cpu_size[i];
	if (last && last != df->size)
		return df_fail(c, "%llu bytes after the last CPU's data",
			       (unsigned long long)(df->size - last));
	return true;
}

static bool df_parse_v7(struct df_cur *c)
{
	struct datfile *df = c->df;
	const struct df_option *buf;
	uint64_t strings_len = 0, fly_lo = 0, fly_hi = 0;
	const char *comp, *comp_ver, *name, *clock;
	struct df_cur sc;

	if (!df_str(c, &comp) || !df_str(c, &comp_ver))
		return false;
	if (strcmp(comp, "none") || comp_ver[0])
		return df_fail(c, "compression \"%s\" \"%s\"", comp, comp_ver);
	if (!df_u64(c, &df->options_off))
		return false;
	/* The chain: section after section, exactly to the end of the file
	 * (docs/formats.md, "Version 7"). */
	while (c->pos < df->size) {
		uint16_t id = 0, flags = 0;
		uint32_t desc = 0;
		uint64_t size = 0, start = c->pos;

		if (!df_u16(c, &id) || !df_u16(c, &flags) || !df_u32(c, &desc) || !df_u64(c, &size))
			return false;
		if (id >= 32 || df->sec_off[id])
			return df_fail(c, "section id %u unknown or repeated", id);
		if (flags)
			return df_fail(c, "section %u has flags %#x", id, flags);
		df->sec_off[id] = start;
		df->sec_size[id] = size;
		if (!df_bytes(c, NULL, size))
			return false;
		if (id == 15)
			strings_len = size;
	}
	if (!df->sec_off[15])
		return df_fail(c, "no strings section");
	if (df->options_off != df->sec_off[0] || !df->sec_off[0])
		return df_fail(c, "options offset %llu, section 0 at %llu",
			       (unsigned long long)df->options_off,
			       (unsigned long long)df->sec_off[0]);
	/* Every description is a string of the strings section. */
	for (int id = 0; id < 32; id++) {
		uint32_t desc = 0;

		if (!df->sec_off[id])
			continue;
		memcpy(&desc, df->map + df->sec_off[id] + 4, 4);
		if (desc >= strings_len)
			return df_fail(c, "section %d: description %u outside strings", id, desc);
	}

	sc = (struct df_cur){ df, df->sec_off[0] + 16, df->sec_off[0] + 16 + df->sec_size[0] };
	if (!df_options(&sc))
		return false;
	if (sc.pos != sc.end)
		return df_fail(&sc, "options section has %llu bytes after DONE",
			       (unsigned long long)(sc.end - sc.pos));
	/* Options 16..21 point at sections of the same id. */
	for (uint16_t id = 16; id <= 21; id++) {
		const struct df_option *o = df_option(df, id, 0);
		uint64_t off;

		if (!o || o->len != 8)
			return df_fail(c, "no option %u of 8 bytes", id);
		memcpy(&off, o->data, 8);
		if (off != df->sec_off[id])
			return df_fail(c, "option %u says %llu, section at %llu", id,
				       (unsigned long long)off, (unsigned long long)df->sec_off[id]);
	}
#define DF_SEC(id) (struct df_cur){ df, df->sec_off[id] + 16, df->sec_off[id] + 16 + df->sec_size[id] }
	sc = DF_SEC(16);
	if (!df_header_info(&sc) || sc.pos != sc.end)
		return sc.pos != sc.end ? df_fail(&sc, "bytes left in section 16") : false;
	sc = DF_SEC(17);
	if (!df_ftrace(&sc) || sc.pos != sc.end)
		return sc.pos != sc.end ? df_fail(&sc, "bytes left in section 17") : false;
	sc = DF_SEC(18);
	if (!df_events(&sc) || sc.pos != sc.end)
		return sc.pos != sc.end ? df_fail(&sc, "bytes left in section 18") : false;
	sc = DF_SEC(19);
	if (!df_text32(&sc, &df->kallsyms) || sc.pos != sc.end)
		return sc.pos != sc.end ? df_fail(&sc, "bytes left in section 19") : false;
	sc = DF_SEC(20);
	if (!df_text32(&sc, &df->printk) || sc.pos != sc.end)
		return sc.pos != sc.end ? df_fail(&sc, "bytes left in section 20") : false;
	sc = DF_SEC(21);
	if (!df_text64(&sc, &df->cmdlines) || sc.pos != sc.end)
		return sc.pos != sc.end ? df_fail(&sc, "bytes left in section 21") : false;

	buf = df_option(df, 3, 0);
	if (!buf)
		return df_fail(c, "no BUFFER option");
	sc = (struct df_cur){ df, (uint64_t)(buf->data - df->map), (uint64_t)(buf->data - df->map) + buf->len };
	{
		uint64_t fly = 0;
		uint32_t page = 0, n = 0;

		if (!df_u64(&sc, &fly) || !df_str(&sc, &name) || !df_str(&sc, &clock) ||
		    !df_u32(&sc, &page) || !df_u32(&sc, &n))
			return false;
		if (fly != df->sec_off[3])
			return df_fail(&sc, "BUFFER says flyrecord at %llu, section 3 at %llu",
				       (unsigned long long)fly, (unsigned long long)df->sec_off[3]);
		if (name[0] || page != df->page_size || n == 0 || n > DF_MAX_CPUS)
			return df_fail(&sc, "BUFFER name \"%s\" page %u cpus %u", name, page, n);
		df->nr_cpus = (int)n;
		for (uint32_t i = 0; i < n; i++)
			if (!df_u32(&sc, &df->cpu_id[i]) || !df_u64(&sc, &df->cpu_off[i]) ||
			    !df_u64(&sc, &df->cpu_size[i]))
				return false;
		if (sc.pos != sc.end)
			return df_fail(&sc, "bytes left in BUFFER");
	}
	fly_lo = df->sec_off[3] + 16;
	fly_hi = fly_lo + df->sec_size[3];
	for (uint64_t p = fly_lo; p < fly_hi && p % df->page_size; p++)
		if (df->map[p])
			return df_fail(c, "non-zero padding byte at %llu", (unsigned long long)p);
	return df_check_cpus(c, fly_lo, fly_hi);
#undef DF_SEC
}

/* Parse the @size bytes at @map; 0, or -1 with the reason in df->err. */
static int df_parse(struct datfile *df, const void *map, uint64_t size)
{
	struct df_cur c = { df, 0, size };
	char ver[2] = { 0 };
	uint8_t endian = 0, long_size = 0;

	memset(df, 0, sizeof(*df));
	df->map = map;
	df->size = size;
	if (!df_expect(&c, "\x17\x08\x44tracing", 10, "magic") || !df_bytes(&c, ver, 2) ||
	    !df_bytes(&c, &endian, 1) || !df_bytes(&c, &long_size, 1) ||
	    !df_u32(&c, &df->page_size))
		return -1;
	if ((ver[0] != '6' && ver[0] != '7') || ver[1])
		return df_fail(&c, "version \"%.2s\"", ver), -1;
	df->version = ver[0] - '0';
	df->long_size = long_size;
	if (endian != 0 || (long_size != 4 && long_size != 8) || df->page_size != 4096)
		return df_fail(&c, "endian %u long %u page %u", endian, long_size, df->page_size), -1;
	if (!(df->version == 6 ? df_parse_v6(&c) : df_parse_v7(&c)))
		return -1;
	return 0;
}

#endif /* TREV_TEST_DATFILE_H */
