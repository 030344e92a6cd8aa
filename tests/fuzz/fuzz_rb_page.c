/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the page decoder: any bytes, taken as a page, must
 * decode without reading outside it, and every walk must end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ring_buffer/rb_page.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *page;
	uint32_t commit, off = 0, steps = 0;
	uint64_t ts;
	struct rb_rec r;

	if (size < RB_PAGE_HDR)
		return 0;
	/* An exact-size copy, so ASan sees any read past the end. */
	page = malloc(size);
	if (!page)
		return 0;
	memcpy(page, data, size);
	ts = rb_get64(page);
	commit = (uint32_t)(rb_get64(page + 8) & RB_COMMIT_MASK);
	if (commit > size - RB_PAGE_HDR)
		commit = (uint32_t)(size - RB_PAGE_HDR);
	while (rb_decode(page + RB_PAGE_HDR, commit, off, ts, &r) != RB_REC_END) {
		if (r.size == 0 || r.size > commit - off)
			abort();	/* a record must advance and stay inside */
		if (r.kind == RB_REC_DATA && (r.payload < page + RB_PAGE_HDR + off ||
					      r.payload + r.len > page + RB_PAGE_HDR + commit))
			abort();
		ts = r.ts;
		off += r.size;
		if (++steps > commit)
			abort();	/* every record is at least 4 bytes */
	}
	free(page);
	return 0;
}
