/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tracers as registered objects (the kernel's struct tracer and
 * register_tracer()): what available_tracers lists, what current_tracer
 * selects per instance, and what the trace text asks of the tracer that
 * runs (the `# tracer:` header, its own header and lines). nop is the
 * registry's own and every instance's first; function and function_graph
 * register theirs from src/ftrace. docs/architecture.md, "Adding a tracer".
 */
#ifndef TREV_EVENTS_TRACER_H
#define TREV_EVENTS_TRACER_H

#include <stdbool.h>

struct trev_buf;
struct trev_event_call;
struct trev_rb_event;
struct trev_trace_array;
struct trev_trace_iter;
struct trev_tracer;

/*
 * A reading of a buffer by a tracer with lines of its own (the kernel's
 * trace_iterator with the tracer's private data): the tracer's state, made
 * by ->open() for this reading, and the records in order, which the tracer
 * may read ahead of the line it prints.
 */
struct trev_tracer_read {
	const struct trev_tracer *tracer;	/* whose ->open() made @state */
	void *state;
	int (*next)(void *arg, struct trev_rb_event *ev);	/* 1, 0 (none now), -errno */
	void *arg;
};

/* The tracer runs in the top instance only (not listed, not taken elsewhere). */
#define TREV_TRACER_TOP_ONLY	0x1u

/**
 * struct trev_tracer - a tracer, registered with trev__tracer_register()
 * @name: what available_tracers lists and current_tracer takes
 * @flags: TREV_TRACER_*
 * @init: become @tr's tracer, taking over from @prev (which ->reset() left
 *        running when it was a sibling of the same engine; see there).
 *        NULL: nothing to start. Return: 0, or -errno with *@why set to the
 *        error_log message; the previous tracer then stays.
 * @reset: stop being @tr's tracer before @next's ->init(). A tracer may leave
 *         its engine running when @next is its sibling (function and
 *         function_graph switch the patched sites in one step). NULL:
 *         nothing to stop. Return: 0, or -errno with *@why set; it stays.
 * @print_header: the trace text's header after `# tracer: NAME`, instead
 *                of the default columns (@empty: no entries). NULL: default.
 * @open: the state of one reading of the trace text, for a tracer with
 *        lines of its own (NULL: the events' lines; with it, @close, @read
 *        and @print_line are set too). Return: NULL when out of memory.
 * @close: frees ->open()'s state.
 * @read: the next record of @rd, as @rd->next would give it, for a tracer
 *        that reads ahead. Return: as @rd->next.
 * @pending: records read ahead and not printed yet (trace_pipe's poll).
 * @print_line: the record in @iter (of @call) as the tracer's line into
 *              iter->seq (@comm: its thread's name). Return: false to
 *              print the event's own line.
 *
 * Context: ->init() and ->reset() under the tracefs lock; the text's
 * callbacks in any reader's thread, under the events' read lock.
 */
struct trev_tracer {
	const char *name;
	unsigned int flags;
	int (*init)(struct trev_trace_array *tr, const struct trev_tracer *prev,
		    const char **why);
	int (*reset)(struct trev_trace_array *tr, const struct trev_tracer *next,
		     const char **why);
	void (*print_header)(unsigned long trace_flags, bool empty, struct trev_buf *out);
	void *(*open)(void);
	void (*close)(void *state);
	int (*read)(const struct trev_tracer_read *rd, struct trev_rb_event *ev);
	bool (*pending)(const void *state);
	bool (*print_line)(const struct trev_tracer_read *rd, struct trev_trace_iter *iter,
			   struct trev_event_call *call, const char *comm);
	/* private: the registry's list */
	const struct trev_tracer *next;
};

/*
 * trev__tracer_register() - add @t to the tracers (the kernel's
 * register_tracer()); @t stays the caller's and is never unregistered.
 * Return: 0; -EEXIST for a name already registered; -EINVAL without a name.
 * Context: any thread, a constructor too (no allocation).
 */
int trev__tracer_register(struct trev_tracer *t);

/* The tracer named @name that @tr may run, or NULL. */
const struct trev_tracer *trev__tracer_find(const struct trev_trace_array *tr, const char *name);

/* available_tracers of @tr: the names, the newest registered first, as the kernel lists them. */
int trev__tracers_show(const struct trev_trace_array *tr, struct trev_buf *out);

/* The tracer @tr runs (nop until another is set). Context: any thread, signal-safe. */
const struct trev_tracer *trev__tracer_of(const struct trev_trace_array *tr);

/*
 * trev__tracer_set() - make @t @tr's tracer (current_tracer): the running
 * one's ->reset(), then @t's ->init(); when ->init() fails, the previous
 * one's ->init() takes its place back. Setting the tracer that runs does
 * nothing. Return: 0, or -errno with *@why set for error_log.
 * Context: the tracefs lock.
 */
int trev__tracer_set(struct trev_trace_array *tr, const struct trev_tracer *t, const char **why);

/* The nop tracer, every instance's first. */
extern struct trev_tracer trev__nop_tracer;

#endif /* TREV_EVENTS_TRACER_H */
