/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A trace.dat file's records as a stream (dat_stream.h): each CPU's pages
 * read a chunk at a time with pread(), decoded by libtraceevent's kbuffer as
 * libtracecmd decodes them, merged across CPUs and buffers by time. Memory:
 * one chunk per CPU, whatever the file's size.
 *
 * Where a CPU's pages are: libtracecmd knows its data's offset and size but
 * 3.1.6 exports neither; its first record's offset (tracecmd_read_cpu_first())
 * is in its first page with a record, its last one's (tracecmd_read_cpu_last())
 * in its last. Pages before the first or after the last give no record to
 * libtracecmd either (their lost-event counts neither: those go with a
 * record), so reading from the one to the other gives what it gives.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/kbuffer.h>

#include "dat_stream.h"

/* libtracecmd 3.1.6 exports these but its installed header does not declare them. */
int tracecmd_page_size(struct tracecmd_input *handle);
int tracecmd_cpus(struct tracecmd_input *handle);
struct tep_record *tracecmd_read_cpu_last(struct tracecmd_input *handle, int cpu);
int tracecmd_get_file_compress_proto(struct tracecmd_input *handle, const char **name,
				     const char **version);

#define DS_CHUNK	(64 * 1024)	/* bytes read at a time per CPU (whole pages) */

/* One CPU of one buffer. */
struct ds_cpu {
	struct tracecmd_input *h;	/* the caller's handle, given to the callback */
	int index;			/* across the buffers, as tracecmd_iterate_events_multi() */
	int cpu;			/* the record's CPU (libtracecmd's cpu_data[].cpu) */
	uint64_t next;			/* file offset of the next page to load */
	uint64_t last;			/* file offset of the last page */
	char *buf;			/* pages read from chunk_off */
	uint64_t chunk_off;
	size_t chunk_len;
	struct kbuffer *kbuf;
	bool loaded;			/* kbuf holds a page with records left */
	uint64_t page_off;		/* the loaded page's file offset */
	struct tep_record rec;		/* the next record, when has_rec */
	bool has_rec;
};

struct trev_dat_stream {
	int fd;
	int page_size;
	struct ds_cpu *cpus;
	int nr;
	struct ds_cpu *last;		/* the CPU of the record given last */
};

/* Make the page at c->next the loaded one. Return: false at the CPU's end. */
static bool ds_load(struct trev_dat_stream *s, struct ds_cpu *c)
{
	uint64_t off = c->next;

	if (off > c->last)
		return false;
	if (off < c->chunk_off || off + (uint64_t)s->page_size > c->chunk_off + c->chunk_len) {
		uint64_t want = c->last + (uint64_t)s->page_size - off;
		ssize_t got;

		if (want > DS_CHUNK)
			want = DS_CHUNK;
		do
			got = pread(s->fd, c->buf, (size_t)want, (off_t)off);
		while (got < 0 && errno == EINTR);
		/* A page that is not all there ends the CPU, as a failed map does libtracecmd's. */
		if (got < s->page_size)
			return false;
		c->chunk_off = off;
		c->chunk_len = (size_t)got - (size_t)got % (size_t)s->page_size;
	}
	kbuffer_load_subbuffer(c->kbuf, c->buf + (off - c->chunk_off));
	/* libtracecmd's update_page_info(): a page claiming more than a page ends the CPU. */
	if (kbuffer_subbuffer_size(c->kbuf) > s->page_size)
		return false;
	c->page_off = off;
	c->next = off + (uint64_t)s->page_size;
	c->loaded = true;
	return true;
}

/* The CPU's next record into c->rec, as tracecmd_peek_data() makes it. */
static bool ds_peek(struct trev_dat_stream *s, struct ds_cpu *c)
{
	for (;;) {
		unsigned long long ts;
		void *data;

		if (!c->loaded && !ds_load(s, c))
			return c->has_rec = false;
		data = kbuffer_read_event(c->kbuf, &ts);
		if (!data) {
			c->loaded = false;
			continue;
		}
		c->rec = (struct tep_record){
			.ts = ts,
			.offset = c->page_off + (unsigned long long)kbuffer_curr_offset(c->kbuf),
			.record_size = kbuffer_curr_size(c->kbuf),
			.size = kbuffer_event_size(c->kbuf),
			.cpu = c->cpu,
			.data = data,
			.missed_events = kbuffer_missed_events(c->kbuf),
			.ref_count = 1,
		};
		kbuffer_next_event(c->kbuf, NULL);
		return c->has_rec = true;
	}
}

/*
 * The time stamp of the last record of the page at @off, decoded here.
 * Return: false when the page has none or cannot be read.
 */
static bool ds_last_ts(struct trev_dat_stream *s, struct ds_cpu *c, uint64_t off, unsigned long long *ts)
{
	bool any = false;

	c->next = off;
	c->chunk_len = 0;
	if (!ds_load(s, c))
		return false;
	while (kbuffer_read_event(c->kbuf, ts)) {
		any = true;
		kbuffer_next_event(c->kbuf, NULL);
	}
	c->loaded = false;
	return any;
}

/*
 * One CPU of a buffer, where its pages are (from @probe, a handle of the
 * same buffer that is not the caller's). Return: 1 set up, 0 no record on
 * it, -1 not readable here (time stamps differ), -ENOMEM.
 */
static int ds_cpu_setup(struct trev_dat_stream *s, struct ds_cpu *c, struct tracecmd_input *probe, int idx,
			enum kbuffer_long_size lsize, enum kbuffer_endian endian, bool old)
{
	struct tep_record *first = tracecmd_read_cpu_first(probe, idx), *last;
	unsigned long long first_ts, last_ts, ts;
	uint64_t mask = ~((uint64_t)s->page_size - 1), start;

	if (!first)
		return 0;
	last = tracecmd_read_cpu_last(probe, idx);
	if (!last) {
		tracecmd_free_record(first);
		return -1;
	}
	c->cpu = first->cpu;
	start = first->offset & mask;
	c->last = last->offset & mask;
	first_ts = first->ts;
	last_ts = last->ts;
	tracecmd_free_record(first);
	tracecmd_free_record(last);
	if (c->last < start)
		return -1;
	c->buf = malloc(DS_CHUNK);
	c->kbuf = kbuffer_alloc(lsize, endian);
	if (!c->buf || !c->kbuf)
		return -ENOMEM;
	if (old)
		kbuffer_set_old_format(c->kbuf);
	/*
	 * libtracecmd shifts or scales time stamps for some files (TSC2NSEC,
	 * --ts-offset, a guest's): the first and the last must be ours.
	 */
	if (!ds_last_ts(s, c, c->last, &ts) || ts != last_ts)
		return -1;
	c->next = start;
	c->chunk_len = 0;
	if (!ds_peek(s, c) || c->rec.ts != first_ts)
		return -1;
	return 1;
}

/* The next record of all: the oldest, the first CPU on a tie. */
static struct ds_cpu *ds_next(struct trev_dat_stream *s)
{
	struct ds_cpu *best = NULL;

	for (int i = 0; i < s->nr; i++) {
		struct ds_cpu *c = &s->cpus[i];

		if (c->has_rec && (!best || c->rec.ts < best->rec.ts))
			best = c;
	}
	return best;
}

int trev_dat_reader(void)
{
	const char *mode = getenv("TREV_DAT_READER");

	if (mode && !strcmp(mode, "tracecmd"))
		return TREV_DAT_READER_TRACECMD;
	if (mode && !strcmp(mode, "stream"))
		return TREV_DAT_READER_STREAM;
	return TREV_DAT_READER_ANY;
}

struct trev_dat_stream *trev_dat_stream_open(const char *path, struct tracecmd_input **hs,
					     const int *idx, int n, const bool *cpu_on,
					     int nr_cpu_on, int *err)
{
	struct tracecmd_input *probe_top, *probe;
	struct tep_handle *tep = tracecmd_get_tep(hs[0]);
	const char *zname = NULL, *zver = NULL;
	struct trev_dat_stream *s;
	int total = 0, ret = 1;

	*err = 1;
	if (tep_get_header_timestamp_size(tep) != 8 ||
	    tracecmd_get_file_compress_proto(hs[0], &zname, &zver) == 0)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	s->fd = -1;
	s->page_size = tracecmd_page_size(hs[0]);
	if (s->page_size <= 0 || s->page_size > DS_CHUNK || (s->page_size & (s->page_size - 1))) {
		trev_dat_stream_close(s);
		return NULL;
	}
	for (int k = 0; k < n; k++)
		total += tracecmd_cpus(hs[k]) > 0 ? tracecmd_cpus(hs[k]) : 0;
	s->cpus = calloc((size_t)(total ? total : 1), sizeof(*s->cpus));
	if (!s->cpus) {
		*err = -ENOMEM;
		trev_dat_stream_close(s);
		return NULL;
	}
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	probe_top = s->fd >= 0 ? tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS) : NULL;
	if (!probe_top) {
		trev_dat_stream_close(s);
		return NULL;
	}
	posix_fadvise(s->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	for (int k = 0, index = 0; k < n && ret == 1; k++) {
		int cpus = tracecmd_cpus(hs[k]);

		probe = idx[k] < 0 ? probe_top : tracecmd_buffer_instance_handle(probe_top, idx[k]);
		if (!probe || (cpus > 0 && tracecmd_cpus(probe) != cpus)) {
			ret = -1;
		} else {
			for (int i = 0; i < cpus && ret == 1; i++, index++) {
				struct ds_cpu *c = &s->cpus[s->nr];
				int r;

				c->h = hs[k];
				c->index = index;
				if (cpu_on && (i >= nr_cpu_on || !cpu_on[i]))
					continue;
				s->nr++;
				r = ds_cpu_setup(s, c, probe, i,
						 tep_get_header_page_size(tep) == 8 ? KBUFFER_LSIZE_8 :
						 KBUFFER_LSIZE_4,
						 tep_is_file_bigendian(tep) ? KBUFFER_ENDIAN_BIG :
						 KBUFFER_ENDIAN_LITTLE, tep_is_old_format(tep));
				if (r < 0)
					ret = r;
			}
		}
		if (probe && probe != probe_top)
			tracecmd_close(probe);
	}
	tracecmd_close(probe_top);
	if (ret != 1) {
		*err = ret == -ENOMEM ? -ENOMEM : 1;
		trev_dat_stream_close(s);
		return NULL;
	}
	*err = 0;
	return s;
}

struct tep_record *trev_dat_stream_next(struct trev_dat_stream *s, struct tracecmd_input **h,
					int *index)
{
	struct ds_cpu *c;

	/* The record given last is done with: its CPU moves on. */
	if (s->last)
		ds_peek(s, s->last);
	c = s->last = ds_next(s);
	if (!c)
		return NULL;
	if (h)
		*h = c->h;
	if (index)
		*index = c->index;
	return &c->rec;
}

void trev_dat_stream_close(struct trev_dat_stream *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nr; i++) {
		free(s->cpus[i].buf);
		if (s->cpus[i].kbuf)
			kbuffer_free(s->cpus[i].kbuf);
	}
	free(s->cpus);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}

int trev_dat_stream(const char *path, struct tracecmd_input **hs, const int *idx, int n,
		    const bool *cpu_on, int nr_cpu_on, trev_dat_cb cb, void *arg)
{
	struct trev_dat_stream *s;
	struct tep_record *rec;
	struct tracecmd_input *h;
	int ret, index;

	s = trev_dat_stream_open(path, hs, idx, n, cpu_on, nr_cpu_on, &ret);
	if (!s)
		return ret;
	while ((rec = trev_dat_stream_next(s, &h, &index))) {
		ret = cb(h, rec, index, arg);
		if (ret < 0)
			break;
	}
	trev_dat_stream_close(s);
	return ret;
}
