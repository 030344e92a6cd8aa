/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for trev_rb_attach() and the readers of an attached
 * buffer: a region written by another process may hold anything. The input
 * is laid over a valid region (so the fuzzer reaches past the header
 * checks): the first 2 bytes pick where, the third how the busy words
 * come (fz_busy()), the rest are written there; then every reader runs.
 * Nothing may crash, read outside the mapping or hang.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <trev/ring_buffer.h>

#include "ring_buffer/rb_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A small region with a few buffers and events, made once. */
static struct trev_rb *fz_src;
static uint8_t *fz_image;	/* its bytes, to start each run from */
static size_t fz_size;

static void *fz_writer(void *arg)
{
	for (int i = 0; i < 300; i++) {
		uint32_t *p = trev_rb_reserve(fz_src, 4u + (uint32_t)(i % 40) * 4u);

		if (p) {
			*p = (uint32_t)i;
			trev_rb_commit(fz_src, p);
		}
	}
	return arg;
}

static void fz_init(void)
{
	struct trev_rb_options o = { .size_kb = 8, .cap_kb = 64, .clock = -1 };
	pthread_t t[3];

	if (trev_rb_create(&fz_src, &o) < 0)
		abort();
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, fz_writer, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	if (trev_rb_lend_consumer(fz_src) < 0)
		abort();
	fz_size = fz_src->region_size;
	fz_image = malloc(fz_size);
	if (!fz_image)
		abort();
	memcpy(fz_image, fz_src->base, fz_size);
}

/*
 * A busy area for @rb as @how says: bit 0 none at all; bit 1 its header
 * lies about the word count (@how's high bits); bit 2 every word is set,
 * as if every writer were stuck mid-write; bit 3 the writers are gone.
 */
static void fz_busy(struct trev_rb *rb, uint8_t how)
{
	enum { WORDS = 8 };
	uint8_t area[(WORDS + 1) * RB_BUSY_STRIDE] = { 0 };
	struct rb_busy_head head = { RB_BUSY_MAGIC, RB_BUSY_VERSION, WORDS };
	int fd;

	if (how & 1)
		return;
	if (how & 2)
		head.words = (uint32_t)(how >> 4) * 3u;
	memcpy(area, &head, sizeof(head));
	for (uint32_t i = 1; (how & 4) && i <= WORDS; i++)
		area[i * RB_BUSY_STRIDE] = 1;
	fd = memfd_create("fz-busy", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || pwrite(fd, area, sizeof(area), 0) != (ssize_t)sizeof(area))
		abort();
	fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW);
	trev_rb_attach_busy(rb, fd);
	close(fd);
	if (how & 8)
		trev_rb_writers_gone(rb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t page[RB_PAGE_SIZE];
	struct trev_rb *rb;
	struct trev_rb_event ev;
	struct trev_rb_stats st;
	struct trev_rb_iter *it;
	unsigned int ids[RB_MAX_BUFFERS];
	size_t at;
	uint8_t how;
	int fd, n;

	if (!fz_src)
		fz_init();
	if (size < 3)
		return 0;
	/* Where: the header, the descriptors, the slots, or the first pages. */
	at = ((size_t)data[0] << 8 | data[1]) * 64 % fz_size;
	how = data[2];
	data += 3;
	size -= 3;
	fd = memfd_create("fz-region", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, (off_t)fz_size) < 0)
		abort();
	if (pwrite(fd, fz_image, fz_size, 0) != (ssize_t)fz_size)
		abort();
	if (size > fz_size - at)
		size = fz_size - at;
	if (size && pwrite(fd, data, size, (off_t)at) != (ssize_t)size)
		abort();
	fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW);
	if (trev_rb_attach(&rb, fd) == 0) {
		fz_busy(rb, how);
		for (int cpu = 0; cpu < trev_rb_nr_cpus(rb); cpu++) {
			trev_rb_cpu_stats(rb, cpu, &st);
			while (trev_rb_read_page_cpu(rb, cpu, page) == 1)
				;
		}
		n = trev_rb_buffers(rb, ids, RB_MAX_BUFFERS);
		for (int i = 0; i < n; i++) {
			char comm[16];

			trev_rb_buffer_stats(rb, ids[i], &st);
			trev_rb_buffer_comm(rb, ids[i], comm);
		}
		it = trev_rb_iter_start(rb);
		if (it) {
			while (trev_rb_iter_next(it, &ev) == 1)
				;
			trev_rb_iter_finish(it);
		}
		while (trev_rb_consume(rb, &ev, 0) == 1)
			;
		while (trev_rb_read_page(rb, page, NULL) == 1)
			;
		trev_rb_destroy(rb);
	}
	close(fd);
	return 0;
}
