/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trace.dat writer's source over the control socket: what trev record
 * hands to trev_dat_open(). Pages come from per_cpu/cpuN/trace_pipe_raw,
 * up to TREV_REMOTE_BATCH of them per READ (full ones only when read_page()
 * asks: READ's FULL flag), copied as they are; code addresses are named
 * from the process's files (remote_symbols.c).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trev/ring_buffer.h>

#include "base/buf.h"
#include "control/proto.h"
#include "pages.h"
#include "remote.h"
#include "remote_source.h"
#include "ring_buffer/rb_shm.h"

static struct trev_remote_source *rs_of(const struct trev_dat_source *src)
{
	return (struct trev_remote_source *)((char *)src - offsetof(struct trev_remote_source, src));
}

static ssize_t rs_read_file(const struct trev_dat_source *src, const char *path, char **text)
{
	struct trev_remote_source *rs = rs_of(src);
	ssize_t n = trev_remote_read_file(rs->r, path, text);

	if (n < 0 && rs->shm && strcmp(path, "saved_cmdlines") == 0)
		return trev_mapped_cmdlines(rs->shm, text);
	return n;
}

static int rs_list_add(const char *name, int is_dir, unsigned int mode, void *arg)
{
	struct trev_buf *b = arg;

	(void)is_dir;
	(void)mode;
	trev__buf_puts(b, name);
	return trev__buf_putc(b, '\n');
}

static ssize_t rs_list_dir(const struct trev_dat_source *src, const char *path, char **text)
{
	struct trev_buf b = TREV_BUF_INIT;
	int ret = trev_remote_readdir(rs_of(src)->r, path, rs_list_add, &b);
	size_t len = b.len;

	if (ret) {
		trev__buf_free(&b);
		return ret;
	}
	*text = trev__buf_detach(&b);
	return *text ? (ssize_t)len : -ENOMEM;
}

/*
 * A page of @cpu from the mapped buffer; the library stages other CPUs'
 * events meanwhile (trev_rb_read_page_cpu_flags()).
 */
static int rs_read_mapped(struct trev_remote_source *rs, int cpu, void *page, unsigned int flags)
{
	int ret = trev_rb_read_page_cpu_flags(rs->shm, cpu, page,
					      flags & TREV_DAT_READ_FULL ? TREV_RB_READ_FULL : 0);

	return ret == -EAGAIN ? 0 : ret;
}

/* The next page of whichever CPU has one, from the mapped buffer. */
static int rs_read_page_any(const struct trev_dat_source *src, void *page, int *cpu,
			    unsigned int flags)
{
	struct trev_remote_source *rs = rs_of(src);
	int ret = trev_rb_read_page_any(rs->shm, page, cpu,
					flags & TREV_DAT_READ_FULL ? TREV_RB_READ_FULL : 0);

	if (ret == 1 && (*cpu < 0 || *cpu >= TREV_REMOTE_MAX_CPUS))
		return -ERANGE;
	return ret == -EAGAIN ? 0 : ret;
}

static int rs_read_page(const struct trev_dat_source *src, int cpu, void *page,
			unsigned int flags)
{
	struct trev_remote_source *rs = rs_of(src);
	struct trev_remote_batch *b;
	ssize_t n;

	if (cpu < 0 || cpu >= TREV_REMOTE_MAX_CPUS)
		return -EINVAL;
	if (rs->shm)
		return rs_read_mapped(rs, cpu, page, flags);
	b = &rs->batch[cpu];
	if (b->next == b->nr) {
		if (!rs->raw[cpu]) {
			char path[64];
			int h;

			snprintf(path, sizeof(path), "per_cpu/cpu%d/trace_pipe_raw", cpu);
			h = trev_remote_open(rs->r, path, TREV_PO_READ | TREV_PO_NONBLOCK);
			if (h < 0)
				return h;
			rs->raw[cpu] = h;
		}
		if (!b->pages && !(b->pages = malloc(TREV_REMOTE_BATCH * TREV_DAT_PAGE_SIZE)))
			return -ENOMEM;
		/* trace_pipe_raw hands out whole pages; the server gathers what is ready. */
		n = trev_remote_read_flags(rs->r, rs->raw[cpu], b->pages,
					   TREV_REMOTE_BATCH * TREV_DAT_PAGE_SIZE, 0,
					   flags & TREV_DAT_READ_FULL ? TREV_PR_FULL : 0);
		if (n == -EAGAIN || n == 0)
			return 0;
		if (n < 0)
			return (int)n;
		/* At most the pages asked for (remote.c checks); only whole ones. */
		if (n % TREV_DAT_PAGE_SIZE)
			return trev_remote_malformed(rs->r, TREV_OP_READ,
						     "%zd bytes of per_cpu/cpu%d/trace_pipe_raw, "
						     "not whole pages", n, cpu);
		b->nr = (unsigned int)(n / TREV_DAT_PAGE_SIZE);
		b->next = 0;
	}
	memcpy(page, b->pages + (size_t)b->next++ * TREV_DAT_PAGE_SIZE, TREV_DAT_PAGE_SIZE);
	return 1;
}

static int rs_symbol(const struct trev_dat_source *src, uint64_t addr, char *name, size_t size,
		     uint64_t *start)
{
	const char *found;
	int ret = trev_remote_symbols_lookup(&rs_of(src)->syms, addr, &found, start);

	if (ret < 0)
		return ret;
	if (ret) {
		/* Only the nearest symbol below: a kallsyms line of its own (tracedat.h). */
		snprintf(name, size, "%s+0x%llx", found, (unsigned long long)(addr - *start));
		*start = addr;
		return 0;
	}
	snprintf(name, size, "%s", found);
	return 0;
}

void trev_remote_source_init(struct trev_remote_source *rs, struct trev_remote *r, pid_t pid)
{
	memset(rs, 0, sizeof(*rs));
	rs->r = r;
	rs->src.read_file = rs_read_file;
	rs->src.list_dir = rs_list_dir;
	rs->src.read_page = rs_read_page;
	rs->src.symbol = rs_symbol;
	trev_remote_symbols_init(&rs->syms, pid);
}

int trev_remote_stage_move(struct trev_remote *r, struct trev_rb *rb, bool take)
{
	unsigned char *buf;
	ssize_t n;
	int ret = 0;

	if (trev_remote_version(r) < TREV_PROTO_RESTAGE)
		return 0;	/* it kept its staged events to itself */
	buf = malloc(TREV_PROTO_MAX_PAYLOAD);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		n = take ? trev_remote_unstage(r, buf, TREV_PROTO_MAX_PAYLOAD)
			 : trev_rb_stage_export(rb, buf, TREV_PROTO_MAX_PAYLOAD);
		if (n <= 0)
			break;
		ret = take ? trev_rb_stage_import(rb, buf, (size_t)n)
			   : trev_remote_restage(r, buf, (size_t)n);
		if (ret < 0)
			break;
	}
	free(buf);
	return n < 0 ? (int)n : ret;
}

int trev_remote_source_map(struct trev_remote_source *rs)
{
	int fd, busyfd, ret = trev_remote_map(rs->r, TREV_MAP_CONSUME, &fd, &busyfd);

	if (ret < 0)
		return ret;
	ret = trev_rb_attach(&rs->shm, fd);
	close(fd);
	if (ret == 0)
		rs->src.read_page_any = rs_read_page_any;
	/* Without the busy words (an older process) each CPU's order may
	 * break where a writer was preempted mid-write; the pages are right. */
	rs->busy_mapped = ret == 0 && busyfd >= 0 && trev_rb_attach_busy(rs->shm, busyfd) == 0;
	if (busyfd >= 0)
		close(busyfd);
	/* The events the process had staged are ours to record now; those a
	 * failure left behind the process counts lost, at the return. */
	if (ret == 0)
		trev_remote_stage_move(rs->r, rs->shm, true);
	return ret;
}

void trev_remote_source_close(struct trev_remote_source *rs)
{
	for (int cpu = 0; cpu < TREV_REMOTE_MAX_CPUS; cpu++) {
		if (rs->raw[cpu]) {
			trev_remote_close_file(rs->r, rs->raw[cpu]);
			rs->raw[cpu] = 0;
		}
		free(rs->batch[cpu].pages);
		rs->batch[cpu] = (struct trev_remote_batch){ NULL, 0, 0 };
	}
	trev_remote_symbols_free(&rs->syms);
	/* Events staged here and not recorded (stopped early) go back. */
	if (rs->shm && !trev_remote_hung_up(rs->r))
		trev_remote_stage_move(rs->r, rs->shm, false);
	trev_rb_destroy(rs->shm);
	rs->shm = NULL;
	rs->src.read_page_any = NULL;
}
