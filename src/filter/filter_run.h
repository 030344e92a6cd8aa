/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A compiled filter as it runs (src/filter/filter.c compiles it): the
 * program's layout and its loop, inline so that the probe's path for a
 * filtered event (src/write/event_buffer.c) runs a numeric filter without
 * a call.
 */
#ifndef TREV_FILTER_RUN_H
#define TREV_FILTER_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/log.h"

/* What a predicate reads. */
enum flt_kind {
	FK_U8, FK_U16, FK_U32, FK_U64,		/* zero-extended */
	FK_S8, FK_S16, FK_S32, FK_S64,		/* sign-extended */
	FK_CPU,					/* the caller's CPU, as an int */
	FK_STATIC_STR,				/* char name[size] */
	FK_DYN_STR,				/* __data_loc char[] */
	FK_REL_STR,				/* __rel_loc char[] */
	FK_COMM,				/* the thread's name */
};

/*
 * How it is compared. Every numeric comparison but & is a range test,
 * lo <= v <= hi in an order where signed values are biased by 2^63 to
 * compare as unsigned ones; it runs as one subtraction and one unsigned
 * compare, v - val <= span, with the bias folded into val.
 */
enum flt_cmp {
	FC_RANGE, FC_BAND,
	FC_STR_FULL, FC_STR_FRONT, FC_STR_END, FC_STR_MIDDLE, FC_STR_GLOB,
};

/* One predicate of the program. */
struct flt_insn {
	uint8_t kind;		/* enum flt_kind */
	uint8_t cmp;		/* enum flt_cmp */
	uint8_t when;		/* branch when the comparison gives this */
	uint8_t neg;		/* compile time: the predicate is negated */
	uint16_t offset;	/* of the field in the record */
	uint16_t size;		/* static string: the array's size */
	uint32_t target;	/* where the branch goes: an index, n (accept), n+1 (reject) */
	uint32_t plen;		/* string: pattern length */
	uint64_t val;		/* FC_RANGE: lo, biased; FC_BAND: the mask */
	union {
		uint64_t span;		/* FC_RANGE: hi - lo */
		const char *pat;	/* string: the pattern, in the filter's allocation */
	};
};

struct trev_filter {
	char *text;			/* as written */
	unsigned int n;			/* instructions */
	unsigned int min_len;		/* shorter records cannot be the event's */
	bool reads_level;		/* reads common_flags or common_preempt_count */
	struct flt_insn prog[];
};

/*
 * trev__filter_run_from() - the program from predicate @i, any kind of
 * predicate; @cpu is what a CPU predicate compares (trev__filter_match());
 * @visited (tests), if not NULL, marks each predicate evaluated
 * Return: true when the record is kept.
 */
bool trev__filter_run_from(const struct trev_filter *f, const void *rec, unsigned int len,
			   int cpu, unsigned char *visited, unsigned int i);

/* Load a numeric predicate's field into @v. Return: false for the other kinds. */
static inline __attribute__((always_inline)) bool
flt_load_num(const struct flt_insn *in, const uint8_t *rec, uint64_t *v)
{
	const uint8_t *a = rec + in->offset;

	switch (in->kind) {
	case FK_U8: *v = *a; return true;
	case FK_U16: { uint16_t x; memcpy(&x, a, 2); *v = x; return true; }
	case FK_U32: { uint32_t x; memcpy(&x, a, 4); *v = x; return true; }
	case FK_S8: *v = (uint64_t)(int64_t)(int8_t)*a; return true;
	case FK_S16: { int16_t x; memcpy(&x, a, 2); *v = (uint64_t)(int64_t)x; return true; }
	case FK_S32: { int32_t x; memcpy(&x, a, 4); *v = (uint64_t)(int64_t)x; return true; }
	case FK_U64:
	case FK_S64: memcpy(v, a, 8); return true;
	default: return false;
	}
}

/* The comparison of a numeric predicate, on its loaded value @v. */
static inline __attribute__((always_inline)) bool flt_num_match(const struct flt_insn *in,
								  uint64_t v)
{
	if (trev_unlikely(in->cmp == FC_BAND))
		return (v & in->val) != 0;
	return v - in->val <= in->span;
}

/* What flt_run_num() found. */
enum flt_verdict {
	FLT_DROP = 0,		/* the record is rejected */
	FLT_KEEP = 1,		/* the record is kept */
	FLT_MORE = 2,		/* a CPU, COMM or string predicate comes next */
};

/*
 * The program's numeric predicates, inline and without calls: from the
 * start up to the first predicate of another kind, whose index goes to
 * *@at for trev__filter_run_from(). A caller that must look its CPU up
 * does so only then.
 */
static inline __attribute__((always_inline)) enum flt_verdict
flt_run_num(const struct trev_filter *f, const void *rec, unsigned int len, unsigned int *at)
{
	const struct flt_insn *prog = f->prog, *in = prog, *end = prog + f->n;

	/* Not a record of the event the filter was compiled for (no probe passes one). */
	if (trev_unlikely(len < f->min_len))
		return FLT_DROP;
	while (in < end) {
		uint64_t v;

		if (trev_unlikely(!flt_load_num(in, rec, &v))) {
			*at = (unsigned int)(in - prog);
			return FLT_MORE;
		}
		in = flt_num_match(in, v) == in->when ? prog + in->target : in + 1;
	}
	return in == end ? FLT_KEEP : FLT_DROP;
}

#endif /* TREV_FILTER_RUN_H */
