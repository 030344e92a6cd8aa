/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libtrev_bench_lttng.so: the trev_bench tracepoint provider (probes and
 * tracepoint definitions) and one out-of-line emitter per benchmark event.
 *
 * It is linked against liblttng-ust, so loading it runs liblttng-ust's
 * constructor, which registers this process with the session daemons; the
 * benchmark binary dlopen()s it only once its private session daemon has an
 * active session waiting (bench_lttng_loader.c), and never links
 * liblttng-ust itself.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "trev_bench_tp.h"

#include "bench_lttng_so.h"

#define TREV_BENCH_EXPORT	__attribute__((visibility("default")))

static void emit_ints3(int a, int b, int c)
{
	lttng_ust_tracepoint(trev_bench, ints3, a, b, c);
}

static void emit_ints3_rej(int a, int b, int c)
{
	lttng_ust_tracepoint(trev_bench, ints3_rej, a, b, c);
}

static void emit_ints3_acc(int a, int b, int c)
{
	lttng_ust_tracepoint(trev_bench, ints3_acc, a, b, c);
}

static void emit_str(const char *s)
{
	lttng_ust_tracepoint(trev_bench, str, s);
}

static int enabled(void)
{
	int on = 0;

	if (lttng_ust_tracepoint_enabled(trev_bench, ints3))
		on |= TREV_BENCH_LTTNG_INTS3;
	if (lttng_ust_tracepoint_enabled(trev_bench, str))
		on |= TREV_BENCH_LTTNG_STR;
	if (trev_bench_tracef_enabled())
		on |= TREV_BENCH_LTTNG_TRACEF;
	if (lttng_ust_tracepoint_enabled(trev_bench, ints3_rej))
		on |= TREV_BENCH_LTTNG_INTS3_REJ;
	if (lttng_ust_tracepoint_enabled(trev_bench, ints3_acc))
		on |= TREV_BENCH_LTTNG_INTS3_ACC;
	return on;
}

static const struct trev_bench_lttng_ops ops = {
	.version = TREV_BENCH_LTTNG_OPS_VERSION,
	.ints3 = emit_ints3,
	.str = emit_str,
	.tracef3 = trev_bench_tracef3,
	.ints3_rej = emit_ints3_rej,
	.ints3_acc = emit_ints3_acc,
	.enabled = enabled,
};

TREV_BENCH_EXPORT const struct trev_bench_lttng_ops *trev_bench_lttng_ops(void);

const struct trev_bench_lttng_ops *trev_bench_lttng_ops(void)
{
	return &ops;
}
