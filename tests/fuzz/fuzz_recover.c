/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for trev recover end to end (tools/trev/cmd-recover.c):
 * a flight recorder's region file and its metadata, which anyone who could
 * write them may have filled with anything, into a trace.dat written to
 * /dev/null: the region copied and attached with every check, every CPU
 * drained, the file written. Input:
 *
 *   OFFSET  SIZE  MEANING
 *   0       4     M: bytes of the metadata file (REGION.meta)
 *   4       M     the metadata file
 *   4 + M   4     the region file's size in 4 KiB pages (at most 2^17)
 *   8 + M   ...   extents of the region, each: u32 offset, u32 length, the
 *                 bytes; the rest of the file is a hole (zeros), as in the
 *                 sparse file a program leaves
 *
 * tests/fuzz/recover_seed.py makes one of a flight file. The seeds
 * (tests/fuzz/seeds/fuzz_recover/): "wrap", a region whose two buffers
 * wrapped, and "tail-seq", the same with one byte of a descriptor changed,
 * which once kept the reader spinning for minutes; ctest runs the target
 * with -timeout, so an input that takes that long fails it. Nothing may crash or hang.
 * FZ_RECOVER_VERBOSE=1 in the environment shows trev recover's messages.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX_PAGES	(1u << 17)

static char fz_dir[] = "/tmp/fz-recover-XXXXXX";
static char fz_region[64], fz_meta[80];
static FILE *fz_log;	/* the summary, to /dev/null */

static bool fz_verbose;	/* FZ_RECOVER_VERBOSE=1: trev recover's messages on stderr */

/* trev.c's; the fuzzer keeps quiet unless asked. */
void trev_err(const char *fmt, ...)
{
	va_list ap;

	if (!fz_verbose)
		return;
	va_start(ap, fmt);
	fputs("trev: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void fz_cleanup(void)
{
	unlink(fz_region);
	unlink(fz_meta);
	rmdir(fz_dir);
}

static void fz_init(void)
{
	if (!mkdtemp(fz_dir))
		abort();
	snprintf(fz_region, sizeof(fz_region), "%s/r", fz_dir);
	snprintf(fz_meta, sizeof(fz_meta), "%s/r.meta", fz_dir);
	fz_verbose = getenv("FZ_RECOVER_VERBOSE") != NULL;
	fz_log = fz_verbose ? stderr : fopen("/dev/null", "w");
	if (!fz_log)
		abort();
	atexit(fz_cleanup);
}

static uint32_t fz_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Write @len bytes at @off of the file @path (made anew, @size bytes). */
static int fz_write(int fd, const uint8_t *p, size_t len, off_t off)
{
	return len == 0 || pwrite(fd, p, len, off) == (ssize_t)len ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t meta_len, pages;
	uint64_t file_size;
	int fd;

	if (!fz_log)
		fz_init();
	if (size < 4)
		return 0;
	meta_len = fz_u32(data);
	if (meta_len > size - 4 || size - 4 - meta_len < 4)
		return 0;
	fd = open(fz_meta, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || fz_write(fd, data + 4, meta_len, 0) < 0)
		abort();
	close(fd);
	data += 4 + meta_len;
	size -= 4 + meta_len;
	pages = fz_u32(data);
	data += 4;
	size -= 4;
	if (pages == 0 || pages > FZ_MAX_PAGES)
		return 0;
	file_size = (uint64_t)pages * 4096;
	fd = open(fz_region, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)file_size) < 0)
		abort();
	while (size >= 8) {
		uint64_t off = fz_u32(data), len = fz_u32(data + 4);

		data += 8;
		size -= 8;
		if (len > size)
			len = size;
		if (off < file_size && len > file_size - off)
			len = file_size - off;
		if (off < file_size && fz_write(fd, data, (size_t)len, (off_t)off) < 0)
			abort();
		data += len;
		size -= len;
	}
	close(fd);
	trev_recover_files(fz_region, "/dev/null", 6, fz_log);
	return 0;
}
