/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Joining the trace.dat files of a session's processes into one version 7
 * file with a buffer per process (dat_merge.h; docs/sessions.md). The
 * inputs are files trev's writer made (src/tracedat/tracedat.c lays both
 * versions out; docs/formats.md, "trace.dat files"); each is read through
 * bounds-checked cursors, so a damaged one is refused, never overrun.
 *
 * What one input gives:
 *
 *   part              version 6                      version 7
 *   header info       after the file header          section 16
 *   ftrace formats    u32 n, n x (u64 len, text)     section 17, the same
 *   event formats     u32 systems, per system        section 18, the same
 *                     "name\0" u32 n, n x (u64, text)
 *   kallsyms, printk  u32 len, text                  sections 19, 20, the same
 *   cmdlines          u64 len, text                  section 21, the same
 *   CPUs' data        "flyrecord\0", u64 off and     option BUFFER (3): offset,
 *                     u64 size per CPU               name, clock, page size,
 *                                                    count, (u32 cpu, u64 off,
 *                                                    u64 size) per CPU
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "dat_merge.h"
#include "ring_buffer/rb_page.h"

#define DM_PAGE		4096u
#define DM_MAX_CPUS	4096u		/* more is a damaged count */
#define DM_NO_ID	(-1)
#define DM_IDS		65536		/* event ids are a u16 */
#define DM_SEC_HDR	16u		/* v7: u16 id, u16 flags, u32 string id, u64 size */

/* Option and section ids (trace-cmd's TRACECMD_OPTION_*). */
enum {
	DM_OPT_DONE = 0,
	DM_OPT_CPUSTAT = 2,
	DM_OPT_BUFFER = 3,
	DM_OPT_TRACECLOCK = 4,
	DM_OPT_UNAME = 5,
	DM_OPT_CPUCOUNT = 8,
	DM_OPT_VERSION = 9,
	DM_OPT_PROCMAPS = 10,
	DM_SEC_STRINGS = 15,
	DM_SEC_HEADER_INFO = 16,
	DM_SEC_FTRACE = 17,
	DM_SEC_EVENTS = 18,
	DM_SEC_KALLSYMS = 19,
	DM_SEC_PRINTK = 20,
	DM_SEC_CMDLINES = 21,
};

struct dm_blob {
	const uint8_t *p;
	uint64_t len;
};

/* One event format of an input. */
struct dm_fmt {
	char system[64];	/* "ftrace" for the ftrace formats */
	char *text;		/* NUL-terminated copy */
	int id;			/* its "ID:" */
	int out_id;		/* its id in the output */
};

struct dm_cpu {
	uint32_t cpu;
	uint64_t off, size;
};

/* One input, parsed. */
struct dm_file {
	const char *path;
	const char *name;		/* its buffer's name in the output */
	const uint8_t *map;
	size_t size;
	int version;
	struct dm_blob header_info;	/* header_page and header_event, as stored */
	struct dm_fmt *fmts;
	int nr_fmts;
	struct dm_blob kallsyms, printk, cmdlines;	/* the texts */
	struct dm_blob clock_text;	/* TRACECLOCK's text ("[local] mono ...") */
	char clock_name[64];		/* the clock in use */
	struct dm_blob uname, version_text;
	struct dm_blob procmaps;	/* PROCMAPS: its process, NUL-terminated; or none */
	struct dm_blob *cpustat;
	int nr_cpustat;
	uint32_t cpu_count;		/* the CPUs of the machine (CPUCOUNT, or v6's count) */
	struct dm_cpu *cpus;		/* data per CPU */
	uint32_t nr_cpus;
	int32_t *map_ids;		/* old id -> output id, DM_NO_ID: no format */
	bool identity;			/* no id changes */
};

/* A bounds-checked cursor over [0, size) of an input. */
struct dm_rd {
	const uint8_t *p;
	uint64_t size, pos;
	bool bad;
};

static void dm_err(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void dm_err(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (!err || !size)
		return;
	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
}

static const uint8_t *rd_take(struct dm_rd *r, uint64_t n)
{
	const uint8_t *p;

	if (r->bad || n > r->size - r->pos) {
		r->bad = true;
		return NULL;
	}
	p = r->p + r->pos;
	r->pos += n;
	return p;
}

static uint64_t rd_uint(struct dm_rd *r, unsigned int bytes)
{
	const uint8_t *p = rd_take(r, bytes);
	uint64_t v = 0;

	if (p)
		memcpy(&v, p, bytes);	/* the host's byte order: checked in the header */
	return v;
}

/* A NUL-terminated string; NULL when the rest has no NUL. */
static const char *rd_cstr(struct dm_rd *r)
{
	const uint8_t *s = r->bad ? NULL : memchr(r->p + r->pos, '\0', r->size - r->pos);

	if (!s) {
		r->bad = true;
		return NULL;
	}
	return (const char *)rd_take(r, (uint64_t)(s - (r->p + r->pos)) + 1);
}

static struct dm_blob rd_blob(struct dm_rd *r, unsigned int len_bytes)
{
	uint64_t len = rd_uint(r, len_bytes);
	struct dm_blob b = { rd_take(r, len), len };

	if (!b.p)
		b.len = 0;
	return b;
}

/* ------------------------------------------------------------------ */
/* Reading one input                                                    */

/* The "ID:" line's number of a format text; -1 without one. */
static int dm_format_id(const char *text)
{
	const char *p = strstr(text, "\nID: ");
	char *end;
	long id;

	if (!p)
		return -1;
	id = strtol(p + 5, &end, 10);
	if (end == p + 5 || (*end != '\n' && *end != '\0') || id < 0 || id >= DM_IDS)
		return -1;
	return (int)id;
}

static int dm_add_format(struct dm_file *f, const char *system, struct dm_blob text)
{
	struct dm_fmt *v;
	char *copy;

	if (f->nr_fmts >= DM_IDS || memchr(text.p, '\0', text.len))
		return -EINVAL;
	v = realloc(f->fmts, ((size_t)f->nr_fmts + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	f->fmts = v;
	copy = malloc(text.len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text.p, text.len);
	copy[text.len] = '\0';
	v = &f->fmts[f->nr_fmts];
	snprintf(v->system, sizeof(v->system), "%s", system);
	v->text = copy;
	v->id = dm_format_id(copy);
	v->out_id = DM_NO_ID;
	f->nr_fmts++;
	return v->id < 0 ? -EINVAL : 0;
}

/* u32 n, n x (u64 len, text): the ftrace formats. */
static int dm_read_ftrace(struct dm_file *f, struct dm_rd *r)
{
	uint32_t n = (uint32_t)rd_uint(r, 4);

	for (uint32_t i = 0; i < n && !r->bad; i++) {
		struct dm_blob t = rd_blob(r, 8);
		int ret = r->bad ? -EINVAL : dm_add_format(f, "ftrace", t);

		if (ret)
			return ret;
	}
	return r->bad ? -EINVAL : 0;
}

/* u32 systems; per system "name\0", u32 n, n x (u64 len, text). */
static int dm_read_events(struct dm_file *f, struct dm_rd *r)
{
	uint32_t nsys = (uint32_t)rd_uint(r, 4);

	for (uint32_t s = 0; s < nsys && !r->bad; s++) {
		const char *name = rd_cstr(r);
		uint32_t n = (uint32_t)rd_uint(r, 4);

		if (!name || strlen(name) >= sizeof(f->fmts[0].system))
			return -EINVAL;
		for (uint32_t i = 0; i < n && !r->bad; i++) {
			struct dm_blob t = rd_blob(r, 8);
			int ret = r->bad ? -EINVAL : dm_add_format(f, name, t);

			if (ret)
				return ret;
		}
	}
	return r->bad ? -EINVAL : 0;
}

/* The clock in use: the name in brackets of TRACECLOCK's text. */
static void dm_clock_from_text(struct dm_file *f)
{
	const char *t = (const char *)f->clock_text.p;
	const char *open = t ? memchr(t, '[', f->clock_text.len) : NULL;
	const char *close = open ? memchr(open, ']', f->clock_text.len - (size_t)(open - t)) : NULL;

	if (open && close && (size_t)(close - open - 1) < sizeof(f->clock_name))
		snprintf(f->clock_name, sizeof(f->clock_name), "%.*s", (int)(close - open - 1),
			 open + 1);
}

static int dm_add_cpustat(struct dm_file *f, struct dm_blob b)
{
	struct dm_blob *v = realloc(f->cpustat, ((size_t)f->nr_cpustat + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	f->cpustat = v;
	f->cpustat[f->nr_cpustat++] = b;
	return 0;
}

/*
 * The data of one CPU: whole pages inside the file. An empty one may point
 * anywhere (a checkpoint's CPU whose region has no page yet), as libtracecmd
 * takes it.
 */
static int dm_check_cpu(const struct dm_file *f, const struct dm_cpu *c)
{
	if (!c->size)
		return 0;
	if (c->size % DM_PAGE || c->off > f->size || c->size > f->size - c->off ||
	    c->off % DM_PAGE)
		return -EINVAL;
	return 0;
}

/* Options (u16 id, u32 len, data) up to DONE. @next: v7's next options section (0: none). */
static int dm_read_options(struct dm_file *f, struct dm_rd *r, uint64_t *next)
{
	for (;;) {
		uint16_t id = (uint16_t)rd_uint(r, 2);
		uint32_t len;
		struct dm_rd o;
		int ret = 0;

		if (r->bad)
			return -EINVAL;
		if (id == DM_OPT_DONE && f->version == 6)
			return 0;
		len = (uint32_t)rd_uint(r, 4);
		o = (struct dm_rd){ rd_take(r, len), len, 0, false };
		if (!o.p)
			return -EINVAL;
		switch (id) {
		case DM_OPT_DONE:
			*next = rd_uint(&o, 8);
			return o.bad ? -EINVAL : 0;
		case DM_OPT_CPUSTAT:
			ret = dm_add_cpustat(f, (struct dm_blob){ o.p, len });
			break;
		case DM_OPT_TRACECLOCK:
			f->clock_text = (struct dm_blob){ o.p, len };
			break;
		case DM_OPT_UNAME:
			f->uname = (struct dm_blob){ o.p, len };
			break;
		case DM_OPT_VERSION:
			f->version_text = (struct dm_blob){ o.p, len };
			break;
		case DM_OPT_PROCMAPS:
			/* Kept as trace-cmd reads it: a NUL-terminated text, else not at all. */
			if (len && !o.p[len - 1])
				f->procmaps = (struct dm_blob){ o.p, len };
			break;
		case DM_OPT_CPUCOUNT:
			f->cpu_count = (uint32_t)rd_uint(&o, 4);
			break;
		case DM_OPT_BUFFER: {
			const char *name, *clock;
			uint32_t count;

			rd_uint(&o, 8);		/* the flyrecord section: the CPUs say where */
			name = rd_cstr(&o);
			clock = rd_cstr(&o);
			/* One top buffer in a v7 file, as trev's writer makes: v6 has its own list. */
			if (rd_uint(&o, 4) != DM_PAGE || !name || !clock || *name || f->cpus ||
			    f->version != 7)
				return -EINVAL;
			snprintf(f->clock_name, sizeof(f->clock_name), "%s", clock);
			count = (uint32_t)rd_uint(&o, 4);
			if (o.bad || count > DM_MAX_CPUS)
				return -EINVAL;
			f->cpus = calloc(count ? count : 1, sizeof(*f->cpus));
			if (!f->cpus)
				return -ENOMEM;
			f->nr_cpus = count;
			for (uint32_t i = 0; i < count; i++) {
				f->cpus[i].cpu = (uint32_t)rd_uint(&o, 4);
				f->cpus[i].off = rd_uint(&o, 8);
				f->cpus[i].size = rd_uint(&o, 8);
				if (o.bad || dm_check_cpu(f, &f->cpus[i]))
					return -EINVAL;
			}
			break;
		}
		default:
			break;		/* section offsets (16..21) and the rest: not needed */
		}
		if (ret)
			return ret;
	}
}

static int dm_read_v6(struct dm_file *f, struct dm_rd *r)
{
	uint64_t start = r->pos, next = 0;
	int ret;

	/* header_page and header_event, kept as they are. */
	for (int i = 0; i < 2; i++) {
		const char *name = rd_cstr(r);

		if (!name || strcmp(name, i ? "header_event" : "header_page"))
			return -EINVAL;
		rd_blob(r, 8);
	}
	if (r->bad)
		return -EINVAL;
	f->header_info = (struct dm_blob){ r->p + start, r->pos - start };
	ret = dm_read_ftrace(f, r);
	if (!ret)
		ret = dm_read_events(f, r);
	if (ret)
		return ret;
	f->kallsyms = rd_blob(r, 4);
	f->printk = rd_blob(r, 4);
	f->cmdlines = rd_blob(r, 8);
	f->cpu_count = (uint32_t)rd_uint(r, 4);
	if (r->bad || f->cpu_count > DM_MAX_CPUS || !rd_take(r, 10) ||
	    memcmp(r->p + r->pos - 10, "options  ", 10))
		return -EINVAL;
	ret = dm_read_options(f, r, &next);
	if (ret)
		return ret;
	if (!rd_take(r, 10) || memcmp(r->p + r->pos - 10, "flyrecord", 10))
		return -EINVAL;
	f->nr_cpus = f->cpu_count;
	f->cpus = calloc(f->nr_cpus ? f->nr_cpus : 1, sizeof(*f->cpus));
	if (!f->cpus)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->nr_cpus; i++) {
		f->cpus[i].cpu = i;
		f->cpus[i].off = rd_uint(r, 8);
		f->cpus[i].size = rd_uint(r, 8);
		if (r->bad || dm_check_cpu(f, &f->cpus[i]))
			return -EINVAL;
	}
	dm_clock_from_text(f);
	return 0;
}

/* v7: the sections from the first, up to the strings section or the end. */
static int dm_read_v7(struct dm_file *f, struct dm_rd *r)
{
	const char *comp = rd_cstr(r), *comp_version = rd_cstr(r);
	uint64_t opt_off = rd_uint(r, 8), next = 0;
	int ret;

	if (r->bad || strcmp(comp, "none") || *comp_version)
		return -EINVAL;	/* trev's writer never compresses */
	while (r->pos < r->size) {
		uint16_t id = (uint16_t)rd_uint(r, 2);
		uint16_t flags = (uint16_t)rd_uint(r, 2);
		uint64_t size, at = r->pos - 4;
		struct dm_rd s;

		rd_uint(r, 4);		/* the description's string id */
		size = rd_uint(r, 8);
		/*
		 * A checkpoint's flyrecord section runs past the end of the file
		 * (docs/tracedat.md, "Checkpoints"): the last one there is.
		 */
		if (id == DM_OPT_BUFFER && !r->bad && !flags && size > r->size - r->pos)
			goto out_done;
		s = (struct dm_rd){ rd_take(r, size), size, 0, false };
		if (!s.p || flags)
			return -EINVAL;
		switch (id) {
		case DM_SEC_HEADER_INFO:
			f->header_info = (struct dm_blob){ s.p, size };
			break;
		case DM_SEC_FTRACE:
			ret = dm_read_ftrace(f, &s);
			if (ret)
				return ret;
			break;
		case DM_SEC_EVENTS:
			ret = dm_read_events(f, &s);
			if (ret)
				return ret;
			break;
		case DM_SEC_KALLSYMS:
			f->kallsyms = rd_blob(&s, 4);
			break;
		case DM_SEC_PRINTK:
			f->printk = rd_blob(&s, 4);
			break;
		case DM_SEC_CMDLINES:
			f->cmdlines = rd_blob(&s, 8);
			break;
		case DM_OPT_DONE:
			if (at != opt_off)
				return -EINVAL;	/* trev's writer chains one options section */
			ret = dm_read_options(f, &s, &next);
			if (ret)
				return ret;
			if (next)
				return -EINVAL;
			break;
		case DM_SEC_STRINGS:
			goto out_done;
		default:
			break;		/* the flyrecord section: the BUFFER option says where */
		}
		if (s.bad)
			return -EINVAL;
	}
out_done:
	if (!f->header_info.p || !f->cpus)
		return -EINVAL;
	return 0;
}

static int dm_parse(struct dm_file *f)
{
	static const uint16_t one = 1;
	struct dm_rd r = { f->map, f->size, 0, false };
	const uint8_t *magic = rd_take(&r, 10);
	const char *version = rd_cstr(&r);
	uint8_t endian = (uint8_t)rd_uint(&r, 1), long_size = (uint8_t)rd_uint(&r, 1);
	uint32_t page = (uint32_t)rd_uint(&r, 4);

	if (r.bad || memcmp(magic, "\x17\x08\x44tracing", 10))
		return -EINVAL;
	if (endian != (*(const uint8_t *)&one ? 0 : 1) || long_size != sizeof(long) ||
	    page != DM_PAGE)
		return -EINVAL;	/* another machine's file: not one of ours */
	if (!strcmp(version, "6"))
		f->version = 6;
	else if (!strcmp(version, "7"))
		f->version = 7;
	else
		return -EINVAL;
	return f->version == 6 ? dm_read_v6(f, &r) : dm_read_v7(f, &r);
}

static void dm_file_free(struct dm_file *f)
{
	for (int i = 0; i < f->nr_fmts; i++)
		free(f->fmts[i].text);
	free(f->fmts);
	free(f->cpustat);
	free(f->cpus);
	free(f->map_ids);
	if (f->map && f->path)
		munmap((void *)f->map, f->size);
	memset(f, 0, sizeof(*f));
}

static int dm_open(struct dm_file *f, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	memset(f, 0, sizeof(*f));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 16) {
		ret = -EINVAL;
		goto out_close;
	}
	f->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (f->map == MAP_FAILED) {
		f->map = NULL;
		ret = -errno;
		goto out_close;
	}
	f->path = path;
	f->size = (size_t)st.st_size;
	ret = dm_parse(f);
out_close:
	close(fd);
	return ret;
}

int trev_dat_merge_parse(const void *data, size_t size, char *err, size_t err_size)
{
	struct dm_file f = { .map = data, .size = size };
	int ret = dm_parse(&f);

	if (ret)
		dm_err(err, err_size, "not a trace.dat file of trev's writer");
	dm_file_free(&f);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Joining the formats                                                  */

/* Two formats are one event when system and text agree but for the ID line. */
static bool dm_same_event(const struct dm_fmt *a, const struct dm_fmt *b)
{
	const char *ia = strstr(a->text, "\nID: "), *ib = strstr(b->text, "\nID: ");
	const char *ea = strchr(ia + 1, '\n'), *eb = strchr(ib + 1, '\n');

	if (strcmp(a->system, b->system) || ia - a->text != ib - b->text ||
	    memcmp(a->text, b->text, (size_t)(ia - a->text)))
		return false;
	if (!ea || !eb)
		return !ea && !eb;
	return !strcmp(ea, eb);
}

/*
 * Give each format of each input its output id: an event seen before takes
 * that one's; a new one its own id when free, else the next free one.
 * @out: the output's formats (pointers into the inputs), in order.
 */
static int dm_join_formats(struct dm_file *in, int n, struct dm_fmt ***out, int *nr_out)
{
	uint8_t *used = calloc(DM_IDS, 1);
	struct dm_fmt **v = NULL;
	int nr = 0, next_free = 0;

	if (!used)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct dm_file *f = &in[i];

		f->map_ids = malloc(DM_IDS * sizeof(*f->map_ids));
		if (!f->map_ids)
			goto out_nomem;
		for (int id = 0; id < DM_IDS; id++)
			f->map_ids[id] = DM_NO_ID;
		f->identity = true;
		for (int k = 0; k < f->nr_fmts; k++) {
			struct dm_fmt *fm = &f->fmts[k];
			int j;

			for (j = 0; j < nr && !dm_same_event(v[j], fm); j++)
				;
			if (j < nr) {
				fm->out_id = v[j]->out_id;
			} else {
				struct dm_fmt **nv;

				if (used[fm->id]) {
					while (next_free < DM_IDS && used[next_free])
						next_free++;
					if (next_free == DM_IDS)
						goto out_toomany;
					fm->out_id = next_free;
				} else {
					fm->out_id = fm->id;
				}
				used[fm->out_id] = 1;
				nv = realloc(v, ((size_t)nr + 1) * sizeof(*v));
				if (!nv)
					goto out_nomem;
				v = nv;
				v[nr++] = fm;
			}
			if (f->map_ids[fm->id] != DM_NO_ID)
				goto out_twice;
			f->map_ids[fm->id] = fm->out_id;
			if (fm->out_id != fm->id)
				f->identity = false;
		}
	}
	free(used);
	*out = v;
	*nr_out = nr;
	return 0;
out_twice:
out_toomany:
	free(used);
	free(v);
	return -EINVAL;
out_nomem:
	free(used);
	free(v);
	return -ENOMEM;
}

/* ------------------------------------------------------------------ */
/* Writing                                                              */

static void put_u16(struct trev_buf *b, uint16_t v) { trev__buf_append(b, &v, 2); }
static void put_u32(struct trev_buf *b, uint32_t v) { trev__buf_append(b, &v, 4); }
static void put_u64(struct trev_buf *b, uint64_t v) { trev__buf_append(b, &v, 8); }
static void put_str(struct trev_buf *b, const char *s) { trev__buf_append(b, s, strlen(s) + 1); }

static void put_option(struct trev_buf *b, uint16_t id, const void *data, uint32_t len)
{
	put_u16(b, id);
	put_u32(b, len);
	trev__buf_append(b, data, len);
}

/* A format's text with its ID line saying @id. */
static void put_format(struct trev_buf *b, const struct dm_fmt *fm)
{
	const char *at = strstr(fm->text, "\nID: ");
	const char *rest = strchr(at + 1, '\n');
	char id[24];
	int n = snprintf(id, sizeof(id), "\nID: %d", fm->out_id);
	uint64_t len = (uint64_t)(at - fm->text) + (uint64_t)n + (rest ? strlen(rest) : 0);

	put_u64(b, len);
	trev__buf_append(b, fm->text, (size_t)(at - fm->text));
	trev__buf_append(b, id, (size_t)n);
	if (rest)
		trev__buf_append(b, rest, strlen(rest));
}

static void put_ftrace_formats(struct trev_buf *b, struct dm_fmt **v, int nr)
{
	uint32_t n = 0;

	for (int i = 0; i < nr; i++)
		n += !strcmp(v[i]->system, "ftrace");
	put_u32(b, n);
	for (int i = 0; i < nr; i++)
		if (!strcmp(v[i]->system, "ftrace"))
			put_format(b, v[i]);
}

/* The event formats by system, each system where its first event came. */
static void put_event_formats(struct trev_buf *b, struct dm_fmt **v, int nr)
{
	uint32_t nsys = 0;

	for (int i = 0; i < nr; i++) {
		int j;

		for (j = 0; j < i && strcmp(v[j]->system, v[i]->system); j++)
			;
		nsys += j == i && strcmp(v[i]->system, "ftrace");
	}
	put_u32(b, nsys);
	for (int i = 0; i < nr; i++) {
		uint32_t n = 0;
		int j;

		for (j = 0; j < i && strcmp(v[j]->system, v[i]->system); j++)
			;
		if (j < i || !strcmp(v[i]->system, "ftrace"))
			continue;
		for (j = i; j < nr; j++)
			n += !strcmp(v[j]->system, v[i]->system);
		put_str(b, v[i]->system);
		put_u32(b, n);
		for (j = i; j < nr; j++)
			if (!strcmp(v[j]->system, v[i]->system))
				put_format(b, v[j]);
	}
}

/* The texts of every input, one after the other, each ending with a newline. */
static void put_texts(struct trev_buf *b, const struct dm_file *in, int n, size_t field,
		      unsigned int len_bytes)
{
	uint64_t len = 0;

	for (int i = 0; i < n; i++) {
		const struct dm_blob *t = (const void *)((const char *)&in[i] + field);

		len += t->len + (t->len && t->p[t->len - 1] != '\n');
	}
	if (len_bytes == 4)
		put_u32(b, (uint32_t)len);
	else
		put_u64(b, len);
	for (int i = 0; i < n; i++) {
		const struct dm_blob *t = (const void *)((const char *)&in[i] + field);

		trev__buf_append(b, t->p, (size_t)t->len);
		if (t->len && t->p[t->len - 1] != '\n')
			trev__buf_append(b, "\n", 1);
	}
}

static const char dm_strings[] =
	"headers\0ftrace events\0events format\0kallsyms\0printk\0command lines\0"
	"options\0flyrecord\0strings";

static uint32_t dm_string_id(const char *s)
{
	for (size_t i = 0; i < sizeof(dm_strings); i += strlen(dm_strings + i) + 1)
		if (!strcmp(dm_strings + i, s))
			return (uint32_t)i;
	return 0;
}

static void put_section_hdr(struct trev_buf *b, uint16_t id, const char *desc, uint64_t size)
{
	put_u16(b, id);
	put_u16(b, 0);		/* not compressed */
	put_u32(b, dm_string_id(desc));
	put_u64(b, size);
}

static uint64_t dm_round_page(uint64_t n)
{
	return (n + DM_PAGE - 1) / DM_PAGE * DM_PAGE;
}

static uint64_t dm_data_size(const struct dm_file *f)
{
	uint64_t size = 0;

	for (uint32_t c = 0; c < f->nr_cpus; c++)
		size += f->cpus[c].size;
	return size;
}

/*
 * The options section: where each section is, what the first input
 * carries, and a BUFFER per input whose CPUs start at @fly[i]'s data.
 * @fly: each input's flyrecord section offset; its data starts at the
 * next page boundary after the section header.
 */
static void put_options(struct trev_buf *o, const struct dm_file *in, int n,
			const uint64_t *sec_off, const uint64_t *fly)
{
	static const uint16_t sec_ids[6] = { DM_SEC_HEADER_INFO, DM_SEC_FTRACE, DM_SEC_EVENTS,
					     DM_SEC_KALLSYMS, DM_SEC_PRINTK, DM_SEC_CMDLINES };
	uint32_t count = 0;

	for (int i = 0; i < 6; i++)
		put_option(o, sec_ids[i], &sec_off[i], 8);
	for (int i = 0; i < n; i++) {
		if (in[i].cpu_count > count)
			count = in[i].cpu_count;
		if (in[i].nr_cpus > count)
			count = in[i].nr_cpus;
	}
	put_option(o, DM_OPT_CPUCOUNT, &count, 4);
	for (int i = 0; i < in[0].nr_cpustat; i++)
		put_option(o, DM_OPT_CPUSTAT, in[0].cpustat[i].p, (uint32_t)in[0].cpustat[i].len);
	if (in[0].clock_text.p)
		put_option(o, DM_OPT_TRACECLOCK, in[0].clock_text.p, (uint32_t)in[0].clock_text.len);
	if (in[0].uname.p)
		put_option(o, DM_OPT_UNAME, in[0].uname.p, (uint32_t)in[0].uname.len);
	if (in[0].version_text.p)
		put_option(o, DM_OPT_VERSION, in[0].version_text.p, (uint32_t)in[0].version_text.len);
	/* Every process's, the top buffer's first (docs/formats.md, "PROCMAPS"). */
	for (int i = 0; i < n; i++)
		if (in[i].procmaps.p)
			put_option(o, DM_OPT_PROCMAPS, in[i].procmaps.p, (uint32_t)in[i].procmaps.len);
	for (int i = 0; i < n; i++) {
		const struct dm_file *f = &in[i];
		uint64_t off = dm_round_page(fly[i] + DM_SEC_HDR);
		uint32_t len = 8 + (uint32_t)strlen(f->name) + 1 + (uint32_t)strlen(f->clock_name) + 1 +
			       4 + 4 + 20u * f->nr_cpus;

		put_u16(o, DM_OPT_BUFFER);
		put_u32(o, len);
		put_u64(o, fly[i]);
		put_str(o, f->name);
		put_str(o, f->clock_name);
		put_u32(o, DM_PAGE);
		put_u32(o, f->nr_cpus);
		for (uint32_t c = 0; c < f->nr_cpus; c++) {
			put_u32(o, f->cpus[c].cpu);
			put_u64(o, f->cpus[c].size ? off : 0);
			put_u64(o, f->cpus[c].size);
			off += f->cpus[c].size;
		}
	}
	put_option(o, DM_OPT_DONE, &(uint64_t){ 0 }, 8);	/* no further options section */
}

/* Give @page's records their output ids. */
static void dm_rewrite_page(uint8_t *page, const struct dm_file *f, struct trev_merge_stats *st)
{
	struct rb_walk w;
	struct rb_rec r;

	rb_page_for_each(&w, page, &r) {
		uint16_t id;
		int32_t to;
		size_t at;

		if (r.kind != RB_REC_DATA || r.len < 2)
			continue;
		at = (size_t)(r.payload - page);
		memcpy(&id, page + at, 2);
		to = f->map_ids[id];
		if (to == DM_NO_ID) {
			st->unknown++;
			continue;
		}
		if (to != id) {
			id = (uint16_t)to;
			memcpy(page + at, &id, 2);
			st->rewritten++;
		}
	}
}

static int dm_pwrite(int fd, const void *data, size_t len, uint64_t off)
{
	const uint8_t *p = data;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Copy @f's pages to @fd from @off, in its CPUs' order, with the output's ids. */
static int dm_copy_data(int fd, uint64_t off, const struct dm_file *f, struct trev_merge_stats *st)
{
	uint8_t page[DM_PAGE];

	for (uint32_t c = 0; c < f->nr_cpus; c++) {
		const struct dm_cpu *cpu = &f->cpus[c];
		int ret;

		if (!cpu->size)
			continue;	/* its offset may be anything */
		if (f->identity) {
			ret = dm_pwrite(fd, f->map + cpu->off, (size_t)cpu->size, off);
			if (ret)
				return ret;
			st->pages += cpu->size / DM_PAGE;
			off += cpu->size;
			continue;
		}
		for (uint64_t p = 0; p < cpu->size; p += DM_PAGE) {
			memcpy(page, f->map + cpu->off + p, DM_PAGE);
			dm_rewrite_page(page, f, st);
			ret = dm_pwrite(fd, page, DM_PAGE, off);
			if (ret)
				return ret;
			st->pages++;
			off += DM_PAGE;
		}
	}
	return 0;
}

/* The file header of version 7, and the options section's offset to come. */
static void put_file_header(struct trev_buf *b)
{
	static const uint16_t one = 1;
	uint8_t endian = *(const uint8_t *)&one ? 0 : 1, long_size = sizeof(long);

	trev__buf_append(b, "\x17\x08\x44tracing", 10);
	put_str(b, "7");
	trev__buf_append(b, &endian, 1);
	trev__buf_append(b, &long_size, 1);
	put_u32(b, DM_PAGE);
	put_str(b, "none");
	put_str(b, "");
}

/*
 * The metadata sections (16..21) into @b, their offsets in @sec_off:
 * the first input's header info, the joined formats, the inputs' texts.
 */
static void put_metadata(struct trev_buf *b, const struct dm_file *in, int n,
			 struct dm_fmt **fmts, int nr_fmts, uint64_t *sec_off)
{
	static const struct { uint16_t id; const char *desc; } secs[6] = {
		{ DM_SEC_HEADER_INFO, "headers" }, { DM_SEC_FTRACE, "ftrace events" },
		{ DM_SEC_EVENTS, "events format" }, { DM_SEC_KALLSYMS, "kallsyms" },
		{ DM_SEC_PRINTK, "printk" }, { DM_SEC_CMDLINES, "command lines" },
	};

	for (int i = 0; i < 6; i++) {
		struct trev_buf s = TREV_BUF_INIT;

		switch (secs[i].id) {
		case DM_SEC_HEADER_INFO:
			trev__buf_append(&s, in[0].header_info.p, (size_t)in[0].header_info.len);
			break;
		case DM_SEC_FTRACE:
			put_ftrace_formats(&s, fmts, nr_fmts);
			break;
		case DM_SEC_EVENTS:
			put_event_formats(&s, fmts, nr_fmts);
			break;
		case DM_SEC_KALLSYMS:
			put_texts(&s, in, n, offsetof(struct dm_file, kallsyms), 4);
			break;
		case DM_SEC_PRINTK:
			put_texts(&s, in, n, offsetof(struct dm_file, printk), 4);
			break;
		default:
			put_texts(&s, in, n, offsetof(struct dm_file, cmdlines), 8);
			break;
		}
		sec_off[i] = b->len;
		put_section_hdr(b, secs[i].id, secs[i].desc, s.len);
		trev__buf_append(b, s.data, s.len);
		if (s.err && !b->err)
			b->err = s.err;
		trev__buf_free(&s);
	}
}

int trev_dat_merge(const char *out, const struct trev_merge_in *in, int n,
		   struct trev_merge_stats *stats, char *err, size_t err_size)
{
	struct trev_merge_stats st = { 0 };
	struct trev_buf head = TREV_BUF_INIT, opts = TREV_BUF_INIT, tail = TREV_BUF_INIT;
	struct dm_file *files = calloc((size_t)(n > 0 ? n : 1), sizeof(*files));
	uint64_t *fly = calloc((size_t)(n > 0 ? n : 1), sizeof(*fly));
	uint64_t sec_off[6], opt_off, pos;
	struct dm_fmt **fmts = NULL;
	int nr_fmts = 0, fd = -1, ret;

	if (!files || !fly) {
		ret = -ENOMEM;
		dm_err(err, err_size, "%s", strerror(ENOMEM));
		goto out_free;
	}
	for (int i = 0; i < n; i++) {
		ret = dm_open(&files[i], in[i].path);
		files[i].name = in[i].name;
		if (ret) {
			dm_err(err, err_size, "%s: %s", in[i].path,
			       ret == -EINVAL ? "not a trace.dat file of trev's writer"
					      : strerror(-ret));
			goto out_free;
		}
		if (i && strcmp(files[i].clock_name, files[0].clock_name)) {
			ret = -EINVAL;
			dm_err(err, err_size, "%s: clock %s, not %s as %s: no common time line",
			       in[i].path, files[i].clock_name, files[0].clock_name, in[0].path);
			goto out_free;
		}
	}
	ret = dm_join_formats(files, n, &fmts, &nr_fmts);
	if (ret) {
		dm_err(err, err_size, "%s", ret == -ENOMEM ? strerror(ENOMEM)
				: "an input names one event id twice, or more than 65536 events");
		goto out_free;
	}

	put_file_header(&head);
	pos = head.len;
	put_u64(&head, 0);		/* the options section's offset, set below */
	put_metadata(&head, files, n, fmts, nr_fmts, sec_off);
	opt_off = head.len;
	/* The options' size does not depend on the offsets: measure it, then lay the data out. */
	put_options(&opts, files, n, sec_off, fly);
	fly[0] = opt_off + DM_SEC_HDR + opts.len;
	for (int i = 1; i < n; i++)
		fly[i] = dm_round_page(fly[i - 1] + DM_SEC_HDR) + dm_data_size(&files[i - 1]);
	trev__buf_reset(&opts);
	put_options(&opts, files, n, sec_off, fly);
	memcpy(head.data + pos, &opt_off, 8);
	put_section_hdr(&head, DM_OPT_DONE, "options", opts.len);
	trev__buf_append(&head, opts.data, opts.len);
	ret = head.err ?: opts.err;
	if (ret) {
		dm_err(err, err_size, "%s", strerror(-ret));
		goto out_free;
	}

	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		ret = -errno;
		dm_err(err, err_size, "%s: %s", out, strerror(errno));
		goto out_free;
	}
	ret = dm_pwrite(fd, head.data, head.len, 0);
	for (int i = 0; i < n && !ret; i++) {
		uint64_t start = dm_round_page(fly[i] + DM_SEC_HDR);
		struct trev_buf sec = TREV_BUF_INIT;

		/* The flyrecord section holds its own padding, so the chain has no gap. */
		put_section_hdr(&sec, DM_OPT_BUFFER, "flyrecord",
				start - (fly[i] + DM_SEC_HDR) + dm_data_size(&files[i]));
		ret = sec.err ?: dm_pwrite(fd, sec.data, sec.len, fly[i]);
		trev__buf_free(&sec);
		if (!ret)
			ret = dm_copy_data(fd, start, &files[i], &st);
	}
	if (!ret) {
		uint64_t end = n ? dm_round_page(fly[n - 1] + DM_SEC_HDR) +
				   dm_data_size(&files[n - 1]) : head.len;

		/* Zeros in the paddings: the file is written sparse, so extend it first. */
		if (ftruncate(fd, (off_t)end) < 0)
			ret = -errno;
		put_section_hdr(&tail, DM_SEC_STRINGS, "strings", sizeof(dm_strings));
		trev__buf_append(&tail, dm_strings, sizeof(dm_strings));
		if (!ret)
			ret = tail.err ?: dm_pwrite(fd, tail.data, tail.len, end);
	}
	if (!ret && close(fd) < 0)
		ret = -errno;
	else if (ret)
		close(fd);
	fd = -1;
	if (ret)
		dm_err(err, err_size, "%s: %s", out, strerror(-ret));
	st.events = (unsigned int)nr_fmts;
	if (stats)
		*stats = st;
out_free:
	trev__buf_free(&head);
	trev__buf_free(&opts);
	trev__buf_free(&tail);
	free(fmts);
	for (int i = 0; files && i < n; i++)
		dm_file_free(&files[i]);
	free(files);
	free(fly);
	return ret;
}
