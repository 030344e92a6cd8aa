/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace.dat files (versions 6 and 7, as trace-cmd writes them) from a trace
 * instance's control files and raw pages. The writer reads everything
 * through a source of two callbacks, so the same code records in process
 * (trev_dat_source_local()) or over the control socket (the trev CLI).
 *
 * One shot:  trev_record_dat() in <trev/trev.h>.
 * Streaming: trev_dat_open(), then trev_dat_add_page() as pages arrive (or
 *            trev_dat_drain() to pull what the source holds), then
 *            trev_dat_finish(). The first CPUs to have pages write them
 *            straight into the file being made (the first after room for
 *            the metadata, the next ones in sparse regions of their own);
 *            any others' pages wait in per-CPU temporary files.
 *            trev_dat_finish() writes the metadata, which is only complete
 *            at the end (thread names, trace_printk formats), brings every
 *            CPU's pages behind it, each CPU's contiguous, and gives the
 *            file its name. After a trev_dat_snapshot(), the file is a
 *            valid trace.dat on disk while pages come (its metadata and
 *            table are rewritten after each batch written, and it has its
 *            name from the first: docs/tracedat.md, "Checkpoints").
 */
#ifndef TREV_TRACEDAT_H
#define TREV_TRACEDAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <trev/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The page size of trace_pipe_raw and of the files written. */
#define TREV_DAT_PAGE_SIZE	4096

/*
 * read_page()'s flags. TREV_DAT_READ_FULL: only a full page, one no more
 * events will go on (the kernel's splice read of trace_pipe_raw); a
 * recorder copies full pages as they come and the partial ones when it
 * flushes (a read without the flag).
 */
#define TREV_DAT_READ_FULL	0x1u

/*
 * Where the writer reads a trace instance from. Every callback gets the
 * source itself; @arg is the implementation's.
 */
struct trev_dat_source {
	/*
	 * The instance's directory relative to the tracing root, with a
	 * trailing '/' ("instances/foo/"), or NULL/"" for the top instance.
	 * The writer prefixes it to the per-instance files it reads
	 * (per_cpu/, trace_clock); formats, saved_cmdlines and printk_formats
	 * are read from the root, as tracefs has them only there.
	 */
	const char *instance;
	/*
	 * read_file() - read a whole control file
	 * @path: relative to the tracing root ("events/header_page")
	 * @text: receives a malloc'd, NUL-terminated copy
	 * Return: its length, -ENOENT when there is no such file, or another
	 * negative errno.
	 */
	ssize_t (*read_file)(const struct trev_dat_source *src, const char *path, char **text);
	/*
	 * list_dir() - the names in a directory of the tree, one per line
	 * ("print\nbprint\n..."), in a malloc'd, NUL-terminated @text; used
	 * for events/ftrace/, whose events available_events does not list
	 * Return: the text's length or a negative errno.
	 */
	ssize_t (*list_dir)(const struct trev_dat_source *src, const char *path, char **text);
	/*
	 * read_page() - consume the next raw page of one CPU, without blocking
	 * @cpu: as in per_cpu/cpu<N>/trace_pipe_raw
	 * @page: TREV_DAT_PAGE_SIZE bytes, the kernel's page format
	 * @flags: 0, or TREV_DAT_READ_FULL for a full page only (a source
	 *         that cannot tell may hand out partial pages anyway)
	 * Return: 1 when a page was stored, 0 when the CPU has nothing now
	 * (drained; with TREV_DAT_READ_FULL, no full page; or, while writers
	 * on other CPUs outpace the per-CPU staging, nothing of it came out
	 * in time: trev_rb_read_page_cpu()), or a negative errno.
	 * trev_dat_drain() (flags 0) and trev record call it.
	 */
	int (*read_page)(const struct trev_dat_source *src, int cpu, void *page,
			 unsigned int flags);
	/*
	 * symbol() - optional: the function that holds a code address, for the
	 * kallsyms section (trace_printk()'s caller, the stacktrace trigger's
	 * frames, the fields print fmts print with %pS and its kin). NULL:
	 * kallsyms is empty and readers show such addresses in hex. Called
	 * at each trev_dat_snapshot() and at trev_dat_finish(),
	 * also when read_file() fails there (a traced process that is gone):
	 * it answers from what it has kept.
	 * An address only named after the nearest symbol below it (past
	 * that symbol's end: a stripped object's .dynsym) comes back as
	 * "name+0x8a" with @start the address itself, a kallsyms line of its
	 * own, so that readers print what the trace text prints.
	 * Return: 0 with @name (NUL-terminated, at most @size bytes) and
	 * @start filled, or a negative errno when unknown.
	 */
	int (*symbol)(const struct trev_dat_source *src, uint64_t addr, char *name, size_t size,
		      uint64_t *start);
	void *arg;
	/*
	 * read_page_any() - optional: consume the next raw page of whichever
	 * CPU has one (trev_rb_read_page_any()), without blocking
	 * @cpu: receives the page's CPU
	 * @flags: as read_page()'s
	 * Return: 1 with @page and *@cpu set, 0 when no CPU has one now, or a
	 * negative errno. When set, trev_dat_drain() and trev record read
	 * pages this way: no CPU's pages wait while another's are read.
	 */
	int (*read_page_any)(const struct trev_dat_source *src, void *page, int *cpu,
			     unsigned int flags);
};

/*
 * trev_dat_source_local() - a source on this process's tracefs tree
 * (trev_file_open() and friends)
 * @src: filled in; needs no cleanup
 * @instance: "instances/foo/" or NULL for the top instance
 *
 * Context: any thread, not in a signal handler or a probe.
 */
TREV_API void trev_dat_source_local(struct trev_dat_source *src, const char *instance);

/* A trace.dat file being written. */
struct trev_dat;

/*
 * trev_dat_open() - start a trace.dat file
 * @dat: receives the writer
 * @path: the file to write; it appears (or replaces an older one) at
 *         trev_dat_finish(), or, after a trev_dat_snapshot(), once the
 *         first pages are written
 * @version: 6 or 7
 * @src: where control files and pages come from; must outlive @dat
 *
 * Finds the CPUs (per_cpu/cpu<N>/ that exist) and makes one temporary file
 * per CPU, and the unnamed file that becomes @path, in @path's directory
 * (O_TMPFILE; $TMPDIR where that is refused). With a symbol() callback, also reads
 * the events' formats, to know which fields are code addresses (failing
 * that, they are known from the first snapshot on).
 * Context: any thread, not in a signal handler or a probe.
 * Return: 0, -EINVAL (bad version, no CPU), -ENOMEM, or the errno of the
 * temporary files or of the source.
 */
TREV_API int trev_dat_open(struct trev_dat **dat, const char *path, int version,
			   const struct trev_dat_source *src);

/* trev_dat_nr_cpus() - the CPUs the file will have: 0 .. n - 1. */
TREV_API int trev_dat_nr_cpus(const struct trev_dat *dat);

/*
 * trev_dat_add_page() - append one raw page to a CPU's stream, as it came
 * from per_cpu/cpu<N>/trace_pipe_raw (copied, never re-encoded; lost-event
 * flags and counts stay in it)
 * @page: TREV_DAT_PAGE_SIZE bytes
 *
 * Pages of one CPU must come in time order. Context: one thread at a time
 * per @dat.
 * Return: 0, -EINVAL (CPU out of range), or the temporary file's errno.
 */
TREV_API int trev_dat_add_page(struct trev_dat *dat, int cpu, const void *page);

/*
 * trev_dat_drain() - read every page the source holds now, one page per
 * CPU in turn, and add them
 * Return: the number of pages added, or a negative errno.
 */
TREV_API long trev_dat_drain(struct trev_dat *dat);

/*
 * trev_dat_snapshot() - read the metadata (formats, thread names,
 * trace_printk formats, clock, CPU stats) now and keep it; when
 * trev_dat_finish() cannot read it any more (a traced process that was
 * killed), it writes the file with the last snapshot instead, but for
 * kallsyms, which it makes again through symbol(). Each call replaces the
 * previous one.
 * Context: one thread at a time per @dat, which may run beside one thread
 * in trev_dat_add_page() (trev record takes snapshots in a thread of their
 * own); the source's read_file() and symbol() are then called from it.
 * Return: 0 or a negative errno (the previous snapshot stays).
 */
TREV_API int trev_dat_snapshot(struct trev_dat *dat);

/*
 * trev_dat_finish() - read the metadata from the source (or, if that
 * fails, take the last trev_dat_snapshot()), write the file and free @dat
 * (also on error: a file that a checkpoint put at @path stays, a valid
 * trace.dat of the pages written before the error; none is made otherwise)
 * Return: 0 or a negative errno.
 */
TREV_API int trev_dat_finish(struct trev_dat *dat);

/*
 * trev_dat_abort() - free @dat and its temporary files; no file is written
 * (one that a checkpoint put at @path already stays as it was).
 */
TREV_API void trev_dat_abort(struct trev_dat *dat);

#ifdef __cplusplus
}
#endif

#endif /* TREV_TRACEDAT_H */
