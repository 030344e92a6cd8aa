/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trace.dat writer's internals shared between its files: which fields
 * of an event its print fmt prints as code addresses (code_fields.c); and
 * for trev record, adding a page with its counts.
 */
#ifndef TREV_TRACEDAT_INTERNAL_H
#define TREV_TRACEDAT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One field that an event's print fmt prints with %pS %ps %pB %pF or %pf. */
struct trev_dat_code_field {
	uint16_t offset;	/* in the record, from the common fields' start */
	uint16_t size;		/* 4 or 8 */
};

/*
 * trev__dat_code_fields() - the fields an event's format prints as code
 * addresses
 * @format: the text of events/SYSTEM/EVENT/format
 * @id: receives the "ID:" line's number
 * @fields: receives up to @max fields, in the order the print fmt prints them
 *          (one field printed twice is there twice)
 * @max: room in @fields
 *
 * Only an argument that is a field and nothing else counts: "REC->name",
 * possibly in parentheses or after casts ("(void *)REC->call_site"), of a
 * field that is neither an array nor dynamic, 4 or 8 bytes long. Every
 * conversion and '*' of the print fmt takes one argument, as printf's do.
 * Context: any thread; reads @format only.
 * Return: the number of fields found (which may exceed @max: only @max are
 * stored), or -EINVAL when the text has no ID or no print fmt.
 */
int trev__dat_code_fields(const char *format, int *id, struct trev_dat_code_field *fields,
			  size_t max);

/* What a page holds: trev__dat_add_page() counts it in the walk it makes anyway. */
struct trev__dat_page_count {
	uint64_t entries;	/* data records */
	uint64_t lost;		/* the lost-event count stored after them, or 0 */
	bool lost_unknown;	/* events were lost before the page, no count stored */
};

struct trev_dat;

/*
 * trev__dat_set_proc() - the process the file records, in its options as
 * trace-cmd's PROCMAPS (option 10, as `trace-cmd record --proc-map` writes
 * it: "PID COUNT COMM" in hex, then "START END PATH" per mapped file, all
 * hex, NUL-terminated; docs/formats.md, "PROCMAPS")
 * @pid, @comm: the process (a control character of @comm becomes '?')
 * @maps: the text of /proc/PID/maps, or NULL: no mapping; each file's
 *        mappings in a row become one range, anonymous ones are left out
 * Context: before the file's first trev_dat_snapshot() (a checkpoint reads
 * it), the thread that opened @dat. Each call replaces the previous one.
 * Return: 0 or -ENOMEM.
 */
int trev__dat_set_proc(struct trev_dat *dat, int pid, const char *comm, const char *maps);

/*
 * trev__dat_add_page() - trev_dat_add_page(), and @page's counts in @cnt
 * (NULL: not wanted), from the one walk over its records that looks for
 * code addresses, so that the caller does not walk it again.
 * Context and Return: as trev_dat_add_page(); @cnt is set on success.
 */
int trev__dat_add_page(struct trev_dat *dat, int cpu, const void *page,
		       struct trev__dat_page_count *cnt);

/*
 * trev__dat_scan_page() - what trev__dat_add_page() learns from @page (its
 * code addresses, for kallsyms; its counts in @cnt) without keeping it:
 * for a recorder whose pages go elsewhere (trev record -N) and whose file
 * is made for its metadata only.
 * Context: as trev__dat_add_page(). Return: 0 or -EINVAL.
 */
int trev__dat_scan_page(struct trev_dat *dat, const void *page, struct trev__dat_page_count *cnt);

/*
 * trev__dat_sync() - write the pages each CPU of the file being made holds
 * in its batch (queued for the writer thread), so that the file on disk
 * (its checkpoint, tracedat.c "Checkpoints") shows them; trev record calls
 * it at each --flush.
 * Context: the thread that adds pages.
 * Return: 0, or the errno of a write that failed before.
 */
int trev__dat_sync(struct trev_dat *dat);

struct trev_buf;

/*
 * trev__dat_snapshot_head_v6() - append to @out the version 6 metadata the
 * last trev_dat_snapshot() read: the file header through the options' end,
 * what a file has before "flyrecord" (trace-cmd listen's metadata, which
 * it puts the CPUs' data behind). Return: 0, -ENODATA before any snapshot,
 * or -ENOMEM.
 */
int trev__dat_snapshot_head_v6(struct trev_dat *dat, struct trev_buf *out);

/* What a trev__dat_finish() that failed left at the file's name. */
struct trev__dat_kept {
	bool kept;		/* a trace.dat is there: the finished file, or the last checkpoint */
	uint64_t entries;	/* on error: the data records of the pages it shows (counted ones) */
	/*
	 * In: NULL, or a buffer that gets the version 6 metadata of the file
	 * finished (as trev__dat_snapshot_head_v6() builds it; whatever the
	 * file's version), appended once the metadata is read, so also when
	 * writing the file fails after that.
	 */
	struct trev_buf *head6;
};

/*
 * trev__dat_finish() - trev_dat_finish(), and in @kept what is left: on a
 * write error the file stays as its last checkpoint made it (a valid
 * trace.dat of the pages written), with the metadata read now if it fits.
 */
int trev__dat_finish(struct trev_dat *dat, struct trev__dat_kept *kept);

#endif /* TREV_TRACEDAT_INTERNAL_H */
