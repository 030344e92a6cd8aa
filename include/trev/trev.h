/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev's in-process control API: enable events, read the trace, get the
 * format texts. A thin layer that the tracefs tree (control files, FUSE,
 * the trev CLI) will sit on; until then it is how a program or a test
 * drives tracing. Environment variables read at start-up:
 *
 *	TREV_EVENTS	set_event syntax, comma-separated ("myapp:*,!myapp:noisy")
 *	TREV_OUTPUT	a file path, or "stderr"/"stdout": the trace text at exit
 *	TREV_BUFFER_KB	size of each per-thread buffer (buffer_size_kb)
 *	TREV_CLOCK	trace_clock
 *	TREV_OPTIONS	trace_options words, comma-separated ("raw,nocontext-info")
 *	TREV_WRITE	"path=value;path=value": trev_write() each, in order
 *	TREV_MOUNT	a directory: trev_mount() it
 */
#ifndef TREV_TREV_H
#define TREV_TREV_H

#include <stdio.h>
#include <sys/types.h>

#include <trev/common.h>
#include <trev/ring_buffer.h>
#include <trev/trace_printk.h>

#ifdef __cplusplus
extern "C" {
#endif

enum trev_log_level {
	TREV_LOG_ERR,
	TREV_LOG_WARN,
	TREV_LOG_INFO,
	TREV_LOG_DEBUG,
};

/*
 * Receives every library message at or below the chosen level: whole
 * lines, the last ending with '\n'.
 */
typedef void (*trev_log_fn)(int level, const char *msg, void *arg);

/*
 * trev_set_log() - replace where library messages go (default: stderr, up
 * to TREV_LOG_WARN). @fn NULL silences them. Context: any thread.
 */
TREV_API void trev_set_log(trev_log_fn fn, void *arg, int max_level);

/*
 * trev_set_event() - enable or disable events, as writing set_event does
 * @spec: "[!][system:]event", "system:*", "*:*"; several separated by commas
 *
 * Return: 0, or -EINVAL if a term matched no event (the others still apply).
 * Context: any thread, not in a signal handler or a probe.
 */
TREV_API int trev_set_event(const char *spec);

/* trev_tracing_on() - tracing_on: 1 records, 0 stops recording. */
TREV_API int trev_tracing_on(int on);

/*
 * trev_trace_print() - write the `trace` file: header, then every unread
 * event oldest first, merged across threads; consumes nothing.
 * Return: 0 or a negative errno.
 */
TREV_API int trev_trace_print(FILE *out);

/*
 * trev_trace_pipe_read() - read `trace_pipe`: whole lines, consumed
 * @timeout_ms: -1 blocks until there is something, 0 never blocks
 * Return: bytes stored (no NUL), 0 when nothing came in time, -EINTR when
 * woken by trev_trace_pipe_wake(), or a negative errno.
 */
TREV_API ssize_t trev_trace_pipe_read(char *buf, size_t len, int timeout_ms);
TREV_API void trev_trace_pipe_wake(void);

/* trev_trace_reset() - empty the buffers (echo > trace). */
TREV_API int trev_trace_reset(void);

/*
 * trev_trace_option() - set an output option by its trace_options name:
 * "raw", "hex", "bin", "context-info", ..., "no" + name clears it.
 * Return: 0 or -EINVAL for an unknown name.
 */
TREV_API int trev_trace_option(const char *name);

/*
 * Format texts, as events/<system>/<event>/format, events/header_page,
 * events/header_event and printk_formats show them. The returned strings
 * are malloc'd. Return: 0, -ENOENT (no such event) or -ENOMEM.
 */
TREV_API int trev_event_format(const char *system, const char *event, char **text);
TREV_API const char *trev_header_page(void);
TREV_API const char *trev_header_event(void);
TREV_API int trev_printk_formats(char **text);

/* The top instance's ring buffer (trace_pipe_raw, stats), made on first use. */
TREV_API struct trev_rb *trev_trace_buffer(void);

/*
 * The tracefs tree: every file of /sys/kernel/tracing, with the kernel's
 * semantics, as paths relative to the tracing root ("trace",
 * "events/sched/enable", "instances/foo/trace_pipe"; a leading '/' is
 * ignored). docs/tracefs.md lists the files. The C calls below, the FUSE
 * mount and the control socket all reach the same handlers.
 *
 * Errors are negative errnos as the kernel's file operations return them
 * (-ENOENT no such file, -EACCES wrong access mode, -EINVAL bad input, with
 * the reason in error_log, -EBUSY, -EAGAIN for O_NONBLOCK, -EINTR when a
 * blocked read was woken by trev_file_wake()).
 */
struct trev_file;

/*
 * trev_file_open() - open a file of the tree
 * @path: its path, e.g. "instances/foo/trace"
 * @flags: O_RDONLY, O_WRONLY or O_RDWR, with O_TRUNC, O_APPEND, O_NONBLOCK
 *         as open(2) takes them; O_TRUNC on `trace` clears the buffer, on
 *         set_event disables every event, as on tracefs
 * @file: receives the open file
 *
 * Context: any thread, not in a signal handler or a probe.
 * Return: 0, -ENOENT, -EISDIR, -EACCES, -ENOMEM.
 */
TREV_API int trev_file_open(const char *path, int flags, struct trev_file **file);

/*
 * trev_file_read() - read the next bytes of an open file
 *
 * Text files are generated when first read and then read in order, as a
 * seq_file is. Pipe files (trace_pipe, trace_pipe_raw) consume and block
 * until data comes unless opened with O_NONBLOCK.
 * Return: bytes read, 0 at the end, or a negative errno.
 */
TREV_API ssize_t trev_file_read(struct trev_file *file, void *buf, size_t size);

/* trev_file_read_flags()'s flags. */
#define TREV_READ_FULL		0x1u	/* trace_pipe_raw: full pages only */

/*
 * trev_file_read_flags() - trev_file_read(), with per-read flags (as
 * preadv2(2) has)
 * @flags: 0, or TREV_READ_FULL: a file that hands out ring-buffer pages
 *         (per_cpu/cpuN/trace_pipe_raw) hands out a page only once it is
 *         full, as the kernel's splice read of it does (the path trace-cmd
 *         record takes; trev_rb_read_page_cpu_flags()); the partial last
 *         page is left for a read without the flag (a flush, the final
 *         drain). Such a read never blocks: -EAGAIN when no page is full,
 *         whatever O_NONBLOCK says. Bytes left of a page a short read
 *         began are handed out either way. Other files read as without it.
 *
 * Context: any thread, not in a signal handler or a probe.
 * Return: bytes read, 0 at the end, -EAGAIN, -EINVAL for unknown @flags,
 * or a negative errno.
 */
TREV_API ssize_t trev_file_read_flags(struct trev_file *file, void *buf, size_t size,
				      unsigned int flags);

/*
 * trev_file_write() - write to an open file; each call is parsed on its
 * own, as the kernel's write handlers do.
 * Return: @size when accepted, or a negative errno (the old state stays).
 */
TREV_API ssize_t trev_file_write(struct trev_file *file, const void *buf, size_t size);

/*
 * trev_file_poll() - wait until the file is readable
 * @timeout_ms: -1 waits for ever, 0 only looks
 * Return: POLLIN | POLLRDNORM when reading will not block (always for
 * plain files), 0 on time-out, -EINTR when woken by trev_file_wake().
 */
TREV_API int trev_file_poll(struct trev_file *file, int timeout_ms);

/* trev_file_wake() - make a read or poll blocked on @file return -EINTR. Context: any thread. */
TREV_API void trev_file_wake(struct trev_file *file);

/* trev_file_close() - close an open file. Return: 0 or a negative errno. */
TREV_API int trev_file_close(struct trev_file *file);

/* What trev_path_stat() tells of a path. */
struct trev_stat {
	int is_dir;		/* 1 for a directory */
	unsigned int mode;	/* permission bits, as tracefs shows them */
};

TREV_API int trev_path_stat(const char *path, struct trev_stat *st);

/*
 * trev_readdir() - list a directory: @fn is called for each entry, in the
 * order `ls -f` would show them; a non-zero return from @fn stops the walk
 * and is returned. The entries are listed first and @fn is called after,
 * with no lock of the tree held: it may read, write, list or make files of
 * the tree (trev_write(), trev_readdir(), trev_mkdir()), and sees the
 * directory as it was when listed.
 * Context: any thread, not in a signal handler or a probe.
 * Return: 0, -ENOENT, -ENOTDIR, -ENOMEM, or what @fn returned.
 */
typedef int (*trev_readdir_fn)(const char *name, const struct trev_stat *st, void *arg);
TREV_API int trev_readdir(const char *path, trev_readdir_fn fn, void *arg);

/*
 * trev_mkdir() / trev_rmdir() - make or remove an instance: only
 * "instances/<name>". rmdir is refused with -EBUSY while a file of the
 * instance is open. Return: 0, -EEXIST, -ENOENT, -EBUSY, -EPERM, -EINVAL.
 */
TREV_API int trev_mkdir(const char *path);
TREV_API int trev_rmdir(const char *path);

/*
 * trev_write() - `echo -n @text > @path`: open for writing with O_TRUNC,
 * write @text, close. trev_write("trace", "") clears the buffer.
 * Return: 0 or a negative errno.
 */
TREV_API int trev_write(const char *path, const char *text);

/* trev_append() - `echo -n @text >> @path` (set_event, trigger keep what is there). */
TREV_API int trev_append(const char *path, const char *text);

/*
 * trev_read() - read a whole file (without blocking) into @buf, NUL-terminated
 * Return: the length (which may exceed @size - 1: the text was cut), or a
 * negative errno.
 */
TREV_API ssize_t trev_read(const char *path, char *buf, size_t size);

/*
 * trev_mount() - serve the tree as a FUSE file system at @dir (libfuse3,
 * from a background thread), until trev_unmount() or exit. Never
 * allow_other: only the process's own user can use it.
 * Return: 0, -EBUSY (already mounted), or a negative errno.
 */
TREV_API int trev_mount(const char *dir);
TREV_API int trev_unmount(void);

/*
 * trev_record_dat() - write what an instance's buffer holds now to a
 * trace.dat file that trace-cmd, libtracecmd and KernelShark read
 * @instance: "instances/foo/" (trailing '/'), or NULL for the top instance
 * @file: the file to write (replaced)
 * @version: 6 (trace-cmd 2.x layout; recommended) or 7 (sections)
 *
 * Consumes per_cpu/cpu<N>/trace_pipe_raw of every CPU, as trace-cmd
 * extract does, then writes the formats of every available event,
 * saved_cmdlines, printk_formats, the function names of trace_printk()
 * call sites, and the options CPUSTAT, TRACECLOCK, UNAME and VERSION.
 * Pages keep their lost-events flags and counts. docs/tracedat.md has the
 * layout; <trev/tracedat.h> the streaming writer and other sources.
 *
 * Context: any thread, not in a signal handler or a probe.
 * Return: 0, -EINVAL (bad version or instance), or a negative errno from
 * the tree or the file system (the partial file is removed).
 */
TREV_API int trev_record_dat(const char *instance, const char *file, int version);

#ifdef __cplusplus
}
#endif

#endif /* TREV_TREV_H */
