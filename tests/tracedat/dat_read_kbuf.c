/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A trace.dat reader on libtraceevent alone: the file is taken apart by
 * tests/tracedat/datfile.h, its formats, kallsyms, printk formats and
 * cmdlines go to a tep handle, and each CPU's pages are walked with kbuffer.
 * Prints one line per record, merged by time as libtracecmd merges:
 *
 *   TS CPU PID COMM SYSTEM:EVENT missed=N INFO
 *
 * missed= is kbuffer_missed_events() on the first record of a page that
 * has the lost-events flag (-1: flag without a count), else 0.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include <traceevent/trace-seq.h>

#include "datfile.h"

struct cpu_stream {
	struct kbuffer *kbuf;
	const uint8_t *next_page, *end;
	void *event;			/* current record, NULL when done */
	unsigned long long ts;
	int missed;			/* for the current record */
	int first;			/* the current record is the first of its page */
};

static struct datfile df;

/* Load pages until one has a record; the stream ends when none is left. */
static void stream_load(struct cpu_stream *s)
{
	s->event = NULL;
	while (s->next_page < s->end) {
		void *page = (void *)s->next_page;

		s->next_page += df.page_size;
		if (kbuffer_load_subbuffer(s->kbuf, page) < 0)
			continue;
		s->event = kbuffer_read_event(s->kbuf, &s->ts);
		if (s->event) {
			s->missed = kbuffer_missed_events(s->kbuf);
			return;
		}
	}
}

static void stream_next(struct cpu_stream *s)
{
	s->missed = 0;
	s->event = kbuffer_next_event(s->kbuf, &s->ts);
	if (!s->event)
		stream_load(s);
}

static char *dup_text(const struct df_text *t)
{
	char *s = malloc(t->len + 1);

	memcpy(s, t->p, t->len);
	s[t->len] = '\0';
	return s;
}

int main(int argc, char **argv)
{
	struct cpu_stream *cpus;
	struct tep_handle *tep;
	struct trace_seq seq;
	struct stat st;
	void *map;
	char *text;
	int fd, lsize;

	if (argc != 2) {
		fprintf(stderr, "usage: dat_read_kbuf FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(argv[1]);
		return 1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (df_parse(&df, map, (uint64_t)st.st_size)) {
		fprintf(stderr, "dat_read_kbuf: %s: %s\n", argv[1], df.err);
		return 1;
	}

	tep = tep_alloc();
	tep_set_long_size(tep, df.long_size);
	tep_set_page_size(tep, (int)df.page_size);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	text = dup_text(&df.header_page);
	if (tep_parse_header_page(tep, text, df.header_page.len, df.long_size)) {
		fprintf(stderr, "dat_read_kbuf: bad header_page\n");
		return 1;
	}
	free(text);
	for (int i = 0; i < df.nr_fmts; i++) {
		if (tep_parse_event(tep, df.fmts[i].text.p, df.fmts[i].text.len,
				    df.fmts[i].system)) {
			fprintf(stderr, "dat_read_kbuf: format %d of %s does not parse\n", i,
				df.fmts[i].system);
			return 1;
		}
	}
	text = dup_text(&df.kallsyms);
	if (tep_parse_kallsyms(tep, text))
		return fprintf(stderr, "dat_read_kbuf: bad kallsyms\n"), 1;
	free(text);
	text = dup_text(&df.printk);
	if (tep_parse_printk_formats(tep, text))
		return fprintf(stderr, "dat_read_kbuf: bad printk formats\n"), 1;
	free(text);
	text = dup_text(&df.cmdlines);
	if (tep_parse_saved_cmdlines(tep, text))
		return fprintf(stderr, "dat_read_kbuf: bad cmdlines\n"), 1;
	free(text);

	lsize = tep_get_header_page_size(tep) == 4 ? KBUFFER_LSIZE_4 : KBUFFER_LSIZE_8;
	cpus = calloc((size_t)df.nr_cpus, sizeof(*cpus));
	for (int i = 0; i < df.nr_cpus; i++) {
		cpus[i].kbuf = kbuffer_alloc(lsize, KBUFFER_ENDIAN_LITTLE);
		cpus[i].next_page = (const uint8_t *)map + df.cpu_off[i];
		cpus[i].end = cpus[i].next_page + df.cpu_size[i];
		stream_load(&cpus[i]);
	}
	trace_seq_init(&seq);
	for (;;) {
		struct tep_record rec;
		struct tep_event *ev;
		int best = -1;

		for (int i = 0; i < df.nr_cpus; i++)
			if (cpus[i].event && (best < 0 || cpus[i].ts < cpus[best].ts))
				best = i;
		if (best < 0)
			break;
		memset(&rec, 0, sizeof(rec));
		rec.ts = cpus[best].ts;
		rec.cpu = (int)df.cpu_id[best];
		rec.data = cpus[best].event;
		rec.size = kbuffer_event_size(cpus[best].kbuf);
		rec.missed_events = cpus[best].missed;
		ev = tep_find_event_by_record(tep, &rec);
		trace_seq_reset(&seq);
		if (ev)
			tep_print_event(tep, &seq, &rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&seq);
		/* print's text ends in a newline, as the kernel stores it. */
		while (seq.len && seq.buffer[seq.len - 1] == '\n')
			seq.buffer[--seq.len] = '\0';
		{
			int pid = tep_data_pid(tep, &rec);

			printf("%llu %d %d %s %s:%s missed=%lld %s\n", rec.ts, rec.cpu, pid,
			       tep_data_comm_from_pid(tep, pid), ev ? ev->system : "?",
			       ev ? ev->name : "?", (long long)rec.missed_events, seq.buffer);
		}
		stream_next(&cpus[best]);
	}
	trace_seq_destroy(&seq);
	for (int i = 0; i < df.nr_cpus; i++)
		kbuffer_free(cpus[i].kbuf);
	free(cpus);
	tep_free(tep);
	munmap(map, (size_t)st.st_size);
	close(fd);
	return 0;
}
