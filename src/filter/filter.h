/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Event filters (the kernel's trace_events_filter.c): the filter language
 * of events/<sys>/<ev>/filter, compiled once into a flat program of
 * predicates with short-circuit jumps and run on a record before it is
 * kept. Triggers use the same programs for their "if" conditions.
 */
#ifndef TREV_FILTER_H
#define TREV_FILTER_H

#include <stdbool.h>

struct trev_event_call;
struct trev_event_file;

/* A compiled filter and the text it was compiled from; immutable. */
struct trev_filter;

/* The subsystem filter's error when no event of the system took it. */
#define TREV_FILTER_ERR_SUBSYS	"Couldn't find or set field in one of a subsystem's events"

/* Why a filter text was refused: the kernel's message and its column. */
struct trev_filter_error {
	const char *msg;	/* static text, e.g. "Field not found" */
	int pos;		/* column in the text written */
};

/* How the compiler reads a field (the kernel's filter_assign_type()). */
enum trev_filter_field_kind {
	TREV_FF_NUM,		/* an integer of 1, 2, 4 or 8 bytes */
	TREV_FF_STATIC_STR,	/* char name[size] */
	TREV_FF_DYN_STR,	/* __data_loc char[]: (length << 16) | offset */
	TREV_FF_PTR_STR,	/* char *: refused in string comparisons */
	TREV_FF_REL_STR,	/* __rel_loc char[]: offset from the end of the word */
};

/* One field a filter may name: what the compiler needs of a format line. */
struct trev_filter_field {
	const char *name;
	int offset;		/* in the record, common fields included */
	int size;		/* bytes; for TREV_FF_DYN_STR and _REL_STR the 4 of its word */
	int is_signed;
	enum trev_filter_field_kind kind;
};

/*
 * trev__filter_compile_fields() - compile @text against a table of fields
 * @fields: the event's fields, searched in order before CPU, COMM and the
 *          common fields (the kernel's order); they may name common fields
 *          themselves, which then win
 * The compiler and the matcher need nothing else of the library (a CPU
 * predicate compares the CPU its caller passes), so the trev command links
 * them (trev_common) to filter trace.dat records.
 * Return: 0 and *@out (NULL when @text is "0": no filter), -EINVAL with
 * *@err filled (the kernel's message and column), or -ENOMEM.
 * Context: any thread; @fields is only read during the call.
 */
int trev__filter_compile_fields(const struct trev_filter_field *fields, unsigned int nr_fields,
				const char *text, struct trev_filter **out,
				struct trev_filter_error *err);

/*
 * trev__filter_compile() - compile @text against @call's fields
 * (trev__filter_compile_fields() with the registered event's fields).
 * Return: as trev__filter_compile_fields().
 * Context: under the registry lock (the fields stay put).
 */
int trev__filter_compile(struct trev_event_call *call, const char *text,
			 struct trev_filter **out, struct trev_filter_error *err);

/*
 * trev__filter_match() - does record @rec of @len bytes pass?
 * @cpu: what a CPU predicate compares: the CPU the record runs on (in the
 *       library, the one the ring buffer records: trev__rb_this_cpu())
 * Context: any thread, inside the RCU read side that protects @f;
 * async-signal-safe, no allocation, no lock.
 */
bool trev__filter_match(const struct trev_filter *f, const void *rec, unsigned int len,
			int cpu);

/*
 * For tests: trev__filter_match() that also sets @visited[i] for each
 * predicate it evaluated (i: the predicate's place in the text, from 0;
 * @visited holds trev__filter_nr_preds() bytes).
 */
bool trev__filter_match_visits(const struct trev_filter *f, const void *rec, unsigned int len,
			       int cpu, unsigned char *visited);
unsigned int trev__filter_nr_preds(const struct trev_filter *f);

/* The text the filter was compiled from, as the filter file shows it. */
const char *trev__filter_text(const struct trev_filter *f);

/* Free @f now (no reader can see it any more: after a grace period). */
void trev__filter_free(struct trev_filter *f);

/*
 * trev__event_filter_set() - make @f (NULL: none) @file's filter: publish
 * it, set or clear TREV_FILE_FL_FILTERED, wait for a grace period and free
 * the filter it replaces. @f is then owned by @file (freed with it).
 * Context: the registry lock held for writing; not in a probe.
 */
void trev__event_filter_set(struct trev_event_file *file, struct trev_filter *f);

#endif /* TREV_FILTER_H */
