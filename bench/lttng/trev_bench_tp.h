/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trev_bench LTTng-UST tracepoint provider: the LTTng side of the
 * benchmark events, field for field what trev's benchmark events record.
 *
 *   trev_bench:ints3	three int fields a, b, c
 *   trev_bench:str	one string field s (ctf_string: copied up to its NUL)
 *   trev_bench:ints3_rej, trev_bench:ints3_acc
 *			ints3 again, for the filtered cases: the loader
 *			enables them with filters (a < 0, which rejects
 *			every benchmark event; a >= 0 && b >= 0 && c != 1,
 *			which accepts them), as trev's benchmark filters
 *			be_ints3
 *
 * The printf-like case is LTTng's own lttng_ust_tracef() (the
 * lttng_ust_tracef:event tracepoint of liblttng-ust), the counterpart of
 * trace_printk(). Only trev_bench_lttng.c includes this header; it builds
 * the probes into libtrev_bench_lttng.so.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER trev_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "trev_bench_tp.h"

#if !defined(TREV_BENCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TREV_BENCH_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(trev_bench, ints3,
	LTTNG_UST_TP_ARGS(int, a, int, b, int, c),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int, a, a)
		lttng_ust_field_integer(int, b, b)
		lttng_ust_field_integer(int, c, c)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(trev_bench, ints3_rej,
	LTTNG_UST_TP_ARGS(int, a, int, b, int, c),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int, a, a)
		lttng_ust_field_integer(int, b, b)
		lttng_ust_field_integer(int, c, c)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(trev_bench, ints3_acc,
	LTTNG_UST_TP_ARGS(int, a, int, b, int, c),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int, a, a)
		lttng_ust_field_integer(int, b, b)
		lttng_ust_field_integer(int, c, c)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(trev_bench, str,
	LTTNG_UST_TP_ARGS(const char *, s),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(s, s)
	)
)

#endif /* TREV_BENCH_TP_H */

#include <lttng/tracepoint-event.h>
