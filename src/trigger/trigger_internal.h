/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trigger framework (the kernel's struct event_command and struct
 * event_trigger_data): a table of commands, and per event file an RCU list
 * of trigger instances that the probe walks. Commands live beside this
 * header (trigger.c: traceon, traceoff, snapshot, stacktrace, enable_event,
 * disable_event; hist.c: hist, enable_hist, disable_hist).
 *
 * A line written to events/<sys>/<ev>/trigger goes through these steps
 * (trev__trigger_write(), under tfs_lock and the registry lock for writing):
 *
 *   "[!]cmd[:param] [if filter]"
 *     1. cmd is looked up in the table          unknown: -EINVAL + error_log
 *     2. the text after "cmd:" (or "cmd ") is split at the first word "if":
 *        param = before it (trimmed, NULL when empty), filter = after it
 *     3. a trigger is allocated (count -1, file set) and ->parse(param)
 *        fills what the command needs (->priv, ->count)
 *     4. removal ("!"): the first trigger of the file that ->match()es is
 *        unlinked, a grace period passes, ->unreg() and ->free() run;
 *        nothing matching is not an error (the kernel's behaviour)
 *     5. adding: the filter is compiled (trev__filter_compile) against the
 *        event; a trigger that ->match()es one already there: -EEXIST;
 *        ->reg() runs (take resources: soft mode, snapshot buffer), the
 *        event file takes a soft-mode reference, the trigger is published
 *        at the head of the list (newest first, as the kernel lists them)
 *        and the file's TRIGGER_MODE / TRIGGER_COND flags are recomputed
 *
 * The probe (event_buffer.c) calls trev__triggers_call() and
 * trev__triggers_post_call() (trigger.h) through the event file's ops
 * (events_internal.h; the write path is below the triggers); for each trigger that is not
 * paused and whose filter passes, the framework applies the count (below)
 * and calls ->fire(). A command with TREV_TRIGGER_CMD_POST fires from
 * trev__triggers_post_call(), after the record is committed: post commands
 * are matched by their ->type bit, so at most one trigger per post type
 * should exist on a file (the default ->match() guarantees that).
 *
 * Counts (the kernel's EVENT_TRIGGER_FL_COUNT): a trigger written with a
 * count (->has_count, set by the command's parse) fires only while
 * ->count > 0, and each firing takes one off with a compare-and-swap;
 * ->count == -1 is unlimited. ->skip(), when the command has one, is asked
 * first: a firing that would change nothing (traceoff while tracing is
 * already off) does not use up the count.
 *
 * Contexts:
 *   ->parse, ->match, ->reg, ->unreg, ->print, ->free, ->uses:
 *       tfs_lock and the registry lock held for writing (->print: for
 *       reading); may allocate and block.
 *   ->skip, ->fire:
 *       the event's probe, inside an RCU read section, maybe in a signal
 *       handler that interrupted another probe of the same thread: no
 *       allocation, no lock that could deadlock, no trev__rcu_synchronize().
 */
#ifndef TREV_TRIGGER_INTERNAL_H
#define TREV_TRIGGER_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>

#include "base/buf.h"
#include "events/events_internal.h"
#include "filter/filter.h"
#include "trigger/trigger.h"

/* The kernel's enum event_trigger_type: one bit per kind of command. */
#define TREV_TT_TRACE_ONOFF	0x01u	/* traceon, traceoff */
#define TREV_TT_SNAPSHOT	0x02u
#define TREV_TT_STACKTRACE	0x04u
#define TREV_TT_EVENT_ENABLE	0x08u	/* enable_event, disable_event */
#define TREV_TT_HIST		0x10u
#define TREV_TT_HIST_ENABLE	0x20u	/* enable_hist, disable_hist */

/* Flags of a command (the kernel's EVENT_CMD_FL_*). */
#define TREV_TRIGGER_CMD_POST		0x1u	/* fires after the record is committed */
#define TREV_TRIGGER_CMD_NEEDS_REC	0x2u	/* ->fire() reads the record (hist) */

/* Why ->parse() refused: the message and the column in the param text. */
struct trev_trigger_err {
	const char *msg;	/* static text, e.g. "Invalid count" */
	int pos;		/* column in @param (the framework adds the param's own) */
	const char *loc;	/* error_log location; NULL: "trigger" (hist: "hist:<sys>:<ev>") */
};

struct trev_event_trigger;

struct trev_trigger_cmd {
	const char *name;	/* "traceoff": what is written before ':' */
	unsigned int type;	/* TREV_TT_*: one bit */
	unsigned int flags;	/* TREV_TRIGGER_CMD_* */
	/*
	 * Fill @t from @param (NULL when none was written; the text may be
	 * modified). @t->filter_text is already set (the "if" condition as
	 * written, not yet compiled), so ->match() can compare it. @remove: the line started with '!' (only what ->match()
	 * needs has to be parsed). Return: 0; 1 when the command acted on a
	 * trigger already there and nothing is to be added (hist's :pause,
	 * :cont, :clear); -EINVAL with @err filled; -ENOMEM.
	 */
	int (*parse)(struct trev_event_trigger *t, char *param, bool remove,
		     struct trev_trigger_err *err);
	/* @a and @b are "the same trigger" (duplicates, removal). NULL: same ->type. */
	bool (*match)(const struct trev_event_trigger *a, const struct trev_event_trigger *b);
	/* Before @t is published: take what it needs. May fail (@t is then freed). */
	int (*reg)(struct trev_event_trigger *t);
	/* After @t was unlinked and a grace period passed: undo ->reg(). */
	void (*unreg)(struct trev_event_trigger *t);
	/*
	 * @t cannot go now (a hist whose variables another trigger reads):
	 * "!cmd" is refused with -EBUSY and O_TRUNC leaves it. May be NULL.
	 */
	bool (*busy)(const struct trev_event_trigger *t);
	/* Firing now would change nothing: do not use up the count. May be NULL. */
	bool (*skip)(const struct trev_event_trigger *t);
	/* Do it. @rec/@len: the record, NULL/0 when the event has no COND triggers. */
	void (*fire)(struct trev_event_trigger *t, void *rec, unsigned int len);
	/*
	 * One line of the trigger file, '\n' included. NULL: the kernel's
	 * generic form, trev__trigger_print_std(t, cmd->name, out).
	 */
	int (*print)(const struct trev_event_trigger *t, struct trev_buf *out);
	/* Free ->priv (after ->unreg(), or after a failed parse/reg). May be NULL. */
	void (*free)(struct trev_event_trigger *t);
	/*
	 * @t refers to event @call (enable_event's target): @call is being
	 * unloaded, so @t must go first. NULL: it refers to none.
	 */
	bool (*uses)(const struct trev_event_trigger *t, const struct trev_event_call *call);
};

/* One trigger on one event file (the kernel's struct event_trigger_data). */
struct trev_event_trigger {
	const struct trev_trigger_cmd *cmd;
	struct trev_event_file *file;	/* the event it is on */
	_Atomic long count;		/* firings left; -1 unlimited */
	bool has_count;			/* a count was written (":N") */
	bool plain;			/* no filter, no count, not POST: set before publishing */
	atomic_bool paused;		/* skipped by the probe (hist :pause) */
	struct trev_filter *filter;	/* the "if" condition; NULL = always */
	char *filter_text;		/* as written after "if", for ->print */
	void *priv;			/* the command's data */
	struct trev_event_trigger *next; /* RCU: the file's list, newest first */
	struct trev_event_trigger *gone; /* framework: unlinked, waiting for a grace period */
};

/*
 * trev__trigger_parse_count() - parse @text as the kernel's ":N" count
 * (kstrtoul, base 0) into @t (->count, ->has_count). @text NULL: no
 * count, the trigger is unlimited.
 * Return: 0 or -EINVAL with @err filled (position 0 of @text).
 */
int trev__trigger_parse_count(struct trev_event_trigger *t, const char *text,
			      struct trev_trigger_err *err);

/*
 * trev__trigger_parse_target() - the "<system>:<event>[:N]" parameter of
 * enable_event, disable_event, enable_hist and disable_hist (the kernel's
 * event_enable_trigger_parse()): @param is split in place, the event is
 * looked up in @t's instance (its file made if needed) and the count, when
 * not @remove, goes into @t.
 * Return: 0 and *@target, -EINVAL with @err filled, or -ENOMEM.
 * Context: the registry lock held for writing.
 */
int trev__trigger_parse_target(struct trev_event_trigger *t, char *param, bool remove,
			       struct trev_trigger_err *err, struct trev_event_file **target);

/* "name:unlimited" or "name:count=N", then " if <filter>" when there is one, then '\n'. */
int trev__trigger_print_std(const struct trev_event_trigger *t, const char *name,
			    struct trev_buf *out);

/* The first trigger of @file that is the same as @t (->match), or NULL. Registry lock held. */
struct trev_event_trigger *trev__trigger_find(struct trev_event_file *file,
					      const struct trev_event_trigger *t);

/*
 * The commands, in the kernel's listing order (the "# Available triggers:"
 * line). A command defined elsewhere (hist.c) is added to trigger_cmds[]
 * in trigger.c.
 */
extern const struct trev_trigger_cmd *const trev__trigger_cmds[];
extern const unsigned int trev__nr_trigger_cmds;

/* ------------------------------------------------------------------ */
/* What the tracefs trigger file and the registry call                  */

/*
 * trev__trigger_write() - one line written to @file's trigger file
 * (@tr: the instance, for error_log). Return: 0 or a negative errno.
 * Context: tfs_lock and the registry lock for writing.
 */
int trev__trigger_write(struct trev_trace_array *tr, struct trev_event_file *file,
			const char *line);
/* The trigger file's text: the triggers, or the "# Available triggers:" help. */
int trev__trigger_show(struct trev_event_file *file, struct trev_buf *out);
/* Remove every trigger of @file but busy ones (O_TRUNC). Context: the registry lock for writing. */
void trev__triggers_clear(struct trev_event_file *file);
/* Remove every trigger of every file of @tr (before the instance goes). Takes the registry lock. */
void trev__triggers_clear_instance(struct trev_trace_array *tr);
/*
 * @call is being unregistered (dlclose): remove the triggers that refer to
 * it from every file, and every trigger of its own files.
 * Context: the registry lock for writing; @call's probes are gone.
 */
void trev__triggers_drop_call(struct trev_event_call *call);
/*
 * Free @file's triggers now: no probe can run them any more (its
 * tracepoint's probes are gone, or its instance is going).
 * Context: the registry lock for writing.
 */
void trev__triggers_free_file(struct trev_event_file *file);

#endif /* TREV_TRIGGER_INTERNAL_H */
