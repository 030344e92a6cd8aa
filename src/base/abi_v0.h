/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The descriptors of ABI 0 (trev 0.1.0): the layout objects built against
 * that release hand the library, without a size or version. Frozen: the
 * library translates them at registration (src/events/abi.c) and
 * `trev list FILE` decodes them (tools/trev/descr.c). Never change them.
 */
#ifndef TREV_ABI_V0_H
#define TREV_ABI_V0_H

/*
 *	OFFSET	SIZE	FIELD (64-bit)
 *	0	8	name
 *	8	4	key.enabled
 *	16	8	funcs
 *	24	8	regfunc
 *	32	8	unregfunc
 *	40	8	iterator
 */
struct trev_v0_tracepoint {
	const char *name;			/* "sched_switch" */
	struct { int enabled; } key;		/* probes registered */
	void *funcs;				/* struct trev_tracepoint_func[] */
	int (*regfunc)(void);			/* TRACE_EVENT_FN */
	void (*unregfunc)(void);
	void *iterator;				/* __traceiter_<name> */
};

struct trev_v0_event_class {
	const char *system;			/* TRACE_SYSTEM */
	void *probe;				/* void (*)(void *file, proto) */
	void *define_fields;			/* int (*)(struct trev_event_call *) */
	unsigned int entry_size;		/* fixed part of a record */
};

struct trev_v0_event_call {
	const struct trev_v0_event_class *klass;
	const char *name;			/* "te_test" */
	struct trev_v0_tracepoint *tp;
	const char *print_fmt;
	void *output;				/* trev_event_output_fn */
	unsigned int flags;			/* TREV_EVENT_FL_* */
	unsigned short id;			/* written by an ABI 0 library only */
	void *rt;				/* idem */
};

struct trev_v0_eval_map {
	const char *system;
	const char *eval_string;
	unsigned long eval_value;
};

#endif /* TREV_ABI_V0_H */
