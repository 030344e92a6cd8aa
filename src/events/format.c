/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Format texts: events/<system>/<event>/format, events/header_page and
 * events/header_event, byte for byte as the kernel writes them
 * (docs/formats.md, "Format files", "header_page and header_event").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/events_internal.h"
#include "ring_buffer/rb_page.h"

const char trev__header_page_text[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

const char trev__header_event_text[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

/* One field line; arrays put their dimension after the name, as f_show() does. */
static void fmt_field(FILE *f, const char *type, const char *name, int offset, int size,
		      int is_signed)
{
	const char *dim = strchr(type, '[');

	if (strncmp(type, "__data_loc", 10) == 0)
		dim = NULL;
	if (dim)
		fprintf(f, "\tfield:%.*s %s%s;", (int)(dim - type), type, name, dim);
	else
		fprintf(f, "\tfield:%s %s;", type, name);
	fprintf(f, "\toffset:%d;\tsize:%d;\tsigned:%d;\n", offset, size, is_signed);
}

int trev__event_format_text(struct trev_event_call *call, char **text)
{
	struct trev_event_rt *rt = trev__event_rt(call);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!rt)
		return -ENOENT;
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "name: %s\nID: %u\nformat:\n", call->name, call->id);
	fmt_field(f, "unsigned short", "common_type", 0, 2, 0);
	fmt_field(f, "unsigned char", "common_flags", 2, 1, 0);
	fmt_field(f, "unsigned char", "common_preempt_count", 3, 1, 0);
	fmt_field(f, "int", "common_pid", 4, 4, 1);
	fputc('\n', f);
	for (int i = 0; i < rt->nr_fields; i++) {
		const struct trev_field *fl = &rt->fields[i];

		fmt_field(f, fl->type, fl->name, fl->offset, fl->size, fl->is_signed);
	}
	fprintf(f, "\nprint fmt: %s\n", trev__event_print_fmt(call));
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	*text = buf;
	return 0;
}
