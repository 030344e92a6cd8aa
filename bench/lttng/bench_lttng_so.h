/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The interface between bench_lttng_loader.c (in the benchmark binary) and
 * libtrev_bench_lttng.so (the LTTng-UST side, dlopen()ed): one exported
 * function that returns a table of emitters.
 */
#ifndef TREV_BENCH_LTTNG_SO_H
#define TREV_BENCH_LTTNG_SO_H

#define TREV_BENCH_LTTNG_OPS_SYM	"trev_bench_lttng_ops"
#define TREV_BENCH_LTTNG_OPS_VERSION	2

/* trev_bench_lttng_ops::enabled() bits: the tracepoints that are on */
#define TREV_BENCH_LTTNG_INTS3		0x1
#define TREV_BENCH_LTTNG_STR		0x2
#define TREV_BENCH_LTTNG_TRACEF		0x4
#define TREV_BENCH_LTTNG_INTS3_REJ	0x8
#define TREV_BENCH_LTTNG_INTS3_ACC	0x10
#define TREV_BENCH_LTTNG_ALL		0x1f

struct trev_bench_lttng_ops {
	int version;			/* TREV_BENCH_LTTNG_OPS_VERSION */
	void (*ints3)(int a, int b, int c);
	void (*str)(const char *s);
	void (*tracef3)(int a, int b, int c);
	void (*ints3_rej)(int a, int b, int c);	/* filtered: a < 0 */
	void (*ints3_acc)(int a, int b, int c);	/* filtered: a >= 0 && b >= 0 && c != 1 */
	int (*enabled)(void);		/* TREV_BENCH_LTTNG_* bits */
};

typedef const struct trev_bench_lttng_ops *(*trev_bench_lttng_ops_fn)(void);

/*
 * Inside the .so: the lttng_ust_tracef() side, in its own file because
 * <lttng/tracef.h> cannot share a file with LTTNG_UST_TRACEPOINT_DEFINE.
 */
void trev_bench_tracef3(int a, int b, int c);
int trev_bench_tracef_enabled(void);

#endif /* TREV_BENCH_LTTNG_SO_H */
