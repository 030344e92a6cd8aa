/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every buffer of a trace.dat file, merged by time (dat_buffers.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dat_buffers.h"

int trev_dat_iterate_buffers(struct tracecmd_input *h,
			     int (*cb)(struct tracecmd_input *, struct tep_record *, int, void *),
			     void *arg, int *width)
{
	int n = tracecmd_buffer_instances(h), nr = 1, ret;
	struct tracecmd_input **hs;

	*width = 0;
	if (n <= 0)
		return 1;
	hs = calloc((size_t)n + 1, sizeof(*hs));
	if (!hs)
		return -ENOMEM;
	hs[0] = h;
	tracecmd_set_private(h, (void *)"");
	for (int i = 0; i < n; i++) {
		const char *name = tracecmd_buffer_instance_name(h, i);
		struct tracecmd_input *b = name ? tracecmd_buffer_instance_handle(h, i) : NULL;

		if (!b)
			continue;
		tracecmd_set_private(b, (void *)name);
		if ((int)strlen(name) > *width)
			*width = (int)strlen(name);
		hs[nr++] = b;
	}
	ret = tracecmd_iterate_events_multi(hs, nr, cb, arg);
	for (int i = 1; i < nr; i++)
		tracecmd_close(hs[i]);
	free(hs);
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
