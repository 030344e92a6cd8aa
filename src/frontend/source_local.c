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

#include "base/buf.h"
#include "events/events_internal.h"
#include "sym/symbols.h"
#include "write/write.h"

static ssize_t local_read_file(const struct trev_dat_source *src, const char *path, char **text)
{
	struct trev_buf b = TREV_BUF_INIT;
	struct trev_file *f;
	size_t len;
	int ret;

	(void)src;
	ret = trev_file_open(path, O_RDONLY | O_NONBLOCK, &f);
	if (ret)
		return ret;
	for (;;) {
		ssize_t n;

		ret = trev__buf_reserve(&b, 4096);
		if (ret)
			break;
		n = trev_file_read(f, b.data + b.len, trev__buf_room(&b));
		if (n == 0 || n == -EAGAIN)
			break;
		if (n < 0) {
			ret = (int)n;
			break;
		}
		trev__buf_extend(&b, (size_t)n);
	}
	trev_file_close(f);
	if (ret) {
		trev__buf_free(&b);
		return ret;
	}
	len = b.len;
	*text = trev__buf_detach(&b);
	return *text ? (ssize_t)len : -ENOMEM;
}

static int list_add(const char *name, const struct trev_stat *st, void *arg)
{
	struct trev_buf *b = arg;

	(void)st;
	trev__buf_puts(b, name);
	return trev__buf_putc(b, '\n');
}

static ssize_t local_list_dir(const struct trev_dat_source *src, const char *path, char **text)
{
	struct trev_buf b = TREV_BUF_INIT;
	size_t len;
	int ret;

	(void)src;
	ret = trev_readdir(path, list_add, &b);
	if (ret) {
		trev__buf_free(&b);
		return ret;
	}
	len = b.len;
	*text = trev__buf_detach(&b);
	return *text ? (ssize_t)len : -ENOMEM;
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
	if (sym.past_end) {
		/* A line of its own, named as the trace text names it (tracedat.h). */
		snprintf(name, size, "%s+0x%lx", sym.name, (unsigned long)addr - sym.start);
		*start = addr;
		return 0;
	}
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
