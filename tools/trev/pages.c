/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Counting the pages written to a file, and a mapped buffer's thread names and
 * damage (pages.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <trev/ring_buffer.h>

#include "pages.h"
#include "ring_buffer/rb_page.h"
#include "ring_buffer/rb_shm.h"

void trev_page_tally_add(struct trev_page_tally *t, const unsigned char *page)
{
	struct rb_walk w;
	struct rb_rec r;
	uint64_t lost;

	rb_page_for_each(&w, page, &r) {
		if (r.kind == RB_REC_DATA)
			t->entries++;
	}
	if (rb_walk_lost(&w, &lost))
		t->lost += lost;
	else if (w.commit & RB_MISSED_EVENTS)
		t->lost_pages++;
	t->pages++;
}

ssize_t trev_mapped_cmdlines(struct trev_rb *rb, char **text)
{
	unsigned int ids[1024];
	int n = trev_rb_buffers(rb, ids, 1024);
	size_t cap = (size_t)(n > 0 ? n : 0) * 32 + 1, len = 0;
	char *out = malloc(cap);

	if (!out)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct trev_rb_stats st;
		char comm[16];

		if (trev_rb_buffer_stats(rb, ids[i], &st) < 0 || st.tid <= 0)
			continue;
		trev_rb_buffer_comm(rb, ids[i], comm);
		for (char *c = comm; *c; c++)	/* the process's bytes: printable ones only */
			if (*c < 0x21 || *c > 0x7e)
				*c = '?';
		len += (size_t)snprintf(out + len, cap - len, "%d %s\n", (int)st.tid,
					comm[0] ? comm : "<...>");
	}
	out[len] = '\0';
	*text = out;
	return (ssize_t)len;
}

int trev_mapped_damage(struct trev_rb *rb, char *buf, size_t size)
{
	struct trev_rb_damage dm;
	char page[32] = "";

	if (trev_rb_damaged(rb, &dm) != 1)
		return 0;
	if (dm.page != UINT32_MAX)
		snprintf(page, sizeof(page), " (region page %u)", dm.page);
	snprintf(buf, size, "buffer %u (thread %d), CPU %d, page %llu%s, offset %u: %s",
		 dm.buffer, (int)dm.tid, dm.cpu, (unsigned long long)dm.seq, page, dm.off,
		 dm.what);
	return 1;
}
