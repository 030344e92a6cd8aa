/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for trev_rb_stage_import(): the staged events another
 * process hands over (RESTAGE to the traced process, UNSTAGE's reply to the
 * trev command) may hold anything. The input is cut into records whose
 * headers are made plausible often enough to reach the page checks: byte 0
 * of each chunk picks the CPU view, byte 1 the event count, the next bytes
 * are the per-event entries and the page. Whatever is taken is then read
 * by every consuming reader, which must return well-formed events only.
 * Nothing may crash, hang or be taken from a message that is refused.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <trev/ring_buffer.h>

#include "ring_buffer/rb_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct trev_rb *fz_rb;
static uint8_t fz_msg[4 * (16 + 8 * RB_STAGE_MAX_EVENTS + RB_PAGE_SIZE)];

/* One record from the input at *@in into @out; its length, 0 when the input is used up. */
static size_t fz_record(const uint8_t **in, size_t *left, uint8_t *out, size_t room)
{
	uint32_t view, nr;
	size_t need, body;

	if (*left < 2 || room < 16)
		return 0;
	view = (*in)[0] % 4u;
	nr = (*in)[1] % 8u;
	*in += 2;
	*left -= 2;
	need = 16 + (size_t)nr * 8 + (nr ? RB_PAGE_SIZE : 0);
	if (need > room)
		return 0;
	memset(out, 0, need);
	rb_put32(out, view);
	rb_put32(out + 4, nr);
	rb_put64(out + 8, nr & 1);
	body = need - 16 < *left ? need - 16 : *left;
	memcpy(out + 16, *in, body);
	*in += body;
	*left -= body;
	return need;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t page[RB_PAGE_SIZE];
	struct trev_rb_event ev;
	size_t len = 0, n;
	int ret, cpu;

	if (!fz_rb) {
		struct trev_rb_options o = { .size_kb = 16, .cap_kb = 64, .clock = -1 };

		if (trev_rb_create(&fz_rb, &o) < 0)
			abort();
	}
	/* Raw bytes as they come, or records built from them. */
	if (size && data[0] & 1) {
		len = size - 1 < sizeof(fz_msg) ? size - 1 : sizeof(fz_msg);
		memcpy(fz_msg, data + 1, len);
	} else if (size) {
		const uint8_t *in = data + 1;
		size_t left = size - 1;

		while ((n = fz_record(&in, &left, fz_msg + len, sizeof(fz_msg) - len)) > 0)
			len += n;
	}
	/* Refused unless lent. */
	if (len && trev_rb_stage_import(fz_rb, fz_msg, len) != -EINVAL)
		abort();
	if (trev_rb_lend_consumer(fz_rb) < 0)
		abort();
	ret = trev_rb_stage_import(fz_rb, fz_msg, len);
	if (ret != 0 && ret != -EBADMSG)
		abort();
	trev_rb_return_consumer(fz_rb);
	/* Every reader over what was taken: per CPU pages, then events. */
	for (cpu = 0; cpu < trev_rb_nr_cpus(fz_rb) && cpu < 4; cpu++) {
		struct trev_rb_stats st;

		trev_rb_cpu_stats(fz_rb, cpu, &st);
		if (trev_rb_read_page_cpu(fz_rb, cpu, page) == 1) {
			uint64_t commit = rb_get64(page + 8);

			if ((commit & RB_COMMIT_MASK) > RB_DATA_SIZE)
				abort();
		}
	}
	while ((ret = trev_rb_consume(fz_rb, &ev, 0)) == 1)
		if (ev.len > RB_DATA_SIZE)
			abort();
	if (ret < 0)
		abort();
	return 0;
}
