/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One trace.dat of several processes: the files trev's writer made for each
 * process of a session, joined as the buffers of one version 7 file
 * (docs/sessions.md, "One time line").
 */
#ifndef TREV_DAT_MERGE_H
#define TREV_DAT_MERGE_H

#include <stddef.h>
#include <stdint.h>

/* One input: a trace.dat of one process, and the name of its buffer in the output. */
struct trev_merge_in {
	const char *path;	/* written by trev's writer, version 6 or 7, one buffer */
	const char *name;	/* the buffer's name: "" for the top buffer (the first input only) */
};

/* What a merge did, for the summary. */
struct trev_merge_stats {
	uint64_t pages;		/* pages copied */
	uint64_t rewritten;	/* records whose event id was changed */
	uint64_t unknown;	/* records of an id their file has no format for: kept as they were */
	unsigned int events;	/* event formats in the output */
};

/*
 * trev_dat_merge() - write @out, a version 7 trace.dat with one buffer per
 * input, in the order given
 * @in: @n inputs, @n >= 1; the first is the top buffer
 * @stats: receives the counts (NULL: not wanted)
 * @err, @err_size: a message naming the input and what is wrong, on failure
 *
 * Event formats are joined: one event (system, name and format alike) has
 * one id in the output, the first input's where it can; records of the
 * others are given the output's ids as their pages are copied. Thread
 * names, kallsyms and printk formats are the union of the inputs'; the
 * clock, CPU count and uname are the first input's. Every input is
 * checked before use (sizes, offsets, counts stay inside the file).
 * Return: 0, or a negative errno with @err set; @out is then incomplete,
 * and the caller removes it.
 */
int trev_dat_merge(const char *out, const struct trev_merge_in *in, int n,
		   struct trev_merge_stats *stats, char *err, size_t err_size);

/*
 * trev_dat_merge_parse() - check one input as trev_dat_merge() would,
 * from memory (the fuzzer's entry). Return: 0 or a negative errno.
 */
int trev_dat_merge_parse(const void *data, size_t size, char *err, size_t err_size);

#endif /* TREV_DAT_MERGE_H */
