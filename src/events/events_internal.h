/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event registry and trace instances (the kernel's trace.h and
 * trace_events.c state): which events exist, their ids, fields and files,
 * and the instance their records go to.
 */
#ifndef TREV_EVENTS_INTERNAL_H
#define TREV_EVENTS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include <trev/ring_buffer.h>
#include <trev/trace_event.h>

/* Ids of the built-in ftrace events, as the kernel numbers them (enum trace_type). */
#define TREV_TYPE_PRINT		5
#define TREV_TYPE_BPRINT	6
#define TREV_TYPE_BPUTS		14
/* Events defined with TRACE_EVENT() get ids from here on, never reused. */
#define TREV_FIRST_EVENT_ID	1000
#define TREV_MAX_EVENT_ID	65535

/* Output options (trace_options), the kernel's TRACE_ITER_* meanings. */
#define TREV_ITER_PRINT_PARENT	0x0001u
#define TREV_ITER_SYM_OFFSET	0x0002u
#define TREV_ITER_SYM_ADDR	0x0004u
#define TREV_ITER_RAW		0x0008u
#define TREV_ITER_HEX		0x0010u
#define TREV_ITER_BIN		0x0020u
#define TREV_ITER_CONTEXT_INFO	0x0040u
#define TREV_ITER_LATENCY_FMT	0x0080u
#define TREV_ITER_IRQ_INFO	0x0100u
#define TREV_ITER_RECORD_TGID	0x0200u
#define TREV_ITER_DEFAULT	(TREV_ITER_PRINT_PARENT | TREV_ITER_CONTEXT_INFO | \
				 TREV_ITER_IRQ_INFO)

/* common_flags bits (the kernel's TRACE_FLAG_*). */
#define TREV_FLAG_HARDIRQ	0x08	/* written by a signal handler */

/* A trace instance: one ring buffer and its settings. */
struct trev_trace_array {
	const char *name;		/* "" for the top instance */
	struct trev_rb *rb;		/* where its records go */
	unsigned long trace_flags;	/* TREV_ITER_* */
};

/* Flags of struct trev_event_file (the kernel's EVENT_FILE_FL_*). */
#define TREV_FILE_FL_ENABLED		0x1u	/* the probe is registered */
#define TREV_FILE_FL_SOFT_MODE		0x2u	/* registered for triggers */
#define TREV_FILE_FL_SOFT_DISABLED	0x4u	/* registered, records nothing */

/* An event in one instance: the probe's data pointer. */
struct trev_event_file {
	struct trev_event_call *call;
	struct trev_trace_array *tr;
	_Atomic unsigned int flags;	/* TREV_FILE_FL_* */
	int sm_ref;			/* soft-mode users; under events_lock */
};

/* One field of an event's records. */
struct trev_field {
	char *type;		/* as the format file shows it */
	char *name;
	int offset;
	int size;
	int is_signed;
	int filter_type;	/* enum trev_filter_type */
};

/* Library state of a registered event: call->rt. */
struct trev_event_rt {
	struct trev_event_file file;	/* the top instance's */
	struct trev_field *fields;
	int nr_fields;
	int fields_cap;
};

static inline struct trev_event_rt *trev__event_rt(const struct trev_event_call *call)
{
	return (struct trev_event_rt *)call->rt;
}

/* The top instance, made on first use. Context: not signal-safe the first time. */
struct trev_trace_array *trev__top_instance(void);
/* The top instance if it exists, else NULL. Context: any, signal-safe. */
struct trev_trace_array *trev__top_instance_if_made(void);

/*
 * The registry lock: held for reading while a record is printed (its
 * event's code and text must stay mapped), for writing while events come
 * and go.
 */
void trev__events_read_lock(void);
void trev__events_read_unlock(void);

/* Under the read lock: the event with @id, or NULL. */
struct trev_event_call *trev__event_by_id(unsigned int id);
/* Under the read lock: visit every registered event, in id order; stop on non-zero. */
int trev__events_for_each(int (*fn)(struct trev_event_call *call, void *arg), void *arg);

/*
 * trev__set_event() - set_event syntax: "[!][system:]event", "system:*",
 * "*:*"; "!" disables. Return: 0, -EINVAL when nothing matched, -ENOMEM.
 * Context: not under the registry lock.
 */
int trev__set_event(const char *spec);
/* The same, only for events with ids from @min_id on. */
int trev__set_event_from(const char *spec, unsigned int min_id);
/* Soft mode for triggers: probe registered, records only while enabled. */
int trev__event_soft_mode(struct trev_event_call *call, bool take);

/* Built-in ftrace events (ftrace:print, bprint, bputs), registered at start. */
extern struct trev_event_call trev__ftrace_event_print;
extern struct trev_event_call trev__ftrace_event_bprint;
extern struct trev_event_call trev__ftrace_event_bputs;
void trev__ftrace_events_register(void);

/* Format texts. Return: 0 and a malloc'd string, or -errno. */
int trev__event_format_text(struct trev_event_call *call, char **text);
extern const char trev__header_page_text[];
extern const char trev__header_event_text[];
int trev__printk_formats_text(char **text);

/* Text output of the trace (output.c). trev__print_line(): under trev__events_read_lock(). */
int trev__trace_print(struct trev_trace_array *tr, FILE *out);
void trev__print_line(struct trev_trace_array *tr, struct trev_trace_iter *iter,
		      const struct trev_rb_event *ev, const char *comm);

#endif /* TREV_EVENTS_INTERNAL_H */
