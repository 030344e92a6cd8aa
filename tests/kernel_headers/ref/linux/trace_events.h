/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The reference side's <linux/trace_events.h> (ours): only what the kernel's stage headers
 * 1, 4 and 7 and stages/init.h name, with the kernel's member names and order (stage 4 fills
 * struct trace_event_fields partly by position), and the descriptors ref/trace/define_trace.h
 * hands to ref_main.c.
 */
#ifndef KH_REF_TRACE_EVENTS_H
#define KH_REF_TRACE_EVENTS_H

/* The common fields (struct trace_entry): what sizeof() the first field starts after. */
struct trace_entry {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
};

enum {
	FILTER_OTHER = 0,
	FILTER_STATIC_STRING,
	FILTER_DYN_STRING,
	FILTER_RDYN_STRING,
	FILTER_PTR_STRING,
	FILTER_TRACE_FN,
	FILTER_COMM,
	FILTER_CPU,
};

struct trace_event_call;

/* One field as stage 4 describes it; the kernel lays the record out from these. */
struct trace_event_fields {
	const char *type;
	union {
		struct {
			const char *name;
			const int size;
			const int align;
			const int is_signed;
			const int filter_type;
			const int len;
		};
		int (*define_fields)(struct trace_event_call *);
	};
};

/* TRACE_DEFINE_ENUM()/TRACE_DEFINE_SIZEOF() (stages/init.h): a name and its value. */
struct trace_eval_map {
	const char *system;
	const char *eval_string;
	unsigned long eval_value;
};

#define __initdata

/* Ours: what the kernel's event_class_<class>/event_<name> carry that the format shows. */
struct kh_ref_class {
	const char *system;			/* TRACE_SYSTEM_STRING */
	struct trace_event_fields *fields;	/* stage 4 */
};

struct kh_ref_event {
	struct kh_ref_class *klass;
	const char *name;
	char *print_fmt;			/* stage 7; enum names replaced at start */
};

#endif /* KH_REF_TRACE_EVENTS_H */
