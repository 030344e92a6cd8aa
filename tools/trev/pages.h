/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What trev record and trev recover count in the pages they write, and the thread
 * names of a mapped buffer and where its region is damaged.
 */
#ifndef TREV_TOOLS_PAGES_H
#define TREV_TOOLS_PAGES_H

#include <stdint.h>
#include <sys/types.h>

struct trev_rb;

/* One CPU's pages written to a file, counted from their record headers. */
struct trev_page_tally {
	uint64_t pages;		/* pages written */
	uint64_t entries;	/* data records in them */
	uint64_t lost;		/* lost counts the pages carry */
	uint64_t lost_pages;	/* pages flagged "events missed" without a count */
};

/* Count @page (a kernel-format page, any bytes) into @t: record headers only. */
void trev_page_tally_add(struct trev_page_tally *t, const unsigned char *page);

/*
 * trev_mapped_cmdlines() - "TID COMM" lines, as saved_cmdlines has them, for
 * every thread that wrote into @rb (an attached buffer: the dead ones too,
 * still there once the process is gone), in a malloc'd NUL-terminated *@text;
 * only printable bytes of the names. Return: its length, or -ENOMEM.
 */
ssize_t trev_mapped_cmdlines(struct trev_rb *rb, char **text);

/*
 * trev_mapped_damage() - where a read of @rb (an attached buffer whose
 * writers are gone) found its region damaged, as one line into @buf:
 * "buffer B (thread T), CPU C, page S (region page P), offset O: what".
 * Return: 1 with @buf set, 0 when no damage was found.
 */
int trev_mapped_damage(struct trev_rb *rb, char *buf, size_t size);

#endif /* TREV_TOOLS_PAGES_H */
