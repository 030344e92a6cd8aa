/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The buffer memory is shareable: a second mapping of the memfd, at another
 * address, decodes to the same events using offsets only.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ring_buffer/rb_internal.h"

#define NR_EVENTS 3000		/* spans several pages of one buffer */

/* Decode every data record of buffer @id from a private mapping. */
static unsigned int decode_mapping(const uint8_t *base, unsigned int id, uint32_t *seen)
{
	const struct rb_region *hdr = (const void *)base;
	const struct rb_desc *d = (const void *)(base + hdr->desc_off);
	const struct rb_slot *slots = (const void *)(base + hdr->slot_off);
	uint64_t tail, prev_ts = 0;
	unsigned int n = 0;

	d += id;
	tail = atomic_load(&d->tail_seq);
	assert_int_not_equal(tail, RB_SEQ_NONE);
	for (uint64_t s = 0; s <= tail; s++) {
		uint32_t page = d->first_page + (uint32_t)(s % d->nr_pages);
		const uint8_t *pg = base + hdr->page_off + (uint64_t)page * RB_PAGE_SIZE;
		struct rb_walk w;
		struct rb_rec r;

		assert_int_equal(atomic_load(&slots[page].seq), s);
		assert_int_equal(slots[page].first_entry, n);
		rb_page_for_each(&w, pg, &r) {
			if (r.kind == RB_REC_DATA) {
				assert_int_equal(r.len, 8);
				seen[n++] = rb_get32(r.payload);
				assert_true(r.ts >= prev_ts);
				prev_ts = r.ts;
			}
		}
	}
	return n;
}

static void test_second_mapping_decodes(void **state)
{
	struct trev_rb_options opts = { .size_kb = 64, .overwrite = 0, .clock = TREV_CLOCK_MONO };
	static uint32_t seen[NR_EVENTS];
	struct trev_rb *rb;
	struct trev_rb_event ev;
	unsigned int ids[4];
	char path[64];
	struct stat st;
	uint8_t *copy;
	int fd;

	(void)state;
	assert_int_equal(trev_rb_create(&rb, &opts), 0);
	for (uint32_t i = 0; i < NR_EVENTS; i++) {
		uint32_t v[2] = { i, ~i };

		assert_int_equal(trev_rb_write(rb, v, sizeof(v)), 0);
	}
	assert_int_equal(trev_rb_buffers(rb, ids, 4), 1);

	/* What another process would do: open the memfd by path and map it. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", trev_rb_memfd(rb));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	copy = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(copy != MAP_FAILED);
	assert_ptr_not_equal(copy, (void *)rb->base);
	assert_int_equal(((struct rb_region *)copy)->magic, RB_MAGIC);
	assert_int_equal(((struct rb_region *)copy)->page_size, RB_PAGE_SIZE);

	assert_int_equal(decode_mapping(copy, ids[0], seen), NR_EVENTS);
	for (uint32_t i = 0; i < NR_EVENTS; i++)
		assert_int_equal(seen[i], i);

	/* The owner's reader agrees. */
	for (uint32_t i = 0; i < NR_EVENTS; i++) {
		assert_int_equal(trev_rb_consume(rb, &ev, 0), 1);
		assert_int_equal(rb_get32(ev.data), i);
	}
	assert_int_equal(trev_rb_consume(rb, &ev, 0), 0);

	munmap(copy, (size_t)st.st_size);
	close(fd);
	trev_rb_destroy(rb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_second_mapping_decodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
