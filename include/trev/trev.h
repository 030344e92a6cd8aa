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

/* Receives every library message at or below the chosen level. */
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

#ifdef __cplusplus
}
#endif

#endif /* TREV_TREV_H */
