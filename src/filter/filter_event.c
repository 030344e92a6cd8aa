/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Filters on registered events: compiling against an event's fields and
 * publishing a filter to an event file under RCU. filter.c (the compiler
 * and the matcher) needs neither the registry nor RCU, and the trev command
 * links it alone (trev_common).
 */
#define _LGPL_SOURCE
#include <errno.h>
#include <stdlib.h>


#include "base/rcu.h"
#include "events/events_internal.h"
#include "filter/filter.h"

int trev__filter_compile(struct trev_event_call *call, const char *text,
			 struct trev_filter **out, struct trev_filter_error *err)
{
	const struct trev_event_rt *rt = trev__event_rt(call);
	unsigned int nr = rt && rt->nr_fields > 0 ? (unsigned int)rt->nr_fields : 0;
	struct trev_filter_field *fields = calloc(nr ? nr : 1, sizeof(*fields));
	int ret;

	if (!fields)
		return -ENOMEM;
	for (unsigned int i = 0; i < nr; i++) {
		const struct trev_field *f = &rt->fields[i];
		struct trev_filter_field *ff = &fields[i];

		ff->name = f->name;
		ff->offset = f->offset;
		ff->size = f->size;
		ff->is_signed = f->is_signed;
		switch (f->filter_type) {
		case TREV_FILTER_STATIC_STRING: ff->kind = TREV_FF_STATIC_STR; break;
		case TREV_FILTER_DYN_STRING: ff->kind = TREV_FF_DYN_STR; break;
		case TREV_FILTER_RDYN_STRING: ff->kind = TREV_FF_REL_STR; break;
		case TREV_FILTER_PTR_STRING: ff->kind = TREV_FF_PTR_STR; break;
		default: ff->kind = TREV_FF_NUM; break;
		}
	}
	ret = trev__filter_compile_fields(fields, nr, text, out, err);
	free(fields);
	return ret;
}

void trev__event_filter_set(struct trev_event_file *file, struct trev_filter *f)
{
	struct trev_filter *old = file->filter;

	if (!f)
		atomic_fetch_and(&file->flags, ~TREV_FILE_FL_FILTERED);
	/* rcu_assign_pointer(): the program is complete before a probe can see it. */
	__atomic_store_n(&file->filter, f, __ATOMIC_RELEASE);
	if (f)
		atomic_fetch_or(&file->flags, TREV_FILE_FL_FILTERED);
	if (old) {
		trev__rcu_synchronize();
		trev__filter_free(old);
	}
}
