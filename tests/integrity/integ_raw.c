/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * integ_raw: trace_pipe_raw pages of integ:integ_rec events, decoded with
 * libtraceevent's kbuffer, as text lines integ_check reads:
 *
 *	integ_raw FORMAT PAGES
 *
 * FORMAT is events/integ/integ_rec/format (the fields' offsets come from
 * it, as a tool takes them); PAGES a file of whole 4096-byte pages, as
 * trev cat -p PID per_cpu/cpuN/trace_pipe_raw writes them. Prints
 *
 *	raw-PID [CPU] TS: integ_rec: stream=S seq=Q len=L check=X p=PAYLOAD
 *	CPU:N [LOST M EVENTS]
 *
 * (CPU: the page file's; a page whose lost flag has no count prints
 * "[LOST EVENTS]", which integ_check counts bad). Exit 0, 1 on a malformed
 * page or record (also printed), 2 on bad usage.
 */
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/kbuffer.h>

#define PAGE	4096

static const char *const names[] = { "common_pid", "stream", "len", "seq", "check", "payload" };
enum { F_PID, F_STREAM, F_LEN, F_SEQ, F_CHECK, F_PAYLOAD, NR_F };

static int offsets(const char *path, unsigned int off[NR_F])
{
	static char fmt[65536];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(fmt, 1, sizeof(fmt) - 1, f);
	fclose(f);
	fmt[n] = '\0';
	for (int i = 0; i < NR_F; i++) {
		char re_text[256];
		regmatch_t m[2];
		regex_t re;

		snprintf(re_text, sizeof(re_text),
			 "field:[^;]*[[:space:]]%s;[[:space:]]+offset:([0-9]+);", names[i]);
		if (regcomp(&re, re_text, REG_EXTENDED))
			return -1;
		if (regexec(&re, fmt, 2, m, 0)) {
			regfree(&re);
			fprintf(stderr, "integ_raw: no field %s in %s\n", names[i], path);
			return -1;
		}
		off[i] = (unsigned int)strtoul(fmt + m[1].rm_so, NULL, 10);
		regfree(&re);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static unsigned char page[PAGE];
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	unsigned int off[NR_F];
	int bad = 0;
	FILE *in;

	if (argc != 3 || !kb) {
		fprintf(stderr, "usage: integ_raw FORMAT PAGES\n");
		return 2;
	}
	if (offsets(argv[1], off) < 0)
		return 2;
	in = fopen(argv[2], "r");
	if (!in) {
		perror(argv[2]);
		return 2;
	}
	for (;;) {
		size_t n = fread(page, 1, PAGE, in);
		unsigned long long ts;
		void *data;
		int missed;

		if (n == 0)
			break;
		if (n != PAGE || kbuffer_load_subbuffer(kb, page)) {
			printf("[corrupt record: a page of %zu bytes]\n", n);
			bad = 1;
			break;
		}
		missed = kbuffer_missed_events(kb);
		if (missed < 0)
			printf("CPU:0 [LOST EVENTS]\n");
		else if (missed)
			printf("CPU:0 [LOST %d EVENTS]\n", missed);
		for (data = kbuffer_read_event(kb, &ts); data; data = kbuffer_next_event(kb, &ts)) {
			const unsigned char *r = data;
			unsigned int size = (unsigned int)kbuffer_event_size(kb), loc, stream, len, check;
			unsigned long long seq;
			int32_t pid;

			if (size < off[F_PAYLOAD] + 4) {
				printf("[corrupt record: integ_rec of %u bytes]\n", size);
				bad = 1;
				continue;
			}
			memcpy(&pid, r + off[F_PID], 4);
			memcpy(&stream, r + off[F_STREAM], 4);
			memcpy(&len, r + off[F_LEN], 4);
			memcpy(&seq, r + off[F_SEQ], 8);
			memcpy(&check, r + off[F_CHECK], 4);
			memcpy(&loc, r + off[F_PAYLOAD], 4);
			if ((loc & 0xffff) + (loc >> 16) > size || (loc >> 16) == 0) {
				printf("[corrupt record: integ_rec payload outside it]\n");
				bad = 1;
				continue;
			}
			printf("raw-%d [000] %llu.%09llu: integ_rec: stream=%u seq=%llu len=%u "
			       "check=%08x p=%.*s\n", (int)pid, ts / 1000000000ull,
			       ts % 1000000000ull, stream, seq, len, check,
			       (int)strnlen((const char *)r + (loc & 0xffff), loc >> 16),
			       (const char *)r + (loc & 0xffff));
		}
	}
	fclose(in);
	kbuffer_free(kb);
	return bad;
}
