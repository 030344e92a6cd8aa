/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The in-process trace.dat source: control files and trace_pipe_raw pages
 * through the public trev_file_*() API, code addresses through the symbol
 * table; and trev_record_dat(), the one-shot recorder on top of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <trev/trev.h>
#include <trev/tracedat.h>

#include "events/events_internal.h"
#include "output/symbols.h"

static ssize_t local_read_file(const struct trev_dat_source *src, const char *path, char **text)
{
	struct trev_file *f;
	size_t len = 0, cap = 4096;
	char *buf;
	int ret;

	(void)src;
	ret = trev_file_open(path, O_RDONLY | O_NONBLOCK, &f);
	if (ret)
		return ret;
	buf = malloc(cap);
	if (!buf) {
		trev_file_close(f);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n;

		if (cap - len < 1024) {
			char *grown = realloc(buf, cap * 2);

			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			buf = grown;
			cap *= 2;
		}
		n = trev_file_read(f, buf + len, cap - len - 1);
		if (n == 0 || n == -EAGAIN)
			break;
		if (n < 0) {
			ret = (int)n;
			break;
		}
		len += (size_t)n;
	}
	trev_file_close(f);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[len] = '\0';
	*text = buf;
	return (ssize_t)len;
}

struct list_text {
	char *buf;
	size_t len, cap;
};

static int list_add(const char *name, const struct trev_stat *st, void *arg)
{
	struct list_text *t = arg;
	size_t n = strlen(name);

	(void)st;
	if (t->len + n + 2 > t->cap) {
		size_t cap = (t->cap ? t->cap * 2 : 256) + n;
		char *grown = realloc(t->buf, cap);

		if (!grown)
			return -ENOMEM;
		t->buf = grown;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, name, n);
	t->len += n;
	t->buf[t->len++] = '\n';
	t->buf[t->len] = '\0';
	return 0;
}

static ssize_t local_list_dir(const struct trev_dat_source *src, const char *path, char **text)
{
	struct list_text t = { 0 };
	int ret;

	(void)src;
	ret = trev_readdir(path, list_add, &t);
	if (!ret && !t.buf)
		t.buf = strdup("");
	if (!ret && !t.buf)
		ret = -ENOMEM;
	if (ret) {
		free(t.buf);
		return ret;
	}
	*text = t.buf;
	return (ssize_t)t.len;
}

/* Each page is read whole by one open, so nothing is kept between calls. */
static int local_read_page(const struct trev_dat_source *src, int cpu, void *page,
			   unsigned int flags)
{
	unsigned int rflags = flags & TREV_DAT_READ_FULL ? TREV_READ_FULL : 0;
	const char *inst = src->instance ? src->instance : "";
	struct trev_file *f;
	char path[512];
	size_t got = 0;
	int ret = 0;

	if ((size_t)snprintf(path, sizeof(path), "%sper_cpu/cpu%d/trace_pipe_raw", inst, cpu) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	ret = trev_file_open(path, O_RDONLY | O_NONBLOCK, &f);
	if (ret)
		return ret;
	while (got < TREV_DAT_PAGE_SIZE) {
		ssize_t n = trev_file_read_flags(f, (char *)page + got, TREV_DAT_PAGE_SIZE - got,
						 rflags);

		if (n == -EAGAIN || n == 0)
			break;
		if (n < 0) {
			ret = (int)n;
			break;
		}
		got += (size_t)n;
	}
	trev_file_close(f);
	if (ret)
		return ret;
	if (got == 0)
		return 0;
	return got == TREV_DAT_PAGE_SIZE ? 1 : -EIO;
}

static int local_symbol(const struct trev_dat_source *src, uint64_t addr, char *name, size_t size,
			uint64_t *start)
{
	struct trev_sym sym;
	int ret;

	(void)src;
	if (addr == trev__marker_ip()) {
		snprintf(name, size, "tracing_mark_write");
		*start = addr;
		return 0;
	}
	ret = trev__sym_lookup((unsigned long)addr, &sym);
	if (ret)
		return ret < 0 ? ret : -ENOENT;
	if (!sym.name || !sym.name[0])
		return -ENOENT;
	snprintf(name, size, "%s", sym.name);
	*start = sym.start;
	return 0;
}

void trev_dat_source_local(struct trev_dat_source *src, const char *instance)
{
	memset(src, 0, sizeof(*src));
	src->instance = instance;
	src->read_file = local_read_file;
	src->list_dir = local_list_dir;
	src->read_page = local_read_page;
	src->symbol = local_symbol;
}

int trev_record_dat(const char *instance, const char *file, int version)
{
	struct trev_dat_source src;
	struct trev_dat *dat;
	long pages;
	int ret;

	trev_dat_source_local(&src, instance);
	ret = trev_dat_open(&dat, file, version, &src);
	if (ret)
		return ret;
	pages = trev_dat_drain(dat);
	if (pages < 0) {
		trev_dat_abort(dat);
		return (int)pages;
	}
	return trev_dat_finish(dat);
}
