/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Format texts: events/<system>/<event>/format, events/header_page and
 * events/header_event, byte for byte as the kernel writes them
 * (docs/formats.md, "Format files", "header_page and header_event").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
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
static void fmt_field(struct trev_buf *b, const char *type, const char *name, int offset,
		      int size, int is_signed)
{
	const char *dim = strchr(type, '[');

	if (strncmp(type, "__data_loc", 10) == 0)
		dim = NULL;
	if (dim)
		trev__buf_printf(b, "\tfield:%.*s %s%s;", (int)(dim - type), type, name, dim);
	else
		trev__buf_printf(b, "\tfield:%s %s;", type, name);
	trev__buf_printf(b, "\toffset:%d;\tsize:%d;\tsigned:%d;\n", offset, size, is_signed);
}

int trev__event_format_text(struct trev_event_call *call, char **text)
{
	struct trev_event_rt *rt = trev__event_rt(call);
	struct trev_buf b = TREV_BUF_INIT;

	if (!rt)
		return -ENOENT;
	/* A failed growth is kept by the buffer: looked at once, by the detach. */
	trev__buf_printf(&b, "name: %s\nID: %u\nformat:\n", call->name, call->id);
	fmt_field(&b, "unsigned short", "common_type", 0, 2, 0);
	fmt_field(&b, "unsigned char", "common_flags", 2, 1, 0);
	fmt_field(&b, "unsigned char", "common_preempt_count", 3, 1, 0);
	fmt_field(&b, "int", "common_pid", 4, 4, 1);
	trev__buf_putc(&b, '\n');
	for (int i = 0; i < rt->nr_fields; i++) {
		const struct trev_field *fl = &rt->fields[i];

		fmt_field(&b, fl->type, fl->name, fl->offset, fl->size, fl->is_signed);
	}
	trev__buf_printf(&b, "\nprint fmt: %s\n", trev__event_print_fmt(call));
	*text = trev__buf_detach(&b);
	return *text ? 0 : -ENOMEM;
}
