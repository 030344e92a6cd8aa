/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The integrity harness's event (tests/integrity/): one record carries
 * (stream, seq), its payload and a check value, all printed, so that a text
 * reader (trace, trace_pipe, trace-cmd report) can verify every event.
 * integ_payload.h defines the payload and the check.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM integ

#if !defined(_TRACE_INTEG_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_INTEG_H

#include <trev/tracepoint.h>

TRACE_EVENT(integ_rec,
	TP_PROTO(unsigned int stream, unsigned long long seq, const char *payload,
		 unsigned int len, unsigned int check),
	TP_ARGS(stream, seq, payload, len, check),
	TP_STRUCT__entry(
		__field(unsigned int, stream)
		__field(unsigned int, len)
		__field(unsigned long long, seq)
		__field(unsigned int, check)
		__string_len(payload, payload, len)
	),
	TP_fast_assign(
		__entry->stream = stream;
		__entry->len = len;
		__entry->seq = seq;
		__entry->check = check;
		__assign_str(payload);
	),
	TP_printk("stream=%u seq=%llu len=%u check=%08x p=%s", __entry->stream, __entry->seq,
		  __entry->len, __entry->check, __get_str(payload))
);

#endif /* _TRACE_INTEG_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE integ_events

#include <trev/define_trace.h>
