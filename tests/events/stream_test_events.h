/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event of the streamed `trace` test (tests/unit/test_trace_stream.c):
 * a sequence number, and a call into the test from TP_printk, which runs
 * when the line is formatted, so that the test can stop a reader in the
 * middle of formatting and look around.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM trev_stream

#if !defined(_TRACE_TREV_STREAM_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TREV_STREAM_H

#include <trev/tracepoint.h>

#ifndef _TRACE_TREV_STREAM_DEF
#define _TRACE_TREV_STREAM_DEF
/* Called for every line formatted; returns "" (the test's). */
const char *ts_print_hook(unsigned int seq);
#endif

TRACE_EVENT(ts_seq,
	TP_PROTO(unsigned int seq),
	TP_ARGS(seq),
	TP_STRUCT__entry(
		__field(unsigned int, seq)
	),
	TP_fast_assign(
		__entry->seq = seq;
	),
	TP_printk("seq=%u%s", __entry->seq, ts_print_hook(__entry->seq))
);

#endif /* _TRACE_TREV_STREAM_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE stream_test_events

#include <trev/define_trace.h>
