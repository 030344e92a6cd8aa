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
