/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the page decoder: any bytes, taken as a page, must
 * walk (rb_page_for_each()) without reading outside it, and every walk
 * must end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ring_buffer/rb_page.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t have, steps = 0;
	uint64_t commit, lost;
	struct rb_walk w;
	struct rb_rec r;
	uint8_t *page;

	if (size < RB_PAGE_HDR)
		return 0;
	if (size > RB_PAGE_SIZE)
		size = RB_PAGE_SIZE;
	/* An exact-size copy, so ASan sees any read past the end. */
	page = malloc(size);
	if (!page)
		return 0;
	memcpy(page, data, size);
	/*
	 * Fewer bytes than a page: a page whose data ends with them, its
	 * commit cut there. A whole page keeps its commit, which the walk
	 * cuts to the page itself.
	 */
	have = (uint32_t)(size - RB_PAGE_HDR);
	commit = rb_get64(page + 8);
	if (size < RB_PAGE_SIZE && (commit & RB_COMMIT_MASK) > have)
		rb_put64(page + 8, (commit & ~(uint64_t)RB_COMMIT_MASK) | have);
	rb_page_for_each(&w, page, &r) {
		if (r.size == 0 || r.off + r.size > w.size)
			abort();	/* a record must advance and stay inside */
		if (r.kind == RB_REC_DATA && (r.payload < w.data + r.off ||
					      r.payload + r.len > w.data + w.size))
			abort();
		if (++steps > w.size)
			abort();	/* every record is at least 4 bytes */
	}
	if (w.off > w.size)
		abort();
	/* The count after the data: inside a whole page, or where the bytes reach. */
	if (size == RB_PAGE_SIZE || w.size + 8 <= have)
		(void)rb_walk_lost(&w, &lost);
	free(page);
	return 0;
}
