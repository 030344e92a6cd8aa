/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * per_thread_stats: what each thread's buffer of an instance holds and lost.
 * A userspace adaptation, not a kernel file (docs/tracefs.md): trev's ring
 * buffer is per thread, so the kernel's per-CPU counters exist per thread too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tracefs/tracefs_internal.h"

extern const struct tfs_fops trev__per_thread_stats_fops;

/* Events in each buffer now, by a non-consuming walk (staged events included). */
static int count_entries(struct trev_rb *rb, uint64_t **counts, size_t *nr)
{
	struct trev_rb_iter *it = trev_rb_iter_start(rb);
	struct trev_rb_event ev;
	int ret;

	if (!it)
		return -errno;
	while ((ret = trev_rb_iter_next(it, &ev)) == 1) {
		if (ev.buffer >= *nr) {
			size_t n = ev.buffer + 64;
			uint64_t *c = realloc(*counts, n * sizeof(*c));

			if (!c) {
				ret = -ENOMEM;
				break;
			}
			memset(c + *nr, 0, (n - *nr) * sizeof(*c));
			*counts = c;
			*nr = n;
		}
		(*counts)[ev.buffer]++;
	}
	trev_rb_iter_finish(it);
	return ret < 0 ? ret : 0;
}

static int per_thread_show(struct trev_file *f, struct trev_buf *out)
{
	struct trev_trace_array *tr = f->loc.tr;
	uint64_t *counts = NULL, nobuf, recycled;
	unsigned int *ids = NULL;
	size_t nr_counts = 0;
	int n, ret;

	pthread_rwlock_rdlock(&tr->buf_lock);
	ret = count_entries(tr->rb, &counts, &nr_counts);
	n = ret ? 0 : trev_rb_buffers(tr->rb, NULL, 0);
	if (n > 0) {
		ids = calloc((size_t)n, sizeof(*ids));
		if (ids) {
			/* Buffers made since the count are not stored: the count may have grown. */
			int m = trev_rb_buffers(tr->rb, ids, n);

			if (m < n)
				n = m;
		} else {
			ret = -ENOMEM;
		}
	}
	nobuf = trev_rb_nobuf_dropped(tr->rb);
	recycled = trev_rb_recycled_lost(tr->rb);
	ret = ret ?: trev__buf_printf(out,
			"# per_thread_stats (trev; not a kernel file): each thread's buffer\n"
			"#     TID COMM                ENTRIES       READ    OVERRUN    DROPPED\n");
	for (int i = 0; i < n && !ret; i++) {
		struct trev_rb_stats st;
		char comm[17];

		if (trev_rb_buffer_stats(tr->rb, ids[i], &st) || !st.tid)
			continue;
		memcpy(comm, st.comm, 16);
		comm[16] = '\0';
		/* Staged events have left their buffer (read there) but are in the walk. */
		uint64_t entries = ids[i] < nr_counts ? counts[ids[i]] : 0;
		uint64_t dropped = st.dropped_events + st.commit_overrun;

		ret = trev__buf_printf(out, "%9d %-16s %10llu %10llu %10llu %10llu\n",
				       (int)st.tid, comm[0] ? comm : "<...>",
				       (unsigned long long)entries,
				       (unsigned long long)st.read_events,
				       (unsigned long long)st.overrun,
				       (unsigned long long)dropped);
	}
	pthread_rwlock_unlock(&tr->buf_lock);
	ret = ret ?: trev__buf_printf(out,
			"# not per thread: %llu dropped (no buffer), %llu lost (recycled buffer);\n"
			"# overrun of the per-CPU staging queues: per_cpu/cpuN/stats only\n",
			(unsigned long long)nobuf, (unsigned long long)recycled);
	free(ids);
	free(counts);
	return ret;
}

const struct tfs_fops trev__per_thread_stats_fops = {
	.show = per_thread_show,
};
