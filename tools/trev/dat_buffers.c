/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every buffer of a trace.dat file, merged by time (dat_buffers.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "dat_buffers.h"
#include "trev.h"

/* libtracecmd's own iteration: every buffer (no CPU set), or the top one's CPUs in @cpu_on. */
static int db_iterate_tracecmd(struct tracecmd_input **hs, int nr, bool multi, const bool *cpu_on,
			       int nr_cpu_on, trev_dat_cb cb, void *arg)
{
	size_t size = CPU_ALLOC_SIZE(nr_cpu_on > 0 ? nr_cpu_on : 1);
	cpu_set_t *set;
	int ret;

	if (multi)
		return tracecmd_iterate_events_multi(hs, nr, cb, arg);
	if (!cpu_on)
		return tracecmd_iterate_events(hs[0], NULL, 0, cb, arg);
	set = CPU_ALLOC(nr_cpu_on > 0 ? nr_cpu_on : 1);
	if (!set)
		return -ENOMEM;
	CPU_ZERO_S(size, set);
	for (int c = 0; c < nr_cpu_on; c++)
		if (cpu_on[c])
			CPU_SET_S(c, size, set);
	ret = tracecmd_iterate_events(hs[0], set, (int)size, cb, arg);
	CPU_FREE(set);
	return ret;
}

int trev_dat_iterate(const char *path, struct tracecmd_input *h, const bool *cpu_on,
		     int nr_cpu_on, trev_dat_cb cb, void *arg, int *width)
{
	int n = tracecmd_buffer_instances(h), nr = 1, ret;
	struct tracecmd_input **hs;
	int reader;
	bool multi = n > 0;
	int *idx;

	*width = 0;
	if (n < 0)
		n = 0;
	hs = calloc((size_t)n + 1, sizeof(*hs));
	idx = calloc((size_t)n + 1, sizeof(*idx));
	if (!hs || !idx) {
		free(hs);
		free(idx);
		return -ENOMEM;
	}
	hs[0] = h;
	idx[0] = -1;
	if (multi)
		tracecmd_set_private(h, (void *)"");
	for (int i = 0; i < n; i++) {
		const char *name = tracecmd_buffer_instance_name(h, i);
		struct tracecmd_input *b = name ? tracecmd_buffer_instance_handle(h, i) : NULL;

		if (!b)
			continue;
		tracecmd_set_private(b, (void *)name);
		if ((int)strlen(name) > *width)
			*width = (int)strlen(name);
		idx[nr] = i;
		hs[nr++] = b;
	}
	/*
	 * Streamed (flat memory), or where it cannot be, by libtracecmd.
	 * TREV_DAT_READER (for the tests: docs/cli/trev-report.md) picks one:
	 * "tracecmd" always libtracecmd, "stream" the stream or an error.
	 */
	reader = trev_dat_reader();
	if (!path || reader == TREV_DAT_READER_TRACECMD)
		ret = 1;
	else
		ret = trev_dat_stream(path, hs, idx, nr, multi ? NULL : cpu_on, nr_cpu_on, cb, arg);
	if (ret == 1 && reader == TREV_DAT_READER_STREAM)
		ret = -ENOTSUP;
	else if (ret == 1)
		ret = db_iterate_tracecmd(hs, nr, multi, cpu_on, nr_cpu_on, cb, arg);
	for (int i = 1; i < nr; i++)
		tracecmd_close(hs[i]);
	free(hs);
	free(idx);
	return ret;
}

bool trev_tep_record_sane(const struct tep_event *ev, const struct tep_record *rec)
{
	for (const struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		unsigned int loc, off;

		if (f->offset < 0 || f->size < 0 || f->offset + f->size > rec->size)
			return false;
		if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
			continue;
		if (f->size < 4)
			return false;
		memcpy(&loc, (const char *)rec->data + f->offset, sizeof(loc));
		off = (loc & 0xffff) + ((f->flags & TEP_FIELD_IS_RELATIVE) ?
					(unsigned int)(f->offset + f->size) : 0);
		if (off + (loc >> 16) > (unsigned int)rec->size)
			return false;
	}
	return true;
}

int trev_tep_map_events(struct tep_handle *tep, const char *file, size_t size, void **table,
			unsigned int *nr_ids,
			int (*map)(void *arg, void *entry, struct tep_event *ev), void *arg)
{
	struct tep_event **evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	int nr = tep_get_events_count(tep);
	unsigned int n = 0;

	*table = NULL;
	*nr_ids = 0;
	for (int i = 0; evs && i < nr; i++) {
		if (evs[i]->id < 0 || evs[i]->id > 65535) {
			trev_err("convert: %s: event %s:%s has id %d (ids are 16-bit)", file,
				 evs[i]->system, evs[i]->name, evs[i]->id);
			return -1;
		}
		/* Sorted by id: two events with one id stand side by side. */
		if (i && evs[i]->id == evs[i - 1]->id) {
			trev_err("convert: %s: two events have id %d (%s:%s and %s:%s)", file,
				 evs[i]->id, evs[i - 1]->system, evs[i - 1]->name, evs[i]->system,
				 evs[i]->name);
			return -1;
		}
		if ((unsigned int)evs[i]->id >= n)
			n = (unsigned int)evs[i]->id + 1;
	}
	*table = calloc(n ? n : 1, size);
	if (!*table)
		goto out_nomem;
	*nr_ids = n;
	for (int i = 0; evs && i < nr; i++)
		if (map(arg, (char *)*table + (size_t)evs[i]->id * size, evs[i]) == -ENOMEM)
			goto out_nomem;
	return 0;
out_nomem:
	trev_err("convert: %s", strerror(ENOMEM));
	return -1;
}
