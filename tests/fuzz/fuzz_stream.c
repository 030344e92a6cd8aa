/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for trev record --stream (tools/trev/rec_stream.c): the
 * pages come from the traced process's buffer, mapped here, and may hold
 * anything. The input is pages (4096 bytes each, the last one padded with
 * zeros), each given to a process whose events have the formats below (its
 * ids 1..5: trev_test:tt_ints, ftrace:print, ftrace:bprint, ftrace:function,
 * a string event); every record of them is printed to /dev/null, a flush
 * after every second page and at the end. The first byte of a page's header
 * picks the CPU. The stream and its two processes are made once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rec_stream.h"
#include "trev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The command's messages (trev.c): none is expected here, and none is shown. */
void trev_err(const char *fmt, ...)
{
	(void)fmt;
}

#define FZ_COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char *const fz_systems[] = { "trev_test", "ftrace", "ftrace", "ftrace", "fz" };

static const char *const fz_formats[] = {
	"name: tt_ints\nID: 1\nformat:\n" FZ_COMMON
	"\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int b;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:int c;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"a=%d b=%u c=%d\", REC->a, REC->b, REC->c\n",
	"name: print\nID: 2\nformat:\n" FZ_COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:1;\n\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n",
	"name: bprint\nID: 3\nformat:\n" FZ_COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * fmt;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 buf[];\toffset:24;\tsize:0;\tsigned:0;\n\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->fmt\n",
	"name: function\nID: 4\nformat:\n" FZ_COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip\n",
	"name: str\nID: 5\nformat:\n" FZ_COMMON
	"\tfield:__data_loc char[] s;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__rel_loc char[] r;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"s=%s r=%s\", __get_str(s), __get_rel_str(r)\n",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Made once: the formats' parsing is the same for every input, and slow. */
	static struct trev_stream_proc *sp[2];
	static struct trev_stream *s;
	unsigned char page[4096];

	if (!s) {
		if (trev_stream_open(&s, open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
			abort();
		/* Two processes: the second's lines are prefixed with its name. */
		for (int i = 0; i < 2; i++)
			sp[i] = trev_stream_proc_add_formats(s, i ? "fz-2" : "fz-1", i, fz_systems,
							     fz_formats, 5);
		if (!sp[0] || !sp[1])
			abort();
	}
	for (size_t off = 0, n = 0; off < size; off += sizeof(page), n++) {
		size_t len = size - off < sizeof(page) ? size - off : sizeof(page);

		memset(page, 0, sizeof(page));
		memcpy(page, data + off, len);
		trev_stream_page(sp[n & 1], page[0] & 3, page);
		if (n & 1)
			trev_stream_flush(s, false);
	}
	trev_stream_flush(s, true);
	return 0;
}
